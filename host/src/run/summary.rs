//! The run's tallies: what `summary.json` and the closing lines report.

use std::collections::BTreeMap;
use std::path::PathBuf;
use txlab_plugin_api::ir::*;

/// The version of `summary.json`'s format (docs/summary.schema.json): a
/// new field keeps it, a removed or changed one bumps it.
pub const SUMMARY_FORMAT_VERSION: u32 = 1;

/// What a run did. Every case counts in exactly one of `passed`,
/// `cases_with_findings`, `cases_with_anomalies`, `cases_unconfirmed`,
/// `undecided` and `errors` (in that order of precedence), by the verdicts of the
/// oracles that judged it; an oracle that failed on a case is counted in
/// `oracle_errors` instead and leaves the others' verdicts as they are.
#[derive(Debug, Default, serde::Serialize)]
pub struct RunSummary {
    /// [`SUMMARY_FORMAT_VERSION`].
    pub format_version: u32,
    /// Each worker's measurements, when the run measured them
    /// (`RunOptions::measure`); not part of `summary.json`.
    #[serde(skip)]
    pub measured: Vec<super::throughput::Measured>,
    pub txlab_version: String,
    /// The DBMS's version as the driver read it when the run started.
    pub server_version: Option<String>,
    /// The pipeline file, absolute when it could be resolved.
    pub pipeline: PathBuf,
    /// The dialect's name.
    pub dialect: String,
    pub run_dir: PathBuf,
    pub seed: u64,
    /// The slice of the run's cases this run took (`--shard INDEX/COUNT`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub cases: u64,
    pub passed: u64,
    /// Cases with at least one finding.
    pub cases_with_findings: u64,
    pub findings: u64,
    /// Cases some oracle could not decide (and none reported anything).
    pub undecided: u64,
    /// The reasons of those cases, grouped (oracle and first clause): a case
    /// has one reason per oracle that could not decide it, so the counts add
    /// up to `undecided_reasons_total`, which is at least `undecided`.
    pub undecided_reasons: BTreeMap<String, u64>,
    /// Every reason counted in `undecided_reasons`: one line each in
    /// `undecided.log`.
    pub undecided_reasons_total: u64,
    /// Findings by oracle and signature: how many distinct problems a run saw.
    pub finding_kinds: BTreeMap<String, u64>,
    /// Cases without findings that showed a vendor-permitted anomaly: one the
    /// standard model of the level forbids and the vendor documents as
    /// allowed (written under `anomalies/`).
    pub cases_with_anomalies: u64,
    pub anomalies: u64,
    /// Vendor-permitted anomalies by oracle and class.
    pub anomaly_kinds: BTreeMap<String, u64>,
    /// Cases whose only findings never showed again when the case ran again
    /// (the `[reduce]` confirmation): written under `unconfirmed/`, not
    /// counted as findings.
    pub cases_unconfirmed: u64,
    pub unconfirmed: u64,
    /// Unconfirmed findings by oracle and signature.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub unconfirmed_kinds: BTreeMap<String, u64>,
    /// Anomalies both models allow at the levels they ran at (a pass), by
    /// oracle and class: what the levels let through.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub allowed_kinds: BTreeMap<String, u64>,
    /// Cases by the pattern their generator set up (`CaseIntent`), with what
    /// became of the anomaly.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub patterns: BTreeMap<String, PatternTally>,
    /// Cases that could not be judged: a tool error, or every oracle failed
    /// (see errors.log).
    pub errors: u64,
    /// Those cases by what went wrong (the error's first clause, at most
    /// 160 characters): "the server did not answer within 5s (the
    /// lock-wait probe)".
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub error_reasons: BTreeMap<String, u64>,
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
    /// The finding directories, relative to the run directory
    /// (`findings/case-000012-wss`), in the order they were counted.
    pub finding_dirs: Vec<String>,
    /// The vendor-permitted anomalies' directories (`anomalies/…`).
    pub anomaly_dirs: Vec<String>,
    /// The unconfirmed findings' directories (`unconfirmed/…`).
    pub unconfirmed_dirs: Vec<String>,
    /// The run's own output could not be written (a full disk, a removed
    /// directory): what failed. Not in `summary.json` itself when that is
    /// what failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_error: Option<String>,
    /// A stream run's own counts (`executor.mode = "stream"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<super::stream::StreamTally>,
}

impl RunSummary {
    /// A new run's summary: what it is (format, txlab's version, pipeline,
    /// dialect, directory, seed, server) and no results yet.
    pub fn begin(
        resolved: &crate::setup::Resolved<'_>,
        run_dir: &std::path::Path,
        seed: u64,
        server_version: Option<String>,
    ) -> RunSummary {
        RunSummary {
            format_version: SUMMARY_FORMAT_VERSION,
            txlab_version: env!("CARGO_PKG_VERSION").to_string(),
            pipeline: std::fs::canonicalize(&resolved.pipeline.path)
                .unwrap_or_else(|_| resolved.pipeline.path.clone()),
            dialect: resolved.info.name.clone(),
            run_dir: run_dir.to_path_buf(),
            seed,
            server_version,
            ..RunSummary::default()
        }
    }
}

/// What became of one pattern's cases. Each case counts in one of
/// `occurred`, `prevented_by_abort`, `prevented_by_blocking` and
/// `did_not_occur`; `findings` counts those of them with a finding.
#[derive(Debug, Default, serde::Serialize)]
pub struct PatternTally {
    /// The anomaly the pattern sets up.
    pub anomaly: String,
    pub cases: u64,
    /// An oracle named the intended anomaly (as a finding, a vendor-permitted
    /// anomaly, or one both models allow).
    pub occurred: u64,
    /// It did not occur, and the DBMS aborted a transaction.
    pub prevented_by_abort: u64,
    /// It did not occur, nothing aborted, and a statement waited for a lock.
    pub prevented_by_blocking: u64,
    /// It did not occur, with neither an abort nor a wait (e.g. a snapshot
    /// hid the other transaction's write).
    pub did_not_occur: u64,
    pub findings: u64,
}

impl PatternTally {
    /// Counts one case of the pattern. `reported` are the kinds the oracles
    /// named ("oracle: kind"), `history` the run. A kind names the intended
    /// anomaly by its SQL name ("G-single (lost update) at …"), or, for a
    /// phenomenon without one, by the phenomenon alone ("G1c at …").
    pub(super) fn add(
        &mut self,
        intent: &CaseIntent,
        reported: &[&str],
        findings: bool,
        history: &History,
    ) {
        self.anomaly = intent.anomaly.clone();
        self.cases += 1;
        self.findings += u64::from(findings);
        let anomaly = intent.anomaly.to_lowercase();
        let bare_phenomenon = format!("{} at ", intent.phenomenon.to_lowercase());
        let occurred = reported.iter().any(|kind| {
            let kind = kind.to_lowercase();
            (!anomaly.is_empty() && kind.contains(&anomaly))
                || (!intent.phenomenon.is_empty() && kind.contains(&bare_phenomenon))
        });
        let aborted = history
            .transactions
            .iter()
            .any(|t| matches!(t.end, TxnEnd::Aborted { .. }));
        let blocked = history
            .statements
            .iter()
            .flatten()
            .any(|r| r.blocked.is_some());
        if occurred {
            self.occurred += 1;
        } else if aborted {
            self.prevented_by_abort += 1;
        } else if blocked {
            self.prevented_by_blocking += 1;
        } else {
            self.did_not_occur += 1;
        }
    }
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

/// Groups undecided reasons for the summary: the oracle and the first
/// clause (up to the second `:` or the first `;`), statement numbers left out
/// (`T2.3 (UPDATE)` becomes `T. (UPDATE)`), at most 110 characters.
pub(super) fn reason_key(reason: &str) -> String {
    let mut colons = 0;
    let cut = reason
        .char_indices()
        .find(|&(_, c)| {
            colons += usize::from(c == ':');
            c == ';' || colons == 2
        })
        .map(|(i, _)| i)
        .unwrap_or(reason.len());
    let key: String = reason[..cut]
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect();
    let key = key.trim();
    match key.char_indices().nth(110) {
        Some((end, _)) => format!("{}…", key[..end].trim_end()),
        None => key.to_string(),
    }
}

/// Groups tool errors for the summary: the text up to the first `;` or
/// line break, at most 160 characters.
pub(super) fn error_key(error: &str) -> String {
    let first = error.split([';', '\n']).next().unwrap_or_default().trim();
    match first.char_indices().nth(160) {
        Some((end, _)) => format!("{}…", first[..end].trim_end()),
        None => first.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(aborted: bool, blocked: bool) -> History {
        let at = StatementRef::new(0, 0);
        History {
            statements: vec![vec![StatementRecord {
                at,
                sql: String::new(),
                submitted_us: Some(1),
                completed_us: Some(2),
                blocked: blocked.then_some(Blocking {
                    detected_us: 1,
                    evidence: BlockEvidence::Probe,
                    resumed_after: None,
                }),
                outcome: Outcome::Done,
            }]],
            transactions: vec![TransactionRecord {
                isolation: IsolationLevel::RepeatableRead,
                end: if aborted {
                    TxnEnd::Aborted {
                        by: at,
                        class: ErrorClass::Deadlock,
                    }
                } else {
                    TxnEnd::Committed
                },
                ended_us: Some(2),
            }],
            ..History::default()
        }
    }

    #[test]
    fn a_pattern_case_counts_where_its_anomaly_went() {
        let mut p = PatternTally::default();
        let lost_update = CaseIntent {
            pattern: "lost-update".into(),
            anomaly: "lost update".into(),
            phenomenon: "G-single".into(),
            forbidden_at: vec![],
        };
        let reported = ["isorel: G-single (lost update) at repeatable-read"];
        p.add(&lost_update, &reported, false, &history(true, true));
        // Another G-single is not this pattern's anomaly.
        p.add(
            &lost_update,
            &["isorel: G-single (read skew) at repeatable-read"],
            true,
            &history(true, true),
        );
        p.add(&lost_update, &[], false, &history(false, true));
        p.add(&lost_update, &[], false, &history(false, false));
        assert_eq!(
            (
                p.cases,
                p.occurred,
                p.prevented_by_abort,
                p.prevented_by_blocking,
                p.did_not_occur,
                p.findings
            ),
            (4, 1, 1, 1, 1, 1)
        );
        assert_eq!(p.anomaly, "lost update");
        // A phenomenon without an SQL name matches by the phenomenon.
        let mut g1c = PatternTally::default();
        let flow = CaseIntent {
            pattern: "aptrans-20".into(),
            anomaly: "circular information flow".into(),
            phenomenon: "G1c".into(),
            forbidden_at: vec![],
        };
        g1c.add(
            &flow,
            &["isorel: G1c at read-uncommitted"],
            false,
            &history(false, false),
        );
        assert_eq!(g1c.occurred, 1);
    }

    #[test]
    fn reasons_group_by_oracle_and_first_clause() {
        assert_eq!(
            reason_key("wss: the difference may be permitted at read-committed: T1.2 …"),
            "wss: the difference may be permitted at read-committed"
        );
        assert_eq!(
            reason_key("troc: T2.3 waited (after T1.4); more"),
            "troc: T. waited (after T.)"
        );
        assert_eq!(
            reason_key(
                "txcheck: T3.8 (UPDATE) checked keys on the latest data; the case ran again"
            ),
            "txcheck: T. (UPDATE) checked keys on the latest data"
        );
        assert_eq!(reason_key("plain"), "plain");
    }

    #[test]
    fn tool_errors_group_by_their_first_clause() {
        assert_eq!(
            error_key("the server did not answer within 5s (the lock-wait probe); it did not answer a new connection for 1m either"),
            "the server did not answer within 5s (the lock-wait probe)"
        );
        assert_eq!(error_key(&"x".repeat(200)).chars().count(), 161);
    }
}
