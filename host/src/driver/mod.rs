//! Connections to the database under test. The host owns every connection and the
//! only async runtime; dialect plugins only render SQL and classify errors.

mod cluster;
mod credentials;
mod deadline;
mod kind;
mod mysql;
mod postgres;
mod sqlite;

pub use cluster::ClusterDriver;
pub use credentials::{
    login, url_has_password, url_without_password, CredentialsError, Login, PasswordSource,
    PasswordSources,
};
pub use deadline::{within, Deadlines, Interrupt, NoAnswer};
pub use kind::{DriverKind, ServerKind, UnknownDriver};
pub use mysql::MysqlDriver;
pub(crate) use postgres::error_text as postgres_error_text;
pub use postgres::PostgresDriver;
pub use sqlite::{SqliteDriver, SqliteOptions};

use async_trait::async_trait;
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::{LockProbe, LockProbeReading, RawDbError, Value};

/// What one statement returned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryResult {
    /// True when the statement produces a result set (even an empty one).
    pub returns_rows: bool,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// Rows changed by INSERT, UPDATE or DELETE.
    pub affected: u64,
}

/// Failures of the connection itself, not of a statement.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DriverError {
    #[error("cannot connect to {target}: {reason}")]
    Connect { target: String, reason: String },
    /// The server accepted the connection but did not complete its
    /// handshake in time: frozen, or a server of another protocol.
    #[error("cannot connect to {target}: the server did not complete the connection handshake within {} s (is it frozen, or does the port belong to a server of another kind?)", .within.as_secs())]
    Handshake { target: String, within: Duration },
    #[error("the {driver} driver cannot {what}")]
    Unsupported { driver: String, what: String },
    #[error("{0}")]
    Other(String),
}

/// A DBMS family's connector.
#[async_trait]
pub trait Driver: Send + Sync {
    /// A human-readable description of where it connects, without secrets.
    fn target(&self) -> String;

    async fn connect(&self) -> Result<Box<dyn Session>, DriverError>;

    /// How many nodes the target has: 1 for a server, more for a cluster.
    fn nodes(&self) -> usize {
        1
    }

    /// A session on node `node` (from 0) of a cluster; on one server, a
    /// session like [`Driver::connect`]'s.
    async fn connect_to(&self, node: usize) -> Result<Box<dyn Session>, DriverError> {
        let _ = node;
        self.connect().await
    }

    /// A monitor that watches sessions for lock waits and can cancel them.
    async fn monitor(&self) -> Result<Box<dyn Monitor>, DriverError>;

    /// When the server started, in seconds since the Unix epoch by the
    /// server's clock, to tell a restart from a broken connection; `None`
    /// where the DBMS does not say (an embedded database, a server without
    /// the query).
    async fn server_started(&self) -> Option<i64> {
        None
    }

    /// The DBMS's version as it states it (`SELECT VERSION()`, `SHOW
    /// server_version`, SQLite's library version), for reports; `None`
    /// when it cannot be read.
    async fn server_version(&self) -> Option<String> {
        None
    }

    /// A statement that makes one session's commits cheaper without
    /// changing what any transaction sees, for sessions that only load
    /// tables and replay (PostgreSQL: `SET synchronous_commit = off`, a
    /// commit is visible at once and only its flush to disk is deferred);
    /// `None` where the DBMS has no such per-session setting (InnoDB's
    /// `innodb_flush_log_at_trx_commit` is global).
    fn relaxed_commits(&self) -> Option<&'static str> {
        None
    }
}

/// One connection. Statements run one at a time.
#[async_trait]
pub trait Session: Send {
    /// Identifies the session to the lock probe.
    fn key(&self) -> SessionKey;

    async fn execute(&mut self, sql: &str) -> Result<QueryResult, RawDbError>;

    /// Runs `statements` in order, their results dropped, stopping at the
    /// first error; as one request where the driver can (a multi-statement
    /// round trip), one statement at a time otherwise.
    async fn execute_batch(&mut self, statements: &[String]) -> Result<(), BatchError> {
        for (i, sql) in statements.iter().enumerate() {
            self.execute(sql)
                .await
                .map_err(|error| BatchError { at: Some(i), error })?;
        }
        Ok(())
    }

    /// Runs `statements` in order, as [`Session::execute`] would one at a
    /// time, until one fails, and returns what each returned (the last then
    /// the failure). In as few requests as the driver can; one statement per
    /// request here.
    async fn execute_until_failure(
        &mut self,
        statements: &[String],
    ) -> Vec<Result<QueryResult, RawDbError>> {
        one_at_a_time(self, statements).await
    }

    /// [`Session::execute_until_failure`] over all of `statements`: after
    /// one fails, the rest go on only if `go_on` says so for its error (the
    /// last result is then that failure).
    async fn execute_each(
        &mut self,
        statements: &[String],
        go_on: GoOn<'_>,
    ) -> Vec<Result<QueryResult, RawDbError>> {
        let mut results = Vec::with_capacity(statements.len());
        while results.len() < statements.len() {
            let ran = self
                .execute_until_failure(&statements[results.len()..])
                .await;
            if ran.is_empty() {
                break;
            }
            results.extend(ran);
            match results.last() {
                Some(Err(e)) if results.len() < statements.len() && go_on(e) => {}
                _ => break,
            }
        }
        results
    }
}

/// Runs `statements` one request each until one fails: what each returned,
/// the last then the failure.
pub async fn one_at_a_time<S: Session + ?Sized>(
    session: &mut S,
    statements: &[String],
) -> Vec<Result<QueryResult, RawDbError>> {
    let mut results = Vec::with_capacity(statements.len());
    for sql in statements {
        let result = session.execute(sql).await;
        let failed = result.is_err();
        results.push(result);
        if failed {
            break;
        }
    }
    results
}

/// Whether a series of statements goes on after one of them failed.
pub type GoOn<'a> = &'a (dyn Fn(&RawDbError) -> bool + Sync);

/// A statement of a batch failed.
#[derive(Debug, Clone)]
pub struct BatchError {
    /// Which statement, where the driver can tell.
    pub at: Option<usize>,
    pub error: RawDbError,
}

/// A session's identity for its driver's monitor: an id the server knows, and
/// for an in-process driver, state the session shares with that driver's own
/// monitor (opaque to everyone else).
#[derive(Clone)]
pub struct SessionKey {
    /// Server-side id (MySQL connection id, PostgreSQL backend pid) or a local
    /// number; lock-wait probe queries name the session by it.
    pub id: String,
    /// The node of a cluster target the session is connected to (0 for one
    /// server): its lock waits are that node's to report.
    pub node: usize,
    shared: Option<Arc<dyn Any + Send + Sync>>,
}

impl SessionKey {
    /// A session the server knows by `id`.
    pub fn server(id: String) -> Self {
        SessionKey {
            id,
            node: 0,
            shared: None,
        }
    }

    /// A session of an in-process driver, with the state its monitor reads.
    pub fn in_process<T: Any + Send + Sync>(id: String, shared: Arc<T>) -> Self {
        SessionKey {
            id,
            node: 0,
            shared: Some(shared),
        }
    }

    /// The in-process state, if it is a `T`.
    pub fn shared<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.shared.clone()?.downcast().ok()
    }
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionKey")
            .field("id", &self.id)
            .field("node", &self.node)
            .field("in_process", &self.shared.is_some())
            .finish()
    }
}

/// Watches sessions from the side: the lock-wait probe, and cancellation.
#[async_trait]
pub trait Monitor: Send + Sync {
    /// `Some(true)` if the session waits for a lock, `Some(false)` if it does not,
    /// `None` if the probe cannot tell. The answer reflects the session's state
    /// at some moment after the call began, never an older one.
    async fn is_waiting(&self, session: &SessionKey) -> Result<Option<bool>, DriverError>;

    /// Makes the session's running or waiting statement fail, so that a stalled
    /// case can be wound down.
    async fn cancel(&self, session: &SessionKey) -> Result<(), DriverError>;
}

/// Limits every driver honours.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// A statement running longer is interrupted by the server (or the embedded
    /// driver) and fails with a statement-timeout error.
    pub statement: Duration,
    /// A statement waiting for a lock longer fails with a lock-wait timeout.
    pub lock_wait: Duration,
}

impl Timeouts {
    /// How long the host waits for the server's answers under these limits.
    pub fn deadlines(&self) -> Deadlines {
        Deadlines::from_limits(self.statement, self.lock_wait)
    }
}

/// How long connecting, the server's handshake included, may take before
/// the server counts as not answering: a frozen server, or a port where a
/// server of another protocol waits for the client to speak first, would
/// otherwise hold a run silent forever.
pub const CONNECT_DEADLINE: Duration = Duration::from_secs(10);

/// `connect` (a connection attempt) cut off at [`CONNECT_DEADLINE`].
pub(crate) async fn within_connect_deadline<T>(
    target: &str,
    connect: impl std::future::Future<Output = Result<T, DriverError>>,
) -> Result<T, DriverError> {
    match tokio::time::timeout(CONNECT_DEADLINE, connect).await {
        Ok(result) => result,
        Err(_) => Err(DriverError::Handshake {
            target: target.to_string(),
            within: CONNECT_DEADLINE,
        }),
    }
}

/// A URL with its password replaced, for anything a user may see.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            // Drivers also take the password as a query parameter
            // (`?password=…`, libpq's `sslpassword`).
            let secret = |key: &str| {
                let key = key.to_ascii_lowercase();
                key.contains("password") || key == "pass" || key == "pwd"
            };
            if u.query_pairs().any(|(k, _)| secret(&k)) {
                let pairs: Vec<(String, String)> = u
                    .query_pairs()
                    .map(|(k, v)| {
                        let v = if secret(&k) {
                            "***".to_string()
                        } else {
                            v.into_owned()
                        };
                        (k.into_owned(), v)
                    })
                    .collect();
                u.query_pairs_mut().clear().extend_pairs(pairs);
            }
            u.to_string()
        }
        // Not a URL: do not echo it at all, it may be a raw secret.
        Err(_) => "<unparsable URL>".to_string(),
    }
}

/// Reads what a lock-wait probe returned. The dialect that declared the probe
/// does (through the ABI), so a DBMS with another status format needs no
/// change here.
pub trait ProbeReader: Send + Sync {
    /// `Some(true)`: the session waits for a lock; `None`: the answer cannot tell.
    fn read(&self, reading: &LockProbeReading) -> Result<Option<bool>, DriverError>;
}

impl ProbeReader for DialectHandle {
    fn read(&self, reading: &LockProbeReading) -> Result<Option<bool>, DriverError> {
        self.read_lock_probe(reading)
            .map_err(|e| DriverError::Other(format!("reading the lock-wait probe: {e}")))
    }
}

/// The lock-wait probe a server driver's monitor runs, and who reads its answers.
#[derive(Clone)]
pub struct LockProbeSpec {
    pub probe: LockProbe,
    pub reader: Arc<dyn ProbeReader>,
}

impl LockProbeSpec {
    /// The probe's statement for `session`, or `None` when it runs no SQL.
    pub fn statement(&self, session: &SessionKey) -> Option<String> {
        self.probe
            .statement()
            .map(|sql| sql.replace("{session}", &session.id))
    }

    /// What the probe's result says about `session`, as the dialect reads it.
    pub fn answer(
        &self,
        session: &SessionKey,
        columns: Vec<String>,
        rows: Vec<Vec<Value>>,
    ) -> Result<Option<bool>, DriverError> {
        self.reader.read(&LockProbeReading {
            session: session.id.clone(),
            columns,
            rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact_url("mysql://root:secret@db:3306/x"),
            "mysql://root:***@db:3306/x"
        );
        assert_eq!(redact_url("postgres://u@h/d"), "postgres://u@h/d");
        assert!(!redact_url("not a url with secret").contains("secret"));
        let query = redact_url("postgres://u@h/d?sslmode=disable&password=secret&PWD=x2");
        assert!(
            !query.contains("secret") && !query.contains("x2"),
            "{query}"
        );
        assert!(query.contains("sslmode=disable"), "{query}");
    }
}
