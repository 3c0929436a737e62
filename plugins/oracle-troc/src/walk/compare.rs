//! The statement's real outcome against its run on its view: the rows a
//! SELECT returned, the affected-row count of a write, success or failure.

use super::difference::sorted;
use super::statement::Step;
use super::views::{same_value_reason, ViewRuns, Views};
use super::{DiffKind, Difference, Stop, Walk};
use crate::versions::{Model, Row, ViewKind};
use txlab_plugin_api::prelude::*;

/// What a statement is compared with.
struct Against<'c> {
    model: &'c Model,
    step: &'c Step<'c>,
    views: &'c Views,
    runs: &'c ViewRuns,
}

impl Against<'_> {
    fn difference(&self, kind: DiffKind, expected: String, actual: String) -> Difference {
        Difference {
            kind,
            at: Some(self.step.at),
            level: Some(self.step.level),
            view: self.views.primary.describe().into(),
            expected,
            actual,
            view_rows: self.views.view.values().cloned().collect(),
            only_expected: vec![],
            only_actual: vec![],
        }
    }

    /// The expected and actual outcomes, as a difference of `kind`.
    fn outcomes(&self, kind: DiffKind) -> Difference {
        self.difference(
            kind,
            format!("it {}", self.runs.run.outcome),
            format!("it {}", self.step.outcome()),
        )
    }
}

impl Walk<'_> {
    pub(super) fn compare(
        &self,
        model: &Model,
        step: &Step<'_>,
        views: &Views,
        runs: &ViewRuns,
        out: &mut Vec<Difference>,
    ) -> Result<(), Stop> {
        let c = Against {
            model,
            step,
            views,
            runs,
        };
        let at = step.at;
        match (step.outcome(), &runs.run.outcome) {
            (Outcome::Error(_), Outcome::Error(_)) => Ok(()),
            (
                Outcome::Rows {
                    rows: got,
                    columns: got_columns,
                },
                Outcome::Rows {
                    rows: want,
                    columns: want_columns,
                },
            ) => {
                if !self.config.compare_query_results {
                    return Ok(());
                }
                if got_columns != want_columns {
                    // Not a result of this statement as written: the executor did
                    // not observe the read correctly (seen with a prepared
                    // statement whose column list went stale after a schema change).
                    return Err(Stop::Undecided(format!(
                        "the real run's result has other columns than the statement projects: {at} returned {got_columns:?}, expected {want_columns:?}"
                    )));
                }
                // A read changes nothing: after a difference the walk goes on.
                out.extend(self.compare_rows(&c, got, want)?);
                Ok(())
            }
            (Outcome::Affected { rows: got }, Outcome::Affected { rows: want }) => {
                if got == want || !self.config.compare_write_outcomes {
                    return Ok(());
                }
                if model.replaced_a_row {
                    return Err(Stop::Undecided(replace_reason(at)));
                }
                out.push(c.outcomes(DiffKind::AffectedRows));
                Err(Stop::Differs)
            }
            (Outcome::Error(e), want) if want.is_success() => {
                let excused = self.order_or_snapshot_excuse(&c);
                if !matches!(e.class, ErrorClass::Constraint | ErrorClass::Data) {
                    return Err(Stop::Undecided(format!(
                        "a statement failed with an error of class `{}`, which the model cannot reproduce on its view: {at} {}",
                        e.class,
                        step.outcome()
                    )));
                }
                if let Some(why) = excused {
                    return Err(Stop::Undecided(why));
                }
                if !self.config.compare_write_outcomes && step.statement.is_write() {
                    return Err(Stop::Undecided(format!(
                        "a write failed only in the real run and write outcomes are not compared: {at}"
                    )));
                }
                out.push(c.outcomes(DiffKind::Outcome));
                Err(Stop::Differs)
            }
            (got, Outcome::Error(e)) if got.is_success() => {
                if e.class.is_concurrency() || e.class.is_unobservable() {
                    return Err(Stop::Undecided(format!(
                        "the statement failed with {} when run alone on its view: {at}",
                        e.class
                    )));
                }
                if let Some(why) = self.order_or_snapshot_excuse(&c) {
                    return Err(Stop::Undecided(why));
                }
                if !self.config.compare_write_outcomes && step.statement.is_write() {
                    return Err(Stop::Undecided(format!(
                        "a write failed only on its view and write outcomes are not compared: {at}"
                    )));
                }
                out.push(c.outcomes(DiffKind::Outcome));
                Err(Stop::Differs)
            }
            (got, want) => Err(Stop::Undecided(format!(
                "the real run and the view run of {at} answered differently in kind: {got} vs {want}"
            ))),
        }
    }

    /// The rows a read returned against the rows of its view run, with the
    /// alternative view the profile allows and the vendor-defined reasons a
    /// read may differ.
    fn compare_rows(
        &self,
        c: &Against<'_>,
        got: &[Row],
        want: &[Row],
    ) -> Result<Option<Difference>, Stop> {
        let at = c.step.at;
        let dirty = c.views.primary == ViewKind::Dirty;
        let (only_expected, only_actual) = multiset_difference(want, got);
        if only_expected.is_empty() && only_actual.is_empty() {
            // The vendor's reading; where the standard model's differs, it is
            // a vendor-permitted anomaly.
            if let Some(Outcome::Rows { rows: standard, .. }) =
                c.runs.standard.as_ref().map(|r| &r.outcome)
            {
                let (only_standard, only_here) = multiset_difference(standard, got);
                if !only_standard.is_empty() || !only_here.is_empty() {
                    let mut d = c.difference(
                        DiffKind::SameValueSnapshot,
                        format!(
                            "{} (the standard model: a transaction sees its own writes, so its snapshot shows the rows its same-value UPDATE wrote)",
                            RowsText(&sorted(standard.clone()))
                        ),
                        format!(
                            "{} (the vendor's: a same-value UPDATE changes nothing, so the snapshot's version stays)",
                            RowsText(&sorted(got.to_vec()))
                        ),
                    );
                    d.only_expected = only_standard;
                    d.only_actual = only_here;
                    return Ok(Some(d));
                }
            }
            return Ok(None);
        }
        if let Some(Outcome::Rows { rows: alt, .. }) =
            c.runs.alternative.as_ref().map(|r| &r.outcome)
        {
            let (a, b) = multiset_difference(alt, got);
            if a.is_empty() && b.is_empty() {
                if dirty {
                    return Ok(None);
                }
                return Err(Stop::Undecided(same_value_reason(at)));
            }
            if dirty {
                return Err(Stop::Undecided(format!(
                    "read uncommitted: a read matches neither the latest versions nor the latest committed ones, and the profile lets it read any version of each row: {at}"
                )));
            }
        }
        if dirty && self.dialect.engine.dirty_reads_see_partial_writes {
            if let Some(w) = self.write_in_flight(at, c.step.record) {
                return Err(Stop::Undecided(format!(
                    "read uncommitted: {at} ran while {w} of the other transaction was waiting for a lock, and a waiting write may already have changed the rows it reached first, which a dirty read sees"
                )));
            }
        }
        if c.model.replaced_a_row {
            return Err(Stop::Undecided(replace_reason(at)));
        }
        let mut d = c.difference(
            DiffKind::QueryResult,
            RowsText(&sorted(want.to_vec())).to_string(),
            RowsText(&sorted(got.to_vec())).to_string(),
        );
        d.only_expected = only_expected;
        d.only_actual = only_actual;
        Ok(Some(d))
    }

    /// Why a success/failure difference may not be a bug: the DBMS checks unique
    /// keys row by row in an order the scratch table need not share, or against
    /// rows that are newer than the snapshot the statement reads.
    fn order_or_snapshot_excuse(&self, c: &Against<'_>) -> Option<String> {
        let (at, run) = (c.step.at, &c.runs.run);
        let keyed = !self.table.primary_key.is_empty()
            || !self.table.unique.is_empty()
            || self.table.indexes.iter().any(|i| i.unique);
        if !keyed {
            return None;
        }
        if matches!(c.step.statement, Statement::Update(_)) && run.matched.len() > 1 {
            return Some(format!(
                "an UPDATE of several rows of a table with unique keys succeeded in one run and failed in the other; unique keys are checked row by row in an order the model does not know: {at}"
            ));
        }
        if c.step.semantics.write_reads == WriteReads::Snapshot
            && c.model.view(at.txn(), ViewKind::LatestCommitted) != run.before
        {
            return Some(format!(
                "a write at a level that reads its snapshot succeeded in one run and failed in the other while newer committed rows exist; unique keys are checked against those: {at}"
            ));
        }
        None
    }
}

fn replace_reason(at: StatementRef) -> String {
    format!(
        "vendor-defined: a REPLACE replaced a row earlier; the dialect declares that the DBMS may perform it as an update of the same row (InnoDB), not as the delete and insert the model follows, and snapshots and later writes see that row differently ({at})"
    )
}
