//! What the oracle reports: an aborted transaction's write that a committed
//! read saw, a database that ends differently from the sorted run, and a
//! statement whose result differs; each from a serial run of a small case
//! with one observation changed as a faulty DBMS would change it.

use txlab_oracle_txcheck::{TxcheckConfig, TxcheckOracle};
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::oracle::{check, expect_finding};
use txlab_testkit::serial_history;

const RR: IsolationLevel = IsolationLevel::RepeatableRead;

fn t() -> Table {
    table(
        "t",
        vec![col("id", ColumnType::Int), col("value", ColumnType::Int)],
        &["id"],
    )
}

/// A case over `t` (rows `(id, value)`) and `u(k)` (rows `k`).
fn over_t_and_u(t_rows: &[[i64; 2]], u_keys: &[i64], transactions: Vec<Transaction>) -> TestCase {
    let u = table("u", vec![col("k", ColumnType::Int)], &["k"]);
    let ints = |r: &[i64]| r.iter().map(|&v| Value::Int(v)).collect::<Vec<_>>();
    case_of(
        Schema {
            tables: vec![t(), u.clone()],
        },
        vec![
            rows_of(&t(), t_rows.iter().map(|r| ints(r)).collect()),
            rows_of(&u, u_keys.iter().map(|&k| vec![Value::Int(k)]).collect()),
        ],
        transactions,
    )
}

fn oracle() -> TxcheckOracle {
    let dialect = <txlab_postgres::PostgresDialect as DialectPlugin>::new(Default::default())
        .unwrap()
        .info();
    TxcheckOracle::new(TxcheckConfig::default(), OracleContext { dialect }).unwrap()
}

/// T1 inserts row 5 and rolls back; T2 then reads every row and commits.
fn rolled_back_insert() -> (TxcheckOracle, TestCase, History) {
    let mut o = oracle();
    let raw = case_of(
        Schema { tables: vec![t()] },
        vec![rows_of(&t(), vec![vec![Value::Int(0), Value::Int(0)]])],
        vec![
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    insert(
                        "t",
                        &["id", "value"],
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
    let case = o.prepare(raw).unwrap();
    let history = serial_history(&case, &[0, 1]);
    (o, case, history)
}

/// The statement of T2 that is the case's own SELECT (not an added read).
fn t2_select(case: &TestCase) -> StatementRef {
    let t2 = &case.transactions[1];
    let s = t2
        .statements
        .iter()
        .position(|s| matches!(s, Statement::Select(sel) if sel.order_by.is_empty()))
        .unwrap();
    StatementRef::new(1, s)
}

#[test]
fn the_unchanged_run_passes() {
    let (mut o, case, history) = rolled_back_insert();
    assert_eq!(check(&mut o, &case, &history), Verdict::Pass);
}

#[test]
fn a_committed_read_of_an_aborted_write_is_a_finding() {
    let (mut o, case, mut history) = rolled_back_insert();
    // T2's SELECT also returns T1's row, as T1's after-write read showed it.
    let awr = StatementRef::new(0, 3);
    let Outcome::Rows { rows: inserted, .. } = history.record(awr).unwrap().outcome.clone() else {
        panic!("T1's after-write read returned no rows")
    };
    assert_eq!(inserted.len(), 1);
    let at = t2_select(&case);
    if let Outcome::Rows { rows, .. } = &mut history.statements[1][at.stmt()].outcome {
        rows.extend(inserted);
    }
    let finding = expect_finding(check(&mut o, &case, &history));
    assert!(
        finding
            .title
            .contains("only an aborted transaction installed"),
        "{}",
        finding.title
    );
}

#[test]
fn an_aborted_write_that_survived_is_a_finding() {
    let (mut o, case, mut history) = rolled_back_insert();
    let state = history.final_state.as_mut().unwrap();
    let row = vec![Value::Int(5), Value::Int(5), Value::Int(2), Value::Int(1)];
    state.tables[0].rows.push(row);
    let finding = expect_finding(check(&mut o, &case, &history));
    assert!(
        finding.title.contains("ends differently"),
        "{}",
        finding.title
    );
    assert_eq!(finding.signature, "final state differs");
}

#[test]
fn a_result_the_sorted_run_does_not_give_is_a_finding() {
    let (mut o, case, mut history) = rolled_back_insert();
    // T2's SELECT misses the initial row: a version read nobody removed.
    let at = t2_select(&case);
    if let Outcome::Rows { rows, .. } = &mut history.statements[1][at.stmt()].outcome {
        rows.clear();
    }
    let finding = expect_finding(check(&mut o, &case, &history));
    assert!(
        finding.title.starts_with(&format!("{at} (SELECT)")),
        "{}",
        finding.title
    );
    assert_eq!(finding.signature, "SELECT result differs");
}

/// An INSERT … SELECT numbers its rows from the source rows' item keys: a
/// serial run passes, and a row it inserted that a later read misses is a
/// finding. Through a LEFT JOIN its rows get no keys: undecided.
#[test]
fn insert_select_is_judged() {
    let raw = |q: Query| {
        over_t_and_u(
            &[[0, 0]],
            &[5, 6],
            vec![
                explicit(
                    RR,
                    vec![
                        Statement::Begin,
                        insert_select("t", &["id", "value"], q, OnConflict::Error),
                        Statement::Commit,
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
        )
    };
    let mut o = oracle();
    let case = o
        .prepare(raw(query("u", None, vec![c("k"), c("k")], None)))
        .unwrap();
    let mut history = serial_history(&case, &[0, 1]);
    assert_eq!(check(&mut o, &case, &history), Verdict::Pass);
    // Two rows with distinct item keys of their own (after the version-set
    // reads of t and u and the statement).
    let awr = StatementRef::new(0, 4);
    let Outcome::Rows { rows, .. } = &history.record(awr).unwrap().outcome else {
        panic!("no after-write read");
    };
    assert_eq!(rows.len(), 2);
    assert_ne!(rows[0][2], rows[1][2]);
    let at = t2_select(&case);
    if let Outcome::Rows { rows, .. } = &mut history.statements[1][at.stmt()].outcome {
        rows.truncate(2);
    }
    let finding = expect_finding(check(&mut o, &case, &history));
    assert_eq!(
        finding.signature, "SELECT result differs",
        "{}",
        finding.title
    );

    let left = Query {
        joins: vec![join(
            JoinKind::Left,
            "t",
            Some("b"),
            eq(qc("b", "id"), qc("a", "k")),
        )],
        ..query("u", Some("a"), vec![qc("a", "k"), qc("a", "k")], None)
    };
    let case = o.prepare(raw(left)).unwrap();
    let history = serial_history(&case, &[0, 1]);
    let reason = txlab_testkit::oracle::expect_undecided(check(&mut o, &case, &history));
    assert!(reason.contains("LEFT JOIN"), "{reason}");
}

/// A statement that reads another table through a subquery gets a
/// version-set read of that table too, and a serial run of it passes.
#[test]
fn a_subquery_over_another_table_is_judged() {
    let mut o = oracle();
    let filter = in_query(c("id"), query("u", None, vec![c("k")], None), false);
    let raw = over_t_and_u(
        &[[0, 0]],
        &[0],
        vec![
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    update("u", vec![("k", int(1))], None),
                    Statement::Commit,
                ],
            ),
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    update("t", vec![("value", int(1))], Some(filter)),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let case = o.prepare(raw).unwrap();
    let reads_u = case.transactions[1]
        .statements
        .iter()
        .filter(|s| matches!(s, Statement::Select(sel) if sel.table == "u"))
        .count();
    assert_eq!(reads_u, 1, "a version-set read of u before the UPDATE of t");
    for order in [[0, 1], [1, 0]] {
        let history = serial_history(&case, &order);
        assert_eq!(check(&mut o, &case, &history), Verdict::Pass, "{order:?}");
    }
}

/// A query whose list is an aggregate shows no item keys: its version-set
/// read stands for what it read, and its result is compared.
#[test]
fn an_aggregate_query_is_judged_by_its_result() {
    let (mut o, _, _) = rolled_back_insert();
    let count = query_statement(query("t", None, vec![count_star()], None));
    let raw = case_of(
        Schema { tables: vec![t()] },
        vec![rows_of(&t(), vec![vec![Value::Int(0), Value::Int(0)]])],
        vec![
            explicit(
                RR,
                vec![
                    Statement::Begin,
                    insert(
                        "t",
                        &["id", "value"],
                        vec![vec![Value::Int(5), Value::Int(5)]],
                        OnConflict::Error,
                    ),
                    Statement::Commit,
                ],
            ),
            explicit(RR, vec![Statement::Begin, count, Statement::Commit]),
        ],
    );
    let case = o.prepare(raw).unwrap();
    let at = StatementRef::new(1, 2);
    assert!(matches!(case.statement(at), Some(Statement::Query(_))));
    let mut history = serial_history(&case, &[0, 1]);
    assert_eq!(check(&mut o, &case, &history), Verdict::Pass);
    // The count misses the inserted row: the sorted run disagrees.
    let Outcome::Rows { rows, .. } = &mut history.statements[1][2].outcome else {
        panic!(
            "the count returned no rows: {:?}",
            history.statements[1][2].outcome
        );
    };
    assert_eq!(rows.len(), 1);
    rows[0][0] = Value::Int(1);
    let finding = expect_finding(check(&mut o, &case, &history));
    assert_eq!(finding.signature, "QUERY result differs");
}

/// A REPLACE … SELECT gets a before-write read of the rows whose key its
/// query returns: a serial run passes, and one that kept a replaced row is a
/// finding.
#[test]
fn replace_select_is_judged() {
    let raw = over_t_and_u(
        &[[5, 0], [7, 0]],
        &[5, 6],
        vec![explicit(
            RR,
            vec![
                Statement::Begin,
                insert_select(
                    "t",
                    &["id", "value"],
                    query("u", None, vec![c("k"), c("k")], None),
                    OnConflict::Replace,
                ),
                Statement::Commit,
            ],
        )],
    );
    let mut o = oracle();
    let case = o.prepare(raw).unwrap();
    // VSR of t, VSR of u, the before-write read, the statement, AWR.
    let bwr = StatementRef::new(0, 3);
    assert!(
        matches!(case.statement(bwr), Some(Statement::Select(s)) if s.filter.is_some()),
        "{:?}",
        case.transactions[0].statements
    );
    let mut history = serial_history(&case, &[0]);
    let Outcome::Rows { rows, .. } = &history.record(bwr).unwrap().outcome else {
        panic!("the before-write read returned no rows");
    };
    assert_eq!(rows.len(), 1, "row 5 collides");
    assert_eq!(check(&mut o, &case, &history), Verdict::Pass);
    // The replaced row survived in the final state.
    let state = history.final_state.as_mut().unwrap();
    let row = vec![Value::Int(5), Value::Int(0), Value::Int(1), Value::Int(0)];
    state.tables[0].rows.push(row);
    let finding = expect_finding(check(&mut o, &case, &history));
    assert_eq!(
        finding.signature, "final state differs",
        "{}",
        finding.title
    );
}

/// An INSERT IGNORE … SELECT whose source rows collide with each other keeps
/// the first it meets: a run that kept the other one (another plan, another
/// table layout) is undecided, not a finding.
#[test]
fn an_insert_ignore_select_that_kept_another_colliding_row_is_undecided() {
    let raw = over_t_and_u(
        &[[0, 0]],
        &[5, 6],
        vec![explicit(
            RR,
            vec![
                Statement::Begin,
                // Both source rows become id 1: one is kept.
                insert_select(
                    "t",
                    &["id", "value"],
                    query("u", None, vec![int(1), c("k")], None),
                    OnConflict::Ignore,
                ),
                Statement::Commit,
            ],
        )],
    );
    let mut o = oracle();
    let case = o.prepare(raw).unwrap();
    let mut history = serial_history(&case, &[0]);
    assert_eq!(check(&mut o, &case, &history), Verdict::Pass);
    // The run kept the other source row: its value and its item key.
    let awr = StatementRef::new(0, 4);
    let Outcome::Rows { rows, .. } = &history.record(awr).unwrap().outcome else {
        panic!("no after-write read");
    };
    assert_eq!(rows.len(), 1);
    let kept = rows[0].clone();
    let (Value::Int(value), Value::Int(item)) = (&kept[1], &kept[2]) else {
        panic!("{kept:?}");
    };
    let other = |row: &mut Vec<Value>| {
        row[1] = Value::Int(11 - value);
        row[2] = Value::Int(item ^ 1);
    };
    if let Outcome::Rows { rows, .. } = &mut history.statements[0][4].outcome {
        other(&mut rows[0]);
    }
    let state = history.final_state.as_mut().unwrap();
    for row in &mut state.tables[0].rows {
        if row[2] == Value::Int(*item) {
            other(row);
        }
    }
    let reason = txlab_testkit::oracle::expect_undecided(check(&mut o, &case, &history));
    assert!(reason.contains("order the DBMS visits them"), "{reason}");
}
