//! The `SHOW ENGINE INNODB STATUS` parser on output captured from MariaDB 10.11.19:
//! the host applies the same logic to decide whether a session waits for a lock.

use txlab_mysql::innodb_status_waits;

/// Connection 141 holds a row lock; connection 142's UPDATE waits for it.
const LOCK_WAIT: &str = include_str!("data/innodb-status-lock-wait.txt");

/// Right after a deadlock between connections 145 and 146: 146 was the victim and
/// waits for nothing, but the LATEST DETECTED DEADLOCK section still shows both
/// waiting; 145 runs on with its transaction open.
const AFTER_DEADLOCK: &str = include_str!("data/innodb-status-after-deadlock.txt");

#[test]
fn the_waiting_session_is_found() {
    assert!(innodb_status_waits(LOCK_WAIT, 142));
}

#[test]
fn the_holder_and_other_sessions_do_not_wait() {
    for id in [141, 14, 1420, 0, u64::MAX] {
        assert!(!innodb_status_waits(LOCK_WAIT, id), "{id}");
    }
}

#[test]
fn the_deadlock_report_is_not_a_current_wait() {
    assert!(AFTER_DEADLOCK.contains("LATEST DETECTED DEADLOCK"));
    assert!(AFTER_DEADLOCK.contains("MariaDB thread id 146"));
    for id in [145, 146] {
        assert!(!innodb_status_waits(AFTER_DEADLOCK, id), "{id}");
    }
}

#[test]
fn the_transactions_section_is_required() {
    // The same transaction lines outside any section header say nothing.
    let transactions = LOCK_WAIT
        .split("LIST OF TRANSACTIONS FOR EACH SESSION:")
        .nth(1)
        .unwrap();
    assert!(transactions.contains("MariaDB thread id 142"));
    assert!(!innodb_status_waits(transactions, 142));
    // Waits are attributed to the transaction they belong to, in any order.
    let reversed = LOCK_WAIT
        .replace("thread id 142", "thread id 999")
        .replace("thread id 141", "thread id 142");
    assert!(!innodb_status_waits(&reversed, 142));
    assert!(innodb_status_waits(&reversed, 999));
}
