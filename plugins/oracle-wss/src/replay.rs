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

/// Whether an outcome of a serial run means the run cannot serve as the model:
/// serial transactions never conflict, and an unobserved statement has an
/// unknown effect.
fn conflicts(outcome: &Outcome) -> bool {
    match outcome {
        Outcome::NoReply | Outcome::NotSubmitted => true,
        Outcome::Error(e) => e.class.is_concurrency() || e.class.is_unobservable(),
        _ => false,
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

fn run_transaction(
    db: &mut dyn HostDb,
    case: &TestCase,
    session: u32,
    txn: &SerialTxn,
    outcomes: &mut BTreeMap<StatementRef, Outcome>,
) -> Result<Option<(StatementRef, Outcome)>, PluginError> {
    for at in txn.refs() {
        let statement = case.statement(at).ok_or_else(|| {
            PluginError::internal(format!(
                "the serial schedule names {at}, which does not exist"
            ))
        })?;
        let outcome = db.execute(session, statement)?;
        outcomes.insert(at, outcome.clone());
        if conflicts(&outcome) {
            return Ok(Some((at, outcome)));
        }
    }
    Ok(None)
}
