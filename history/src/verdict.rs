//! From a [`Report`](crate::Report) to an oracle's verdict: violations and
//! the anomalies the vendor forbids are findings; anomalies only the standard
//! model forbids are vendor-permitted; anomalies both models allow pass. The
//! oracles that read dependencies off a run (IsoRel's writer lists, TxCheck's
//! version keys) share it.

use crate as h;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fmt::Write as _;
use txlab_plugin_api::ir::*;

/// Which model turns an anomaly into a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingsFrom {
    /// The vendor's documented semantics (the dialect's profile).
    Vendor,
    /// The standard model of the isolation level (Adya).
    Standard,
}

/// Who read the dependencies off the run, and how, for the verdict's words.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// Prefixes titles: `IsoRel`, `TxCheck`.
    pub oracle: &'a str,
    /// One sentence: where the dependencies come from.
    pub provenance: &'a str,
    /// One sentence: what the instrumentation guarantees, which a violation
    /// contradicts.
    pub guarantees: &'a str,
    /// The instrumentation's assumption a violation's finding names.
    pub assumes: &'a str,
}

/// The standard model, as findings name it.
const ADYA: &str = "Adya's isolation levels (Adya 1999; PL-SI from Adya's thesis)";

/// One anomaly with both models' answers.
struct Judged<'a> {
    anomaly: &'a h::Anomaly,
    judgement: h::Judgement,
}

impl Judged<'_> {
    fn name(&self) -> String {
        match self.anomaly.subtype {
            Some(sub) => format!("{} ({sub})", self.anomaly.phenomenon),
            None => self.anomaly.phenomenon.to_string(),
        }
    }
}

/// The levels the transactions that an anomaly concerns ran at, for titles
/// and signatures: `repeatable-read`, or `read-committed/serializable`.
fn levels(anomaly: &h::Anomaly, history: &h::History) -> String {
    let mut levels: Vec<String> = h::model::breakers(anomaly)
        .iter()
        .filter_map(|&t| history.transaction(t)?.level)
        .map(|l| l.to_string())
        .collect();
    levels.sort();
    levels.dedup();
    if levels.is_empty() {
        "an unrecorded level".into()
    } else {
        levels.join("/")
    }
}

fn anomaly_section(j: &Judged<'_>, history: &h::History) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### {}\n", j.anomaly.describe(history));
    let heading = if j.anomaly.cycle.is_empty() {
        "Evidence"
    } else {
        "The shortest cycle, edge by edge"
    };
    let _ = writeln!(s, "{heading}:\n");
    for e in j.anomaly.edges() {
        let _ = writeln!(
            s,
            "- `{} -{}-> {}`: {}",
            history.label(e.from),
            e.short(),
            history.label(e.to),
            e.evidence
        );
    }
    let _ = writeln!(s, "\nStandard model: {}.", j.judgement.standard.why);
    match &j.judgement.vendor {
        h::VendorJudgement::Forbidden { why } => {
            let _ = writeln!(s, "Vendor semantics: forbidden, {why}.");
        }
        h::VendorJudgement::Permitted { facts } => {
            let _ = writeln!(s, "Vendor semantics: permitted:");
            for f in facts {
                let _ = writeln!(s, "- {f}");
            }
        }
    }
    s
}

fn violation_finding(
    violations: &[h::Violation],
    history: &h::History,
    source: &Source<'_>,
) -> Verdict {
    let lines: Vec<String> = violations.iter().map(|v| v.describe(history)).collect();
    let mut explanation = format!(
        "The reads contradict each other or the instrumentation's assumptions: {}\n\n",
        source.guarantees
    );
    for l in &lines {
        let _ = writeln!(explanation, "- {l}");
    }
    let first = &violations[0];
    let kind = match first {
        h::Violation::ForkedVersions { .. } => "forked version order",
        h::Violation::AbortedWriteSurvived { .. } => "an aborted write survived",
        h::Violation::OwnWriteLost { .. } => "a transaction lost its own write",
        h::Violation::UnknownWriter { .. } => "a writer the history does not know",
        h::Violation::RowInTwoTables { .. } => "a row identity in two tables",
    };
    Verdict::Finding(Finding {
        title: format!("{}: {kind}: {}", source.oracle, lines[0]),
        signature: kind.to_string(),
        model: "every isolation level: committed versions of a row form one order, and a rolled-back write leaves no trace".into(),
        assumed_semantics: source.assumes.into(),
        explanation,
        summary: format!("the reads show {kind}, which no isolation level allows: {}", lines[0]),
        evidence: json!({ "violations": violations }),
        files: Vec::new(),
    })
}

/// The vendor semantics a finding assumed, or an anomaly is permitted by:
/// each involved level's summary from the profile.
fn semantics_of(judged: &[&Judged<'_>], history: &h::History, dialect: &DialectInfo) -> String {
    let mut levels: Vec<IsolationLevel> = judged
        .iter()
        .flat_map(|j| j.judgement.judged.iter())
        .filter_map(|&t| history.transaction(t)?.level)
        .collect();
    levels.sort();
    levels.dedup();
    let mut s = String::new();
    for level in levels {
        if let Some(l) = dialect.level(level) {
            let _ = writeln!(s, "- {} {}", dialect.name, l.summary());
        }
    }
    s
}

/// The verdict of one case on `history`, whose check gave `report`.
pub fn verdict(
    history: &h::History,
    report: &h::Report,
    dialect: &DialectInfo,
    findings_from: FindingsFrom,
    source: &Source<'_>,
) -> Verdict {
    if !report.violations.is_empty() {
        return violation_finding(&report.violations, history, source);
    }
    let judged: Vec<Judged<'_>> = report
        .anomalies
        .iter()
        .map(|anomaly| Judged {
            anomaly,
            judgement: h::judge(anomaly, history, dialect),
        })
        .collect();
    let is_finding = |j: &Judged<'_>| match findings_from {
        FindingsFrom::Vendor => j.judgement.vendor.is_forbidden(),
        FindingsFrom::Standard => {
            j.judgement.standard.forbidden || j.judgement.vendor.is_forbidden()
        }
    };
    let (findings, rest): (Vec<&Judged<'_>>, Vec<&Judged<'_>>) =
        judged.iter().partition(|j| is_finding(j));
    let permitted: Vec<&Judged<'_>> = rest
        .into_iter()
        .filter(|j| j.judgement.standard.forbidden)
        .collect();
    let (reported, finding) = if !findings.is_empty() {
        (findings, true)
    } else if !permitted.is_empty() {
        (permitted, false)
    } else if judged.is_empty() {
        return Verdict::Pass;
    } else {
        // Anomalies both models allow at the levels they ran at.
        let mut anomalies: Vec<String> = judged
            .iter()
            .map(|j| format!("{} at {}", j.name(), levels(j.anomaly, history)))
            .collect();
        anomalies.sort();
        anomalies.dedup();
        return Verdict::Allowed { anomalies };
    };
    let first = reported[0];
    let level_text = levels(first.anomaly, history);
    let mut explanation = String::new();
    let _ = writeln!(
        explanation,
        "{} {} {} found:\n",
        source.provenance,
        reported.len(),
        if reported.len() == 1 {
            "anomaly was"
        } else {
            "anomalies were"
        }
    );
    for j in &reported {
        explanation.push_str(&anomaly_section(j, history));
        explanation.push('\n');
    }
    let model = if finding {
        match &first.judgement.vendor {
            h::VendorJudgement::Forbidden { why } => format!(
                "{}'s documented semantics of {why}; the standard model: {}",
                dialect.name, first.judgement.standard.why
            ),
            h::VendorJudgement::Permitted { .. } => {
                format!("{ADYA}: {}", first.judgement.standard.why)
            }
        }
    } else {
        format!("{ADYA}: {}", first.judgement.standard.why)
    };
    let assumed = if finding {
        semantics_of(&reported, history, dialect)
    } else {
        match &first.judgement.vendor {
            h::VendorJudgement::Permitted { facts } => facts
                .iter()
                .map(|f| format!("- {f}"))
                .collect::<Vec<_>>()
                .join("\n"),
            h::VendorJudgement::Forbidden { why } => why.clone(),
        }
    };
    let found = Finding {
        title: format!(
            "{}: {} at {level_text}: {}",
            source.oracle,
            first.name(),
            first.anomaly.describe(history)
        ),
        signature: format!("{} at {level_text}", first.name()),
        model,
        assumed_semantics: assumed,
        explanation,
        summary: format!(
            "at {level_text} the reads show {}; {}",
            first.anomaly.describe(history),
            match (&first.judgement.vendor, finding) {
                (h::VendorJudgement::Forbidden { why }, true) =>
                    format!("{}'s documented semantics forbid it ({why})", dialect.name),
                _ => format!(
                    "the standard model forbids it: {}",
                    first.judgement.standard.why
                ),
            }
        ),
        evidence: json!({
            "anomalies": reported.iter().map(|j| json!({
                "anomaly": j.anomaly,
                "judgement": j.judgement,
            })).collect::<Vec<_>>(),
        }),
        files: vec![FindingFile {
            name: "cycle.dot".into(),
            content: h::to_dot(first.anomaly, history),
        }],
    };
    if finding {
        Verdict::Finding(found)
    } else {
        Verdict::VendorPermitted(found)
    }
}
