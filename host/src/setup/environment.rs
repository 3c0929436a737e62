//! The run's runtime, databases and limits, and their clean-up.

use super::{Resolved, SetupError};
use crate::driver::{within, DriverKind, Interrupt, Timeouts, CONNECT_DEADLINE};
use crate::executor::ExecutorSettings;
use crate::target::{sqlite_dir, ServerDatabases, TargetLocation};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use txlab_plugin_api::ir::*;

/// The run's runtime, databases and limits.
pub struct Environment {
    // Fields drop in order: the databases go while the runtime still runs.
    _cleanup: Cleanup,
    _temp_dir: Option<tempfile::TempDir>,
    pub location: TargetLocation,
    pub timeouts: Timeouts,
    pub settings: ExecutorSettings,
    pub limits: SessionLimits,
    /// How long a worker waits for the server after a lost connection.
    pub reconnect_timeout: Duration,
    /// For set-up and clean-up; each worker has a runtime of its own.
    pub runtime: Arc<tokio::runtime::Runtime>,
    /// The run's request to stop: whatever waits for the server gives up.
    pub interrupt: Interrupt,
    /// Set while the server does not answer (a worker's request passed its
    /// deadline and no connection succeeded since, or a new connection did
    /// not at the run's end): the clean-up then tries only briefly.
    pub silent: Arc<AtomicBool>,
}

/// A runtime on the calling thread: a worker's executor, its sessions and
/// their I/O all run on the worker's own thread, with no hops between threads.
pub fn worker_runtime() -> Result<Arc<tokio::runtime::Runtime>, SetupError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(Arc::new)
        .map_err(SetupError::Runtime)
}

/// Where the run's databases go: SQLite files, or databases on the server named
/// by `--url`, the driver's environment variable, or `[target] url`.
fn target_location(
    resolved: &Resolved<'_>,
    url_override: Option<&str>,
) -> Result<(TargetLocation, Option<tempfile::TempDir>), SetupError> {
    let target = &resolved.pipeline.pipeline.target;
    let kind = match DriverKind::lookup(&resolved.info.driver)
        .map_err(crate::target::TargetError::from)?
    {
        DriverKind::Sqlite => {
            if url_override.is_some() {
                return Err(SetupError::UrlForEmbedded {
                    dialect: resolved.info.name.clone(),
                });
            }
            let (dir, guard) =
                sqlite_dir(target.path.as_deref()).map_err(SetupError::DatabaseDir)?;
            return Ok((TargetLocation::SqliteDir(dir), guard));
        }
        DriverKind::Server(kind) => kind,
    };
    // The most specific source wins: the command line, the environment of this
    // machine, then the pipeline file.
    let url = url_override
        .map(str::to_string)
        .or_else(|| std::env::var(kind.url_env()).ok().filter(|u| !u.is_empty()))
        .or_else(|| target.url.clone())
        .ok_or_else(|| SetupError::NoServerUrl {
            dialect: resolved.info.name.clone(),
            env: kind.url_env(),
            pipeline: resolved.pipeline.path.clone(),
        })?;
    Ok((
        TargetLocation::Server(Arc::new(ServerDatabases::new(kind, &url))),
        None,
    ))
}

impl Environment {
    /// Every tested level's session set-up, which each worker tries once
    /// before the first case.
    pub fn level_setups(&self, resolved: &Resolved<'_>) -> Result<Vec<SessionSetup>, SetupError> {
        let mut setups = Vec::new();
        for &isolation in &resolved.levels {
            setups.push(resolved.dialect.session_setup(&SessionRequest {
                isolation,
                limits: self.limits,
            })?);
        }
        Ok(setups)
    }

    pub fn new(resolved: &Resolved<'_>, url: Option<&str>) -> Result<Environment, SetupError> {
        let runtime = worker_runtime()?;
        let (location, temp_dir) = target_location(resolved, url)?;
        let e = &resolved.pipeline.pipeline.executor;
        let timeouts = Timeouts {
            statement: e.statement_timeout.0,
            lock_wait: e.lock_wait_timeout.0,
        };
        let silent = Arc::new(AtomicBool::new(false));
        Ok(Environment {
            _cleanup: Cleanup {
                location: location.clone(),
                runtime: runtime.clone(),
                silent: silent.clone(),
            },
            _temp_dir: temp_dir,
            location,
            timeouts,
            settings: ExecutorSettings {
                probe_interval: e.probe_interval.0,
                block_timeout: e.block_timeout.0,
                settle_timeout: e.settle_timeout.0,
                stall_timeout: e.stall_timeout.0,
                reply_timeout: e.statement_timeout.0
                    + e.lock_wait_timeout.0
                    + Duration::from_secs(2),
                pace: e.pace.0,
                deadlines: timeouts.deadlines(),
            },
            limits: e.session_limits(),
            reconnect_timeout: resolved.pipeline.pipeline.run.reconnect_timeout.0,
            runtime,
            interrupt: Interrupt::default(),
            silent,
        })
    }

    /// The run's request to stop, for everything that waits on the server.
    pub fn with_interrupt(mut self, interrupt: Interrupt) -> Self {
        self.interrupt = interrupt;
        self
    }

    /// The server databases the run created so far (none on SQLite).
    pub fn created_databases(&self) -> Vec<String> {
        match &self.location {
            TargetLocation::Server(server) => server.created(),
            TargetLocation::SqliteDir(_) => Vec::new(),
        }
    }
}

/// Removes the run's server databases however the run ends.
struct Cleanup {
    location: TargetLocation,
    runtime: Arc<tokio::runtime::Runtime>,
    silent: Arc<AtomicBool>,
}

/// How long dropping `n` databases may take: a connection's deadline and a
/// second per database; when the server did not answer at the run's end,
/// less.
fn drop_deadline(n: usize, hurry: bool) -> Duration {
    let n = n as u32;
    if hurry {
        Duration::from_secs(2) + Duration::from_millis(100) * n
    } else {
        CONNECT_DEADLINE + Duration::from_secs(1) * n
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let TargetLocation::Server(server) = &self.location else {
            return;
        };
        let names = server.created();
        let deadline = drop_deadline(names.len(), self.silent.load(Ordering::SeqCst));
        let dropping = within(
            deadline,
            || "dropping the run's databases".into(),
            server.drop_created(),
        );
        match self.runtime.block_on(dropping) {
            Ok(problems) => {
                for problem in problems {
                    tracing::warn!(target: "txlab::run", "could not remove a database of this run: {problem}");
                }
            }
            Err(no_answer) => {
                tracing::warn!(target: "txlab::run", "could not remove the databases of this run: {no_answer}; they may remain on the server: {}", names.join(", "));
            }
        }
    }
}
