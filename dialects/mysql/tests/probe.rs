//! The `SHOW ENGINE INNODB STATUS` parser on output captured from MariaDB 10.11.19,
//! and the `mariadb` dialect reading its lock probe with it, through the ABI.

use txlab_loader::DialectHandle;
use txlab_mysql::{innodb_status_waits, MariadbDialect, MysqlDialect};
use txlab_plugin_api::ir::{LockProbeReading, Value};

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

/// `SHOW ENGINE INNODB STATUS` as the host's monitor connection receives it.
fn status_reading(session: &str, status: &str) -> LockProbeReading {
    LockProbeReading {
        session: session.into(),
        columns: vec!["Type".into(), "Name".into(), "Status".into()],
        rows: vec![vec![
            Value::Text("InnoDB".into()),
            Value::Text(String::new()),
            Value::Text(status.into()),
        ]],
    }
}

#[test]
fn the_mariadb_dialect_reads_its_probe_through_the_abi() {
    let mariadb = DialectHandle::from_plugin::<MariadbDialect>("{}").unwrap();
    let read = |session, status| mariadb.read_lock_probe(&status_reading(session, status));
    assert_eq!(read("142", LOCK_WAIT).unwrap(), Some(true));
    assert_eq!(read("141", LOCK_WAIT).unwrap(), Some(false));
    assert_eq!(read("146", AFTER_DEADLOCK).unwrap(), Some(false));
    let mut empty = status_reading("142", LOCK_WAIT);
    empty.rows.clear();
    assert_eq!(mariadb.read_lock_probe(&empty).unwrap(), None);
}

#[test]
fn the_mysql_dialect_reads_its_count_of_waits() {
    let mysql = DialectHandle::from_plugin::<MysqlDialect>("{}").unwrap();
    let count = |n| LockProbeReading {
        session: "142".into(),
        columns: vec!["COUNT(*)".into()],
        rows: vec![vec![Value::Int(n)]],
    };
    assert_eq!(mysql.read_lock_probe(&count(1)).unwrap(), Some(true));
    assert_eq!(mysql.read_lock_probe(&count(0)).unwrap(), Some(false));
}
