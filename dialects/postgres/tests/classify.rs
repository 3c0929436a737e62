//! Classification of errors that a real PostgreSQL server raises, and the scope
//! each one has: inside a transaction block every error aborts the transaction.

mod common;

use common::*;
use postgres::Client;
use txlab_plugin_api::prelude::*;
use txlab_postgres::{PostgresConfig, PostgresDialect};
use txlab_testkit::build::*;
use txlab_testkit::dialect::{render_at, LIMITS};
use txlab_testkit::keyed_table;

/// The test database holding the keyed table with rows (1, 10, 'a') and (2, 20, 'b').
fn database(tag: &str) -> Option<(LiveDb, Schema)> {
    let db = live_db(tag)?;
    let schema = keyed_table::schema(ColumnType::Varchar { len: 8 });
    let mut client = db.connect();
    create_and_run(&mut client, &schema, &[keyed_table::fill()]);
    Some((db, schema))
}

fn session_with(
    db: &LiveDb,
    dialect: &PostgresDialect,
    level: IsolationLevel,
    limits: SessionLimits,
) -> Client {
    db.session_at(dialect, level, limits)
}

fn session(db: &LiveDb, level: IsolationLevel) -> Client {
    session_with(db, &PostgresDialect::default(), level, LIMITS)
}

fn begin(client: &mut Client, schema: &Schema, level: IsolationLevel) {
    let sql = render_at(
        &PostgresDialect::default(),
        schema,
        level,
        &Statement::Begin,
    )
    .unwrap();
    run_ok(client, &sql);
}

fn insert_row(schema: &Schema, id: Value, k: Value, v: Value) -> String {
    render_ok(schema, &keyed_table::insert_row(id, k, v))
}

fn set_v(schema: &Schema, id: i64, v: &str) -> String {
    render_ok(schema, &keyed_table::set_v(id, v))
}

fn assert_class(e: &DbError, class: ErrorClass, scope: ErrorScope, sqlstate: &str) {
    assert_eq!(
        (e.class, e.scope, e.sqlstate.as_deref()),
        (class, scope, Some(sqlstate)),
        "{e}"
    );
    assert_eq!(e.code, None);
    assert!(!e.message.is_empty());
}

/// The transaction the error happened in is aborted: the next statement fails
/// with 25P02, and ROLLBACK ends it.
fn assert_transaction_aborted(client: &mut Client, schema: &Schema) {
    let e = classify_failure(
        client,
        &render_ok(schema, &select("t", None, vec![c("id")])),
    );
    assert_class(
        &e,
        ErrorClass::TransactionAborted,
        ErrorScope::Transaction,
        "25P02",
    );
    run_ok(client, "ROLLBACK");
}

#[test]
fn constraint_violations_abort_the_transaction() {
    let Some((db, schema)) = database("constraints") else {
        return;
    };
    let mut client = session(&db, IsolationLevel::ReadCommitted);
    let text = |s: &str| Value::Text(s.into());
    let cases = [
        (
            insert_row(&schema, Value::Int(1), Value::Int(99), text("x")),
            "23505",
        ),
        (
            insert_row(&schema, Value::Int(3), Value::Int(10), text("x")),
            "23505",
        ),
        (
            insert_row(&schema, Value::Int(3), Value::Int(30), Value::Null),
            "23502",
        ),
        // ON CONFLICT DO NOTHING skips key collisions only, unlike INSERT IGNORE.
        (
            render_ok(
                &schema,
                &insert(
                    "t",
                    &["id", "k", "v"],
                    vec![vec![Value::Int(3), Value::Int(30), Value::Null]],
                    OnConflict::Ignore,
                ),
            ),
            "23502",
        ),
    ];
    for (sql, sqlstate) in cases {
        begin(&mut client, &schema, IsolationLevel::ReadCommitted);
        run_ok(&mut client, &set_v(&schema, 2, "changed"));
        let e = classify_failure(&mut client, &sql);
        assert_class(
            &e,
            ErrorClass::Constraint,
            ErrorScope::Transaction,
            sqlstate,
        );
        assert_transaction_aborted(&mut client, &schema);
    }
    // The update before each failure was rolled back with its transaction.
    let rows = run_ok(
        &mut client,
        &render_ok(&schema, &select("t", None, vec![c("id")])),
    );
    assert_eq!(rows[1][2], Value::Text("b".into()));
}

/// COMMIT of an aborted transaction succeeds and rolls back: the error, not the
/// COMMIT, tells that the transaction failed.
#[test]
fn commit_after_an_error_rolls_back() {
    let Some((db, schema)) = database("commit_after_error") else {
        return;
    };
    let mut client = session(&db, IsolationLevel::ReadCommitted);
    begin(&mut client, &schema, IsolationLevel::ReadCommitted);
    run_ok(&mut client, &set_v(&schema, 1, "lost"));
    let e = classify_failure(
        &mut client,
        &insert_row(
            &schema,
            Value::Int(2),
            Value::Int(0),
            Value::Text("x".into()),
        ),
    );
    assert_eq!(e.scope, ErrorScope::Transaction, "{e}");
    run_ok(&mut client, "COMMIT");
    let rows = run_ok(
        &mut client,
        &render_ok(&schema, &select("t", None, vec![c("id")])),
    );
    assert_eq!(rows[0][2], Value::Text("a".into()));
}

/// An autocommit statement's error leaves no transaction behind.
#[test]
fn an_autocommit_error_ends_its_own_transaction() {
    let Some((db, schema)) = database("autocommit") else {
        return;
    };
    let mut client = session(&db, IsolationLevel::ReadCommitted);
    let e = classify_failure(
        &mut client,
        &insert_row(
            &schema,
            Value::Int(1),
            Value::Int(0),
            Value::Text("x".into()),
        ),
    );
    assert_class(&e, ErrorClass::Constraint, ErrorScope::Transaction, "23505");
    assert_eq!(first_text(&mut client, "SELECT 1"), "1");
}

#[test]
fn syntax_and_unknown_names_are_syntax_errors() {
    let Some((db, schema)) = database("syntax") else {
        return;
    };
    let mut client = session(&db, IsolationLevel::ReadCommitted);
    for (sql, sqlstate) in [
        ("SELEC * FROM \"t\"".to_string(), "42601"),
        (render_ok(&schema, &delete("missing", None)), "42P01"),
        ("SELECT \"nope\" FROM \"t\"".to_string(), "42703"),
    ] {
        begin(&mut client, &schema, IsolationLevel::ReadCommitted);
        let e = classify_failure(&mut client, &sql);
        assert_class(&e, ErrorClass::Syntax, ErrorScope::Transaction, sqlstate);
        assert_transaction_aborted(&mut client, &schema);
    }
}

#[test]
fn bad_values_are_data_errors() {
    let Some((db, schema)) = database("data") else {
        return;
    };
    let mut client = session(&db, IsolationLevel::ReadCommitted);
    let overflow = render_ok(
        &schema,
        &update(
            "t",
            vec![("k", bin(BinaryOp::Mul, c("k"), int(1_000_000_000)))],
            None,
        ),
    );
    for (sql, sqlstate) in [
        (overflow, "22003"),
        (set_v(&schema, 1, "far too long"), "22001"),
        ("SELECT 1 / 0".to_string(), "22012"),
    ] {
        begin(&mut client, &schema, IsolationLevel::ReadCommitted);
        let e = classify_failure(&mut client, &sql);
        assert_class(&e, ErrorClass::Data, ErrorScope::Transaction, sqlstate);
        assert_transaction_aborted(&mut client, &schema);
    }
}

/// Two repeatable-read transactions update the same row: the second waits, and
/// fails once the first commits.
#[test]
fn a_second_repeatable_read_updater_gets_a_serialization_failure() {
    let Some((db, schema)) = database("serialization") else {
        return;
    };
    let level = IsolationLevel::RepeatableRead;
    let mut a = session(&db, level);
    let mut b = session(&db, level);
    let mut monitor = db.connect();
    begin(&mut a, &schema, level);
    begin(&mut b, &schema, level);
    run_ok(&mut b, &render_ok(&schema, &select("t", None, vec![])));
    run_ok(&mut a, &set_v(&schema, 1, "from a"));
    let b_pid = backend_pid(&mut b);
    let pending = spawn(b, set_v(&schema, 1, "from b"));
    wait_until_blocked(&mut monitor, b_pid, &pending);
    run_ok(&mut a, "COMMIT");
    let (mut b, result) = pending.join();
    let e = classify(&PostgresDialect::default(), result, "the second update");
    assert_class(
        &e,
        ErrorClass::SerializationFailure,
        ErrorScope::Transaction,
        "40001",
    );
    assert!(e.message.contains("concurrent update"), "{e}");
    assert_transaction_aborted(&mut b, &schema);
}

#[test]
fn a_deadlock_victim_gets_a_deadlock_error() {
    let Some((db, schema)) = database("deadlock") else {
        return;
    };
    // Detection after 100 ms instead of the default second keeps the test quick.
    let fast = PostgresDialect::new(PostgresConfig {
        deadlock_timeout_ms: Some(100),
    })
    .unwrap();
    let level = IsolationLevel::ReadCommitted;
    let mut a = session_with(&db, &fast, level, LIMITS);
    let mut b = session_with(&db, &fast, level, LIMITS);
    let mut monitor = db.connect();
    begin(&mut a, &schema, level);
    begin(&mut b, &schema, level);
    run_ok(&mut a, &set_v(&schema, 1, "a1"));
    run_ok(&mut b, &set_v(&schema, 2, "b2"));
    let a_pid = backend_pid(&mut a);
    let pending = spawn(a, set_v(&schema, 2, "a2"));
    wait_until_blocked(&mut monitor, a_pid, &pending);
    let b_result = run(&mut b, &set_v(&schema, 1, "b1"));
    let (mut a, a_result) = pending.join();
    // Exactly one of the two is the victim; the other then gets its lock.
    let (victim, survivor, result) = match (a_result, b_result) {
        (Err(e), Ok(_)) => (&mut a, &mut b, Err(e)),
        (Ok(_), Err(e)) => (&mut b, &mut a, Err(e)),
        (a_result, b_result) => panic!("expected one victim: {a_result:?}, {b_result:?}"),
    };
    let e = classify(&PostgresDialect::default(), result, "the deadlocked update");
    assert_class(&e, ErrorClass::Deadlock, ErrorScope::Transaction, "40P01");
    assert_transaction_aborted(victim, &schema);
    run_ok(survivor, "COMMIT");
}

#[test]
fn an_expired_lock_wait_is_a_lock_wait_timeout() {
    let Some((db, schema)) = database("lock_timeout") else {
        return;
    };
    let short_lock_wait = SessionLimits {
        statement_timeout_ms: 5_000,
        lock_wait_timeout_ms: 200,
    };
    let level = IsolationLevel::ReadCommitted;
    let mut a = session(&db, level);
    let mut b = session_with(&db, &PostgresDialect::default(), level, short_lock_wait);
    begin(&mut a, &schema, level);
    run_ok(&mut a, &set_v(&schema, 1, "from a"));
    begin(&mut b, &schema, level);
    let e = classify_failure(&mut b, &set_v(&schema, 1, "from b"));
    assert_class(
        &e,
        ErrorClass::LockWaitTimeout,
        ErrorScope::Transaction,
        "55P03",
    );
    assert_transaction_aborted(&mut b, &schema);
    run_ok(&mut a, "COMMIT");
}

#[test]
fn a_statement_over_its_time_is_a_statement_timeout() {
    let Some((db, schema)) = database("statement_timeout") else {
        return;
    };
    let short_statements = SessionLimits {
        statement_timeout_ms: 200,
        lock_wait_timeout_ms: 5_000,
    };
    let level = IsolationLevel::ReadCommitted;
    let mut a = session(&db, level);
    let mut b = session_with(&db, &PostgresDialect::default(), level, short_statements);
    // A statement that runs too long, and one that waits too long for a lock
    // while the lock wait limit is still far away.
    begin(&mut b, &schema, level);
    let e = classify_failure(&mut b, "SELECT pg_sleep(5)");
    assert_class(
        &e,
        ErrorClass::StatementTimeout,
        ErrorScope::Transaction,
        "57014",
    );
    assert_transaction_aborted(&mut b, &schema);
    begin(&mut a, &schema, level);
    run_ok(&mut a, &set_v(&schema, 1, "from a"));
    begin(&mut b, &schema, level);
    let e = classify_failure(&mut b, &set_v(&schema, 1, "from b"));
    assert_class(
        &e,
        ErrorClass::StatementTimeout,
        ErrorScope::Transaction,
        "57014",
    );
    assert_transaction_aborted(&mut b, &schema);
    run_ok(&mut a, "COMMIT");
}

/// A session the server terminates is gone, whatever the driver reports.
#[test]
fn a_terminated_session_is_a_lost_connection() {
    let Some((db, schema)) = database("terminated") else {
        return;
    };
    let level = IsolationLevel::ReadCommitted;
    let mut victim = session(&db, level);
    let mut admin = db.connect();
    let pid = backend_pid(&mut victim);
    begin(&mut victim, &schema, level);
    assert_eq!(
        first_text(&mut admin, &format!("SELECT pg_terminate_backend({pid})")),
        "t"
    );
    let e = classify_failure(&mut victim, &set_v(&schema, 1, "late"));
    assert_eq!(
        (e.class, e.scope),
        (ErrorClass::ConnectionLost, ErrorScope::Connection),
        "{e}"
    );
}
