//! `txlab semantics`: the experiments of `txlab-semantics` run on a
//! pipeline's target at every level it tests, each judged against what the
//! dialect declares for that server. A contradiction is run again and counts
//! only when every run shows it.

use crate::run::{CaseError, CaseRunner};
use crate::setup::{Environment, Resolved, SetupError};
use serde::Serialize;
use txlab_plugin_api::ir::*;
use txlab_semantics::{Declared, Experiment, Fact, Judgement, Run, EXPERIMENTS, NOT_PROBED};

/// One experiment at one level, as it ran.
pub struct ExperimentRun {
    pub experiment: &'static Experiment,
    pub level: IsolationLevel,
    /// The history of each run: one, or more when the first contradicted.
    pub histories: Vec<History>,
}

/// One experiment's judgement at one level.
#[derive(Clone, Debug, Serialize)]
pub struct ExperimentResult {
    pub experiment: String,
    pub fact: Fact,
    pub level: IsolationLevel,
    #[serde(flatten)]
    pub judgement: Judgement,
    /// How many runs contradicted, of how many, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contradicted_runs: Option<(usize, usize)>,
}

/// What `txlab semantics` found.
#[derive(Clone, Debug, Serialize)]
pub struct SemanticsReport {
    pub dialect: String,
    pub server_version: Option<String>,
    pub server: Option<ServerFacts>,
    pub results: Vec<ExperimentResult>,
    /// Facts no experiment checks, with why.
    pub not_probed: Vec<(String, String)>,
}

impl SemanticsReport {
    /// Contradictions every run showed.
    pub fn contradictions(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.judgement.is_contradiction() && r.steady())
            .count()
    }

    /// Contradictions some runs showed and others did not.
    pub fn unsteady(&self) -> usize {
        self.results.iter().filter(|r| !r.steady()).count()
    }
}

impl ExperimentResult {
    /// Whether every run judged alike.
    pub fn steady(&self) -> bool {
        self.contradicted_runs.is_none_or(|(bad, all)| bad == all)
    }
}

/// Runs every experiment at every level `resolved` tests, each once, and a
/// contradicted one `confirm` more times.
pub fn run_experiments(
    resolved: &Resolved<'_>,
    env: &Environment,
    confirm: usize,
) -> Result<(Vec<ExperimentRun>, Option<String>), SetupError> {
    let setups = env.level_setups(resolved)?;
    let mut runner = CaseRunner::open(resolved, env, 0, &setups, Vec::new())?;
    runner.read_final_state_always();
    let mut runs = Vec::new();
    for &level in &resolved.levels {
        let Some(declared) = resolved.info.level(level) else {
            continue;
        };
        for experiment in EXPERIMENTS {
            let case = experiment
                .case(level)
                .map_err(|e| SetupError::Semantics(format!("{}: {e}", experiment.name)))?;
            let mut histories = vec![run_once(&mut runner, experiment, &case)?];
            let judged = judge_one(experiment, declared, &resolved.info.engine, &histories[0]);
            if judged.is_contradiction() {
                for _ in 0..confirm {
                    histories.push(run_once(&mut runner, experiment, &case)?);
                }
            }
            runs.push(ExperimentRun {
                experiment,
                level,
                histories,
            });
        }
    }
    Ok((runs, runner.server_version().map(str::to_string)))
}

fn run_once(
    runner: &mut CaseRunner<'_>,
    experiment: &Experiment,
    case: &TestCase,
) -> Result<History, SetupError> {
    match runner.evaluate(case, None) {
        Ok(evaluated) => Ok(evaluated.history),
        Err(e @ CaseError::Target(_)) => Err(SetupError::Semantics(format!(
            "{} could not run: {e}",
            experiment.name
        ))),
        Err(e) => Err(SetupError::Semantics(format!("{}: {e}", experiment.name))),
    }
}

fn judge_one(
    experiment: &Experiment,
    level: &LevelSemantics,
    engine: &EngineSemantics,
    history: &History,
) -> Judgement {
    experiment.judge(Declared { level, engine }, &Run::new(history))
}

/// Judges the runs against `info`: the dialect's description, or one with a
/// fact changed. A contradiction is steady when every run of it shows one.
pub fn judge(info: &DialectInfo, runs: &[ExperimentRun]) -> Vec<ExperimentResult> {
    runs.iter()
        .filter_map(|run| {
            let level = info.level(run.level)?;
            let judgements: Vec<Judgement> = run
                .histories
                .iter()
                .map(|h| judge_one(run.experiment, level, &info.engine, h))
                .collect();
            let contradicted = judgements.iter().filter(|j| j.is_contradiction()).count();
            let judgement = judgements
                .iter()
                .find(|j| j.is_contradiction())
                .unwrap_or(&judgements[0])
                .clone();
            Some(ExperimentResult {
                experiment: run.experiment.name.to_string(),
                fact: run.experiment.fact,
                level: run.level,
                judgement,
                contradicted_runs: (contradicted > 0).then_some((contradicted, judgements.len())),
            })
        })
        .collect()
}

/// The report of `runs` judged against the dialect's own description.
pub fn report(
    resolved: &Resolved<'_>,
    runs: &[ExperimentRun],
    server_version: Option<String>,
) -> SemanticsReport {
    SemanticsReport {
        dialect: resolved.info.name.clone(),
        server_version,
        server: resolved.info.server.clone(),
        results: judge(&resolved.info, runs),
        not_probed: NOT_PROBED
            .iter()
            .map(|(f, why)| (f.to_string(), why.to_string()))
            .collect(),
    }
}
