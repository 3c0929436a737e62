//! Helpers shared by the tests: IR builders, a temporary WAL database, and the
//! conversions the host's SQLite driver performs.

#![allow(dead_code)] // Each test binary uses a different subset.

use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use txlab_dialect_sqlite::SqliteDialect;
use txlab_plugin_api::prelude::*;

pub fn col(name: &str, ty: ColumnType) -> Column {
    Column {
        name: name.into(),
        ty,
        not_null: false,
    }
}

pub fn not_null(name: &str, ty: ColumnType) -> Column {
    Column {
        not_null: true,
        ..col(name, ty)
    }
}

pub fn table(name: &str, columns: Vec<Column>, primary_key: &[&str]) -> Table {
    Table {
        name: name.into(),
        columns,
        primary_key: strings(primary_key),
        unique: Vec::new(),
        indexes: Vec::new(),
    }
}

pub fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

pub fn c(name: &str) -> Expr {
    Expr::column(name)
}

pub fn int(v: i64) -> Expr {
    Expr::lit(Value::Int(v))
}

pub fn text(v: &str) -> Expr {
    Expr::lit(Value::Text(v.into()))
}

pub fn bin(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    Expr::binary(op, left, right)
}

pub fn not(e: Expr) -> Expr {
    Expr::Unary {
        op: UnaryOp::Not,
        operand: Box::new(e),
    }
}

pub fn neg(e: Expr) -> Expr {
    Expr::Unary {
        op: UnaryOp::Neg,
        operand: Box::new(e),
    }
}

pub fn is_null(e: Expr, negated: bool) -> Expr {
    Expr::IsNull {
        operand: Box::new(e),
        negated,
    }
}

pub fn in_list(e: Expr, list: Vec<Expr>, negated: bool) -> Expr {
    Expr::InList {
        operand: Box::new(e),
        list,
        negated,
    }
}

pub fn between(e: Expr, low: Expr, high: Expr, negated: bool) -> Expr {
    Expr::Between {
        operand: Box::new(e),
        low: Box::new(low),
        high: Box::new(high),
        negated,
    }
}

pub fn select(table: &str, filter: Option<Expr>, order_by: Vec<Expr>) -> Statement {
    Statement::Select(Select {
        table: table.into(),
        projection: Projection::All,
        filter,
        order_by,
        lock: RowLock::None,
    })
}

pub fn insert(
    table: &str,
    columns: &[&str],
    rows: Vec<Vec<Value>>,
    on_conflict: OnConflict,
) -> Statement {
    Statement::Insert(Insert {
        table: table.into(),
        columns: strings(columns),
        rows: rows
            .into_iter()
            .map(|r| r.into_iter().map(Expr::Literal).collect())
            .collect(),
        on_conflict,
    })
}

pub fn update(table: &str, assignments: Vec<(&str, Expr)>, filter: Option<Expr>) -> Statement {
    Statement::Update(Update {
        table: table.into(),
        assignments: assignments
            .into_iter()
            .map(|(column, value)| Assignment {
                column: column.into(),
                value,
            })
            .collect(),
        filter,
    })
}

pub fn delete(table: &str, filter: Option<Expr>) -> Statement {
    Statement::Delete(Delete {
        table: table.into(),
        filter,
    })
}

/// Renders one statement against `schema` at the only level SQLite offers.
pub fn render(schema: &Schema, statement: &Statement) -> Result<String, PluginError> {
    let ctx = RenderContext {
        schema,
        isolation: IsolationLevel::Serializable,
    };
    SqliteDialect.render(statement, &ctx)
}

pub fn render_ok(schema: &Schema, statement: &Statement) -> String {
    render(schema, statement).unwrap_or_else(|e| panic!("cannot render {statement:?}: {e}"))
}

/// A database file in the temporary directory, removed with its WAL files on drop.
pub struct TempDb {
    path: PathBuf,
}

impl TempDb {
    pub fn new(tag: &str) -> TempDb {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "txlab-dialect-sqlite-{}-{tag}-{n}.db",
            std::process::id()
        ));
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

/// The session limits the tests render cases with.
pub const LIMITS: SessionLimits = SessionLimits {
    statement_timeout_ms: 5_000,
    lock_wait_timeout_ms: 8_000,
};
