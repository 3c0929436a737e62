//! F0 of the TxCheck digest: the seven statement dependencies of the paper's
//! Figure 3, each on `t(id, value)` starting as (0, 0), inferred from the
//! reads `prepare` adds, with the exact edge between the two statements. The
//! statements run one after another (in the order that makes the second see,
//! or not see, the first); what decides the edge is which versions the added
//! reads returned.

use std::collections::BTreeSet;
use txlab_oracle_txcheck::graph::{self, Dependency};
use txlab_oracle_txcheck::instrument::key_columns;
use txlab_oracle_txcheck::units::units;
use txlab_oracle_txcheck::{TxcheckConfig, TxcheckOracle};
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::serial_history;

const SER: IsolationLevel = IsolationLevel::Serializable;

fn t() -> Table {
    table(
        "t",
        vec![col("id", ColumnType::Int), col("value", ColumnType::Int)],
        &["id"],
    )
}

/// The dependencies between T1's statement and T2's statement, both ways,
/// after running T1 and T2 one after another in `order`.
fn edges(
    first: Statement,
    second: Statement,
    order: [usize; 2],
) -> (BTreeSet<Dependency>, BTreeSet<Dependency>) {
    let raw = case_of(
        Schema { tables: vec![t()] },
        vec![rows_of(&t(), vec![vec![Value::Int(0), Value::Int(0)]])],
        vec![
            explicit(SER, vec![Statement::Begin, first, Statement::Commit]),
            explicit(SER, vec![Statement::Begin, second, Statement::Commit]),
        ],
    );
    let dialect = <txlab_sqlite::SqliteDialect as DialectPlugin>::new(Default::default())
        .unwrap()
        .info();
    let mut oracle =
        TxcheckOracle::new(TxcheckConfig::default(), OracleContext { dialect }).unwrap();
    let case = oracle.prepare(raw).unwrap();
    let history = serial_history(&case, &order);
    let config = TxcheckConfig::default();
    let units = units(&case, &config).unwrap();
    assert_eq!(units.len(), 2);
    let keys = |name: &str| {
        case.schema
            .table(name)
            .and_then(|t| key_columns(t, &config))
    };
    let observed = graph::observe(&case, &history, &units, &keys).unwrap();
    let completed = |at: StatementRef| history.completion_order.iter().position(|x| *x == at);
    let ended = |t: usize| history.completion_order.iter().rposition(|x| x.txn() == t);
    let none = std::collections::BTreeSet::new();
    let timing = graph::Timing {
        completed: &completed,
        read_at_end: &none,
        ended: &ended,
    };
    let sdg = graph::build(&units, &case, &observed, &[0, 1], &timing);
    let get = |a, b| sdg.edge(a, b).cloned().unwrap_or_default();
    (get(0, 1), get(1, 0))
}

fn set_value(v: i64, filter: Option<Expr>) -> Statement {
    update("t", vec![("value", int(v))], filter)
}

fn value_is(v: i64) -> Option<Expr> {
    Some(eq(c("value"), int(v)))
}

#[test]
fn a_stmt_item_read() {
    let (forward, back) = edges(set_value(1, None), select("t", None, vec![]), [0, 1]);
    assert!(forward.contains(&Dependency::ItemRead), "{forward:?}");
    assert!(back.is_empty(), "{back:?}");
}

#[test]
fn b_stmt_item_write() {
    let (forward, back) = edges(set_value(1, None), set_value(2, None), [0, 1]);
    assert!(forward.contains(&Dependency::ItemWrite), "{forward:?}");
    assert!(back.is_empty(), "{back:?}");
}

#[test]
fn c_stmt_item_anti() {
    // The select ran first and read (0, 0): it must come before the update.
    let (forward, back) = edges(set_value(1, None), select("t", None, vec![]), [1, 0]);
    assert!(back.contains(&Dependency::ItemAnti), "{back:?}");
    assert!(forward.is_empty(), "{forward:?}");
}

#[test]
fn d_stmt_predicate_read() {
    // `value = 0` finds nothing after the update: only its version set saw it.
    let (forward, back) = edges(set_value(1, None), select("t", value_is(0), vec![]), [0, 1]);
    assert_eq!(forward, BTreeSet::from([Dependency::PredicateRead]));
    assert!(back.is_empty(), "{back:?}");
}

#[test]
fn e_stmt_predicate_write() {
    // The second update changes nothing; its predicate looked at the new version.
    let (forward, back) = edges(set_value(1, None), set_value(2, value_is(0)), [0, 1]);
    assert_eq!(forward, BTreeSet::from([Dependency::PredicateWrite]));
    assert!(back.is_empty(), "{back:?}");
}

#[test]
fn f_stmt_predicate_anti() {
    // The select ran first: `value = 1` found nothing, over the version the
    // update then replaced.
    let (forward, back) = edges(set_value(1, None), select("t", value_is(1), vec![]), [1, 0]);
    assert_eq!(back, BTreeSet::from([Dependency::PredicateAnti]));
    assert!(forward.is_empty(), "{forward:?}");
}

#[test]
fn g_stmt_value_write() {
    // The INSERT's value is `(SELECT min(value) FROM t)`: its version set of
    // `t`, the table its value reads, holds the update's version.
    let min_value = scalar(query(
        "t",
        None,
        vec![agg(AggregateFunc::Min, c("value"))],
        None,
    ));
    let insert = Statement::Insert(Insert {
        table: "t".into(),
        columns: vec!["id".into(), "value".into()],
        rows: vec![vec![int(1), min_value]],
        on_conflict: OnConflict::Error,
    });
    let (forward, back) = edges(set_value(1, None), insert, [0, 1]);
    // Also predicate-anti: the update's version set did not hold the new row.
    assert!(forward.contains(&Dependency::ValueWrite), "{forward:?}");
    assert!(back.is_empty(), "{back:?}");
}
