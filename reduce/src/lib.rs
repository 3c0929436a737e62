//! Shrinks a test case to a smaller one that still shows the same finding.
//!
//! A finding from a random case carries whatever else the generator made: extra
//! transactions, statements that play no part, rows nobody reads. A DBMS
//! developer wants the few statements that matter. [`reduce`] removes parts of
//! the case, coarse to fine, and keeps each removal only when the caller's
//! judge says the smaller case still reproduces the finding (the host runs it
//! on the DBMS and asks the same oracle). The order of trials depends only on
//! the case and the judge's answers, so a deterministic judge gives the same
//! reduction every time.
//!
//! Within a list of units (transactions, statements, rows, …) removal follows
//! delta debugging's complement step: chunks of half the list, then smaller
//! chunks down to single units, so that a case whose finding needs two of
//! twenty statements takes a few dozen trials rather than hundreds. Passes
//! repeat until none removes anything, which leaves a case from which no
//! single unit can go (1-minimal) unless the budget ran out first.

pub mod edits;

use edits::*;
use serde::Serialize;
use std::collections::{BTreeSet, HashSet};
use std::fmt::Debug;
use std::time::Instant;
use txlab_plugin_api::ir::*;

/// How much the reduction may spend.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Trials (cases handed to the judge) at most.
    pub max_trials: usize,
    /// No new trial starts after this instant.
    pub deadline: Option<Instant>,
}

/// Why the reduction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// No single unit can go any more.
    Minimal,
    /// The trial budget ran out.
    Trials,
    /// The deadline passed.
    Time,
}

impl Stopped {
    pub fn describe(self) -> &'static str {
        match self {
            Stopped::Minimal => "no single part can be removed",
            Stopped::Trials => "the trial budget ran out",
            Stopped::Time => "the time budget ran out",
        }
    }
}

/// The result: the smallest case found and how it was reached.
#[derive(Clone, Debug)]
pub struct Reduction {
    pub case: TestCase,
    /// Cases handed to the judge.
    pub trials: usize,
    /// The removals and simplifications kept, in order; statement and
    /// transaction numbers are those of the case before each step.
    pub steps: Vec<String>,
    pub stopped: Stopped,
}

/// Sizes that say how much a reduction removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CaseSize {
    pub transactions: usize,
    pub statements: usize,
    pub initial_rows: usize,
    pub tables: usize,
    pub columns: usize,
}

impl CaseSize {
    pub fn of(case: &TestCase) -> Self {
        CaseSize {
            transactions: case.transactions.len(),
            statements: case.statement_count(),
            initial_rows: case.initial_rows.iter().map(|r| r.rows.len()).sum(),
            tables: case.schema.tables.len(),
            columns: case.schema.tables.iter().map(|t| t.columns.len()).sum(),
        }
    }
}

/// Reduces `case`, which the judge must already reproduce, as far as the
/// limits allow. `reproduces` is asked about every candidate; it is never
/// asked about the same candidate twice.
pub fn reduce(
    case: TestCase,
    limits: Limits,
    reproduces: impl FnMut(&TestCase) -> bool,
) -> Reduction {
    let mut search = Search {
        case,
        tried: HashSet::new(),
        trials: 0,
        limits,
        reproduces,
        steps: Vec::new(),
        stopped: None,
    };
    search.run();
    Reduction {
        case: search.case,
        trials: search.trials,
        steps: search.steps,
        stopped: search.stopped.unwrap_or(Stopped::Minimal),
    }
}

struct Search<F> {
    case: TestCase,
    /// Candidates already judged, by their JSON form.
    tried: HashSet<String>,
    trials: usize,
    limits: Limits,
    reproduces: F,
    steps: Vec<String>,
    stopped: Option<Stopped>,
}

impl<F: FnMut(&TestCase) -> bool> Search<F> {
    fn run(&mut self) {
        loop {
            let mut progress = false;
            progress |= self.remove_units(
                "transaction",
                (0..self.case.transactions.len()).collect(),
                without_transactions,
                |t| txn_label(*t),
            );
            progress |= self.remove_units(
                "statement",
                removable_statements(&self.case),
                without_statements,
                |s| s.to_string(),
            );
            progress |= self.remove_units(
                "INSERT row",
                insert_rows(&self.case),
                without_insert_rows,
                |(s, r)| format!("{s} row {}", r + 1),
            );
            let tables: Vec<String> = self
                .case
                .initial_rows
                .iter()
                .map(|r| r.table.clone())
                .collect();
            progress |= self.remove_units(
                "initial row",
                initial_rows(&self.case),
                without_initial_rows,
                move |&(t, r)| format!("{} row {}", tables[t], r + 1),
            );
            progress |= self.simplify();
            progress |= self.remove_units(
                "schema part",
                schema_units(&self.case),
                without_schema,
                |u| u.to_string(),
            );
            if !progress || self.stopped.is_some() {
                return;
            }
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped.is_none() {
            if self.trials >= self.limits.max_trials {
                self.stopped = Some(Stopped::Trials);
            } else if self.limits.deadline.is_some_and(|d| Instant::now() >= d) {
                self.stopped = Some(Stopped::Time);
            }
        }
        self.stopped.is_some()
    }

    /// Asks the judge about a candidate; keeps it when it reproduces.
    fn attempt(&mut self, candidate: TestCase, what: impl FnOnce() -> String) -> bool {
        if candidate.validate().is_err() {
            return false;
        }
        let key = serde_json::to_string(&candidate).expect("IR serialises");
        if !self.tried.insert(key) {
            return false;
        }
        self.trials += 1;
        if (self.reproduces)(&candidate) {
            self.case = candidate;
            self.steps.push(what());
            true
        } else {
            false
        }
    }

    /// Removes as many of `units` as it can, in chunks of halving size.
    fn remove_units<U: Ord + Clone + Debug>(
        &mut self,
        kind: &str,
        units: Vec<U>,
        edit: fn(&TestCase, &BTreeSet<U>) -> Option<TestCase>,
        name: impl Fn(&U) -> String,
    ) -> bool {
        let base = self.case.clone();
        let mut live = units;
        let mut gone = BTreeSet::new();
        let mut progress = false;
        let mut chunk = live.len().div_ceil(2).max(1);
        while !live.is_empty() {
            let mut i = 0;
            while i < live.len() {
                if self.out_of_budget() {
                    return progress;
                }
                let end = (i + chunk).min(live.len());
                let mut trial = gone.clone();
                trial.extend(live[i..end].iter().cloned());
                let removed = &live[i..end];
                let kept = edit(&base, &trial).is_some_and(|candidate| {
                    self.attempt(candidate, || {
                        let names: Vec<String> = removed.iter().map(&name).collect();
                        removal_step(kind, &names)
                    })
                });
                if kept {
                    gone = trial;
                    live.drain(i..end);
                    progress = true;
                } else {
                    i = end;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
        progress
    }

    /// Applies single simplifications until none is kept.
    fn simplify(&mut self) -> bool {
        let mut progress = false;
        'again: loop {
            for s in simplifications(&self.case) {
                if self.out_of_budget() {
                    return progress;
                }
                let what = s.what;
                if self.attempt(s.case, || format!("simplified {what}")) {
                    progress = true;
                    continue 'again;
                }
            }
            return progress;
        }
    }
}

/// "removed statement T1.2", or for many units a count and the first few.
fn removal_step(kind: &str, names: &[String]) -> String {
    const SHOWN: usize = 4;
    match names {
        [one] => format!("removed {kind} {one}"),
        _ if names.len() <= SHOWN + 1 => format!("removed {kind}s {}", names.join(", ")),
        _ => format!(
            "removed {} {kind}s: {}, … and {} more",
            names.len(),
            names[..SHOWN].join(", "),
            names.len() - SHOWN
        ),
    }
}
