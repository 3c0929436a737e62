//! `txlab export`'s writers on findings from every shipped oracle: snapshots
//! of each format, the round trips (`spec` and `sql` read back by `txlab
//! import` as the same case, run in the order it ran), and the refusals.
//!
//! The fixtures in tests/data/export/ are finding and anomaly directories'
//! `case.json` and `history.json` as `txlab check` wrote them for corpus
//! scripts on MariaDB 10.11 and PostgreSQL 15 (each README.md says which);
//! the `errors` finding is the troc one with a lost connection put into its
//! history by hand.

use std::path::PathBuf;
use txlab_plugin_api::prelude::*;
use txlab_script::export::{
    export, order::execution_order, ExportError, ExportFormat, ExportInput, ExportOptions, Origin,
};
use txlab_script::{import, Family, ImportOptions};

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/export")
        .join(path)
}

fn json(path: PathBuf) -> serde_json::Value {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// One fixture: its case, history and the finding's title.
struct Fixture {
    name: &'static str,
    dialect: &'static str,
    case: TestCase,
    history: History,
    lead: String,
}

fn fixture(name: &'static str, dialect: &'static str) -> Fixture {
    let lead = if data(&format!("{name}/finding.json")).exists() {
        let finding = json(data(&format!("{name}/finding.json")));
        format!("txlab finding: {}", finding["title"].as_str().unwrap())
    } else {
        format!("txlab case {name}")
    };
    Fixture {
        name,
        dialect,
        case: serde_json::from_value(json(data(&format!("{name}/case.json")))).unwrap(),
        history: serde_json::from_value(json(data(&format!("{name}/history.json")))).unwrap(),
        lead,
    }
}

/// The `errors` oracle's finding: the troc fixture's case, whose blocked
/// UPDATE lost its connection (the server went away).
fn errors_fixture() -> Fixture {
    let mut f = fixture("mariadb-troc", "mariadb");
    f.name = "mariadb-errors";
    let at = f
        .case
        .submitted_order
        .iter()
        .copied()
        .find(|&at| f.history.record(at).is_some_and(|r| r.blocked.is_some()))
        .expect("the troc fixture has a blocked statement");
    let record = &mut f.history.statements[at.txn()][at.stmt()];
    record.outcome = Outcome::Error(DbError {
        class: ErrorClass::ConnectionLost,
        scope: ErrorScope::Connection,
        code: None,
        sqlstate: None,
        message: "Lost connection to server during query".into(),
    });
    f.lead = format!("txlab finding: errors: {at} lost its connection (the server went away)");
    f
}

fn mysql_fixtures() -> Vec<Fixture> {
    vec![
        fixture("mariadb-troc", "mariadb"),
        fixture("mariadb-wss", "mariadb"),
        fixture("mariadb-isorel", "mariadb"),
        fixture("mariadb-txcheck", "mariadb"),
        errors_fixture(),
    ]
}

fn postgres_fixtures() -> Vec<Fixture> {
    vec![
        fixture("postgres-troc", "postgres"),
        fixture("postgres-wss", "postgres"),
        fixture("postgres-isorel", "postgres"),
        fixture("postgres-txcheck", "postgres"),
    ]
}

const LIMITS: SessionLimits = SessionLimits {
    statement_timeout_ms: 5000,
    lock_wait_timeout_ms: 8000,
};

fn render(dialect: &str, case: &TestCase) -> RenderedCase {
    match dialect {
        "mariadb" => {
            <txlab_mysql::MariadbDialect as DialectPlugin>::new(serde_json::from_str("{}").unwrap())
                .unwrap()
                .render_case(case, &LIMITS)
        }
        "postgres" => <txlab_postgres::PostgresDialect as DialectPlugin>::new(
            serde_json::from_str("{}").unwrap(),
        )
        .unwrap()
        .render_case(case, &LIMITS),
        _ => txlab_sqlite::SqliteDialect.render_case(case, &LIMITS),
    }
    .unwrap()
}

fn family(dialect: &str) -> Family {
    Family::of_dialect(dialect).unwrap()
}

fn export_of(f: &Fixture, format: ExportFormat) -> Result<Vec<String>, ExportError> {
    let rendered = render(f.dialect, &f.case);
    let input = ExportInput {
        case: &f.case,
        history: &f.history,
        rendered: &rendered,
        family: family(f.dialect),
        dialect: f.dialect,
        lead: &f.lead,
        origin: Some(Origin {
            oracle: f.name.split('-').nth(1).unwrap(),
            generator: &f.case.generator,
            request: CaseRequest {
                run_seed: 7,
                index: 3,
                seed: f.case.seed,
            },
        }),
    };
    let files = export(format, &input, &ExportOptions::default())?;
    Ok(files.into_iter().map(|f| f.text).collect())
}

#[test]
fn every_format_of_every_oracles_finding_matches_its_snapshot() {
    for f in mysql_fixtures() {
        for format in [ExportFormat::Mtr, ExportFormat::Troc, ExportFormat::Sql] {
            let texts =
                export_of(&f, format).unwrap_or_else(|e| panic!("{} as {format}: {e}", f.name));
            insta::assert_snapshot!(format!("{}.{format}", f.name), texts[0]);
            if format == ExportFormat::Mtr {
                insta::assert_snapshot!(format!("{}.mtr-result", f.name), texts[1]);
            }
        }
    }
    for f in postgres_fixtures() {
        for format in [ExportFormat::Spec, ExportFormat::Sql] {
            let texts =
                export_of(&f, format).unwrap_or_else(|e| panic!("{} as {format}: {e}", f.name));
            insta::assert_snapshot!(format!("{}.{format}", f.name), texts[0]);
        }
    }
}

/// What SQL cannot tell apart, as tests/round_trip.rs normalises it (a
/// primary key is NOT NULL, a table without rows, a plain query is a SELECT).
fn normalise(mut case: TestCase) -> TestCase {
    for t in &mut case.schema.tables {
        let pk = t.primary_key.clone();
        for c in &mut t.columns {
            c.not_null |= pk.contains(&c.name);
        }
    }
    case.initial_rows.retain(|r| !r.rows.is_empty());
    for t in &mut case.transactions {
        for s in &mut t.statements {
            if let Statement::Query(q) = s {
                let plain = q.alias.is_none()
                    && q.joins.is_empty()
                    && q.group_by.is_empty()
                    && !q
                        .projection
                        .iter()
                        .chain(&q.order_by)
                        .any(Expr::has_aggregate);
                if plain {
                    *s = Statement::Select(Select {
                        table: q.table.clone(),
                        projection: Projection::Exprs(q.projection.clone()),
                        filter: q.filter.clone(),
                        order_by: q.order_by.clone(),
                        lock: RowLock::None,
                    });
                }
            }
        }
    }
    case
}

/// The case as an export runs it: in the order it ran.
fn as_run(case: &TestCase, history: &History) -> TestCase {
    let mut case = case.clone();
    case.submitted_order = execution_order(&case, history);
    case
}

fn read_back(f: &Fixture, format: ExportFormat) -> TestCase {
    let text = export_of(f, format).unwrap().remove(0);
    let file = format!("{}.{}", f.name, format.extension());
    let options = ImportOptions {
        family: family(f.dialect),
        ..ImportOptions::default()
    };
    import(&file, &text, &options)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .case
}

#[test]
fn spec_and_sql_exports_read_back_as_the_case_in_the_order_it_ran() {
    for f in postgres_fixtures() {
        let want = normalise(as_run(&f.case, &f.history));
        assert_eq!(
            normalise(read_back(&f, ExportFormat::Spec)),
            want,
            "{} spec",
            f.name
        );
        assert_eq!(
            normalise(read_back(&f, ExportFormat::Sql)),
            want,
            "{} sql",
            f.name
        );
    }
    for f in mysql_fixtures() {
        let want = normalise(as_run(&f.case, &f.history));
        assert_eq!(
            normalise(read_back(&f, ExportFormat::Sql)),
            want,
            "{} sql",
            f.name
        );
    }
}

#[test]
fn the_pace_and_begins_that_did_not_run_first_survive_the_spec() {
    // The fixture with its sessions' BEGINs put after another statement: BEGIN
    // becomes a step of its own; and a pace, which the spec's header carries.
    let mut f = fixture("postgres-troc", "postgres");
    f.case.pace_ms = Some(200);
    let order = &mut f.case.submitted_order;
    let second_begin = order
        .iter()
        .position(|at| at.txn() == 1 && at.stmt() == 0)
        .unwrap();
    let first_other = order
        .iter()
        .position(|at| at.txn() == 0 && at.stmt() == 1)
        .unwrap();
    if second_begin < first_other {
        let b = order.remove(second_begin);
        order.insert(first_other, b);
    }
    // Times for the new order, so that it is the order the statements ran in.
    for (i, at) in f.case.submitted_order.clone().into_iter().enumerate() {
        f.history.statements[at.txn()][at.stmt()].submitted_us = Some(i as u64);
        f.history.statements[at.txn()][at.stmt()].blocked = None;
    }
    let text = export_of(&f, ExportFormat::Spec).unwrap().remove(0);
    assert!(text.contains("step s2a { BEGIN"), "{text}");
    assert!(text.contains("# pace: 200 ms"), "{text}");
    let back = read_back(&f, ExportFormat::Spec);
    assert_eq!(normalise(back), normalise(f.case.clone()));
}

#[test]
fn formats_that_do_not_fit_the_dialect_or_the_case_are_refused() {
    let pg = fixture("postgres-troc", "postgres");
    let e = export_of(&pg, ExportFormat::Mtr).unwrap_err();
    assert!(matches!(e, ExportError::WrongDialect { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "--format mtr does not fit dialect `postgres`: mysql-test runs MySQL-family servers (MySQL, MariaDB)"
    );
    assert!(matches!(
        export_of(&pg, ExportFormat::Troc),
        Err(ExportError::WrongDialect { .. })
    ));
    let my = fixture("mariadb-troc", "mariadb");
    let e = export_of(&my, ExportFormat::Spec).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("--format spec does not fit dialect `mariadb`"),
        "{e}"
    );

    // Troc tests a pair of transactions: a third one is refused with the reason.
    let mut three = fixture("mariadb-troc", "mariadb");
    let extra = Transaction {
        isolation: IsolationLevel::ReadCommitted,
        kind: TxnKind::Autocommit,
        statements: vec![three.case.transactions[0].statements[1].clone()],
    };
    three.case.transactions.push(extra);
    three.case.submitted_order.push(StatementRef::new(2, 0));
    three
        .history
        .transactions
        .push(three.history.transactions[0].clone());
    let mut record = three.history.statements[0][1].clone();
    record.at = StatementRef::new(2, 0);
    three.history.statements.push(vec![record]);
    let e = export_of(&three, ExportFormat::Troc).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--format troc: the case has 3 transactions; Troc tests a pair"
    );
    // A history of another case.
    let mut other = fixture("mariadb-troc", "mariadb");
    other.history.statements[0].pop();
    let e = export_of(&other, ExportFormat::Sql).unwrap_err();
    assert!(matches!(e, ExportError::Mismatch(_)), "{e}");
}

#[test]
fn the_pace_becomes_real_sleeps_in_the_mysql_test() {
    let mut f = fixture("mariadb-troc", "mariadb");
    f.case.pace_ms = Some(200);
    let test = export_of(&f, ExportFormat::Mtr).unwrap().remove(0);
    // After the blocked DELETE has settled, and after each COMMIT.
    let after_wait = "--source include/wait_condition.inc\n--real_sleep 0.200\n";
    assert!(test.contains(after_wait), "{test}");
    let sleeps = test.matches("--real_sleep 0.200").count();
    assert_eq!(
        sleeps, 3,
        "one after the wait, one after each COMMIT: {test}"
    );
    assert!(test.contains("# pace: 200 ms"), "{test}");
    let sql = export_of(&f, ExportFormat::Sql).unwrap().remove(0);
    assert!(sql.contains("-- pace: 200 ms"), "{sql}");
    let troc = export_of(&f, ExportFormat::Troc).unwrap().remove(0);
    assert!(troc.contains("Troc has no pauses"), "{troc}");
}

/// Troc's case-file reader as the artifact's Main, TableTool and
/// StatementCell read one: set-up lines up to a blank line; per transaction
/// a level alias and statements up to a blank line or END; the schedule.
/// Returns each transaction's statements and the schedule, or why Troc
/// would fail.
fn troc_read(text: &str, table: &str) -> Result<(Vec<Vec<String>>, Vec<usize>), String> {
    let mut lines = text.lines();
    for sql in lines.by_ref() {
        if sql.is_empty() {
            break;
        }
    }
    let mut txns = Vec::new();
    for _ in 0..2 {
        let level = lines.next().ok_or("no level")?;
        if !["RU", "RC", "RR", "SER"].contains(&level) {
            return Err(format!("Invalid isolation level alias: {level}"));
        }
        let mut statements = Vec::new();
        for sql in lines.by_ref() {
            if sql.is_empty() || sql == "END" {
                break;
            }
            let sql = sql.replace(';', "");
            let kind = sql.split(' ').next().unwrap();
            if ![
                "SELECT", "UPDATE", "DELETE", "INSERT", "BEGIN", "COMMIT", "ROLLBACK",
            ]
            .contains(&kind)
            {
                return Err(format!("No enum constant StatementType.{kind}"));
            }
            if kind == "INSERT" {
                // Pattern "INTO <table>\s*\((.*?)\) VALUES\s*\((.*?)\)".
                let after = sql
                    .split_once(&format!("INTO {table}"))
                    .ok_or("parse INSERT statement failed")?
                    .1
                    .trim_start();
                let (cols, rest) = after
                    .strip_prefix('(')
                    .and_then(|a| a.split_once(')'))
                    .ok_or("parse INSERT statement failed")?;
                let vals = rest
                    .strip_prefix(" VALUES")
                    .map(str::trim_start)
                    .and_then(|v| v.strip_prefix('('))
                    .and_then(|v| v.split_once(')'))
                    .ok_or("parse INSERT statement failed")?
                    .0;
                if cols.split(',').count() != vals.split(',').count() {
                    return Err(format!("Parse insert statement failed: {sql}"));
                }
            }
            statements.push(sql);
        }
        txns.push(statements);
    }
    let schedule = lines
        .find(|l| !l.is_empty())
        .ok_or("no schedule")?
        .split('-')
        .map(|t| t.parse::<usize>().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((txns, schedule))
}

#[test]
fn trocs_reader_takes_every_troc_export_as_the_case() {
    for f in mysql_fixtures() {
        let text = export_of(&f, ExportFormat::Troc).unwrap().remove(0);
        let table = &f.case.schema.tables[0].name;
        let (txns, schedule) = troc_read(&text, table).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for (t, statements) in txns.iter().enumerate() {
            assert_eq!(
                statements.len(),
                f.case.transactions[t].statements.len(),
                "{}\n{text}",
                f.name
            );
            assert_eq!(statements[0], "BEGIN");
            assert_eq!(
                schedule.iter().filter(|&&x| x == t + 1).count(),
                statements.len(),
                "{}\n{text}",
                f.name
            );
        }
        let submitted: Vec<usize> = f
            .case
            .submitted_order
            .iter()
            .map(|at| at.txn() + 1)
            .collect();
        assert_eq!(schedule, submitted, "{}", f.name);
        let read = text.split("\nEND\n").next().unwrap();
        assert!(!read.contains('`'), "names unquoted: {text}");
    }
}

/// A history of `case` in which every statement ran in submitted order and
/// nothing blocked.
fn serial_history(case: &TestCase) -> History {
    let position = |at: StatementRef| case.submitted_order.iter().position(|&x| x == at);
    History {
        statements: case
            .transactions
            .iter()
            .enumerate()
            .map(|(t, txn)| {
                (0..txn.statements.len())
                    .map(|s| StatementRecord {
                        at: StatementRef::new(t, s),
                        sql: String::new(),
                        submitted_us: position(StatementRef::new(t, s)).map(|p| p as u64),
                        completed_us: None,
                        blocked: None,
                        outcome: Outcome::Done,
                    })
                    .collect()
            })
            .collect(),
        transactions: case
            .transactions
            .iter()
            .map(|t| TransactionRecord {
                isolation: t.isolation,
                end: TxnEnd::Committed,
                ended_us: None,
            })
            .collect(),
        ..History::default()
    }
}

#[test]
fn generated_cases_come_back_from_their_spec_and_sql_exports() {
    use txlab_generator_random::RandomGenerator;
    let mariadb =
        <txlab_mysql::MariadbDialect as DialectPlugin>::new(serde_json::from_str("{}").unwrap())
            .unwrap();
    let postgres = <txlab_postgres::PostgresDialect as DialectPlugin>::new(
        serde_json::from_str("{}").unwrap(),
    )
    .unwrap();
    let dialects: [(&str, &dyn Dialect, &[ExportFormat]); 3] = [
        (
            "postgres",
            &postgres,
            &[ExportFormat::Spec, ExportFormat::Sql],
        ),
        ("mariadb", &mariadb, &[ExportFormat::Sql]),
        ("sqlite", &txlab_sqlite::SqliteDialect, &[ExportFormat::Sql]),
    ];
    let mut compared = 0;
    for (name, dialect, formats) in dialects {
        let info = dialect.info();
        let config = serde_json::from_value(serde_json::json!({
            "transactions": [2, 4],
            "statements": [1, 6],
            "mixed_isolation": true,
            "subquery_probability": 0.3,
            "weights": {"select": 4, "insert": 2, "update": 3, "delete": 1, "query": 2, "insert_select": 1}
        }))
        .unwrap();
        let levels = info.levels.iter().map(|l| l.level).collect();
        let gen = RandomGenerator::new(
            config,
            GeneratorContext {
                dialect: info,
                levels,
            },
        )
        .unwrap();
        for index in 0..60 {
            let mut case = gen.generate(CaseRequest {
                run_seed: 5,
                index,
                seed: 500 + index,
            });
            if index % 4 == 0 {
                case.pace_ms = Some(100);
            }
            let history = serial_history(&case);
            let rendered = dialect.render_case(&case, &LIMITS).unwrap();
            let input = ExportInput {
                case: &case,
                history: &history,
                rendered: &rendered,
                family: family(name),
                dialect: name,
                lead: "txlab case",
                origin: None,
            };
            for &format in formats {
                let text = match export(format, &input, &ExportOptions::default()) {
                    Ok(files) => files[0].text.clone(),
                    // A text value with a `}` cannot go into a spec.
                    Err(ExportError::Unsupported { .. }) if format == ExportFormat::Spec => {
                        continue
                    }
                    Err(e) => panic!("{name} case {index} as {format}: {e}"),
                };
                let options = ImportOptions {
                    family: family(name),
                    ..ImportOptions::default()
                };
                let file = format!("case.{}", format.extension());
                let back = import(&file, &text, &options)
                    .unwrap_or_else(|e| panic!("{name} case {index} as {format}: {e}\n{text}"))
                    .case;
                assert_eq!(
                    normalise(back),
                    normalise(case.clone()),
                    "{name} case {index} as {format}:\n{text}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 200, "{compared}");
}
