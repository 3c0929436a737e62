//! Runs a pipeline: workers take cases from the plan, run them through the
//! case runner, write and reduce findings, and tally the results.
//!
//! - [`case_runner`]: one case end to end (instrument, render, execute, judge);
//! - `worker`: the per-worker loop, writing findings and reducing them;
//! - [`reduction`]: shrinking a finding's case on its target;
//! - `shared`, `summary`, `plan`, `output`: what the workers share, the
//!   tallies, which cases run, and the run directory.

mod case_runner;
mod error;
mod output;
mod plan;
pub mod reduction;
mod shared;
pub mod stream;
mod summary;
pub mod throughput;
mod worker;

pub use case_runner::{CaseRunner, Evaluated, OracleVerdict};
pub use error::CaseError;
pub use reduction::{reduce_and_write, reduce_finding, Reduced};
pub use summary::{Exercised, PatternTally, RunSummary, SUMMARY_FORMAT_VERSION};

use crate::setup::{Environment, Resolved, ServerAccess, SetupError};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
pub use output::random_seed;
use output::{open_log, prepare_output};
use plan::{Extent, Plan};
pub use plan::{Shard, MAX_SHARDS};
use shared::Shared;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use worker::Worker;

#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub cases: Option<u64>,
    pub duration: Option<Duration>,
    pub seed: Option<u64>,
    /// Run exactly this case index (to reproduce a finding).
    pub single_case: Option<u64>,
    pub out: Option<PathBuf>,
    /// The server URL (over the environment and the pipeline) and the
    /// password file.
    pub server: ServerAccess,
    /// Write findings without reducing them, whatever the pipeline says.
    pub no_reduce: bool,
    /// Vendor-permitted anomalies are findings, whatever the pipeline says.
    pub strict: bool,
    /// Run only this slice of the run's case indices (`--shard`).
    pub shard: Option<Shard>,
    /// What the run prints while it runs.
    pub reporting: Reporting,
    /// Set by the caller to stop the run early (Ctrl-C): every worker
    /// finishes its case, the summary is written and the run's databases
    /// are dropped.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Measure where each worker's time goes (`RunSummary::measured`).
    pub measure: bool,
}

fn plan(resolved: &Resolved<'_>, options: &RunOptions) -> Plan {
    let p = &resolved.pipeline.pipeline;
    let extent = match (options.single_case, options.cases, options.duration) {
        (Some(i), _, _) => Extent::Single(i),
        (None, Some(n), _) => Extent::Cases(n),
        (None, None, Some(d)) => Extent::Until(Instant::now() + d),
        (None, None, None) => match (p.run.cases, p.run.duration) {
            (Some(n), _) => Extent::Cases(n),
            (None, Some(d)) => Extent::Until(Instant::now() + d.0),
            (None, None) => Extent::Cases(100),
        },
    };
    Plan {
        extent,
        shard: options.shard.unwrap_or(Shard::ALL),
    }
}

/// What a run prints while it runs, besides its log.
#[derive(Clone, Debug)]
pub struct Reporting {
    /// Nothing: no progress, no line per finding (`--quiet`).
    pub quiet: bool,
    /// The line per finding on stderr, so that stdout holds only what the
    /// caller prints at the end (`--json`).
    pub lines_to_stderr: bool,
    /// Where stderr is not a terminal (no progress bar), a progress line
    /// this often.
    pub progress_every: Duration,
}

impl Default for Reporting {
    fn default() -> Self {
        Reporting {
            quiet: false,
            lines_to_stderr: false,
            progress_every: Duration::from_secs(10),
        }
    }
}

fn progress_bar(plan: &Plan, reporting: &Reporting) -> ProgressBar {
    if reporting.quiet {
        return ProgressBar::hidden();
    }
    let progress = match plan.len() {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    // Rates to one decimal, and the time to the end: the ETA of a number of
    // cases, the time left of a duration.
    let rate = |state: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = write!(w, "{:.1} cases/s", state.per_sec());
    };
    let style = match plan.ends() {
        Some(end) => ProgressStyle::with_template(
            "{spinner:.green} {elapsed_precise} {pos} cases ({rate}) {msg} | {left} left",
        )
        .expect("valid template")
        .with_key("rate", rate)
        .with_key(
            "left",
            move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let left = end.saturating_duration_since(Instant::now());
                let _ = write!(w, "{}", humantime::format_duration(Duration::from_secs(left.as_secs())));
            },
        ),
        None => ProgressStyle::with_template(
            "{spinner:.green} {elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} cases ({rate}) {msg} | ETA {eta}",
        )
        .expect("valid template")
        .with_key("rate", rate)
        .progress_chars("=> "),
    };
    progress.set_style(style);
    progress.enable_steady_tick(Duration::from_millis(200));
    progress
}

/// Runs the pipeline. Returns after the planned cases, the duration, or a stop.
pub fn run(resolved: &Resolved<'_>, options: &RunOptions) -> Result<RunSummary, SetupError> {
    let p = &resolved.pipeline.pipeline;
    if p.executor.mode == txlab_plugin_api::ir::ExecutorMode::Stream {
        return stream::run(resolved, options);
    }
    let seed = match (options.seed.or(p.run.seed), options.shard) {
        (Some(seed), _) => seed,
        // Shards of one run must agree on the seed, so none may pick its own.
        (None, Some(shard)) => return Err(SetupError::ShardWithoutSeed(shard.to_string())),
        (None, None) => random_seed(),
    };
    let plan = plan(resolved, options);
    let out = options.out.clone().unwrap_or_else(|| p.run.out.clone());

    // Every worker's plugins are built before the first case, so that a
    // configuration error stops the run before anything happens (the run
    // directory included).
    let workers = match plan.extent {
        Extent::Single(_) => 1,
        _ => p.run.workers.resolve(crate::config::MAX_WORKERS),
    };
    let mut plugins = Vec::new();
    for _ in 0..workers {
        plugins.push((resolved.new_generator()?, resolved.new_oracles()?));
    }
    tracing::info!(target: "txlab::run", "plugins ready for {workers} worker(s); seed {seed}");

    let interrupt = options
        .interrupt
        .clone()
        .map(crate::driver::Interrupt::new)
        .unwrap_or_default();
    let env = Environment::with_access(resolved, &options.server)?.with_interrupt(interrupt);
    let setups = env.level_setups(resolved)?;
    let reduce = (p.reduce.enabled && !options.no_reduce).then(|| p.reduce.settings());
    // Every worker's databases are in place before the first case: a
    // server that fails one worker's set-up stops the run before any case,
    // rather than in the middle of the others' cases without a summary.
    let mut workers = Vec::new();
    for (id, (generator, oracles)) in plugins.into_iter().enumerate() {
        let runner = CaseRunner::open(resolved, &env, id, &setups, oracles)?;
        let server_version = runner.server_version().map(str::to_string);
        workers.push(Worker {
            resolved,
            generator,
            runner,
            reduce,
            run_ends: None,
            strict: p.run.strict || options.strict,
            server_version,
            measured: options.measure.then(Default::default),
        });
    }
    tracing::info!(target: "txlab::run", "target ready: dialect {}", resolved.info.name);
    // A run's duration counts from its first case, however long the
    // set-up took.
    let plan = self::plan(resolved, options);
    for worker in &mut workers {
        worker.run_ends = plan.ends();
        worker.runner.set_waits_end(plan.ends());
    }
    let run_dir = prepare_output(&out, seed)?;
    tracing::info!(target: "txlab::run", "running; output in {}", run_dir.display());

    let progress = progress_bar(&plan, &options.reporting);
    let shared = Arc::new(Shared {
        taken: AtomicU64::new(0),
        interrupt: options.interrupt.clone(),
        stop: AtomicBool::new(false),
        stop_reason: Mutex::new(None),
        summary: Mutex::new(RunSummary {
            shard: options.shard.map(|s| s.to_string()),
            ..RunSummary::begin(
                resolved,
                &run_dir,
                seed,
                workers.first().and_then(|w| w.server_version.clone()),
            )
        }),
        consecutive_errors: AtomicU64::new(0),
        max_consecutive_errors: p.run.max_consecutive_errors.max(1),
        errors_log: Mutex::new(open_log(&run_dir.join("errors.log"))?),
        undecided_log: Mutex::new(open_log(&run_dir.join("undecided.log"))?),
        run_dir: run_dir.clone(),
        progress: progress.clone(),
        reductions: Mutex::new(BTreeMap::new()),
        max_reductions_per_kind: p.reduce.max_per_kind,
        reporting: options.reporting.clone(),
        output_errors: Mutex::new(Vec::new()),
    });
    shared.refresh();
    let plan = Arc::new(plan);
    let started = Instant::now();

    let cases_done = AtomicBool::new(false);
    let workers = std::thread::scope(|scope| {
        // Off a terminal there is no bar: a line every `progress_every`.
        if !options.reporting.quiet && progress.is_hidden() {
            let (shared, plan, done) = (&shared, &plan, &cases_done);
            scope.spawn(move || shared.print_progress_lines(plan, started, done));
        }
        let mut handles = Vec::new();
        for mut worker in workers {
            let shared = shared.clone();
            let plan = plan.clone();
            handles.push(scope.spawn(move || {
                worker.work(seed, &plan, &shared);
                worker
            }));
        }
        let mut done = Vec::new();
        for h in handles {
            match h.join() {
                Ok(worker) => done.push(worker),
                Err(_) => {
                    shared.stop("a worker stopped on an internal error (see the log above)".into())
                }
            }
        }
        cases_done.store(true, std::sync::atomic::Ordering::SeqCst);
        done
    });
    tracing::info!(target: "txlab::run", "cases done; writing the summary");

    progress.finish_and_clear();
    let mut summary = std::mem::take(&mut *shared.summary.lock().expect("lock"));
    summary.elapsed_secs = started.elapsed().as_secs_f64();
    summary.stopped_early = shared.stop_reason.lock().expect("lock").take();
    summary.interrupted = shared.interrupted();
    summary.databases = env.created_databases();
    summary.measured = workers.iter().filter_map(|w| w.measured.clone()).collect();
    let mut output_errors = std::mem::take(&mut *shared.output_errors.lock().expect("lock"));
    if !output_errors.is_empty() {
        summary.output_error = Some(output_errors.join("; "));
    }
    let json = serde_json::to_string_pretty(&summary).unwrap_or_default();
    let path = run_dir.join("summary.json");
    if let Err(e) = crate::io::write_atomically(&path, json.as_bytes()) {
        output_errors.push(format!("cannot write {}: {e}", path.display()));
        summary.output_error = Some(output_errors.join("; "));
    }
    // Whether the server answers decides how long dropping the run's
    // databases may take: a frozen server must not hold the exit.
    if let Some(worker) = workers.first() {
        let answers = worker.runner.server_answers(Duration::from_secs(1));
        env.silent
            .store(!answers, std::sync::atomic::Ordering::SeqCst);
    }
    // The run as a page, from the files just written.
    if let Err(e) = crate::io::html::write_index(&run_dir) {
        summary.output_error.get_or_insert(e.to_string());
    }
    Ok(summary)
}
