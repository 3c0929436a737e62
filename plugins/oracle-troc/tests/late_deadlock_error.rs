//! A deadlock victim's error that arrives after the survivor's reply.
//!
//! MySQL 8.0.18 and later find deadlocks in a background thread: the
//! statement that closes a wait cycle waits visibly until a victim is chosen;
//! the victim's own thread then rolls its transaction back, which releases
//! its locks and lets the waiting statement go on, and only then sends its
//! error. The survivor's reply usually reaches the client first, often
//! followed by its next statements or its COMMIT. The victim's rollback came
//! before the survivor went on (MySQL manual, innodb-deadlock-detection:
//! "InnoDB automatically detects transaction deadlocks and rolls back a
//! transaction or transactions to break the deadlock"), so the oracle walks
//! the victim's abort just before the statement that waited, and never that
//! statement past its own transaction's later statements.
//!
//! The recorded histories (`data/mysql9/`) are the cases and histories of
//! txlab runs on MySQL 9.7.4 (configs/troc-mariadb.toml with dialect mysql,
//! 1000 cases per seed, 2026-12-02), each checked with the mysql dialect's
//! profile: before this rule three were undecided ("a statement completed
//! after its transaction had ended") and four were false findings.

mod common;

use common::recorded::{check_recorded, recorded};
use common::*;
use txlab_plugin_api::prelude::*;

fn labels(order: &[StatementRef]) -> Vec<String> {
    order.iter().map(ToString::to_string).collect()
}

/// The completion order of `history` with `moved` taken out and put before
/// `before`.
fn moved_before(history: &History, moved: &str, before: &str) -> Vec<String> {
    let mut order = labels(&history.completion_order);
    let from = order.iter().position(|l| l == moved).unwrap();
    let label = order.remove(from);
    let to = order.iter().position(|l| l == before).unwrap();
    order.insert(to, label);
    order
}

/// Seed 1, case 947 (READ COMMITTED): T1.6 `REPLACE` closes the cycle with
/// T2.5 `DELETE`, waits, and replies once T2 is rolled back; T1 sends its
/// COMMIT, and T2.5's deadlock error arrives while that is in flight (the
/// executor recorded it after the COMMIT). T1.6 was walked after its own
/// COMMIT: "a statement completed after its transaction had ended".
#[test]
fn the_victims_error_after_the_survivors_commit_is_judged() {
    let (case, history) = recorded("s1-c947");
    assert_eq!(
        labels(&history.completion_order[history.completion_order.len() - 3..]),
        ["T1.6", "T1.7", "T2.5"]
    );
    assert!(history
        .record(StatementRef::new(0, 5))
        .unwrap()
        .blocked
        .is_some());
    assert_eq!(check_recorded(&case, &history), Verdict::Pass);
}

/// Seed 2, case 98 (READ COMMITTED): T1.4's deadlock error arrived before T2
/// sent its COMMIT, but the executor held it behind the COMMIT.
#[test]
fn the_victims_error_held_behind_the_survivors_commit_is_judged() {
    let (case, history) = recorded("s2-c98");
    assert_eq!(
        labels(&history.completion_order[history.completion_order.len() - 3..]),
        ["T2.4", "T2.5", "T1.4"]
    );
    assert_eq!(check_recorded(&case, &history), Verdict::Pass);
}

/// Seed 3, case 276 (SERIALIZABLE): T1.4, a locking read, resumed; T1 ran
/// two INSERTs (T1.5, T1.6) before T2.2's deadlock error arrived, and then
/// its ROLLBACK (the executor recorded the error after the ROLLBACK). The
/// replies really came in this order: only the oracle can put the abort
/// before the statement that waited.
#[test]
fn the_survivors_next_statements_before_the_victims_error_are_judged() {
    let (case, history) = recorded("s3-c276");
    assert_eq!(
        labels(&history.completion_order[history.completion_order.len() - 5..]),
        ["T1.4", "T1.5", "T1.6", "T1.7", "T2.2"]
    );
    assert_eq!(check_recorded(&case, &history), Verdict::Pass);
}

/// Four findings of those runs were false: the statement that waited was
/// walked after its own transaction's later statements, so it ran on a view
/// that already held their writes (414: T2.2 after T2.3's UPDATE, 3 rows
/// expected where 4 is right) or they ran on a view without its write.
#[test]
fn statements_the_survivor_ran_before_the_victims_error_are_no_findings() {
    for (name, waited, victim) in [
        ("s2-c414", "T2.2", "T1.3"),
        ("s2-c469", "T1.5", "T2.3"),
        ("s3-c994", "T2.6", "T1.3"),
        ("s4-c165", "T1.2", "T2.3"),
    ] {
        let (case, history) = recorded(name);
        let walked = moved_before(&history, victim, waited);
        let verdict = check_recorded(&case, &history);
        assert_eq!(verdict, Verdict::Pass, "{name}, walked as {walked:?}");
    }
}

/// Replies in the order MySQL's late victim gives: T1.3 T1.4 T2.3 T1.5.
const ERROR_AFTER_READ: &[usize] = &[0, 1, 1, 0, 0, 0, 1, 0];
/// T1.3 T1.4 T1.5 T2.3: the error after the survivor's COMMIT.
const ERROR_AFTER_COMMIT: &[usize] = &[0, 1, 1, 0, 0, 0, 0, 1];
/// T2.3 T1.3 T1.4 T1.5: the error first, as MariaDB sends it.
const ERROR_FIRST: &[usize] = &[0, 1, 1, 0, 1, 0, 0, 0];

/// T1 and T2 update rows 2 and 1, then each the other's row: T2.3 waits for
/// T1, T1.3 closes the cycle and waits for T2, T2 is the victim. The replies
/// come in `completion` order; T1.4, T1's SELECT, returns `t1_read`.
fn victim_error_around_survivor(
    completion: &[usize],
    t1_read: Vec<Vec<Value>>,
) -> (TestCase, History) {
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
                    select_all(),
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
        &[0, 1, 1, 0, 1, 0, 0, 0, 1],
    );
    let history = history(
        &case,
        completion,
        vec![
            (at(1, 1), affected(1)),
            (at(0, 1), affected(1)),
            (at(0, 2), affected(1)),
            (at(0, 3), result(&case, t1_read)),
            (
                at(1, 2),
                error(ErrorClass::Deadlock, ErrorScope::Transaction),
            ),
        ],
        // T2.3, then T1.3, sent after T1.2 replied; both waited.
        vec![(at(1, 2), 4), (at(0, 2), 4)],
        vec![
            TxnEnd::Committed,
            TxnEnd::Aborted {
                by: at(1, 2),
                class: ErrorClass::Deadlock,
            },
        ],
        vec![r(&[1, 10], 1), r(&[2, 20], 2)],
    );
    (case, history)
}

fn t1_read_after_its_writes() -> Vec<Vec<Value>> {
    vec![r(&[1, 10], 1), r(&[2, 20], 2)]
}

#[test]
fn the_victims_error_after_the_survivors_commit_puts_the_abort_first() {
    let (case, history) =
        victim_error_around_survivor(ERROR_AFTER_COMMIT, t1_read_after_its_writes());
    assert_eq!(
        labels(&history.completion_order),
        ["T1.1", "T2.1", "T2.2", "T1.2", "T1.3", "T1.4", "T1.5", "T2.3"]
    );
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
}

#[test]
fn the_survivors_read_before_the_victims_error_sees_its_own_write() {
    let (case, history) =
        victim_error_around_survivor(ERROR_AFTER_READ, t1_read_after_its_writes());
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
}

/// A read that the walk's order does not explain is still a finding, and the
/// report shows the order the walk used beside the order of the replies.
#[test]
fn a_finding_shows_the_order_the_walk_used() {
    let wrong = vec![r(&[1, 1], 1), r(&[2, 20], 2)];
    let (case, history) = victim_error_around_survivor(ERROR_AFTER_READ, wrong);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(
        finding
            .title
            .contains("inconsistent query result at `T1.4`"),
        "{}",
        finding.title
    );
    assert!(
        finding.explanation.contains(
            "**Execution order:** T1.1 T2.1 T2.2 T1.2 T2.3(waited) T1.3(waited) T1.4 T1.5\n"
        ),
        "{}",
        finding.explanation
    );
    assert!(
        finding.explanation.contains(
            "The replies arrived in another order: T1.1 T2.1 T2.2 T1.2 T1.3(waited) T1.4 T2.3(waited) T1.5."
        ),
        "{}",
        finding.explanation
    );
    assert_eq!(
        finding.evidence["execution_order"],
        serde_json::json!(["T1.1", "T2.1", "T2.2", "T1.2", "T2.3", "T1.3", "T1.4", "T1.5"])
    );
    assert_eq!(
        finding.evidence["completion_order"],
        serde_json::json!(["T1.1", "T2.1", "T2.2", "T1.2", "T1.3", "T1.4", "T2.3", "T1.5"])
    );
}

/// Where the walk keeps the completion order, the report shows it once.
#[test]
fn a_finding_in_completion_order_shows_it_once() {
    let wrong = vec![r(&[1, 1], 1), r(&[2, 20], 2)];
    let (case, history) = victim_error_around_survivor(ERROR_FIRST, wrong);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(
        finding.explanation.contains(
            "**Execution order:** T1.1 T2.1 T2.2 T1.2 T2.3(waited) T1.3(waited) T1.4 T1.5\n"
        ),
        "{}",
        finding.explanation
    );
    assert!(
        !finding
            .explanation
            .contains("The replies arrived in another order"),
        "{}",
        finding.explanation
    );
    assert!(finding.evidence.get("completion_order").is_none());
}

/// Both COMMITs shown waiting (a lock-wait probe that named the wrong
/// session), each replying while the other was in flight: neither released
/// the other, and their order is unknown. Before, the walk moved them past
/// each other for ever.
#[test]
fn two_ends_that_waited_for_each_other_are_undecided() {
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
                    update(vec![("c2", lit(10))], Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
            txn(
                RC,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(20))], Some(eq("c1", 2))),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 1, 0, 1, 0, 1],
    );
    let history = history(
        &case,
        &[0, 1, 0, 1, 0, 1],
        vec![(at(0, 1), affected(1)), (at(1, 1), affected(1))],
        vec![(at(0, 2), 4), (at(1, 2), 4)],
        committed(),
        vec![r(&[1, 10], 1), r(&[2, 20], 2)],
    );
    let reason = expect_undecided(check(&mut oracle(innodb()), &case, &history));
    assert!(
        reason.starts_with(
            "two statements that ended their transactions waited and each replied while the other was running"
        ),
        "{reason}"
    );
}
