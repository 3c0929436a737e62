//! What a run needs before its first case: the pipeline's plugins resolved
//! and configured ([`Resolved`]), and the run's environment — runtime,
//! databases, limits ([`Environment`]). The run loop, `replay`, `reduce` and
//! `bench` all start from here.

mod environment;
mod resolve;

pub use environment::{pipeline_target, worker_runtime, Environment, PipelineTarget, ServerAccess};
pub use resolve::{OracleInstance, Resolved};

use crate::config::ConfigError;
use crate::target::TargetError;
use std::path::PathBuf;
use txlab_loader::CallError;

/// Problems found before any case runs.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Plugin(#[from] CallError),
    #[error("cannot write findings to {}: {reason}", path.display())]
    Output { path: PathBuf, reason: String },
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A stream run cannot start: the workload is no list-append, or an
    /// option is for schedule runs only.
    #[error("{0}")]
    Stream(String),
    #[error("dialect `{0}` declares no isolation level")]
    NoLevels(String),
    #[error("{oracle} cannot check {mode} runs, the only executor mode this pipeline uses")]
    UnsupportedMode { oracle: String, mode: &'static str },
    #[error(
        "dialect `{dialect}` needs a server: pass --url, set the environment variable {env}, or set `[target] url` in {}",
        pipeline.display()
    )]
    NoServerUrl {
        dialect: String,
        env: &'static str,
        pipeline: PathBuf,
    },
    #[error(transparent)]
    Credentials(#[from] crate::driver::CredentialsError),
    #[error("cannot create the database directory: {0}")]
    DatabaseDir(std::io::Error),
    #[error("--url names a server, but the `{dialect}` dialect runs on its embedded database and would ignore it; leave --url out, or choose a server dialect in the pipeline's [target]")]
    UrlForEmbedded { dialect: String },
    #[error("cannot start an async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the benchmark could not run: {0}")]
    Bench(String),
    /// An experiment of `txlab semantics` could not run.
    #[error("{0}")]
    Semantics(String),
    #[error("--shard {0} needs the run's seed: pass the same --seed (or set `[run] seed`) for every shard, so that together they run the cases one run would")]
    ShardWithoutSeed(String),
}
