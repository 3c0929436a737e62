//! Runs one test case end to end: the oracles instrument it, the dialect
//! renders it, the executor runs it on the worker's database, the oracles judge
//! it. The run loop, the reducer and `txlab replay` all go through here, so a
//! reduced or replayed case runs exactly as the original did.

use super::CaseError;
use crate::driver::Interrupt;
use crate::executor::{empty_history, ScheduleExecutor};
use crate::io::ReproCase;
use crate::phases::{self, Phase};
use crate::setup::{worker_runtime, Environment, OracleInstance, Resolved, SetupError};
use crate::target::{open_driver, CaseDb, Database, ScratchDb, TargetLocation};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use txlab_loader::CallError;
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::{HostDb, PluginError};

/// One oracle's answer about a case: its verdict, or the error it failed with.
pub struct OracleVerdict {
    pub oracle: String,
    pub verdict: Result<Verdict, CallError>,
}

/// A case after it ran.
pub struct Evaluated {
    /// The case as run, after every oracle's `prepare`.
    pub prepared: TestCase,
    pub rendered: RenderedCase,
    pub history: History,
    /// Each judging oracle's verdict, in pipeline order. An oracle whose
    /// `prepare` or `check` failed has its error here; the others judged as
    /// usual.
    pub verdicts: Vec<OracleVerdict>,
}

impl Evaluated {
    /// The server loss that makes this run say nothing about a finding:
    /// one that cut a run short that did not show it (`shown`), or one the
    /// server did not come back from. A crash finding that shows again with
    /// the server back is a reproduction.
    pub fn cut_short(&self, shown: bool) -> Option<&ServerLoss> {
        self.history
            .server_lost
            .as_ref()
            .filter(|loss| !shown || loss.back_after_ms.is_none())
    }

    /// The finding `oracle` reported, or the vendor-permitted anomaly (which
    /// a `--strict` run counts as a finding), if it reported one.
    pub fn finding_of(&self, oracle: &str) -> Option<&Finding> {
        self.verdicts.iter().find_map(|v| match &v.verdict {
            Ok(Verdict::Finding(f) | Verdict::VendorPermitted(f)) if v.oracle == oracle => Some(f),
            _ => None,
        })
    }
}

/// What the pipeline's oracles together ask of a run.
#[derive(Clone, Copy, Debug)]
struct Needs {
    scratch_db: bool,
    final_state: bool,
}

impl Needs {
    fn of(oracles: &[OracleInstance]) -> Self {
        Needs {
            scratch_db: oracles.iter().any(|o| o.requirements.scratch_db),
            final_state: oracles.iter().any(|o| o.requirements.final_state),
        }
    }
}

/// A worker's database connections and oracles.
pub struct CaseRunner<'a> {
    resolved: &'a Resolved<'a>,
    runtime: Arc<tokio::runtime::Runtime>,
    env_settings: crate::executor::ExecutorSettings,
    limits: SessionLimits,
    oracles: Vec<OracleInstance>,
    needs: Needs,
    /// Opened only when an oracle declared that it replays.
    scratch: Option<ScratchDb>,
    case_db: CaseDb,
    /// How long to wait for the server after a lost connection.
    reconnect_timeout: Duration,
    /// When the server started, as it said last time; a change is a restart.
    server_started: Option<i64>,
    /// The DBMS's version, read once when the runner opened.
    server_version: Option<String>,
    /// The run's request to stop: a case in progress is cut short.
    interrupt: Interrupt,
    /// No wait for the server goes past this (a `--duration` run's end).
    waits_end: Option<Instant>,
    /// Set while the server does not answer (`Environment::silent`).
    silent: Arc<AtomicBool>,
}

/// A case that could not run to its end, with what it recorded until then.
struct Failure {
    error: CaseError,
    partial: Option<Box<History>>,
}

impl<E: Into<CaseError>> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure {
            error: error.into(),
            partial: None,
        }
    }
}

/// Start times a few seconds apart are the same start: the MySQL family gives
/// it as the server's clock minus its uptime, both in whole seconds.
const SAME_START_SLACK_SECS: i64 = 2;

/// One connection attempt while waiting for the server: a frozen server must
/// not hold the wait past its timeout.
const CONNECT_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(5);

/// The pauses between connection attempts while waiting for the server:
/// doubling from the first to the last.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(2);

/// What waiting for the server came to.
enum Awaited {
    /// It answered a new connection after this long (zero: at the first try).
    Back(Duration),
    /// It did not within the time allowed.
    NotBack,
    /// The run was asked to stop, or its end passed, first.
    Stopped,
}

/// The first statement whose connection broke, with its error.
fn first_lost_connection(history: &History) -> Option<(StatementRef, String)> {
    history
        .completion_order
        .iter()
        .filter_map(|&at| history.record(at))
        .find_map(|r| match &r.outcome {
            Outcome::Error(e) if e.class == ErrorClass::ConnectionLost => {
                Some((r.at, e.to_string()))
            }
            _ => None,
        })
}

/// Stands in for the scratch database when no oracle declared it needs one.
struct NoScratchDb;

impl HostDb for NoScratchDb {
    fn call(&mut self, _request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        Err(PluginError::host(
            "this oracle declared no scratch database in its requirements (`scratch_db = false`), so the host opened none",
        ))
    }
}

impl<'a> CaseRunner<'a> {
    /// Opens worker `id`'s case database (and scratch database, when an
    /// oracle replays) on the run's target. `setups` are the session set-ups
    /// of every level the run tests; each is tried once so that a setting the
    /// server refuses stops the run now.
    pub fn open(
        resolved: &'a Resolved<'a>,
        env: &Environment,
        id: usize,
        setups: &[SessionSetup],
        oracles: Vec<OracleInstance>,
    ) -> Result<Self, SetupError> {
        let runtime = worker_runtime()?;
        let needs = Needs::of(&oracles);
        let open = |role: &str| {
            runtime.block_on(open_driver(
                &resolved.dialect,
                &resolved.info,
                &env.location,
                &format!("w{id}_{role}"),
                env.timeouts,
            ))
        };
        let case_driver = open("case")?;
        let mut case_db = runtime.block_on(CaseDb::open(
            case_driver,
            &setups[0],
            env.settings.deadlines,
            env.interrupt.clone(),
        ))?;
        let scratch = if needs.scratch_db {
            // On a server, replays use the case's tables: its DDL, when the
            // schema changes, is then paid once (a table created costs the
            // server about 3 ms, docs/benchmarks.md). An embedded SQLite
            // file creates tables cheaply, and keeps a file of its own.
            let shared =
                env.settings.fewer_round_trips && matches!(env.location, TargetLocation::Server(_));
            let database = if shared {
                case_db.database()
            } else {
                Database::new(open("scratch")?)
            };
            Some(ScratchDb::new(
                runtime.clone(),
                database,
                resolved.dialect.clone(),
                env.limits,
                setups[0].clone(),
                env.settings,
                env.interrupt.clone(),
            )?)
        } else {
            None
        };
        case_db.set_batch(env.settings.fewer_round_trips);
        case_db.set_replication_timeout(env.replication_timeout);
        runtime.block_on(case_db.preflight(setups))?;
        let server_started = runtime.block_on(started_within(case_db.driver()));
        let server_version = runtime.block_on(version_within(case_db.driver()));
        Ok(CaseRunner {
            server_version,
            interrupt: env.interrupt.clone(),
            waits_end: None,
            silent: env.silent.clone(),
            reconnect_timeout: env.reconnect_timeout,
            server_started,
            resolved,
            env_settings: env.settings,
            limits: env.limits,
            oracles,
            needs,
            scratch,
            runtime,
            case_db,
        })
    }

    /// Runs `case` and asks the oracles about it: every oracle, or only the
    /// one named `only`. Every oracle instruments the case either way, so that
    /// it runs as it did in the original run. `Err` is a tool error of the
    /// case; an oracle that fails costs only its own verdict.
    pub fn evaluate(
        &mut self,
        case: &TestCase,
        only: Option<&str>,
    ) -> Result<Evaluated, CaseError> {
        case.validate().map_err(CaseError::Invalid)?;
        let generating = phases::enter(Phase::Generate);
        let mut prepared = case.clone();
        let mut failed_prepare: Vec<(usize, CallError)> = Vec::new();
        for (i, o) in self.oracles.iter_mut().enumerate() {
            match o.handle.prepare(&prepared) {
                Ok(next) => {
                    next.validate()
                        .map_err(|error| CaseError::PreparedInvalid {
                            oracle: o.handle.label().to_string(),
                            error,
                        })?;
                    prepared = next;
                }
                // The case runs without this oracle's instrumentation; the
                // others judge it as usual.
                Err(e) => failed_prepare.push((i, e)),
            }
        }
        let rendered = self
            .resolved
            .dialect
            .render_case(&prepared, &self.limits)
            .map_err(CaseError::Render)?;
        drop(generating);
        let history = match self.execute_surviving(&prepared, &rendered) {
            Ok(history) => history,
            Err(e) => return Err(self.after_failure(e)),
        };
        let input = CheckInput {
            case: prepared,
            history,
        };
        let mut verdicts = Vec::new();
        for (i, oracle) in self.oracles.iter_mut().enumerate() {
            if only.is_some_and(|o| o != oracle.name) {
                continue;
            }
            if self.scratch.as_ref().is_some_and(ScratchDb::is_cut_off) {
                break;
            }
            let _checking = phases::enter(Phase::Check(i.min(u8::MAX as usize) as u8));
            let verdict = match failed_prepare.iter().position(|(f, _)| *f == i) {
                Some(at) => Err(failed_prepare.swap_remove(at).1),
                None => match &mut self.scratch {
                    Some(scratch) => {
                        let v = oracle.handle.check(&input, scratch);
                        scratch.end_check();
                        v
                    }
                    None => oracle.handle.check(&input, &mut NoScratchDb),
                },
            };
            verdicts.push(OracleVerdict {
                oracle: oracle.name.clone(),
                verdict,
            });
        }
        // A replay the server did not answer (or the stop) makes the case a
        // tool error: the oracle's error or undecided verdict says nothing
        // about the DBMS.
        if let Some(cut_off) = self.scratch.as_mut().and_then(ScratchDb::take_cut_off) {
            return Err(self.after_failure(CaseError::Target(cut_off)));
        }
        Ok(Evaluated {
            prepared: input.case,
            rendered,
            history: input.history,
            verdicts,
        })
    }

    /// Runs the case; when the server went away meanwhile, waits for it,
    /// connects again and records the loss in the history, so the oracles
    /// judge what was seen and the next case runs on fresh connections. A
    /// failure while the server stayed as it was is a tool error, as before.
    fn execute_surviving(
        &mut self,
        case: &TestCase,
        rendered: &RenderedCase,
    ) -> Result<History, CaseError> {
        match self.execute(case, rendered) {
            Ok(mut history) => {
                if let Some((at, message)) = first_lost_connection(&history) {
                    history.server_lost = Some(self.recover(Some(at), message));
                }
                Ok(history)
            }
            Err(failure) => {
                // A server that did not answer in time is not a lost server:
                // the case is a tool error, and the caller waits for it.
                if failure.error.cut_off() || self.server_unchanged() {
                    return Err(failure.error);
                }
                let message = failure.error.to_string();
                match failure.partial {
                    Some(mut history) => {
                        let at = first_lost_connection(&history).map(|(at, _)| at);
                        history.server_lost = Some(self.recover(at, message));
                        Ok(*history)
                    }
                    None => {
                        let loss = self.recover(None, message);
                        if loss.back_after_ms.is_none() {
                            let mut history = empty_history(case, rendered);
                            history.server_lost = Some(loss);
                            return Ok(history);
                        }
                        // The case never started: run it now the server is
                        // back, and let it carry the news of the loss.
                        let mut history = self
                            .execute(case, rendered)
                            .map_err(|failure| failure.error)?;
                        history.server_lost = Some(match first_lost_connection(&history) {
                            Some((at, message)) => self.recover(Some(at), message),
                            None => loss,
                        });
                        Ok(history)
                    }
                }
            }
        }
    }

    /// Reads the tables after every case, whether an oracle needs them or
    /// not (the semantics experiments judge the final state themselves).
    pub fn read_final_state_always(&mut self) {
        self.needs.final_state = true;
    }

    /// What the pipeline's dialect declares.
    pub fn dialect_info(&self) -> &DialectInfo {
        &self.resolved.info
    }

    /// The DBMS's version as it stated it when the runner opened.
    pub fn server_version(&self) -> Option<&str> {
        self.server_version.as_deref()
    }

    /// The case a person reproduces `prepared` with: without the auxiliary
    /// columns no statement needs, rendered by the dialect; `None` when the
    /// oracles added none that can go (the case as it ran serves).
    pub fn repro_case(&self, generated: &TestCase, prepared: &TestCase) -> Option<ReproCase> {
        let plain = txlab_script::repro::without_auxiliary_columns(generated, prepared);
        if plain.left_out.is_empty() {
            return None;
        }
        match self.resolved.dialect.render_case(&plain.case, &self.limits) {
            Ok(rendered) => Some(ReproCase {
                case: plain.case,
                rendered,
                left_out: plain.left_out,
            }),
            Err(e) => {
                tracing::debug!(target: "txlab::run", "the case without its auxiliary columns does not render ({e}); repro.sql keeps them");
                None
            }
        }
    }

    /// The pause the executor leaves after a confirmed block and after a
    /// transaction's end (see `ExecutorSettings::pace`), from now on.
    pub fn set_pace(&mut self, pace: Duration) {
        self.env_settings.pace = pace;
    }

    pub fn pace(&self) -> Duration {
        self.env_settings.pace
    }

    /// No wait for the server goes past `end` (a `--duration` run's end):
    /// the run stops then rather than wait.
    pub fn set_waits_end(&mut self, end: Option<Instant>) {
        self.waits_end = end;
    }

    /// A failed case's error, after what it calls for: connections that
    /// were cut off are dropped, and a server that did not answer is waited
    /// for (up to the reconnect timeout) so that the next case does not fail
    /// the same way at once.
    fn after_failure(&mut self, error: CaseError) -> CaseError {
        let error = error.lifted();
        if !error.cut_off() {
            return error;
        }
        self.case_db.discard();
        if let Some(scratch) = &mut self.scratch {
            scratch.reopen();
        }
        let CaseError::NoAnswer(no_answer) = error else {
            return error;
        };
        tracing::warn!(target: "txlab::run", "{no_answer}; waiting up to {} for it", humantime::format_duration(self.reconnect_timeout));
        self.silent.store(true, Ordering::SeqCst);
        let started = Instant::now();
        match self.await_server(self.reconnect_timeout) {
            Awaited::Back(after) => {
                self.silent.store(false, Ordering::SeqCst);
                tracing::info!(target: "txlab::run", "the server answers again (after {:.1} s)", after.as_secs_f64());
                if let Err(e) = self.runtime.block_on(self.case_db.reopen()) {
                    tracing::warn!(target: "txlab::run", "could not reopen the case database: {e}");
                }
                CaseError::NoAnswer(no_answer)
            }
            Awaited::Stopped => CaseError::NoAnswer(no_answer),
            Awaited::NotBack => CaseError::ServerSilent {
                error: no_answer,
                waited: started.elapsed(),
            },
        }
    }

    /// Tries new connections, with growing pauses, until the server answers
    /// one, `timeout` passes, or the run stops (or its end passes).
    fn await_server(&self, timeout: Duration) -> Awaited {
        let started = Instant::now();
        let give_up = started + timeout;
        let stop_at = self.waits_end.map_or(give_up, |end| end.min(give_up));
        let driver = self.case_db.driver();
        let interrupt = &self.interrupt;
        self.runtime.block_on(async {
            let mut pause = RETRY_FIRST;
            let mut first = true;
            loop {
                let left = stop_at.saturating_duration_since(Instant::now());
                let attempt = tokio::time::timeout(
                    CONNECT_ATTEMPT_TIMEOUT.min(left.max(Duration::from_millis(100))),
                    driver.connect(),
                );
                match interrupt.or_stop(attempt).await {
                    None => return Awaited::Stopped,
                    Some(Ok(Ok(_))) if first => return Awaited::Back(Duration::ZERO),
                    Some(Ok(Ok(_))) => return Awaited::Back(started.elapsed()),
                    Some(_) => {}
                }
                first = false;
                let now = Instant::now();
                if now >= stop_at {
                    return if now >= give_up {
                        Awaited::NotBack
                    } else {
                        Awaited::Stopped
                    };
                }
                let sleep = tokio::time::sleep(pause.min(stop_at - now));
                if interrupt.or_stop(sleep).await.is_none() {
                    return Awaited::Stopped;
                }
                pause = (pause * 2).min(RETRY_MAX);
            }
        })
    }

    /// Whether the server completes a new connection within `within`.
    pub fn server_answers(&self, within: Duration) -> bool {
        let driver = self.case_db.driver();
        self.runtime
            .block_on(async { tokio::time::timeout(within, driver.connect()).await })
            .is_ok_and(|connected| connected.is_ok())
    }

    /// Whether the server answers a new connection and has not restarted.
    fn server_unchanged(&self) -> bool {
        let driver = self.case_db.driver();
        let before = self.server_started;
        let interrupt = &self.interrupt;
        self.runtime.block_on(async {
            let connect = tokio::time::timeout(CONNECT_ATTEMPT_TIMEOUT, driver.connect());
            let connected = interrupt
                .or_stop(connect)
                .await
                .is_some_and(|c| c.is_ok_and(|c| c.is_ok()));
            if !connected {
                return false;
            }
            match (before, started_within(driver).await) {
                (Some(a), Some(b)) => (a - b).abs() <= SAME_START_SLACK_SECS,
                _ => true,
            }
        })
    }

    /// Waits up to the reconnect timeout for the server to accept connections,
    /// tells whether it restarted, and opens the worker's connections again.
    fn recover(&mut self, at: Option<StatementRef>, message: String) -> ServerLoss {
        let started = Instant::now();
        let timeout = self.reconnect_timeout;
        tracing::warn!(target: "txlab::run", "lost the connection to the server ({message}); waiting up to {} for it", humantime::format_duration(timeout));
        let back = match self.await_server(timeout) {
            Awaited::Back(after) => Some(after),
            Awaited::NotBack | Awaited::Stopped => None,
        };
        let mut loss = ServerLoss {
            at,
            message,
            back_after_ms: None,
            restarted: None,
            waited_ms: started.elapsed().as_millis() as u64,
        };
        let Some(back) = back else {
            return loss;
        };
        // Zero: connected at the first attempt, the server never refused one.
        loss.back_after_ms = Some(back.as_millis() as u64);
        let now_started = self.runtime.block_on(started_within(self.case_db.driver()));
        loss.restarted = match (self.server_started, now_started) {
            (Some(a), Some(b)) => Some((a - b).abs() > SAME_START_SLACK_SECS),
            _ => None,
        };
        if now_started.is_some() {
            self.server_started = now_started;
        }
        if let Err(e) = self.runtime.block_on(self.case_db.reopen()) {
            // The server is back but refuses the set-up: the next case
            // fails with this error and counts as a tool error.
            tracing::warn!(target: "txlab::run", "could not reopen the case database: {e}");
        }
        if let Some(scratch) = &mut self.scratch {
            scratch.reopen();
        }
        tracing::info!(target: "txlab::run", "{loss}");
        loss
    }

    fn execute(&mut self, case: &TestCase, rendered: &RenderedCase) -> Result<History, Failure> {
        let dialect = self.resolved.dialect.clone();
        let mut settings = self.env_settings;
        // A case saved with the pace it needed runs at least that slowly.
        if let Some(ms) = case.pace_ms {
            settings.pace = settings.pace.max(Duration::from_millis(ms));
        }
        let read_final_state = self.needs.final_state;
        let interrupt = self.interrupt.clone();
        let db = &mut self.case_db;
        self.runtime.block_on(async move {
            // A paced run sets the tables up as a person would: created
            // afresh, not emptied and refilled (the reset's delete-marked
            // index records, purged in the background, change what some
            // waits see), and pauses before the first statement.
            let paced = !settings.pace.is_zero();
            if paced {
                db.forget_tables();
            }
            let resetting = phases::enter(Phase::Reset);
            db.prepare(&dialect, case, rendered).await?;
            drop(resetting);
            let setups: Vec<SessionSetup> = rendered
                .transactions
                .iter()
                .map(|t| t.session.clone())
                .collect();
            let setting_up = phases::enter(Phase::Setup);
            let sessions = db.sessions(&setups).await?;
            drop(setting_up);
            if paced {
                tokio::time::sleep(settings.pace).await;
            }
            let executor = ScheduleExecutor {
                settings,
                monitor: db.monitor.as_ref(),
                classifier: dialect.as_ref(),
                interrupt,
            };
            let running = phases::enter(Phase::Statements);
            let (history, sessions) = executor.run(case, rendered, sessions).await;
            drop(running);
            db.give_back(sessions, &setups);
            let mut history = history?;
            let _reading = phases::enter(Phase::FinalState);
            let nodes = db.nodes();
            if nodes > 1 {
                // On a cluster the final state is every node's: nodes that
                // still disagree once replication had its time are a finding.
                match db.read_final_states(rendered).await {
                    Ok((state, read)) => {
                        history.final_state = Some(state);
                        history.cluster = Some(ClusterRun {
                            node_count: nodes as u32,
                            nodes: (0..case.transactions.len())
                                .map(|t| db.node_of(t) as u32)
                                .collect(),
                            disagreeing: read.disagreeing,
                            settle_ms: read.waited.as_millis() as u64,
                        });
                    }
                    Err(e) => {
                        return Err(Failure {
                            error: e.into(),
                            partial: Some(Box::new(history)),
                        })
                    }
                }
            } else if read_final_state {
                match db.read_state(rendered).await {
                    Ok(state) => history.final_state = Some(state),
                    Err(e) => {
                        return Err(Failure {
                            error: e.into(),
                            partial: Some(Box::new(history)),
                        })
                    }
                }
            }
            Ok(history)
        })
    }
}

/// The server's version, or `None` when it does not say within the
/// connection deadline and a second.
async fn version_within(driver: &dyn crate::driver::Driver) -> Option<String> {
    let deadline = crate::driver::CONNECT_DEADLINE + Duration::from_secs(1);
    crate::driver::within(
        deadline,
        || "reading the server's version".into(),
        driver.server_version(),
    )
    .await
    .ok()
    .flatten()
}

/// When the server started, or `None` when it does not say within the
/// connection deadline and a second.
async fn started_within(driver: &dyn crate::driver::Driver) -> Option<i64> {
    let deadline = crate::driver::CONNECT_DEADLINE + Duration::from_secs(1);
    tokio::time::timeout(deadline, driver.server_started())
        .await
        .ok()
        .flatten()
}
