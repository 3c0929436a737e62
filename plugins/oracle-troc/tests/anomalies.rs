//! Hand-built histories with injected anomalies are found; the same histories
//! with the right results pass.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

fn two_rows(
    o: &mut txlab_oracle_troc::TrocOracle,
    a: Transaction,
    b: Transaction,
    submitted: &[usize],
) -> TestCase {
    let t = t2(true);
    prepared(
        o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)], vec![int(2), int(2)]])],
        vec![a, b],
        submitted,
    )
}

fn dirty_read_case(o: &mut txlab_oracle_troc::TrocOracle, level: IsolationLevel) -> TestCase {
    two_rows(
        o,
        txn(
            level,
            vec![
                Statement::Begin,
                update(vec![("c2", lit(10))], Some(eq("c1", 1))),
                Statement::Commit,
            ],
        ),
        txn(
            level,
            vec![Statement::Begin, select_all(), Statement::Commit],
        ),
        &[0, 0, 1, 1, 0, 1],
    )
}

fn dirty_read_history(case: &TestCase, seen: i64) -> History {
    history(
        case,
        &[0, 0, 1, 1, 0, 1],
        vec![
            (at(0, 1), affected(1)),
            (
                at(1, 1),
                result(case, vec![r(&[1, seen], 1), r(&[2, 2], 2)]),
            ),
        ],
        vec![],
        committed(),
        vec![r(&[1, 10], 1), r(&[2, 2], 2)],
    )
}

#[test]
fn a_dirty_read_at_read_committed_is_found() {
    let mut o = oracle(innodb());
    let case = dirty_read_case(&mut o, RC);
    assert_eq!(
        check(&mut o, &case, &dirty_read_history(&case, 1)),
        Verdict::Pass
    );
    let finding = expect_finding(check(&mut o, &case, &dirty_read_history(&case, 10)));
    assert_eq!(
        finding.title,
        "Troc: inconsistent query result at `T2.2` (SELECT, read-committed)"
    );
    assert!(finding.model.contains("ICSE 2023"), "{}", finding.model);
    assert!(finding.assumed_semantics.contains("dialect `innodb-like`"));
    assert!(
        finding
            .assumed_semantics
            .contains("read-committed: snapshot per statement"),
        "{}",
        finding.assumed_semantics
    );
    assert!(
        finding
            .explanation
            .contains("- only expected: (1, 1, 1)\n- only in the real run: (1, 10, 1)"),
        "{}",
        finding.explanation
    );
    assert_eq!(finding.evidence["differences"][0]["kind"], "query_result");
    // The position-free kind of finding the reducer keeps while statements renumber.
    assert_eq!(
        finding.signature,
        "Troc: inconsistent query result (SELECT, read-committed)"
    );
    insta::assert_snapshot!("dirty_read_explanation", finding.explanation);
    // The same history is fine at READ UNCOMMITTED, and so is the clean read.
    let mut o = oracle(innodb());
    let case = dirty_read_case(&mut o, RU);
    assert_eq!(
        check(&mut o, &case, &dirty_read_history(&case, 10)),
        Verdict::Pass
    );
    assert_eq!(
        check(&mut o, &case, &dirty_read_history(&case, 1)),
        Verdict::Pass
    );
    // A value that never existed is not explained by any version.
    let reason = expect_undecided(check(&mut o, &case, &dirty_read_history(&case, 7)));
    assert!(reason.starts_with("read uncommitted:"), "{reason}");
}

fn rereads(o: &mut txlab_oracle_troc::TrocOracle, level: IsolationLevel) -> TestCase {
    two_rows(
        o,
        txn(
            level,
            vec![
                Statement::Begin,
                select_all(),
                select_all(),
                Statement::Commit,
            ],
        ),
        txn(
            level,
            vec![
                Statement::Begin,
                update(vec![("c2", lit(10))], Some(eq("c1", 1))),
                Statement::Commit,
            ],
        ),
        &[0, 0, 1, 1, 1, 0, 0],
    )
}

fn reread_history(case: &TestCase, second: i64) -> History {
    history(
        case,
        &[0, 0, 1, 1, 1, 0, 0],
        vec![
            (at(0, 1), result(case, vec![r(&[1, 1], 1), r(&[2, 2], 2)])),
            (at(1, 1), affected(1)),
            (
                at(0, 2),
                result(case, vec![r(&[1, second], 1), r(&[2, 2], 2)]),
            ),
        ],
        vec![],
        committed(),
        vec![r(&[1, 10], 1), r(&[2, 2], 2)],
    )
}

#[test]
fn a_non_repeatable_read_at_repeatable_read_is_found() {
    let mut o = oracle(innodb());
    let case = rereads(&mut o, RR);
    assert_eq!(
        check(&mut o, &case, &reread_history(&case, 1)),
        Verdict::Pass
    );
    let finding = expect_finding(check(&mut o, &case, &reread_history(&case, 10)));
    assert_eq!(
        finding.title,
        "Troc: inconsistent query result at `T1.3` (SELECT, repeatable-read)"
    );
    assert!(
        finding.explanation.contains("(V1+V4)"),
        "{}",
        finding.explanation
    );
    // At READ COMMITTED the second read must see the commit.
    let mut o = oracle(innodb());
    let case = rereads(&mut o, RC);
    assert_eq!(
        check(&mut o, &case, &reread_history(&case, 10)),
        Verdict::Pass
    );
    expect_finding(check(&mut o, &case, &reread_history(&case, 1)));
}

fn lost_update_case(o: &mut txlab_oracle_troc::TrocOracle, level: IsolationLevel) -> TestCase {
    let add = |n| {
        update(
            vec![(
                "c2",
                Expr::binary(BinaryOp::Add, Expr::column("c2"), lit(n)),
            )],
            Some(eq("c1", 1)),
        )
    };
    two_rows(
        o,
        txn(
            level,
            vec![Statement::Begin, select_all(), add(1), Statement::Commit],
        ),
        txn(level, vec![Statement::Begin, add(10), Statement::Commit]),
        &[0, 0, 1, 1, 1, 0, 0],
    )
}

#[test]
fn a_lost_update_where_the_profile_aborts_the_second_writer_is_found() {
    let mut o = oracle(postgres());
    let case = lost_update_case(&mut o, RR);
    let read = (at(0, 1), result(&case, vec![r(&[1, 1], 1), r(&[2, 2], 2)]));
    // T1's increment went through on top of T2's committed one.
    let lost = history(
        &case,
        &[0, 0, 1, 1, 1, 0, 0],
        vec![
            read.clone(),
            (at(1, 1), affected(1)),
            (at(0, 2), affected(1)),
        ],
        vec![],
        committed(),
        vec![r(&[1, 12], 1), r(&[2, 2], 2)],
    );
    let finding = expect_finding(check(&mut o, &case, &lost));
    assert_eq!(
        finding.title,
        "Troc: missing abort at `T1.3` (UPDATE, repeatable-read)"
    );
    assert!(
        finding.explanation.contains("serialization failure"),
        "{}",
        finding.explanation
    );
    // PostgreSQL's answer: T1 fails and is rolled back.
    let aborted = history(
        &case,
        &[0, 0, 1, 1, 1, 0],
        vec![
            read,
            (at(1, 1), affected(1)),
            (
                at(0, 2),
                error(ErrorClass::SerializationFailure, ErrorScope::Transaction),
            ),
        ],
        vec![],
        vec![
            TxnEnd::Aborted {
                by: at(0, 2),
                class: ErrorClass::SerializationFailure,
            },
            TxnEnd::Committed,
        ],
        vec![r(&[1, 11], 1), r(&[2, 2], 2)],
    );
    assert_eq!(check(&mut o, &case, &aborted), Verdict::Pass);
    // InnoDB's REPEATABLE READ writes the latest committed row: 11 + 1.
    let mut o = oracle(innodb());
    let case = lost_update_case(&mut o, RR);
    let current_read = history(
        &case,
        &[0, 0, 1, 1, 1, 0, 0],
        vec![
            (at(0, 1), result(&case, vec![r(&[1, 1], 1), r(&[2, 2], 2)])),
            (at(1, 1), affected(1)),
            (at(0, 2), affected(1)),
        ],
        vec![],
        committed(),
        vec![r(&[1, 12], 1), r(&[2, 2], 2)],
    );
    // T1 read row 1 at its snapshot and wrote over T2's later commit: a lost
    // update (G-single) by the standard model of REPEATABLE READ, the
    // vendor's documented current read: a vendor-permitted anomaly.
    let Verdict::VendorPermitted(anomaly) = check(&mut o, &case, &current_read) else {
        panic!("expected a vendor-permitted anomaly");
    };
    assert_eq!(
        anomaly.signature,
        "Troc: lost update: a write over a row changed after the snapshot (UPDATE, repeatable-read)"
    );
    assert!(anomaly.model.contains("PL-2.99"), "{}", anomaly.model);
    let mut strict = oracle_with(r#"{"findings":"standard"}"#, innodb());
    let strict_case = lost_update_case(&mut strict, RR);
    assert_eq!(strict_case, case);
    expect_finding(check(&mut strict, &case, &current_read));
    // At READ COMMITTED both models allow it.
    let mut rc = oracle(innodb());
    let rc_case = lost_update_case(&mut rc, RC);
    let mut rc_history = current_read.clone();
    rc_history
        .transactions
        .iter_mut()
        .for_each(|t| t.isolation = RC);
    assert_eq!(check(&mut rc, &rc_case, &rc_history), Verdict::Pass);
    // A real lost update there (T1 wrote 1 + 1) is a final-state difference.
    let mut really_lost = current_read.clone();
    really_lost.final_state = Some(final_state(&case, vec![r(&[1, 2], 1), r(&[2, 2], 2)]));
    let finding = expect_finding(check(&mut o, &case, &really_lost));
    assert_eq!(finding.title, "Troc: inconsistent final database state");
}

#[test]
fn a_row_an_update_skipped_is_found() {
    let mut o = oracle(innodb());
    let case = two_rows(
        &mut o,
        txn(
            RR,
            vec![Statement::Begin, insert(&[3, 3]), Statement::Commit],
        ),
        txn(
            RR,
            vec![
                Statement::Begin,
                update(vec![("c2", lit(0))], None),
                Statement::Commit,
            ],
        ),
        &[1, 0, 0, 0, 1, 1],
    );
    let run = |affected_rows, row3| {
        history(
            &case,
            &[1, 0, 0, 0, 1, 1],
            vec![(at(0, 1), affected(1)), (at(1, 1), affected(affected_rows))],
            vec![],
            committed(),
            vec![r(&[1, 0], 1), r(&[2, 0], 2), r(&[3, row3], 3)],
        )
    };
    assert_eq!(check(&mut o, &case, &run(3, 0)), Verdict::Pass);
    let finding = expect_finding(check(&mut o, &case, &run(2, 3)));
    assert_eq!(
        finding.title,
        "Troc: inconsistent affected-row count at `T2.2` (UPDATE, repeatable-read)"
    );
    assert!(
        finding.explanation.contains("expected: it affected 3 rows"),
        "{}",
        finding.explanation
    );
}

fn write_write(o: &mut txlab_oracle_troc::TrocOracle, second: Statement) -> TestCase {
    two_rows(
        o,
        txn(
            RC,
            vec![
                Statement::Begin,
                update(vec![("c2", lit(5))], Some(eq("c1", 1))),
                Statement::Commit,
            ],
        ),
        txn(RC, vec![Statement::Begin, second, Statement::Commit]),
        &[0, 0, 1, 1, 0, 1],
    )
}

#[test]
fn a_write_that_did_not_wait_for_a_row_lock_is_found() {
    let mut o = oracle(innodb());
    let case = write_write(&mut o, update(vec![("c2", lit(7))], Some(eq("c1", 1))));
    let dirty_write = history(
        &case,
        &[0, 0, 1, 1, 0, 1],
        vec![(at(0, 1), affected(1)), (at(1, 1), affected(1))],
        vec![],
        committed(),
        vec![r(&[1, 7], 1), r(&[2, 2], 2)],
    );
    let finding = expect_finding(check(&mut o, &case, &dirty_write));
    assert_eq!(
        finding.title,
        "Troc: missing lock at `T2.2` (UPDATE, read-committed)"
    );
    assert!(
        finding.explanation.contains("to wait for T1"),
        "{}",
        finding.explanation
    );
    // It waited and resumed after T1's COMMIT.
    let waited = history(
        &case,
        &[0, 0, 1, 0, 1, 1],
        vec![(at(0, 1), affected(1)), (at(1, 1), affected(1))],
        vec![(at(1, 1), 3)],
        committed(),
        vec![r(&[1, 7], 1), r(&[2, 2], 2)],
    );
    assert_eq!(check(&mut o, &case, &waited), Verdict::Pass);
    // Another row: no conflict, no wait needed.
    let case = write_write(&mut o, update(vec![("c2", lit(7))], Some(eq("c1", 2))));
    let other_row = history(
        &case,
        &[0, 0, 1, 1, 0, 1],
        vec![(at(0, 1), affected(1)), (at(1, 1), affected(1))],
        vec![],
        committed(),
        vec![r(&[1, 5], 1), r(&[2, 7], 2)],
    );
    assert_eq!(check(&mut o, &case, &other_row), Verdict::Pass);
    // A plain read of the locked row takes no lock.
    let case = write_write(&mut o, select_where(eq("c1", 1), RowLock::None));
    let read = history(
        &case,
        &[0, 0, 1, 1, 0, 1],
        vec![
            (at(0, 1), affected(1)),
            (at(1, 1), result(&case, vec![r(&[1, 1], 1)])),
        ],
        vec![],
        committed(),
        vec![r(&[1, 5], 1), r(&[2, 2], 2)],
    );
    assert_eq!(check(&mut o, &case, &read), Verdict::Pass);
    // A locking read of it must wait.
    let case = write_write(&mut o, select_where(eq("c1", 1), RowLock::ForShare));
    let shared = history(
        &case,
        &[0, 0, 1, 1, 0, 1],
        vec![
            (at(0, 1), affected(1)),
            (at(1, 1), result(&case, vec![r(&[1, 1], 1)])),
        ],
        vec![],
        committed(),
        vec![r(&[1, 5], 1), r(&[2, 2], 2)],
    );
    let finding = expect_finding(check(&mut o, &case, &shared));
    assert_eq!(
        finding.title,
        "Troc: missing lock at `T2.2` (SELECT FOR SHARE, read-committed)"
    );
}

#[test]
fn a_stale_writer_in_sqlite_is_found() {
    let mut o = oracle(sqlite());
    let case = two_rows(
        &mut o,
        txn(
            SER,
            vec![
                Statement::Begin,
                select_all(),
                update(vec![("c2", lit(3))], Some(eq("c1", 2))),
                Statement::Commit,
            ],
        ),
        txn(
            SER,
            vec![
                Statement::Begin,
                update(vec![("c2", lit(9))], Some(eq("c1", 1))),
                Statement::Commit,
            ],
        ),
        &[0, 0, 1, 1, 1, 0, 0],
    );
    let read = (at(0, 1), result(&case, vec![r(&[1, 1], 1), r(&[2, 2], 2)]));
    let stale = history(
        &case,
        &[0, 0, 1, 1, 1, 0, 0],
        vec![
            read.clone(),
            (at(1, 1), affected(1)),
            (at(0, 2), affected(1)),
        ],
        vec![],
        committed(),
        vec![r(&[1, 9], 1), r(&[2, 3], 2)],
    );
    let finding = expect_finding(check(&mut o, &case, &stale));
    assert_eq!(
        finding.title,
        "Troc: missing abort at `T1.3` (UPDATE, serializable)"
    );
    let busy = history(
        &case,
        &[0, 0, 1, 1, 1, 0],
        vec![
            read,
            (at(1, 1), affected(1)),
            (
                at(0, 2),
                error(ErrorClass::SerializationFailure, ErrorScope::Transaction),
            ),
        ],
        vec![],
        vec![
            TxnEnd::Aborted {
                by: at(0, 2),
                class: ErrorClass::SerializationFailure,
            },
            TxnEnd::Committed,
        ],
        vec![r(&[1, 9], 1), r(&[2, 2], 2)],
    );
    assert_eq!(check(&mut o, &case, &busy), Verdict::Pass);
}

#[test]
fn a_write_of_a_rolled_back_transaction_that_survives_is_found() {
    let mut o = oracle(innodb());
    let case = two_rows(
        &mut o,
        txn(
            RC,
            vec![Statement::Begin, insert(&[3, 3]), Statement::Rollback],
        ),
        txn(RC, vec![Statement::Begin, select_all(), Statement::Commit]),
        &[0, 0, 0, 1, 1, 1],
    );
    let run = |final_rows| {
        history(
            &case,
            &[0, 0, 0, 1, 1, 1],
            vec![
                (at(0, 1), affected(1)),
                (at(1, 1), result(&case, vec![r(&[1, 1], 1), r(&[2, 2], 2)])),
            ],
            vec![],
            vec![TxnEnd::RolledBack, TxnEnd::Committed],
            final_rows,
        )
    };
    assert_eq!(
        check(&mut o, &case, &run(vec![r(&[1, 1], 1), r(&[2, 2], 2)])),
        Verdict::Pass
    );
    let finding = expect_finding(check(
        &mut o,
        &case,
        &run(vec![r(&[1, 1], 1), r(&[2, 2], 2), r(&[3, 3], 3)]),
    ));
    assert!(
        finding
            .explanation
            .contains("- only in the real run: (3, 3, 3)"),
        "{}",
        finding.explanation
    );
}
