//! Wires a pipeline: resolves and builds its plugins, then runs cases on workers
//! and writes findings.

use crate::config::{ConfigError, LoadedPipeline, PluginConfig};
use crate::driver::Timeouts;
use crate::executor::ExecutorSettings;
use crate::findings::{write_finding, write_reduction, FindingInput, FindingOrigin};
use crate::reduction::{reduce_finding, ReduceSettings, ReductionReport};
use crate::runner::CaseRunner;
use crate::servers::{ServerDatabases, ServerKind};
use crate::target::{sqlite_dir, TargetError, TargetLocation};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use txlab_loader::registry::{NotFound, Registered, Registry};
use txlab_loader::{CallError, DialectHandle, GeneratorHandle, OracleHandle};
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::ErrorKind;
use txlab_plugin_api::PluginKind;

/// Problems found before any case runs.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Plugin(#[from] CallError),
    #[error("cannot write findings to {}: {reason}", path.display())]
    Output { path: PathBuf, reason: String },
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("{0}")]
    Other(String),
}

/// The pipeline's plugins, resolved and configured, but not yet instantiated per worker.
pub struct Resolved<'a> {
    pub pipeline: &'a LoadedPipeline,
    pub dialect: Arc<DialectHandle>,
    pub info: DialectInfo,
    pub levels: Vec<IsolationLevel>,
    generator: (&'a Registered, PluginConfig),
    oracles: Vec<(&'a Registered, PluginConfig)>,
}

fn not_found(
    pipeline: &LoadedPipeline,
    key: &toml::Spanned<String>,
    what: &str,
    e: Box<NotFound>,
) -> SetupError {
    let mut c = pipeline.locate(key);
    c.message = format!("`{what}`: {e}");
    SetupError::Config(c)
}

/// A plugin's complaint about its configuration points at its TOML table.
fn plugin_error(config: &PluginConfig, e: CallError) -> SetupError {
    if e.kind == ErrorKind::INVALID_CONFIG {
        SetupError::Config(config.error(&format!("{}: {}", e.plugin, e.message)))
    } else {
        SetupError::Plugin(e)
    }
}

impl<'a> Resolved<'a> {
    pub fn resolve(
        pipeline: &'a LoadedPipeline,
        registry: &'a Registry,
    ) -> Result<Self, SetupError> {
        let p = &pipeline.pipeline;
        let d = registry
            .get(PluginKind::DIALECT, p.target.dialect.get_ref())
            .map_err(|e| not_found(pipeline, &p.target.dialect, "target.dialect", e))?;
        let d_config = pipeline.plugin_config("target.config", &p.target.config);
        let dialect = d
            .library
            .new_dialect(&d.entry.name, &d_config.json)
            .map_err(|e| plugin_error(&d_config, e))?;
        let info = dialect.info()?;
        let levels = match &p.target.isolation {
            None => info.levels.iter().map(|l| l.level).collect(),
            Some(wanted) => {
                let offered: Vec<String> =
                    info.levels.iter().map(|l| l.level.to_string()).collect();
                for level in wanted.get_ref() {
                    if !info.supports(*level) {
                        let mut c =
                            pipeline.locate(&toml::Spanned::new(wanted.span(), String::new()));
                        c.message = format!(
                            "`target.isolation`: dialect `{}` does not offer {level}; it offers {}",
                            info.name,
                            offered.join(", ")
                        );
                        return Err(c.into());
                    }
                }
                wanted.get_ref().clone()
            }
        };
        if levels.is_empty() {
            return Err(SetupError::Other(format!(
                "dialect `{}` declares no isolation level",
                info.name
            )));
        }
        let g = registry
            .get(PluginKind::GENERATOR, p.generator.plugin.get_ref())
            .map_err(|e| not_found(pipeline, &p.generator.plugin, "generator.plugin", e))?;
        let g_config = pipeline.plugin_config("generator.config", &p.generator.config);
        let mut oracles = Vec::new();
        for (i, o) in p.oracles.iter().enumerate() {
            let what = format!("oracle[{i}].plugin");
            let r = registry
                .get(PluginKind::ORACLE, o.plugin.get_ref())
                .map_err(|e| not_found(pipeline, &o.plugin, &what, e))?;
            oracles.push((
                r,
                pipeline.plugin_config(&format!("oracle[{i}].config"), &o.config),
            ));
        }
        Ok(Resolved {
            pipeline,
            dialect: Arc::new(dialect),
            info,
            levels,
            generator: (g, g_config),
            oracles,
        })
    }

    pub fn generator_name(&self) -> &str {
        &self.generator.0.entry.name
    }

    pub fn oracle_names(&self) -> Vec<&str> {
        self.oracles
            .iter()
            .map(|(r, _)| r.entry.name.as_str())
            .collect()
    }

    pub fn new_generator(&self) -> Result<GeneratorHandle, SetupError> {
        let (r, config) = &self.generator;
        let ctx = GeneratorContext {
            dialect: self.info.clone(),
            levels: self.levels.clone(),
        };
        r.library
            .new_generator(&r.entry.name, &config.json, &ctx)
            .map_err(|e| plugin_error(config, e))
    }

    pub fn new_oracles(&self) -> Result<Vec<(String, OracleHandle)>, SetupError> {
        let ctx = OracleContext {
            dialect: self.info.clone(),
        };
        let mut out = Vec::new();
        for (r, config) in &self.oracles {
            let o = r
                .library
                .new_oracle(&r.entry.name, &config.json, &ctx)
                .map_err(|e| plugin_error(config, e))?;
            let req = o.requirements()?;
            if !req.modes.contains(&ExecutorMode::Schedule) {
                return Err(SetupError::Other(format!(
                    "{} cannot check schedule runs, the only executor mode this pipeline uses",
                    o.label()
                )));
            }
            out.push((r.entry.name.clone(), o));
        }
        Ok(out)
    }

    /// Builds every plugin once, so that configuration errors surface now.
    pub fn check(&self) -> Result<(), SetupError> {
        self.new_generator()?;
        self.new_oracles()?;
        Ok(())
    }
}

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
    /// Set by the caller to stop the run early (Ctrl-C): every worker
    /// finishes its case, the summary is written and the run's databases
    /// are dropped.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// What a run did.
#[derive(Debug, Default, serde::Serialize)]
pub struct RunSummary {
    pub run_dir: PathBuf,
    pub seed: u64,
    pub cases: u64,
    pub passed: u64,
    /// Cases with at least one finding.
    pub cases_with_findings: u64,
    pub findings: u64,
    /// Cases some oracle could not decide, by reason.
    pub undecided: u64,
    pub undecided_reasons: BTreeMap<String, u64>,
    /// Findings by oracle and signature: how many distinct problems a run saw.
    pub finding_kinds: BTreeMap<String, u64>,
    /// Cases that failed with a tool error (see errors.log).
    pub errors: u64,
    pub elapsed_secs: f64,
    pub stopped_early: Option<String>,
    /// The run stopped because the caller interrupted it.
    pub interrupted: bool,
    /// Databases the run created on the server (and dropped at its end).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub databases: Vec<String>,
    /// What the executed cases exercised: a run that never blocks or aborts
    /// tests little.
    pub exercised: Exercised,
}

/// Concurrency events over all executed cases.
#[derive(Debug, Default, serde::Serialize)]
pub struct Exercised {
    pub transactions: u64,
    pub committed: u64,
    pub rolled_back: u64,
    /// Transactions the DBMS (or an error) aborted, by error class.
    pub aborted: BTreeMap<String, u64>,
    pub blocked_statements: u64,
    pub cases_with_blocking: u64,
}

impl Exercised {
    fn add(&mut self, history: &History) {
        for t in &history.transactions {
            self.transactions += 1;
            match &t.end {
                TxnEnd::Committed => self.committed += 1,
                TxnEnd::RolledBack => self.rolled_back += 1,
                TxnEnd::Aborted { class, .. } => {
                    *self.aborted.entry(class.to_string()).or_default() += 1
                }
                TxnEnd::Unfinished => {}
            }
        }
        let blocked = history
            .statements
            .iter()
            .flatten()
            .filter(|r| r.blocked.is_some())
            .count() as u64;
        self.blocked_statements += blocked;
        self.cases_with_blocking += u64::from(blocked > 0);
    }
}

enum Plan {
    Cases(u64),
    Until(Instant),
    Single(u64),
}

impl Plan {
    fn allows(&self, taken: u64) -> bool {
        match self {
            Plan::Cases(n) => taken < *n,
            Plan::Until(t) => Instant::now() < *t,
            Plan::Single(_) => taken == 0,
        }
    }

    fn index(&self, taken: u64) -> u64 {
        match self {
            Plan::Single(i) => *i,
            _ => taken,
        }
    }
}

struct Shared {
    taken: AtomicU64,
    interrupt: Option<Arc<AtomicBool>>,
    stop: AtomicBool,
    stop_reason: Mutex<Option<String>>,
    summary: Mutex<RunSummary>,
    consecutive_errors: AtomicU64,
    max_consecutive_errors: u64,
    errors_log: Mutex<std::fs::File>,
    undecided_log: Mutex<std::fs::File>,
    findings_dir: PathBuf,
    progress: ProgressBar,
    /// Reductions started per oracle and finding signature.
    reductions: Mutex<BTreeMap<(String, String), u32>>,
    max_reductions_per_kind: u32,
}

impl Shared {
    fn stop(&self, reason: String) {
        let mut r = self.stop_reason.lock().expect("lock");
        if r.is_none() {
            *r = Some(reason);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether a finding of `oracle` with `signature` gets reduced: the first
    /// few of each kind do, so that a DBMS with one frequent bug does not
    /// spend the run reducing it again and again.
    fn may_reduce(&self, oracle: &str, signature: &str) -> bool {
        let mut started = self.reductions.lock().expect("lock");
        let n = started
            .entry((oracle.to_string(), signature.to_string()))
            .or_default();
        *n += 1;
        *n <= self.max_reductions_per_kind
    }

    fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// A line above the progress bar, or on stdout when there is no bar
    /// (not a terminal), where indicatif would drop it.
    fn say(&self, line: String) {
        if self.progress.is_hidden() {
            // Not println!: a closed stdout must not panic a worker.
            let _ = writeln!(std::io::stdout(), "{line}");
        } else {
            self.progress.println(line);
        }
    }

    fn refresh(&self) {
        let s = self.summary.lock().expect("lock");
        self.progress.set_message(format!(
            "findings {} | undecided {} | errors {}",
            s.findings, s.undecided, s.errors
        ));
    }
}

fn run_dir_name(seed: u64) -> String {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(':', "-");
    format!("run-{stamp}-seed{seed}")
}

/// Creates the run directory and proves it is writable before any case runs.
fn prepare_output(out: &Path, seed: u64) -> Result<PathBuf, SetupError> {
    let fail = |path: &Path, e: std::io::Error| SetupError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(out).map_err(|e| fail(out, e))?;
    let base = run_dir_name(seed);
    let mut dir = out.join(&base);
    let mut n = 2;
    while dir.exists() {
        dir = out.join(format!("{base}-{n}"));
        n += 1;
    }
    std::fs::create_dir(&dir).map_err(|e| fail(&dir, e))?;
    let probe = dir.join("errors.log");
    std::fs::write(&probe, b"").map_err(|e| fail(&probe, e))?;
    Ok(dir)
}

fn open_log(path: &Path) -> Result<std::fs::File, SetupError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| SetupError::Output {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}

fn random_seed() -> u64 {
    let t = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    txlab_plugin_api::ir::splitmix64(t.as_nanos() as u64 ^ u64::from(std::process::id()))
}

/// Where the run's databases go: SQLite files, or databases on the server named
/// by `--url`, the driver's environment variable, or `[target] url`.
fn target_location(
    resolved: &Resolved<'_>,
    url_override: Option<&str>,
) -> Result<(TargetLocation, Option<tempfile::TempDir>), SetupError> {
    let target = &resolved.pipeline.pipeline.target;
    if resolved.info.driver == "sqlite" {
        let (dir, guard) = sqlite_dir(target.path.as_deref())
            .map_err(|e| SetupError::Other(format!("cannot create the database directory: {e}")))?;
        return Ok((TargetLocation::SqliteDir(dir), guard));
    }
    let kind = ServerKind::from_driver(&resolved.info.driver)
        .ok_or_else(|| TargetError::NoDriver(resolved.info.driver.clone()))?;
    // The most specific source wins: the command line, the environment of this
    // machine, then the pipeline file.
    let url = url_override
        .map(str::to_string)
        .or_else(|| std::env::var(kind.url_env()).ok().filter(|u| !u.is_empty()))
        .or_else(|| target.url.clone())
        .ok_or_else(|| {
            SetupError::Other(format!(
                "dialect `{}` needs a server: pass --url, set the environment variable {}, or set `[target] url` in {}",
                resolved.info.name,
                kind.url_env(),
                resolved.pipeline.path.display()
            ))
        })?;
    Ok((
        TargetLocation::Server(Arc::new(ServerDatabases::new(kind, &url))),
        None,
    ))
}

/// The run's runtime, databases and limits.
pub struct Environment {
    // Fields drop in order: the databases go while the runtime still runs.
    _cleanup: Cleanup,
    _temp_dir: Option<tempfile::TempDir>,
    pub location: TargetLocation,
    pub timeouts: Timeouts,
    pub settings: ExecutorSettings,
    pub limits: SessionLimits,
    /// For set-up and clean-up; each worker has a runtime of its own.
    pub runtime: Arc<tokio::runtime::Runtime>,
}

/// A runtime on the calling thread: a worker's executor, its sessions and
/// their I/O all run on the worker's own thread, with no hops between threads.
pub(crate) fn worker_runtime() -> Result<Arc<tokio::runtime::Runtime>, SetupError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(Arc::new)
        .map_err(|e| SetupError::Other(format!("cannot start an async runtime: {e}")))
}

impl Environment {
    /// Every tested level's session set-up, which each worker tries once
    /// before the first case.
    pub fn level_setups(&self, resolved: &Resolved<'_>) -> Result<Vec<SessionSetup>, SetupError> {
        let mut setups = Vec::new();
        for &isolation in &resolved.levels {
            setups.push(resolved.dialect.session_setup(&SessionRequest {
                isolation,
                limits: self.limits,
            })?);
        }
        Ok(setups)
    }

    pub fn new(resolved: &Resolved<'_>, url: Option<&str>) -> Result<Environment, SetupError> {
        let runtime = worker_runtime()?;
        let (location, temp_dir) = target_location(resolved, url)?;
        let e = &resolved.pipeline.pipeline.executor;
        Ok(Environment {
            _cleanup: Cleanup {
                location: location.clone(),
                runtime: runtime.clone(),
            },
            _temp_dir: temp_dir,
            location,
            timeouts: Timeouts {
                statement: e.statement_timeout.0,
                lock_wait: e.lock_wait_timeout.0,
            },
            settings: ExecutorSettings {
                probe_interval: e.probe_interval.0,
                block_timeout: e.block_timeout.0,
                settle_timeout: e.settle_timeout.0,
                stall_timeout: e.stall_timeout.0,
                reply_timeout: e.statement_timeout.0
                    + e.lock_wait_timeout.0
                    + Duration::from_secs(2),
            },
            limits: SessionLimits {
                statement_timeout_ms: e.statement_timeout.0.as_millis() as u64,
                lock_wait_timeout_ms: e.lock_wait_timeout.0.as_millis() as u64,
            },
            runtime,
        })
    }
}

/// Runs the pipeline. Returns after the planned cases, the duration, or a stop.
pub fn run(resolved: &Resolved<'_>, options: &RunOptions) -> Result<RunSummary, SetupError> {
    let p = &resolved.pipeline.pipeline;
    let seed = options.seed.or(p.run.seed).unwrap_or_else(random_seed);
    let plan = match (options.single_case, options.cases, options.duration) {
        (Some(i), _, _) => Plan::Single(i),
        (None, Some(n), _) => Plan::Cases(n),
        (None, None, Some(d)) => Plan::Until(Instant::now() + d),
        (None, None, None) => match (p.run.cases, p.run.duration) {
            (Some(n), _) => Plan::Cases(n),
            (None, Some(d)) => Plan::Until(Instant::now() + d.0),
            (None, None) => Plan::Cases(100),
        },
    };
    let out = options.out.clone().unwrap_or_else(|| p.run.out.clone());
    let run_dir = prepare_output(&out, seed)?;
    let findings_dir = run_dir.join("findings");

    // Every worker's plugins are built before the first case, so that a
    // configuration error stops the run before anything happens.
    let workers = match plan {
        Plan::Single(_) => 1,
        _ => p.run.workers,
    };
    let mut plugins = Vec::new();
    for _ in 0..workers {
        plugins.push((resolved.new_generator()?, resolved.new_oracles()?));
    }

    let env = Environment::new(resolved, options.url.as_deref())?;
    let setups = env.level_setups(resolved)?;

    let progress = match plan {
        Plan::Cases(n) => ProgressBar::new(n),
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
    let errors_log = std::fs::OpenOptions::new()
        .append(true)
        .open(run_dir.join("errors.log"))
        .map_err(|e| SetupError::Output {
            path: run_dir.join("errors.log"),
            reason: e.to_string(),
        })?;
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
        errors_log: Mutex::new(errors_log),
        undecided_log: Mutex::new(open_log(&run_dir.join("undecided.log"))?),
        findings_dir,
        progress: progress.clone(),
        reductions: Mutex::new(BTreeMap::new()),
        max_reductions_per_kind: p.reduce.max_per_kind,
    });
    shared.refresh();
    let plan = Arc::new(plan);
    let started = Instant::now();

    let reduce = (p.reduce.enabled && !options.no_reduce).then(|| p.reduce.settings());
    let run_ends = match *plan {
        Plan::Until(end) => Some(end),
        _ => None,
    };
    std::thread::scope(|scope| -> Result<(), SetupError> {
        let mut handles = Vec::new();
        for (id, (generator, oracles)) in plugins.into_iter().enumerate() {
            let mut worker = Worker {
                resolved,
                generator,
                runner: CaseRunner::open(resolved, &env, id, &setups, oracles)?,
                reduce,
                run_ends,
            };
            let shared = shared.clone();
            let plan = plan.clone();
            handles.push(scope.spawn(move || worker.work(seed, &plan, &shared)));
        }
        for h in handles {
            if h.join().is_err() {
                shared.stop("a worker stopped on an internal error (see the log above)".into());
            }
        }
        Ok(())
    })?;

    progress.finish_and_clear();
    let mut summary = std::mem::take(&mut *shared.summary.lock().expect("lock"));
    summary.elapsed_secs = started.elapsed().as_secs_f64();
    summary.stopped_early = shared.stop_reason.lock().expect("lock").take();
    summary.interrupted = shared.interrupted();
    if let TargetLocation::Server(server) = &env.location {
        summary.databases = server.created();
    }
    let json = serde_json::to_string_pretty(&summary).unwrap_or_default();
    let _ = std::fs::write(run_dir.join("summary.json"), json);
    Ok(summary)
}

/// Removes the run's server databases however the run ends.
struct Cleanup {
    location: TargetLocation,
    runtime: Arc<tokio::runtime::Runtime>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let TargetLocation::Server(server) = &self.location {
            for problem in self.runtime.block_on(server.drop_created()) {
                tracing::warn!(target: "txlab::run", "could not remove a database of this run: {problem}");
            }
        }
    }
}

struct Worker<'a> {
    resolved: &'a Resolved<'a>,
    generator: GeneratorHandle,
    runner: CaseRunner<'a>,
    reduce: Option<ReduceSettings>,
    /// When a `--duration` run ends: no reduction runs past it.
    run_ends: Option<Instant>,
}

/// What one case came to.
struct CaseResult {
    findings: Vec<WrittenFinding>,
    undecided: Vec<String>,
    history: History,
}

struct WrittenFinding {
    dir: PathBuf,
    /// "oracle: signature", to count findings by kind.
    kind: String,
    /// The reduction's one-line summary, when the finding was reduced.
    reduction: Option<String>,
}

impl Worker<'_> {
    fn work(&mut self, seed: u64, plan: &Plan, shared: &Shared) {
        loop {
            if shared.interrupted() {
                shared.stop(
                    "interrupted (Ctrl-C); the cases in progress were finished and counted".into(),
                );
            }
            if shared.stop.load(Ordering::SeqCst) {
                break;
            }
            let taken = shared.taken.fetch_add(1, Ordering::SeqCst);
            if !plan.allows(taken) {
                break;
            }
            let request = CaseRequest::new(seed, plan.index(taken));
            let result = self.run_case(request, shared);
            {
                let mut s = shared.summary.lock().expect("lock");
                s.cases += 1;
                match &result {
                    Ok(r) => {
                        shared.consecutive_errors.store(0, Ordering::SeqCst);
                        s.exercised.add(&r.history);
                        if !r.findings.is_empty() {
                            s.cases_with_findings += 1;
                            s.findings += r.findings.len() as u64;
                            for f in &r.findings {
                                *s.finding_kinds.entry(f.kind.clone()).or_default() += 1;
                                let line = match &f.reduction {
                                    Some(r) => format!("finding: {} ({r})", f.dir.display()),
                                    None => format!("finding: {}", f.dir.display()),
                                };
                                shared.say(line);
                            }
                        } else if !r.undecided.is_empty() {
                            s.undecided += 1;
                            let mut log = shared.undecided_log.lock().expect("lock");
                            for reason in &r.undecided {
                                *s.undecided_reasons.entry(reason_key(reason)).or_default() += 1;
                                let _ = writeln!(
                                    log,
                                    "case {} (run seed {seed}, case seed {}): {reason}",
                                    request.index, request.seed
                                );
                            }
                        } else {
                            s.passed += 1;
                        }
                    }
                    Err(e) => {
                        s.errors += 1;
                        let line = format!(
                            "case {} (run seed {seed}, case seed {}): {e}\n",
                            request.index, request.seed
                        );
                        tracing::warn!(target: "txlab::run", "{}", line.trim_end());
                        let _ = shared
                            .errors_log
                            .lock()
                            .expect("lock")
                            .write_all(line.as_bytes());
                        let n = shared.consecutive_errors.fetch_add(1, Ordering::SeqCst) + 1;
                        if n >= shared.max_consecutive_errors {
                            shared.stop(format!("{n} cases in a row failed; the last error: {e}"));
                        }
                    }
                }
            }
            shared.progress.inc(1);
            shared.refresh();
        }
    }

    fn run_case(&mut self, request: CaseRequest, shared: &Shared) -> Result<CaseResult, String> {
        let r = self.resolved;
        let case = self
            .generator
            .next_case(request)
            .map_err(|e| e.to_string())?;
        case.validate()
            .map_err(|e| format!("{} made an invalid case: {e}", self.generator.label()))?;
        let run = self.runner.evaluate(&case, None)?;
        let mut findings = Vec::new();
        let mut undecided = Vec::new();
        // Every finding is on disk before any reduction starts: whatever
        // happens to a reduction, the findings are kept and counted.
        let mut to_reduce = Vec::new();
        for (name, verdict) in &run.verdicts {
            match verdict {
                Verdict::Pass => {}
                Verdict::Undecided { reason } => undecided.push(format!("{name}: {reason}")),
                Verdict::Finding(finding) => {
                    let origin = FindingOrigin {
                        oracle: name,
                        dialect: &r.info,
                        generator: r.generator_name(),
                        pipeline: &r.pipeline.path,
                        request,
                    };
                    let dir = write_finding(
                        &shared.findings_dir,
                        &FindingInput {
                            origin,
                            generated: &case,
                            case: &run.prepared,
                            rendered: &run.rendered,
                            history: &run.history,
                            finding,
                        },
                    )
                    .map_err(|e| format!("cannot write a finding: {e}"))?;
                    if shared.may_reduce(name, finding.signature()) {
                        to_reduce.push((findings.len(), origin, finding));
                    }
                    findings.push(WrittenFinding {
                        dir,
                        kind: format!("{name}: {}", finding.signature()),
                        reduction: None,
                    });
                }
            }
        }
        if let Some(settings) = self.reduce {
            for (i, origin, finding) in to_reduce {
                if shared.interrupted() {
                    findings[i].reduction = Some("not reduced: the run was interrupted".into());
                    continue;
                }
                let dir = findings[i].dir.clone();
                let summary = reduce_and_write(
                    &mut self.runner,
                    &dir,
                    origin,
                    &case,
                    finding,
                    &settings,
                    self.run_ends,
                )
                .map(|report| report.summary())
                .unwrap_or_else(|e| {
                    tracing::warn!(target: "txlab::run", "the reduction of {} failed: {e}", dir.display());
                    format!("the reduction failed: {e}")
                });
                findings[i].reduction = Some(summary);
            }
        }
        Ok(CaseResult {
            findings,
            undecided,
            history: run.history,
        })
    }
}

/// Reduces a written finding and writes the outcome next to it; returns the
/// reduction's one-line summary.
pub fn reduce_and_write(
    runner: &mut CaseRunner<'_>,
    dir: &Path,
    origin: FindingOrigin<'_>,
    generated: &TestCase,
    finding: &Finding,
    settings: &ReduceSettings,
    not_after: Option<Instant>,
) -> std::io::Result<ReductionReport> {
    let (report, reduced) = reduce_finding(
        runner,
        generated,
        origin.oracle,
        finding,
        settings,
        not_after,
    );
    let finding = reduced
        .as_ref()
        .and_then(|r| r.run.finding_of(origin.oracle));
    let input = reduced
        .as_ref()
        .zip(finding)
        .map(|(r, finding)| FindingInput {
            origin,
            generated: &r.generated,
            case: &r.run.prepared,
            rendered: &r.run.rendered,
            history: &r.run.history,
            finding,
        });
    write_reduction(dir, &report, input.as_ref())?;
    Ok(report)
}

/// Groups undecided reasons for the summary: the oracle and the first clause.
fn reason_key(reason: &str) -> String {
    let cut = reason
        .char_indices()
        .filter(|(_, c)| *c == ':' || *c == ';' || *c == '(')
        .nth(1)
        .map(|(i, _)| i)
        .unwrap_or(reason.len());
    let key: String = reason[..cut]
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect();
    key.trim().to_string()
}
