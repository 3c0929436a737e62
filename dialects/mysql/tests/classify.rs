//! Classification of errors that the live MariaDB raises for rendered statements,
//! and what each error undid, read back from `@@in_transaction`.

mod common;

use common::*;
use mysql::Conn;
use std::time::Duration;
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::keyed_table;

/// The keyed table with rows (1, 10, 'a') and (2, 20, 'b').
fn database(tag: &str) -> Option<(LiveDb, Schema)> {
    let db = live_db(tag)?;
    let schema = keyed_table::schema(ColumnType::Varchar { len: 4 });
    let dialect = mariadb(false);
    let mut conn = db.connect();
    create_and_run(&mut conn, &dialect, &schema, &[keyed_table::fill()]);
    Some((db, schema))
}

fn insert_row(schema: &Schema, id: Value, k: Value, v: Value) -> String {
    render_ok(&mariadb(false), schema, &keyed_table::insert_row(id, k, v))
}

fn set_v(schema: &Schema, id: i64, v: &str) -> String {
    render_ok(&mariadb(false), schema, &keyed_table::set_v(id, v))
}

fn begin(conn: &mut Conn, schema: &Schema) {
    run_ok(conn, &render_ok(&mariadb(false), schema, &Statement::Begin));
}

fn assert_class(e: &DbError, class: ErrorClass, scope: ErrorScope, code: i64) {
    assert_eq!(
        (e.class, e.scope, e.code),
        (class, scope, Some(code)),
        "{e}"
    );
    assert!(e.sqlstate.is_some() && !e.message.is_empty(), "{e}");
}

/// Writes row 9 in the open transaction: the write before an error, which
/// [`assert_statement_scope`] expects to survive it.
fn write_row_9(conn: &mut Conn, schema: &Schema) {
    let ok = Value::Text("ok".into());
    run_ok(conn, &insert_row(schema, Value::Int(9), Value::Int(90), ok));
}

/// Statement-scoped errors leave the transaction open and its earlier writes in place.
fn assert_statement_scope(conn: &mut Conn, schema: &Schema) {
    assert!(in_transaction(conn), "the transaction must go on");
    let rows = run_ok(
        conn,
        &render_ok(
            &mariadb(false),
            schema,
            &select("t", Some(eq(c("id"), int(9))), vec![]),
        ),
    );
    assert_eq!(rows.len(), 1, "the write before the error must survive");
}

#[test]
fn constraint_violations_undo_the_statement() {
    let Some((db, schema)) = database("constraints") else {
        return;
    };
    let mut conn = db.session(&mariadb(false), IsolationLevel::RepeatableRead);
    begin(&mut conn, &schema);
    let text = |s: &str| Value::Text(s.into());
    write_row_9(&mut conn, &schema);
    for (sql, code) in [
        (
            insert_row(&schema, Value::Int(1), Value::Int(99), text("x")),
            1062,
        ),
        (
            insert_row(&schema, Value::Int(3), Value::Int(10), text("x")),
            1062,
        ),
        (
            insert_row(&schema, Value::Int(3), Value::Int(30), Value::Null),
            1048,
        ),
    ] {
        let e = classify_failure(&mut conn, &sql);
        assert_class(&e, ErrorClass::Constraint, ErrorScope::Statement, code);
        assert_statement_scope(&mut conn, &schema);
    }
    run_ok(&mut conn, "COMMIT");
}

#[test]
fn bad_values_are_data_errors() {
    let Some((db, schema)) = database("data") else {
        return;
    };
    let mut conn = db.session(&mariadb(false), IsolationLevel::RepeatableRead);
    begin(&mut conn, &schema);
    write_row_9(&mut conn, &schema);
    let too_long = insert_row(
        &schema,
        Value::Int(4),
        Value::Int(40),
        Value::Text("five!".into()),
    );
    let out_of_range = insert_row(
        &schema,
        Value::Int(5),
        Value::Int(1 << 40),
        Value::Text("x".into()),
    );
    let overflow = render_ok(
        &mariadb(false),
        &schema,
        &update(
            "t",
            vec![("k", bin(BinaryOp::Mul, c("k"), int(i64::MAX)))],
            Some(eq(c("id"), int(1))),
        ),
    );
    for (sql, code) in [(too_long, 1406), (out_of_range, 1264), (overflow, 1690)] {
        let e = classify_failure(&mut conn, &sql);
        assert_class(&e, ErrorClass::Data, ErrorScope::Statement, code);
        assert_statement_scope(&mut conn, &schema);
    }
    run_ok(&mut conn, "ROLLBACK");
}

#[test]
fn syntax_and_unknown_names_are_syntax_errors() {
    let Some((db, schema)) = database("syntax") else {
        return;
    };
    let mut conn = db.session(&mariadb(false), IsolationLevel::RepeatableRead);
    let e = classify_failure(&mut conn, "SELEC * FROM `t`");
    assert_class(&e, ErrorClass::Syntax, ErrorScope::Statement, 1064);
    let e = classify_failure(
        &mut conn,
        &render_ok(&mariadb(false), &schema, &delete("missing", None)),
    );
    assert_class(&e, ErrorClass::Syntax, ErrorScope::Statement, 1146);
    let e = classify_failure(
        &mut conn,
        &render_ok(
            &mariadb(false),
            &schema,
            &delete("missing", Some(eq(c("x"), int(1)))),
        ),
    );
    assert_class(&e, ErrorClass::Syntax, ErrorScope::Statement, 1146);
    let e = classify_failure(&mut conn, "SELECT `nope` FROM `t`");
    assert_class(&e, ErrorClass::Syntax, ErrorScope::Statement, 1054);
}

/// innodb_lock_wait_timeout = 1: the waiting statement fails and only it is undone.
#[test]
fn a_lock_wait_timeout_undoes_the_statement() {
    let Some((db, schema)) = database("lockwait") else {
        return;
    };
    let dialect = mariadb(false);
    let limits = SessionLimits {
        statement_timeout_ms: 10_000,
        lock_wait_timeout_ms: 1_000,
    };
    let mut holder = db.session_with(&dialect, IsolationLevel::RepeatableRead, limits);
    let mut waiter = db.session_with(&dialect, IsolationLevel::RepeatableRead, limits);
    begin(&mut holder, &schema);
    run_ok(&mut holder, &set_v(&schema, 1, "h"));
    begin(&mut waiter, &schema);
    write_row_9(&mut waiter, &schema);
    let e = classify_failure(&mut waiter, &set_v(&schema, 1, "w"));
    assert_class(&e, ErrorClass::LockWaitTimeout, ErrorScope::Statement, 1205);
    assert_statement_scope(&mut waiter, &schema);
    run_ok(&mut holder, "ROLLBACK");
    run_ok(&mut waiter, "ROLLBACK");
}

/// Two transactions that wait for each other: InnoDB picks a victim and rolls its
/// whole transaction back.
#[test]
fn a_deadlock_rolls_the_victim_back() {
    let Some((db, schema)) = database("deadlock") else {
        return;
    };
    let dialect = mariadb(false);
    let mut a = db.session(&dialect, IsolationLevel::RepeatableRead);
    let mut b = db.session(&dialect, IsolationLevel::RepeatableRead);
    let mut monitor = db.connect();
    begin(&mut a, &schema);
    begin(&mut b, &schema);
    run_ok(&mut a, &set_v(&schema, 1, "a"));
    run_ok(&mut b, &set_v(&schema, 2, "b"));
    let a_id = connection_id(&mut a);
    let a_waits = spawn_statement(a, set_v(&schema, 2, "a"));
    wait_until_blocked(&mut monitor, a_id, Duration::from_secs(5));
    let b_result = exec(&mut b, &set_v(&schema, 1, "b"));
    let (a, a_result) = a_waits.join().unwrap();
    // Exactly one of them is the victim; the other's statement goes through.
    let (mut victim, error, mut survivor) = match (a_result, b_result) {
        (Err(e), Ok(_)) => (a, e, b),
        (Ok(_), Err(e)) => (b, e, a),
        other => panic!("expected one deadlock victim, got {other:?}"),
    };
    let e = mariadb(false).classify_error(&raw_error(&error));
    assert_class(&e, ErrorClass::Deadlock, ErrorScope::Transaction, 1213);
    assert!(
        !in_transaction(&mut victim),
        "the victim's transaction is gone"
    );
    assert!(in_transaction(&mut survivor));
    run_ok(&mut survivor, "COMMIT");
}

/// With innodb_snapshot_isolation = ON, a write to a row changed after the snapshot
/// fails with 1020, and the server rolls the whole transaction back.
#[test]
fn a_changed_row_under_snapshot_isolation_rolls_the_transaction_back() {
    let Some((db, schema)) = database("checkread") else {
        return;
    };
    let dialect = mariadb(true);
    let mut a = db.session(&dialect, IsolationLevel::RepeatableRead);
    let mut b = db.session(&dialect, IsolationLevel::RepeatableRead);
    begin(&mut a, &schema);
    write_row_9(&mut a, &schema);
    // The first consistent read takes the snapshot.
    run_ok(
        &mut a,
        &render_ok(&dialect, &schema, &select("t", None, vec![])),
    );
    run_ok(&mut b, &set_v(&schema, 1, "b"));
    let e = classify_failure(&mut a, &set_v(&schema, 1, "a"));
    assert_class(
        &e,
        ErrorClass::SerializationFailure,
        ErrorScope::Transaction,
        1020,
    );
    assert!(!in_transaction(&mut a), "the transaction must be gone");
    // Its earlier insert went with it.
    let rows = run_ok(
        &mut a,
        &render_ok(
            &dialect,
            &schema,
            &select("t", Some(eq(c("id"), int(9))), vec![]),
        ),
    );
    assert!(rows.is_empty(), "{rows:?}");
}

/// max_statement_time stops the statement; the transaction goes on.
#[test]
fn the_statement_timeout_stops_only_the_statement() {
    let Some((db, schema)) = database("timeout") else {
        return;
    };
    let limits = SessionLimits {
        statement_timeout_ms: 200,
        lock_wait_timeout_ms: 10_000,
    };
    let mut conn = db.session_with(&mariadb(false), IsolationLevel::RepeatableRead, limits);
    begin(&mut conn, &schema);
    write_row_9(&mut conn, &schema);
    // MariaDB's sequence engine makes a cross join of 10^10 rows.
    let slow = "SELECT SUM(a.seq * b.seq) FROM seq_1_to_100000 a, seq_1_to_100000 b";
    let e = classify_failure(&mut conn, slow);
    assert_class(
        &e,
        ErrorClass::StatementTimeout,
        ErrorScope::Statement,
        1969,
    );
    assert_statement_scope(&mut conn, &schema);
    run_ok(&mut conn, "ROLLBACK");
}

/// KILL QUERY, which the host's monitor uses to wind a stalled case down.
#[test]
fn a_killed_query_is_a_statement_timeout() {
    let Some((db, schema)) = database("kill") else {
        return;
    };
    let dialect = mariadb(false);
    let mut holder = db.session(&dialect, IsolationLevel::RepeatableRead);
    let mut waiter = db.session(&dialect, IsolationLevel::RepeatableRead);
    let mut monitor = db.connect();
    begin(&mut holder, &schema);
    run_ok(&mut holder, &set_v(&schema, 1, "h"));
    begin(&mut waiter, &schema);
    write_row_9(&mut waiter, &schema);
    let id = connection_id(&mut waiter);
    let waiting = spawn_statement(waiter, set_v(&schema, 1, "w"));
    wait_until_blocked(&mut monitor, id, Duration::from_secs(5));
    run_ok(&mut monitor, &format!("KILL QUERY {id}"));
    let (mut waiter, result) = waiting.join().unwrap();
    let e = mariadb(false).classify_error(&raw_error(&result.unwrap_err()));
    assert_class(
        &e,
        ErrorClass::StatementTimeout,
        ErrorScope::Statement,
        1317,
    );
    assert_statement_scope(&mut waiter, &schema);
    run_ok(&mut holder, "ROLLBACK");
    run_ok(&mut waiter, "ROLLBACK");
}
