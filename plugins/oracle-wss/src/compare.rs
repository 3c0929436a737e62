//! Differences between the concurrent run and a serial run: table contents as
//! multisets of rows, and the outcomes of writes.

use crate::replay::Replay;
use crate::schedule::SerialTxn;
use serde::Serialize;
use txlab_plugin_api::prelude::*;

/// The two states cannot be compared: they do not describe the same tables. The
/// case has no DDL, so this is a host failure, not a finding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("table `{table}` is in the {present} state but not in the {absent} state")]
    MissingTable {
        table: String,
        present: &'static str,
        absent: &'static str,
    },
    #[error("table `{table}` has columns {concurrent:?} in the concurrent state but {serial:?} in the serial state")]
    Columns {
        table: String,
        concurrent: Vec<String>,
        serial: Vec<String>,
    },
}

impl From<CompareError> for PluginError {
    fn from(e: CompareError) -> Self {
        PluginError::invalid_input(e.to_string())
    }
}

/// Rows of one table that are not in both runs, counted with multiplicity.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableDiff {
    pub table: String,
    pub columns: Vec<String>,
    pub only_concurrent: Vec<Vec<Value>>,
    pub only_serial: Vec<Vec<Value>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeDiffKind {
    SucceededOnlyConcurrently,
    SucceededOnlySerially,
    ErrorClassDiffers,
    AffectedRowsDiffer,
}

/// A write whose outcome differs between the concurrent and the serial run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutcomeDiff {
    pub at: StatementRef,
    pub kind: OutcomeDiffKind,
    pub concurrent: Outcome,
    pub serial: Outcome,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Differences {
    pub tables: Vec<TableDiff>,
    pub outcomes: Vec<OutcomeDiff>,
}

impl Differences {
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty() && self.outcomes.is_empty()
    }
}

/// Per-table multiset differences; both states must be canonicalized.
pub fn compare_states(
    concurrent: &DbState,
    serial: &DbState,
) -> Result<Vec<TableDiff>, CompareError> {
    if let Some(extra) = serial
        .tables
        .iter()
        .find(|t| concurrent.table(&t.table).is_none())
    {
        return Err(CompareError::MissingTable {
            table: extra.table.clone(),
            present: "serial",
            absent: "concurrent",
        });
    }
    let mut diffs = Vec::new();
    for ours in &concurrent.tables {
        let theirs = serial
            .table(&ours.table)
            .ok_or_else(|| CompareError::MissingTable {
                table: ours.table.clone(),
                present: "concurrent",
                absent: "serial",
            })?;
        let serial_rows = aligned_rows(ours, theirs)?;
        let (only_concurrent, only_serial) = multiset_difference(&ours.rows, &serial_rows);
        if !only_concurrent.is_empty() || !only_serial.is_empty() {
            diffs.push(TableDiff {
                table: ours.table.clone(),
                columns: ours.columns.clone(),
                only_concurrent,
                only_serial,
            });
        }
    }
    Ok(diffs)
}

/// `serial`'s rows with columns in `concurrent`'s order, sorted canonically.
fn aligned_rows(
    concurrent: &TableState,
    serial: &TableState,
) -> Result<Vec<Vec<Value>>, CompareError> {
    if concurrent.columns == serial.columns {
        return Ok(serial.rows.clone());
    }
    let mismatch = || CompareError::Columns {
        table: concurrent.table.clone(),
        concurrent: concurrent.columns.clone(),
        serial: serial.columns.clone(),
    };
    if concurrent.columns.len() != serial.columns.len() {
        return Err(mismatch());
    }
    let positions = concurrent
        .columns
        .iter()
        .map(|c| {
            serial
                .columns
                .iter()
                .position(|s| s == c)
                .ok_or_else(mismatch)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows: Vec<Vec<Value>> = serial
        .rows
        .iter()
        .map(|r| positions.iter().map(|&p| r[p].clone()).collect())
        .collect();
    rows.sort_by(|a, b| cmp_rows(a, b));
    Ok(rows)
}

/// Writes of the replayed transactions whose outcomes differ. Reads are skipped:
/// WSS constrains only what writes do.
pub fn compare_outcomes(
    case: &TestCase,
    history: &History,
    schedule: &[SerialTxn],
    replay: &Replay,
    compare_affected_rows: bool,
) -> Vec<OutcomeDiff> {
    let mut diffs = Vec::new();
    for at in schedule.iter().flat_map(SerialTxn::refs) {
        if !case.statement(at).is_some_and(Statement::is_write) {
            continue;
        }
        let (Some(record), Some(serial)) = (history.record(at), replay.outcomes.get(&at)) else {
            continue;
        };
        let concurrent = &record.outcome;
        let kind = match (concurrent, serial) {
            (Outcome::Error(c), Outcome::Error(s)) if c.class != s.class => {
                Some(OutcomeDiffKind::ErrorClassDiffers)
            }
            (Outcome::Error(_), Outcome::Error(_)) => None,
            (Outcome::Error(_), s) if s.is_success() => {
                Some(OutcomeDiffKind::SucceededOnlySerially)
            }
            (c, Outcome::Error(_)) if c.is_success() => {
                Some(OutcomeDiffKind::SucceededOnlyConcurrently)
            }
            (Outcome::Affected { rows: c }, Outcome::Affected { rows: s })
                if compare_affected_rows && c != s =>
            {
                Some(OutcomeDiffKind::AffectedRowsDiffer)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            diffs.push(OutcomeDiff {
                at,
                kind,
                concurrent: concurrent.clone(),
                serial: serial.clone(),
            });
        }
    }
    diffs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: &[&str], rows: Vec<Vec<i64>>) -> DbState {
        let mut state = DbState {
            tables: vec![TableState {
                table: "t".into(),
                columns: columns.iter().map(|c| c.to_string()).collect(),
                rows: rows
                    .into_iter()
                    .map(|r| r.into_iter().map(Value::Int).collect())
                    .collect(),
            }],
        };
        state.canonicalize();
        state
    }

    #[test]
    fn rows_compare_as_multisets() {
        let a = table(&["k", "v"], vec![vec![1, 1], vec![1, 1], vec![2, 2]]);
        let b = table(&["k", "v"], vec![vec![2, 2], vec![1, 1], vec![3, 3]]);
        let diffs = compare_states(&a, &b).unwrap();
        assert_eq!(diffs.len(), 1);
        assert_eq!(
            diffs[0].only_concurrent,
            vec![vec![Value::Int(1), Value::Int(1)]]
        );
        assert_eq!(
            diffs[0].only_serial,
            vec![vec![Value::Int(3), Value::Int(3)]]
        );
        assert!(compare_states(&a, &a).unwrap().is_empty());
    }

    #[test]
    fn values_swapped_between_rows_differ() {
        let a = table(&["k", "v"], vec![vec![1, 2], vec![2, 1]]);
        let b = table(&["k", "v"], vec![vec![1, 1], vec![2, 2]]);
        assert_eq!(compare_states(&a, &b).unwrap().len(), 1);
    }

    #[test]
    fn columns_are_matched_by_name() {
        let a = table(&["k", "v"], vec![vec![1, 2]]);
        let b = table(&["v", "k"], vec![vec![2, 1]]);
        assert!(compare_states(&a, &b).unwrap().is_empty());
        let c = table(&["k", "w"], vec![vec![1, 2]]);
        assert!(matches!(
            compare_states(&a, &c),
            Err(CompareError::Columns { .. })
        ));
        let empty = DbState::default();
        assert!(matches!(
            compare_states(&a, &empty),
            Err(CompareError::MissingTable { .. })
        ));
        assert!(matches!(
            compare_states(&empty, &a),
            Err(CompareError::MissingTable { .. })
        ));
    }
}
