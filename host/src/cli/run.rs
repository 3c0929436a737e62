//! `txlab run`: runs a pipeline and prints its summary.

use super::setup::{PipelineSetup, ServerArgs};
use super::{
    out, parse_positive_duration, Cli, EXIT_CLEAN, EXIT_FINDINGS, EXIT_INTERRUPTED,
    EXIT_TOOL_ERRORS,
};
use crate::run::{Reporting, RunOptions, RunSummary};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args)]
pub(super) struct RunArgs {
    pipeline: PathBuf,
    /// Number of cases to run (overrides the pipeline).
    #[arg(long, conflicts_with = "duration", value_parser = clap::value_parser!(u64).range(1..))]
    cases: Option<u64>,
    /// Run for this long instead, e.g. 10m or 1h.
    #[arg(long, value_parser = parse_positive_duration)]
    duration: Option<Duration>,
    /// The run seed (overrides the pipeline); the same seed gives the same cases.
    #[arg(long)]
    seed: Option<u64>,
    /// Run only the case with this index, e.g. to reproduce a finding.
    #[arg(long, conflicts_with_all = ["cases", "duration"])]
    case: Option<u64>,
    /// Run the INDEX-th of COUNT disjoint slices of the run's cases (INDEX
    /// from 0): with the same --seed, the COUNT shards together run the
    /// cases the unsharded run would, each once (`txlab merge` combines
    /// their run directories).
    #[arg(long, value_name = "INDEX/COUNT", conflicts_with = "case")]
    shard: Option<crate::run::Shard>,
    /// Where to write findings (overrides the pipeline's run.out).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    server: ServerArgs,
    /// Write findings as found, without reducing them.
    #[arg(long)]
    no_reduce: bool,
    /// Judge by the standard models: vendor-permitted anomalies (forbidden
    /// by the standard model of the level, allowed by the vendor's
    /// documentation) are findings (over the pipeline's `run.strict`).
    #[arg(long)]
    strict: bool,
    /// Print nothing while the run runs and no summary at its end (errors
    /// still go to stderr); the exit code and the run directory tell the rest.
    #[arg(short, long, conflicts_with = "json")]
    quiet: bool,
    /// Print the run's summary (summary.json) as JSON on stdout at the end,
    /// and the line per finding on stderr.
    #[arg(long)]
    json: bool,
    /// Where stderr is not a terminal (a pipe, a CI log), print a progress
    /// line this often.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_positive_duration)]
    progress_every: Duration,
}

/// The next request to stop: Ctrl-C (SIGINT), SIGTERM (a service manager's
/// stop) or SIGHUP (the terminal closed); `None` when signals cannot be
/// watched.
async fn stop_requested() -> Option<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).ok()?;
    let mut hangup = signal(SignalKind::hangup()).ok()?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.ok().map(|()| "Ctrl-C"),
        _ = term.recv() => Some("SIGTERM"),
        _ = hangup.recv() => Some("SIGHUP"),
    }
}

/// A flag that the first request to stop (Ctrl-C, SIGTERM, SIGHUP) sets, so
/// that a run stops after the cases in progress, writes its summary and
/// drops its databases; a second request quits at once.
fn interrupt_on_ctrl_c() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    let watch = move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async {
            let what = stop_requested().await?;
            set.store(true, Ordering::SeqCst);
            // After SIGHUP the terminal may be gone: a failed write must not
            // end this watcher.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "\ninterrupted ({what}): cancelling the statements in flight, writing the summary (Ctrl-C again quits at once)"
            );
            stop_requested().await?;
            // Quitting now leaves the run's databases: say which, and how
            // to drop them later.
            for left in crate::target::leftovers_of_this_process() {
                let _ = writeln!(std::io::stderr(), "quitting without clean-up; {left}");
            }
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        })
    };
    std::thread::spawn(move || {
        let _: Option<()> = watch();
    });
    flag
}

pub(super) fn run(cli: &Cli, args: &RunArgs) -> anyhow::Result<u8> {
    let setup = PipelineSetup::load(cli, &args.pipeline)?;
    let server = args.server.access();
    let resolved = setup.resolve_for_server(&server)?;
    let options = RunOptions {
        cases: args.cases,
        duration: args.duration,
        seed: args.seed,
        single_case: args.case,
        out: args.out.clone(),
        server,
        no_reduce: args.no_reduce,
        strict: args.strict,
        shard: args.shard,
        reporting: Reporting {
            quiet: args.quiet,
            lines_to_stderr: args.json,
            progress_every: args.progress_every,
        },
        interrupt: Some(interrupt_on_ctrl_c()),
        measure: false,
    };
    let summary = crate::run::run(&resolved, &options)?;
    if args.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("the summary serializes")
        );
        if let Some(what) = &summary.output_error {
            eprintln!("error: the run's output is incomplete: {what}");
        }
    } else if !args.quiet {
        print_summary(&summary);
    } else if let Some(what) = &summary.output_error {
        eprintln!("error: the run's output is incomplete: {what}");
    }
    Ok(if summary.findings > 0 {
        EXIT_FINDINGS
    } else if summary.interrupted {
        EXIT_INTERRUPTED
    } else if summary.errors > 0
        || !summary.oracle_errors.is_empty()
        || summary.stopped_early.is_some()
        || summary.output_error.is_some()
    {
        EXIT_TOOL_ERRORS
    } else {
        EXIT_CLEAN
    })
}

fn print_summary(s: &RunSummary) {
    let rate = if s.elapsed_secs > 0.0 {
        s.cases as f64 / s.elapsed_secs
    } else {
        0.0
    };
    out!(
        "txlab: {} cases in {:.1} s ({rate:.1} cases/s), seed {}",
        s.cases,
        s.elapsed_secs,
        s.seed
    );
    if s.stream.is_some() {
        // A stream's history is checked as a whole: no case passes or fails.
        out!(
            "  findings {}, vendor-permitted anomalies {}, tool errors {}",
            s.findings,
            s.anomalies,
            s.errors
        );
    } else {
        out!(
            "  passed {}, findings {} (in {} cases), vendor-permitted anomalies in {} cases, undecided {}, tool errors {}",
            s.passed,
            s.findings,
            s.cases_with_findings,
            s.cases_with_anomalies,
            s.undecided,
            s.errors
        );
    }
    let x = &s.exercised;
    let aborted: u64 = x.aborted.values().sum();
    let by_class: Vec<String> = x.aborted.iter().map(|(c, n)| format!("{c} {n}")).collect();
    out!(
        "  exercised: {} transactions ({} committed, {} rolled back, {aborted} aborted{}), {} blocked statements in {} cases",
        x.transactions,
        x.committed,
        x.rolled_back,
        if by_class.is_empty() { String::new() } else { format!(": {}", by_class.join(", ")) },
        x.blocked_statements,
        x.cases_with_blocking
    );
    if let Some(t) = &s.stream {
        out!(
            "  stream: {} sessions, {} transactions ({} committed, {} aborted, {} unknown), {} windows checked{}",
            t.sessions,
            t.transactions,
            t.committed,
            t.aborted,
            t.unknown,
            t.windows,
            t.peak_rss_kib
                .map(|k| format!(", peak RSS {} MiB", k / 1024))
                .unwrap_or_default()
        );
    }
    let mut kinds: Vec<_> = s.finding_kinds.iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(a.1));
    for (kind, n) in kinds {
        out!("  finding {n}×: {kind}");
    }
    if s.anomalies > 0 && s.stream.is_some() {
        out!(
            "  vendor-permitted anomalies {}: forbidden by the standard model of the level, allowed by the vendor's documentation; see anomalies/",
            s.anomalies
        );
    } else if s.anomalies > 0 {
        out!(
            "  vendor-permitted anomalies {} (in {} cases without findings): forbidden by the standard model of the level, allowed by the vendor's documentation; see anomalies/",
            s.anomalies,
            s.cases_with_anomalies
        );
    }
    if s.anomalies > 0 {
        let mut kinds: Vec<_> = s.anomaly_kinds.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1));
        for (kind, n) in kinds {
            out!("  anomaly {n}×: {kind}");
        }
    }
    if s.unconfirmed > 0 {
        out!(
            "  unconfirmed {} (in {} cases): findings their case never showed again when it ran again; not counted, see unconfirmed/",
            s.unconfirmed,
            s.cases_unconfirmed
        );
        for (kind, n) in &s.unconfirmed_kinds {
            out!("  unconfirmed {n}×: {kind}");
        }
    }
    let mut allowed: Vec<_> = s.allowed_kinds.iter().collect();
    allowed.sort_by(|a, b| b.1.cmp(a.1));
    for (kind, n) in allowed.into_iter().take(5) {
        out!("  allowed by both models {n}×: {kind}");
    }
    if !s.patterns.is_empty() {
        out!("  patterns: cases / anomaly occurred / prevented by an abort / by blocking / did not occur / findings");
        for (name, p) in &s.patterns {
            out!(
                "    {name} ({}): {} / {} / {} / {} / {} / {}",
                p.anomaly,
                p.cases,
                p.occurred,
                p.prevented_by_abort,
                p.prevented_by_blocking,
                p.did_not_occur,
                p.findings
            );
        }
    }
    let mut reasons: Vec<_> = s.undecided_reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1));
    for (reason, n) in reasons.into_iter().take(5) {
        out!("  undecided {n}×: {reason}");
    }
    let mut errors: Vec<_> = s.error_reasons.iter().collect();
    errors.sort_by(|a, b| b.1.cmp(a.1));
    for (reason, n) in errors.into_iter().take(3) {
        out!("  tool error {n}×: {reason}");
    }
    for (oracle, n) in &s.oracle_errors {
        out!("  oracle `{oracle}` failed in {n} cases; the other oracles' verdicts stand");
    }
    if let Some(what) = &s.output_error {
        eprintln!("error: the run's output is incomplete: {what}");
    }
    if let Some(why) = &s.stopped_early {
        out!("  stopped early: {why}");
    }
    if s.errors > 0 || !s.oracle_errors.is_empty() {
        out!(
            "  tool errors are listed in {}",
            s.run_dir.join("errors.log").display()
        );
    }
    out!("  output: {}", s.run_dir.display());
    let page = s.run_dir.join(crate::io::html::INDEX);
    if page.is_file() {
        out!("  page: {}", page.display());
    }
}
