//! One data statement (SELECT, INSERT, UPDATE, DELETE) of the walk, in order:
//! its snapshot, the missing-lock check, its view, the missing-abort check,
//! the vendor-defined excuses, the run on its view, the comparison with the
//! real run, and its effect on the version chains.

use super::locks::lock_mode;
use super::views::{Choice, ViewRuns};
use super::{Difference, Stop, Trace, Walk};
use crate::scratch::Scratch;
use crate::versions::{diff, LockMode, Model};
use txlab_plugin_api::prelude::*;

/// The statement being walked, what the run recorded for it, and the facts
/// the checks share.
pub(super) struct Step<'w> {
    pub at: StatementRef,
    pub level: IsolationLevel,
    pub semantics: &'w LevelSemantics,
    pub statement: &'w Statement,
    pub record: &'w StatementRecord,
    /// The statement waited for a lock.
    pub blocked: bool,
    /// The execution-order position before which it was sent (its own
    /// position unless it waited).
    pub sent_at: usize,
    /// The row locks it takes on the rows it matches, if any.
    pub lock: Option<LockMode>,
    /// Its WHERE clause.
    pub filter: Option<&'w Expr>,
    /// Its transaction had its snapshot before this statement.
    pub snapshot_taken_earlier: bool,
}

impl Step<'_> {
    /// Its transaction.
    pub fn t(&self) -> usize {
        self.at.txn()
    }

    /// The other transaction.
    pub fn u(&self) -> usize {
        1 - self.at.txn()
    }

    pub fn outcome(&self) -> &Outcome {
        &self.record.outcome
    }

    pub fn is_plain_select(&self) -> bool {
        matches!(self.statement, Statement::Select(s) if s.lock == RowLock::None)
    }
}

fn filter_of(statement: &Statement) -> Option<&Expr> {
    match statement {
        Statement::Select(s) => s.filter.as_ref(),
        Statement::Update(u) => u.filter.as_ref(),
        Statement::Delete(d) => d.filter.as_ref(),
        _ => None,
    }
}

impl Walk<'_> {
    /// Walks the data statement at execution-order position `i`.
    pub(super) fn data_statement(
        &self,
        scratch: &mut Scratch<'_>,
        model: &mut Model,
        trace: &Trace<'_>,
        i: usize,
        out: &mut Vec<Difference>,
    ) -> Result<(), Stop> {
        let at = trace.order[i];
        let t = at.txn();
        let statement = self.case.statement(at).expect("shape checked");
        let record = self.history.record(at).expect("shape checked");
        let semantics = self.semantics(t);
        let blocked = record.blocked.is_some();
        let sent_at = if blocked {
            self.submission_point(trace.order, i, record)?
        } else {
            i
        };
        let step = Step {
            at,
            level: self.case.transactions[t].isolation,
            semantics,
            statement,
            record,
            blocked,
            sent_at,
            lock: lock_mode(statement),
            filter: filter_of(statement),
            snapshot_taken_earlier: model.txns[t].snapshot.is_some(),
        };
        let commits_when_sent = trace.states[sent_at].commits;
        match self.snapshot(t) {
            SnapshotPoint::FirstStatement => model.take_snapshot(t, commits_when_sent),
            SnapshotPoint::FirstRead if step.is_plain_select() => {
                model.take_snapshot(t, commits_when_sent)
            }
            _ => {}
        }
        if let Outcome::Error(e) = step.outcome() {
            if e.class.is_concurrency() {
                // The DBMS's concurrency control acted: the statement, or the whole
                // transaction, had no effect. The model follows; it never reports
                // an abort it did not predict.
                return Ok(());
            }
        }

        self.check_missing_lock(scratch, model, &step, out)?;
        let mut views = self.views(model, &step);
        self.check_missing_abort(scratch, model, trace, &step, &views, out)?;
        let waited = self.rows_after_the_wait(scratch, model, trace, &step)?;

        let mut runs = ViewRuns {
            run: scratch.run(step.level, &views.view, statement)?,
            alternative: match &views.alternative {
                Some(alt) => Some(scratch.run(step.level, alt, statement)?),
                None => None,
            },
            standard: match &views.standard {
                Some(standard) if step.is_plain_select() => {
                    Some(scratch.run(step.level, standard, statement)?)
                }
                _ => None,
            },
        };
        self.same_value_write(&step, &runs)?;
        if step.is_plain_select()
            && step.snapshot_taken_earlier
            && views.choice == Choice::Snapshot
            && self.snapshot(t) == SnapshotPoint::FirstRead
            && self.dialect.engine.first_read_snapshot_needs_table_access
        {
            self.later_snapshot_excuse(scratch, model, trace, &step, views.primary, &runs.run)?;
        }
        if let Some(waited) = waited {
            self.vendor_rows_after_the_wait(&step, &mut views, &mut runs, waited, out)?;
        }
        self.compare(model, &step, &views, &runs, out)?;

        if step.outcome().is_success() {
            let effect = diff(&runs.run.before, &runs.run.after, &runs.run.matched);
            if matches!(statement, Statement::Insert(i) if i.on_conflict == OnConflict::Replace)
                && !effect.deleted.is_empty()
                && self.dialect.engine.replace_may_update_in_place
            {
                model.replaced_a_row = true;
            }
            self.record_locks(scratch, model, &step, &views, &runs.run)?;
            if matches!(statement, Statement::Insert(i) if i.on_conflict == OnConflict::Ignore) {
                // The rows it skipped collided with a key, as a failed INSERT's.
                self.record_key_collisions(model, &step, &views.view);
            }
            self.note_lost_update(model, &step, &views, &effect, out);
            model.apply(t, &effect);
        } else if let Outcome::Error(e) = step.outcome() {
            if e.class == ErrorClass::Constraint {
                self.record_key_collisions(model, &step, &views.view);
            }
            // Failures met at a row, after the rows before it were locked.
            if matches!(e.class, ErrorClass::Constraint | ErrorClass::Data) {
                self.record_failed_write(scratch, model, &step, &views.view)?;
            }
        }
        Ok(())
    }
}
