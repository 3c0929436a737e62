//! Runs a serial schedule on the host's scratch database.

use crate::schedule::SerialTxn;
use std::collections::BTreeMap;
use txlab_plugin_api::prelude::*;

/// What a serial run did: each replayed statement's outcome and the final state.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    pub outcomes: BTreeMap<StatementRef, Outcome>,
    /// Canonicalized.
    pub state: DbState,
    /// The statement at which the serial run itself conflicted or lost track,
    /// with its outcome; the run stopped there.
    pub conflict: Option<(StatementRef, Outcome)>,
}

impl Replay {
    /// What went wrong at the statement the run stopped at, if it stopped.
    pub fn conflict_description(&self, case: &TestCase) -> Option<String> {
        let (at, outcome) = self.conflict.as_ref()?;
        let kind = case
            .statement(*at)
            .map_or("unknown statement", Statement::kind_name);
        let what = match outcome {
            Outcome::Error(e) => format!("failed with {e}"),
            Outcome::NoReply => "got no reply".to_string(),
            Outcome::NotSubmitted => "was not run".to_string(),
            other => format!("ended with {other:?}"),
        };
        Some(format!("{at} ({kind}) {what}"))
    }
}

/// Resets the scratch database to the case's initial state and runs `schedule`,
/// one session per transaction. Every session opened is closed, also when a
/// request fails; scratch-database failures come back as `Err`.
pub fn replay(
    db: &mut dyn HostDb,
    case: &TestCase,
    schedule: &[SerialTxn],
) -> Result<Replay, PluginError> {
    db.reset(&case.schema, &case.initial_rows)?;
    let mut outcomes = BTreeMap::new();
    let mut conflict = None;
    for txn in schedule {
        let session = db.open_session(txn.isolation)?;
        let ran = run_transaction(db, case, session, txn, &mut outcomes);
        let closed = db.close_session(session);
        conflict = ran?;
        closed?;
        if conflict.is_some() {
            break;
        }
    }
    let mut state = db.read_state()?;
    state.canonicalize();
    Ok(Replay {
        outcomes,
        state,
        conflict,
    })
}

/// stmt-WSS's serial run read off tx-WSS's, where the two must agree; `None`
/// where they need not. They agree when tx-WSS's run did not stop, its
/// transactions with statements to replay are exactly stmt-WSS's (every one
/// committed: tx-WSS also replays rolled-back ones) and a failed statement
/// keeps its transaction (`failed_statement_keeps_transaction`): on one
/// session at a time, with nothing else running, a statement inside its
/// transaction then sees and leaves what it would in autocommit, so the
/// outcomes of the statements and the final state are the same.
pub fn stmt_from_tx(
    case: &TestCase,
    tx: &Replay,
    tx_schedule: &[SerialTxn],
    stmt_schedule: &[SerialTxn],
) -> Option<Replay> {
    if tx.conflict.is_some() {
        return None;
    }
    let with_statements = |s: &[SerialTxn]| -> Vec<usize> {
        s.iter()
            .filter(|t| {
                t.refs()
                    .any(|at| case.statement(at).is_some_and(|s| !s.is_control()))
            })
            .map(|t| t.txn)
            .collect()
    };
    if with_statements(tx_schedule) != with_statements(stmt_schedule) {
        return None;
    }
    let wanted: std::collections::BTreeSet<StatementRef> =
        stmt_schedule.iter().flat_map(|t| t.refs()).collect();
    Some(Replay {
        outcomes: tx
            .outcomes
            .iter()
            .filter(|(at, _)| wanted.contains(at))
            .map(|(at, o)| (*at, o.clone()))
            .collect(),
        state: tx.state.clone(),
        conflict: None,
    })
}

/// Runs a transaction's statements in one request; the run stops at an
/// outcome that breaks it ([`Outcome::breaks_serial_run`]), returned.
fn run_transaction(
    db: &mut dyn HostDb,
    case: &TestCase,
    session: u32,
    txn: &SerialTxn,
    outcomes: &mut BTreeMap<StatementRef, Outcome>,
) -> Result<Option<(StatementRef, Outcome)>, PluginError> {
    let refs: Vec<StatementRef> = txn.refs().collect();
    let statements = refs
        .iter()
        .map(|&at| {
            case.statement(at).cloned().ok_or_else(|| {
                PluginError::internal(format!(
                    "the serial schedule names {at}, which does not exist"
                ))
            })
        })
        .collect::<Result<Vec<Statement>, _>>()?;
    let ran = db.execute_each(session, statements, true)?;
    let mut conflict = None;
    for (at, outcome) in refs.into_iter().zip(ran) {
        if outcome.breaks_serial_run() {
            conflict = Some((at, outcome.clone()));
        }
        outcomes.insert(at, outcome);
    }
    Ok(conflict)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Variant;
    use crate::schedule::serial_schedule;
    use txlab_testkit::{random_case, serial_history, MemoryDb};

    /// Where stmt-WSS's run is read off tx-WSS's, it is what replaying it
    /// gives, failed statements included, over random cases (the in-memory
    /// database keeps a transaction going after a failed statement).
    #[test]
    fn a_shared_serial_run_is_what_replaying_stmt_wss_gives() {
        let (mut shared, mut failed, mut refused) = (0, 0, 0);
        for seed in 0..300 {
            let case = random_case(seed);
            let order: Vec<usize> = (0..case.transactions.len()).collect();
            let history = serial_history(&case, &order);
            let tx_schedule = serial_schedule(Variant::Tx, &case, &history, &order);
            let stmt_schedule = serial_schedule(Variant::Stmt, &case, &history, &order);
            let tx = replay(&mut MemoryDb::new(), &case, &tx_schedule).unwrap();
            let stmt = replay(&mut MemoryDb::new(), &case, &stmt_schedule).unwrap();
            match stmt_from_tx(&case, &tx, &tx_schedule, &stmt_schedule) {
                Some(derived) => {
                    assert_eq!(derived, stmt, "seed {seed}");
                    shared += 1;
                    failed += stmt
                        .outcomes
                        .values()
                        .filter(|o| matches!(o, Outcome::Error(_)))
                        .count();
                }
                None => refused += 1,
            }
        }
        assert!(
            shared > 100 && refused > 0,
            "{shared} shared, {refused} not"
        );
        assert!(failed > 0, "no replayed statement failed");
    }
}
