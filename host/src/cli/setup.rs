//! The sequence every pipeline subcommand starts with: load the pipeline
//! file, discover the plugins it may use, resolve the ones it names.

use super::Cli;
use crate::config::LoadedPipeline;
use crate::setup::{Resolved, ServerAccess};
use std::path::{Path, PathBuf};
use txlab_loader::registry::{search_dirs, Registry};

/// The server to use and the password for it, for every subcommand that
/// connects.
#[derive(clap::Args, Clone, Debug, Default)]
pub(super) struct ServerArgs {
    /// The server (mysql://user@host:port, postgres://user@host:port/db),
    /// over TXLAB_MYSQL_URL / TXLAB_PG_URL and the pipeline's target.url.
    /// Leave the password out: every local user can read command lines.
    #[arg(long)]
    pub(super) url: Option<String>,
    /// Read the server's password from the first line of this file (over
    /// TXLAB_PASSWORD, MYSQL_PWD / PGPASSWORD, ~/.my.cnf / ~/.pgpass).
    #[arg(long, value_name = "FILE")]
    pub(super) password_file: Option<PathBuf>,
}

impl ServerArgs {
    /// What the library needs; warns (one line) about a password in --url.
    pub(super) fn access(&self) -> ServerAccess {
        if self
            .url
            .as_deref()
            .is_some_and(crate::driver::url_has_password)
        {
            eprintln!(
                "warning: the password in --url can be read by every local user (ps); give it with --password-file, TXLAB_PASSWORD, or ~/.my.cnf / ~/.pgpass instead"
            );
        }
        ServerAccess {
            url: self.url.clone(),
            password_file: self.password_file.clone(),
        }
    }
}

/// A pipeline file and the plugins found for it.
pub(super) struct PipelineSetup {
    pub(super) loaded: LoadedPipeline,
    pub(super) registry: Registry,
}

impl PipelineSetup {
    pub(super) fn load(cli: &Cli, pipeline: &Path) -> anyhow::Result<Self> {
        Self::from_loaded(cli, LoadedPipeline::load(pipeline)?)
    }

    pub(super) fn from_loaded(cli: &Cli, loaded: LoadedPipeline) -> anyhow::Result<Self> {
        let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &loaded.plugin_dirs()));
        Ok(PipelineSetup { loaded, registry })
    }

    pub(super) fn resolve(&self) -> anyhow::Result<Resolved<'_>> {
        Ok(Resolved::resolve(&self.loaded, &self.registry)?)
    }

    /// [`PipelineSetup::resolve`], with the dialect built for the server
    /// `access` leads to (its version and settings read first), for the
    /// commands that run cases.
    pub(super) fn resolve_for_server(&self, access: &ServerAccess) -> anyhow::Result<Resolved<'_>> {
        let mut resolved = self.resolve()?;
        resolved.for_server(access)?;
        Ok(resolved)
    }
}
