//! `reduction.json`: what a reduction did, as written next to its finding.

use serde::Serialize;
use txlab_plugin_api::ir::TestCase;
use txlab_reduce::{CaseSize, Stopped};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReductionOutcome {
    /// A smaller (or equally small) case reproduced the finding.
    Reduced,
    /// The original case did not show the finding again: nothing to reduce.
    OriginalDidNotReproduce,
    /// The reduced case did not reproduce in any confirmation run.
    ReducedDidNotReproduce,
    /// A trial could not run: the server went away or did not answer, or
    /// the run was interrupted (`stopped` says what happened). What the
    /// trials showed says nothing about the finding, which stands as it was
    /// found; nothing was reduced and nothing is called unconfirmed.
    CouldNotRun,
}

/// How often the original case showed the finding again at one pace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PaceRuns {
    /// The pause after each confirmed block and transaction end (0: the
    /// run's own pace, when it has none).
    pub pace_ms: u64,
    pub runs: u32,
    pub shown: u32,
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
    /// The pause after each confirmed block and transaction end with which
    /// the case showed the finding again (0: none was needed); the reduction,
    /// its confirmation and `txlab replay` run with it.
    pub pace_ms: u64,
    /// The runs of the original case before the reduction, pace by pace:
    /// first at the run's own pace, then at slower ones until one showed
    /// the finding in every run.
    pub confirmation: Vec<PaceRuns>,
    /// Runs of each candidate before it counted as not reproducing: the
    /// pipeline's `attempts`, or more when the original case showed the
    /// finding only some of the time at the pace kept.
    pub attempts: u32,
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
            ReductionOutcome::CouldNotRun => format!(
                "not reduced: trial {} could not run ({}); the finding stands as found",
                self.trials, self.stopped
            ),
            ReductionOutcome::ReducedDidNotReproduce => format!(
                "unconfirmed: the reduced case ({} statements) showed the finding in 0 of {} confirmation runs; it is in unconfirmed/ for txlab replay",
                self.after.statements, self.confirm_runs
            ),
        }
    }
}
