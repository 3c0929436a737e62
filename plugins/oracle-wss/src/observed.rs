//! Whether the run is one the WSS model can judge.

use txlab_plugin_api::prelude::*;

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
                    case.kind_name(record.at),
                    txn_label(t)
                )),
                Outcome::Error(e)
                    if e.class.is_concurrency()
                        && case.statement(record.at).is_some_and(Statement::is_write) =>
                {
                    reasons.push(format!(
                        "{} ({}) failed with {} but {} went on; a serial run cannot reproduce a failure caused by concurrency",
                        record.at,
                        case.kind_name(record.at),
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
