//! A situation in which the profile lets a statement have read more than one
//! state of the rows, so that its outcome is not fixed and the case is
//! undecided: a read that shows a snapshot taken later than the model's.
//! (A statement that waited is modelled in [`super::wait`].)

use super::statement::Step;
use super::{Stop, Trace, Walk};
use crate::scratch::{Scratch, ViewRun};
use crate::versions::{Model, ViewKind};
use txlab_plugin_api::prelude::*;

impl Walk<'_> {
    /// At a level whose snapshot is taken by the first consistent read, on a
    /// DBMS that declares `first_read_snapshot_needs_table_access`, a read
    /// that shows the snapshot of a later read of its transaction is undecided
    /// when the reads before that one all returned no rows: InnoDB creates its
    /// read view when a read first touches the table, and a read the optimizer
    /// answers without the table (an impossible WHERE, such as `c IS NULL` on a
    /// NOT NULL column) returns nothing and takes none. The snapshot may
    /// therefore come from any earlier read up to the first that returned
    /// rows, or, when none did, from this one. `kind` is the view the read ran
    /// on, `run` its run there.
    pub(super) fn later_snapshot_excuse(
        &self,
        scratch: &mut Scratch<'_>,
        model: &Model,
        trace: &Trace<'_>,
        step: &Step<'_>,
        kind: ViewKind,
        run: &ViewRun,
    ) -> Result<(), Stop> {
        let Outcome::Rows { rows: got, .. } = step.outcome() else {
            return Ok(());
        };
        let same = |want: &Outcome| match want {
            Outcome::Rows { rows, .. } => {
                let (a, b) = multiset_difference(rows, got);
                a.is_empty() && b.is_empty()
            }
            _ => false,
        };
        if same(&run.outcome) {
            return Ok(());
        }
        // The commit counts at which the snapshot may have been taken.
        let (at, t) = (step.at, step.t());
        let mut points = Vec::new();
        let mut touched = false;
        for (j, earlier) in trace.order.iter().enumerate() {
            if earlier.txn() != t || earlier.stmt() >= at.stmt() {
                continue;
            }
            let plain = matches!(self.case.statement(*earlier), Some(Statement::Select(x)) if x.lock == RowLock::None);
            if !plain {
                continue;
            }
            points.push(trace.states[j].commits);
            if matches!(
                self.history.record(*earlier).map(|r| &r.outcome),
                Some(Outcome::Rows { rows, .. }) if !rows.is_empty()
            ) {
                touched = true;
                break;
            }
        }
        if !touched {
            points.push(model.commits);
        }
        let taken = model.txns[t].snapshot;
        points.retain(|p| Some(*p) != taken);
        points.dedup();
        for point in points {
            let mut later = model.clone();
            later.txns[t].snapshot = Some(point);
            let view = later.view(t, kind);
            if view == run.before {
                continue;
            }
            if same(&scratch.run(step.level, &view, step.statement)?.outcome) {
                return Err(Stop::Undecided(format!(
                    "vendor-defined: {at} read what a snapshot taken at a later read of its transaction shows; the dialect declares that a read takes the snapshot only when it touches the table (InnoDB), and earlier reads the optimizer answered without the table (an impossible WHERE) take none"
                )));
            }
        }
        Ok(())
    }
}
