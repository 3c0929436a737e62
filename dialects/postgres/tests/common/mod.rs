//! Helpers shared by the tests: rendering for the postgres dialect, a throw-away
//! database on the local PostgreSQL server, and the value and error conversions
//! the host's driver does. The IR builders come from `txlab_testkit`.

#![allow(dead_code)] // Each test binary uses a different subset.

use postgres::types::{FromSql, Type};
use postgres::{Client, Config, NoTls, Row};
use std::str::FromStr;
use std::thread;
use std::time::{Duration, Instant};
use txlab_plugin_api::prelude::*;
use txlab_postgres::PostgresDialect;
use txlab_testkit::dialect::{create_and_run_sql, render_ok_at, session_setup};
use txlab_testkit::live;

/// Renders one statement for the postgres dialect at READ COMMITTED, PostgreSQL's
/// default.
pub fn render_ok(schema: &Schema, statement: &Statement) -> String {
    render_ok_at(
        &PostgresDialect::default(),
        schema,
        IsolationLevel::ReadCommitted,
        statement,
    )
}

/// Creates the tables of `schema` on `client`, then runs `statements`, both for
/// the postgres dialect.
pub fn create_and_run(client: &mut Client, schema: &Schema, statements: &[Statement]) {
    let dialect = PostgresDialect::default();
    for sql in create_and_run_sql(&dialect, schema, IsolationLevel::ReadCommitted, statements) {
        run_ok(client, &sql);
    }
}

/// A database of its own on the server at `TXLAB_PG_URL` (default: the local
/// server, user postgres), dropped with everything in it when the value drops.
pub struct LiveDb {
    admin: Client,
    config: Config,
    pub name: String,
}

/// A fresh database for one test, or `None` when no server answers; see
/// [`live::unavailable`].
pub fn live_db(tag: &str) -> Option<LiveDb> {
    let url = live::server_url(
        "TXLAB_PG_URL",
        "postgres://postgres@127.0.0.1:5432/postgres",
    );
    let mut config = match Config::from_str(&url) {
        Ok(c) => c,
        Err(e) => panic!("TXLAB_PG_URL is not a connection URL: {e}"),
    };
    config.connect_timeout(Duration::from_secs(5));
    let mut admin = match config.connect(NoTls) {
        Ok(client) => client,
        Err(e) => return live::unavailable("PostgreSQL", &format!("cannot connect to {url}: {e}")),
    };
    let name = live::unique_database_name(tag);
    admin
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .unwrap_or_else(|e| panic!("cannot create database {name}: {e}"));
    let mut db_config = config.clone();
    db_config.dbname(&name);
    Some(LiveDb {
        admin,
        config: db_config,
        name,
    })
}

impl LiveDb {
    /// A new connection to the test database, without any set-up.
    pub fn connect(&self) -> Client {
        self.config
            .connect(NoTls)
            .unwrap_or_else(|e| panic!("cannot connect to {}: {e}", self.name))
    }

    /// A connection set up the way the dialect asks: its statements, then its
    /// checks, each of which must hold.
    pub fn session(&self, setup: &SessionSetup) -> Client {
        let mut client = self.connect();
        for sql in &setup.statements {
            run(&mut client, sql).unwrap_or_else(|e| panic!("`{sql}` failed: {e}"));
        }
        for check in &setup.checks {
            let got = first_text(&mut client, &check.sql);
            assert_eq!(got, check.expect, "{}: {}", check.sql, check.explain);
        }
        client
    }

    /// A session of the postgres dialect at `level` with the given limits.
    pub fn session_at(
        &self,
        dialect: &PostgresDialect,
        level: IsolationLevel,
        limits: SessionLimits,
    ) -> Client {
        self.session(&session_setup(dialect, level, limits).unwrap())
    }
}

impl Drop for LiveDb {
    fn drop(&mut self) {
        // FORCE ends sessions a failed test left behind.
        let sql = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name);
        if let Err(e) = self.admin.batch_execute(&sql) {
            eprintln!("cannot drop test database {}: {e}", self.name);
        }
    }
}

/// The first value of the first row, as text.
pub fn first_text(client: &mut Client, sql: &str) -> String {
    let messages = client
        .simple_query(sql)
        .unwrap_or_else(|e| panic!("`{sql}` failed: {e}"));
    messages
        .iter()
        .find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        })
        .unwrap_or_else(|| panic!("`{sql}` returned no row"))
}

/// NUMERIC in binary form, decoded to the text PostgreSQL prints: digits in base
/// 10 000 with a weight and a display scale.
struct Numeric(String);

impl<'a> FromSql<'a> for Numeric {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let word = |i: usize| u16::from_be_bytes([raw[2 * i], raw[2 * i + 1]]);
        let ndigits = word(0) as usize;
        let weight = i64::from(word(1) as i16);
        let sign = word(2);
        let dscale = word(3) as usize;
        match sign {
            0xC000 => return Ok(Numeric("NaN".into())),
            0xD000 => return Ok(Numeric("Infinity".into())),
            0xF000 => return Ok(Numeric("-Infinity".into())),
            _ => {}
        }
        // Group k stands for digits[k] * 10000^(weight - k).
        let group = |k: i64| -> u16 {
            if (0..ndigits as i64).contains(&k) {
                word(4 + k as usize)
            } else {
                0
            }
        };
        let mut out = String::new();
        if sign == 0x4000 {
            out.push('-');
        }
        if weight < 0 {
            out.push('0');
        } else {
            out.push_str(&group(0).to_string());
            for k in 1..=weight {
                out.push_str(&format!("{:04}", group(k)));
            }
        }
        if dscale > 0 {
            let mut fraction = String::new();
            let mut k = weight + 1;
            while fraction.len() < dscale {
                fraction.push_str(&format!("{:04}", group(k)));
                k += 1;
            }
            fraction.truncate(dscale);
            out.push('.');
            out.push_str(&fraction);
        }
        Ok(Numeric(out))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}

/// A driver value as the host maps it.
pub fn value(row: &Row, i: usize) -> Value {
    let ty = row.columns()[i].type_().clone();
    match ty {
        Type::BOOL => row
            .get::<_, Option<bool>>(i)
            .map_or(Value::Null, Value::Bool),
        Type::INT2 => row
            .get::<_, Option<i16>>(i)
            .map_or(Value::Null, |v| Value::Int(v.into())),
        Type::INT4 => row
            .get::<_, Option<i32>>(i)
            .map_or(Value::Null, |v| Value::Int(v.into())),
        Type::INT8 => row.get::<_, Option<i64>>(i).map_or(Value::Null, Value::Int),
        Type::FLOAT8 => row
            .get::<_, Option<f64>>(i)
            .map_or(Value::Null, Value::Float),
        Type::NUMERIC => row
            .get::<_, Option<Numeric>>(i)
            .map_or(Value::Null, |n| Value::Decimal(n.0)),
        Type::BYTEA => row
            .get::<_, Option<Vec<u8>>>(i)
            .map_or(Value::Null, Value::Bytes),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => row
            .get::<_, Option<String>>(i)
            .map_or(Value::Null, Value::Text),
        other => panic!("no test maps values of type {other}"),
    }
}

/// The rows a statement produced, or its error.
pub type RunResult = Result<Vec<Vec<Value>>, postgres::Error>;

/// Runs one statement and returns the rows it produced (none for writes).
pub fn run(client: &mut Client, sql: &str) -> RunResult {
    let rows = client.query(sql, &[])?;
    Ok(rows
        .iter()
        .map(|row| (0..row.len()).map(|i| value(row, i)).collect())
        .collect())
}

pub fn run_ok(client: &mut Client, sql: &str) -> Vec<Vec<Value>> {
    run(client, sql).unwrap_or_else(|e| panic!("`{sql}` failed: {e}"))
}

/// Runs a write and returns how many rows it changed.
pub fn execute_ok(client: &mut Client, sql: &str) -> u64 {
    client
        .execute(sql, &[])
        .unwrap_or_else(|e| panic!("`{sql}` failed: {e}"))
}

/// The error as the host's driver reports it to the dialect.
pub fn raw_error(error: &postgres::Error) -> RawDbError {
    match error.as_db_error() {
        Some(db) => RawDbError {
            code: None,
            sqlstate: Some(db.code().code().to_string()),
            message: db.message().to_string(),
            in_transaction: None,
            connection_lost: false,
            timed_out: false,
        },
        None => RawDbError {
            message: error.to_string(),
            connection_lost: error.is_closed(),
            ..RawDbError::default()
        },
    }
}

/// Classifies the error `result` must hold.
pub fn classify(dialect: &dyn Dialect, result: RunResult, what: &str) -> DbError {
    match result {
        Ok(rows) => panic!("{what} succeeded with {rows:?}"),
        Err(e) => dialect.classify_error(&raw_error(&e)),
    }
}

/// Runs `sql`, which must fail, and classifies the error.
pub fn classify_failure(client: &mut Client, sql: &str) -> DbError {
    classify(&PostgresDialect::default(), run(client, sql), sql)
}

pub fn backend_pid(client: &mut Client) -> i32 {
    client
        .query_one("SELECT pg_backend_pid()", &[])
        .expect("read the backend pid")
        .get(0)
}

/// A statement running on its own thread, for statements that block.
pub struct Pending {
    handle: thread::JoinHandle<(Client, RunResult)>,
}

pub fn spawn(mut client: Client, sql: String) -> Pending {
    Pending {
        handle: thread::spawn(move || {
            let result = run(&mut client, &sql);
            (client, result)
        }),
    }
}

impl Pending {
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    pub fn join(self) -> (Client, RunResult) {
        self.handle.join().expect("the statement thread panicked")
    }
}

/// The dialect's lock probe for the session with backend pid `pid`, run on
/// `monitor` the way the host's monitor runs it.
pub fn probe(monitor: &mut Client, pid: i32) -> bool {
    let LockProbe::Query { sql } = PostgresDialect::default().info().lock_probe else {
        panic!("the postgres dialect probes with a query");
    };
    let answer = first_text(monitor, &sql.replace("{session}", &pid.to_string()));
    match answer.as_str() {
        "t" => true,
        "f" => false,
        other => panic!("the probe answered {other:?}"),
    }
}

/// Waits until the probe sees the session waiting for a lock.
pub fn wait_until_blocked(monitor: &mut Client, pid: i32, pending: &Pending) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !probe(monitor, pid) {
        assert!(
            !pending.is_finished(),
            "the statement finished instead of waiting for a lock"
        );
        assert!(
            Instant::now() < deadline,
            "the session did not wait for a lock within 10 s"
        );
        thread::sleep(Duration::from_millis(2));
    }
}
