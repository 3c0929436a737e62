//! Connections to the database under test. The host owns every connection and the
//! only async runtime; dialect plugins only render SQL and classify errors.

mod kind;
mod mysql;
mod postgres;
mod sqlite;

pub use kind::{DriverKind, ServerKind, UnknownDriver};
pub use mysql::{innodb_status_waits, MysqlDriver};
pub use postgres::PostgresDriver;
pub use sqlite::{SqliteDriver, SqliteOptions};

use async_trait::async_trait;
use std::any::Any;
use std::sync::Arc;
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

/// A session's identity for its driver's monitor: an id the server knows, and
/// for an in-process driver, state the session shares with that driver's own
/// monitor (opaque to everyone else).
#[derive(Clone)]
pub struct SessionKey {
    /// Server-side id (MySQL connection id, PostgreSQL backend pid) or a local
    /// number; lock-wait probe queries name the session by it.
    pub id: String,
    shared: Option<Arc<dyn Any + Send + Sync>>,
}

impl SessionKey {
    /// A session the server knows by `id`.
    pub fn server(id: String) -> Self {
        SessionKey { id, shared: None }
    }

    /// A session of an in-process driver, with the state its monitor reads.
    pub fn in_process<T: Any + Send + Sync>(id: String, shared: Arc<T>) -> Self {
        SessionKey {
            id,
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

/// A URL with its password replaced, for anything a user may see.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            u.to_string()
        }
        // Not a URL: do not echo it at all, it may be a raw secret.
        Err(_) => "<unparsable URL>".to_string(),
    }
}

/// How lock-wait probe answers read: true, or a non-zero number.
pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i != 0,
        Value::Bool(b) => *b,
        Value::Float(f) => *f != 0.0,
        Value::Decimal(s) | Value::Text(s) => {
            !matches!(s.as_str(), "0" | "" | "false" | "f" | "FALSE")
        }
        Value::Bytes(b) => !b.is_empty(),
        Value::Null => false,
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
    }

    #[test]
    fn probe_answers_read_as_truth() {
        assert!(truthy(&Value::Text("t".into())));
        assert!(!truthy(&Value::Text("f".into())));
        assert!(truthy(&Value::Int(2)));
        assert!(!truthy(&Value::Int(0)));
        assert!(!truthy(&Value::Null));
    }
}
