//! The database under test as a worker sees it: the case database (tables reset
//! per case, sessions kept open across cases), and a scratch database that oracles
//! replay on through the `HostDb` callback.

mod case_db;
pub mod clean;
mod install;
mod leftovers;
pub mod owner;
mod scratch_db;
mod server_facts;
mod servers;
mod sqlite_dir;
mod tables;

pub use case_db::{CaseDb, NodesRead};
pub use leftovers::{clean_command, leftovers_of_this_process, shell_quote, Leftovers};
pub use scratch_db::ScratchDb;
pub use server_facts::read_server_facts;
pub use servers::ServerDatabases;
pub use sqlite_dir::{sqlite_dir, RunDirGuard, MARK_FILE, RUN_DIR_PREFIX};
pub use tables::{Database, InstalledTables};

use crate::driver::{
    within, ClusterDriver, Driver, DriverError, DriverKind, Interrupt, LockProbeSpec, MysqlDriver,
    NoAnswer, PostgresDriver, QueryResult, ServerKind, SqliteDriver, SqliteOptions, Timeouts,
    UnknownDriver,
};
use crate::executor::{success_outcome, ErrorClassifier};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use txlab_loader::{CallError, DialectHandle};
use txlab_plugin_api::ir::*;

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error(transparent)]
    Driver(#[from] DriverError),
    #[error(transparent)]
    Plugin(#[from] CallError),
    #[error("`{sql}` failed while {during}: {message}")]
    Statement {
        sql: String,
        during: &'static str,
        message: String,
    },
    #[error(transparent)]
    UnknownDriver(#[from] UnknownDriver),
    #[error(
        "dialect `{dialect}` needs the {driver} driver, but the run's databases are {location}"
    )]
    WrongLocation {
        dialect: String,
        driver: DriverKind,
        location: &'static str,
    },
    #[error("session set-up check `{sql}` returned {got}, expected {expect}: {explain}")]
    SessionCheck {
        sql: String,
        got: String,
        expect: String,
        explain: String,
    },
    /// The server did not answer in time: frozen or unreachable.
    #[error(transparent)]
    NoAnswer(#[from] NoAnswer),
    /// The run was asked to stop while the host waited for the server.
    #[error("the run was interrupted while waiting for the server")]
    Interrupted,
    /// A cluster's node did not hold what the first node wrote in time.
    #[error("{0}")]
    Replication(String),
}

impl TargetError {
    /// The server did not answer, or the run stopped while it waited: the
    /// connection that was asked is in no known state and must not be used
    /// again.
    pub fn left_connection_unusable(&self) -> bool {
        matches!(
            self,
            TargetError::NoAnswer(_)
                | TargetError::Interrupted
                | TargetError::Driver(DriverError::Handshake { .. })
        )
    }
}

/// `work` (an operation on the server) within `deadline`, given up when the
/// run is asked to stop; `what` names it in the error.
pub async fn bounded<T>(
    deadline: Duration,
    interrupt: &Interrupt,
    what: &str,
    work: impl Future<Output = Result<T, TargetError>>,
) -> Result<T, TargetError> {
    match interrupt
        .or_stop(within(deadline, || what.to_string(), work))
        .await
    {
        None => Err(TargetError::Interrupted),
        Some(Err(no_answer)) => Err(no_answer.into()),
        Some(Ok(result)) => result,
    }
}

/// Where the databases of a run live.
#[derive(Clone, Debug)]
pub enum TargetLocation {
    /// Embedded SQLite files in a directory txlab created (and removes, if temporary).
    SqliteDir(PathBuf),
    /// Databases the run creates on a server.
    Server(Arc<ServerDatabases>),
}

impl TargetLocation {
    fn describe(&self) -> &'static str {
        match self {
            TargetLocation::SqliteDir(_) => "SQLite files",
            TargetLocation::Server(s) => match s.kind {
                ServerKind::Mysql => "on a MySQL-protocol server",
                ServerKind::Postgres => "on a PostgreSQL-protocol server",
            },
        }
    }
}

/// Creates a database of the run (`name` distinguishes a worker's case and
/// scratch databases) and opens a driver for it.
pub async fn open_driver(
    dialect: &Arc<DialectHandle>,
    info: &DialectInfo,
    location: &TargetLocation,
    name: &str,
    timeouts: Timeouts,
) -> Result<Box<dyn Driver>, TargetError> {
    let kind = DriverKind::lookup(&info.driver)?;
    let probe = LockProbeSpec {
        probe: info.lock_probe.clone(),
        reader: dialect.clone(),
    };
    // Creating a database may wait for the server's other work; a frozen
    // server must not hold the run's start.
    let deadline = timeouts.deadlines().statement;
    let creating = || "creating the run's database".to_string();
    match (kind, location) {
        (DriverKind::Sqlite, TargetLocation::SqliteDir(dir)) => {
            Ok(Box::new(SqliteDriver::open(SqliteOptions {
                path: dir.join(format!("{name}.db")),
                timeouts,
            })?))
        }
        (DriverKind::Server(kind), TargetLocation::Server(server)) if server.kind == kind => {
            // On a cluster the database is created through the first node,
            // which replicates it to the others.
            let db = within(deadline, creating, server.create(name)).await??;
            let mut nodes: Vec<Box<dyn Driver>> = Vec::new();
            for url in server.node_urls() {
                nodes.push(match kind {
                    ServerKind::Mysql => Box::new(MysqlDriver::new(
                        url,
                        &db,
                        probe.clone(),
                        info.session_control.clone(),
                    )?),
                    ServerKind::Postgres => Box::new(PostgresDriver::new(
                        url,
                        &db,
                        probe.clone(),
                        info.session_control.clone(),
                    )?),
                });
            }
            if nodes.len() == 1 {
                Ok(nodes.remove(0))
            } else {
                Ok(Box::new(ClusterDriver::new(nodes)))
            }
        }
        (driver, location) => Err(TargetError::WrongLocation {
            dialect: info.name.clone(),
            driver,
            location: location.describe(),
        }),
    }
}

/// Converts a driver result into an outcome, classifying errors with the dialect.
pub fn to_outcome(
    result: Result<QueryResult, RawDbError>,
    statement: &Statement,
    classifier: &dyn ErrorClassifier,
) -> Result<Outcome, CallError> {
    Ok(match result {
        Ok(r) => success_outcome(r, statement),
        Err(raw) => Outcome::Error(classifier.classify(&raw)?),
    })
}
