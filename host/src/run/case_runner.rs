//! Runs one test case end to end: the oracles instrument it, the dialect
//! renders it, the executor runs it on the worker's database, the oracles judge
//! it. The run loop, the reducer and `txlab replay` all go through here, so a
//! reduced or replayed case runs exactly as the original did.

use super::CaseError;
use crate::executor::{empty_history, ScheduleExecutor};
use crate::setup::{worker_runtime, Environment, OracleInstance, Resolved, SetupError};
use crate::target::{open_driver, CaseDb, ScratchDb};
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
        let scratch = if needs.scratch_db {
            Some(ScratchDb::new(
                runtime.clone(),
                open("scratch")?,
                resolved.dialect.clone(),
                env.limits,
                setups[0].clone(),
                env.settings,
            )?)
        } else {
            None
        };
        let mut case_db = runtime.block_on(CaseDb::open(case_driver, &setups[0]))?;
        runtime.block_on(case_db.preflight(setups))?;
        let server_started = runtime.block_on(case_db.driver().server_started());
        Ok(CaseRunner {
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
        let history = self.execute_surviving(&prepared, &rendered)?;
        let input = CheckInput {
            case: prepared,
            history,
        };
        let mut verdicts = Vec::new();
        for (i, oracle) in self.oracles.iter_mut().enumerate() {
            if only.is_some_and(|o| o != oracle.name) {
                continue;
            }
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
                if self.server_unchanged() {
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

    /// The pause the executor leaves after a confirmed block and after a
    /// transaction's end (see `ExecutorSettings::pace`), from now on.
    pub fn set_pace(&mut self, pace: Duration) {
        self.env_settings.pace = pace;
    }

    pub fn pace(&self) -> Duration {
        self.env_settings.pace
    }

    /// Whether the server answers a new connection and has not restarted.
    fn server_unchanged(&self) -> bool {
        let driver = self.case_db.driver();
        let before = self.server_started;
        self.runtime.block_on(async {
            let connected = tokio::time::timeout(CONNECT_ATTEMPT_TIMEOUT, driver.connect())
                .await
                .is_ok_and(|c| c.is_ok());
            if !connected {
                return false;
            }
            match (before, driver.server_started().await) {
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
        let driver = self.case_db.driver();
        tracing::warn!(target: "txlab::run", "lost the connection to the server ({message}); waiting up to {} for it", humantime::format_duration(timeout));
        let back = self.runtime.block_on(async {
            loop {
                let attempt = tokio::time::timeout(CONNECT_ATTEMPT_TIMEOUT, driver.connect()).await;
                if matches!(attempt, Ok(Ok(_))) {
                    return Some(started.elapsed());
                }
                if started.elapsed() >= timeout {
                    return None;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
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
        // Connected at the first attempt: the server never refused one.
        loss.back_after_ms = Some(if back < Duration::from_millis(200) {
            0
        } else {
            back.as_millis() as u64
        });
        let now_started = self.runtime.block_on(driver.server_started());
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
            db.prepare(&dialect, case, rendered).await?;
            let setups: Vec<SessionSetup> = rendered
                .transactions
                .iter()
                .map(|t| t.session.clone())
                .collect();
            let sessions = db.sessions(&setups).await?;
            if paced {
                tokio::time::sleep(settings.pace).await;
            }
            let executor = ScheduleExecutor {
                settings,
                monitor: db.monitor.as_ref(),
                classifier: dialect.as_ref(),
            };
            let (history, sessions) = executor.run(case, rendered, sessions).await;
            db.give_back(sessions, &setups);
            let mut history = history?;
            if read_final_state {
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
