//! What the walk reports: the differences between the real run and the model.

use crate::versions::Row;
use serde::Serialize;
use txlab_plugin_api::prelude::*;

/// What kind of difference between the real run and the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    /// A SELECT returned other rows than on its view.
    QueryResult,
    /// A statement succeeded in one run and failed in the other.
    Outcome,
    /// A write changed another number of rows than on its view.
    AffectedRows,
    /// A statement went through although the other transaction held a lock on
    /// a row it must lock.
    MissingLock,
    /// A write succeeded although the level must fail it (first updater wins,
    /// stale writer).
    MissingAbort,
    /// The final table differs from the latest committed versions.
    FinalState,
    /// A snapshot read showed the snapshot's version of a row its own
    /// transaction's same-value UPDATE wrote, as the vendor documents it
    /// (InnoDB, TiDB: MDEV-26642, TiDB#28212), where the standard model shows
    /// the transaction its own write: a vendor-permitted anomaly.
    SameValueSnapshot,
    /// A write over a row version another transaction committed after this
    /// one's snapshot, where this one had read the row at its snapshot: a
    /// lost update (G-single), forbidden at REPEATABLE READ by the standard
    /// model, allowed by the vendor where writes read the latest committed
    /// rows (InnoDB's current read): a vendor-permitted anomaly.
    LostUpdate,
    /// An UPDATE that waited for a lock skipped a row the other transaction
    /// held whose last committed version did not match its WHERE clause,
    /// and read the rows after the one it waited for only once that
    /// transaction had ended: InnoDB's semi-consistent read at READ
    /// COMMITTED and READ UNCOMMITTED (MySQL manual; MDEV-26643,
    /// MySQL#104833), where the model has the statement read the latest
    /// committed rows when it completes: a vendor-permitted anomaly.
    SemiConsistentRead,
    /// A write or locking read that waited for a lock did not see a row
    /// that came to lie before the row it waited for (inserted, or moved
    /// there by a key change) while it waited: InnoDB scans the clustered
    /// index in order and, without gap locks at READ COMMITTED and READ
    /// UNCOMMITTED, rows behind the scan position are not read again (MySQL
    /// manual: "phantom problems may occur"), where the model has the
    /// statement read the latest committed rows when it completes: a
    /// vendor-permitted anomaly.
    PassedBeforeWait,
    /// A statement that waited for a lock acted on the rows of the snapshot
    /// it started with, re-checking only the rows the other transaction
    /// changed, so rows that only the newer state holds or matches were not
    /// seen: PostgreSQL's READ COMMITTED (EvalPlanQual), where the model has
    /// the statement read the latest committed rows when it completes: a
    /// vendor-permitted anomaly.
    RecheckAfterWait,
}

impl DiffKind {
    pub fn title(self) -> &'static str {
        match self {
            DiffKind::QueryResult => "inconsistent query result",
            DiffKind::Outcome => "inconsistent statement outcome",
            DiffKind::AffectedRows => "inconsistent affected-row count",
            DiffKind::MissingLock => "missing lock",
            DiffKind::MissingAbort => "missing abort",
            DiffKind::FinalState => "inconsistent final database state",
            DiffKind::SameValueSnapshot => {
                "own same-value UPDATE not seen by a snapshot read (MDEV-26642)"
            }
            DiffKind::LostUpdate => "lost update: a write over a row changed after the snapshot",
            DiffKind::SemiConsistentRead => {
                "semi-consistent read: an UPDATE that waited skipped a row whose last committed version did not match"
            }
            DiffKind::PassedBeforeWait => {
                "phantom behind a wait: a statement that waited did not see a row that appeared before its scan position"
            }
            DiffKind::RecheckAfterWait => {
                "re-check after a wait: a statement that waited kept its starting snapshot's rows, re-checking only the changed ones"
            }
        }
    }

    /// Forbidden by the standard model, allowed by the vendor's
    /// documentation: never a finding of the vendor's semantics.
    pub fn is_vendor_permitted(self) -> bool {
        matches!(
            self,
            DiffKind::SameValueSnapshot
                | DiffKind::LostUpdate
                | DiffKind::SemiConsistentRead
                | DiffKind::PassedBeforeWait
                | DiffKind::RecheckAfterWait
        )
    }
}

/// One difference, with what the model expected and what the run did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    pub kind: DiffKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<StatementRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<IsolationLevel>,
    /// The view the statement ran on, in words.
    pub view: String,
    pub expected: String,
    pub actual: String,
    /// Rows of the view, or of the final state, for the report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub view_rows: Vec<Row>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_expected: Vec<Row>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_actual: Vec<Row>,
}

/// Rows in the canonical order, for reports.
pub fn sorted(mut rows: Vec<Row>) -> Vec<Row> {
    rows.sort_by(|a, b| cmp_rows(a, b));
    rows
}
