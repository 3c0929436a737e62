//! The database under test as a worker sees it: the case database (tables reset
//! per case, sessions kept open across cases), and a scratch database that oracles
//! replay on through the `HostDb` callback.

mod case_db;
pub mod clean;
mod install;
mod leftovers;
pub mod owner;
mod scratch_db;
mod servers;
mod sqlite_dir;

pub use case_db::CaseDb;
pub use leftovers::{clean_command, leftovers_of_this_process, shell_quote, Leftovers};
pub use scratch_db::ScratchDb;
pub use servers::ServerDatabases;
pub use sqlite_dir::{sqlite_dir, RunDirGuard, MARK_FILE, RUN_DIR_PREFIX};

use crate::driver::{
    Driver, DriverError, DriverKind, LockProbeSpec, MysqlDriver, PostgresDriver, QueryResult,
    ServerKind, SqliteDriver, SqliteOptions, Timeouts, UnknownDriver,
};
use crate::executor::{success_outcome, ErrorClassifier};
use std::path::PathBuf;
use std::sync::Arc;
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
    match (kind, location) {
        (DriverKind::Sqlite, TargetLocation::SqliteDir(dir)) => {
            Ok(Box::new(SqliteDriver::open(SqliteOptions {
                path: dir.join(format!("{name}.db")),
                timeouts,
            })?))
        }
        (DriverKind::Server(ServerKind::Mysql), TargetLocation::Server(server))
            if server.kind == ServerKind::Mysql =>
        {
            let db = server.create(name).await?;
            Ok(Box::new(MysqlDriver::new(
                server.url(),
                &db,
                probe.clone(),
                info.session_control.clone(),
            )?))
        }
        (DriverKind::Server(ServerKind::Postgres), TargetLocation::Server(server))
            if server.kind == ServerKind::Postgres =>
        {
            let db = server.create(name).await?;
            Ok(Box::new(PostgresDriver::new(
                server.url(),
                &db,
                probe.clone(),
                info.session_control.clone(),
            )?))
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
