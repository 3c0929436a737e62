//! IR 1.1's queries: a write that reads through a subquery or INSERT …
//! SELECT is outside WSS's model (undecided, never a finding); a read-only
//! query is replayed like any read and changes nothing.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::{agg, qc, query, query_statement, scalar};
use txlab_testkit::serial_history;

const RR: IsolationLevel = IsolationLevel::RepeatableRead;

fn kv(name: &str) -> Table {
    table(
        name,
        &[("id", ColumnType::Int), ("v", ColumnType::Int)],
        &["id"],
    )
}

fn two_tables_case(first: Statement) -> TestCase {
    let (t, u) = (kv("t"), kv("u"));
    case(
        vec![t.clone(), u.clone()],
        vec![
            rows(&t, vec![vec![int(1), int(0)]]),
            rows(&u, vec![vec![int(1), int(7)]]),
        ],
        vec![
            explicit(RR, vec![first], true),
            explicit(RR, vec![update("u", vec![("v", lit(int(9)))], None)], true),
        ],
        &[0, 1, 0, 1, 0, 1],
    )
}

#[test]
fn a_write_reading_another_table_through_a_subquery_is_undecided() {
    let largest = query("u", None, vec![agg(AggregateFunc::Max, col("v"))], None);
    let case = two_tables_case(update("t", vec![("v", scalar(largest))], None));
    // Even a final state no serial order explains is no finding: a snapshot
    // read in the subquery may explain it.
    let mut history = serial_history(&case, &[0, 1]);
    history.final_state = Some(DbState {
        tables: vec![
            state(&kv("t"), vec![vec![int(1), int(123)]])
                .tables
                .remove(0),
            state(&kv("u"), vec![vec![int(1), int(9)]]).tables.remove(0),
        ],
    });
    let reason = expect_undecided(check(&mut oracle(), &case, &history));
    assert_eq!(
        reason,
        "outside the model: T1.2 (UPDATE) reads `u` through a subquery; WSS constrains only \
         the rows a write changes, and what it reads through a query may come from a snapshot"
    );
}

#[test]
fn insert_select_is_undecided() {
    let source = query(
        "u",
        None,
        vec![
            Expr::binary(BinaryOp::Add, col("id"), lit(int(5))),
            col("v"),
        ],
        None,
    );
    let insert = Statement::InsertSelect(Box::new(InsertSelect {
        table: "t".into(),
        columns: vec!["id".into(), "v".into()],
        query: source,
        on_conflict: OnConflict::Error,
    }));
    let case = two_tables_case(insert);
    let history = serial_history(&case, &[0, 1]);
    let reason = expect_undecided(check(&mut oracle(), &case, &history));
    assert!(
        reason.starts_with("outside the model: T1.2 is an INSERT … SELECT into `t` reading `u`"),
        "{reason}"
    );
}

#[test]
fn a_read_only_join_is_replayed_and_judged_as_before() {
    let mut join = query("t", None, vec![qc("t", "v"), qc("u", "v")], None);
    join.joins = vec![txlab_testkit::build::join(
        JoinKind::Inner,
        "u",
        None,
        Expr::eq(qc("t", "id"), qc("u", "id")),
    )];
    let case = two_tables_case(query_statement(join));
    let mut history = serial_history(&case, &[0, 1]);
    assert_eq!(check(&mut oracle(), &case, &history), Verdict::Pass);
    // The writes still decide: a lost write to `u` is a finding.
    history.final_state = Some(DbState {
        tables: vec![
            state(&kv("t"), vec![vec![int(1), int(0)]]).tables.remove(0),
            state(&kv("u"), vec![vec![int(1), int(7)]]).tables.remove(0),
        ],
    });
    expect_finding(check(&mut oracle(), &case, &history));
}
