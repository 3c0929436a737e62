//! Which view a statement reads and writes on (visibility rules V1–V4 as the
//! profile of its level says), and the alternative view the profile also
//! allows: the latest committed rows for a dirty read, or a snapshot in which
//! a same-value UPDATE made no version.

use super::statement::Step;
use super::{Stop, Walk};
use crate::config::SameValueSetting;
use crate::scratch::ViewRun;
use crate::versions::{diff, Model, View, ViewKind};
use txlab_plugin_api::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Choice {
    Dirty,
    Latest,
    Snapshot,
}

/// Chooses the view a statement reads and writes on.
fn view_choice(semantics: &LevelSemantics, statement: &Statement, has_snapshot: bool) -> Choice {
    match statement {
        Statement::Select(s) if s.lock == RowLock::None => match semantics.snapshot {
            SnapshotPoint::None => Choice::Dirty,
            SnapshotPoint::PerStatement => Choice::Latest,
            _ if has_snapshot => Choice::Snapshot,
            _ => Choice::Latest,
        },
        Statement::Insert(_) => Choice::Latest,
        _ => match semantics.write_reads {
            WriteReads::LatestCommitted => Choice::Latest,
            WriteReads::Snapshot if has_snapshot => Choice::Snapshot,
            WriteReads::Snapshot => Choice::Latest,
        },
    }
}

/// The view a statement runs on, and the other one the profile allows.
pub(super) struct Views {
    pub choice: Choice,
    /// The kind of `view`.
    pub primary: ViewKind,
    pub view: View,
    /// Another view the statement may equally have read, when it differs from
    /// `view`.
    pub alternative: Option<View>,
    /// The standard model's view, when the vendor's differs from it: the
    /// snapshot in which the transaction's own same-value UPDATE made a
    /// version (a transaction sees its own writes), where the profile says it
    /// makes none.
    pub standard: Option<View>,
}

/// The statement's runs on its [`Views`].
pub(super) struct ViewRuns {
    pub run: ViewRun,
    pub alternative: Option<ViewRun>,
    /// A plain read's run on the standard view, when there is one.
    pub standard: Option<ViewRun>,
}

impl Walk<'_> {
    pub(super) fn views(&self, model: &Model, step: &Step<'_>) -> Views {
        let t = step.t();
        let has_snapshot = model.txns[t].snapshot.is_some();
        let choice = view_choice(step.semantics, step.statement, has_snapshot);
        let (primary, alternative_kind) = match choice {
            // Reads "may" see uncommitted data: the committed version is allowed too.
            Choice::Dirty => (ViewKind::Dirty, Some(ViewKind::LatestCommitted)),
            Choice::Latest => (ViewKind::LatestCommitted, None),
            Choice::Snapshot => match self.config.same_value_update.resolve(self.dialect) {
                SameValueSetting::NewVersion => (
                    ViewKind::Snapshot {
                        same_value_is_version: true,
                    },
                    None,
                ),
                SameValueSetting::NoVersion => (
                    ViewKind::Snapshot {
                        same_value_is_version: false,
                    },
                    None,
                ),
                SameValueSetting::Ambiguous | SameValueSetting::Profile => (
                    ViewKind::Snapshot {
                        same_value_is_version: true,
                    },
                    Some(ViewKind::Snapshot {
                        same_value_is_version: false,
                    }),
                ),
            },
        };
        let view = model.view(t, primary);
        let alternative = alternative_kind
            .map(|k| model.view(t, k))
            .filter(|v| v != &view);
        let standard = (primary
            == ViewKind::Snapshot {
                same_value_is_version: false,
            })
        .then(|| {
            model.view(
                t,
                ViewKind::Snapshot {
                    same_value_is_version: true,
                },
            )
        })
        .filter(|v| v != &view);
        Views {
            choice,
            primary,
            view,
            alternative,
            standard,
        }
    }

    /// A write whose outcome or effect depends on whether a same-value UPDATE
    /// made a version is undecided.
    pub(super) fn same_value_write(&self, step: &Step<'_>, runs: &ViewRuns) -> Result<(), Stop> {
        let (run, Some(alt)) = (&runs.run, &runs.alternative) else {
            return Ok(());
        };
        if step.statement.is_write()
            && (alt.outcome != run.outcome
                || diff(&alt.before, &alt.after, &alt.matched)
                    != diff(&run.before, &run.after, &run.matched))
        {
            return Err(Stop::Undecided(same_value_reason(step.at)));
        }
        Ok(())
    }
}

pub(super) fn same_value_reason(at: StatementRef) -> String {
    format!(
        "vendor-defined: the result depends on whether a same-value UPDATE makes a new row version for the updater's snapshot reads (InnoDB and TiDB keep the snapshot's version, MDEV-26642, closed as a design decision; Troc assumes a new version): {at}"
    )
}
