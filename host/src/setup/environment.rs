//! The run's runtime, databases and limits, and their clean-up.

use super::{Resolved, SetupError};
use crate::driver::{
    login, redact_url, url_without_password, within, DriverKind, Interrupt, Login, PasswordSources,
    ServerKind, Timeouts, CONNECT_DEADLINE,
};
use crate::executor::ExecutorSettings;
use crate::target::{clean_command, sqlite_dir, RunDirGuard, ServerDatabases, TargetLocation};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use txlab_plugin_api::ir::*;

/// The run's runtime, databases and limits.
pub struct Environment {
    // Fields drop in order: the databases go while the runtime still runs.
    _cleanup: Cleanup,
    _temp_dir: Option<RunDirGuard>,
    pub location: TargetLocation,
    pub timeouts: Timeouts,
    pub settings: ExecutorSettings,
    pub limits: SessionLimits,
    /// How long a worker waits for the server after a lost connection.
    pub reconnect_timeout: Duration,
    /// How long a cluster's nodes get to agree (`[target] replication_timeout`).
    pub replication_timeout: Duration,
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

/// How to reach the server: `--url` and `--password-file` as the user gave them.
#[derive(Clone, Debug, Default)]
pub struct ServerAccess {
    /// Over the driver's environment variable and `[target] url`.
    pub url: Option<String>,
    pub password_file: Option<PathBuf>,
}

impl ServerAccess {
    pub fn url(url: Option<&str>) -> ServerAccess {
        ServerAccess {
            url: url.map(str::to_string),
            password_file: None,
        }
    }
}

/// Where a pipeline's databases go.
pub enum PipelineTarget {
    /// SQLite files under `[target] path` (a temporary directory when absent).
    Sqlite(Option<PathBuf>),
    /// A server: how to log in, and the URL as given (password and all;
    /// never shown).
    Server {
        kind: ServerKind,
        given_url: String,
        login: Login,
        /// A cluster's nodes after the first (`login`); empty for one server.
        other_nodes: Vec<Login>,
    },
}

/// Where the run's databases go: SQLite files, or databases on the server named
/// by `--url`, the driver's environment variable, or `[target] url`, with the
/// password from the first source that has one (see [`crate::driver::login`]).
pub fn pipeline_target(
    resolved: &Resolved<'_>,
    access: &ServerAccess,
) -> Result<PipelineTarget, SetupError> {
    let found = locate_target(resolved, access)?;
    if let PipelineTarget::Server {
        login, other_nodes, ..
    } = &found
    {
        let mut shown = std::collections::BTreeSet::new();
        for warning in std::iter::once(login)
            .chain(other_nodes)
            .flat_map(|l| &l.warnings)
        {
            if shown.insert(warning) {
                tracing::warn!(target: "txlab::run", "{warning}");
            }
        }
    }
    Ok(found)
}

/// [`pipeline_target`] without its warnings about where the password came
/// from, for a look at the server before the run proper.
pub(super) fn locate_target(
    resolved: &Resolved<'_>,
    access: &ServerAccess,
) -> Result<PipelineTarget, SetupError> {
    let target = &resolved.pipeline.pipeline.target;
    let kind = match DriverKind::lookup(&resolved.info.driver)
        .map_err(crate::target::TargetError::from)?
    {
        DriverKind::Sqlite => {
            if access.url.is_some() {
                return Err(SetupError::UrlForEmbedded {
                    dialect: resolved.info.name.clone(),
                });
            }
            return Ok(PipelineTarget::Sqlite(target.path.clone()));
        }
        DriverKind::Server(kind) => kind,
    };
    // The most specific source wins: the command line, the environment of this
    // machine, then the pipeline file. The environment names one server, so
    // a pipeline that names a cluster's nodes keeps them.
    let urls: Vec<String> = match (&access.url, &target.nodes) {
        (Some(given), _) => split_nodes(given),
        (None, Some(nodes)) => nodes.get_ref().clone(),
        (None, None) => std::env::var(kind.url_env())
            .ok()
            .filter(|u| !u.is_empty())
            .or_else(|| target.url.clone())
            .map(|u| split_nodes(&u))
            .unwrap_or_default(),
    };
    let Some(url) = urls.first().cloned() else {
        return Err(SetupError::NoServerUrl {
            dialect: resolved.info.name.clone(),
            env: kind.url_env(),
            pipeline: resolved.pipeline.path.clone(),
        });
    };
    let sources = PasswordSources::from_process(access.password_file.clone());
    let mut logins = Vec::with_capacity(urls.len());
    for node in &urls {
        let login = login(kind, node, &sources)?;
        tracing::debug!(target: "txlab::run", "the password for {} comes from {}", redact_url(node), login.source);
        logins.push(login);
    }
    let login = logins.remove(0);
    Ok(PipelineTarget::Server {
        kind,
        given_url: url,
        login,
        other_nodes: logins,
    })
}

/// URLs separated by commas (a cluster's nodes), each trimmed.
fn split_nodes(urls: &str) -> Vec<String> {
    urls.split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(str::to_string)
        .collect()
}

fn target_location(
    resolved: &Resolved<'_>,
    access: &ServerAccess,
) -> Result<(TargetLocation, Option<RunDirGuard>), SetupError> {
    match pipeline_target(resolved, access)? {
        PipelineTarget::Sqlite(path) => {
            let (dir, guard) = sqlite_dir(path.as_deref()).map_err(SetupError::DatabaseDir)?;
            Ok((TargetLocation::SqliteDir(dir), guard))
        }
        PipelineTarget::Server {
            kind,
            given_url,
            login,
            other_nodes,
        } => {
            let server = ServerDatabases::new(kind, &login.url)
                .with_other_nodes(other_nodes.into_iter().map(|l| l.url).collect());
            let command = clean_command(
                &url_without_password(&given_url),
                access.password_file.as_deref(),
                &[],
                &server.tag,
            );
            Ok((
                TargetLocation::Server(Arc::new(server.with_clean_command(command))),
                None,
            ))
        }
    }
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
        Self::with_access(resolved, &ServerAccess::url(url))
    }

    /// The environment on the server `access` leads to (or SQLite files).
    pub fn with_access(
        resolved: &Resolved<'_>,
        access: &ServerAccess,
    ) -> Result<Environment, SetupError> {
        let runtime = worker_runtime()?;
        let (location, temp_dir) = target_location(resolved, access)?;
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
                probe_after: e.probe_after.0,
                probe_interval: e.probe_interval.0,
                block_timeout: e.block_timeout.0,
                settle_timeout: e.settle_timeout.0,
                stall_timeout: e.stall_timeout.0,
                reply_timeout: e.statement_timeout.0
                    + e.lock_wait_timeout.0
                    + Duration::from_secs(2),
                pace: e.pace.0,
                fewer_round_trips: e.fewer_round_trips,
                deadlines: timeouts.deadlines(),
            },
            limits: e.session_limits(),
            reconnect_timeout: resolved.pipeline.pipeline.run.reconnect_timeout.0,
            replication_timeout: resolved.pipeline.pipeline.target.replication_timeout.0,
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
        let names = server.undropped();
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
                tracing::warn!(target: "txlab::run", "could not remove the databases of this run: {no_answer}");
            }
        }
        let left = server.leftovers();
        if !left.names.is_empty() {
            // Not a log line: the user must see it whatever the log level.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "warning: the run could not drop its databases; {left}"
            );
        }
    }
}
