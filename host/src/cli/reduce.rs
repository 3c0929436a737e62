//! `txlab reduce`: reduces a finding's case again, e.g. with a larger budget.

use super::finding::{open_runner, FindingSetup, FindingTarget};
use super::{out, parse_positive_duration, Cli, EXIT_CLEAN, EXIT_FINDINGS};
use crate::config::ReduceSettings;
use crate::io::{FindingOrigin, ReductionOutcome, ReportKind};
use crate::run::reduce_and_write;
use crate::setup::Environment;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub(super) struct ReduceArgs {
    /// A finding directory.
    finding: PathBuf,
    #[command(flatten)]
    budget: ReduceBudget,
    #[command(flatten)]
    target: FindingTarget,
}

/// Command-line overrides of the pipeline's `[reduce]` settings.
#[derive(clap::Args)]
struct ReduceBudget {
    /// Candidate cases to run at most, 1 to 100000 (overrides the
    /// pipeline's reduce.max_trials).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=crate::config::MAX_REDUCE_TRIALS as u64))]
    max_trials: Option<u64>,
    /// Time to spend at most, e.g. 5m (overrides reduce.max_time).
    #[arg(long, value_parser = parse_positive_duration)]
    max_time: Option<Duration>,
    /// Runs that confirm the reduced case, 1 to 100 (overrides reduce.confirm).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::config::MAX_REDUCE_RUNS)))]
    confirm: Option<u32>,
    /// Runs of each candidate before it counts as not reproducing, for a
    /// finding that shows only some of the time, 1 to 100 (overrides
    /// reduce.attempts).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::config::MAX_REDUCE_RUNS)))]
    attempts: Option<u32>,
}

impl ReduceBudget {
    fn over(&self, base: ReduceSettings) -> ReduceSettings {
        ReduceSettings {
            max_trials: self.max_trials.map_or(base.max_trials, |n| n as usize),
            max_time: self.max_time.unwrap_or(base.max_time),
            confirm: self.confirm.unwrap_or(base.confirm).max(1),
            attempts: self.attempts.unwrap_or(base.attempts).max(1),
        }
    }
}

pub(super) fn run(cli: &Cli, args: &ReduceArgs) -> anyhow::Result<u8> {
    let dir = &args.finding;
    if dir
        .file_name()
        .is_some_and(|n| n == "reduced" || n == "unconfirmed")
        && dir
            .parent()
            .is_some_and(|p| p.join("provenance.json").exists())
    {
        anyhow::bail!(
            "{} is a reduced case; reduce the finding it belongs to: txlab reduce {}",
            dir.display(),
            dir.parent().unwrap_or(dir).display()
        );
    }
    let setup = FindingSetup::load(cli, dir, &args.target)?;
    if setup.saved.provenance.kind == ReportKind::VendorPermitted {
        anyhow::bail!(
            "{} is a vendor-permitted anomaly, not a finding; anomalies are not reduced (txlab replay runs it again)",
            dir.display()
        );
    }
    let settings = args
        .budget
        .over(setup.pipeline.loaded.pipeline.reduce.settings());
    let access = args.target.server.access();
    let resolved = setup.resolve(&access)?;
    let env = Environment::with_access(&resolved, &access)?;
    let mut runner = open_runner(&resolved, &env)?;
    let server_version = runner.server_version().map(str::to_string);
    let p = &setup.saved.provenance;
    out!(
        "reducing {} ({}: {}), at most {} trials or {}",
        dir.display(),
        p.oracle,
        setup.saved.finding.title,
        settings.max_trials,
        humantime::format_duration(settings.max_time)
    );
    let report = reduce_and_write(
        &mut runner,
        dir,
        FindingOrigin {
            kind: ReportKind::Finding,
            oracle: &p.oracle,
            dialect: &resolved.info,
            generator: &p.generator,
            pipeline: &setup.pipeline.loaded.path,
            request: setup.saved.request(),
            server_version: server_version.as_deref(),
        },
        &setup.saved.generated,
        &setup.saved.finding,
        &settings,
        None,
    )?;
    out!("{}", report.summary());
    // Exit 1 as long as a case shows the finding, as `replay` does.
    let attempt = dir.join("reduction-attempt.json");
    if attempt.exists() {
        out!(
            "an earlier, smaller reduction stays in {}; this attempt is in {}",
            dir.join("reduced").display(),
            attempt.display()
        );
    } else {
        out!("written: {}", dir.join("reduction.json").display());
    }
    match crate::io::html::refresh_for_finding(dir) {
        Some(Ok(page)) => out!("page updated: {}", page.display()),
        Some(Err(e)) => tracing::warn!("the run's page was not updated: {e}"),
        None => {}
    }
    Ok(match report.outcome {
        ReductionOutcome::OriginalDidNotReproduce => EXIT_CLEAN,
        ReductionOutcome::Reduced
        | ReductionOutcome::ReducedDidNotReproduce
        | ReductionOutcome::CouldNotRun => EXIT_FINDINGS,
    })
}
