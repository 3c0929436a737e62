//! A transaction that begins with START TRANSACTION WITH CONSISTENT SNAPSHOT
//! takes its snapshot at BEGIN, not at its first read as InnoDB's REPEATABLE
//! READ otherwise does: Troc's model follows the statement.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

/// T2 begins (`begin`), T1 then sets row 1 to 7 and commits, and T2 reads
/// every row, seeing `seen` in row 1.
fn read_after_a_commit(begin: Statement, seen: i64) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t2(true);
    let order = [1, 0, 0, 0, 1, 1];
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
            txn(RR, vec![begin, select_all(), Statement::Commit]),
        ],
        &order,
    );
    let history = history(
        &case,
        &order,
        vec![
            (at(0, 1), affected(1)),
            (at(1, 1), result(&case, vec![r(&[1, seen], 1)])),
        ],
        vec![],
        committed(),
        vec![r(&[1, 7], 1)],
    );
    (case, history)
}

#[test]
fn a_snapshot_taken_at_begin_hides_a_later_commit() {
    let (case, history) = read_after_a_commit(Statement::BeginSnapshot, 1);
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
    let (case, history) = read_after_a_commit(Statement::BeginSnapshot, 7);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
}

#[test]
fn a_plain_begin_leaves_the_snapshot_to_the_first_read() {
    let (case, history) = read_after_a_commit(Statement::Begin, 7);
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
    let (case, history) = read_after_a_commit(Statement::Begin, 1);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
}
