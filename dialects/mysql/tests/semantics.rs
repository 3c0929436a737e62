//! The isolation facts the `mariadb` entry declares, checked against the live
//! MariaDB with both settings of innodb_snapshot_isolation, and the lock probe the
//! host relies on.

mod common;

use common::*;
use mysql::Conn;
use std::time::Duration;
use txlab_mysql::{innodb_status_waits, MariadbDialect};
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::dialect::render_at;
use txlab_testkit::keyed_table::set_v;

/// Long enough that a statement that waits is not mistaken for one that does not.
const BLOCK_LIMIT: Duration = Duration::from_secs(5);

/// One second of lock wait, for the checks where a wait must end in 1205.
const SHORT_WAIT: SessionLimits = SessionLimits {
    statement_timeout_ms: 10_000,
    lock_wait_timeout_ms: 1_000,
};

fn schema() -> Schema {
    Schema {
        tables: vec![table(
            "t",
            vec![
                col("id", ColumnType::Int),
                col("v", ColumnType::Varchar { len: 16 }),
            ],
            &["id"],
        )],
    }
}

/// `t` with rows (1, 'start') and (2, 'two').
fn database(tag: &str) -> Option<(LiveDb, Schema)> {
    let db = live_db(tag)?;
    let schema = schema();
    let dialect = mariadb(false);
    let mut conn = db.connect();
    let rows = insert(
        "t",
        &["id", "v"],
        vec![
            vec![Value::Int(1), Value::Text("start".into())],
            vec![Value::Int(2), Value::Text("two".into())],
        ],
        OnConflict::Error,
    );
    create_and_run(&mut conn, &dialect, &schema, &[rows]);
    Some((db, schema))
}

fn level_of(dialect: &MariadbDialect, level: IsolationLevel) -> LevelSemantics {
    dialect.info().level(level).unwrap().clone()
}

/// Renders at `level`, the level every statement of these tests runs at.
fn sql(dialect: &MariadbDialect, schema: &Schema, level: IsolationLevel, s: &Statement) -> String {
    render_at(dialect, schema, level, s).unwrap()
}

fn read_v(conn: &mut Conn, dialect: &MariadbDialect, schema: &Schema, id: i64) -> Value {
    let level = IsolationLevel::RepeatableRead;
    let rows = run_ok(
        conn,
        &sql(
            dialect,
            schema,
            level,
            &select("t", Some(eq(c("id"), int(id))), vec![]),
        ),
    );
    rows[0][1].clone()
}

fn text_value(v: &str) -> Value {
    Value::Text(v.into())
}

/// REPEATABLE READ: BEGIN, writes and locking reads do not take the snapshot; the
/// first consistent read does. The same with innodb_snapshot_isolation.
#[test]
fn repeatable_read_takes_the_snapshot_at_the_first_consistent_read() {
    let level = IsolationLevel::RepeatableRead;
    for snapshot_isolation in [false, true] {
        let dialect = mariadb(snapshot_isolation);
        assert_eq!(level_of(&dialect, level).snapshot, SnapshotPoint::FirstRead);
        let Some((db, schema)) = database("firstread") else {
            return;
        };
        let mut a = db.session(&dialect, level);
        let mut b = db.session(&dialect, level);
        run_ok(&mut a, &sql(&dialect, &schema, level, &Statement::Begin));
        run_ok(
            &mut b,
            &sql(&dialect, &schema, level, &set_v(1, "after begin")),
        );
        run_ok(
            &mut a,
            &sql(&dialect, &schema, level, &set_v(2, "a writes")),
        );
        run_ok(
            &mut a,
            &sql(
                &dialect,
                &schema,
                level,
                &locking_select("t", Some(eq(c("id"), int(2))), RowLock::ForUpdate),
            ),
        );
        run_ok(
            &mut b,
            &sql(&dialect, &schema, level, &set_v(1, "after write")),
        );
        // Not at BEGIN nor at the write or the locking read: the commit after them
        // is visible.
        assert_eq!(
            read_v(&mut a, &dialect, &schema, 1),
            text_value("after write")
        );
        run_ok(
            &mut b,
            &sql(&dialect, &schema, level, &set_v(1, "after read")),
        );
        // At the first consistent read: later commits are not.
        assert_eq!(
            read_v(&mut a, &dialect, &schema, 1),
            text_value("after write")
        );
        run_ok(&mut a, "ROLLBACK");
    }
}

/// REPEATABLE READ without snapshot isolation: the second writer waits for the
/// first, then acts on the latest committed row, not on its snapshot, and its write
/// replaces the first one's (a lost update).
#[test]
fn repeatable_read_writers_block_then_overwrite() {
    let level = IsolationLevel::RepeatableRead;
    let dialect = mariadb(false);
    let semantics = level_of(&dialect, level);
    assert_eq!(semantics.write_conflict, WriteConflict::BlockThenProceed);
    assert_eq!(semantics.write_reads, WriteReads::LatestCommitted);
    let Some((db, schema)) = database("lostupdate") else {
        return;
    };
    let mut a = db.session(&dialect, level);
    let mut b = db.session(&dialect, level);
    let mut monitor = db.connect();
    run_ok(&mut a, &sql(&dialect, &schema, level, &Statement::Begin));
    assert_eq!(read_v(&mut a, &dialect, &schema, 1), text_value("start"));
    run_ok(&mut b, &sql(&dialect, &schema, level, &Statement::Begin));
    run_ok(&mut b, &sql(&dialect, &schema, level, &set_v(1, "b")));
    // Matches only the row B wrote, which A's snapshot does not show.
    let a_writes = update("t", vec![("v", text("a"))], Some(eq(c("v"), text("b"))));
    let a_id = connection_id(&mut a);
    let waiting = spawn_statement(a, sql(&dialect, &schema, level, &a_writes));
    wait_until_blocked(&mut monitor, a_id, BLOCK_LIMIT);
    run_ok(&mut b, "COMMIT");
    let (mut a, result) = waiting.join().unwrap();
    assert_eq!(result.unwrap().affected, 1);
    // A's snapshot still shows the row as it was, except for A's own write.
    assert_eq!(read_v(&mut a, &dialect, &schema, 1), text_value("a"));
    run_ok(&mut a, "COMMIT");
    assert_eq!(read_v(&mut b, &dialect, &schema, 1), text_value("a"));
}

/// REPEATABLE READ with snapshot isolation: the second writer waits, and when the
/// first commits it fails with 1020 and loses its transaction.
#[test]
fn snapshot_isolation_aborts_the_second_writer() {
    let level = IsolationLevel::RepeatableRead;
    let dialect = mariadb(true);
    let semantics = level_of(&dialect, level);
    assert_eq!(semantics.write_conflict, WriteConflict::BlockThenAbort);
    assert_eq!(semantics.write_reads, WriteReads::Snapshot);
    let Some((db, schema)) = database("firstupdater") else {
        return;
    };
    let mut a = db.session(&dialect, level);
    let mut b = db.session(&dialect, level);
    let mut monitor = db.connect();
    run_ok(&mut a, &sql(&dialect, &schema, level, &Statement::Begin));
    assert_eq!(read_v(&mut a, &dialect, &schema, 1), text_value("start"));
    run_ok(&mut b, &sql(&dialect, &schema, level, &Statement::Begin));
    run_ok(&mut b, &sql(&dialect, &schema, level, &set_v(1, "b")));
    let a_id = connection_id(&mut a);
    let waiting = spawn_statement(a, sql(&dialect, &schema, level, &set_v(1, "a")));
    wait_until_blocked(&mut monitor, a_id, BLOCK_LIMIT);
    run_ok(&mut b, "COMMIT");
    let (mut a, result) = waiting.join().unwrap();
    let e = dialect.classify_error(&raw_error(&result.unwrap_err()));
    assert_eq!(
        (e.class, e.scope, e.code),
        (
            ErrorClass::SerializationFailure,
            ErrorScope::Transaction,
            Some(1020)
        )
    );
    assert!(!in_transaction(&mut a));
    assert_eq!(read_v(&mut b, &dialect, &schema, 1), text_value("b"));
}

/// SERIALIZABLE: without snapshot isolation every statement reads the latest
/// committed rows; with it, the first statement, a write or a read, opens the
/// read view, and a later write or (locking) read of a row changed since
/// fails with 1020. The profile declares a snapshot per statement there: the
/// rows a statement sees when it does not fail (the read view opens only
/// once the first statement has its locks, which the model cannot place).
#[test]
fn serializable_snapshot_point_follows_snapshot_isolation() {
    let level = IsolationLevel::Serializable;
    for snapshot_isolation in [false, true] {
        let dialect = mariadb(snapshot_isolation);
        let semantics = level_of(&dialect, level);
        let Some((db, schema)) = database("serializable") else {
            return;
        };
        let mut a = db.session(&dialect, level);
        let mut b = db.session(&dialect, level);
        run_ok(&mut a, &sql(&dialect, &schema, level, &Statement::Begin));
        run_ok(&mut a, &sql(&dialect, &schema, level, &set_v(2, "a")));
        // Row 1 is not locked by A: B's autocommit write goes through.
        run_ok(&mut b, &sql(&dialect, &schema, level, &set_v(1, "b")));
        let result = run(&mut a, &sql(&dialect, &schema, level, &set_v(1, "a")));
        if snapshot_isolation {
            assert_eq!(semantics.snapshot, SnapshotPoint::PerStatement);
            assert_eq!(semantics.write_reads, WriteReads::LatestCommitted);
            assert_eq!(semantics.write_conflict, WriteConflict::BlockThenAbort);
            let e = dialect.classify_error(&raw_error(&result.unwrap_err()));
            assert_eq!(
                (e.class, e.code),
                (ErrorClass::SerializationFailure, Some(1020))
            );
            assert!(!in_transaction(&mut a));
            // A first plain SELECT (a locking read) opens the read view too:
            // a later read of a row changed since fails as a write does.
            run_ok(&mut a, &sql(&dialect, &schema, level, &Statement::Begin));
            assert_eq!(read_v(&mut a, &dialect, &schema, 2), text_value("two"));
            run_ok(&mut b, &sql(&dialect, &schema, level, &set_v(1, "b2")));
            let e = dialect.classify_error(&raw_error(
                &run(
                    &mut a,
                    &sql(
                        &dialect,
                        &schema,
                        level,
                        &select("t", Some(eq(c("id"), int(1))), vec![]),
                    ),
                )
                .unwrap_err(),
            ));
            assert_eq!(e.code, Some(1020), "{e}");
        } else {
            assert_eq!(semantics.snapshot, SnapshotPoint::PerStatement);
            assert_eq!(semantics.write_reads, WriteReads::LatestCommitted);
            result.unwrap();
            // A fresh read of row 1 shows A's own write over B's committed one.
            assert_eq!(read_v(&mut a, &dialect, &schema, 1), text_value("a"));
            run_ok(&mut a, "COMMIT");
        }
    }
}

/// SERIALIZABLE turns a plain SELECT in an explicit transaction into a shared
/// locking read, although sessions run with autocommit = 1; an autocommit SELECT
/// stays a consistent read that waits for nothing.
#[test]
fn serializable_reads_lock_the_rows_they_read() {
    let level = IsolationLevel::Serializable;
    let dialect = mariadb(false);
    let Some((db, schema)) = database("sharedread") else {
        return;
    };
    let mut a = db.session(&dialect, level);
    let mut b = db.session_with(&dialect, level, SHORT_WAIT);
    run_ok(&mut a, &sql(&dialect, &schema, level, &Statement::Begin));
    assert_eq!(read_v(&mut a, &dialect, &schema, 1), text_value("start"));
    let e = classify_failure(&mut b, &sql(&dialect, &schema, level, &set_v(1, "b")));
    assert_eq!(e.class, ErrorClass::LockWaitTimeout, "{e}");
    run_ok(&mut a, "COMMIT");
    run_ok(&mut b, &sql(&dialect, &schema, level, &Statement::Begin));
    run_ok(&mut b, &sql(&dialect, &schema, level, &set_v(1, "b")));
    // B holds row 1 exclusively: A's autocommit read does not wait and sees the
    // committed value.
    assert_eq!(read_v(&mut a, &dialect, &schema, 1), text_value("start"));
    run_ok(&mut b, "COMMIT");
}

/// Semi-consistent reads: an UPDATE that meets a row locked by another transaction
/// skips it when the row's latest committed version does not match, instead of
/// waiting. Declared per level and option, and checked for each.
#[test]
fn update_skips_locked_rows_that_do_not_match_where_declared() {
    for snapshot_isolation in [false, true] {
        let dialect = mariadb(snapshot_isolation);
        for semantics in dialect.info().levels {
            let level = semantics.level;
            // Which rows a statement that waited acts on: InnoDB's locking
            // read of the latest committed rows, at every level.
            assert_eq!(semantics.after_wait, AfterWait::LatestRows, "{level}");
            let Some((db, schema)) = database("semiconsistent") else {
                return;
            };
            let mut holder = db.session(&dialect, level);
            let mut updater = db.session_with(&dialect, level, SHORT_WAIT);
            run_ok(
                &mut holder,
                &sql(&dialect, &schema, level, &Statement::Begin),
            );
            run_ok(
                &mut holder,
                &sql(&dialect, &schema, level, &set_v(1, "held")),
            );
            // `v` has no index: the UPDATE scans the clustered index and meets the
            // locked row 1, whose committed value 'start' does not match.
            let other_row = update("t", vec![("v", text("x"))], Some(eq(c("v"), text("two"))));
            run_ok(
                &mut updater,
                &sql(&dialect, &schema, level, &Statement::Begin),
            );
            let result = exec(&mut updater, &sql(&dialect, &schema, level, &other_row));
            let label = format!("{level} with snapshot isolation {snapshot_isolation}");
            if semantics.semi_consistent_writes {
                assert_eq!(result.unwrap().affected, 1, "{label}");
            } else {
                let e = dialect.classify_error(&raw_error(&result.unwrap_err()));
                assert_eq!(e.class, ErrorClass::LockWaitTimeout, "{label}: {e}");
            }
            run_ok(&mut holder, "ROLLBACK");
            run_ok(&mut updater, "ROLLBACK");
        }
    }
}

/// Predicate conflicts: a write over an empty range blocks inserts into it exactly
/// where gap locks are declared.
#[test]
fn gap_locks_block_inserts_where_declared() {
    for snapshot_isolation in [false, true] {
        let dialect = mariadb(snapshot_isolation);
        for semantics in dialect.info().levels {
            let level = semantics.level;
            let Some((db, schema)) = database("gaplocks") else {
                return;
            };
            let mut scanner = db.session(&dialect, level);
            let mut inserter = db.session_with(&dialect, level, SHORT_WAIT);
            run_ok(
                &mut scanner,
                &sql(&dialect, &schema, level, &Statement::Begin),
            );
            let empty_range = delete("t", Some(bin(BinaryOp::Gt, c("id"), int(5))));
            let done = exec(&mut scanner, &sql(&dialect, &schema, level, &empty_range)).unwrap();
            assert_eq!(done.affected, 0);
            let into_range = insert(
                "t",
                &["id", "v"],
                vec![vec![Value::Int(6), text_value("six")]],
                OnConflict::Error,
            );
            let result = exec(&mut inserter, &sql(&dialect, &schema, level, &into_range));
            let label = format!("{level} with snapshot isolation {snapshot_isolation}");
            if semantics.predicate_conflicts {
                let e = dialect.classify_error(&raw_error(&result.unwrap_err()));
                assert_eq!(e.class, ErrorClass::LockWaitTimeout, "{label}: {e}");
            } else {
                assert_eq!(result.unwrap().affected, 1, "{label}");
            }
            run_ok(&mut scanner, "ROLLBACK");
        }
    }
}

/// SHOW ENGINE INNODB STATUS names the waiting session, and only while it waits.
#[test]
fn the_lock_probe_sees_exactly_the_waiting_session() {
    let dialect = mariadb(false);
    assert_eq!(
        dialect.info().lock_probe,
        LockProbe::Query {
            sql: "SHOW ENGINE INNODB STATUS".into()
        }
    );
    let level = IsolationLevel::RepeatableRead;
    let Some((db, schema)) = database("probe") else {
        return;
    };
    let mut holder = db.session(&dialect, level);
    let mut waiter = db.session(&dialect, level);
    let mut monitor = db.connect();
    let holder_id = connection_id(&mut holder);
    let waiter_id = connection_id(&mut waiter);
    run_ok(
        &mut holder,
        &sql(&dialect, &schema, level, &Statement::Begin),
    );
    run_ok(&mut holder, &sql(&dialect, &schema, level, &set_v(1, "h")));
    let status = innodb_status(&mut monitor);
    assert!(!innodb_status_waits(&status, holder_id), "{status}");
    assert!(!innodb_status_waits(&status, waiter_id), "{status}");
    let waiting = spawn_statement(waiter, sql(&dialect, &schema, level, &set_v(1, "w")));
    wait_until_blocked(&mut monitor, waiter_id, BLOCK_LIMIT);
    let status = innodb_status(&mut monitor);
    assert!(innodb_status_waits(&status, waiter_id), "{status}");
    assert!(!innodb_status_waits(&status, holder_id), "{status}");
    run_ok(&mut holder, "ROLLBACK");
    let (_waiter, result) = waiting.join().unwrap();
    assert_eq!(result.unwrap().affected, 1);
    let status = innodb_status(&mut monitor);
    assert!(!innodb_status_waits(&status, waiter_id), "{status}");
}
