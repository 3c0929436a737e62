//! Decycling and the paper's Fig. 11: a run that cannot be judged because of
//! one unit (it waited for a lock inside its added reads, read newer rows
//! than they show, or closes a cycle of the statement graph) is run again
//! without that unit, on the scratch database, as TxCheck does. The
//! statements are submitted in the order they completed, each unit as one
//! block, so the waits that split units before are not planned again.
//!
//! Every verdict speaks of the case the run was given: statements of an
//! edited copy are named as in the original, and a verdict reached on a copy
//! says which statements were left out and why.

use crate::config::TxcheckConfig;
use crate::judge::{judge_run, Judged};
use crate::units::{units, Unit};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use txlab_plugin_api::prelude::*;

/// A unit left out of a run, in the original case's terms.
struct Removal {
    statements: Vec<StatementRef>,
    main: StatementRef,
    reason: String,
}

/// The verdict on a run, running the case again without a unit where the run
/// as it was cannot be judged (at most `config.reruns` times).
pub fn judge(
    case: &TestCase,
    history: &History,
    dialect: &DialectInfo,
    config: &TxcheckConfig,
    db: &mut dyn HostDb,
) -> Result<Verdict, PluginError> {
    let first = judge_run(case, history, dialect, config, db)?;
    let (mut unit, mut reason) = match first {
        Judged::Decided(verdict) => return Ok(verdict),
        Judged::Without { unit, reason } => (unit, reason),
    };
    let mut current = case.clone();
    let mut back: Vec<Vec<StatementRef>> = case
        .transactions
        .iter()
        .enumerate()
        .map(|(t, txn)| {
            (0..txn.statements.len())
                .map(|s| StatementRef::new(t, s))
                .collect()
        })
        .collect();
    let mut current_history;
    let mut removed: Vec<Removal> = Vec::new();
    let mut history = history;
    loop {
        if removed.len() >= config.reruns {
            return Ok(Verdict::Undecided {
                reason: undecided_after(&reason, &removed, config.reruns),
            });
        }
        let (edited, kept) = leave_out(&current, history, &unit, config)?;
        removed.push(Removal {
            statements: unit.refs().map(|at| original(&back, at)).collect(),
            main: original(&back, unit.main),
            reason: reason.clone(),
        });
        current_history = match db.run_case(&edited) {
            Ok(h) => h,
            Err(e) if e.kind == ErrorKind::UNSUPPORTED || e.kind == ErrorKind::INVALID_INPUT => {
                return Ok(Verdict::Undecided {
                    reason: format!(
                        "{reason}; the case would have to run again without {}, which this host cannot do ({})",
                        removed.last().expect("just pushed").main,
                        e.message
                    ),
                });
            }
            Err(e) => return Err(e),
        };
        back = kept
            .iter()
            .map(|txn| txn.iter().map(|&at| original(&back, at)).collect())
            .collect();
        current = edited;
        history = &current_history;
        match judge_run(&current, history, dialect, config, db)? {
            Judged::Decided(verdict) => {
                let run = RunAgain {
                    case: &current,
                    history,
                    back: &back,
                };
                return Ok(in_original_terms(verdict, &run, &removed));
            }
            Judged::Without {
                unit: next,
                reason: why,
            } => {
                unit = next;
                reason = rename_text(&why, &back);
            }
        }
    }
}

fn original(back: &[Vec<StatementRef>], at: StatementRef) -> StatementRef {
    back[at.txn()][at.stmt()]
}

fn undecided_after(reason: &str, removed: &[Removal], limit: usize) -> String {
    if removed.is_empty() {
        return format!("{reason}; TxCheck would run the case again without it, and `reruns = 0`");
    }
    let without: Vec<String> = removed.iter().map(|r| r.main.to_string()).collect();
    format!(
        "{reason}; the case ran again without {} and still could not be judged after {limit} re-runs (`reruns`)",
        without.join(", ")
    )
}

/// The case without `unit`, its statements submitted in the order the run
/// completed them with every unit as one block; and, per transaction of the
/// copy, which statement of `case` each of its statements is.
fn leave_out(
    case: &TestCase,
    history: &History,
    unit: &Unit,
    config: &TxcheckConfig,
) -> Result<(TestCase, Vec<Vec<StatementRef>>), PluginError> {
    let all = units(case, config).map_err(PluginError::invalid_input)?;
    let member_of: BTreeMap<StatementRef, usize> = all
        .iter()
        .enumerate()
        .flat_map(|(u, unit)| unit.refs().map(move |at| (at, u)))
        .collect();
    let dropped: BTreeSet<StatementRef> = unit.refs().collect();
    let mut sequence: Vec<StatementRef> = history.completion_order.clone();
    let completed: BTreeSet<StatementRef> = sequence.iter().copied().collect();
    sequence.extend(
        case.submitted_order
            .iter()
            .filter(|at| !completed.contains(at)),
    );
    let mut order = Vec::new();
    let mut emitted = BTreeSet::new();
    for at in sequence {
        if dropped.contains(&at) || emitted.contains(&at) {
            continue;
        }
        match member_of.get(&at) {
            // A unit goes in where its statement completed, as one block.
            Some(&u) if all[u].main == at => {
                for member in all[u].refs() {
                    if emitted.insert(member) {
                        order.push(member);
                    }
                }
            }
            Some(_) => {}
            None => {
                emitted.insert(at);
                order.push(at);
            }
        }
    }
    let mut kept: Vec<Vec<StatementRef>> = vec![Vec::new(); case.transactions.len()];
    let mut renumbered = BTreeMap::new();
    let mut edited = case.clone();
    for (t, txn) in edited.transactions.iter_mut().enumerate() {
        let statements = std::mem::take(&mut txn.statements);
        for (s, statement) in statements.into_iter().enumerate() {
            let at = StatementRef::new(t, s);
            if dropped.contains(&at) {
                continue;
            }
            renumbered.insert(at, StatementRef::new(t, txn.statements.len()));
            kept[t].push(at);
            txn.statements.push(statement);
        }
    }
    edited.submitted_order = order.iter().map(|at| renumbered[at]).collect();
    Ok((edited, kept))
}

/// The last run of an edited copy: the copy, its history, and which
/// statement of the original case each of its statements is.
struct RunAgain<'a> {
    case: &'a TestCase,
    history: &'a History,
    back: &'a [Vec<StatementRef>],
}

impl RunAgain<'_> {
    /// `run-again.json`, for the finding's directory: what the verdict was
    /// reached on.
    fn file(&self) -> FindingFile {
        let content = json!({
            "about": "The case as TxCheck ran it again on the scratch database, and what that run recorded. Statements are numbered as in this copy; `original[t][s]` is the statement of the original case that statement s of transaction t is.",
            "original": self.back,
            "case": self.case,
            "history": self.history,
        });
        FindingFile {
            name: "run-again.json".into(),
            content: serde_json::to_string_pretty(&content).expect("JSON values serialize"),
        }
    }
}

/// A verdict reached on an edited copy, told of the original case: its
/// statements named as there, with the statements the copy left out, and
/// the copy's run in `run-again.json`.
fn in_original_terms(verdict: Verdict, run: &RunAgain<'_>, removed: &[Removal]) -> Verdict {
    let back = run.back;
    let note = || {
        let lines: Vec<String> = removed
            .iter()
            .map(|r| {
                let members: Vec<String> = r.statements.iter().map(ToString::to_string).collect();
                format!(
                    "- without {} and the reads added around it ({}), because {}",
                    r.main,
                    members.join(", "),
                    r.reason
                )
            })
            .collect();
        format!(
            "\n\nThe case as run could not be judged, so it ran again on the scratch database (TxCheck's decycling, Fig. 11), its statements submitted in the order they had completed (that run's case and history: `run-again.json`):\n{}",
            lines.join("\n")
        )
    };
    let evidence = || {
        Value::Array(
            removed
                .iter()
                .map(|r| {
                    json!({
                        "statement": r.main.to_string(),
                        "left_out": r.statements.iter().map(ToString::to_string).collect::<Vec<_>>(),
                        "because": r.reason,
                    })
                })
                .collect(),
        )
    };
    let renamed = |mut f: Finding| {
        f.title = rename_text(&f.title, back);
        f.explanation = rename_text(&f.explanation, back) + &note();
        rename_value(&mut f.evidence, back);
        if let Value::Object(map) = &mut f.evidence {
            map.insert("run_again_without".into(), evidence());
        }
        f.files.push(run.file());
        f
    };
    match verdict {
        Verdict::Finding(f) => Verdict::Finding(renamed(f)),
        Verdict::VendorPermitted(f) => Verdict::VendorPermitted(renamed(f)),
        Verdict::Undecided { reason } => {
            let without: Vec<String> = removed.iter().map(|r| r.main.to_string()).collect();
            Verdict::Undecided {
                reason: format!(
                    "{} (in a run again without {})",
                    rename_text(&reason, back),
                    without.join(", ")
                ),
            }
        }
        other => other,
    }
}

/// Statement labels (`T1.2`, 1-based) of an edited copy, renamed to the
/// original case's.
fn rename_text(text: &str, back: &[Vec<StatementRef>]) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    let number = |from: usize| {
        let end = (from..bytes.len())
            .find(|&j| !bytes[j].is_ascii_digit())
            .unwrap_or(bytes.len());
        (end > from).then(|| (text[from..end].parse::<usize>().ok(), end))
    };
    while i < bytes.len() {
        let starts = bytes[i] == b'T' && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric());
        if starts {
            if let Some((Some(t), dot)) = number(i + 1) {
                if bytes.get(dot) == Some(&b'.') {
                    if let Some((Some(s), end)) = number(dot + 1) {
                        let label = (t >= 1 && s >= 1)
                            .then(|| back.get(t - 1).and_then(|txn| txn.get(s - 1)))
                            .flatten();
                        if let Some(at) = label {
                            out.push_str(&text[copied..i]);
                            out.push_str(&at.to_string());
                            copied = end;
                            i = end;
                            continue;
                        }
                    }
                }
            }
        }
        i += 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// The same renaming through a finding's evidence: statement references
/// (`{"txn": t, "stmt": s}`) and labels in strings.
fn rename_value(value: &mut Value, back: &[Vec<StatementRef>]) {
    match value {
        Value::String(s) => *s = rename_text(s, back),
        Value::Array(items) => items.iter_mut().for_each(|v| rename_value(v, back)),
        Value::Object(map) => {
            if let Ok(at) = serde_json::from_value::<StatementRef>(Value::Object(map.clone())) {
                if map.len() == 2 {
                    if let Some(orig) = back.get(at.txn()).and_then(|txn| txn.get(at.stmt())) {
                        *value = serde_json::to_value(orig).expect("a reference serializes");
                        return;
                    }
                }
            }
            map.values_mut().for_each(|v| rename_value(v, back));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn back() -> Vec<Vec<StatementRef>> {
        // The copy left out T1.2 and T1.3 of the original.
        vec![
            vec![
                StatementRef::new(0, 0),
                StatementRef::new(0, 3),
                StatementRef::new(0, 4),
            ],
            vec![StatementRef::new(1, 0), StatementRef::new(1, 1)],
        ]
    }

    #[test]
    fn labels_of_a_copy_are_renamed_to_the_original_ones() {
        assert_eq!(
            rename_text("T1.2 (UPDATE) read what T2.2 wrote; T1.3, AT1.2", &back()),
            "T1.4 (UPDATE) read what T2.2 wrote; T1.5, AT1.2"
        );
        // Not a label of the copy: left as it is.
        assert_eq!(rename_text("T7.1 and T1.", &back()), "T7.1 and T1.");
    }

    #[test]
    fn references_in_evidence_are_renamed() {
        let mut v = json!({"statement": {"txn": 0, "stmt": 1}, "order": ["T1.3"], "n": 2});
        rename_value(&mut v, &back());
        assert_eq!(
            v,
            json!({"statement": {"txn": 0, "stmt": 3}, "order": ["T1.5"], "n": 2})
        );
    }
}
