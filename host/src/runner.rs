//! Runs one test case end to end: the oracles instrument it, the dialect
//! renders it, the executor runs it on the worker's database, the oracles judge
//! it. The run loop, the reducer and `txlab replay` all go through here, so a
//! reduced or replayed case runs exactly as the original did.

use crate::executor::{ExecutorSettings, ScheduleExecutor};
use crate::pipeline::{Environment, Resolved, SetupError};
use crate::target::{open_driver, CaseDb, ScratchDb};
use std::sync::Arc;
use txlab_loader::OracleHandle;
use txlab_plugin_api::ir::*;

/// A case after it ran.
pub struct Evaluated {
    /// The case as run, after every oracle's `prepare`.
    pub prepared: TestCase,
    pub rendered: RenderedCase,
    pub history: History,
    /// Each judging oracle's verdict, by oracle name, in pipeline order.
    pub verdicts: Vec<(String, Verdict)>,
}

impl Evaluated {
    /// The finding `oracle` reported, if it reported one.
    pub fn finding_of(&self, oracle: &str) -> Option<&Finding> {
        self.verdicts.iter().find_map(|(name, v)| match v {
            Verdict::Finding(f) if name == oracle => Some(f),
            _ => None,
        })
    }
}

/// A worker's database connections and oracles.
pub struct CaseRunner<'a> {
    resolved: &'a Resolved<'a>,
    runtime: Arc<tokio::runtime::Runtime>,
    settings: ExecutorSettings,
    limits: SessionLimits,
    oracles: Vec<(String, OracleHandle)>,
    scratch: ScratchDb,
    case_db: CaseDb,
}

impl<'a> CaseRunner<'a> {
    /// Opens worker `id`'s case and scratch databases on the run's target.
    /// `setups` are the session set-ups of every level the run tests; each is
    /// tried once so that a setting the server refuses stops the run now.
    pub fn open(
        resolved: &'a Resolved<'a>,
        env: &Environment,
        id: usize,
        setups: &[SessionSetup],
        oracles: Vec<(String, OracleHandle)>,
    ) -> Result<Self, SetupError> {
        let runtime = crate::pipeline::worker_runtime()?;
        let open = |role: &str| {
            runtime.block_on(open_driver(
                &resolved.info,
                &env.location,
                &format!("w{id}_{role}"),
                env.timeouts,
            ))
        };
        let case_driver = open("case")?;
        let scratch_driver = open("scratch")?;
        let mut case_db = runtime.block_on(CaseDb::open(case_driver, &setups[0]))?;
        runtime.block_on(case_db.preflight(setups))?;
        Ok(CaseRunner {
            resolved,
            settings: env.settings,
            limits: env.limits,
            oracles,
            scratch: ScratchDb::new(
                runtime.clone(),
                scratch_driver,
                resolved.dialect.clone(),
                env.limits,
                setups[0].clone(),
            ),
            runtime,
            case_db,
        })
    }

    /// Runs `case` and asks the oracles about it: every oracle, or only the
    /// one named `only`. Every oracle instruments the case either way, so that
    /// it runs as it did in the original run. `Err` is a tool error.
    pub fn evaluate(&mut self, case: &TestCase, only: Option<&str>) -> Result<Evaluated, String> {
        case.validate()
            .map_err(|e| format!("the case is invalid: {e}"))?;
        let mut prepared = case.clone();
        for (_, o) in &mut self.oracles {
            prepared = o.prepare(&prepared).map_err(|e| e.to_string())?;
            prepared
                .validate()
                .map_err(|e| format!("{}'s prepare made an invalid case: {e}", o.label()))?;
        }
        let rendered = self
            .resolved
            .dialect
            .render_case(&prepared, &self.limits)
            .map_err(|e| e.to_string())?;
        let history = self.execute(&prepared, &rendered)?;
        let input = CheckInput {
            case: prepared,
            history,
        };
        let mut verdicts = Vec::new();
        for (name, oracle) in &mut self.oracles {
            if only.is_some_and(|o| o != name) {
                continue;
            }
            let verdict = oracle.check(&input, &mut self.scratch);
            self.scratch.end_check();
            verdicts.push((name.clone(), verdict.map_err(|e| e.to_string())?));
        }
        Ok(Evaluated {
            prepared: input.case,
            rendered,
            history: input.history,
            verdicts,
        })
    }

    fn execute(&mut self, case: &TestCase, rendered: &RenderedCase) -> Result<History, String> {
        let dialect = self.resolved.dialect.clone();
        let settings = self.settings;
        let db = &mut self.case_db;
        self.runtime.block_on(async move {
            db.prepare(&dialect, case, rendered)
                .await
                .map_err(|e| e.to_string())?;
            let setups: Vec<SessionSetup> = rendered
                .transactions
                .iter()
                .map(|t| t.session.clone())
                .collect();
            let sessions = db.sessions(&setups).await.map_err(|e| e.to_string())?;
            let executor = ScheduleExecutor {
                settings,
                monitor: db.monitor.as_ref(),
                classifier: dialect.as_ref(),
            };
            let (history, sessions) = executor.run(case, rendered, sessions).await;
            db.give_back(sessions, &setups);
            let mut history = history.map_err(|e| e.to_string())?;
            history.final_state = Some(db.read_state(rendered).await.map_err(|e| e.to_string())?);
            Ok(history)
        })
    }
}
