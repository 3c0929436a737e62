//! The rows a statement that waited for a row lock acts on, by the vendor's
//! rule (`LevelSemantics::after_wait`).
//!
//! Troc's model runs a statement on the latest committed rows at the moment it
//! completes. A statement that waited at READ COMMITTED may instead have read
//! some rows before the wait and the others after it:
//!
//! - InnoDB (`latest_rows`, with `semi_consistent_writes` for UPDATE): rows
//!   are visited in clustered-index order; a row the other transaction holds
//!   is judged on its last committed version and skipped when that does not
//!   match, the first that matches is waited for and re-read, and every row
//!   after it is read once the other transaction has ended (MySQL manual,
//!   innodb-transaction-isolation-levels, READ COMMITTED; MDEV-26643's case);
//!   without semi-consistent reads (DELETE, locking reads) the statement
//!   waits at the first held row; either way a row that appeared behind the
//!   scan position while it waited is not seen ("gap locking is disabled …
//!   phantom problems may occur", the same page).
//! - PostgreSQL (`recheck_changed`): rows come from the snapshot taken when
//!   the statement started; a row the other transaction changed is re-checked
//!   on its newest version, and rows only the newer state holds or matches
//!   are not seen (transaction-iso.html, 13.2.1).
//!
//! When the vendor's rule gives the statement other rows than the model, the
//! statement also runs on those rows: a run that agrees with them, not with
//! the model, is a vendor-permitted anomaly; one that agrees with neither is
//! undecided, since the order the DBMS visits rows in (which index it chose)
//! is not known for certain.

use super::statement::Step;
use super::views::{ViewRuns, Views};
use super::{DiffKind, Difference, Stop, Trace, Walk};
use crate::scratch::{clustering_key, holds_key_twice, Scratch, ViewRun};
use crate::versions::{Model, Rid, View, ViewKind, Writer};
use std::collections::BTreeSet;
use txlab_plugin_api::prelude::*;

/// Levels at which a statement that waited may have evaluated some rows before
/// the wait and others after it (InnoDB semi-consistent reads, PostgreSQL's
/// re-check of updated rows at READ COMMITTED, no range locks): its result is
/// fixed only when the rows it matches did not change while it waited.
fn rows_may_mix(semantics: &LevelSemantics) -> bool {
    semantics.write_reads == WriteReads::LatestCommitted
        && semantics.write_conflict == WriteConflict::BlockThenProceed
        && (semantics.semi_consistent_writes || !semantics.predicate_conflicts)
}

/// The statement's run on the rows the vendor's rule gives it, where they are
/// not the model's.
pub(super) struct WaitedRun {
    pub run: ViewRun,
    /// The rows it acted on, at their versions once it resumed.
    pub view: View,
    pub kind: DiffKind,
}

/// The rows the statement acts on, by the vendor's rule, and which rule.
struct VendorRows {
    rows: BTreeSet<Rid>,
    kind: DiffKind,
}

impl Walk<'_> {
    /// For a statement that waited at a level where it may read rows before
    /// and after the wait: nothing when the vendor's rule gives it the rows
    /// the model does; its run on the vendor's rows when they differ; or
    /// undecided when the profile declares no rule.
    pub(super) fn rows_after_the_wait(
        &self,
        scratch: &mut Scratch<'_>,
        model: &Model,
        trace: &Trace<'_>,
        step: &Step<'_>,
    ) -> Result<Option<WaitedRun>, Stop> {
        if !step.blocked || !rows_may_mix(step.semantics) || step.lock.is_none() {
            return Ok(None);
        }
        let t = step.t();
        let before = trace.states[step.sent_at].view(t, ViewKind::LatestCommitted);
        let now = model.view(t, ViewKind::LatestCommitted);
        if before == now {
            return Ok(None);
        }
        let mixed = || {
            Stop::Undecided(format!(
                "a statement that waited for a lock matches other rows before and after the wait, and the dialect declares no rule for which rows it reads after a wait: {} ({}) at {} {}",
                step.at,
                step.statement.kind_name(),
                self.dialect.name,
                step.level
            ))
        };
        let (Ok(then), Ok(later)) = (
            scratch.matching(step.level, &before, step.filter)?,
            scratch.matching(step.level, &now, step.filter)?,
        ) else {
            return Err(mixed());
        };
        let then: BTreeSet<Rid> = then.into_iter().collect();
        let later: BTreeSet<Rid> = later.into_iter().collect();
        if then == later {
            return Ok(None);
        }
        let vendor = match step.semantics.after_wait {
            AfterWait::Unknown => return Err(mixed()),
            AfterWait::LatestRows => {
                let semi_consistent = step.semantics.semi_consistent_writes
                    && matches!(step.statement, Statement::Update(_));
                let around = |start: Option<&ScanStart>| {
                    self.rows_around_the_wait(
                        model,
                        trace,
                        step,
                        semi_consistent,
                        start,
                        (&before, &now),
                        (&then, &later),
                    )
                };
                // A scan of the whole clustered index, else one that starts
                // at the statement's lower bound on the clustering key (an
                // index range scan: rows before the bound are never visited,
                // so the wait falls at the first held row within the range).
                let rows = match around(None) {
                    Some(rows) if rows != later => Some(rows),
                    full => self
                        .scan_start(step.filter)
                        .and_then(|start| around(Some(&start)))
                        .filter(|rows| *rows != later)
                        .or(full),
                };
                match rows {
                    Some(rows) => VendorRows {
                        rows,
                        kind: if semi_consistent {
                            DiffKind::SemiConsistentRead
                        } else {
                            DiffKind::PassedBeforeWait
                        },
                    },
                    // The rule would not have waited: the wait came from
                    // elsewhere (a key check, another index), and only the
                    // model's rows are predicted.
                    None => return Ok(None),
                }
            }
            AfterWait::RecheckChanged => VendorRows {
                rows: then
                    .iter()
                    .copied()
                    .filter(|r| before.get(r) == now.get(r) || later.contains(r))
                    .collect(),
                kind: DiffKind::RecheckAfterWait,
            },
        };
        if vendor.rows == later {
            return Ok(None);
        }
        let view: View = now
            .iter()
            .filter(|(r, _)| vendor.rows.contains(r))
            .map(|(r, row)| (*r, row.clone()))
            .collect();
        let part = scratch.run(step.level, &view, step.statement)?;
        // The rows it did not act on stay as they are.
        let mut after = now.clone();
        for r in &vendor.rows {
            after.remove(r);
        }
        after.extend(part.after.iter().map(|(r, row)| (*r, row.clone())));
        if step.statement.is_write() && holds_key_twice(self.table, &after) {
            return Err(Stop::Undecided(format!(
                "a statement that waited for a lock acts on other rows by the vendor's rule for a wait ({}) than in the model, and on those rows it would break a unique key the view run cannot check: {}",
                vendor.kind.title(),
                step.at
            )));
        }
        Ok(Some(WaitedRun {
            run: ViewRun {
                outcome: part.outcome,
                after: if step.statement.is_write() {
                    after
                } else {
                    now.clone()
                },
                before: now,
                matched: part.matched,
            },
            view,
            kind: vendor.kind,
        }))
    }

    /// The rows InnoDB's scan over the clustered index acts on when it
    /// waited: rows before the one it waited for are judged as they were when
    /// it was sent (`then`), that row and every later one once it resumed
    /// (`later`). It waits at the first row the other transaction held when
    /// it was sent (a row lock, the shared lock a failed INSERT leaves on
    /// the key it collided with, or a row a failed UPDATE or DELETE matched); with `semi_consistent` (an UPDATE at READ COMMITTED) it
    /// first judges a held row on its last committed version and skips it
    /// when that does not match, so it waits at the first held row that
    /// matches. `None` when the rule finds no row to wait at: the rule does
    /// not explain the wait.
    #[allow(clippy::too_many_arguments)]
    fn rows_around_the_wait(
        &self,
        model: &Model,
        trace: &Trace<'_>,
        step: &Step<'_>,
        semi_consistent: bool,
        start: Option<&ScanStart>,
        (before, now): (&View, &View),
        (then, later): (&BTreeSet<Rid>, &BTreeSet<Rid>),
    ) -> Option<BTreeSet<Rid>> {
        let other = &trace.states[step.sent_at].txns[step.u()];
        let held: BTreeSet<Rid> = other
            .locks
            .keys()
            .chain(&other.key_collisions)
            .chain(&other.failed_write_rows)
            .copied()
            .collect();
        let mut rows = BTreeSet::new();
        let mut waited = false;
        for rid in self.clustered_order(model, trace, before, now) {
            if let Some(start) = start {
                let row = before.get(&rid).or_else(|| now.get(&rid)).expect("listed");
                if !start.admits(&row[start.column]) {
                    continue;
                }
            }
            if !waited && held.contains(&rid) {
                // A row the other transaction inserted has no committed
                // version, so it is not in `then`: a semi-consistent read
                // skips it, a locking read waits for it.
                waited = !semi_consistent || then.contains(&rid);
            }
            let judged_on = if waited { later } else { then };
            if judged_on.contains(&rid) && (waited || !held.contains(&rid)) {
                rows.insert(rid);
            }
        }
        waited.then_some(rows)
    }

    /// Where an index range scan of the clustering key would start: the
    /// statement's lower bound on the key's first column (`c >= v`, `c > v`,
    /// `c = v`, `c BETWEEN v AND …`, among the conjuncts of its WHERE).
    fn scan_start(&self, filter: Option<&Expr>) -> Option<ScanStart> {
        let first = clustering_key(self.table).first()?;
        let column = self.table.columns.iter().position(|c| c.name == *first)?;
        let is_key = |e: &Expr| matches!(e, Expr::Column(c) if c.column == *first);
        let literal = |e: &Expr| match e {
            Expr::Literal(v) if !v.is_null() => Some(v.clone()),
            _ => None,
        };
        let mut conjuncts = vec![filter?];
        while let Some(e) = conjuncts.pop() {
            let bound = match e {
                Expr::Binary {
                    op: BinaryOp::And,
                    left,
                    right,
                } => {
                    conjuncts.push(left);
                    conjuncts.push(right);
                    None
                }
                Expr::Binary { op, left, right } if is_key(left) => match op {
                    BinaryOp::GtEq | BinaryOp::Eq => literal(right).map(|v| (v, true)),
                    BinaryOp::Gt => literal(right).map(|v| (v, false)),
                    _ => None,
                },
                Expr::Binary { op, left, right } if is_key(right) => match op {
                    BinaryOp::LtEq | BinaryOp::Eq => literal(left).map(|v| (v, true)),
                    BinaryOp::Lt => literal(left).map(|v| (v, false)),
                    _ => None,
                },
                Expr::Between {
                    operand,
                    low,
                    negated: false,
                    ..
                } if is_key(operand) => literal(low).map(|v| (v, true)),
                _ => None,
            };
            if let Some((from, inclusive)) = bound {
                return Some(ScanStart {
                    column,
                    from,
                    inclusive,
                });
            }
        }
        None
    }

    /// The rows of `before` and `now` in the order InnoDB's clustered index
    /// holds them: by the clustering key (the PRIMARY KEY, else a UNIQUE key
    /// of NOT NULL columns) of the row's committed version, or without one by
    /// the hidden row id InnoDB assigns on insert: the initial rows first,
    /// then the inserted rows in the order their INSERTs ran.
    fn clustered_order(
        &self,
        model: &Model,
        trace: &Trace<'_>,
        before: &View,
        now: &View,
    ) -> Vec<Rid> {
        let rids: BTreeSet<Rid> = before.keys().chain(now.keys()).copied().collect();
        let key = clustering_key(self.table);
        let positions: Option<Vec<usize>> = key
            .iter()
            .map(|c| self.table.columns.iter().position(|col| col.name == *c))
            .collect();
        let mut ordered: Vec<(Vec<Value>, Rid)> = match positions {
            Some(positions) if !positions.is_empty() => rids
                .into_iter()
                .map(|r| {
                    let row = before.get(&r).or_else(|| now.get(&r)).expect("listed");
                    (positions.iter().map(|&p| row[p].clone()).collect(), r)
                })
                .collect(),
            _ => rids
                .into_iter()
                .map(|r| {
                    let initial = model
                        .chains
                        .get(&r)
                        .and_then(|chain| chain.first())
                        .is_some_and(|v| v.writer == Writer::Init);
                    let place = if initial {
                        vec![Value::Int(0), Value::Int(r)]
                    } else {
                        let at = self.insert_position(trace, r).unwrap_or(usize::MAX);
                        vec![Value::Int(1), Value::Int(at as i64)]
                    };
                    (place, r)
                })
                .collect(),
        };
        // In the index's order: numbers by value (a DECIMAL key's text would
        // put 10.00 before 5.00).
        let key_cmp = |a: &[Value], b: &[Value]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| x.sql_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        };
        ordered.sort_by(|(a, ra), (b, rb)| key_cmp(a, b).then(ra.cmp(rb)));
        ordered.into_iter().map(|(_, r)| r).collect()
    }

    /// The execution-order position of the INSERT that listed row `rid`.
    fn insert_position(&self, trace: &Trace<'_>, rid: Rid) -> Option<usize> {
        let name = &self.table.columns[self.rid].name;
        trace.order.iter().position(|at| {
            let Some(Statement::Insert(insert)) = self.case.statement(*at) else {
                return false;
            };
            let Some(k) = insert.columns.iter().position(|c| c == name) else {
                return false;
            };
            insert.table == self.table.name
                && insert
                    .rows
                    .iter()
                    .any(|row| row.get(k) == Some(&Expr::Literal(Value::Int(rid))))
        })
    }
}

/// Where a range scan of the clustering key starts: rows whose key's first
/// column lies below `from` are never visited.
struct ScanStart {
    column: usize,
    from: Value,
    inclusive: bool,
}

impl ScanStart {
    fn admits(&self, value: &Value) -> bool {
        match value.sql_cmp(&self.from) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => self.inclusive,
            std::cmp::Ordering::Less => false,
        }
    }
}

/// Whether two outcomes say the same: the same affected-row count, or the
/// same rows in any order.
fn same_outcome(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Affected { rows: x }, Outcome::Affected { rows: y }) => x == y,
        (Outcome::Rows { rows: x, .. }, Outcome::Rows { rows: y, .. }) => {
            let (only_x, only_y) = multiset_difference(x, y);
            only_x.is_empty() && only_y.is_empty()
        }
        _ => false,
    }
}

impl Walk<'_> {
    /// Judges a statement that waited on both readings: the model's (the
    /// latest committed rows), and the vendor's rule's rows. A run the model
    /// explains goes on as usual; one only the vendor's rule explains is a
    /// vendor-permitted difference, and the walk goes on with its effect; one
    /// neither explains is undecided.
    pub(super) fn vendor_rows_after_the_wait(
        &self,
        step: &Step<'_>,
        views: &mut Views,
        runs: &mut ViewRuns,
        waited: WaitedRun,
        out: &mut Vec<Difference>,
    ) -> Result<(), Stop> {
        let actual = step.outcome();
        if same_outcome(actual, &runs.run.outcome) {
            return Ok(());
        }
        if !same_outcome(actual, &waited.run.outcome) {
            return Err(Stop::Undecided(format!(
                "a statement that waited for a lock matches other rows before and after the wait, and its outcome ({actual}) is neither the model's on the latest committed rows ({}) nor the vendor's rule's ({}: {}); the rule depends on the order the DBMS visits rows in, which the model infers from the clustering key: {} ({}) at {} {}",
                runs.run.outcome,
                waited.kind.title(),
                waited.run.outcome,
                step.at,
                step.statement.kind_name(),
                self.dialect.name,
                step.level
            )));
        }
        let rows_of = |o: &Outcome| match o {
            Outcome::Rows { rows, .. } => rows.clone(),
            _ => Vec::new(),
        };
        let (only_expected, only_actual) =
            multiset_difference(&rows_of(&runs.run.outcome), &rows_of(actual));
        out.push(Difference {
            kind: waited.kind,
            at: Some(step.at),
            level: Some(step.level),
            view: format!(
                "{}; by the vendor's rule for a wait, the rows listed",
                views.primary.describe()
            ),
            expected: format!(
                "it {} (the model: the latest committed rows once it resumed)",
                runs.run.outcome
            ),
            actual: format!("it {actual} (the vendor's rule for a statement that waited)"),
            view_rows: waited.view.values().cloned().collect(),
            only_expected,
            only_actual,
        });
        views.view = waited.view;
        runs.run = waited.run;
        runs.alternative = None;
        runs.standard = None;
        Ok(())
    }
}
