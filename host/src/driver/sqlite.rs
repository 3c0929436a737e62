//! The embedded SQLite driver: the zero-setup default target.
//!
//! Each session is a connection on its own thread. The database runs in WAL mode
//! with `busy_timeout = 0`: a write that conflicts with another writer fails with
//! SQLITE_BUSY at once, and the session retries it until the holder ends or the
//! lock-wait limit passes. To the executor this looks exactly like a statement
//! blocked on a server, and the session's shared state tells the lock probe,
//! precisely, whether it is waiting.

use super::{BatchError, Driver, DriverError, Monitor, QueryResult, Session, SessionKey, Timeouts};
use async_trait::async_trait;
use rusqlite::{config::DbConfig, ffi, types::ValueRef, Connection, OpenFlags};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use txlab_plugin_api::ir::{RawDbError, Value};

/// How often a waiting statement retries. Short enough that resumption after the
/// holder commits is observed within a fraction of a millisecond.
const RETRY_INTERVAL: Duration = Duration::from_micros(200);

#[derive(Clone, Debug)]
pub struct SqliteOptions {
    pub path: PathBuf,
    pub timeouts: Timeouts,
}

pub struct SqliteDriver {
    options: SqliteOptions,
    next_id: AtomicU64,
}

impl SqliteDriver {
    /// Creates (or opens) the database file and switches it to WAL mode.
    pub fn open(options: SqliteOptions) -> Result<Self, DriverError> {
        let conn = Connection::open(&options.path).map_err(|e| DriverError::Connect {
            target: options.path.display().to_string(),
            reason: e.to_string(),
        })?;
        // WAL is a property of the file: readers never block writers, writers
        // serialise on one lock, and a stale writer gets SQLITE_BUSY_SNAPSHOT.
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(|e| DriverError::Connect {
                target: options.path.display().to_string(),
                reason: format!("cannot enable WAL: {e}"),
            })?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(DriverError::Connect {
                target: options.path.display().to_string(),
                reason: format!("journal mode is {mode}, not WAL"),
            });
        }
        Ok(SqliteDriver {
            options,
            next_id: AtomicU64::new(1),
        })
    }
}

/// What a session's thread shares with the monitor.
struct WaitState {
    waiting: AtomicBool,
    /// Incremented after every attempt, so that a probe can wait for an attempt
    /// that started after it was called.
    attempts: AtomicU64,
    cancel: AtomicBool,
    interrupt: rusqlite::InterruptHandle,
    /// Woken after every attempt, so a probe waits exactly as long as it must.
    attempted: tokio::sync::Notify,
}

impl std::fmt::Debug for WaitState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitState")
            .field("waiting", &self.waiting)
            .field("attempts", &self.attempts)
            .finish()
    }
}

enum Command {
    Execute {
        sql: String,
        reply: oneshot::Sender<Result<QueryResult, RawDbError>>,
    },
    /// Statements run one after another on the session's thread, stopping
    /// at the first error: one hand-over instead of one per statement.
    Batch {
        statements: Vec<String>,
        reply: oneshot::Sender<Result<(), BatchError>>,
    },
    /// The same, each statement's result returned, the last one the error
    /// that stopped them.
    Each {
        statements: Vec<String>,
        reply: oneshot::Sender<Vec<Result<QueryResult, RawDbError>>>,
    },
}

struct SqliteSession {
    key: SessionKey,
    state: Arc<WaitState>,
    commands: mpsc::Sender<Command>,
}

#[async_trait]
impl Driver for SqliteDriver {
    fn target(&self) -> String {
        format!("sqlite:{}", self.options.path.display())
    }

    async fn server_version(&self) -> Option<String> {
        Some(format!("SQLite {}", rusqlite::version()))
    }

    async fn connect(&self) -> Result<Box<dyn Session>, DriverError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.options.path, flags).map_err(|e| {
            DriverError::Connect {
                target: self.target(),
                reason: e.to_string(),
            }
        })?;
        // A double-quoted name that matches no column must be an error, not a
        // string literal (SQLite's legacy fallback).
        conn.busy_timeout(Duration::ZERO)
            .and_then(|_| conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DQS_DML, false))
            .and_then(|_| conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DQS_DDL, false))
            .and_then(|_| conn.pragma_update(None, "synchronous", "OFF"))
            .map_err(|e| DriverError::Connect {
                target: self.target(),
                reason: e.to_string(),
            })?;
        let state = Arc::new(WaitState {
            waiting: AtomicBool::new(false),
            attempts: AtomicU64::new(0),
            cancel: AtomicBool::new(false),
            interrupt: conn.get_interrupt_handle(),
            attempted: tokio::sync::Notify::new(),
        });
        let (tx, rx) = mpsc::channel();
        let thread_state = state.clone();
        let timeouts = self.options.timeouts;
        std::thread::Builder::new()
            .name("txlab-sqlite".into())
            .spawn(move || serve(conn, rx, thread_state, timeouts))
            .map_err(|e| DriverError::Other(format!("cannot start a session thread: {e}")))?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        Ok(Box::new(SqliteSession {
            key: SessionKey::in_process(id.to_string(), state.clone()),
            state,
            commands: tx,
        }))
    }

    async fn monitor(&self) -> Result<Box<dyn Monitor>, DriverError> {
        Ok(Box::new(SqliteMonitor))
    }
}

#[async_trait]
impl Session for SqliteSession {
    fn key(&self) -> SessionKey {
        self.key.clone()
    }

    async fn execute(&mut self, sql: &str) -> Result<QueryResult, RawDbError> {
        self.state.cancel.store(false, Ordering::SeqCst);
        let (reply, answer) = oneshot::channel();
        let lost = || RawDbError {
            message: "the SQLite session thread is gone".into(),
            connection_lost: true,
            ..RawDbError::default()
        };
        self.commands
            .send(Command::Execute {
                sql: sql.to_string(),
                reply,
            })
            .map_err(|_| lost())?;
        answer.await.map_err(|_| lost())?
    }

    async fn execute_batch(&mut self, statements: &[String]) -> Result<(), BatchError> {
        self.state.cancel.store(false, Ordering::SeqCst);
        let (reply, answer) = oneshot::channel();
        let lost = || BatchError {
            at: None,
            error: RawDbError {
                message: "the SQLite session thread is gone".into(),
                connection_lost: true,
                ..RawDbError::default()
            },
        };
        self.commands
            .send(Command::Batch {
                statements: statements.to_vec(),
                reply,
            })
            .map_err(|_| lost())?;
        answer.await.map_err(|_| lost())?
    }

    /// One hand-over to the session's thread.
    async fn execute_until_failure(
        &mut self,
        statements: &[String],
    ) -> Vec<Result<QueryResult, RawDbError>> {
        self.state.cancel.store(false, Ordering::SeqCst);
        let (reply, answer) = oneshot::channel();
        let sent = self.commands.send(Command::Each {
            statements: statements.to_vec(),
            reply,
        });
        let ran = match sent {
            Ok(()) => answer.await.ok(),
            Err(_) => None,
        };
        ran.unwrap_or_else(|| {
            vec![Err(RawDbError {
                message: "the SQLite session thread is gone".into(),
                connection_lost: true,
                ..RawDbError::default()
            })]
        })
    }
}

fn serve(
    conn: Connection,
    commands: mpsc::Receiver<Command>,
    state: Arc<WaitState>,
    timeouts: Timeouts,
) {
    while let Ok(command) = commands.recv() {
        match command {
            Command::Execute { sql, reply } => {
                let result = execute_with_retry(&conn, &sql, &state, timeouts);
                let _ = reply.send(result);
            }
            Command::Batch { statements, reply } => {
                let result = statements.iter().enumerate().try_for_each(|(i, sql)| {
                    execute_with_retry(&conn, sql, &state, timeouts)
                        .map(drop)
                        .map_err(|error| BatchError { at: Some(i), error })
                });
                let _ = reply.send(result);
            }
            Command::Each { statements, reply } => {
                let mut results = Vec::with_capacity(statements.len());
                for sql in &statements {
                    let result = execute_with_retry(&conn, sql, &state, timeouts);
                    let failed = result.is_err();
                    results.push(result);
                    if failed {
                        break;
                    }
                }
                let _ = reply.send(results);
            }
        }
    }
}

fn is_plain_busy(e: &rusqlite::Error) -> bool {
    // BUSY_SNAPSHOT means the transaction's snapshot is stale: retrying cannot
    // help, the transaction must roll back. Every other BUSY is a lock wait.
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.code == rusqlite::ErrorCode::DatabaseBusy && f.extended_code != ffi::SQLITE_BUSY_SNAPSHOT)
}

fn execute_with_retry(
    conn: &Connection,
    sql: &str,
    state: &WaitState,
    timeouts: Timeouts,
) -> Result<QueryResult, RawDbError> {
    let started = Instant::now();
    loop {
        let result = execute_once(conn, sql, timeouts.statement);
        let busy = matches!(&result, Err(e) if is_plain_busy(e));
        let give_up = busy
            && (state.cancel.load(Ordering::SeqCst) || started.elapsed() >= timeouts.lock_wait);
        state.waiting.store(busy && !give_up, Ordering::SeqCst);
        state.attempts.fetch_add(1, Ordering::SeqCst);
        state.attempted.notify_waiters();
        if !busy || give_up {
            return result.map_err(|e| raw_error(conn, e));
        }
        std::thread::sleep(RETRY_INTERVAL);
    }
}

fn execute_once(
    conn: &Connection,
    sql: &str,
    statement_timeout: Duration,
) -> Result<QueryResult, rusqlite::Error> {
    let deadline = Instant::now() + statement_timeout;
    // The progress handler is SQLite's way to interrupt a long statement: it is
    // called every 1000 VM instructions and aborts the statement when it returns true.
    conn.progress_handler(1000, Some(move || Instant::now() >= deadline));
    let result = (|| {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = Vec::new();
        let mut cursor = stmt.raw_query();
        while let Some(row) = cursor.next()? {
            let width = row.as_ref().column_count();
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                values.push(to_value(row.get_ref(i)?));
            }
            rows.push(values);
        }
        drop(cursor);
        // The column list is read only now: a statement prepared against a
        // schema another connection has since changed (a table replaced between
        // cases) is re-prepared by SQLite at its first step, and until then
        // reports the old table's columns.
        let columns: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
        if columns.is_empty() {
            return Ok(QueryResult {
                returns_rows: false,
                affected: conn.changes(),
                ..QueryResult::default()
            });
        }
        Ok(QueryResult {
            returns_rows: true,
            columns,
            rows,
            affected: 0,
        })
    })();
    conn.progress_handler(0, None::<fn() -> bool>);
    result
}

fn to_value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Float(f),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
    }
}

fn raw_error(conn: &Connection, e: rusqlite::Error) -> RawDbError {
    let in_transaction = Some(!conn.is_autocommit());
    // Syntax errors arrive as `SqlInputError`, not `SqliteFailure`; both carry
    // SQLite's result code.
    let failure = match &e {
        rusqlite::Error::SqliteFailure(f, _) | rusqlite::Error::SqlInputError { error: f, .. } => {
            Some(*f)
        }
        _ => None,
    };
    let message = match &e {
        rusqlite::Error::SqliteFailure(f, msg) => msg.clone().unwrap_or_else(|| f.to_string()),
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    };
    RawDbError {
        code: failure.map(|f| f.extended_code as i64),
        sqlstate: None,
        message,
        in_transaction,
        connection_lost: false,
        timed_out: failure.is_some_and(|f| f.code == rusqlite::ErrorCode::OperationInterrupted),
    }
}

struct SqliteMonitor;

#[async_trait]
impl Monitor for SqliteMonitor {
    async fn is_waiting(&self, session: &SessionKey) -> Result<Option<bool>, DriverError> {
        let Some(state) = session.shared::<WaitState>() else {
            return Ok(None);
        };
        // A fresh answer needs an attempt that began after this call: wait for the
        // attempt counter to move twice (the one in progress may predate the call).
        let start = state.attempts.load(Ordering::SeqCst);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(50);
        loop {
            // Registered before the checks, so no attempt can slip between them.
            let attempted = state.attempted.notified();
            if !state.waiting.load(Ordering::SeqCst) {
                return Ok(Some(false));
            }
            if state.attempts.load(Ordering::SeqCst) >= start + 2 {
                return Ok(Some(state.waiting.load(Ordering::SeqCst)));
            }
            if tokio::time::timeout_at(deadline, attempted).await.is_err() {
                return Ok(None);
            }
        }
    }

    async fn cancel(&self, session: &SessionKey) -> Result<(), DriverError> {
        if let Some(state) = session.shared::<WaitState>() {
            state.cancel.store(true, Ordering::SeqCst);
            state.interrupt.interrupt();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(dir: &tempfile::TempDir) -> SqliteDriver {
        SqliteDriver::open(SqliteOptions {
            path: dir.path().join("t.db"),
            timeouts: Timeouts {
                statement: Duration::from_secs(5),
                lock_wait: Duration::from_secs(5),
            },
        })
        .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_conflicting_writer_waits_and_resumes_after_commit() {
        let dir = tempfile::tempdir().unwrap();
        let d = driver(&dir);
        let mut a = d.connect().await.unwrap();
        let mut b = d.connect().await.unwrap();
        let probe = d.monitor().await.unwrap();
        a.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER)")
            .await
            .unwrap();
        a.execute("INSERT INTO t VALUES (1, 0)").await.unwrap();
        a.execute("BEGIN").await.unwrap();
        a.execute("UPDATE t SET v = 1 WHERE k = 1").await.unwrap();
        b.execute("BEGIN").await.unwrap();
        let b_key = b.key();
        let pending = tokio::spawn(async move {
            let r = b.execute("UPDATE t SET v = v + 10 WHERE k = 1").await;
            (b, r)
        });
        let mut waited = false;
        for _ in 0..200 {
            if probe.is_waiting(&b_key).await.unwrap() == Some(true) {
                waited = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert!(waited, "the second writer never showed as waiting");
        assert!(!pending.is_finished());
        a.execute("COMMIT").await.unwrap();
        let (mut b, r) = pending.await.unwrap();
        assert_eq!(r.unwrap().affected, 1);
        assert_eq!(probe.is_waiting(&b_key).await.unwrap(), Some(false));
        b.execute("COMMIT").await.unwrap();
        let rows = a.execute("SELECT v FROM t").await.unwrap().rows;
        assert_eq!(rows, vec![vec![Value::Int(11)]]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stale_snapshot_writer_fails_with_busy_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let d = driver(&dir);
        let mut a = d.connect().await.unwrap();
        let mut b = d.connect().await.unwrap();
        a.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER)")
            .await
            .unwrap();
        a.execute("INSERT INTO t VALUES (1, 0)").await.unwrap();
        a.execute("BEGIN").await.unwrap();
        a.execute("SELECT * FROM t").await.unwrap();
        b.execute("UPDATE t SET v = 5").await.unwrap();
        let e = a.execute("UPDATE t SET v = 6").await.unwrap_err();
        assert_eq!(e.code, Some(ffi::SQLITE_BUSY_SNAPSHOT as i64));
        assert_eq!(e.in_transaction, Some(true));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_table_replaced_by_another_connection_reads_with_its_new_columns() {
        let dir = tempfile::tempdir().unwrap();
        let d = driver(&dir);
        let mut a = d.connect().await.unwrap();
        let mut b = d.connect().await.unwrap();
        a.execute("CREATE TABLE t(k INT)").await.unwrap();
        a.execute("INSERT INTO t VALUES (1)").await.unwrap();
        // b caches the schema with the one-column table.
        assert_eq!(b.execute("SELECT * FROM t").await.unwrap().columns, ["k"]);
        a.execute("DROP TABLE t").await.unwrap();
        a.execute("CREATE TABLE t(k INT, v TEXT, w INT)")
            .await
            .unwrap();
        a.execute("INSERT INTO t VALUES (2, 'x', 3)").await.unwrap();
        let r = b.execute("SELECT * FROM t").await.unwrap();
        assert_eq!(r.columns, ["k", "v", "w"]);
        assert_eq!(
            r.rows,
            vec![vec![Value::Int(2), Value::Text("x".into()), Value::Int(3)]]
        );
        // Inside a transaction as well, where the first read starts the snapshot.
        a.execute("DROP TABLE t").await.unwrap();
        a.execute("CREATE TABLE t(z INT)").await.unwrap();
        b.execute("BEGIN").await.unwrap();
        let r = b.execute("SELECT * FROM t").await.unwrap();
        assert_eq!(r.columns, ["z"]);
        assert!(r.rows.is_empty());
        b.execute("COMMIT").await.unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancel_ends_a_wait_with_busy() {
        let dir = tempfile::tempdir().unwrap();
        let d = driver(&dir);
        let monitor = d.monitor().await.unwrap();
        let mut a = d.connect().await.unwrap();
        let mut b = d.connect().await.unwrap();
        a.execute("CREATE TABLE t(k INTEGER PRIMARY KEY)")
            .await
            .unwrap();
        a.execute("BEGIN").await.unwrap();
        a.execute("INSERT INTO t VALUES (1)").await.unwrap();
        let b_key = b.key();
        let pending = tokio::spawn(async move { b.execute("INSERT INTO t VALUES (2)").await });
        while monitor.is_waiting(&b_key).await.unwrap() != Some(true) {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        monitor.cancel(&b_key).await.unwrap();
        let e = pending.await.unwrap().unwrap_err();
        assert_eq!(e.code, Some(ffi::SQLITE_BUSY as i64), "{e:?}");
        a.execute("ROLLBACK").await.unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn syntax_errors_carry_their_code_and_unknown_quoted_names_fail() {
        let dir = tempfile::tempdir().unwrap();
        let d = driver(&dir);
        let mut a = d.connect().await.unwrap();
        let e = a.execute("SELEC 1").await.unwrap_err();
        assert_eq!(e.code, Some(ffi::SQLITE_ERROR as i64), "{e:?}");
        assert!(e.message.contains("syntax error"), "{e:?}");
        a.execute("CREATE TABLE t(k INT)").await.unwrap();
        let e = a.execute("SELECT \"nope\" FROM t").await.unwrap_err();
        assert!(e.message.contains("no such column"), "{e:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_statement_timeout_interrupts_a_long_query() {
        let dir = tempfile::tempdir().unwrap();
        let d = SqliteDriver::open(SqliteOptions {
            path: dir.path().join("t.db"),
            timeouts: Timeouts {
                statement: Duration::from_millis(50),
                lock_wait: Duration::from_secs(5),
            },
        })
        .unwrap();
        let mut a = d.connect().await.unwrap();
        let e = a
            .execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
            .await
            .unwrap_err();
        assert!(e.timed_out, "{e:?}");
    }
}
