//! Runs in which the transactions did not overlap agree with the model.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;
use txlab_testkit::{random_case, serial_history};

#[test]
fn a_serial_run_passes_at_every_level_of_every_profile() {
    for dialect in [innodb(), postgres(), sqlite()] {
        for semantics in dialect.levels.clone() {
            let mut o = oracle(dialect.clone());
            let t = t2(true);
            let case = prepared(
                &mut o,
                vec![t.clone()],
                vec![rows(&t, vec![vec![int(1), int(1)], vec![int(2), int(2)]])],
                vec![
                    txn(
                        semantics.level,
                        vec![
                            Statement::Begin,
                            select_all(),
                            update(vec![("c2", lit(10))], Some(eq("c1", 1))),
                            insert(&[3, 3]),
                            Statement::Commit,
                        ],
                    ),
                    txn(
                        semantics.level,
                        vec![
                            Statement::Begin,
                            select_where(eq("c2", 10), RowLock::None),
                            delete(Some(eq("c1", 2))),
                            insert(&[3, 4]),
                            select_all(),
                            Statement::Commit,
                        ],
                    ),
                ],
                &[0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1],
            );
            let history = serial_history(&case, &[0, 1]);
            assert_eq!(
                check(&mut o, &case, &history),
                Verdict::Pass,
                "{} {}",
                dialect.name,
                semantics.level
            );
        }
    }
}

/// Random two-transaction cases run serially never give a finding, and most pass.
#[test]
fn random_serial_runs_never_give_a_finding() {
    let mut passed = 0;
    let mut decided_cases = 0;
    for seed in 0..150u64 {
        let raw = random_case(seed);
        if raw.transactions.len() != 2 || raw.schema.tables.len() != 1 {
            continue;
        }
        decided_cases += 1;
        for dialect in [innodb(), postgres(), sqlite()] {
            let mut raw = raw.clone();
            let levels: Vec<IsolationLevel> = dialect.levels.iter().map(|l| l.level).collect();
            for (i, t) in raw.transactions.iter_mut().enumerate() {
                t.isolation = levels[(seed as usize + i) % levels.len()];
            }
            let mut o = oracle(dialect.clone());
            let case = o.prepare(raw).unwrap();
            for order in [[0, 1], [1, 0]] {
                let history = serial_history(&case, &order);
                match check(&mut o, &case, &history) {
                    Verdict::Pass | Verdict::Allowed { .. } => passed += 1,
                    Verdict::Undecided { reason } => {
                        assert!(!reason.is_empty());
                    }
                    Verdict::Finding(f) | Verdict::VendorPermitted(f) => panic!(
                        "seed {seed}, {}, order {order:?}: {}\n{}",
                        dialect.name, f.title, f.explanation
                    ),
                }
            }
        }
    }
    assert!(decided_cases > 20, "only {decided_cases} cases in scope");
    assert!(
        passed * 10 >= decided_cases * 6 * 9,
        "only {passed} of {} serial runs passed",
        decided_cases * 6
    );
}
