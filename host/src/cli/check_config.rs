//! `txlab check-config`: a pipeline and every plugin's options, checked
//! without running anything.

use super::setup::PipelineSetup;
use super::{out, Cli, EXIT_CLEAN};
use std::path::Path;

pub(super) fn run(cli: &Cli, pipeline: &Path) -> anyhow::Result<u8> {
    let setup = PipelineSetup::load(cli, pipeline)?;
    let resolved = setup.resolve()?;
    resolved.check()?;
    out!(
        "{}: ok — dialect {} (driver {}), isolation {}, generator {}, oracles {}",
        pipeline.display(),
        resolved.info.name,
        resolved.info.driver,
        resolved
            .levels
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        resolved.generator_name(),
        resolved.oracle_names().join(", ")
    );
    Ok(EXIT_CLEAN)
}
