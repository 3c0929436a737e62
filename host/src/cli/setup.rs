//! The sequence every pipeline subcommand starts with: load the pipeline
//! file, discover the plugins it may use, resolve the ones it names.

use super::Cli;
use crate::config::LoadedPipeline;
use crate::setup::Resolved;
use std::path::Path;
use txlab_loader::registry::{search_dirs, Registry};

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
}
