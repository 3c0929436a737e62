//! The isolation facts `info()` declares, checked against real SQLite in WAL mode.

mod common;

use common::*;
use rusqlite::Connection;
use txlab_plugin_api::prelude::*;
use txlab_sqlite::SqliteDialect;
use txlab_testkit::build::*;
use txlab_testkit::keyed_table;

fn schema() -> Schema {
    let kv = |name: &str| {
        table(
            name,
            vec![col("id", ColumnType::Int), col("v", ColumnType::Text)],
            &["id"],
        )
    };
    Schema {
        tables: vec![kv("t"), kv("u")],
    }
}

fn database(tag: &str) -> (TempDb, Schema) {
    let db = TempDb::new(tag);
    let schema = schema();
    let conn = db.connect();
    let start = insert(
        "t",
        &["id", "v"],
        vec![vec![Value::Int(1), Value::Text("start".into())]],
        OnConflict::Error,
    );
    create_and_run(&conn, &schema, &[start]);
    (db, schema)
}

fn level() -> LevelSemantics {
    SqliteDialect
        .info()
        .level(IsolationLevel::Serializable)
        .unwrap()
        .clone()
}

/// Sets `v` of row 1, the only row.
fn set_v(schema: &Schema, v: &str) -> String {
    render_ok(schema, &keyed_table::set_v(1, v))
}

fn read_v(conn: &Connection, schema: &Schema) -> Value {
    let rows = run_ok(conn, &render_ok(schema, &select("t", None, vec![])));
    rows[0][1].clone()
}

#[test]
fn the_snapshot_starts_at_the_first_read() {
    assert_eq!(level().snapshot, SnapshotPoint::FirstRead);
    let (db, schema) = database("first-read");
    let (a, b) = (db.connect(), db.connect());
    run_ok(&a, &render_ok(&schema, &Statement::Begin));
    run_ok(&b, &set_v(&schema, "before first read"));
    // Not at BEGIN: the commit after BEGIN is visible.
    assert_eq!(read_v(&a, &schema), Value::Text("before first read".into()));
    run_ok(&b, &set_v(&schema, "after first read"));
    // At the first read: later commits are not.
    assert_eq!(read_v(&a, &schema), Value::Text("before first read".into()));
    run_ok(&a, &render_ok(&schema, &Statement::Commit));
    assert_eq!(read_v(&a, &schema), Value::Text("after first read".into()));
}

#[test]
fn one_writer_at_a_time_and_stale_writers_fail() {
    let semantics = level();
    assert_eq!(semantics.write_conflict, WriteConflict::SingleWriter);
    assert_eq!(semantics.write_reads, WriteReads::Snapshot);
    let (db, schema) = database("single-writer");
    let (a, b) = (db.connect(), db.connect());
    run_ok(&a, &render_ok(&schema, &Statement::Begin));
    run_ok(&a, &set_v(&schema, "a"));
    run_ok(&b, &render_ok(&schema, &Statement::Begin));
    assert_eq!(read_v(&b, &schema), Value::Text("start".into()));
    let e = classify_failure(&b, &set_v(&schema, "b"));
    assert_eq!(e.class, ErrorClass::LockWaitTimeout, "{e}");
    run_ok(&a, &render_ok(&schema, &Statement::Commit));
    // B's snapshot predates A's commit, so B may never write.
    let e = classify_failure(&b, &set_v(&schema, "b"));
    assert_eq!(
        (e.class, e.scope),
        (ErrorClass::SerializationFailure, ErrorScope::Transaction),
        "{e}"
    );
}

/// The write lock covers the whole database: a write anywhere conflicts with a
/// write anywhere else, so inserts into a scanned range conflict too.
#[test]
fn writes_conflict_database_wide() {
    let semantics = level();
    assert!(semantics.predicate_conflicts && !semantics.semi_consistent_writes);
    let (db, schema) = database("database-wide");
    let (a, b) = (db.connect(), db.connect());
    run_ok(&a, &render_ok(&schema, &Statement::Begin));
    run_ok(
        &a,
        &render_ok(
            &schema,
            &delete("t", Some(bin(BinaryOp::Gt, c("id"), int(5)))),
        ),
    );
    let into = |table: &str, id: i64| {
        render_ok(
            &schema,
            &insert(
                table,
                &["id", "v"],
                vec![vec![Value::Int(id), Value::Null]],
                OnConflict::Error,
            ),
        )
    };
    for sql in [into("t", 6), into("u", 1)] {
        let e = classify_failure(&b, &sql);
        assert_eq!(e.class, ErrorClass::LockWaitTimeout, "{sql}: {e}");
    }
    run_ok(&a, &render_ok(&schema, &Statement::Commit));
    run_ok(&b, &into("t", 6));
    run_ok(&b, &into("u", 1));
}
