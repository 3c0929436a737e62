//! How the host learns that a session waits for a row lock, per flavor.

use crate::flavor::Flavor;
use txlab_plugin_api::prelude::*;

/// MySQL 8.4 and 9: `performance_schema.data_lock_waits` lists every InnoDB
/// lock request that another lock blocks, with the transaction that requested
/// it, `REQUESTING_ENGINE_TRANSACTION_ID`
/// (https://dev.mysql.com/doc/refman/8.4/en/performance-schema-data-lock-waits-table.html,
/// https://dev.mysql.com/doc/refman/9.7/en/performance-schema-data-lock-waits-table.html).
///
/// The session is found through its transaction, not through
/// `REQUESTING_THREAD_ID`: that column is the Performance Schema thread that
/// created the lock struct (InnoDB's `lock_t::m_psi_internal_thread_id`, set
/// to the current thread when a lock is created), and when another session
/// moves a record that has waiting lock requests on it (an UPDATE that makes
/// the row longer, a rollback, a page reorganisation) InnoDB creates those
/// requests anew in that session's thread. From then on the blocker is named
/// as the requester and the waiter not at all: on MySQL 9.7.4 a blocker that
/// updated the row its waiter waited for again, with a longer value, was
/// shown waiting and the waiter not, every time (`tests/probe_mysql9.rs`).
/// Table locks do not move: a transaction's IS or IX lock on a table, which
/// it takes in its own thread (InnoDB's `lock_table()`) before any row lock
/// in that table, and a table lock it waits for, are listed in
/// `performance_schema.data_locks` with the transaction that owns them
/// (`ENGINE_TRANSACTION_ID`) and the thread that created them (`THREAD_ID`)
/// (https://dev.mysql.com/doc/refman/8.4/en/performance-schema-data-locks-table.html,
/// https://dev.mysql.com/doc/refman/9.7/en/performance-schema-data-locks-table.html).
/// `threads.PROCESSLIST_ID` is that thread's connection id, the value of
/// `CONNECTION_ID()`
/// (https://dev.mysql.com/doc/refman/8.4/en/performance-schema-threads-table.html,
/// https://dev.mysql.com/doc/refman/9.7/en/performance-schema-threads-table.html).
/// The count is that of the waiting requests of the session's transaction.
/// The tables read live lock-system state, with no cache in between;
/// `INFORMATION_SCHEMA.INNODB_TRX`, which names a transaction's connection,
/// is served from a buffer that InnoDB fills again only once 0.1 s have
/// passed since it was last read
/// (https://dev.mysql.com/doc/refman/8.4/en/innodb-information-schema-internal-data.html),
/// so a probe that polls it sees a frozen state.
const MYSQL_PROBE: &str = "SELECT COUNT(*) FROM performance_schema.data_lock_waits w \
     WHERE w.REQUESTING_ENGINE_TRANSACTION_ID IN (\
     SELECT l.ENGINE_TRANSACTION_ID FROM performance_schema.data_locks l \
     JOIN performance_schema.threads t ON t.THREAD_ID = l.THREAD_ID \
     WHERE l.LOCK_TYPE = 'TABLE' AND t.PROCESSLIST_ID = {session})";

/// TiDB: `TIDB_TRX` has one row per transaction of this TiDB node, with the
/// session it belongs to; its state is `LockWaiting` from the start of every
/// pessimistic lock operation, blocked or not
/// (https://docs.pingcap.com/tidb/stable/information-schema-tidb-trx). Joining
/// `DATA_LOCK_WAITS`, which TiKV fills only with lock requests that wait for another
/// transaction's lock (https://docs.pingcap.com/tidb/stable/information-schema-data-lock-waits),
/// keeps a lock that is being granted from counting as a wait. Both tables need the
/// PROCESS privilege, and `SESSION_ID` identifies a session only on the TiDB node the
/// monitor connection reaches.
const TIDB_PROBE: &str = "SELECT COUNT(*) FROM information_schema.tidb_trx t \
     JOIN information_schema.data_lock_waits w ON w.TRX_ID = t.ID \
     WHERE t.SESSION_ID = {session} AND t.STATE = 'LockWaiting'";

/// How the host learns that a session of `flavor` waits for a lock, for
/// `DialectInfo::lock_probe`.
pub fn lock_probe(flavor: Flavor) -> LockProbe {
    match flavor {
        Flavor::Mysql => LockProbe::Query {
            sql: MYSQL_PROBE.to_string(),
        },
        // MariaDB has no data_lock_waits, and its information_schema.innodb_* tables
        // are served from a cache that refreshes only after 100 ms without readers,
        // so polling freezes it; SHOW ENGINE INNODB STATUS is live, and `read`
        // parses it.
        Flavor::Mariadb => LockProbe::Query {
            sql: INNODB_STATUS_SQL.to_string(),
        },
        Flavor::Tidb => LockProbe::Query {
            sql: TIDB_PROBE.to_string(),
        },
    }
}

/// Whether the probe's answer says that the session waits for a lock. MySQL's
/// and TiDB's queries count the session's waits, the generic reading; on
/// MariaDB the answer is `SHOW ENGINE INNODB STATUS`, whose `Status` text
/// [`innodb_status_waits`] reads for the connection id `reading.session`.
pub fn read(flavor: Flavor, reading: &LockProbeReading) -> Option<bool> {
    match flavor {
        Flavor::Mysql | Flavor::Tidb => reading.first_value_answer(),
        Flavor::Mariadb => {
            let session: u64 = reading.session.trim().parse().ok()?;
            let text = match reading.column("Status")?.next()? {
                Value::Text(text) => text.clone(),
                Value::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                _ => return None,
            };
            Some(innodb_status_waits(&text, session))
        }
    }
}

/// Whether the `Status` text of `SHOW ENGINE INNODB STATUS` lists the session with
/// connection id `thread_id` as waiting for a lock.
///
/// Only the TRANSACTIONS section counts: the LATEST DETECTED DEADLOCK section keeps
/// describing long-gone waits in the same words. There, each transaction starts with
/// a `---TRANSACTION` line; a waiting one has a line starting with `LOCK WAIT` and
/// names its session in a `MariaDB thread id N,` (`MySQL thread id N,` on MySQL)
/// line (https://dev.mysql.com/doc/refman/8.0/en/innodb-standard-monitor.html).
pub fn innodb_status_waits(text: &str, thread_id: u64) -> bool {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let Some(start) = section_start(&lines, "TRANSACTIONS") else {
        return false;
    };
    let end = (start..lines.len())
        .find(|&i| is_section_header(&lines, i))
        .unwrap_or(lines.len());
    let mut waiting = false;
    let mut session = None;
    for line in &lines[start..end] {
        if line.starts_with("---TRANSACTION") {
            if waiting && session == Some(thread_id) {
                return true;
            }
            waiting = false;
            session = None;
        } else if line.starts_with("LOCK WAIT") {
            waiting = true;
        } else if let Some(id) = session_of(line) {
            session = Some(id);
        }
    }
    waiting && session == Some(thread_id)
}

/// Section headers are a title between two lines of dashes.
fn is_section_header(lines: &[&str], title_at: usize) -> bool {
    let dashes = |i: usize| lines.get(i).is_some_and(|l| is_dashes(l));
    title_at > 0
        && dashes(title_at - 1)
        && dashes(title_at + 1)
        && lines[title_at]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase())
}

fn is_dashes(line: &str) -> bool {
    line.len() >= 3 && line.bytes().all(|b| b == b'-')
}

/// The index of the first line after the header of section `title`.
fn section_start(lines: &[&str], title: &str) -> Option<usize> {
    (1..lines.len())
        .find(|&i| lines[i] == title && is_section_header(lines, i))
        .map(|i| i + 2)
}

/// The connection id of a `MariaDB thread id N, …` or `MySQL thread id N, …` line.
fn session_of(line: &str) -> Option<u64> {
    let rest = line
        .strip_prefix("MariaDB thread id ")
        .or_else(|| line.strip_prefix("MySQL thread id "))?;
    let digits = rest.split(',').next()?;
    digits.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAITING: &str = "\
------------
TRANSACTIONS
------------
Trx id counter 617
LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 616, ACTIVE 1 sec starting index read
mysql tables in use 1, locked 1
LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)
MySQL thread id 42, OS thread handle 1403, query id 813 127.0.0.1 root updating
update t set v=v+2 where id=1
------- TRX HAS BEEN WAITING 3 SEC FOR THIS LOCK TO BE GRANTED:
------------------
---TRANSACTION 615, ACTIVE 2 sec
2 lock struct(s), heap size 1128, 1 row lock(s), undo log entries 1
MySQL thread id 4, OS thread handle 1404, query id 810 127.0.0.1 root
--------
FILE I/O
--------
";

    #[test]
    fn only_the_waiting_session_waits() {
        assert!(innodb_status_waits(WAITING, 42));
        // The holder, a prefix of the waiter's id, and an unknown session.
        assert!(!innodb_status_waits(WAITING, 4));
        assert!(!innodb_status_waits(WAITING, 420));
        assert!(!innodb_status_waits(WAITING, 7));
    }

    #[test]
    fn text_without_a_transactions_section_shows_no_wait() {
        assert!(!innodb_status_waits("", 42));
        assert!(!innodb_status_waits(
            "LOCK WAIT 2 lock struct(s)\nMySQL thread id 42, OS\n",
            42
        ));
    }

    fn status_reading(session: &str, status: Value) -> LockProbeReading {
        LockProbeReading {
            session: session.into(),
            columns: vec!["Type".into(), "Name".into(), "Status".into()],
            rows: vec![vec![
                Value::Text("InnoDB".into()),
                Value::Text(String::new()),
                status,
            ]],
        }
    }

    #[test]
    fn mariadb_reads_the_status_text_for_the_session() {
        let text = || Value::Text(WAITING.into());
        assert_eq!(
            read(Flavor::Mariadb, &status_reading("42", text())),
            Some(true)
        );
        assert_eq!(
            read(Flavor::Mariadb, &status_reading(" 42 ", text())),
            Some(true)
        );
        assert_eq!(
            read(Flavor::Mariadb, &status_reading("4", text())),
            Some(false)
        );
        // The driver may hand the text over as bytes.
        let bytes = Value::Bytes(WAITING.as_bytes().to_vec());
        assert_eq!(
            read(Flavor::Mariadb, &status_reading("42", bytes)),
            Some(true)
        );
    }

    #[test]
    fn mariadb_cannot_tell_without_a_status() {
        let text = || Value::Text(WAITING.into());
        // No row, no Status column, a session that is no connection id, a NULL.
        let mut empty = status_reading("42", text());
        empty.rows.clear();
        assert_eq!(read(Flavor::Mariadb, &empty), None);
        let mut unnamed = status_reading("42", text());
        unnamed.columns = vec!["a".into(), "b".into(), "c".into()];
        assert_eq!(read(Flavor::Mariadb, &unnamed), None);
        assert_eq!(read(Flavor::Mariadb, &status_reading("x", text())), None);
        assert_eq!(
            read(Flavor::Mariadb, &status_reading("42", Value::Null)),
            None
        );
    }

    #[test]
    fn mysql_and_tidb_read_the_count_of_waits() {
        let count = |n| LockProbeReading {
            session: "42".into(),
            columns: vec!["COUNT(*)".into()],
            rows: vec![vec![Value::Int(n)]],
        };
        for flavor in [Flavor::Mysql, Flavor::Tidb] {
            assert_eq!(read(flavor, &count(1)), Some(true));
            assert_eq!(read(flavor, &count(0)), Some(false));
            // The status text would be read as its first value, "InnoDB".
            assert_eq!(
                read(flavor, &status_reading("4", Value::Text(WAITING.into()))),
                Some(true)
            );
        }
    }

    /// MySQL's probe counts the waits of the session's transaction, found
    /// by its table locks, not by the thread that created the waiting lock.
    #[test]
    fn mysql_probes_by_the_sessions_transaction() {
        let LockProbe::Query { sql } = lock_probe(Flavor::Mysql) else {
            panic!("MySQL probes with a query");
        };
        assert!(sql.starts_with("SELECT COUNT(*) FROM performance_schema.data_lock_waits w "));
        assert!(
            sql.contains("w.REQUESTING_ENGINE_TRANSACTION_ID IN (SELECT l.ENGINE_TRANSACTION_ID FROM performance_schema.data_locks l "),
            "{sql}"
        );
        assert!(sql.contains("l.LOCK_TYPE = 'TABLE'"), "{sql}");
        assert!(sql.contains("t.THREAD_ID = l.THREAD_ID"), "{sql}");
        assert!(!sql.contains("REQUESTING_THREAD_ID"), "{sql}");
        assert_eq!(sql.matches("{session}").count(), 1, "{sql}");
        assert!(sql.ends_with("t.PROCESSLIST_ID = {session})"), "{sql}");
    }

    #[test]
    fn session_lines_of_both_servers_parse() {
        assert_eq!(
            session_of("MariaDB thread id 142, OS thread handle 1"),
            Some(142)
        );
        assert_eq!(session_of("MySQL thread id 7, OS thread handle 1"), Some(7));
        assert_eq!(session_of("mysql tables in use 1, locked 1"), None);
    }
}
