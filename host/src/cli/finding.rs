//! What `replay` and `reduce` share: a saved finding, the pipeline it runs
//! on, and a runner on that pipeline's target.

use super::setup::{PipelineSetup, ServerArgs};
use super::Cli;
use crate::config::LoadedPipeline;
use crate::io::SavedFinding;
use crate::run::CaseRunner;
use crate::setup::{Environment, Resolved, ServerAccess};
use std::path::{Path, PathBuf};

/// Where to run a saved finding.
#[derive(clap::Args)]
pub(super) struct FindingTarget {
    /// The pipeline to run it with; by default the one the finding came from.
    #[arg(long)]
    pipeline: Option<PathBuf>,
    #[command(flatten)]
    pub(super) server: ServerArgs,
}

/// A saved finding with the pipeline it runs on.
pub(super) struct FindingSetup {
    pub(super) saved: SavedFinding,
    pub(super) pipeline: PipelineSetup,
}

impl FindingSetup {
    pub(super) fn load(cli: &Cli, dir: &Path, target: &FindingTarget) -> anyhow::Result<Self> {
        let saved = SavedFinding::load(dir).map_err(|e| anyhow::anyhow!(e))?;
        let path = target
            .pipeline
            .clone()
            .unwrap_or_else(|| saved.provenance.pipeline.clone());
        let loaded = LoadedPipeline::load(&path).map_err(|e| {
            anyhow::anyhow!(
                "{e}{}",
                if target.pipeline.is_none() {
                    " (the pipeline the finding came from; pass --pipeline to use another)"
                } else {
                    ""
                }
            )
        })?;
        Ok(FindingSetup {
            saved,
            pipeline: PipelineSetup::from_loaded(cli, loaded)?,
        })
    }

    /// The pipeline's plugins, checked to include the finding's oracle, with
    /// the dialect built for the server `access` leads to.
    pub(super) fn resolve(&self, access: &ServerAccess) -> anyhow::Result<Resolved<'_>> {
        let resolved = self.pipeline.resolve_for_server(access)?;
        let oracle = &self.saved.provenance.oracle;
        if !resolved.oracle_names().contains(&oracle.as_str()) {
            anyhow::bail!(
                "the finding is oracle `{oracle}`'s, and {} has no [[oracle]] `{oracle}`",
                self.pipeline.loaded.path.display()
            );
        }
        if resolved.info.name != self.saved.provenance.dialect {
            eprintln!(
                "note: the finding came from dialect `{}`; running it on `{}`",
                self.saved.provenance.dialect, resolved.info.name
            );
        }
        Ok(resolved)
    }
}

/// A runner on one worker database of the pipeline's target.
pub(super) fn open_runner<'a>(
    resolved: &'a Resolved<'a>,
    env: &Environment,
) -> anyhow::Result<CaseRunner<'a>> {
    let setups = env.level_setups(resolved)?;
    Ok(CaseRunner::open(
        resolved,
        env,
        0,
        &setups,
        resolved.new_oracles()?,
    )?)
}
