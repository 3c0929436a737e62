//! Classification of errors that real SQLite raises for rendered statements.

mod common;

use common::*;
use rusqlite::Connection;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::keyed_table;

/// A WAL database holding the keyed table with rows (1, 10, 'a') and (2, 20, 'b').
fn database(tag: &str) -> (TempDb, Schema) {
    let db = TempDb::new(tag);
    let schema = keyed_table::schema(ColumnType::Text);
    let conn = db.connect();
    create_and_run(&conn, &schema, &[keyed_table::fill()]);
    (db, schema)
}

fn insert_row(schema: &Schema, id: Value, k: Value, v: Value) -> String {
    render_ok(schema, &keyed_table::insert_row(id, k, v))
}

fn set_v(schema: &Schema, id: i64, v: &str) -> String {
    render_ok(schema, &keyed_table::set_v(id, v))
}

fn assert_class(e: &DbError, class: ErrorClass, scope: ErrorScope, code: i64) {
    assert_eq!(
        (e.class, e.scope, e.code),
        (class, scope, Some(code)),
        "{e}"
    );
    assert!(!e.message.is_empty());
}

#[test]
fn constraint_violations_undo_the_statement() {
    let (db, schema) = database("constraints");
    let conn = db.connect();
    run_ok(&conn, "BEGIN");
    let text = |s: &str| Value::Text(s.into());
    let cases = [
        (
            insert_row(&schema, Value::Int(1), Value::Int(99), text("x")),
            1555,
        ),
        (
            insert_row(&schema, Value::Int(3), Value::Int(10), text("x")),
            2067,
        ),
        (
            insert_row(&schema, Value::Int(3), Value::Int(30), Value::Null),
            1299,
        ),
    ];
    for (sql, code) in cases {
        let e = classify_failure(&conn, &sql);
        assert_class(&e, ErrorClass::Constraint, ErrorScope::Statement, code);
        assert!(
            !conn.is_autocommit(),
            "the transaction must go on after {sql}"
        );
    }
    run_ok(&conn, "COMMIT");
}

#[test]
fn syntax_and_unknown_names_are_syntax_errors() {
    let (db, schema) = database("syntax");
    let conn = db.connect();
    let e = classify_failure(&conn, "SELEC * FROM \"t\"");
    assert_class(&e, ErrorClass::Syntax, ErrorScope::Statement, 1);
    assert!(e.message.contains("syntax error"), "{e}");
    let e = classify_failure(&conn, &render_ok(&schema, &delete("missing", None)));
    assert_class(&e, ErrorClass::Syntax, ErrorScope::Statement, 1);
    assert!(e.message.contains("no such table"), "{e}");
}

#[test]
fn oversized_values_are_data_errors() {
    let (db, _) = database("toobig");
    let conn = db.connect();
    // Beyond SQLite's default SQLITE_MAX_LENGTH of 10^9 bytes; nothing is allocated.
    let e = classify_failure(&conn, "SELECT zeroblob(2000000000)");
    assert_class(&e, ErrorClass::Data, ErrorScope::Statement, 18);
}

#[test]
fn a_type_mismatch_is_a_data_error() {
    let (db, _) = database("mismatch");
    let conn = db.connect();
    // Only a rowid alias checks the type of its values.
    run_ok(&conn, "CREATE TABLE r (id INTEGER PRIMARY KEY)");
    let e = classify_failure(&conn, "INSERT INTO r (id) VALUES ('x')");
    assert_class(&e, ErrorClass::Data, ErrorScope::Statement, 20);
}

/// The host's statement timeout interrupts the statement.
#[test]
fn an_interrupted_statement_is_a_timeout() {
    let (db, _) = database("interrupt");
    let conn = db.connect();
    let handle = conn.get_interrupt_handle();
    let done = Arc::new(AtomicBool::new(false));
    // An interrupt that comes before the statement starts is lost, so it repeats
    // until the statement has ended.
    let interrupter = thread::spawn({
        let done = Arc::clone(&done);
        move || {
            while !done.load(Ordering::Acquire) {
                thread::sleep(Duration::from_millis(20));
                handle.interrupt();
            }
        }
    });
    let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                   SELECT count(*) FROM n";
    let e = classify_failure(&conn, endless);
    done.store(true, Ordering::Release);
    interrupter.join().unwrap();
    assert_class(&e, ErrorClass::StatementTimeout, ErrorScope::Statement, 9);
}

fn connect_pair(db: &TempDb) -> (Connection, Connection) {
    (db.connect(), db.connect())
}

/// A reader whose snapshot went stale cannot write: SQLITE_BUSY_SNAPSHOT, and the
/// transaction must roll back.
#[test]
fn a_stale_writer_gets_a_serialization_failure() {
    let (db, schema) = database("busy-snapshot");
    let (a, b) = connect_pair(&db);
    run_ok(&a, &render_ok(&schema, &Statement::Begin));
    run_ok(&a, &render_ok(&schema, &select("t", None, vec![])));
    run_ok(&b, &set_v(&schema, 1, "from b"));
    let e = classify_failure(&a, &set_v(&schema, 2, "from a"));
    assert_class(
        &e,
        ErrorClass::SerializationFailure,
        ErrorScope::Transaction,
        517,
    );
    // SQLite keeps the read transaction open; the host must roll it back.
    assert!(!a.is_autocommit());
    let e = classify_failure(&a, &set_v(&schema, 2, "again"));
    assert_eq!(e.class, ErrorClass::SerializationFailure, "{e}");
    run_ok(&a, &render_ok(&schema, &Statement::Rollback));
    run_ok(&a, &set_v(&schema, 2, "after rollback"));
}

/// While one transaction holds the write lock, any other write is BUSY.
#[test]
fn a_second_writer_is_busy() {
    let (db, schema) = database("busy");
    let (a, b) = connect_pair(&db);
    run_ok(&a, &render_ok(&schema, &Statement::Begin));
    run_ok(&a, &set_v(&schema, 1, "from a"));
    run_ok(&b, &render_ok(&schema, &Statement::Begin));
    let e = classify_failure(&b, &set_v(&schema, 2, "from b"));
    assert_class(&e, ErrorClass::LockWaitTimeout, ErrorScope::Statement, 5);
    assert!(!b.is_autocommit(), "BUSY leaves the transaction open");
    run_ok(&a, &render_ok(&schema, &Statement::Commit));
    // B had read nothing, so once the lock is free its retry goes through.
    run_ok(&b, &set_v(&schema, 2, "from b"));
    run_ok(&b, &render_ok(&schema, &Statement::Commit));
}
