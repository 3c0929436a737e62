//! The run's tallies: what `summary.json` and the closing lines report.

use std::collections::BTreeMap;
use std::path::PathBuf;
use txlab_plugin_api::ir::*;

/// What a run did. Every case counts in exactly one of `passed`,
/// `cases_with_findings`, `cases_with_anomalies`, `undecided` and `errors`
/// (in that order of precedence), by the verdicts of the
/// oracles that judged it; an oracle that failed on a case is counted in
/// `oracle_errors` instead and leaves the others' verdicts as they are.
#[derive(Debug, Default, serde::Serialize)]
pub struct RunSummary {
    pub run_dir: PathBuf,
    pub seed: u64,
    pub cases: u64,
    pub passed: u64,
    /// Cases with at least one finding.
    pub cases_with_findings: u64,
    pub findings: u64,
    /// Cases some oracle could not decide, by reason.
    pub undecided: u64,
    pub undecided_reasons: BTreeMap<String, u64>,
    /// Findings by oracle and signature: how many distinct problems a run saw.
    pub finding_kinds: BTreeMap<String, u64>,
    /// Cases without findings that showed a vendor-permitted anomaly: one the
    /// standard model of the level forbids and the vendor documents as
    /// allowed (written under `anomalies/`).
    pub cases_with_anomalies: u64,
    pub anomalies: u64,
    /// Vendor-permitted anomalies by oracle and class.
    pub anomaly_kinds: BTreeMap<String, u64>,
    /// Cases that could not be judged: a tool error, or every oracle failed
    /// (see errors.log).
    pub errors: u64,
    /// Oracle failures (an error or a panic in `prepare` or `check`) by
    /// oracle: each cost only that oracle's verdict on its case.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub oracle_errors: BTreeMap<String, u64>,
    pub elapsed_secs: f64,
    pub stopped_early: Option<String>,
    /// The run stopped because the caller interrupted it.
    pub interrupted: bool,
    /// Databases the run created on the server (and dropped at its end).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub databases: Vec<String>,
    /// What the executed cases exercised: a run that never blocks or aborts
    /// tests little.
    pub exercised: Exercised,
}

/// Concurrency events over all executed cases.
#[derive(Debug, Default, serde::Serialize)]
pub struct Exercised {
    pub transactions: u64,
    pub committed: u64,
    pub rolled_back: u64,
    /// Transactions the DBMS (or an error) aborted, by error class.
    pub aborted: BTreeMap<String, u64>,
    pub blocked_statements: u64,
    pub cases_with_blocking: u64,
}

impl Exercised {
    pub(super) fn add(&mut self, history: &History) {
        for t in &history.transactions {
            self.transactions += 1;
            match &t.end {
                TxnEnd::Committed => self.committed += 1,
                TxnEnd::RolledBack => self.rolled_back += 1,
                TxnEnd::Aborted { class, .. } => {
                    *self.aborted.entry(class.to_string()).or_default() += 1
                }
                TxnEnd::Unfinished => {}
            }
        }
        let blocked = history
            .statements
            .iter()
            .flatten()
            .filter(|r| r.blocked.is_some())
            .count() as u64;
        self.blocked_statements += blocked;
        self.cases_with_blocking += u64::from(blocked > 0);
    }
}

/// Groups undecided reasons for the summary: the oracle and the first clause.
pub(super) fn reason_key(reason: &str) -> String {
    let cut = reason
        .char_indices()
        .filter(|(_, c)| *c == ':' || *c == ';' || *c == '(')
        .nth(1)
        .map(|(i, _)| i)
        .unwrap_or(reason.len());
    let key: String = reason[..cut]
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect();
    key.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_group_by_oracle_and_first_clause() {
        assert_eq!(
            reason_key("wss: the difference may be permitted at read-committed: T1.2 …"),
            "wss: the difference may be permitted at read-committed"
        );
        assert_eq!(
            reason_key("troc: T2.3 waited (after T1.4); more"),
            "troc: T. waited"
        );
        assert_eq!(reason_key("plain"), "plain");
    }
}
