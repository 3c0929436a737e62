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
//! repeat until none removes anything, and then an UPDATE may become a
//! locking read of its rows (the last resort, [`edits::locking_reads`]) and
//! the passes go on; that leaves a case from which no single unit can go
//! (1-minimal) unless the budget ran out first.
//!
//! A concurrency finding may show only some of the time. For such a judge
//! the caller asks for more than one run per candidate ([`Limits::attempts`]):
//! a candidate counts as reproducing when any of its runs shows the finding,
//! and when no part can go any more the search looks again, judging the
//! candidates it rejected once more, since a true one may have missed all
//! its runs by chance; it ends after a second look, or a later one, that
//! removed nothing.

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
    /// Runs of a candidate before it counts as not reproducing (at least
    /// 1): more than one for a finding that shows only some of the time,
    /// which also makes the search look again at the candidates it rejected
    /// until a whole look removes nothing.
    pub attempts: u32,
}

impl Limits {
    /// A budget of `max_trials` candidates, one run each, no deadline.
    pub fn trials(max_trials: usize) -> Self {
        Limits {
            max_trials,
            deadline: None,
            attempts: 1,
        }
    }
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
    /// Candidate cases judged.
    pub trials: usize,
    /// Runs of candidates: the judge's answers (`attempts` at most per
    /// candidate and look).
    pub runs: usize,
    /// The removals and simplifications kept, in order. Transactions and
    /// statements are named as in the original case (`T3.2` of the case that
    /// was reduced), rows by their values.
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
/// limits allow. `reproduces` is asked about every candidate, up to
/// `limits.attempts` times until it says yes; with one attempt it is never
/// asked about the same candidate twice, with more it may be asked again in
/// a later look.
pub fn reduce(
    case: TestCase,
    limits: Limits,
    reproduces: impl FnMut(&TestCase) -> bool,
) -> Reduction {
    let origin = case
        .transactions
        .iter()
        .enumerate()
        .map(|(t, txn)| {
            (0..txn.statements.len())
                .map(|s| StatementRef::new(t, s))
                .collect()
        })
        .collect();
    let mut search = Search {
        case,
        origin,
        tried: HashSet::new(),
        trials: 0,
        runs: 0,
        limits,
        reproduces,
        steps: Vec::new(),
        stopped: None,
        look: 1,
    };
    search.run();
    Reduction {
        case: search.case,
        trials: search.trials,
        runs: search.runs,
        steps: search.steps,
        stopped: search.stopped.unwrap_or(Stopped::Minimal),
    }
}

/// For every statement of the current case, its name in the original case.
type Origin = Vec<Vec<StatementRef>>;

struct Search<F> {
    case: TestCase,
    origin: Origin,
    /// Candidates already judged, by their JSON form.
    tried: HashSet<String>,
    trials: usize,
    runs: usize,
    limits: Limits,
    reproduces: F,
    steps: Vec<String>,
    stopped: Option<Stopped>,
    /// The look the search is in, from 1 (see [`Limits::attempts`]).
    look: usize,
}

impl<F: FnMut(&TestCase) -> bool> Search<F> {
    fn run(&mut self) {
        // Whether the current look removed or simplified anything.
        let mut look_progress = false;
        loop {
            let mut progress = false;
            progress |= self.remove_units(
                "transaction",
                (0..self.case.transactions.len()).collect(),
                without_transactions,
                |origin, gone| {
                    let mut kept = origin.clone();
                    let mut t = 0;
                    kept.retain(|_| {
                        t += 1;
                        !gone.contains(&(t - 1))
                    });
                    kept
                },
                |_, origin, &t| txn_label(origin[t][0].txn()),
            );
            progress |= self.remove_units(
                "statement",
                removable_statements(&self.case),
                without_statements,
                |origin, gone| {
                    origin
                        .iter()
                        .enumerate()
                        .map(|(t, refs)| {
                            refs.iter()
                                .enumerate()
                                .filter(|(s, _)| !gone.contains(&StatementRef::new(t, *s)))
                                .map(|(_, r)| *r)
                                .collect()
                        })
                        .collect()
                },
                |_, origin, at| origin[at.txn()][at.stmt()].to_string(),
            );
            progress |= self.remove_units(
                "INSERT row",
                insert_rows(&self.case),
                without_insert_rows,
                |origin, _| origin.clone(),
                |case, origin, &(at, r)| {
                    let values = match case.statement(at) {
                        Some(Statement::Insert(i)) => i.rows.get(r).map(|row| {
                            row.iter()
                                .map(|e| match e {
                                    Expr::Literal(v) => v.to_string(),
                                    _ => "…".to_string(),
                                })
                                .collect::<Vec<_>>()
                                .join(", ")
                        }),
                        _ => None,
                    };
                    format!(
                        "({}) of {}",
                        values.unwrap_or_default(),
                        origin[at.txn()][at.stmt()]
                    )
                },
            );
            progress |= self.remove_units(
                "initial row",
                initial_rows(&self.case),
                without_initial_rows,
                |origin, _| origin.clone(),
                |case, _, &(t, r)| {
                    let rows = &case.initial_rows[t];
                    let values: Vec<String> =
                        rows.rows[r].iter().map(ToString::to_string).collect();
                    format!("({}) of {}", values.join(", "), rows.table)
                },
            );
            progress |= self.simplify_with(simplifications, false);
            progress |= self.remove_units(
                "schema part",
                schema_units(&self.case),
                without_schema,
                |origin, _| origin.clone(),
                |_, _, u| u.to_string(),
            );
            if !progress && self.stopped.is_none() {
                // Nothing else can go: the last resort, one edit at a time.
                progress = self.simplify_with(locking_reads, true);
            }
            if self.stopped.is_some() {
                return;
            }
            look_progress |= progress;
            if !progress {
                // A judge that may miss a true candidate looks again at
                // everything it rejected: a second time, and then as long
                // as the last look helped.
                if self.limits.attempts > 1 && (look_progress || self.look == 1) {
                    self.look += 1;
                    look_progress = false;
                    self.tried.clear();
                    continue;
                }
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
        let shown = (0..self.limits.attempts.max(1)).any(|_| {
            self.runs += 1;
            (self.reproduces)(&candidate)
        });
        if shown {
            self.case = candidate;
            let mut step = what();
            if self.look > 1 {
                step.push_str(&format!(" (look {})", self.look));
            }
            self.steps.push(step);
            true
        } else {
            false
        }
    }

    /// Removes as many of `units` as it can, in chunks of halving size.
    /// `edit` and `renumber` apply a set of removed units to the case and to
    /// its origin as they were when the pass started; `name` names a unit
    /// from that case and origin.
    fn remove_units<U: Ord + Clone + Debug>(
        &mut self,
        kind: &str,
        units: Vec<U>,
        edit: fn(&TestCase, &BTreeSet<U>) -> Option<TestCase>,
        renumber: impl Fn(&Origin, &BTreeSet<U>) -> Origin,
        name: impl Fn(&TestCase, &Origin, &U) -> String,
    ) -> bool {
        let base = self.case.clone();
        let base_origin = self.origin.clone();
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
                        let names: Vec<String> = removed
                            .iter()
                            .map(|u| name(&base, &base_origin, u))
                            .collect();
                        removal_step(kind, &names)
                    })
                });
                if kept {
                    self.origin = renumber(&base_origin, &trial);
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

    /// Applies single simplifications until none is kept, or only the
    /// first that is kept when `first_only`.
    fn simplify_with(
        &mut self,
        candidates: fn(&TestCase) -> Vec<Simplification>,
        first_only: bool,
    ) -> bool {
        let mut progress = false;
        'again: loop {
            for s in candidates(&self.case) {
                if self.out_of_budget() {
                    return progress;
                }
                let what = format!(
                    "simplified {}: {}",
                    self.origin[s.at.txn()][s.at.stmt()],
                    s.what
                );
                if self.attempt(s.case, || what) {
                    progress = true;
                    if first_only {
                        return progress;
                    }
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
