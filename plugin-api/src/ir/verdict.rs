//! What an oracle concludes about one executed test case.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// The run agrees with the model the oracle checks.
    Pass,
    /// The oracle cannot decide: the executor did not observe enough, or the
    /// vendor's documented semantics allow the difference. Never a bug report.
    Undecided { reason: String },
    /// The run violates the model: a bug report.
    Finding(Finding),
    /// The run shows an anomaly that the standard model of its isolation
    /// level forbids (`model` names it) but that the vendor documents as
    /// allowed at that level (`assumed_semantics` quotes the profile's facts):
    /// not a bug, but named and counted, for users who test against the
    /// standard. IR 1.1.
    VendorPermitted(Finding),
    /// The run agrees with both models, and shows anomalies they allow at its
    /// isolation levels (a lost update at READ COMMITTED): a pass, with the
    /// anomalies named so that runs can count what the levels let through.
    /// IR 1.1.
    Allowed {
        /// Each anomaly's kind, as a finding's signature would name it.
        anomalies: Vec<String>,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Short name of what went wrong, e.g. "tx-WSS violation: final states differ".
    pub title: String,
    /// What kind of finding this is, without anything that names a position in
    /// the case (statement or transaction numbers, counts): the reducer keeps a
    /// smaller case when the same oracle reports a finding with the same
    /// signature. Empty means the title serves.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// The model the run violates, e.g. "write-specific serializability (FCRFS order)".
    pub model: String,
    /// The vendor semantics the oracle assumed to hold, from the dialect profile.
    pub assumed_semantics: String,
    /// Markdown explaining what differed, for `report.md`.
    pub explanation: String,
    /// One sentence in the form bug trackers use, the report's lead: what
    /// the model gives and what happened instead, naming statements as
    /// `T2.3` ("serial T1 → T2: `T2.3` DELETE deletes 1 row; here it waited
    /// and deleted 0 rows"). Empty means the title serves. IR 1.1
    /// (additive).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// Machine-readable evidence (diffs, schedules) written into the finding.
    #[serde(default)]
    pub evidence: serde_json::Value,
    /// More files for the finding's directory, e.g. a Graphviz `cycle.dot` of a
    /// dependency cycle. Names are plain file names. IR 1.1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FindingFile>,
}

/// A file an oracle adds to a finding's directory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FindingFile {
    /// A plain file name (no directories), e.g. `cycle.dot`.
    pub name: String,
    pub content: String,
}

impl Finding {
    /// The lead sentence: the summary, or the title when the oracle gave
    /// none.
    pub fn lead(&self) -> &str {
        if self.summary.is_empty() {
            &self.title
        } else {
            &self.summary
        }
    }

    /// The signature, or the title when the oracle gave none.
    pub fn signature(&self) -> &str {
        if self.signature.is_empty() {
            &self.title
        } else {
            &self.signature
        }
    }
}
