//! `txlab bench`: executor measurements on a pipeline's target, or with
//! `--throughput` the pipeline's case loop run for a fixed time.

use super::setup::{PipelineSetup, ServerArgs};
use super::{out, Cli, EXIT_CLEAN};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct BenchArgs {
    pipeline: PathBuf,
    /// Blocking samples to take, 1 to 100000.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    samples: u64,
    /// Run the pipeline for `--duration` and report cases and transactions
    /// per second and where each worker's time went, phase by phase.
    #[arg(long)]
    throughput: bool,
    /// How long `--throughput` runs the pipeline ("30s", "5m").
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration, requires = "throughput")]
    duration: std::time::Duration,
    /// The run seed of `--throughput` (the pipeline's, else random).
    #[arg(long, requires = "throughput")]
    seed: Option<u64>,
    /// Keep the `--throughput` run's directory under this directory
    /// (otherwise a temporary one, removed after).
    #[arg(long, requires = "throughput")]
    out: Option<PathBuf>,
    #[command(flatten)]
    server: ServerArgs,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub(super) fn run(cli: &Cli, args: &BenchArgs) -> anyhow::Result<u8> {
    let setup = PipelineSetup::load(cli, &args.pipeline)?;
    let access = args.server.access();
    let resolved = setup.resolve_for_server(&access)?;
    let json = if args.throughput {
        let report = crate::bench::throughput::run(
            &resolved,
            args.duration,
            args.seed,
            args.out.clone(),
            &access,
        )?;
        out!("{}", report.render());
        serde_json::to_string_pretty(&report)?
    } else {
        let report = crate::bench::run(&resolved, args.samples as usize, &access)?;
        out!("{}", report.render());
        serde_json::to_string_pretty(&report)?
    };
    if let Some(path) = &args.json {
        std::fs::write(path, json)?;
    }
    Ok(EXIT_CLEAN)
}
