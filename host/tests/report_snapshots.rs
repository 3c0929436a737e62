//! What a finding's `report.md` and `repro.sql` say, for a finding of each
//! shipped oracle: the oracles are the built plugin libraries, loaded as the
//! host loads them; the cases are small, the histories hand-made as a faulty
//! DBMS would have answered; the finding directories are written by the
//! host's own writer. Snapshots hold no times and no absolute paths (the
//! pipeline is named relative to the run directory; txlab's version is
//! replaced by `[txlab version]`).

mod common;

use std::path::Path;
use txlab_host::io::{write_finding, FindingInput, FindingOrigin, ReportKind, ReproCase};
use txlab_loader::PluginLibrary;
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::{concurrent_history, schedule, serial_history, MemoryDb};

const RR: IsolationLevel = IsolationLevel::RepeatableRead;
const LIMITS: SessionLimits = SessionLimits {
    statement_timeout_ms: 5000,
    lock_wait_timeout_ms: 8000,
};

fn mariadb(config: &str) -> txlab_mysql::MariadbDialect {
    <txlab_mysql::MariadbDialect as DialectPlugin>::new(parse_config(config).unwrap()).unwrap()
}

fn postgres() -> txlab_postgres::PostgresDialect {
    <txlab_postgres::PostgresDialect as DialectPlugin>::new(parse_config("{}").unwrap()).unwrap()
}

/// The shipped oracle `name`, loaded from its library.
fn oracle(name: &str, dialect: DialectInfo) -> txlab_loader::OracleHandle {
    let library = PluginLibrary::load(&common::library(&format!("txlab-oracle-{name}"))).unwrap();
    library
        .new_oracle(name, "{}", &OracleContext { dialect })
        .unwrap()
}

fn t() -> Table {
    table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Int)],
        &["id"],
    )
}

fn one_row(id: i64, v: i64) -> Vec<TableRows> {
    vec![rows_of(&t(), vec![vec![Value::Int(id), Value::Int(v)]])]
}

/// T1 updates row 1 and commits while T2's DELETE of it waits; the DELETE
/// then deletes nothing, where the serial run T1 → T2 deletes the row.
fn delete_after_wait() -> TestCase {
    let transactions = vec![
        explicit(
            RR,
            vec![
                Statement::Begin,
                update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                Statement::Commit,
            ],
        ),
        explicit(
            RR,
            vec![
                Statement::Begin,
                delete("t", Some(eq(c("id"), int(1)))),
                Statement::Commit,
            ],
        ),
    ];
    let mut case = case_of(Schema { tables: vec![t()] }, one_row(1, 10), transactions);
    case.submitted_order = schedule(&case.transactions, &[0, 1, 0, 1, 0, 1]);
    case.validate().unwrap();
    case
}

/// The run of [`delete_after_wait`]: T2.2 sent after T1.2 replied, blocked,
/// resumed after T1.3, and affected no row; the row stays as T1 left it
/// (with the oracle's auxiliary columns, `extra`).
fn delete_after_wait_history(case: &TestCase, extra: &[Value]) -> History {
    let at = StatementRef::new;
    let mut history = concurrent_history(case, &[0, 1, 0, 0, 1, 1])
        .outcome(at(0, 1), Outcome::Affected { rows: 1 })
        .outcome(at(1, 1), Outcome::Affected { rows: 0 })
        .blocked(at(1, 1), 3)
        .final_state(final_state(
            case,
            &[[vec![Value::Int(1), Value::Int(11)], extra.to_vec()].concat()],
        ))
        .build();
    if let Some(b) = &mut history.statements[1][1].blocked {
        b.resumed_after = Some(at(0, 2));
    }
    history
}

fn final_state(case: &TestCase, rows: &[Vec<Value>]) -> DbState {
    let t = case.schema.table("t").unwrap();
    DbState {
        tables: vec![TableState {
            table: "t".into(),
            columns: t.column_names(),
            rows: rows.to_vec(),
        }],
    }
}

/// What a finding directory holds, written by the host.
struct Written {
    report: String,
    repro: String,
}

/// Prepares `case` with `oracle` (as the run does), renders it with
/// `dialect`, lets the oracle judge `history` of the prepared case, and
/// writes the finding.
fn finding<D: Dialect>(
    name: &str,
    dialect: &D,
    server_version: &str,
    generated: &TestCase,
    history: impl FnOnce(&TestCase) -> History,
) -> Written {
    let info = dialect.info();
    let mut o = oracle(name, info.clone());
    let prepared = o.prepare(generated).unwrap();
    let history = history(&prepared);
    let rendered = dialect.render_case(&prepared, &LIMITS).unwrap();
    let verdict = o
        .check(
            &CheckInput {
                case: prepared.clone(),
                history: history.clone(),
            },
            &mut MemoryDb::new(),
        )
        .unwrap();
    let (kind, finding) = match verdict {
        Verdict::Finding(f) => (ReportKind::Finding, f),
        Verdict::VendorPermitted(f) => (ReportKind::VendorPermitted, f),
        other => panic!("{name}: expected a finding, got {other:?}"),
    };
    let plain = txlab_script::repro::without_auxiliary_columns(generated, &prepared);
    let repro = (!plain.left_out.is_empty()).then(|| ReproCase {
        rendered: dialect.render_case(&plain.case, &LIMITS).unwrap(),
        case: plain.case,
        left_out: plain.left_out,
    });
    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("pipeline.toml");
    std::fs::write(&pipeline, "").unwrap();
    let run = dir.path().join("out").join("run-1");
    std::fs::create_dir_all(&run).unwrap();
    let written = write_finding(
        &run,
        &FindingInput {
            origin: FindingOrigin {
                kind,
                oracle: name,
                dialect: &info,
                generator: "hand-written",
                pipeline: &pipeline,
                request: CaseRequest {
                    run_seed: 7,
                    index: 3,
                    seed: 1234,
                },
                server_version: Some(server_version),
            },
            generated,
            case: &prepared,
            rendered: &rendered,
            history: &history,
            finding: &finding,
            repro: repro.as_ref(),
        },
    )
    .unwrap();
    let read = |f: &str| {
        let text = std::fs::read_to_string(written.join(f)).unwrap();
        assert!(
            !text.contains(&dir.path().display().to_string()),
            "{f} names an absolute path:\n{text}"
        );
        text.replace(env!("CARGO_PKG_VERSION"), "[txlab version]")
    };
    check_repro_reads_back(
        &read("repro.sql"),
        repro.as_ref().map_or(&prepared, |r| &r.case),
        &info,
    );
    Written {
        report: read("report.md"),
        repro: read("repro.sql"),
    }
}

/// The repro script reads back as the case it was written from.
fn check_repro_reads_back(sql: &str, case: &TestCase, info: &DialectInfo) {
    let family = match info.driver.as_str() {
        "postgres" => txlab_script::Family::Postgres,
        _ => txlab_script::Family::Mysql,
    };
    let options = txlab_script::ImportOptions {
        family,
        ..Default::default()
    };
    let back = txlab_script::import("repro.sql", sql, &options)
        .unwrap()
        .case;
    assert_eq!(back.transactions, case.transactions, "{sql}");
    assert_eq!(back.submitted_order, case.submitted_order, "{sql}");
}

fn snapshot(name: &str, w: &Written) {
    insta::assert_snapshot!(format!("{name}_report_md"), w.report);
    insta::assert_snapshot!(format!("{name}_repro_sql"), w.repro);
}

#[test]
fn wss_finding() {
    let case = delete_after_wait();
    let w = finding("wss", &mariadb("{}"), "10.11.6-MariaDB", &case, |c| {
        delete_after_wait_history(c, &[])
    });
    assert!(
        w.report
            .contains("**Serial T1 → T2: `T2.2` DELETE affected 1 row; here it waited for a lock and affected 0 rows.**"),
        "{}",
        w.report
    );
    snapshot("wss", &w);
}

#[test]
fn troc_finding() {
    let case = delete_after_wait();
    let w = finding("troc", &mariadb("{}"), "10.11.6-MariaDB", &case, |c| {
        delete_after_wait_history(c, &[Value::Int(1)])
    });
    // The row-id column Troc added is in no statement of the case.
    assert!(
        w.repro
            .lines()
            .all(|l| l.starts_with("--") || !l.contains("txlab_")),
        "{}",
        w.repro
    );
    assert!(
        w.repro.contains("without the auxiliary columns"),
        "{}",
        w.repro
    );
    snapshot("troc", &w);
}

/// T1 reads row 1, T2 updates it and commits, T1 updates it and commits
/// (IsoRel's lost update), on MariaDB with innodb_snapshot_isolation ON,
/// where T1's write must fail.
#[test]
fn isorel_finding() {
    let case = case_of(
        Schema { tables: vec![t()] },
        one_row(1, 10),
        vec![
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    select("t", Some(eq(c("id"), int(1))), vec![]),
                    update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", int(20))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let row = |v: i64, writers: &str| {
        vec![
            Value::Int(1),
            Value::Int(v),
            Value::Int(1),
            Value::Text(writers.into()),
        ]
    };
    let w = finding(
        "isorel",
        &mariadb(r#"{"snapshot_isolation": true}"#),
        "10.11.6-MariaDB",
        &case,
        |c| {
            let at = StatementRef::new;
            let columns = c.schema.table("t").unwrap().column_names();
            concurrent_history(c, &[0, 0, 1, 1, 1, 0, 0])
                .outcome(
                    at(0, 1),
                    Outcome::Rows {
                        columns,
                        rows: vec![row(10, "0")],
                    },
                )
                .outcome(at(0, 2), Outcome::Affected { rows: 1 })
                .outcome(at(1, 1), Outcome::Affected { rows: 1 })
                .final_state(final_state(c, &[row(11, "0,2,1")]))
                .build()
        },
    );
    snapshot("isorel", &w);
}

/// T1 inserts row 5 and rolls back; T2's SELECT, run after it, returns the
/// row (TxCheck's committed read of an aborted write), on PostgreSQL.
#[test]
fn txcheck_finding() {
    let case = case_of(
        Schema { tables: vec![t()] },
        one_row(0, 0),
        vec![
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    insert(
                        "t",
                        &["id", "v"],
                        vec![vec![Value::Int(5), Value::Int(5)]],
                        OnConflict::Error,
                    ),
                    Statement::Rollback,
                ],
            ),
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    select("t", None, vec![]),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let w = finding("txcheck", &postgres(), "15.4", &case, |c| {
        let mut history = serial_history(c, &[0, 1]);
        // T1's after-write read shows the row it inserted; T2's own SELECT
        // (the one without ORDER BY) returns it too.
        let inserted = (0..c.transactions[0].statements.len())
            .filter_map(|s| match &history.statements[0][s].outcome {
                Outcome::Rows { rows, .. } if !rows.is_empty() => Some(rows.clone()),
                _ => None,
            })
            .next_back()
            .expect("T1's after-write read");
        let select = c.transactions[1]
            .statements
            .iter()
            .position(|s| matches!(s, Statement::Select(sel) if sel.order_by.is_empty()))
            .unwrap();
        if let Outcome::Rows { rows, .. } = &mut history.statements[1][select].outcome {
            rows.extend(inserted);
        }
        history
    });
    snapshot("txcheck", &w);
}

/// T1's UPDATE fails with an internal error (MariaDB's 1815).
#[test]
fn errors_finding() {
    let case = case_of(
        Schema { tables: vec![t()] },
        one_row(1, 10),
        vec![explicit(
            RR,
            vec![
                Statement::Begin,
                update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                Statement::Commit,
            ],
        )],
    );
    let w = finding("errors", &mariadb("{}"), "10.11.6-MariaDB", &case, |c| {
        concurrent_history(c, &[0, 0, 0])
            .outcome(
                StatementRef::new(0, 1),
                Outcome::Error(DbError {
                    class: ErrorClass::Internal,
                    scope: ErrorScope::Statement,
                    code: Some(1815),
                    sqlstate: Some("HY000".into()),
                    message: "Internal error: row version missing".into(),
                }),
            )
            .build()
    });
    snapshot("errors", &w);
}

#[test]
fn every_shipped_oracle_has_a_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    for oracle in ["wss", "troc", "isorel", "txcheck", "errors"] {
        for file in ["report_md", "repro_sql"] {
            let snap = dir.join(format!("report_snapshots__{oracle}_{file}.snap"));
            assert!(snap.exists(), "{} is missing", snap.display());
        }
    }
}
