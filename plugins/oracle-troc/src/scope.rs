//! Whether a run is inside what the Troc model describes soundly. Everything
//! outside is undecided, with a reason that names the limit.

use txlab_plugin_api::prelude::*;

/// What the executor could not observe; any entry makes the run undecidable.
pub fn unobserved(case: &TestCase, history: &History) -> Vec<String> {
    let mut missing: Vec<String> = history
        .unobserved
        .iter()
        .map(|note| format!("the executor reported: {note}"))
        .collect();
    for (t, record) in history.transactions.iter().enumerate() {
        if record.end == TxnEnd::Unfinished {
            missing.push(format!("{} never finished", txn_label(t)));
        }
    }
    for record in history.statements.iter().flatten() {
        match &record.outcome {
            Outcome::NoReply => missing.push(format!(
                "{} ({}) got no reply, so its effect is unknown",
                record.at,
                kind_of(case, record.at)
            )),
            Outcome::Error(e) if e.class.is_unobservable() => missing.push(format!(
                "{} ({}) failed with {}, so its effect is unknown",
                record.at,
                kind_of(case, record.at),
                e.class
            )),
            _ => {}
        }
        if let Some(b) = &record.blocked {
            if b.evidence == BlockEvidence::Timeout {
                missing.push(format!(
                    "{} counted as blocked after a timeout the lock-wait probe did not confirm",
                    record.at
                ));
            }
        }
    }
    if history.final_state.is_none() {
        missing.push("the final state of the database was not read".into());
    }
    missing
}

/// Why the case is outside the model, if it is: Troc's model is two explicit
/// transactions on one table under pessimistic concurrency control, at levels
/// whose semantics the dialect's profile pins down.
pub fn outside(case: &TestCase, dialect: &DialectInfo) -> Option<String> {
    if case.transactions.len() != 2 {
        return Some(format!(
            "outside the model: Troc models exactly two transactions, the case has {}",
            case.transactions.len()
        ));
    }
    if case.schema.tables.len() != 1 {
        return Some(format!(
            "outside the model: Troc models one table, the case has {}",
            case.schema.tables.len()
        ));
    }
    for (t, txn) in case.transactions.iter().enumerate() {
        if txn.kind != TxnKind::Explicit {
            return Some(format!(
                "outside the model: {} is an autocommit statement, Troc models explicit transactions",
                txn_label(t)
            ));
        }
        let Some(semantics) = dialect.level(txn.isolation) else {
            return Some(format!(
                "outside the model: the dialect `{}` does not describe {}",
                dialect.name, txn.isolation
            ));
        };
        if semantics.write_conflict == WriteConflict::AbortAtCommit {
            return Some(format!(
                "outside the model: {} at {} detects write conflicts at commit (optimistic), Troc models pessimistic concurrency control",
                dialect.name, txn.isolation
            ));
        }
    }
    None
}

pub fn kind_of(case: &TestCase, at: StatementRef) -> &'static str {
    case.statement(at)
        .map_or("unknown statement", Statement::kind_name)
}
