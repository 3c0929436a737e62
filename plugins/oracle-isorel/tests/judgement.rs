//! One history, judged under each vendor's profile and level: IsoRel's lost
//! update (F5 of the digest) and write skew, and a version order no DBMS may
//! produce.

use txlab_oracle_isorel::IsorelOracle;
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::concurrent_history;

fn mariadb() -> DialectInfo {
    <txlab_mysql::MariadbDialect as DialectPlugin>::new(Default::default())
        .unwrap()
        .info()
}

fn postgres() -> DialectInfo {
    <txlab_postgres::PostgresDialect as DialectPlugin>::new(Default::default())
        .unwrap()
        .info()
}

fn oracle(dialect: &DialectInfo, config: &str) -> IsorelOracle {
    IsorelOracle::new(
        parse_config(config).unwrap(),
        OracleContext {
            dialect: dialect.clone(),
        },
    )
    .unwrap()
}

const COLUMNS: [&str; 4] = ["id", "v", "txlab_row", "txlab_writers"];

fn rows(rows: &[(i64, i64, i64, &str)]) -> Outcome {
    Outcome::Rows {
        columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows: rows
            .iter()
            .map(|&(id, v, row, writers)| {
                vec![
                    Value::Int(id),
                    Value::Int(v),
                    Value::Int(row),
                    Value::Text(writers.into()),
                ]
            })
            .collect(),
    }
}

fn state(rows: &[(i64, i64, i64, &str)]) -> DbState {
    let Outcome::Rows { columns, rows } = self::rows(rows) else {
        unreachable!()
    };
    DbState {
        tables: vec![TableState {
            table: "t".into(),
            columns,
            rows,
        }],
    }
}

fn t_table() -> Table {
    table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Int)],
        &["id"],
    )
}

/// T1 reads row 1, T2 updates it and commits, T1 updates it and commits:
/// the final state shows both writes, T2's first.
fn lost_update(level: IsolationLevel, dialect: &DialectInfo, config: &str) -> Verdict {
    let t = t_table();
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
        vec![
            explicit(
                level,
                vec![
                    Statement::Begin,
                    select("t", Some(eq(c("id"), int(1))), vec![]),
                    update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
            explicit(
                level,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", int(20))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let mut o = oracle(dialect, config);
    let case = o.prepare(case).unwrap();
    let at = StatementRef::new;
    let history = concurrent_history(&case, &[0, 0, 1, 1, 1, 0, 0])
        .outcome(at(0, 1), rows(&[(1, 10, 1, "0")]))
        .outcome(at(0, 2), Outcome::Affected { rows: 1 })
        .outcome(at(1, 1), Outcome::Affected { rows: 1 })
        .final_state(state(&[(1, 11, 1, "0,2,1")]))
        .build();
    txlab_testkit::oracle::check(&mut o, &case, &history)
}

#[test]
fn a_lost_update_is_permitted_by_innodb_repeatable_read_and_a_finding_under_snapshot_isolation() {
    let rr = IsolationLevel::RepeatableRead;
    // MariaDB: writes read the latest committed version, by design.
    let Verdict::VendorPermitted(a) = lost_update(rr, &mariadb(), "{}") else {
        panic!("expected a vendor-permitted anomaly")
    };
    assert_eq!(a.signature, "G-single (lost update) at repeatable-read");
    assert!(a.model.contains("PL-2.99"), "{}", a.model);
    assert!(a.files[0].content.contains("digraph"), "{:?}", a.files);
    assert!(
        a.explanation.contains("T1 -rw t row 1-> T2"),
        "{}",
        a.explanation
    );
    // PostgreSQL's REPEATABLE READ is snapshot isolation: the second updater
    // must fail, so the same history breaks the vendor's own semantics.
    let Verdict::Finding(f) = lost_update(rr, &postgres(), "{}") else {
        panic!("expected a finding")
    };
    assert_eq!(f.signature, "G-single (lost update) at repeatable-read");
    assert!(f.model.contains("postgres"), "{}", f.model);
    // The standard model makes findings when the pipeline asks for it.
    assert!(matches!(
        lost_update(rr, &mariadb(), r#"{"findings": "standard"}"#),
        Verdict::Finding(_)
    ));
    // READ COMMITTED allows it in both models; SERIALIZABLE in neither.
    assert_eq!(
        lost_update(IsolationLevel::ReadCommitted, &mariadb(), "{}"),
        Verdict::Allowed {
            anomalies: vec!["G-single (lost update) at read-committed".into()]
        }
    );
    assert!(matches!(
        lost_update(IsolationLevel::Serializable, &mariadb(), "{}"),
        Verdict::Finding(_)
    ));
}

#[test]
fn a_forked_version_order_is_a_finding_at_every_level() {
    for level in [
        IsolationLevel::ReadUncommitted,
        IsolationLevel::Serializable,
    ] {
        let t = t_table();
        let case = case_of(
            Schema {
                tables: vec![t.clone()],
            },
            vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
            vec![
                explicit(
                    level,
                    vec![
                        Statement::Begin,
                        update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                        select("t", None, vec![]),
                        Statement::Commit,
                    ],
                ),
                explicit(
                    level,
                    vec![
                        Statement::Begin,
                        update("t", vec![("v", int(20))], Some(eq(c("id"), int(1)))),
                        Statement::Commit,
                    ],
                ),
            ],
        );
        let mut o = oracle(&mariadb(), "{}");
        let case = o.prepare(case).unwrap();
        let at = StatementRef::new;
        // T1 saw its own write on the initial version, the end shows T2's
        // write on the initial version: two versions after "0", both kept.
        let history = concurrent_history(&case, &[0, 0, 0, 0, 1, 1, 1])
            .outcome(at(0, 1), Outcome::Affected { rows: 1 })
            .outcome(at(0, 2), rows(&[(1, 11, 1, "0,1")]))
            .outcome(at(1, 1), Outcome::Affected { rows: 1 })
            .final_state(state(&[(1, 20, 1, "0,2")]))
            .build();
        let Verdict::Finding(f) = txlab_testkit::oracle::check(&mut o, &case, &history) else {
            panic!("expected a finding at {level}")
        };
        assert_eq!(f.signature, "forked version order", "{}", f.title);
    }
}

#[test]
fn unreadable_writers_make_the_case_undecided() {
    let t = t_table();
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
        vec![explicit(
            IsolationLevel::RepeatableRead,
            vec![
                Statement::Begin,
                select("t", None, vec![]),
                Statement::Commit,
            ],
        )],
    );
    let mut o = oracle(&mariadb(), "{}");
    let case = o.prepare(case).unwrap();
    let history = concurrent_history(&case, &[0, 0, 0])
        .outcome(StatementRef::new(0, 1), rows(&[(1, 10, 1, "zero")]))
        .final_state(state(&[(1, 10, 1, "0")]))
        .build();
    let Verdict::Undecided { reason } = txlab_testkit::oracle::check(&mut o, &case, &history)
    else {
        panic!("expected undecided")
    };
    assert!(reason.contains("cannot be read"), "{reason}");
}

/// The read before a DELETE shows what the DELETE removed only if the DELETE
/// succeeded: after a failed one the row is still there, as the final state
/// shows, and nothing is wrong.
#[test]
fn a_failed_delete_removed_nothing() {
    let t = t_table();
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
        vec![explicit(
            IsolationLevel::RepeatableRead,
            vec![
                Statement::Begin,
                delete("t", Some(eq(c("id"), int(1)))),
                Statement::Commit,
            ],
        )],
    );
    let mut o = oracle(&mariadb(), "{}");
    let case = o.prepare(case).unwrap();
    let at = StatementRef::new;
    let removal_read = Outcome::Rows {
        columns: vec!["txlab_row".into(), "txlab_writers".into()],
        rows: vec![vec![Value::Int(1), Value::Text("0".into())]],
    };
    let failed = Outcome::Error(DbError {
        class: ErrorClass::Constraint,
        scope: ErrorScope::Statement,
        code: Some(1451),
        sqlstate: None,
        message: "a foreign key constraint fails".into(),
    });
    let history = concurrent_history(&case, &[0, 0, 0, 0])
        .outcome(at(0, 1), removal_read)
        .outcome(at(0, 2), failed)
        .final_state(state(&[(1, 10, 1, "0")]))
        .build();
    assert_eq!(
        txlab_testkit::oracle::check(&mut o, &case, &history),
        Verdict::Pass
    );
}

/// A dirty read of a statement that failed: InnoDB undoes a failed
/// statement's rows on its own, so a read at READ UNCOMMITTED may see a
/// version the committed transaction never kept. Seen on MariaDB 10.11 (a
/// multi-row UPDATE that failed on a duplicate key after updating a row T3
/// read): no dependency may be read off that list.
#[test]
fn a_dirty_read_of_a_failed_statement_proves_nothing() {
    let ru = IsolationLevel::ReadUncommitted;
    let t = t_table();
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
        vec![
            explicit(
                ru,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", int(11))], None),
                    Statement::Commit,
                ],
            ),
            explicit(
                ru,
                vec![
                    Statement::Begin,
                    select("t", None, vec![]),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let mut o = oracle(&mariadb(), "{}");
    let case = o.prepare(case).unwrap();
    let at = StatementRef::new;
    let failed = Outcome::Error(DbError {
        class: ErrorClass::Constraint,
        scope: ErrorScope::Statement,
        code: Some(1062),
        sqlstate: Some("23000".into()),
        message: "Duplicate entry".into(),
    });
    // T2 read T1's row while T1's UPDATE was half done; the UPDATE then
    // failed, T1 committed, and the row kept its initial version.
    let history = concurrent_history(&case, &[0, 1, 1, 0, 0, 1])
        .outcome(at(1, 1), rows(&[(1, 11, 1, "0,1")]))
        .outcome(at(0, 1), failed)
        .final_state(state(&[(1, 10, 1, "0")]))
        .build();
    assert_eq!(
        txlab_testkit::oracle::check(&mut o, &case, &history),
        Verdict::Pass
    );
}

/// IR 1.1's query forms: `prepare` passes them through, and `check` answers
/// undecided, naming the statement and the form, where the plain form of the
/// same run is a finding.
#[test]
fn query_forms_are_undecided_never_findings() {
    let dialect = postgres();
    let rr = IsolationLevel::RepeatableRead;
    assert!(matches!(
        lost_update(rr, &dialect, "{}"),
        Verdict::Finding(_)
    ));
    let t = t_table();
    let in_t = in_query(
        c("id"),
        query("t", Some("x"), vec![qc("x", "id")], None),
        false,
    );
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
        vec![
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    select("t", Some(in_t), vec![]),
                    update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", int(20))], Some(eq(c("id"), int(1)))),
                    insert_select(
                        "t",
                        &["id", "v"],
                        query(
                            "t",
                            None,
                            vec![bin(BinaryOp::Add, c("id"), int(5)), c("v")],
                            None,
                        ),
                        OnConflict::Error,
                    ),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let mut o = oracle(&dialect, "{}");
    let case = o.prepare(case).unwrap();
    let at = StatementRef::new;
    let history = concurrent_history(&case, &[0, 0, 1, 1, 1, 1, 0, 0])
        .outcome(at(0, 1), rows(&[(1, 10, 1, "0")]))
        .outcome(at(0, 2), Outcome::Affected { rows: 1 })
        .outcome(at(1, 1), Outcome::Affected { rows: 1 })
        .outcome(at(1, 2), Outcome::Affected { rows: 1 })
        .final_state(state(&[(1, 11, 1, "0,2,1")]))
        .build();
    let verdict = txlab_testkit::oracle::check(&mut o, &case, &history);
    let Verdict::Undecided { reason } = verdict else {
        panic!("expected undecided, got {verdict:?}");
    };
    assert_eq!(
        reason,
        "outside what IsoRel observes: T1.2 (SELECT) reads `t` through a subquery; the rows a \
         query form reads or inserts carry no row identity and writers IsoRel can follow"
    );
}

/// T1 changes row 1 and commits; T2 starts after that and reads the row as
/// it was. On one server a snapshot taken after T1's commit must hold T1's
/// write: under snapshot isolation (PostgreSQL's REPEATABLE READ) that is
/// G-SIb, a finding. On a cluster, with T1 and T2 on different nodes, T2's
/// node may not have applied T1's commit yet (Galera's reads see the node's
/// own state), so real time orders nothing there: no start-order claim.
#[test]
fn start_order_claims_are_made_on_one_server_and_not_across_a_clusters_nodes() {
    let rr = IsolationLevel::RepeatableRead;
    let t = t_table();
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
        vec![
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    select("t", Some(eq(c("id"), int(1))), vec![]),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let dialect = postgres();
    let mut o = oracle(&dialect, "{}");
    let case = o.prepare(case).unwrap();
    let at = StatementRef::new;
    let mut history = concurrent_history(&case, &[0, 0, 0, 1, 1, 1])
        .outcome(at(0, 1), Outcome::Affected { rows: 1 })
        .outcome(at(1, 1), rows(&[(1, 10, 1, "0")]))
        .final_state(state(&[(1, 11, 1, "0,1")]))
        .build();
    let Verdict::Finding(f) = txlab_testkit::oracle::check(&mut o, &case, &history) else {
        panic!("a snapshot that missed an earlier commit is a finding on one server");
    };
    assert!(f.signature.starts_with("G-SIb"), "{}", f.signature);
    history.cluster = Some(ClusterRun {
        node_count: 2,
        nodes: vec![0, 1],
        ..ClusterRun::default()
    });
    let verdict = txlab_testkit::oracle::check(&mut o, &case, &history);
    assert!(
        matches!(verdict, Verdict::Pass | Verdict::Allowed { .. }),
        "{verdict:?}"
    );
}
