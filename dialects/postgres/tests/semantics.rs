//! The isolation facts `info()` declares: PostgreSQL's checked against a real
//! server, CockroachDB's (which cannot run here) checked as data.

mod common;

use common::*;
use postgres::Client;
use txlab_plugin_api::prelude::*;
use txlab_postgres::{CockroachDialect, PostgresDialect};
use txlab_testkit::build::*;
use txlab_testkit::dialect::{render_at, session_setup, LIMITS};
use txlab_testkit::dialect_checks::assert_declared_column_types_render;

fn pg() -> PostgresDialect {
    PostgresDialect::default()
}

fn level(l: IsolationLevel) -> LevelSemantics {
    pg().info().level(l).unwrap().clone()
}

fn schema() -> Schema {
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("n", ColumnType::Int)],
        &["id"],
    );
    Schema { tables: vec![t] }
}

/// The test database with rows (1, 0) and (2, 0).
fn database(tag: &str) -> Option<(LiveDb, Schema)> {
    let db = live_db(tag)?;
    let schema = schema();
    let mut client = db.connect();
    let rows = insert(
        "t",
        &["id", "n"],
        vec![
            vec![Value::Int(1), Value::Int(0)],
            vec![Value::Int(2), Value::Int(0)],
        ],
        OnConflict::Error,
    );
    create_and_run(&mut client, &schema, &[rows]);
    Some((db, schema))
}

/// A transaction at `l` on a session of its own, begun with the rendered BEGIN.
fn begin(db: &LiveDb, schema: &Schema, l: IsolationLevel) -> Client {
    let mut client = db.session_at(&pg(), l, LIMITS);
    run_ok(
        &mut client,
        &render_at(&pg(), schema, l, &Statement::Begin).unwrap(),
    );
    client
}

fn read_n(client: &mut Client, schema: &Schema, id: i64) -> Value {
    let rows = run_ok(
        client,
        &render_ok(
            schema,
            &select("t", Some(bin(BinaryOp::Eq, c("id"), int(id))), vec![]),
        ),
    );
    rows[0][1].clone()
}

fn set_n(schema: &Schema, id: i64, n: i64) -> String {
    render_ok(
        schema,
        &update(
            "t",
            vec![("n", int(n))],
            Some(bin(BinaryOp::Eq, c("id"), int(id))),
        ),
    )
}

fn add_n(schema: &Schema, id: i64, delta: i64) -> String {
    render_ok(
        schema,
        &update(
            "t",
            vec![("n", bin(BinaryOp::Add, c("n"), int(delta)))],
            Some(bin(BinaryOp::Eq, c("id"), int(id))),
        ),
    )
}

fn commit(client: &mut Client) {
    run_ok(client, "COMMIT");
}

#[test]
fn read_committed_takes_a_snapshot_per_statement() {
    assert_eq!(
        level(IsolationLevel::ReadCommitted).snapshot,
        SnapshotPoint::PerStatement
    );
    let Some((db, schema)) = database("rc_snapshot") else {
        return;
    };
    let mut a = begin(&db, &schema, IsolationLevel::ReadCommitted);
    let mut b = db.connect();
    assert_eq!(read_n(&mut a, &schema, 1), Value::Int(0));
    run_ok(&mut b, &set_n(&schema, 1, 5));
    assert_eq!(read_n(&mut a, &schema, 1), Value::Int(5));
    commit(&mut a);
}

/// READ UNCOMMITTED is read committed: a write in flight stays invisible.
#[test]
fn read_uncommitted_never_reads_dirty_data() {
    let ru = level(IsolationLevel::ReadUncommitted);
    let rc = level(IsolationLevel::ReadCommitted);
    assert_eq!(
        (
            ru.snapshot,
            ru.write_reads,
            ru.write_conflict,
            ru.serial_order
        ),
        (
            rc.snapshot,
            rc.write_reads,
            rc.write_conflict,
            rc.serial_order
        )
    );
    assert!(ru.notes[0].contains("behaves like Read Committed"));
    let Some((db, schema)) = database("ru_dirty") else {
        return;
    };
    let mut writer = begin(&db, &schema, IsolationLevel::ReadCommitted);
    run_ok(&mut writer, &set_n(&schema, 1, 7));
    let mut reader = begin(&db, &schema, IsolationLevel::ReadUncommitted);
    assert_eq!(read_n(&mut reader, &schema, 1), Value::Int(0));
    commit(&mut writer);
    assert_eq!(read_n(&mut reader, &schema, 1), Value::Int(7));
    commit(&mut reader);
}

/// Repeatable read and serializable take the snapshot at the first statement
/// after BEGIN, not at BEGIN.
#[test]
fn the_snapshot_starts_at_the_first_statement() {
    for l in [IsolationLevel::RepeatableRead, IsolationLevel::Serializable] {
        assert_eq!(level(l).snapshot, SnapshotPoint::FirstStatement, "{l}");
        let Some((db, schema)) = database("first_statement") else {
            return;
        };
        let mut a = begin(&db, &schema, l);
        let mut b = db.connect();
        run_ok(&mut b, &set_n(&schema, 1, 1));
        // Not at BEGIN: the commit after BEGIN is visible.
        assert_eq!(read_n(&mut a, &schema, 1), Value::Int(1), "{l}");
        run_ok(&mut b, &set_n(&schema, 1, 2));
        // At the first statement: later commits are not.
        assert_eq!(read_n(&mut a, &schema, 1), Value::Int(1), "{l}");
        commit(&mut a);
    }
}

/// A second updater waits for the first; once the first commits, it proceeds on
/// the new version and re-evaluates its WHERE clause there.
#[test]
fn read_committed_writers_block_then_proceed_on_the_latest_version() {
    let rc = level(IsolationLevel::ReadCommitted);
    assert_eq!(rc.write_conflict, WriteConflict::BlockThenProceed);
    assert_eq!(rc.write_reads, WriteReads::LatestCommitted);
    assert!(!rc.semi_consistent_writes);
    let Some((db, schema)) = database("rc_writers") else {
        return;
    };
    let l = IsolationLevel::ReadCommitted;
    let mut monitor = db.connect();

    // n = n + 1, then n = n + 10 on the committed result: no update is lost.
    let mut a = begin(&db, &schema, l);
    let mut b = begin(&db, &schema, l);
    assert_eq!(execute_ok(&mut a, &add_n(&schema, 1, 1)), 1);
    let b_pid = backend_pid(&mut b);
    let pending = spawn(b, add_n(&schema, 1, 10));
    wait_until_blocked(&mut monitor, b_pid, &pending);
    commit(&mut a);
    let (mut b, result) = pending.join();
    result.unwrap();
    commit(&mut b);
    assert_eq!(read_n(&mut monitor, &schema, 1), Value::Int(11));

    // The waiter's WHERE n = 11 no longer holds on the version it waited for.
    let mut a = begin(&db, &schema, l);
    let mut b = begin(&db, &schema, l);
    run_ok(&mut a, &set_n(&schema, 1, 12));
    let b_pid = backend_pid(&mut b);
    let matching_eleven = render_ok(
        &schema,
        &update(
            "t",
            vec![("n", int(100))],
            Some(bin(BinaryOp::Eq, c("n"), int(11))),
        ),
    );
    let pending = spawn(b, matching_eleven.clone());
    wait_until_blocked(&mut monitor, b_pid, &pending);
    commit(&mut a);
    let (mut b, result) = pending.join();
    result.unwrap();
    assert_eq!(execute_ok(&mut b, &matching_eleven), 0);
    commit(&mut b);
    assert_eq!(read_n(&mut monitor, &schema, 1), Value::Int(12));
}

/// `after_wait = recheck_changed`: a writer that waited keeps the rows of
/// the snapshot it started with and re-checks only the rows the other
/// transaction changed. Rows (1, 0), (2, 5); T1 sets n = 5 on both; T2's
/// `UPDATE … WHERE n = 5` finds only row 2 in its snapshot, waits for it and
/// updates it alone, although both rows match once T1 has committed.
#[test]
fn read_committed_rechecks_only_the_rows_a_waiter_found() {
    let rc = level(IsolationLevel::ReadCommitted);
    assert_eq!(rc.after_wait, AfterWait::RecheckChanged);
    for l in [IsolationLevel::RepeatableRead, IsolationLevel::Serializable] {
        assert_eq!(level(l).after_wait, AfterWait::Unknown, "{l}");
    }
    let Some((db, schema)) = database("rc_recheck") else {
        return;
    };
    let l = IsolationLevel::ReadCommitted;
    let mut monitor = db.connect();
    run_ok(&mut monitor, &set_n(&schema, 2, 5));
    let mut a = begin(&db, &schema, l);
    let mut b = begin(&db, &schema, l);
    let all_five = render_ok(&schema, &update("t", vec![("n", int(5))], None));
    assert_eq!(execute_ok(&mut a, &all_five), 2);
    let b_pid = backend_pid(&mut b);
    let fives = render_ok(
        &schema,
        &update(
            "t",
            vec![("n", int(6))],
            Some(bin(BinaryOp::Eq, c("n"), int(5))),
        ),
    );
    let pending = spawn(b, fives);
    wait_until_blocked(&mut monitor, b_pid, &pending);
    commit(&mut a);
    let (mut b, result) = pending.join();
    result.unwrap();
    commit(&mut b);
    // Row 1 matched only in T1's version, which T2's snapshot did not hold.
    assert_eq!(read_n(&mut monitor, &schema, 1), Value::Int(5));
    assert_eq!(read_n(&mut monitor, &schema, 2), Value::Int(6));
}

/// First updater wins: the second waits, then fails with 40001 once the first
/// commits, at both snapshot levels.
#[test]
fn snapshot_writers_block_then_abort() {
    for l in [IsolationLevel::RepeatableRead, IsolationLevel::Serializable] {
        let semantics = level(l);
        assert_eq!(
            semantics.write_conflict,
            WriteConflict::BlockThenAbort,
            "{l}"
        );
        assert_eq!(semantics.write_reads, WriteReads::Snapshot, "{l}");
        let Some((db, schema)) = database("snapshot_writers") else {
            return;
        };
        let mut monitor = db.connect();
        let mut a = begin(&db, &schema, l);
        let mut b = begin(&db, &schema, l);
        assert_eq!(read_n(&mut b, &schema, 2), Value::Int(0));
        run_ok(&mut a, &add_n(&schema, 1, 1));
        let b_pid = backend_pid(&mut b);
        let pending = spawn(b, add_n(&schema, 1, 10));
        wait_until_blocked(&mut monitor, b_pid, &pending);
        commit(&mut a);
        let (mut b, result) = pending.join();
        let e = classify(&pg(), result, "the second update");
        assert_eq!(
            (e.class, e.scope, e.sqlstate.as_deref()),
            (
                ErrorClass::SerializationFailure,
                ErrorScope::Transaction,
                Some("40001")
            ),
            "{l}: {e}"
        );
        run_ok(&mut b, "ROLLBACK");
        assert_eq!(read_n(&mut monitor, &schema, 1), Value::Int(1), "{l}");

        // If the first updater rolls back instead, the second proceeds.
        let mut a = begin(&db, &schema, l);
        let mut b = begin(&db, &schema, l);
        assert_eq!(read_n(&mut b, &schema, 2), Value::Int(0));
        run_ok(&mut a, &add_n(&schema, 1, 1));
        let b_pid = backend_pid(&mut b);
        let pending = spawn(b, add_n(&schema, 1, 10));
        wait_until_blocked(&mut monitor, b_pid, &pending);
        run_ok(&mut a, "ROLLBACK");
        let (mut b, result) = pending.join();
        result.unwrap();
        commit(&mut b);
        assert_eq!(read_n(&mut monitor, &schema, 1), Value::Int(11), "{l}");
    }
}

/// A row the snapshot cannot see but the key constraint does: DO NOTHING cannot
/// skip it silently at the snapshot levels.
#[test]
fn insert_ignore_of_an_invisible_conflict_fails_at_snapshot_levels() {
    for l in [IsolationLevel::RepeatableRead, IsolationLevel::Serializable] {
        let Some((db, schema)) = database("ignore_invisible") else {
            return;
        };
        let mut a = begin(&db, &schema, l);
        assert_eq!(read_n(&mut a, &schema, 1), Value::Int(0));
        let mut b = db.connect();
        let row = |n: i64| {
            render_ok(
                &schema,
                &insert(
                    "t",
                    &["id", "n"],
                    vec![vec![Value::Int(3), Value::Int(n)]],
                    OnConflict::Ignore,
                ),
            )
        };
        assert_eq!(execute_ok(&mut b, &row(1)), 1);
        let e = classify_failure(&mut a, &row(2));
        assert_eq!(
            (e.class, e.sqlstate.as_deref()),
            (ErrorClass::SerializationFailure, Some("40001")),
            "{l}: {e}"
        );
        run_ok(&mut a, "ROLLBACK");
    }
}

/// No level takes predicate locks that conflict: an INSERT into the range an
/// UPDATE scanned neither waits nor fails, and both commit.
#[test]
fn inserts_into_scanned_ranges_do_not_conflict() {
    for l in [
        IsolationLevel::ReadCommitted,
        IsolationLevel::RepeatableRead,
        IsolationLevel::Serializable,
    ] {
        assert!(!level(l).predicate_conflicts, "{l}");
        let Some((db, schema)) = database("scanned_range") else {
            return;
        };
        let mut a = begin(&db, &schema, l);
        let mut b = begin(&db, &schema, l);
        let scan = render_ok(
            &schema,
            &update(
                "t",
                vec![("n", int(9))],
                Some(bin(BinaryOp::Gt, c("id"), int(5))),
            ),
        );
        assert_eq!(execute_ok(&mut a, &scan), 0);
        let into_range = render_ok(
            &schema,
            &insert(
                "t",
                &["id", "n"],
                vec![vec![Value::Int(6), Value::Int(0)]],
                OnConflict::Error,
            ),
        );
        assert_eq!(execute_ok(&mut b, &into_range), 1, "{l}");
        commit(&mut b);
        commit(&mut a);
        assert_eq!(read_n(&mut db.connect(), &schema, 6), Value::Int(0), "{l}");
    }
}

/// Write skew: allowed at repeatable read, refused by SSI at serializable.
#[test]
fn only_serializable_refuses_write_skew() {
    for l in [IsolationLevel::RepeatableRead, IsolationLevel::Serializable] {
        let Some((db, schema)) = database("write_skew") else {
            return;
        };
        let mut a = begin(&db, &schema, l);
        let mut b = begin(&db, &schema, l);
        // Each reads the row the other writes.
        assert_eq!(read_n(&mut a, &schema, 2), Value::Int(0));
        assert_eq!(read_n(&mut b, &schema, 1), Value::Int(0));
        run_ok(&mut a, &set_n(&schema, 1, 1));
        run_ok(&mut b, &set_n(&schema, 2, 1));
        commit(&mut a);
        let second = run(&mut b, "COMMIT");
        match l {
            IsolationLevel::RepeatableRead => {
                second.unwrap();
            }
            _ => {
                let e = classify(&pg(), second, "the second COMMIT");
                assert_eq!(
                    (e.class, e.scope, e.sqlstate.as_deref()),
                    (
                        ErrorClass::SerializationFailure,
                        ErrorScope::Transaction,
                        Some("40001")
                    ),
                    "{e}"
                );
                assert!(e.message.contains("read/write dependencies"), "{e}");
            }
        }
    }
}

/// SSI serializes a transaction that read a row before another transaction's
/// committed update of it before that transaction, although it commits after.
#[test]
fn the_serializable_order_need_not_be_the_commit_order() {
    let ser = level(IsolationLevel::Serializable);
    assert_eq!(ser.serial_order, SerialOrder::AnyOrder);
    assert!(!ser.writes_serialize_in_commit_order());
    for l in [
        IsolationLevel::ReadCommitted,
        IsolationLevel::RepeatableRead,
    ] {
        assert_eq!(level(l).serial_order, SerialOrder::CommitOrder, "{l}");
    }
    let Some((db, schema)) = database("serial_order") else {
        return;
    };
    let l = IsolationLevel::Serializable;
    let mut reader = begin(&db, &schema, l);
    assert_eq!(read_n(&mut reader, &schema, 1), Value::Int(0));
    let mut writer = begin(&db, &schema, l);
    run_ok(&mut writer, &set_n(&schema, 1, 1));
    commit(&mut writer);
    // The reader still sees n = 0 for row 1, and its own write commits: the only
    // serial order is reader before writer, the reverse of the commit order.
    assert_eq!(read_n(&mut reader, &schema, 1), Value::Int(0));
    run_ok(&mut reader, &set_n(&schema, 2, 1));
    commit(&mut reader);
    let mut after = db.connect();
    assert_eq!(read_n(&mut after, &schema, 1), Value::Int(1));
    assert_eq!(read_n(&mut after, &schema, 2), Value::Int(1));
}

/// The probe says true only while the session waits for a lock: not when idle,
/// not while it runs, and not after the lock was granted.
#[test]
fn the_lock_probe_sees_exactly_the_waiting_sessions() {
    assert_eq!(
        pg().info().lock_probe,
        LockProbe::Query {
            sql: "SELECT cardinality(pg_blocking_pids({session})) > 0".into()
        }
    );
    let Some((db, schema)) = database("lock_probe") else {
        return;
    };
    let l = IsolationLevel::ReadCommitted;
    let mut monitor = db.connect();
    let mut holder = begin(&db, &schema, l);
    let mut waiter = begin(&db, &schema, l);
    let waiter_pid = backend_pid(&mut waiter);
    let holder_pid = backend_pid(&mut holder);
    assert!(!probe(&mut monitor, waiter_pid), "an idle session");

    // Busy, but not waiting for a lock.
    let sleeping = spawn(waiter, "SELECT 1 FROM pg_sleep(0.3)".to_string());
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(!sleeping.is_finished());
    assert!(!probe(&mut monitor, waiter_pid), "a running session");
    let (waiter, result) = sleeping.join();
    result.unwrap();

    run_ok(&mut holder, &set_n(&schema, 1, 1));
    assert!(!probe(&mut monitor, holder_pid), "the lock holder");
    let pending = spawn(waiter, set_n(&schema, 1, 2));
    wait_until_blocked(&mut monitor, waiter_pid, &pending);
    assert!(probe(&mut monitor, waiter_pid));
    assert!(!probe(&mut monitor, holder_pid), "the lock holder");
    commit(&mut holder);
    let (mut waiter, result) = pending.join();
    result.unwrap();
    assert!(
        !probe(&mut monitor, waiter_pid),
        "after the lock was granted"
    );
    commit(&mut waiter);
}

/// Every PostgreSQL level cites the manual and states the error behaviour.
#[test]
fn postgres_levels_cite_their_sources() {
    let info = pg().info();
    assert_eq!(info.driver, "postgres");
    let levels: Vec<IsolationLevel> = info.levels.iter().map(|l| l.level).collect();
    assert_eq!(
        levels,
        [
            IsolationLevel::ReadUncommitted,
            IsolationLevel::ReadCommitted,
            IsolationLevel::RepeatableRead,
            IsolationLevel::Serializable
        ]
    );
    for l in &info.levels {
        for page in [
            "https://www.postgresql.org/docs/16/transaction-iso.html",
            "https://www.postgresql.org/docs/16/explicit-locking.html",
            "https://www.postgresql.org/docs/16/tutorial-transactions.html",
        ] {
            assert!(
                l.references.iter().any(|r| r == page),
                "{}: {page}",
                l.level
            );
        }
        assert!(
            l.notes.iter().any(|n| n.contains("25P02")),
            "{}: the error behaviour",
            l.level
        );
        assert!(!l.semi_consistent_writes && !l.predicate_conflicts);
        // No PostgreSQL level promises WriteCheck's Assumption 1.
        assert!(!l.writes_serialize_in_commit_order(), "{}", l.level);
    }
    let f = &info.features;
    assert!(f.select_for_update && f.select_for_share && f.insert_ignore && !f.replace);
    assert_declared_column_types_render(&pg());
}

/// Live: every declared column type can be created and holds a value of its kind.
#[test]
fn declared_column_types_work() {
    let Some(db) = live_db("column_types") else {
        return;
    };
    let mut client = db.session_at(&pg(), IsolationLevel::ReadCommitted, LIMITS);
    for (i, &ty) in pg().info().features.column_types.iter().enumerate() {
        let name = format!("t{i}");
        let t = table(&name, vec![col("c", ty)], &[]);
        let v = match ty {
            ColumnType::Int | ColumnType::BigInt => Value::Int(7),
            ColumnType::Double => Value::Float(0.5),
            ColumnType::Decimal { .. } => Value::Decimal("1.25".into()),
            ColumnType::Bool => Value::Bool(true),
            _ => Value::Text("x".into()),
        };
        let schema = Schema { tables: vec![t] };
        let fill = insert(&name, &["c"], vec![vec![v]], OnConflict::Error);
        create_and_run(&mut client, &schema, &[fill]);
        assert_eq!(
            run_ok(
                &mut client,
                &render_ok(&schema, &select(&name, None, vec![]))
            )
            .len(),
            1
        );
    }
}

/// CockroachDB cannot run here; its declared facts are checked as data.
#[test]
fn cockroach_declares_its_documented_semantics() {
    let info = CockroachDialect.info();
    assert_eq!(
        (info.name.as_str(), info.driver.as_str()),
        ("cockroachdb", "postgres")
    );
    let levels: Vec<IsolationLevel> = info.levels.iter().map(|l| l.level).collect();
    assert_eq!(
        levels,
        [IsolationLevel::ReadCommitted, IsolationLevel::Serializable]
    );

    let ser = info.level(IsolationLevel::Serializable).unwrap();
    assert_eq!(ser.snapshot, SnapshotPoint::Begin);
    assert_eq!(ser.write_reads, WriteReads::Snapshot);
    assert_eq!(ser.write_conflict, WriteConflict::BlockThenAbort);
    assert_eq!(ser.serial_order, SerialOrder::AnyOrder);
    assert!(!ser.semi_consistent_writes && !ser.predicate_conflicts);
    for page in [
        "https://www.cockroachlabs.com/docs/v24.1/architecture/transaction-layer",
        "https://www.cockroachlabs.com/docs/v24.1/transaction-retry-error-reference",
        "https://www.cockroachlabs.com/docs/v24.1/transactions",
    ] {
        assert!(ser.references.iter().any(|r| r == page), "{page}");
    }
    for fact in [
        "read refreshing",
        "non-locking reads wait",
        "timestamp order",
        "not with 40P01",
    ] {
        assert!(ser.notes.iter().any(|n| n.contains(fact)), "{fact}");
    }

    let rc = info.level(IsolationLevel::ReadCommitted).unwrap();
    assert_eq!(rc.snapshot, SnapshotPoint::PerStatement);
    assert_eq!(rc.write_reads, WriteReads::LatestCommitted);
    assert_eq!(rc.write_conflict, WriteConflict::BlockThenProceed);
    assert_eq!(rc.serial_order, SerialOrder::CommitOrder);
    assert!(!rc.semi_consistent_writes && !rc.predicate_conflicts);
    assert!(rc
        .references
        .iter()
        .any(|r| r == "https://www.cockroachlabs.com/docs/v24.1/read-committed"));
    assert!(rc
        .notes
        .iter()
        .any(|n| n.contains("sql.txn.read_committed_isolation.enabled")));
    for l in &info.levels {
        assert!(!l.writes_serialize_in_commit_order(), "{}", l.level);
        assert!(l.notes.iter().any(|n| n.contains("aborts the transaction")));
    }

    // Locks of waiting transactions, matched to the session by its hex id.
    let LockProbe::Query { sql } = &info.lock_probe else {
        panic!("cockroachdb probes with a query: {:?}", info.lock_probe);
    };
    assert!(sql.contains("crdb_internal.cluster_locks"), "{sql}");
    assert!(sql.contains("NOT l.granted"), "{sql}");
    assert!(
        sql.contains("'{session}'"),
        "the session id is a string: {sql}"
    );

    let f = &info.features;
    assert!(f.select_for_update && !f.select_for_share && f.insert_ignore && !f.replace);
    assert!(f.column_types.contains(&ColumnType::Int));
    assert_eq!(
        CockroachDialect
            .create_table(&table("t", vec![col("c", ColumnType::Int)], &[]))
            .unwrap(),
        vec!["CREATE TABLE \"t\" (\"c\" INT4)".to_string()]
    );
}

/// Without the cluster setting, CockroachDB upgrades READ COMMITTED silently; the
/// session check is what catches it.
#[test]
fn cockroach_checks_that_read_committed_took_effect() {
    let setup = session_setup(&CockroachDialect, IsolationLevel::ReadCommitted, LIMITS).unwrap();
    let check = setup
        .checks
        .iter()
        .find(|c| c.sql == "SHOW default_transaction_isolation")
        .expect("a check of the isolation level");
    assert_eq!(check.expect, "read committed");
    assert!(
        check
            .explain
            .contains("sql.txn.read_committed_isolation.enabled"),
        "{}",
        check.explain
    );
    assert!(setup.statements.contains(
        &"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED".to_string()
    ));
}
