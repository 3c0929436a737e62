//! What other DBMSs did with a finding's case: `txlab replay --pipeline
//! OTHER` (or `--url` to another server) writes each target's runs into the
//! finding directory's `other-targets.json`, and the finding's `report.md`
//! says it in a section of its own.

use super::findings::read_json;
use super::labels::labelled_json;
use super::report::{absolute, relative_to, replace_section};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use txlab_plugin_api::ir::*;

/// One other target's runs of the case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OtherTarget {
    pub dialect: String,
    #[serde(default)]
    pub server_version: Option<String>,
    /// The pipeline the case ran with, absolute when it could be resolved.
    pub pipeline: PathBuf,
    pub txlab_version: String,
    pub runs: u32,
    /// Runs in which the oracle reported the same finding.
    pub reproduced: u32,
    /// Each run's verdict in a few words.
    pub verdicts: Vec<String>,
    /// Where the last run's statements did something else than in the
    /// finding's run (empty when the oracles instrumented the case
    /// differently there, so statements cannot be matched).
    #[serde(default)]
    pub differences: Vec<StatementDifference>,
}

impl OtherTarget {
    fn same_target(&self, other: &OtherTarget) -> bool {
        (&self.dialect, &self.server_version, &self.pipeline)
            == (&other.dialect, &other.server_version, &other.pipeline)
    }
}

/// A statement that did something else on the other target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementDifference {
    /// `T2.3`.
    pub statement: String,
    /// Its kind, `UPDATE`.
    pub kind: String,
    /// What it did in the finding's run.
    pub here: String,
    /// What it did on the other target.
    pub there: String,
}

/// What a statement did, blocking included, in a few words.
fn did(record: Option<&StatementRecord>) -> String {
    match record {
        None => "was not run".into(),
        Some(r) => {
            let outcome = match &r.outcome {
                Outcome::Rows { rows, .. } => format!("returned {}", RowsText(rows)),
                other => other.to_string(),
            };
            if r.blocked.is_some() {
                format!("waited for a lock and {outcome}")
            } else {
                outcome
            }
        }
    }
}

/// The statements whose outcome or blocking differ between the finding's
/// run and another; none when the two runs' cases do not match statement
/// for statement.
pub fn statement_differences(
    case: &TestCase,
    here: &History,
    there_case: &TestCase,
    there: &History,
) -> Vec<StatementDifference> {
    if case.transactions != there_case.transactions {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &at in &case.submitted_order {
        let (a, b) = (here.record(at), there.record(at));
        let same = match (a, b) {
            (Some(a), Some(b)) => {
                same_outcome(&a.outcome, &b.outcome) && a.blocked.is_some() == b.blocked.is_some()
            }
            (None, None) => true,
            _ => false,
        };
        if !same {
            out.push(StatementDifference {
                statement: at.to_string(),
                kind: case.kind_name(at).to_string(),
                here: did(a),
                there: did(b),
            });
        }
    }
    out
}

/// Whether two DBMSs' answers are the same: rows as a multiset (in any
/// order, under any column names), a boolean the same as its 0 or 1 (MySQL
/// spells BOOLEAN as TINYINT).
fn same_outcome(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Rows { rows: x, .. }, Outcome::Rows { rows: y, .. }) => {
            let canonical = |rows: &[Vec<Value>]| {
                let mut rows: Vec<String> = rows
                    .iter()
                    .map(|r| {
                        let r: Vec<Value> = r
                            .iter()
                            .map(|v| match v {
                                Value::Bool(b) => Value::Int(i64::from(*b)),
                                other => other.clone(),
                            })
                            .collect();
                        RowText(&r).to_string()
                    })
                    .collect();
                rows.sort();
                rows
            };
            canonical(x) == canonical(y)
        }
        _ => a == b,
    }
}

/// The run directory of a finding directory, or of its `reduced/` or
/// `unconfirmed/` case.
fn run_dir_of_any(dir: &Path) -> &Path {
    let levels = match dir.parent() {
        Some(parent) if parent.join("provenance.json").exists() => 3,
        _ => 2,
    };
    dir.ancestors().nth(levels).unwrap_or(dir)
}

const HEADING: &str = "## On other targets";

/// Records `target`'s runs in `dir`'s `other-targets.json` (replacing an
/// earlier record of the same target) and rewrites the report's section.
pub fn write_other_target(dir: &Path, target: OtherTarget) -> std::io::Result<()> {
    let path = dir.join("other-targets.json");
    let mut all: Vec<OtherTarget> = read_json(&path).unwrap_or_default();
    all.retain(|t| !t.same_target(&target));
    all.push(target);
    std::fs::write(&path, labelled_json(&all)?)?;
    let report = dir.join("report.md");
    let text = std::fs::read_to_string(&report)?;
    let dir = absolute(dir);
    let run_dir = run_dir_of_any(&dir);
    std::fs::write(
        &report,
        replace_section(&text, HEADING, &section(run_dir, &all)),
    )
}

fn section(run_dir: &Path, targets: &[OtherTarget]) -> String {
    let mut s = String::from(
        "The same case run elsewhere with `txlab replay --pipeline` (`other-targets.json` has every run):\n\n",
    );
    for t in targets {
        let shows = match (t.reproduced, t.runs) {
            (0, 1) => format!("the finding does not show ({})", t.verdicts.join("; ")),
            (0, n) => format!(
                "the finding does not show in {n} runs ({})",
                summarise(&t.verdicts)
            ),
            (k, n) => format!("the finding shows in {k} of {n} runs"),
        };
        let _ = write!(
            s,
            "- `{}`, {} (pipeline `{}`): {shows}.",
            t.dialect,
            t.server_version
                .as_deref()
                .unwrap_or("version not recorded"),
            relative_to(run_dir, &t.pipeline).display()
        );
        if !t.differences.is_empty() {
            let unlike: Vec<String> = t
                .differences
                .iter()
                .map(|d| {
                    format!(
                        "`{}` {} {} (here it {})",
                        d.statement, d.kind, d.there, d.here
                    )
                })
                .collect();
            let _ = write!(s, " There: {}.", unlike.join("; "));
        }
        s.push('\n');
    }
    s
}

/// Verdicts with their counts: `pass ×3; undecided: … ×1`.
fn summarise(verdicts: &[String]) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for v in verdicts {
        match counted.iter_mut().find(|(w, _)| w == v) {
            Some((_, n)) => *n += 1,
            None => counted.push((v, 1)),
        }
    }
    counted
        .iter()
        .map(|(v, n)| format!("{v} ×{n}"))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case() -> TestCase {
        TestCase {
            seed: 0,
            generator: "test".into(),
            schema: Schema::default(),
            initial_rows: vec![],
            transactions: vec![Transaction {
                isolation: IsolationLevel::ReadCommitted,
                kind: TxnKind::Autocommit,
                statements: vec![Statement::Select(Select {
                    table: "t".into(),
                    projection: Projection::All,
                    filter: None,
                    order_by: vec![],
                    lock: RowLock::None,
                })],
            }],
            submitted_order: vec![StatementRef::new(0, 0)],
            intent: None,
            pace_ms: None,
        }
    }

    fn history(rows: Vec<Vec<Value>>, blocked: bool) -> History {
        History {
            statements: vec![vec![StatementRecord {
                at: StatementRef::new(0, 0),
                sql: String::new(),
                submitted_us: Some(1),
                completed_us: Some(2),
                blocked: blocked.then_some(Blocking {
                    detected_us: 1,
                    evidence: BlockEvidence::Probe,
                    resumed_after: None,
                }),
                outcome: Outcome::Rows {
                    columns: vec!["id".into()],
                    rows,
                },
            }]],
            ..History::default()
        }
    }

    #[test]
    fn what_the_other_dbms_did_per_statement() {
        let c = case();
        let here = history(vec![], true);
        let there = history(vec![vec![Value::Int(25)]], false);
        // The same rows in another order, a boolean as 1: the same answer.
        let reordered = history(vec![vec![Value::Bool(true)], vec![Value::Int(2)]], true);
        let same = history(vec![vec![Value::Int(2)], vec![Value::Int(1)]], true);
        assert!(statement_differences(&c, &reordered, &c, &same).is_empty());
        let d = statement_differences(&c, &here, &c, &there);
        assert_eq!(
            d,
            vec![StatementDifference {
                statement: "T1.1".into(),
                kind: "SELECT".into(),
                here: "waited for a lock and returned no rows".into(),
                there: "returned (25)".into(),
            }]
        );
        // Cases instrumented otherwise cannot be compared statement by
        // statement.
        let mut other = c.clone();
        other.transactions[0].isolation = IsolationLevel::Serializable;
        assert!(statement_differences(&c, &here, &other, &there).is_empty());
        let target = OtherTarget {
            dialect: "postgres".into(),
            server_version: Some("15.4".into()),
            pipeline: "/nowhere/postgres.toml".into(),
            txlab_version: "0".into(),
            runs: 1,
            reproduced: 0,
            verdicts: vec!["pass".into()],
            differences: d,
        };
        assert_eq!(
            section(Path::new("/also/nowhere"), &[target]).lines().nth(2),
            Some("- `postgres`, 15.4 (pipeline `/nowhere/postgres.toml`): the finding does not show (pass). There: `T1.1` SELECT returned (25) (here it waited for a lock and returned no rows).")
        );
    }
}
