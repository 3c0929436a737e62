//! Connections to the database under test. The host owns every connection and the
//! only async runtime; dialect plugins only render SQL and classify errors.

mod sqlite;

pub use sqlite::{SqliteDriver, SqliteOptions};

use async_trait::async_trait;
use std::time::Duration;
use txlab_plugin_api::ir::{RawDbError, Value};

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
    #[error("the {driver} driver cannot {what}")]
    Unsupported { driver: String, what: String },
    #[error("{0}")]
    Other(String),
}

/// A DBMS family's connector.
#[async_trait]
pub trait Driver: Send + Sync {
    /// "sqlite", "mysql", "postgres".
    fn name(&self) -> &str;

    /// A human-readable description of where it connects, without secrets.
    fn target(&self) -> String;

    async fn connect(&self) -> Result<Box<dyn Session>, DriverError>;

    /// A monitor that watches sessions for lock waits and can cancel them.
    async fn monitor(&self) -> Result<Box<dyn Monitor>, DriverError>;
}

/// One connection. Statements run one at a time.
#[async_trait]
pub trait Session: Send {
    /// Identifies the session to the lock probe.
    fn key(&self) -> SessionKey;

    async fn execute(&mut self, sql: &str) -> Result<QueryResult, RawDbError>;
}

/// Driver-specific identity of a session: an id the server knows, plus the
/// embedded driver's shared state.
#[derive(Clone, Debug)]
pub struct SessionKey {
    /// Server-side id (connection id, backend pid) or a local number.
    pub id: u64,
    pub(crate) local: Option<std::sync::Arc<sqlite::WaitState>>,
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
