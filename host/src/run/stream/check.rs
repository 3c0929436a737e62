//! One window's check: the list-append history through the Elle importer,
//! txlab's checker (minimal cycles), and both models as the isorel oracle
//! judges them; findings and vendor-permitted anomalies written to the run
//! directory like every other finding.

use super::window::{self, ListTxn};
use crate::run::RunSummary;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use txlab_history::formats::elle::{self, ExportOptions};
use txlab_history::formats::sql_list::{SqlMop, SqlWorkload};
use txlab_history::verdict::{verdict, FindingsFrom, Source};
use txlab_history::{check, History, Options, Report};
use txlab_plugin_api::ir::*;

const REGISTER_SOURCE: Source<'static> = Source {
    oracle: "stream",
    provenance: "A stream's read-write register history (every value is written once per key, so a read names its writer; a read of the initial value comes before every write of the key; the order of two writes is not known):",
    guarantees: "every value is written once per key, so a read names the writer of the version it shows",
    assumes: "values are unique per key and a read returns the register's last committed or own value",
};

const SOURCE: Source<'static> = Source {
    oracle: "stream",
    provenance: "A stream's list-append history (every read returns a key's whole list, so it fixes the order of every version before it):",
    guarantees: "every element is appended once, so a read list names the writer of each version it shows",
    assumes: "elements are unique per key and a read returns the key's whole list",
};

/// Directories written per kind at most: a vendor-permitted anomaly can
/// come thousands of times in a long stream.
pub const DIRS_PER_KIND: u64 = 3;

/// What one window showed.
#[derive(Debug, Default)]
pub struct WindowResult {
    pub transactions: usize,
    pub findings: u64,
    pub anomalies: u64,
    /// Findings and anomalies of this window by kind.
    pub kinds: BTreeMap<String, u64>,
}

/// Checks the window's transactions, adds what it found to `summary` and
/// writes directories for the first few of each kind.
pub fn check_window(
    number: u64,
    txns: &[ListTxn],
    dialect: &DialectInfo,
    strict: bool,
    start_order: bool,
    run_dir: &Path,
    summary: &mut RunSummary,
) -> Result<WindowResult, String> {
    let mut result = WindowResult {
        transactions: txns.len(),
        ..WindowResult::default()
    };
    if txns.is_empty() {
        return Ok(result);
    }
    let imported = window::history(txns).map_err(|e| format!("window {number}: {e}"))?;
    let register = window::workload(txns) == SqlWorkload::Register;
    let source = if register { &REGISTER_SOURCE } else { &SOURCE };
    let history = &imported.history;
    let report = check(
        history,
        &Options {
            list_edges: false,
            start_order,
            ..Options::default()
        },
    );
    let from = if strict {
        FindingsFrom::Standard
    } else {
        FindingsFrom::Vendor
    };
    // Each anomaly judged alone, so each is counted by its own class.
    let mut singles: Vec<Report> = report
        .anomalies
        .iter()
        .map(|a| Report {
            edges: Vec::new(),
            anomalies: vec![a.clone()],
            violations: Vec::new(),
            stats: report.stats.clone(),
        })
        .collect();
    if !report.violations.is_empty() {
        singles.insert(
            0,
            Report {
                edges: Vec::new(),
                anomalies: Vec::new(),
                violations: report.violations.clone(),
                stats: report.stats.clone(),
            },
        );
    }
    let mut edn: Option<String> = None;
    for (n, single) in singles.iter().enumerate() {
        let (finding, dir_kind) = match verdict(history, single, dialect, from, source) {
            Verdict::Finding(f) => (f, "findings"),
            Verdict::VendorPermitted(f) => (f, "anomalies"),
            Verdict::Allowed { anomalies } => {
                for a in anomalies {
                    *summary
                        .allowed_kinds
                        .entry(format!("stream: {a}"))
                        .or_default() += 1;
                }
                continue;
            }
            Verdict::Pass | Verdict::Undecided { .. } => continue,
        };
        let kind = format!("stream: {}", finding.signature);
        *result.kinds.entry(kind.clone()).or_default() += 1;
        let (count, dirs) = if dir_kind == "findings" {
            result.findings += 1;
            summary.findings += 1;
            let c = summary.finding_kinds.entry(kind).or_default();
            *c += 1;
            (*c, &mut summary.finding_dirs)
        } else {
            result.anomalies += 1;
            summary.anomalies += 1;
            let c = summary.anomaly_kinds.entry(kind).or_default();
            *c += 1;
            (*c, &mut summary.anomaly_dirs)
        };
        if count > DIRS_PER_KIND {
            continue;
        }
        // Registers as the ops ran (an export of the inferred history
        // would show its per-writer rows as lists).
        let edn = edn.get_or_insert_with(|| {
            if register {
                txlab_history::formats::to_edn(&window::ops(txns))
            } else {
                elle::to_string(history, &ExportOptions { plain: false })
            }
        });
        let name = format!("{dir_kind}/window-{number:06}-{n:03}");
        let dir = run_dir.join(&name);
        write_dir(&dir, &finding, single, history, txns, edn.as_str())
            .map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
        dirs.push(name);
    }
    Ok(result)
}

fn write_dir(
    dir: &Path,
    finding: &Finding,
    report: &Report,
    history: &History,
    txns: &[ListTxn],
    edn: &str,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let register = window::workload(txns) == SqlWorkload::Register;
    let mut involved: Vec<u64> = report
        .anomalies
        .iter()
        .flat_map(|a| a.transactions.iter().copied())
        .collect();
    involved.sort_unstable();
    involved.dedup();
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", finding.title);
    let _ = writeln!(md, "{}\n", finding.summary);
    let _ = writeln!(md, "## Model violated\n\n{}\n", finding.model);
    let _ = writeln!(md, "## Vendor semantics\n\n{}\n", finding.assumed_semantics);
    let _ = writeln!(md, "## What was found\n\n{}", finding.explanation);
    let _ = writeln!(
        md,
        "## The transactions involved\n\nAs the stream ran them (times in seconds from the run's start; `r(k) = [...]` read key k's list, `append(k, v)` appended v; `w(k, v)` wrote v to register k, `r(k) = v` read it, `nil` its initial value):\n"
    );
    for t in txns
        .iter()
        .filter(|t| involved.binary_search(&t.id).is_ok())
    {
        let _ = writeln!(md, "- {}", describe(t, history, register));
    }
    let _ = writeln!(
        md,
        "\n`history.edn` holds the whole window in Elle's format (`txlab history check history.edn --format elle --model …` checks it again; elle-cli reads it too).\n\nNot confirmed by running again: a stream is one concurrent run of many sessions and does not repeat, so no case of it was run a second time or reduced. What stands behind this report is the recorded reads above."
    );
    std::fs::write(dir.join("report.md"), md)?;
    std::fs::write(dir.join("history.edn"), edn)?;
    let json = serde_json::to_string_pretty(finding).unwrap_or_default();
    std::fs::write(dir.join("finding.json"), json)?;
    for f in &finding.files {
        std::fs::write(dir.join(&f.name), &f.content)?;
    }
    Ok(())
}

fn describe(t: &ListTxn, history: &History, register: bool) -> String {
    let mops: Vec<String> = t
        .mops
        .iter()
        .map(|(m, list)| match (m, list) {
            (SqlMop::Append { key, value }, _) => format!("append({key}, {value})"),
            (SqlMop::Write { key, value }, _) => format!("w({key}, {value})"),
            (SqlMop::Read { key }, Some(l)) if register => match l.as_slice() {
                [v] => format!("r({key}) = {v}"),
                _ => format!("r({key}) = nil"),
            },
            (SqlMop::Read { key }, Some(l)) => format!(
                "r({key}) = [{}]",
                l.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (m, _) => format!("{m:?}"),
        })
        .collect();
    format!(
        "`{}` session {}, {}, {:?}, {:.6}–{:.6} s: {}",
        history.label(t.id),
        t.session,
        t.level,
        t.outcome,
        t.invoked_us as f64 / 1e6,
        t.completed_us as f64 / 1e6,
        mops.join("; ")
    )
}
