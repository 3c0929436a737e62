//! The table at both ends of the run: the initial rows the chains start from,
//! and the final state the latest committed versions must match.

use super::difference::sorted;
use super::{DiffKind, Difference, Stop, Walk};
use crate::scratch::Scratch;
use crate::versions::{Model, Row, View};
use txlab_plugin_api::prelude::*;

impl Walk<'_> {
    /// The case's initial rows of the table, by row id, as the DBMS stores them.
    pub(super) fn initial_view(&self, scratch: &mut Scratch<'_>) -> Result<View, Stop> {
        let rows: Vec<TableRows> = self
            .case
            .initial_rows
            .iter()
            .filter(|r| r.table == self.table.name)
            .cloned()
            .collect();
        // Load the initial rows and read them back, so that the chains hold values
        // as the DBMS stores them.
        let mut view = View::new();
        for r in &rows {
            for values in &r.rows {
                let mut row = vec![Value::Null; self.table.columns.len()];
                for (name, v) in r.columns.iter().zip(values) {
                    if let Some(p) = self.table.columns.iter().position(|c| &c.name == name) {
                        row[p] = v.clone();
                    }
                }
                let Value::Int(rid) = row[self.rid] else {
                    return Err(Stop::Undecided(
                        "an initial row has no row id: the case was not prepared by troc".into(),
                    ));
                };
                view.insert(rid, row);
            }
        }
        Ok(scratch.normalise(&view)?)
    }

    /// The final table must hold the latest committed version of every row.
    pub(super) fn final_state(&self, model: &Model, out: &mut Vec<Difference>) {
        let Some(state) = self
            .history
            .final_state
            .as_ref()
            .and_then(|s| s.table(&self.table.name))
        else {
            return;
        };
        let positions: Option<Vec<usize>> = self
            .table
            .columns
            .iter()
            .map(|c| state.columns.iter().position(|n| n == &c.name))
            .collect();
        let Some(positions) = positions else {
            return;
        };
        let actual: Vec<Row> = state
            .rows
            .iter()
            .map(|r| positions.iter().map(|&p| r[p].clone()).collect())
            .collect();
        let expected: Vec<Row> = model.committed_state().into_values().collect();
        let (only_expected, only_actual) = multiset_difference(&expected, &actual);
        if !only_expected.is_empty() || !only_actual.is_empty() {
            out.push(Difference {
                kind: DiffKind::FinalState,
                at: None,
                level: None,
                view: "the latest committed version of every row".into(),
                expected: RowsText(&sorted(expected)).to_string(),
                actual: RowsText(&sorted(actual)).to_string(),
                view_rows: vec![],
                only_expected,
                only_actual,
            });
        }
    }
}
