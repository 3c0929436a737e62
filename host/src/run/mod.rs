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
mod summary;
mod worker;

pub use case_runner::{CaseRunner, Evaluated, OracleVerdict};
pub use error::CaseError;
pub use reduction::{reduce_and_write, reduce_finding, Reduced};
pub use summary::{Exercised, PatternTally, RunSummary};

use crate::setup::{Environment, Resolved, SetupError};
use indicatif::{ProgressBar, ProgressStyle};
pub use output::random_seed;
use output::{open_log, prepare_output};
use plan::Plan;
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
    /// The server URL, over the environment and the pipeline.
    pub url: Option<String>,
    /// Write findings without reducing them, whatever the pipeline says.
    pub no_reduce: bool,
    /// Vendor-permitted anomalies are findings, whatever the pipeline says.
    pub strict: bool,
    /// Set by the caller to stop the run early (Ctrl-C): every worker
    /// finishes its case, the summary is written and the run's databases
    /// are dropped.
    pub interrupt: Option<Arc<AtomicBool>>,
}

fn plan(resolved: &Resolved<'_>, options: &RunOptions) -> Plan {
    let p = &resolved.pipeline.pipeline;
    match (options.single_case, options.cases, options.duration) {
        (Some(i), _, _) => Plan::Single(i),
        (None, Some(n), _) => Plan::Cases(n),
        (None, None, Some(d)) => Plan::Until(Instant::now() + d),
        (None, None, None) => match (p.run.cases, p.run.duration) {
            (Some(n), _) => Plan::Cases(n),
            (None, Some(d)) => Plan::Until(Instant::now() + d.0),
            (None, None) => Plan::Cases(100),
        },
    }
}

fn progress_bar(plan: &Plan) -> ProgressBar {
    let progress = match plan {
        Plan::Cases(n) => ProgressBar::new(*n),
        Plan::Single(_) => ProgressBar::new(1),
        Plan::Until(_) => ProgressBar::new_spinner(),
    };
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner:.green} {elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} cases ({per_sec}) {msg}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    progress.enable_steady_tick(Duration::from_millis(200));
    progress
}

/// Runs the pipeline. Returns after the planned cases, the duration, or a stop.
pub fn run(resolved: &Resolved<'_>, options: &RunOptions) -> Result<RunSummary, SetupError> {
    let p = &resolved.pipeline.pipeline;
    let seed = options.seed.or(p.run.seed).unwrap_or_else(random_seed);
    let plan = plan(resolved, options);
    let out = options.out.clone().unwrap_or_else(|| p.run.out.clone());

    // Every worker's plugins are built before the first case, so that a
    // configuration error stops the run before anything happens (the run
    // directory included).
    let workers = match plan {
        Plan::Single(_) => 1,
        _ => p.run.workers,
    };
    let mut plugins = Vec::new();
    for _ in 0..workers {
        plugins.push((resolved.new_generator()?, resolved.new_oracles()?));
    }

    let interrupt = options
        .interrupt
        .clone()
        .map(crate::driver::Interrupt::new)
        .unwrap_or_default();
    let env = Environment::new(resolved, options.url.as_deref())?.with_interrupt(interrupt);
    let setups = env.level_setups(resolved)?;
    let reduce = (p.reduce.enabled && !options.no_reduce).then(|| p.reduce.settings());
    // Every worker's databases are in place before the first case: a
    // server that fails one worker's set-up stops the run before any case,
    // rather than in the middle of the others' cases without a summary.
    let mut workers = Vec::new();
    for (id, (generator, oracles)) in plugins.into_iter().enumerate() {
        workers.push(Worker {
            resolved,
            generator,
            runner: CaseRunner::open(resolved, &env, id, &setups, oracles)?,
            reduce,
            run_ends: None,
            strict: p.run.strict || options.strict,
        });
    }
    // A run's duration counts from its first case, however long the
    // set-up took.
    let plan = self::plan(resolved, options);
    for worker in &mut workers {
        worker.run_ends = plan.ends();
        worker.runner.set_waits_end(plan.ends());
    }
    let run_dir = prepare_output(&out, seed)?;

    let progress = progress_bar(&plan);
    let shared = Arc::new(Shared {
        taken: AtomicU64::new(0),
        interrupt: options.interrupt.clone(),
        stop: AtomicBool::new(false),
        stop_reason: Mutex::new(None),
        summary: Mutex::new(RunSummary {
            run_dir: run_dir.clone(),
            seed,
            ..RunSummary::default()
        }),
        consecutive_errors: AtomicU64::new(0),
        max_consecutive_errors: p.run.max_consecutive_errors.max(1),
        errors_log: Mutex::new(open_log(&run_dir.join("errors.log"))?),
        undecided_log: Mutex::new(open_log(&run_dir.join("undecided.log"))?),
        run_dir: run_dir.clone(),
        progress: progress.clone(),
        reductions: Mutex::new(BTreeMap::new()),
        max_reductions_per_kind: p.reduce.max_per_kind,
        output_errors: Mutex::new(Vec::new()),
    });
    shared.refresh();
    let plan = Arc::new(plan);
    let started = Instant::now();

    let workers = std::thread::scope(|scope| {
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
        done
    });

    progress.finish_and_clear();
    let mut summary = std::mem::take(&mut *shared.summary.lock().expect("lock"));
    summary.elapsed_secs = started.elapsed().as_secs_f64();
    summary.stopped_early = shared.stop_reason.lock().expect("lock").take();
    summary.interrupted = shared.interrupted();
    summary.databases = env.created_databases();
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
    Ok(summary)
}
