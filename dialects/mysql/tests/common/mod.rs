//! Helpers shared by the tests: the dialect they run, a throw-away database on the
//! live server, and the conversions a MySQL-protocol driver performs. The IR
//! builders come from `txlab_testkit`.

#![allow(dead_code)] // Each test binary uses a different subset.

use mysql::consts::{CapabilityFlags, ColumnType as WireType};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder};
use std::time::{Duration, Instant};
use txlab_mysql::{innodb_status_waits, MariadbDialect};
use txlab_plugin_api::prelude::*;
use txlab_testkit::dialect::{create_and_run_sql, render_ok_at, session_setup, LIMITS};
use txlab_testkit::live;

/// Renders one statement against `schema` at REPEATABLE READ, InnoDB's default.
pub fn render_ok(dialect: &dyn Dialect, schema: &Schema, statement: &Statement) -> String {
    render_ok_at(dialect, schema, IsolationLevel::RepeatableRead, statement)
}

/// Creates the tables of `schema` with `dialect` on `conn`, then runs
/// `statements`.
pub fn create_and_run(
    conn: &mut Conn,
    dialect: &dyn Dialect,
    schema: &Schema,
    statements: &[Statement],
) {
    let level = IsolationLevel::RepeatableRead;
    for sql in create_and_run_sql(dialect, schema, level, statements) {
        run_ok(conn, &sql);
    }
}

/// The dialect every live test speaks: the server here is MariaDB.
pub fn mariadb(snapshot_isolation: bool) -> MariadbDialect {
    <MariadbDialect as DialectPlugin>::new(txlab_mysql::MariadbConfig {
        snapshot_isolation: Some(snapshot_isolation),
    })
    .unwrap()
}

/// A database of its own on the live server, dropped with everything in it when
/// the value goes out of scope.
pub struct LiveDb {
    pub name: String,
    opts: Opts,
}

/// A live server the tests connect to: what it is, the environment variable
/// with its URL, and the URL without it.
pub struct LiveServer {
    pub name: &'static str,
    pub url_var: &'static str,
    pub default_url: &'static str,
}

/// MariaDB 10.11, the server most live tests run against.
pub const MARIADB: LiveServer = LiveServer {
    name: "MariaDB",
    url_var: "TXLAB_MYSQL_URL",
    default_url: "mysql://root@127.0.0.1:3306",
};

/// MySQL 9.7, which `servers/servers.sh` starts from a Debian sid chroot.
pub const MYSQL9: LiveServer = LiveServer {
    name: "MySQL 9",
    url_var: "TXLAB_MYSQL9_URL",
    default_url: "mysql://txlab:txlab@127.0.0.1:3310",
};

/// A fresh database on the server at `TXLAB_MYSQL_URL` (default: the local
/// server, user root), or `None` when it cannot be reached; see
/// [`live::unavailable`].
pub fn live_db(tag: &str) -> Option<LiveDb> {
    live_db_on(&MARIADB, tag)
}

/// A fresh database on `server`, or `None` when it cannot be reached; see
/// [`live::unavailable`].
pub fn live_db_on(on: &LiveServer, tag: &str) -> Option<LiveDb> {
    let url = live::server_url(on.url_var, on.default_url);
    let unavailable = |why: &str| live::unavailable(on.name, why);
    let server = match Opts::from_url(&url) {
        Ok(opts) => opts,
        Err(e) => return unavailable(&format!("{} is not a MySQL URL: {e}", on.url_var)),
    };
    let name = live::unique_database_name(tag);
    let admin_opts = OptsBuilder::from_opts(server.clone())
        .db_name(None::<String>)
        .tcp_connect_timeout(Some(Duration::from_secs(5)));
    let mut admin = match Conn::new(admin_opts) {
        Ok(conn) => conn,
        Err(e) => return unavailable(&format!("cannot connect to {url}: {e}")),
    };
    admin
        .query_drop(format!("CREATE DATABASE `{name}` DEFAULT CHARSET utf8mb4"))
        .unwrap_or_else(|e| panic!("cannot create database {name}: {e}"));
    let opts = OptsBuilder::from_opts(server)
        .db_name(Some(name.clone()))
        // UPDATE reports the rows it matched, as the IR counts them, not only
        // the rows whose values changed.
        .additional_capabilities(CapabilityFlags::CLIENT_FOUND_ROWS)
        .into();
    Some(LiveDb { name, opts })
}

impl LiveDb {
    /// A plain connection to the test database: the server's defaults, no set-up.
    pub fn connect(&self) -> Conn {
        Conn::new(self.opts.clone()).expect("connect to the test database")
    }

    /// A connection set up by `dialect` for `level`, its checks verified.
    pub fn session(&self, dialect: &dyn Dialect, level: IsolationLevel) -> Conn {
        self.session_with(dialect, level, LIMITS)
    }

    pub fn session_with(
        &self,
        dialect: &dyn Dialect,
        level: IsolationLevel,
        limits: SessionLimits,
    ) -> Conn {
        let setup = session_setup(dialect, level, limits).unwrap();
        let mut conn = self.connect();
        apply_setup(&mut conn, &setup);
        conn
    }
}

impl Drop for LiveDb {
    fn drop(&mut self) {
        let admin_opts = OptsBuilder::from_opts(self.opts.clone()).db_name(None::<String>);
        if let Ok(mut admin) = Conn::new(admin_opts) {
            let _ = admin.query_drop(format!("DROP DATABASE IF EXISTS `{}`", self.name));
        }
    }
}

/// Runs a session's set-up statements, then its checks, as the host does.
pub fn apply_setup(conn: &mut Conn, setup: &SessionSetup) {
    for sql in &setup.statements {
        run_ok(conn, sql);
    }
    for check in &setup.checks {
        let got = first_value_text(conn, &check.sql);
        assert_eq!(got, check.expect, "`{}`: {}", check.sql, check.explain);
    }
}

/// The first value of the first row, as text.
pub fn first_value_text(conn: &mut Conn, sql: &str) -> String {
    match run_ok(conn, sql).first().and_then(|r| r.first()) {
        Some(Value::Int(i)) => i.to_string(),
        Some(Value::Float(f)) => f.to_string(),
        Some(Value::Text(t) | Value::Decimal(t)) => t.clone(),
        other => panic!("`{sql}` returned {other:?}"),
    }
}

/// The rows and affected count of one statement.
#[derive(Debug)]
pub struct Done {
    pub rows: Vec<Vec<Value>>,
    pub affected: u64,
}

/// Runs one statement over the text protocol, as a driver sends rendered SQL.
pub fn exec(conn: &mut Conn, sql: &str) -> mysql::Result<Done> {
    let mut result = conn.query_iter(sql)?;
    // The count belongs to the result set, which iterating its rows consumes.
    let affected = result.affected_rows();
    let types: Vec<WireType> = result
        .columns()
        .as_ref()
        .iter()
        .map(|c| c.column_type())
        .collect();
    let mut rows = Vec::new();
    for row in result.by_ref() {
        let row = row?.unwrap();
        rows.push(
            row.into_iter()
                .zip(&types)
                .map(|(v, &ty)| value(v, ty))
                .collect(),
        );
    }
    Ok(Done { rows, affected })
}

pub fn run(conn: &mut Conn, sql: &str) -> mysql::Result<Vec<Vec<Value>>> {
    exec(conn, sql).map(|done| done.rows)
}

pub fn run_ok(conn: &mut Conn, sql: &str) -> Vec<Vec<Value>> {
    run(conn, sql).unwrap_or_else(|e| panic!("`{sql}` failed: {e}"))
}

/// A text-protocol value as the IR holds it: numbers by column type, DECIMAL as its
/// text, strings as text. BOOLEAN columns are TINYINT and come back as integers.
pub fn value(v: mysql::Value, ty: WireType) -> Value {
    use WireType::*;
    let bytes = match v {
        mysql::Value::NULL => return Value::Null,
        mysql::Value::Int(i) => return Value::Int(i),
        mysql::Value::UInt(u) => return Value::Int(i64::try_from(u).expect("fits i64")),
        mysql::Value::Double(f) => return Value::Float(f),
        mysql::Value::Float(f) => return Value::Float(f.into()),
        mysql::Value::Bytes(b) => b,
        other => panic!("unexpected value {other:?}"),
    };
    let text = String::from_utf8(bytes).expect("UTF-8");
    match ty {
        MYSQL_TYPE_TINY | MYSQL_TYPE_SHORT | MYSQL_TYPE_INT24 | MYSQL_TYPE_LONG
        | MYSQL_TYPE_LONGLONG => Value::Int(text.parse().expect("an integer")),
        MYSQL_TYPE_DOUBLE | MYSQL_TYPE_FLOAT => Value::Float(text.parse().expect("a number")),
        MYSQL_TYPE_NEWDECIMAL | MYSQL_TYPE_DECIMAL => Value::Decimal(text),
        _ => Value::Text(text),
    }
}

/// DOUBLE values exactly, over the binary protocol: text output may round.
pub fn doubles(conn: &mut Conn, sql: &str) -> Vec<(i64, f64)> {
    conn.exec_map(sql, (), |(id, f): (i64, f64)| (id, f))
        .unwrap_or_else(|e| panic!("`{sql}` failed: {e}"))
}

/// The error as a driver reports it to the dialect.
pub fn raw_error(error: &mysql::Error) -> RawDbError {
    match error {
        mysql::Error::MySqlError(e) => RawDbError {
            code: Some(i64::from(e.code)),
            sqlstate: Some(e.state.clone()),
            message: e.message.clone(),
            in_transaction: None,
            connection_lost: false,
            timed_out: false,
        },
        other => panic!("not a server error: {other:?}"),
    }
}

/// Runs `sql`, which must fail, and classifies the error.
pub fn classify_failure(conn: &mut Conn, sql: &str) -> DbError {
    match run(conn, sql) {
        Ok(rows) => panic!("`{sql}` succeeded with {rows:?}"),
        Err(e) => mariadb(false).classify_error(&raw_error(&e)),
    }
}

/// Whether the session is inside a transaction (MariaDB's `@@in_transaction`).
pub fn in_transaction(conn: &mut Conn) -> bool {
    first_value_text(conn, "SELECT @@in_transaction") == "1"
}

pub fn connection_id(conn: &mut Conn) -> u64 {
    conn.connection_id().into()
}

/// The text of `SHOW ENGINE INNODB STATUS`, the way the host's probe reads it.
pub fn innodb_status(conn: &mut Conn) -> String {
    let row: (String, String, String) = conn
        .query_first("SHOW ENGINE INNODB STATUS")
        .expect("SHOW ENGINE INNODB STATUS")
        .expect("one row");
    row.2
}

/// Polls the InnoDB status until `session` is shown waiting for a lock; panics
/// after `limit`.
pub fn wait_until_blocked(monitor: &mut Conn, session: u64, limit: Duration) {
    let start = Instant::now();
    while !innodb_status_waits(&innodb_status(monitor), session) {
        assert!(
            start.elapsed() < limit,
            "session {session} was not seen waiting for a lock within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `sql` on `conn` in a thread, so that the caller can act while it waits.
pub fn spawn_statement(
    mut conn: Conn,
    sql: String,
) -> std::thread::JoinHandle<(Conn, mysql::Result<Done>)> {
    std::thread::spawn(move || {
        let result = exec(&mut conn, &sql);
        (conn, result)
    })
}
