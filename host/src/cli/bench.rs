//! `txlab bench`: executor measurements on a pipeline's target.

use super::setup::{PipelineSetup, ServerArgs};
use super::{out, Cli, EXIT_CLEAN};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct BenchArgs {
    pipeline: PathBuf,
    /// Blocking samples to take, 1 to 100000.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    samples: u64,
    #[command(flatten)]
    server: ServerArgs,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub(super) fn run(cli: &Cli, args: &BenchArgs) -> anyhow::Result<u8> {
    let setup = PipelineSetup::load(cli, &args.pipeline)?;
    let resolved = setup.resolve()?;
    let report = crate::bench::run(&resolved, args.samples as usize, &args.server.access())?;
    out!("{}", report.render());
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    Ok(EXIT_CLEAN)
}
