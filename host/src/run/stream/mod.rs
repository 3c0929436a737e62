//! A stream run (`[executor] mode = "stream"`): the stream executor's
//! sessions run the generator's list-append transactions concurrently; this
//! thread reads what they report into a history and checks it in windows as
//! it grows, retiring what is checked, with a progress line per window.
//!
//! - `record`: the executor's statements and replies as list-append
//!   micro-ops;
//! - `window`: which transactions can be checked and retired;
//! - `check`: a window through txlab's checker and both models, findings
//!   and vendor-permitted anomalies written to the run directory.

mod check;
#[cfg(test)]
mod lag_tests;
mod record;
pub mod window;

use super::output::{prepare_output, random_seed};
use super::{RunOptions, RunSummary};
use crate::driver::Interrupt;
use crate::executor::stream::{
    Dealer, StreamEvent, StreamExecutor, StreamSettings, TxnEnd, MAX_LAG_GENERATIONS,
};
use crate::setup::{worker_runtime, Environment, Resolved, SetupError};
use crate::target::{open_driver, CaseDb};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use txlab_plugin_api::ir::CaseRequest;
use window::Windows;

/// What a stream run adds to `summary.json`.
#[derive(Debug, Default, serde::Serialize)]
pub struct StreamTally {
    pub sessions: usize,
    /// Transactions that read or appended (the autocommit creation of keys
    /// not counted), and how they ended.
    pub transactions: u64,
    pub committed: u64,
    pub aborted: u64,
    pub unknown: u64,
    /// Windows checked.
    pub windows: u64,
    /// Transactions that touched a key already retired (the workload broke
    /// its promise that keys only grow); checked without the retired ones.
    pub late_transactions: u64,
    /// The most transactions waiting for their window at once.
    pub max_open_transactions: u64,
    /// The process's peak resident memory (VmHWM), in KiB, where Linux says.
    pub peak_rss_kib: Option<u64>,
    /// Why sessions stopped early, if any did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub session_errors: Vec<String>,
}

/// The process's resident memory now and at its peak, in KiB (Linux).
pub fn rss_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn stream_error(e: impl std::fmt::Display) -> SetupError {
    SetupError::Stream(e.to_string())
}

/// Runs the pipeline's stream.
pub fn run(resolved: &Resolved<'_>, options: &RunOptions) -> Result<RunSummary, SetupError> {
    let p = &resolved.pipeline.pipeline;
    // Options of schedule runs that a stream would otherwise ignore.
    if options.shard.is_some() {
        return Err(stream_error(
            "--shard takes a slice of a schedule run's cases: a stream runs its sessions' cases together, in one run",
        ));
    }
    if options.single_case.is_some() {
        return Err(stream_error(
            "--case runs one case of a schedule run: a stream is checked as one history (`txlab history check` reads a window's history.edn)",
        ));
    }
    if options.no_reduce {
        return Err(stream_error(
            "--no-reduce is for schedule runs: a stream does not reduce its findings (each is reported by its shortest cycle)",
        ));
    }
    let seed = options.seed.or(p.run.seed).unwrap_or_else(random_seed);
    let sessions = p.executor.sessions;
    let (cases, duration) = match (options.cases, options.duration) {
        (Some(n), _) => (Some(n), None),
        (None, Some(d)) => (None, Some(d)),
        (None, None) => match (p.run.cases, p.run.duration) {
            (Some(n), _) => (Some(n), None),
            (None, Some(d)) => (None, Some(d.0)),
            (None, None) => (Some(100), None),
        },
    };
    let mut generators = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        generators.push(resolved.new_generator()?);
    }
    let first = generators[0].next_case(CaseRequest::new(seed, 0))?;
    let table = record::workload_table(&first).map_err(stream_error)?;

    let interrupt = options
        .interrupt
        .clone()
        .map(Interrupt::new)
        .unwrap_or_default();
    let env = Environment::with_access(resolved, &options.server)?.with_interrupt(interrupt);
    let setups = env.level_setups(resolved)?;
    let runtime = worker_runtime()?;
    let driver = runtime.block_on(open_driver(
        &resolved.dialect,
        &resolved.info,
        &env.location,
        "stream",
        env.timeouts,
    ))?;
    let mut db = runtime.block_on(CaseDb::open(
        driver,
        &setups[0],
        env.settings.deadlines,
        env.interrupt.clone(),
    ))?;
    runtime.block_on(db.preflight(&setups))?;
    let rendered = resolved.dialect.render_case(&first, &env.limits)?;
    runtime.block_on(db.prepare(&resolved.dialect, &first, &rendered))?;
    let server_version = runtime.block_on(db.driver().server_version());
    let out = options.out.clone().unwrap_or_else(|| p.run.out.clone());
    let run_dir = prepare_output(&out, seed)?;
    tracing::info!(target: "txlab::run", "stream of {sessions} sessions on {}; output in {}", resolved.info.name, run_dir.display());

    let mut summary = RunSummary::begin(resolved, &run_dir, seed, server_version);
    let mut tally = StreamTally {
        sessions,
        ..StreamTally::default()
    };
    let started = Instant::now();
    let e = &p.executor;
    let generation = |case: &txlab_plugin_api::ir::TestCase| record::generation(case, &table);
    let dealer = Dealer::new(
        sessions,
        generation(&first).unwrap_or(0),
        Some(MAX_LAG_GENERATIONS),
    );
    let executor = StreamExecutor {
        driver: db.driver(),
        dialect: &resolved.dialect,
        limits: env.limits,
        settings: StreamSettings {
            sessions,
            run_seed: seed,
            cases,
            until: duration.map(|d| started + d),
            reply_timeout: e.statement_timeout.0 + e.lock_wait_timeout.0 + Duration::from_secs(10),
            epoch: started,
        },
        interrupt: env.interrupt.clone(),
        dealer: &dealer,
        generation: &generation,
    };
    let (sender, events) = mpsc::channel();
    let checker = Checker {
        table: table.clone(),
        windows: Windows::new(sessions),
        next_id: 1,
        window: 0,
        strict: p.run.strict || options.strict,
        quiet: options.reporting.quiet,
        check_every: e.check_interval.0,
        started,
        // A node of a cluster may not yet have applied another node's
        // commit when a transaction starts there (Galera: no causal wait by
        // default): real-time start order says nothing across nodes.
        start_order: db.nodes() == 1,
    };
    let failure = std::thread::scope(|scope| {
        let executor = &executor;
        scope.spawn(move || executor.run(generators, sender));
        checker.follow(events, resolved, &run_dir, &mut summary, &mut tally)
    });
    if let Err(why) = failure {
        summary.stopped_early = Some(why);
        summary.errors += 1;
    }
    summary.elapsed_secs = started.elapsed().as_secs_f64();
    summary.interrupted = env.interrupt.is_set();
    summary.databases = env.created_databases();
    tally.peak_rss_kib = rss_kib().map(|(_, peak)| peak);
    summary.stream = Some(tally);
    let json = serde_json::to_string_pretty(&summary).unwrap_or_default();
    let path = run_dir.join("summary.json");
    if let Err(e) = crate::io::write_atomically(&path, json.as_bytes()) {
        summary.output_error = Some(format!("cannot write {}: {e}", path.display()));
    }
    if let Err(e) = crate::io::html::write_index(&run_dir) {
        summary.output_error.get_or_insert(e.to_string());
    }
    Ok(summary)
}

/// The checking side of a stream.
struct Checker {
    table: String,
    windows: Windows,
    next_id: u64,
    window: u64,
    strict: bool,
    quiet: bool,
    check_every: Duration,
    started: Instant,
    /// Whether the checker may order transactions by when they started and
    /// ended (the G-SI anomalies): not across a cluster's nodes.
    start_order: bool,
}

impl Checker {
    /// Reads the sessions' events until every session ended, checking a
    /// window every `check_every`; `Err` when the history cannot be read or
    /// written (the sessions are then stopped by dropping the channel).
    fn follow(
        mut self,
        events: mpsc::Receiver<StreamEvent>,
        resolved: &Resolved<'_>,
        run_dir: &std::path::Path,
        summary: &mut RunSummary,
        tally: &mut StreamTally,
    ) -> Result<(), String> {
        let mut running = tally.sessions;
        let mut next_check = Instant::now() + self.check_every;
        while running > 0 {
            // A busy channel never times out: the clock decides.
            if Instant::now() >= next_check {
                next_check = Instant::now() + self.check_every;
                self.check(false, resolved, run_dir, summary, tally)?;
            }
            let wait = next_check.saturating_duration_since(Instant::now());
            match events.recv_timeout(wait) {
                Ok(StreamEvent::Case { session, case, .. }) => {
                    let floor = record::floor(&case, &self.table);
                    if floor.is_some() {
                        self.windows.set_floor(session, floor);
                    }
                }
                Ok(StreamEvent::Done(run)) => {
                    if run.txn == 0 {
                        summary.cases += 1;
                    }
                    let txn = record::list_txn(self.next_id, &run, &self.table)
                        .map_err(|e| e.to_string())?;
                    let Some(txn) = txn else { continue };
                    self.next_id += 1;
                    tally.transactions += 1;
                    let x = &mut summary.exercised;
                    x.transactions += 1;
                    match run.end {
                        TxnEnd::Committed => {
                            tally.committed += 1;
                            x.committed += 1;
                        }
                        TxnEnd::Aborted(class) => {
                            tally.aborted += 1;
                            *x.aborted.entry(class.to_string()).or_default() += 1;
                        }
                        TxnEnd::Unknown => tally.unknown += 1,
                    }
                    self.windows.add(txn);
                    tally.max_open_transactions =
                        tally.max_open_transactions.max(self.windows.open() as u64);
                }
                Ok(StreamEvent::Ended { session, error }) => {
                    running -= 1;
                    self.windows.set_floor(session, None);
                    if let Some(e) = error {
                        tally.session_errors.push(format!("session {session}: {e}"));
                        *summary.error_reasons.entry(e).or_default() += 1;
                        summary.errors += 1;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        self.check(true, resolved, run_dir, summary, tally)
    }

    fn check(
        &mut self,
        all: bool,
        resolved: &Resolved<'_>,
        run_dir: &std::path::Path,
        summary: &mut RunSummary,
        tally: &mut StreamTally,
    ) -> Result<(), String> {
        let txns = self.windows.take_closed(all);
        tally.late_transactions = self.windows.late;
        if txns.is_empty() && !all {
            self.progress(None, tally, summary);
            return Ok(());
        }
        self.window += 1;
        tally.windows += 1;
        let result = check::check_window(
            self.window,
            &txns,
            &resolved.info,
            self.strict,
            self.start_order,
            run_dir,
            summary,
        )?;
        drop(txns);
        self.progress(Some(result.transactions), tally, summary);
        Ok(())
    }

    /// The line after a window (`checked`: its transactions), or after an
    /// interval in which no window closed.
    fn progress(&self, checked: Option<usize>, tally: &StreamTally, summary: &RunSummary) {
        if self.quiet {
            return;
        }
        let mut kinds: Vec<String> = summary
            .finding_kinds
            .iter()
            .map(|(k, n)| format!("finding {k} {n}"))
            .chain(
                summary
                    .anomaly_kinds
                    .iter()
                    .map(|(k, n)| format!("{k} {n}")),
            )
            .collect();
        if kinds.is_empty() {
            kinds.push("no anomalies".into());
        }
        let memory = match rss_kib() {
            Some((now, peak)) => format!("RSS {} MiB (peak {} MiB)", now / 1024, peak / 1024),
            None => "RSS unknown".into(),
        };
        let window = match checked {
            Some(n) => format!("window {}: {n} transactions checked", self.window),
            None => "no window closed".to_string(),
        };
        eprintln!(
            "[{:>7.1}s] {window}; {} in all ({} committed, {} aborted), {} waiting; {}; {memory}",
            self.started.elapsed().as_secs_f64(),
            tally.transactions,
            tally.committed,
            tally.aborted,
            self.windows.open(),
            kinds.join(", ")
        );
    }
}
