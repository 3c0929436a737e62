//! The missing-abort check: at levels whose second writer must fail (first
//! updater wins, or one writer at a time with stale writers failing), a write
//! to rows the other transaction changed and committed after this one's
//! snapshot must not succeed. The profile's facts hold here as in the
//! query-result check: a same-value UPDATE changes nothing where the dialect
//! says so (InnoDB writes no version, and owes no error), and a first read
//! that touched no table may have taken no snapshot.

use super::statement::Step;
use super::views::{same_value_reason, Choice, Views};
use super::{DiffKind, Difference, Stop, Trace, Walk};
use crate::config::SameValueSetting;
use crate::scratch::Scratch;
use crate::versions::{Effect, Model, Rid, Row, Status};
use txlab_plugin_api::prelude::*;

impl Walk<'_> {
    /// Missing abort: a write to a row another transaction changed and committed
    /// after this one's snapshot, at a level whose second writer must fail.
    pub(super) fn check_missing_abort(
        &self,
        scratch: &mut Scratch<'_>,
        model: &Model,
        trace: &Trace<'_>,
        step: &Step<'_>,
        views: &Views,
        out: &mut Vec<Difference>,
    ) -> Result<(), Stop> {
        let (t, u) = (step.t(), step.u());
        let Some(snapshot) = model.txns[t].snapshot else {
            return Ok(());
        };
        if !self.config.check_missing_aborts {
            return Ok(());
        }
        let committed_after = matches!(model.txns[u].status, Status::Committed(n) if n > snapshot);
        let write_conflict = step.semantics.write_conflict;
        let stale: Vec<Rid> = match write_conflict {
            _ if !committed_after => vec![],
            WriteConflict::SingleWriter if step.statement.is_write() => {
                model.written_by(u).into_iter().collect()
            }
            WriteConflict::BlockThenAbort
                if views.choice == Choice::Snapshot && step.lock.is_some() =>
            {
                let written = model.written_by(u);
                match scratch.matching(step.level, &views.view, step.filter)? {
                    Ok(rids) => rids.into_iter().filter(|r| written.contains(r)).collect(),
                    Err(_) => vec![],
                }
            }
            _ => vec![],
        };
        // A same-value UPDATE of the other transaction changed nothing where
        // the dialect says it makes no version.
        let (changed, same_only): (Vec<Rid>, Vec<Rid>) = stale
            .into_iter()
            .partition(|&r| !model.only_same_values(u, r));
        let stale = match self.config.same_value_update.resolve(self.dialect) {
            SameValueSetting::NewVersion => changed.into_iter().chain(same_only).collect(),
            SameValueSetting::NoVersion => changed,
            _ if changed.is_empty() && !same_only.is_empty() && step.outcome().is_success() => {
                return Err(Stop::Undecided(same_value_reason(step.at)));
            }
            _ => changed,
        };
        if stale.is_empty() {
            return Ok(());
        }
        if let Status::Committed(n) = model.txns[u].status {
            self.snapshot_may_be_later(trace, step, n)?;
        }
        let (at, outcome) = (step.at, step.outcome());
        if !outcome.is_success() {
            return Err(Stop::Undecided(format!(
                "a statement the model expects to fail with a serialization failure failed otherwise: {at} {outcome}"
            )));
        }
        let latest = model.committed_state();
        let rows: Vec<Row> = stale
            .iter()
            .filter_map(|r| latest.get(r).cloned())
            .collect();
        out.push(Difference {
            kind: DiffKind::MissingAbort,
            at: Some(at),
            level: Some(step.level),
            view: views.primary.describe().into(),
            expected: format!(
                "a serialization failure: {} changed and committed {} after {}'s snapshot ({})",
                txn_label(u),
                match write_conflict {
                    WriteConflict::SingleWriter => "the database",
                    _ => "rows this statement writes or locks",
                },
                txn_label(t),
                RowsText(&rows)
            ),
            actual: format!("it {outcome}"),
            view_rows: rows,
            only_expected: vec![],
            only_actual: vec![],
        });
        Err(Stop::Differs)
    }

    /// Where the dialect declares that a read takes the snapshot only when it
    /// touches the table (InnoDB), and the transaction's reads before this
    /// statement up to the first that returned rows all returned none, the
    /// snapshot may have been taken later than the model's, or not at all:
    /// then no serialization failure is owed for a transaction that committed
    /// as the `commit`-th, and the case is undecided.
    fn snapshot_may_be_later(
        &self,
        trace: &Trace<'_>,
        step: &Step<'_>,
        commit: u64,
    ) -> Result<(), Stop> {
        if !self.dialect.engine.first_read_snapshot_needs_table_access
            || self.snapshot(step.t()) != SnapshotPoint::FirstRead
        {
            return Ok(());
        }
        let (at, t) = (step.at, step.t());
        let mut touched = false;
        let mut later = false;
        for (j, earlier) in trace.order.iter().enumerate() {
            if earlier.txn() != t || earlier.stmt() >= at.stmt() {
                continue;
            }
            let plain = matches!(self.case.statement(*earlier), Some(Statement::Select(x)) if x.lock == RowLock::None);
            if !plain {
                continue;
            }
            later |= trace.states[j].commits >= commit;
            if matches!(
                self.history.record(*earlier).map(|r| &r.outcome),
                Some(Outcome::Rows { rows, .. }) if !rows.is_empty()
            ) {
                touched = true;
                break;
            }
        }
        if later || !touched {
            return Err(Stop::Undecided(format!(
                "vendor-defined: {at} writes rows another transaction committed after its transaction's first read, but the reads before it returned no rows; the dialect declares that a read takes the snapshot only when it touches the table (InnoDB), so the snapshot may be later, or not taken, and no serialization failure owed"
            )));
        }
        Ok(())
    }

    /// A lost update the vendor permits: at REPEATABLE READ, where the
    /// profile says writes read the latest committed rows and the second
    /// writer proceeds (InnoDB's current read), a write over a row the other
    /// transaction changed and committed after this one's snapshot, when this
    /// one read the row before: the standard model forbids it (G-single, a
    /// cycle of the read's anti-dependency and the writes' order). Noted as a
    /// vendor-permitted difference; the walk goes on.
    pub(super) fn note_lost_update(
        &self,
        model: &Model,
        step: &Step<'_>,
        views: &Views,
        effect: &Effect,
        out: &mut Vec<Difference>,
    ) {
        let semantics = step.semantics;
        if step.level != IsolationLevel::RepeatableRead
            || semantics.write_reads != WriteReads::LatestCommitted
            || semantics.write_conflict != WriteConflict::BlockThenProceed
        {
            return;
        }
        let (t, u) = (step.t(), step.u());
        let Some(snapshot) = model.txns[t].snapshot else {
            return;
        };
        if !matches!(model.txns[u].status, Status::Committed(n) if n > snapshot) {
            return;
        }
        let read = self.rows_read_before(step);
        // A same-value write of its own makes no version unless the profile
        // says it does: then nothing may have been written over the other's
        // change.
        let new_version =
            self.config.same_value_update.resolve(self.dialect) == SameValueSetting::NewVersion;
        let lost: Vec<Rid> = effect
            .written
            .iter()
            .filter(|(_, (_, same_value))| !*same_value || new_version)
            .map(|(rid, _)| rid)
            .chain(effect.deleted.keys())
            .copied()
            .filter(|&r| read.contains(&r) && !model.only_same_values(u, r))
            .filter(|r| model.written_by(u).contains(r))
            .collect();
        if lost.is_empty() {
            return;
        }
        let latest = model.committed_state();
        let rows: Vec<Row> = lost.iter().filter_map(|r| latest.get(r).cloned()).collect();
        out.push(Difference {
            kind: DiffKind::LostUpdate,
            at: Some(step.at),
            level: Some(step.level),
            view: views.primary.describe().into(),
            expected: format!(
                "a serialization failure (the standard model: {t_} read these rows at its snapshot, {u_} changed and committed them after it; a write over that change closes a cycle, G-single): {}",
                RowsText(&rows),
                t_ = txn_label(t),
                u_ = txn_label(u),
            ),
            actual: format!(
                "it {} over the latest committed rows, as the vendor documents (UPDATE and DELETE read the latest committed rows at REPEATABLE READ)",
                step.outcome()
            ),
            view_rows: rows,
            only_expected: vec![],
            only_actual: vec![],
        });
    }

    /// Row ids the plain reads of the statement's transaction returned
    /// before it (those that project the row id).
    fn rows_read_before(&self, step: &Step<'_>) -> std::collections::BTreeSet<Rid> {
        let (t, at) = (step.t(), step.at);
        let rid_name = &self.table.columns[self.rid].name;
        let mut rids = std::collections::BTreeSet::new();
        for (s, statement) in self.case.transactions[t].statements.iter().enumerate() {
            if s >= at.stmt() {
                break;
            }
            if !matches!(statement, Statement::Select(x) if x.lock == RowLock::None) {
                continue;
            }
            let Some(Outcome::Rows { columns, rows }) = self
                .history
                .record(StatementRef::new(t, s))
                .map(|r| &r.outcome)
            else {
                continue;
            };
            let Some(p) = columns.iter().position(|c| c == rid_name) else {
                continue;
            };
            rids.extend(rows.iter().filter_map(|row| match row.get(p) {
                Some(Value::Int(i)) => Some(*i),
                _ => None,
            }));
        }
        rids
    }
}
