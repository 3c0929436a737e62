//! Serializable snapshot isolation: runs whose commit order is not their
//! serial order pass when some order explains them, and are findings when
//! none does.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

const SER: IsolationLevel = IsolationLevel::Serializable;

/// PostgreSQL-like SERIALIZABLE: serializable in some order, no predicate
/// conflicts on writes.
fn ssi(serializable: bool) -> DialectInfo {
    let mut level = semantics(SER, false, false);
    level.serial_order = SerialOrder::AnyOrder;
    level.serializable = serializable;
    dialect(vec![level])
}

fn kv() -> Table {
    table(
        "t",
        &[("id", ColumnType::Int), ("v", ColumnType::Int)],
        &["id"],
    )
}

fn v_is(v: i64) -> Option<Expr> {
    Some(Expr::eq(col("v"), lit(int(v))))
}

fn put(id: i64, v: i64) -> Statement {
    insert("t", &["id", "v"], vec![int(id), int(v)], OnConflict::Error)
}

/// T1 deletes the rows with v = 2 and finds none; T2 inserts one and commits
/// first. Only the order T1 → T2 gives the final state.
fn reader_commits_last() -> (TestCase, History) {
    let t = kv();
    let case = case(
        vec![t.clone()],
        vec![],
        vec![
            explicit(SER, vec![delete("t", v_is(2))], true),
            explicit(SER, vec![put(4, 2)], true),
        ],
        &[0, 0, 1, 1, 1, 0],
    );
    let history = history(
        &case,
        &[0, 0, 1, 1, 1, 0],
        vec![
            (StatementRef::new(0, 1), affected(0)),
            (StatementRef::new(1, 1), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![vec![int(4), int(2)]]),
    );
    (case, history)
}

/// Write skew through predicates: each transaction deletes the rows the other
/// one inserts, finds none, and inserts its own; both commit, and both rows
/// stay, which no serial order gives.
fn predicate_write_skew() -> (TestCase, History) {
    let t = kv();
    let case = case(
        vec![t.clone()],
        vec![],
        vec![
            explicit(SER, vec![delete("t", v_is(1)), put(3, 2)], true),
            explicit(SER, vec![delete("t", v_is(2)), put(4, 1)], true),
        ],
        &[0, 1, 0, 1, 0, 1, 0, 1],
    );
    let history = history(
        &case,
        &[0, 1, 0, 1, 0, 1, 0, 1],
        vec![
            (StatementRef::new(0, 1), affected(0)),
            (StatementRef::new(1, 1), affected(0)),
            (StatementRef::new(0, 2), affected(1)),
            (StatementRef::new(1, 2), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![vec![int(3), int(2)], vec![int(4), int(1)]]),
    );
    (case, history)
}

#[test]
fn a_run_explained_by_another_serial_order_passes() {
    let (case, history) = reader_commits_last();
    assert_eq!(
        check(&mut oracle_with("", ssi(true)), &case, &history),
        Verdict::Pass
    );
    // Without the search, the commit order alone cannot decide it.
    let reason = expect_undecided(check(
        &mut oracle_with(r#"{"search_serial_orders": false}"#, ssi(true)),
        &case,
        &history,
    ));
    assert!(
        reason.contains("may be permitted at serializable"),
        "{reason}"
    );
}

#[test]
fn a_run_no_serial_order_explains_is_a_serializability_violation() {
    let (case, history) = predicate_write_skew();
    let finding = expect_finding(check(&mut oracle_with("", ssi(true)), &case, &history));
    assert!(
        finding.title.starts_with("serializability violation"),
        "{}",
        finding.title
    );
    assert!(finding.model.contains("some order"), "{}", finding.model);
    assert!(
        finding.assumed_semantics.contains("testdb"),
        "{}",
        finding.assumed_semantics
    );
    assert!(
        finding.explanation.contains("### Serial order T1 → T2"),
        "{}",
        finding.explanation
    );
    assert!(
        finding.explanation.contains("### Serial order T2 → T1"),
        "{}",
        finding.explanation
    );
    assert_eq!(finding.evidence["orders"].as_array().unwrap().len(), 2);
}

#[test]
fn the_same_run_at_a_level_not_declared_serializable_is_undecided() {
    // Snapshot isolation permits this write skew.
    let (case, history) = predicate_write_skew();
    let reason = expect_undecided(check(&mut oracle_with("", ssi(false)), &case, &history));
    assert!(
        reason.contains("may be permitted at serializable"),
        "{reason}"
    );
}

#[test]
fn too_many_orders_leave_the_run_undecided_and_say_why() {
    let (case, history) = predicate_write_skew();
    let reason = expect_undecided(check(
        &mut oracle_with(r#"{"max_serial_orders": 1}"#, ssi(true)),
        &case,
        &history,
    ));
    assert!(reason.contains("max_serial_orders = 1"), "{reason}");
}
