//! Runs in which no transactions overlapped must pass.

mod common;

use common::*;
use proptest::prelude::*;
use txlab_plugin_api::prelude::*;
use txlab_testkit::{random_case, serial_history, MemoryDb};

/// Explicit, rolled-back and autocommit transactions that collide on one row,
/// with a write that fails on a key in some orders.
fn mixed_case() -> TestCase {
    let t = table(
        "t",
        &[("id", ColumnType::Int), ("v", ColumnType::Int)],
        &["id"],
    );
    let rr = IsolationLevel::RepeatableRead;
    let transactions = vec![
        explicit(
            rr,
            vec![
                update(
                    "t",
                    vec![("v", Expr::binary(BinaryOp::Add, col("v"), lit(int(1))))],
                    None,
                ),
                insert("t", &["id", "v"], vec![int(2), int(20)], OnConflict::Error),
            ],
            true,
        ),
        explicit(
            rr,
            vec![delete("t", Some(Expr::eq(col("id"), lit(int(1)))))],
            false,
        ),
        autocommit(
            rr,
            insert(
                "t",
                &["id", "v"],
                vec![int(2), int(30)],
                OnConflict::Replace,
            ),
        ),
        explicit(
            rr,
            vec![
                select("t"),
                update(
                    "t",
                    vec![("id", lit(int(2)))],
                    Some(Expr::eq(col("id"), lit(int(1)))),
                ),
            ],
            true,
        ),
    ];
    let submitted: Vec<usize> = transactions
        .iter()
        .enumerate()
        .flat_map(|(i, txn)| std::iter::repeat_n(i, txn.statements.len()))
        .collect();
    case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(10)]])],
        transactions,
        &submitted,
    )
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

#[test]
fn serial_histories_pass_in_every_order_and_variant() {
    let case = mixed_case();
    let mut states = std::collections::BTreeSet::new();
    for order in permutations(case.transactions.len()) {
        let history = serial_history(&case, &order);
        states.insert(format!("{:?}", history.final_state));
        for config in ["", r#"{"variants":["tx"]}"#, r#"{"variants":["stmt"]}"#] {
            let verdict = check(&mut oracle_with(config, strict_dialect()), &case, &history);
            assert_eq!(verdict, Verdict::Pass, "order {order:?}, config {config:?}");
        }
    }
    // The orders must matter, or passing would say nothing.
    assert!(
        states.len() > 3,
        "only {} distinct final states",
        states.len()
    );
}

#[test]
fn both_variants_replay_on_the_scratch_database() {
    let case = mixed_case();
    let history = serial_history(&case, &[0, 1, 2, 3]);
    let mut db = MemoryDb::new();
    let verdict = oracle()
        .check(
            &CheckInput {
                case: case.clone(),
                history,
            },
            &mut db,
        )
        .unwrap();
    assert_eq!(verdict, Verdict::Pass);
    let resets = db
        .log()
        .iter()
        .filter(|r| matches!(r, HostDbRequest::Reset { .. }))
        .count();
    assert_eq!(resets, 2, "one reset per variant");
    let begins = db
        .log()
        .iter()
        .map(|r| match r {
            HostDbRequest::Execute { statement, .. } => usize::from(statement.is_begin()),
            HostDbRequest::ExecuteEach { statements, .. } => {
                statements.iter().filter(|s| s.is_begin()).count()
            }
            _ => 0,
        })
        .sum::<usize>();
    // tx-WSS replays the three explicit transactions with BEGIN; stmt-WSS none.
    assert_eq!(begins, 3);
}

fn nth_permutation(n: usize, mut index: usize) -> Vec<usize> {
    let mut pool: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(n);
    while !pool.is_empty() {
        let k = pool.len();
        out.push(pool.remove(index % k));
        index /= k;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_serial_histories_pass(seed in any::<u64>(), order_index in 0usize..720) {
        let case = random_case(seed);
        let order = nth_permutation(case.transactions.len(), order_index);
        let history = serial_history(&case, &order);
        prop_assert_eq!(check(&mut oracle(), &case, &history), Verdict::Pass);
    }
}
