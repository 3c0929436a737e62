//! InnoDB behaviours seen on MariaDB 10.11 that are not bugs: a shared locking
//! read through a covering secondary index locks index records only, a dirty
//! read sees the rows a waiting UPDATE changed before it waited, a read that
//! does not touch the table takes no snapshot, and REPLACE updates a row in
//! place. The dialect declares each as an engine fact; the same histories
//! without the condition that explains them, or on a dialect that declares
//! the fact the other way, stay findings.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

/// InnoDB with one engine fact changed.
fn innodb_except(change: impl FnOnce(&mut EngineSemantics)) -> DialectInfo {
    let mut engine = innodb_engine();
    change(&mut engine);
    innodb_with(engine)
}

/// `t(c1 INT PRIMARY KEY, c2 INT, c3 INT)`, with UNIQUE (c2) when `unique_c2`.
fn t3(unique_c2: bool) -> Table {
    Table {
        name: "t".into(),
        columns: ["c1", "c2", "c3"]
            .iter()
            .map(|n| Column {
                name: n.to_string(),
                ty: ColumnType::Int,
                not_null: false,
            })
            .collect(),
        primary_key: vec!["c1".into()],
        unique: if unique_c2 {
            vec![vec!["c2".into()]]
        } else {
            vec![]
        },
        indexes: vec![],
    }
}

fn select_c1_c2_for_share() -> Statement {
    Statement::Select(Select {
        table: "t".into(),
        projection: Projection::Exprs(vec![Expr::column("c1"), Expr::column("c2")]),
        filter: None,
        order_by: vec![],
        lock: RowLock::ForShare,
    })
}

/// T1 reads (c1, c2) FOR SHARE; T2 then updates c3 of the row at once.
fn share_then_update(unique_c2: bool) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t3(unique_c2);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(9), int(0)]])],
        vec![
            txn(
                SER,
                vec![
                    Statement::Begin,
                    select_c1_c2_for_share(),
                    Statement::Commit,
                ],
            ),
            txn(
                SER,
                vec![
                    Statement::Begin,
                    update(vec![("c3", lit(5))], None),
                    Statement::Commit,
                ],
            ),
        ],
        &[1, 0, 0, 1, 1, 0],
    );
    let history = history(
        &case,
        &[1, 0, 0, 1, 1, 0],
        vec![
            (
                at(0, 1),
                Outcome::Rows {
                    columns: vec!["c1".into(), "c2".into()],
                    rows: vec![vec![int(1), int(9)]],
                },
            ),
            (at(1, 1), affected(1)),
        ],
        vec![],
        committed(),
        vec![r(&[1, 9, 5], 1)],
    );
    (case, history)
}

#[test]
fn a_shared_lock_a_covering_index_may_have_taken_predicts_no_wait() {
    let (case, history) = share_then_update(true);
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
    // Without an index that covers the read, the lock is on the row itself.
    let (case, history) = share_then_update(false);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("missing lock"), "{}", finding.title);
    // A dialect whose FOR SHARE always locks the rows (PostgreSQL).
    let rows_locked = innodb_except(|e| e.shared_reads_may_lock_only_a_covering_index = false);
    let (case, history) = share_then_update(true);
    let finding = expect_finding(check(&mut oracle(rows_locked), &case, &history));
    assert!(finding.title.contains("missing lock"), "{}", finding.title);
}

/// T1 updates row 2 and then reads everything at READ UNCOMMITTED; T2's
/// UPDATE of every row, sent after T1's UPDATE, changed row 1 and waits for
/// row 2. T1's read sees row 1 as T2 left it. `sent_after` is the completion
/// position after which T2's UPDATE was sent.
fn dirty_read_of_a_waiting_update(sent_after: usize) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t2(true);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)], vec![int(2), int(2)]])],
        vec![
            txn(
                RU,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(5))], Some(eq("c1", 2))),
                    select_all(),
                    Statement::Commit,
                ],
            ),
            txn(
                RU,
                vec![
                    Statement::Begin,
                    update(
                        vec![(
                            "c2",
                            Expr::binary(BinaryOp::Add, Expr::column("c2"), lit(1)),
                        )],
                        None,
                    ),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 1, 0, 1, 0, 0, 1],
    );
    let history = history(
        &case,
        &[0, 1, 0, 0, 0, 1, 1],
        vec![
            (at(0, 1), affected(1)),
            (at(0, 2), result(&case, vec![r(&[1, 2], 1), r(&[2, 5], 2)])),
            (at(1, 1), affected(2)),
        ],
        vec![(at(1, 1), sent_after)],
        committed(),
        vec![r(&[1, 2], 1), r(&[2, 6], 2)],
    );
    (case, history)
}

#[test]
fn a_dirty_read_during_a_waiting_update_is_undecided() {
    let (case, history) = dirty_read_of_a_waiting_update(3);
    let reason = expect_undecided(check(&mut oracle(innodb()), &case, &history));
    assert!(reason.contains("waiting for a lock"), "{reason}");
    // Sent only after the read: nothing of it can have been seen.
    let (case, history) = dirty_read_of_a_waiting_update(4);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
    // A dialect whose dirty reads never see part of a waiting write.
    let whole = innodb_except(|e| e.dirty_reads_see_partial_writes = false);
    let (case, history) = dirty_read_of_a_waiting_update(3);
    let finding = expect_finding(check(&mut oracle(whole), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
}

/// T2 reads nothing (`c2 IS NULL`), T1 then changes row 1 and commits, and T2
/// reads everything, seeing `seen` in row 1.
fn read_after_an_empty_first_read(seen: i64) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t2(true);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(7))], Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
            txn(
                RR,
                vec![
                    Statement::Begin,
                    select_where(
                        Expr::IsNull {
                            operand: Box::new(Expr::column("c2")),
                            negated: false,
                        },
                        RowLock::None,
                    ),
                    select_all(),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 1, 1, 0, 0, 1, 1],
    );
    let history = history(
        &case,
        &[0, 1, 1, 0, 0, 1, 1],
        vec![
            (at(1, 1), result(&case, vec![])),
            (at(0, 1), affected(1)),
            (at(1, 2), result(&case, vec![r(&[1, seen], 1)])),
        ],
        vec![],
        committed(),
        vec![r(&[1, 7], 1)],
    );
    (case, history)
}

#[test]
fn a_read_that_sees_a_later_snapshot_than_its_first_read_is_vendor_defined() {
    // An empty first read the optimizer may answer without the table.
    let (case, history) = read_after_an_empty_first_read(7);
    let reason = expect_undecided(check(&mut oracle(innodb()), &case, &history));
    assert!(reason.contains("impossible WHERE"), "{reason}");
    // The snapshot of the first read: as the profile says.
    let (case, history) = read_after_an_empty_first_read(1);
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
    // Neither snapshot explains it.
    let (case, history) = read_after_an_empty_first_read(3);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
    // A dialect whose every read takes the snapshot (SQLite).
    let any_read = innodb_except(|e| e.first_read_snapshot_needs_table_access = false);
    let (case, history) = read_after_an_empty_first_read(7);
    let finding = expect_finding(check(&mut oracle(any_read), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
}

/// T2 updates row 1, then waits for row 2, which T1 updated. T1's update of
/// row 1 makes a deadlock: the server rolls T2 back and T1 goes on without
/// waiting; T2's deadlock error reaches the client only after T1's COMMIT.
/// With `victim = false` the same T2 is no victim: its wait ends after T1's
/// COMMIT and it commits, so T1's update of row 1 went through T2's lock.
fn deadlock_victims_error_arrives_late(victim: bool) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t2(true);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)], vec![int(2), int(2)]])],
        vec![
            txn(
                RC,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(20))], Some(eq("c1", 2))),
                    update(vec![("c2", lit(10))], Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
            txn(
                RC,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(11))], Some(eq("c1", 1))),
                    update(vec![("c2", lit(21))], Some(eq("c1", 2))),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 1, 1, 0, 1, 0, 0, 1],
    );
    let (completion, t2_update, t2_end, final_rows) = if victim {
        (
            vec![0, 1, 1, 0, 0, 0, 1],
            error(ErrorClass::Deadlock, ErrorScope::Transaction),
            TxnEnd::Aborted {
                by: at(1, 2),
                class: ErrorClass::Deadlock,
            },
            vec![r(&[1, 10], 1), r(&[2, 20], 2)],
        )
    } else {
        (
            vec![0, 1, 1, 0, 0, 0, 1, 1],
            affected(1),
            TxnEnd::Committed,
            vec![r(&[1, 10], 1), r(&[2, 21], 2)],
        )
    };
    let history = history(
        &case,
        &completion,
        vec![
            (at(1, 1), affected(1)),
            (at(0, 1), affected(1)),
            (at(0, 2), affected(1)),
            (at(1, 2), t2_update),
        ],
        vec![(at(1, 2), 4)],
        vec![TxnEnd::Committed, t2_end],
        final_rows,
    );
    (case, history)
}

#[test]
fn a_deadlock_victims_late_error_does_not_make_a_missing_lock() {
    let (case, history) = deadlock_victims_error_arrives_late(true);
    let verdict = check(&mut oracle(innodb()), &case, &history);
    assert!(!matches!(&verdict, Verdict::Finding(_)), "{verdict:?}");
    let (case, history) = deadlock_victims_error_arrives_late(false);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(
        finding.title.contains("missing lock at `T1.3`"),
        "{}",
        finding.title
    );
}

/// T2 locks every row FOR UPDATE; T1 then reads (c1, c2) FOR SHARE at once.
fn update_lock_then_share(unique_c2: bool) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t3(unique_c2);
    let for_update = Statement::Select(Select {
        table: "t".into(),
        projection: Projection::All,
        filter: None,
        order_by: vec![],
        lock: RowLock::ForUpdate,
    });
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(9), int(0)]])],
        vec![
            txn(
                RC,
                vec![
                    Statement::Begin,
                    select_c1_c2_for_share(),
                    Statement::Commit,
                ],
            ),
            txn(RC, vec![Statement::Begin, for_update, Statement::Commit]),
        ],
        &[0, 1, 1, 0, 0, 1],
    );
    let history = history(
        &case,
        &[0, 1, 1, 0, 0, 1],
        vec![
            (at(1, 1), result(&case, vec![r(&[1, 9, 0], 1)])),
            (
                at(0, 1),
                Outcome::Rows {
                    columns: vec!["c1".into(), "c2".into()],
                    rows: vec![vec![int(1), int(9)]],
                },
            ),
        ],
        vec![],
        committed(),
        vec![r(&[1, 9, 0], 1)],
    );
    (case, history)
}

#[test]
fn a_shared_read_a_covering_index_may_answer_need_not_wait_for_a_row_lock() {
    let (case, history) = update_lock_then_share(true);
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
    let (case, history) = update_lock_then_share(false);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("missing lock"), "{}", finding.title);
    let rows_locked = innodb_except(|e| e.shared_reads_may_lock_only_a_covering_index = false);
    let (case, history) = update_lock_then_share(true);
    let finding = expect_finding(check(&mut oracle(rows_locked), &case, &history));
    assert!(finding.title.contains("missing lock"), "{}", finding.title);
}

/// T2 reads nothing (`c2 IS NULL`), then row 2 (`c1 = 2`), then everything,
/// seeing row 1 as T1 committed it. T1 commits before T2's second read when
/// `commit_first`, else after it.
fn reads_around_a_commit(commit_first: bool) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t2(true);
    let is_null = Expr::IsNull {
        operand: Box::new(Expr::column("c2")),
        negated: false,
    };
    let submitted: &[usize] = if commit_first {
        &[0, 1, 1, 0, 0, 1, 1, 1]
    } else {
        &[0, 1, 1, 0, 1, 0, 1, 1]
    };
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)], vec![int(2), int(2)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(7))], Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
            txn(
                RR,
                vec![
                    Statement::Begin,
                    select_where(is_null, RowLock::None),
                    select_where(eq("c1", 2), RowLock::None),
                    select_all(),
                    Statement::Commit,
                ],
            ),
        ],
        submitted,
    );
    let history = history(
        &case,
        submitted,
        vec![
            (at(1, 1), result(&case, vec![])),
            (at(0, 1), affected(1)),
            (at(1, 2), result(&case, vec![r(&[2, 2], 2)])),
            (at(1, 3), result(&case, vec![r(&[1, 7], 1), r(&[2, 2], 2)])),
        ],
        vec![],
        committed(),
        vec![r(&[1, 7], 1), r(&[2, 2], 2)],
    );
    (case, history)
}

#[test]
fn the_snapshot_may_come_from_the_first_read_that_returned_rows() {
    let (case, history) = reads_around_a_commit(true);
    let reason = expect_undecided(check(&mut oracle(innodb()), &case, &history));
    assert!(reason.contains("vendor-defined"), "{reason}");
    // That read came before T1's commit: the later read must not see it.
    let (case, history) = reads_around_a_commit(false);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(
        finding.title.contains("query result at `T2.4`"),
        "{}",
        finding.title
    );
    let any_read = innodb_except(|e| e.first_read_snapshot_needs_table_access = false);
    let (case, history) = reads_around_a_commit(true);
    let finding = expect_finding(check(&mut oracle(any_read), &case, &history));
    assert!(
        finding.title.contains("query result at `T2.4`"),
        "{}",
        finding.title
    );
}

/// T1 reads row 1; T2 REPLACEs key `key` and commits; T1 deletes every row
/// and reads the table, seeing `seen`.
fn replace_then_delete(key: i64, deleted: u64, seen: Vec<Vec<Value>>) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t2(true);
    let replace = Statement::Insert(Insert {
        table: "t".into(),
        columns: vec!["c1".into(), "c2".into()],
        rows: vec![vec![lit(key), lit(9)]],
        on_conflict: OnConflict::Replace,
    });
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    select_all(),
                    delete(None),
                    select_all(),
                    Statement::Commit,
                ],
            ),
            txn(RR, vec![Statement::Begin, replace, Statement::Commit]),
        ],
        &[1, 0, 0, 1, 1, 0, 0, 0],
    );
    let replaced = if key == 1 { 2 } else { 1 };
    let history = history(
        &case,
        &[1, 0, 0, 1, 1, 0, 0, 0],
        vec![
            (at(0, 1), result(&case, vec![r(&[1, 1], 1)])),
            (at(1, 1), affected(replaced)),
            (at(0, 2), affected(deleted)),
            (at(0, 3), result(&case, seen)),
        ],
        vec![],
        committed(),
        vec![],
    );
    (case, history)
}

#[test]
fn row_identity_after_a_replace_of_an_existing_row_is_vendor_defined() {
    // InnoDB replaced row 1 in place: T1's delete removed it from its own view.
    let (case, history) = replace_then_delete(1, 1, vec![]);
    let reason = expect_undecided(check(&mut oracle(innodb()), &case, &history));
    assert!(reason.contains("REPLACE"), "{reason}");
    // A REPLACE of a new key replaces nothing: the usual rules apply.
    let (case, history) = replace_then_delete(5, 2, vec![]);
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
    let (case, history) = replace_then_delete(5, 2, vec![r(&[1, 1], 1)]);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
    // A dialect whose REPLACE deletes the row and inserts another (SQLite):
    // T1's snapshot still shows the row T2 deleted.
    let delete_insert = innodb_except(|e| e.replace_may_update_in_place = false);
    let (case, history) = replace_then_delete(1, 1, vec![]);
    let finding = expect_finding(check(&mut oracle(delete_insert), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
}
