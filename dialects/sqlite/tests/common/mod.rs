//! Helpers shared by the tests: rendering at SQLite's one level, a temporary WAL
//! database, and the conversions the host's SQLite driver performs. The IR
//! builders come from `txlab_testkit`.

#![allow(dead_code)] // Each test binary uses a different subset.

use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::path::PathBuf;
use std::time::Duration;
use txlab_plugin_api::prelude::*;
use txlab_sqlite::SqliteDialect;
use txlab_testkit::dialect::{create_and_run_sql, render_at, render_ok_at};
use txlab_testkit::live::unique_database_name;

/// Renders one statement against `schema` at the only level SQLite offers.
pub fn render(schema: &Schema, statement: &Statement) -> Result<String, PluginError> {
    render_at(
        &SqliteDialect,
        schema,
        IsolationLevel::Serializable,
        statement,
    )
}

pub fn render_ok(schema: &Schema, statement: &Statement) -> String {
    render_ok_at(
        &SqliteDialect,
        schema,
        IsolationLevel::Serializable,
        statement,
    )
}

/// Creates the tables of `schema` on `conn`, then runs `statements`.
pub fn create_and_run(conn: &Connection, schema: &Schema, statements: &[Statement]) {
    for sql in create_and_run_sql(
        &SqliteDialect,
        schema,
        IsolationLevel::Serializable,
        statements,
    ) {
        run_ok(conn, &sql);
    }
}

/// A database file in the temporary directory, removed with its WAL files on drop.
pub struct TempDb {
    path: PathBuf,
}

impl TempDb {
    pub fn new(tag: &str) -> TempDb {
        let path = std::env::temp_dir().join(format!("{}.db", unique_database_name(tag)));
        let db = TempDb { path };
        db.remove_files();
        db
    }

    /// A connection set up the way the host's driver sets one up: WAL mode and no
    /// busy waiting inside SQLite.
    pub fn connect(&self) -> Connection {
        let conn = Connection::open(&self.path).expect("open the test database");
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .expect("switch to WAL");
        assert_eq!(mode, "wal");
        conn.busy_timeout(Duration::ZERO).expect("set busy_timeout");
        conn
    }

    fn remove_files(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut p = self.path.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        self.remove_files();
    }
}

/// A driver value as the host maps it.
pub fn value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Float(f),
        ValueRef::Text(t) => Value::Text(String::from_utf8(t.to_vec()).expect("UTF-8 text")),
        ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
    }
}

/// Runs one statement and returns the rows it produced (none for writes).
pub fn run(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<Vec<Value>>> {
    let mut stmt = conn.prepare(sql)?;
    let width = stmt.column_count();
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push((0..width).map(|i| value(row.get_ref_unwrap(i))).collect());
    }
    Ok(out)
}

pub fn run_ok(conn: &Connection, sql: &str) -> Vec<Vec<Value>> {
    run(conn, sql).unwrap_or_else(|e| panic!("`{sql}` failed: {e}"))
}

/// The error as the host's driver reports it to the dialect.
pub fn raw_error(conn: &Connection, error: &rusqlite::Error) -> RawDbError {
    let (code, message) = match error {
        rusqlite::Error::SqliteFailure(e, message) => (e, message.clone()),
        rusqlite::Error::SqlInputError { error, msg, .. } => (error, Some(msg.clone())),
        other => panic!("not an SQLite error: {other:?}"),
    };
    RawDbError {
        code: Some(i64::from(code.extended_code)),
        sqlstate: None,
        message: message.unwrap_or_else(|| code.to_string()),
        in_transaction: Some(!conn.is_autocommit()),
        connection_lost: false,
        timed_out: false,
    }
}

/// Runs `sql`, which must fail, and classifies the error.
pub fn classify_failure(conn: &Connection, sql: &str) -> DbError {
    let error = match run(conn, sql) {
        Ok(rows) => panic!("`{sql}` succeeded with {rows:?}"),
        Err(e) => e,
    };
    SqliteDialect.classify_error(&raw_error(conn, &error))
}
