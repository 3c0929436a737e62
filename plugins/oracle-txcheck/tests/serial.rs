//! Transactions run one after another never give a finding: every serial run
//! of random cases, at every level each dialect offers that has no dirty reads,
//! sorts (its graph has no cycle), replays without transactions and compares
//! equal.

use txlab_oracle_txcheck::TxcheckOracle;
use txlab_plugin_api::prelude::*;
use txlab_testkit::{random_case, serial_history};

fn dialects() -> Vec<DialectInfo> {
    vec![
        <txlab_sqlite::SqliteDialect as DialectPlugin>::new(Default::default())
            .unwrap()
            .info(),
        <txlab_mysql::MariadbDialect as DialectPlugin>::new(Default::default())
            .unwrap()
            .info(),
        <txlab_postgres::PostgresDialect as DialectPlugin>::new(Default::default())
            .unwrap()
            .info(),
    ]
}

#[test]
fn serial_runs_never_give_a_finding() {
    let (mut passed, mut undecided) = (0, 0);
    for dialect in dialects() {
        let levels: Vec<IsolationLevel> = dialect
            .levels
            .iter()
            .filter(|l| l.snapshot != SnapshotPoint::None)
            .map(|l| l.level)
            .collect();
        for seed in 0..150u64 {
            let mut raw = random_case(seed);
            for (i, t) in raw.transactions.iter_mut().enumerate() {
                t.isolation = levels[(seed as usize + i) % levels.len()];
            }
            let mut oracle = TxcheckOracle::new(
                Default::default(),
                OracleContext {
                    dialect: dialect.clone(),
                },
            )
            .unwrap();
            let case = oracle.prepare(raw).unwrap();
            let n = case.transactions.len();
            for order in [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()] {
                let history = serial_history(&case, &order);
                match txlab_testkit::oracle::check(&mut oracle, &case, &history) {
                    Verdict::Pass => passed += 1,
                    Verdict::Undecided { reason } => {
                        eprintln!("seed {seed}, {}, order {order:?}: {reason}", dialect.name);
                        undecided += 1;
                    }
                    other => panic!("seed {seed}, {}, order {order:?}: {other:?}", dialect.name),
                }
            }
        }
    }
    eprintln!("{passed} passed, {undecided} undecided");
    // Serial runs order every pair of statements the way they ran: the graph
    // never has a cycle, so no serial run is left undecided either.
    assert_eq!(undecided, 0);
    assert!(passed >= 3 * 150 * 2, "only {passed} serial runs passed");
}
