//! The missing-abort check: at levels whose second writer must fail (first
//! updater wins, or one writer at a time with stale writers failing), a write
//! to rows the other transaction changed and committed after this one's
//! snapshot must not succeed.

use super::statement::Step;
use super::views::{Choice, Views};
use super::{DiffKind, Difference, Stop, Walk};
use crate::scratch::Scratch;
use crate::versions::{Model, Rid, Row, Status};
use txlab_plugin_api::prelude::*;

impl Walk<'_> {
    /// Missing abort: a write to a row another transaction changed and committed
    /// after this one's snapshot, at a level whose second writer must fail.
    pub(super) fn check_missing_abort(
        &self,
        scratch: &mut Scratch<'_>,
        model: &Model,
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
        if stale.is_empty() {
            return Ok(());
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
}
