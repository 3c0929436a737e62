//! What a measured run counts per worker: where the time went (the phase
//! clock, [`crate::phases`]), the cases and transactions that ran and were
//! checked, and how long each blocked statement took to be known as blocked.

use super::worker::CaseResult;
use crate::phases::PhaseTotals;
use txlab_plugin_api::ir::{BlockEvidence, History};

/// One worker's measurements over a run.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    pub phases: PhaseTotals,
    /// Cases that ran to a result (tool errors not counted).
    pub cases: u64,
    /// Transactions of those cases that sent at least one statement.
    pub txns_executed: u64,
    /// Of those, the transactions of cases every oracle judged (no oracle
    /// error, no undecided verdict).
    pub txns_checked: u64,
    pub cases_checked: u64,
    /// Submission of a statement that blocked to the probe confirming it,
    /// µs, for every block the probe confirmed.
    pub block_detect_us: Vec<u64>,
    /// Blocks assumed after the fallback timeout.
    pub blocks_by_timeout: u64,
}

impl Measured {
    pub(super) fn count(&mut self, result: &CaseResult) {
        let executed = executed_transactions(&result.history);
        self.cases += 1;
        self.txns_executed += executed;
        if result.judged > 0 && result.oracle_errors.is_empty() && result.undecided.is_empty() {
            self.cases_checked += 1;
            self.txns_checked += executed;
        }
        for record in result.history.statements.iter().flatten() {
            let Some(blocked) = &record.blocked else {
                continue;
            };
            match blocked.evidence {
                BlockEvidence::Probe => self.block_detect_us.push(
                    blocked
                        .detected_us
                        .saturating_sub(record.submitted_us.unwrap_or(0)),
                ),
                _ => self.blocks_by_timeout += 1,
            }
        }
    }

    /// Adds another worker's measurements.
    pub fn merge(&mut self, other: &Measured) {
        self.phases.merge(&other.phases);
        self.cases += other.cases;
        self.txns_executed += other.txns_executed;
        self.txns_checked += other.txns_checked;
        self.cases_checked += other.cases_checked;
        self.block_detect_us
            .extend_from_slice(&other.block_detect_us);
        self.blocks_by_timeout += other.blocks_by_timeout;
    }
}

/// Transactions of which at least one statement was sent.
pub fn executed_transactions(history: &History) -> u64 {
    history
        .statements
        .iter()
        .filter(|txn| txn.iter().any(|s| s.submitted_us.is_some()))
        .count() as u64
}
