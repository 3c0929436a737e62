//! Experiments that check a dialect's declared isolation semantics against a
//! live DBMS: small two- to four-session cases, each set up so that one fact
//! of the semantics profile decides what the server does, and a judge that
//! reads the history and says whether the server did what the declared fact
//! predicts.
//!
//! The host runs each experiment's case at every level a pipeline tests
//! (`txlab semantics`) and hands the history to [`Experiment::judge`] with the
//! dialect's description; a judgement takes the declared facts as a value, so
//! a test can judge one history under a description with a fact flipped.
//!
//! An experiment whose run went another way than it can judge (a statement
//! that waited where the experiment needed it not to, a level that makes
//! the fact meaningless) says so ([`Judgement::NotObservable`]), never
//! "agrees". Facts no experiment checks are listed in [`NOT_PROBED`].

mod experiments;
mod run;

pub use experiments::EXPERIMENTS;
pub use run::Run;

use serde::Serialize;
use std::fmt;
use txlab_plugin_api::ir::{EngineSemantics, IsolationLevel, LevelSemantics, TestCase};
use txlab_script::{import, ImportOptions, ScriptError};

/// A fact of the semantics profile, named as the IR names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fact {
    Snapshot,
    WriteReads,
    WriteConflict,
    SemiConsistentWrites,
    PredicateConflicts,
    Serializable,
    AfterWait,
    SameValueUpdate,
    FailedStatementKeepsTransaction,
    FirstReadSnapshotNeedsTableAccess,
}

impl Fact {
    /// The field's name in the profile (`LevelSemantics` or `EngineSemantics`).
    pub fn name(self) -> &'static str {
        match self {
            Fact::Snapshot => "snapshot",
            Fact::WriteReads => "write_reads",
            Fact::WriteConflict => "write_conflict",
            Fact::SemiConsistentWrites => "semi_consistent_writes",
            Fact::PredicateConflicts => "predicate_conflicts",
            Fact::Serializable => "serializable",
            Fact::AfterWait => "after_wait",
            Fact::SameValueUpdate => "engine.same_value_update",
            Fact::FailedStatementKeepsTransaction => "engine.failed_statement_keeps_transaction",
            Fact::FirstReadSnapshotNeedsTableAccess => {
                "engine.first_read_snapshot_needs_table_access"
            }
        }
    }
}

impl fmt::Display for Fact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Facts of the profile no experiment checks, with why.
pub const NOT_PROBED: &[(&str, &str)] = &[
    (
        "serial_order",
        "which serial order explains a run needs many runs to tell, not one case",
    ),
    (
        "mixed_levels",
        "not yet probed: a write skew across two levels would show it",
    ),
    (
        "engine.replace_may_update_in_place",
        "a permission (\"may\"): one run cannot show that it never happens",
    ),
    (
        "engine.shared_reads_may_lock_only_a_covering_index",
        "a permission (\"may\"): one run cannot show that it never happens",
    ),
    (
        "engine.dirty_reads_see_partial_writes",
        "a permission (\"may\"): one run cannot show that it never happens",
    ),
    (
        "engine.unique_checked_per_row",
        "a permission (\"may\"): one run cannot show that it never happens",
    ),
];

/// What the dialect declares for the level an experiment runs at.
#[derive(Clone, Copy, Debug)]
pub struct Declared<'a> {
    pub level: &'a LevelSemantics,
    pub engine: &'a EngineSemantics,
}

/// Whether the server did what the declared fact predicts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "judgement")]
pub enum Judgement {
    /// It did; `observed` says what the server did.
    Agrees { observed: String },
    /// It did not.
    Contradicts { expected: String, observed: String },
    /// The run cannot tell: the experiment does not apply at this level, or
    /// the run went another way than the experiment can judge.
    NotObservable { reason: String },
}

impl Judgement {
    fn agrees(observed: impl Into<String>) -> Self {
        Judgement::Agrees {
            observed: observed.into(),
        }
    }

    fn not_observable(reason: impl Into<String>) -> Self {
        Judgement::NotObservable {
            reason: reason.into(),
        }
    }

    /// Agrees when `observed == expected`, contradicts otherwise.
    fn compare(expected: impl Into<String>, observed: impl Into<String>) -> Self {
        let (expected, observed) = (expected.into(), observed.into());
        if expected == observed {
            Judgement::Agrees { observed }
        } else {
            Judgement::Contradicts { expected, observed }
        }
    }

    pub fn is_contradiction(&self) -> bool {
        matches!(self, Judgement::Contradicts { .. })
    }
}

/// One experiment: a case whose run one fact of the profile decides.
pub struct Experiment {
    /// Its name, the script's file name without `.sql`.
    pub name: &'static str,
    /// The fact it checks.
    pub fact: Fact,
    /// The case as a `-- T1:` marked script (its opening comment says what
    /// it shows).
    pub script: &'static str,
    judge: fn(Declared<'_>, &Run<'_>) -> Judgement,
}

impl Experiment {
    /// The experiment's case with every transaction at `level`.
    pub fn case(&self, level: IsolationLevel) -> Result<TestCase, ScriptError> {
        let options = ImportOptions {
            level: Some(level),
            ..ImportOptions::default()
        };
        let mut case = import(&format!("{}.sql", self.name), self.script, &options)?.case;
        for t in &mut case.transactions {
            t.isolation = level;
        }
        case.generator = format!("semantics/{}", self.name);
        Ok(case)
    }

    /// What the history of this experiment's case says about `declared`.
    pub fn judge(&self, declared: Declared<'_>, run: &Run<'_>) -> Judgement {
        if let Some(reason) = run.unjudgeable() {
            return Judgement::not_observable(reason);
        }
        (self.judge)(declared, run)
    }

    /// The first lines of the script's opening comment: what it shows.
    pub fn about(&self) -> String {
        self.script
            .lines()
            .take_while(|l| l.starts_with("--"))
            .map(|l| l.trim_start_matches('-').trim())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The experiment named `name`.
pub fn experiment(name: &str) -> Option<&'static Experiment> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests;
