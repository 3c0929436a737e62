//! Whether the history is complete enough for the WSS model to apply.

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
            missing.push(format!(
                "{} never finished, so its place in the commit order is unknown",
                txn_label(t)
            ));
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
                "{} ({}) failed with {}, so its effect is unknown: {}",
                record.at,
                kind_of(case, record.at),
                e.class,
                e.message
            )),
            _ => {}
        }
    }
    if history.final_state.is_none() {
        missing.push("the final state of the database was not read".into());
    }
    missing
}

/// Statements of transactions that did not abort whose outcome no serial run can
/// reproduce: a write that failed because of concurrency (the transaction went
/// on without it), or a statement never sent.
pub fn outside_model(case: &TestCase, history: &History) -> Vec<String> {
    let mut reasons = Vec::new();
    for (t, txn) in history.transactions.iter().enumerate() {
        if matches!(txn.end, TxnEnd::Aborted { .. } | TxnEnd::Unfinished) {
            continue;
        }
        for record in &history.statements[t] {
            match &record.outcome {
                Outcome::NotSubmitted => reasons.push(format!(
                    "{} ({}) was never sent although {} did not abort",
                    record.at,
                    kind_of(case, record.at),
                    txn_label(t)
                )),
                Outcome::Error(e)
                    if e.class.is_concurrency()
                        && case.statement(record.at).is_some_and(Statement::is_write) =>
                {
                    reasons.push(format!(
                        "{} ({}) failed with {} but {} went on; a serial run cannot reproduce a failure caused by concurrency",
                        record.at,
                        kind_of(case, record.at),
                        e.class,
                        txn_label(t)
                    ))
                }
                _ => {}
            }
        }
    }
    reasons
}

pub fn kind_of(case: &TestCase, at: StatementRef) -> &'static str {
    case.statement(at)
        .map_or("unknown statement", Statement::kind_name)
}
