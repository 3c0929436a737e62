//! The serial order follows completion (commit, rollback, abort), not submission.

mod common;

use common::*;
use txlab_oracle_wss::schedule::{fcrfs_order, serial_schedule, ScheduleError, SerialTxn};
use txlab_oracle_wss::Variant;
use txlab_plugin_api::prelude::*;

const SER: IsolationLevel = IsolationLevel::Serializable;

fn kv() -> Table {
    table(
        "t",
        &[("id", ColumnType::Int), ("v", ColumnType::Int)],
        &["id"],
    )
}

fn set_v(value: i64) -> Statement {
    update(
        "t",
        vec![("v", lit(int(value)))],
        Some(Expr::eq(col("id"), lit(int(1)))),
    )
}

/// T1 and T2 both set row 1's v. Submitted: T1 BEGIN, T2 BEGIN, T2 UPDATE,
/// T1 UPDATE, T1 COMMIT, T2 COMMIT; T1's UPDATE blocks on T2's lock, so T2
/// commits first and T1's UPDATE and COMMIT complete after it.
fn blocked_case() -> TestCase {
    let t = kv();
    case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)]])],
        vec![
            explicit(SER, vec![set_v(1)], true),
            explicit(SER, vec![set_v(2)], true),
        ],
        &[0, 1, 1, 0, 0, 1],
    )
}

fn blocked_history(final_v: i64) -> History {
    let case = blocked_case();
    history(
        &case,
        &[0, 1, 1, 1, 0, 0],
        vec![
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(1, 1), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&kv(), vec![vec![int(1), int(final_v)]]),
    )
}

#[test]
fn the_order_is_that_of_completion_not_submission() {
    let case = blocked_case();
    let history = blocked_history(1);
    // Submission would put T1's COMMIT first.
    let submitted_commits: Vec<usize> = case
        .submitted_order
        .iter()
        .filter(|at| case.statement(**at).unwrap().is_end())
        .map(|at| at.txn())
        .collect();
    assert_eq!(submitted_commits, [0, 1]);
    assert_eq!(fcrfs_order(&case, &history).unwrap(), [1, 0]);
}

#[test]
fn the_oracle_replays_in_completion_order() {
    let case = blocked_case();
    // T2 then T1: T1's value survives.
    assert_eq!(
        check(&mut oracle(), &case, &blocked_history(1)),
        Verdict::Pass
    );
    let finding = expect_finding(check(&mut oracle(), &case, &blocked_history(2)));
    assert!(
        finding.explanation.contains("**FCRFS order:** T2 → T1"),
        "{}",
        finding.explanation
    );
}

/// T1 and T2 with an extra autocommit T3.
fn three_case() -> TestCase {
    let t = kv();
    case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)]])],
        vec![
            explicit(SER, vec![set_v(1), set_v(3)], true),
            explicit(SER, vec![set_v(2)], false),
            autocommit(SER, set_v(4)),
        ],
        &[0, 1, 0, 1, 0, 1, 0, 2],
    )
}

fn outcomes() -> Vec<(StatementRef, Outcome)> {
    vec![
        (StatementRef::new(0, 1), affected(1)),
        (StatementRef::new(0, 2), affected(1)),
        (StatementRef::new(1, 1), affected(1)),
        (StatementRef::new(2, 0), affected(1)),
    ]
}

#[test]
fn an_aborted_transaction_takes_its_place_at_the_aborting_statement() {
    let case = three_case();
    let deadlock = TxnEnd::Aborted {
        by: StatementRef::new(0, 2),
        class: ErrorClass::Deadlock,
    };
    let mut outcomes = outcomes();
    outcomes[1].1 = error(ErrorClass::Deadlock, ErrorScope::Transaction);
    // T1.3 fails with a deadlock before T2's ROLLBACK and T3 complete.
    let early = history(
        &case,
        &[0, 1, 0, 1, 0, 2, 1],
        outcomes.clone(),
        vec![deadlock.clone(), TxnEnd::RolledBack, TxnEnd::Committed],
        state(&kv(), vec![vec![int(1), int(4)]]),
    );
    assert_eq!(fcrfs_order(&case, &early).unwrap(), [0, 2, 1]);
    // The same abort reported after T2's ROLLBACK.
    let late = history(
        &case,
        &[0, 1, 0, 1, 1, 0, 2],
        outcomes,
        vec![deadlock, TxnEnd::RolledBack, TxnEnd::Committed],
        state(&kv(), vec![vec![int(1), int(4)]]),
    );
    assert_eq!(fcrfs_order(&case, &late).unwrap(), [1, 0, 2]);
    assert_eq!(check(&mut oracle(), &case, &late), Verdict::Pass);

    // Aborted transactions are in neither serial schedule; rolled-back ones only in tx-WSS.
    let tx = serial_schedule(Variant::Tx, &case, &late, &[1, 0, 2]);
    assert_eq!(
        tx,
        [
            SerialTxn {
                txn: 1,
                isolation: SER,
                statements: vec![0, 1, 2]
            },
            SerialTxn {
                txn: 2,
                isolation: SER,
                statements: vec![0]
            },
        ]
    );
    let stmt = serial_schedule(Variant::Stmt, &case, &late, &[1, 0, 2]);
    assert_eq!(
        stmt,
        [SerialTxn {
            txn: 2,
            isolation: SER,
            statements: vec![0]
        }]
    );
}

#[test]
fn autocommit_transactions_take_their_place_at_their_statement() {
    let case = three_case();
    let history = history(
        &case,
        &[2, 0, 1, 0, 1, 0, 1, 0],
        outcomes(),
        vec![TxnEnd::Committed, TxnEnd::RolledBack, TxnEnd::Committed],
        state(&kv(), vec![vec![int(1), int(3)]]),
    );
    assert_eq!(fcrfs_order(&case, &history).unwrap(), [2, 1, 0]);
    assert_eq!(check(&mut oracle(), &case, &history), Verdict::Pass);
    // Committed explicit transactions lose BEGIN and COMMIT in stmt-WSS.
    let stmt = serial_schedule(Variant::Stmt, &case, &history, &[2, 1, 0]);
    assert_eq!(stmt[1].statements, [1, 2]);
}

#[test]
fn unfinished_transactions_are_left_out_of_the_order() {
    let case = three_case();
    let history = history(
        &case,
        &[0, 1, 0, 1, 0, 0],
        outcomes(),
        vec![TxnEnd::Committed, TxnEnd::Unfinished, TxnEnd::Unfinished],
        state(&kv(), vec![vec![int(1), int(3)]]),
    );
    assert_eq!(fcrfs_order(&case, &history).unwrap(), [0]);
}

#[test]
fn histories_that_contradict_their_case_are_rejected() {
    let case = three_case();
    let ends = vec![TxnEnd::Committed, TxnEnd::RolledBack, TxnEnd::Committed];
    // T2's ROLLBACK never completed although T2 is recorded as rolled back.
    let missing = history(
        &case,
        &[0, 1, 0, 1, 0, 0, 2],
        outcomes(),
        ends.clone(),
        state(&kv(), vec![]),
    );
    assert_eq!(
        fcrfs_order(&case, &missing).unwrap_err(),
        ScheduleError::EndNotCompleted {
            txn: "T2".into(),
            at: StatementRef::new(1, 2)
        }
    );
    let mut foreign = history(
        &case,
        &[0, 1, 0, 1, 0, 1, 0, 2],
        outcomes(),
        ends,
        state(&kv(), vec![]),
    );
    foreign.transactions[0].end = TxnEnd::Aborted {
        by: StatementRef::new(1, 1),
        class: ErrorClass::Deadlock,
    };
    assert!(matches!(
        fcrfs_order(&case, &foreign),
        Err(ScheduleError::ForeignAbort { .. })
    ));
    let mut db = txlab_testkit::MemoryDb::new();
    let e = oracle()
        .check(
            &CheckInput {
                case: case.clone(),
                history: foreign,
            },
            &mut db,
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
    assert!(e.message.contains("aborted by T2.2"), "{e}");
}
