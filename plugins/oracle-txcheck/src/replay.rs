//! Algorithm 1 of the paper: run the sorted units without transactions on the
//! scratch database and compare each statement's result and the final state
//! with the transactional run.

use crate::units::Unit;
use std::collections::BTreeMap;
use txlab_plugin_api::prelude::*;

/// What the run without transactions did.
pub struct Replay {
    pub outcomes: BTreeMap<StatementRef, Outcome>,
    pub state: DbState,
}

/// Resets the scratch database to the case's initial rows and runs every
/// statement of `order`'s units in autocommit, one session per isolation
/// level (a statement runs at its transaction's level, without BEGIN).
pub fn replay(
    db: &mut dyn HostDb,
    case: &TestCase,
    units: &[Unit],
    order: &[usize],
) -> Result<Replay, PluginError> {
    db.reset(&case.schema, &case.initial_rows)?;
    let mut sessions: BTreeMap<IsolationLevel, u32> = BTreeMap::new();
    let mut outcomes = BTreeMap::new();
    let mut ran = || -> Result<(), PluginError> {
        for &u in order {
            let level = case.transactions[units[u].txn].isolation;
            let session = match sessions.get(&level) {
                Some(&s) => s,
                None => {
                    let s = db.open_session(level)?;
                    sessions.insert(level, s);
                    s
                }
            };
            // A unit's statements in one request.
            let refs: Vec<StatementRef> = units[u].refs().collect();
            let statements = refs
                .iter()
                .map(|&at| {
                    case.statement(at)
                        .expect("units name statements of the case")
                        .clone()
                })
                .collect();
            let ran = db.execute_each(session, statements, false)?;
            outcomes.extend(refs.into_iter().zip(ran));
        }
        Ok(())
    };
    let result = ran();
    for (_, session) in sessions {
        db.close_session(session)?;
    }
    result?;
    let mut state = db.read_state()?;
    state.canonicalize();
    Ok(Replay { outcomes, state })
}

/// A value as the comparison sees it: floats rounded to two decimals, as
/// TxCheck does, so that a sum computed in another order compares equal.
fn normalized(v: &Value) -> Value {
    match v {
        Value::Float(f) => Value::Float((f * 100.0).round() / 100.0),
        other => other.clone(),
    }
}

fn sorted_rows(rows: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut rows: Vec<Vec<Value>> = rows
        .iter()
        .map(|r| r.iter().map(normalized).collect())
        .collect();
    rows.sort_by(|a, b| cmp_rows(a, b));
    rows
}

/// Whether two outcomes agree: rows as multisets, affected counts equal,
/// errors by presence only (the messages of two failures may differ).
pub fn same_outcome(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Rows { rows: x, .. }, Outcome::Rows { rows: y, .. }) => {
            sorted_rows(x) == sorted_rows(y)
        }
        (Outcome::Affected { rows: x }, Outcome::Affected { rows: y }) => x == y,
        (Outcome::Error(_), Outcome::Error(_)) => true,
        (Outcome::Done, Outcome::Done) => true,
        _ => false,
    }
}

/// One table whose rows differ between the two runs.
#[derive(Clone, Debug, PartialEq)]
pub struct TableDiff {
    pub table: String,
    /// Rows only the transactional run left.
    pub only_transactional: Vec<Vec<Value>>,
    /// Rows only the run without transactions left.
    pub only_replayed: Vec<Vec<Value>>,
}

/// The tables whose rows differ, as multisets.
pub fn compare_states(transactional: &DbState, replayed: &DbState) -> Vec<TableDiff> {
    let mut diffs = Vec::new();
    for t in &transactional.tables {
        let other = replayed
            .table(&t.table)
            .map(|o| o.rows.as_slice())
            .unwrap_or(&[]);
        let mut left = sorted_rows(&t.rows);
        let mut right = sorted_rows(other);
        let mut only_left = Vec::new();
        // Remove common rows pairwise (multiset difference).
        left.retain(|row| match right.iter().position(|r| r == row) {
            Some(i) => {
                right.remove(i);
                false
            }
            None => true,
        });
        only_left.append(&mut left);
        if !only_left.is_empty() || !right.is_empty() {
            diffs.push(TableDiff {
                table: t.table.clone(),
                only_transactional: only_left,
                only_replayed: right,
            });
        }
    }
    diffs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_compare_as_multisets_with_floats_rounded() {
        let rows = |r: Vec<Vec<Value>>| Outcome::Rows {
            columns: vec!["a".into()],
            rows: r,
        };
        let a = rows(vec![vec![Value::Float(0.1 + 0.2)], vec![Value::Int(1)]]);
        let b = rows(vec![vec![Value::Int(1)], vec![Value::Float(0.3)]]);
        assert!(same_outcome(&a, &b));
        let c = rows(vec![vec![Value::Int(1)], vec![Value::Int(1)]]);
        assert!(!same_outcome(&b, &c));
        assert!(!same_outcome(
            &Outcome::Affected { rows: 1 },
            &Outcome::Affected { rows: 2 }
        ));
        let err = |m: &str| {
            Outcome::Error(DbError {
                class: ErrorClass::Constraint,
                scope: ErrorScope::Statement,
                code: None,
                sqlstate: None,
                message: m.into(),
            })
        };
        assert!(same_outcome(&err("a"), &err("b")));
        assert!(!same_outcome(&err("a"), &Outcome::Affected { rows: 0 }));
    }

    #[test]
    fn states_differ_by_the_rows_only_one_side_has() {
        let state = |rows: Vec<i64>| DbState {
            tables: vec![TableState {
                table: "t".into(),
                columns: vec!["a".into()],
                rows: rows.into_iter().map(|v| vec![Value::Int(v)]).collect(),
            }],
        };
        assert!(compare_states(&state(vec![1, 2, 2]), &state(vec![2, 1, 2])).is_empty());
        let diffs = compare_states(&state(vec![1, 2, 2]), &state(vec![2, 3]));
        assert_eq!(diffs.len(), 1);
        assert_eq!(
            diffs[0].only_transactional,
            vec![vec![Value::Int(1)], vec![Value::Int(2)]]
        );
        assert_eq!(diffs[0].only_replayed, vec![vec![Value::Int(3)]]);
    }
}
