//! Transactions run one after another never give an anomaly, whatever the
//! dialect declares: every serial run of random cases passes.

use txlab_oracle_isorel::IsorelOracle;
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
fn serial_runs_never_show_an_anomaly() {
    let mut judged = 0;
    for dialect in dialects() {
        let levels: Vec<IsolationLevel> = dialect.levels.iter().map(|l| l.level).collect();
        for seed in 0..150u64 {
            let mut raw = random_case(seed);
            for (i, t) in raw.transactions.iter_mut().enumerate() {
                t.isolation = levels[(seed as usize + i) % levels.len()];
            }
            let mut oracle = IsorelOracle::new(
                Default::default(),
                OracleContext {
                    dialect: dialect.clone(),
                },
            )
            .unwrap();
            let case = oracle.prepare(raw).unwrap();
            let n = case.transactions.len();
            let orders: Vec<Vec<usize>> = vec![(0..n).collect(), (0..n).rev().collect()];
            for order in orders {
                let history = serial_history(&case, &order);
                match txlab_testkit::oracle::check(&mut oracle, &case, &history) {
                    Verdict::Pass => judged += 1,
                    other => panic!("seed {seed}, {}, order {order:?}: {other:?}", dialect.name),
                }
            }
        }
    }
    assert!(judged >= 3 * 150 * 2, "only {judged} serial runs judged");
}
