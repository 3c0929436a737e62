//! Reduces a finding's case on the DBMS that showed it.
//!
//! The judge of [`txlab_reduce`] runs each smaller candidate through the same
//! runner as the original case and asks the oracle that reported the finding;
//! a candidate reproduces when that oracle reports a finding with the same
//! signature (the kind of finding, without statement positions, which change
//! as statements go). A candidate that fails with a tool error does not
//! reproduce. The
//! reduced case is then run `confirm` more times, and the report says how
//! often it reproduced, because concurrency findings can depend on timing.

use crate::runner::{CaseRunner, Evaluated};
use serde::Serialize;
use std::time::{Duration, Instant};
use txlab_plugin_api::ir::{Finding, TestCase};
use txlab_reduce::{reduce, CaseSize, Limits, Stopped};

/// What a reduction may spend, and how hard it checks its result.
#[derive(Clone, Copy, Debug)]
pub struct ReduceSettings {
    pub max_trials: usize,
    pub max_time: Duration,
    /// Runs of the reduced case after the reduction.
    pub confirm: u32,
    /// Runs of each candidate before it counts as not reproducing: more than
    /// one for findings that depend on timing. The original case gets at
    /// least `confirm` runs to show the finding again.
    pub attempts: u32,
}

impl Default for ReduceSettings {
    fn default() -> Self {
        ReduceSettings {
            max_trials: 300,
            max_time: Duration::from_secs(120),
            confirm: 3,
            attempts: 1,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReductionOutcome {
    /// A smaller (or equally small) case reproduced the finding.
    Reduced,
    /// The original case did not show the finding again: nothing to reduce.
    OriginalDidNotReproduce,
    /// The reduced case did not reproduce in any confirmation run.
    ReducedDidNotReproduce,
}

/// `reduction.json`: what the reduction did.
#[derive(Clone, Debug, Serialize)]
pub struct ReductionReport {
    pub oracle: String,
    /// The original finding's title.
    pub title: String,
    /// What every candidate had to reproduce.
    pub signature: String,
    pub outcome: ReductionOutcome,
    pub before: CaseSize,
    pub after: CaseSize,
    /// Candidate cases tried (each up to `attempts` runs), the re-runs of
    /// the original included.
    pub trials: usize,
    pub elapsed_secs: f64,
    /// Why the search ended.
    pub stopped: String,
    /// The removals and simplifications kept, in order.
    pub steps: Vec<String>,
    pub confirm_runs: u32,
    /// Confirmation runs that showed the finding again.
    pub reproduced: u32,
    /// The reduced case when no confirmation run showed the finding: kept for
    /// `txlab replay`, since a finding that shows only some of the time can
    /// miss three runs.
    #[serde(skip)]
    pub unconfirmed: Option<TestCase>,
}

impl ReductionReport {
    /// One line for the console and the finding's report.
    pub fn summary(&self) -> String {
        let budget = if self.stopped == Stopped::Minimal.describe() {
            String::new()
        } else {
            format!(" ({})", self.stopped)
        };
        match self.outcome {
            ReductionOutcome::Reduced if self.steps.is_empty() => format!(
                "could not be reduced: no part could go without losing the finding{budget}; reproduced {}/{}",
                self.reproduced, self.confirm_runs
            ),
            ReductionOutcome::Reduced => format!(
                "reduced from {} to {} statements, {} to {} transactions, {} to {} initial rows{budget}; reproduced {}/{}",
                self.before.statements,
                self.after.statements,
                self.before.transactions,
                self.after.transactions,
                self.before.initial_rows,
                self.after.initial_rows,
                self.reproduced,
                self.confirm_runs
            ),
            ReductionOutcome::OriginalDidNotReproduce => format!(
                "not reduced: the case did not show the finding again in {} re-runs",
                self.trials
            ),
            ReductionOutcome::ReducedDidNotReproduce => format!(
                "unconfirmed: the reduced case ({} statements) showed the finding in 0 of {} confirmation runs; it is in unconfirmed/ for txlab replay",
                self.after.statements, self.confirm_runs
            ),
        }
    }
}

/// The reduced case and its last run that showed the finding.
pub struct Reduced {
    /// The case as a generator would have made it, before `prepare`.
    pub generated: TestCase,
    pub run: Evaluated,
}

/// Reduces `generated` (the case as the generator made it) while `oracle`
/// keeps reporting a finding like `finding` (same signature). No trial starts
/// after `not_after`, when given, nor after the settings' time budget.
/// Returns the report and, when the reduced case reproduced, the case with
/// its last reproducing run.
pub fn reduce_finding(
    runner: &mut CaseRunner<'_>,
    generated: &TestCase,
    oracle: &str,
    finding: &Finding,
    settings: &ReduceSettings,
    not_after: Option<Instant>,
) -> (ReductionReport, Option<Reduced>) {
    let started = Instant::now();
    let signature = finding.signature();
    let mut judge = |case: &TestCase| -> Option<Evaluated> {
        match runner.evaluate(case, Some(oracle)) {
            Ok(e)
                if e.finding_of(oracle)
                    .is_some_and(|f| f.signature() == signature) =>
            {
                Some(e)
            }
            Ok(_) => None,
            Err(e) => {
                tracing::debug!(target: "txlab::reduce", "a candidate failed with a tool error: {e}");
                None
            }
        }
    };
    let mut report = ReductionReport {
        oracle: oracle.to_string(),
        title: finding.title.clone(),
        signature: signature.to_string(),
        outcome: ReductionOutcome::OriginalDidNotReproduce,
        before: CaseSize::of(generated),
        after: CaseSize::of(generated),
        trials: 1,
        elapsed_secs: 0.0,
        stopped: String::new(),
        steps: Vec::new(),
        confirm_runs: 0,
        reproduced: 0,
        unconfirmed: None,
    };
    // A finding that depends on timing may not show on the first re-run.
    let first_tries = settings.attempts.max(settings.confirm).max(1);
    let shown = (1..=first_tries).any(|i| {
        report.trials = i as usize;
        judge(generated).is_some()
    });
    if !shown {
        report.elapsed_secs = started.elapsed().as_secs_f64();
        return (report, None);
    }
    let reduction = reduce(
        generated.clone(),
        Limits {
            max_trials: settings.max_trials,
            deadline: Some(match not_after {
                Some(end) => end.min(started + settings.max_time),
                None => started + settings.max_time,
            }),
        },
        |case| (0..settings.attempts.max(1)).any(|_| judge(case).is_some()),
    );
    let mut last = None;
    for _ in 0..settings.confirm.max(1) {
        report.confirm_runs += 1;
        if let Some(e) = judge(&reduction.case) {
            report.reproduced += 1;
            last = Some(Reduced {
                generated: reduction.case.clone(),
                run: e,
            });
        }
    }
    report.outcome = if last.is_some() {
        ReductionOutcome::Reduced
    } else {
        report.unconfirmed = Some(reduction.case.clone());
        ReductionOutcome::ReducedDidNotReproduce
    };
    report.after = CaseSize::of(&reduction.case);
    report.trials += reduction.trials;
    report.stopped = reduction.stopped.describe().to_string();
    report.steps = reduction.steps;
    report.elapsed_secs = started.elapsed().as_secs_f64();
    (report, last)
}
