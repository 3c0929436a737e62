//! Turns differences into a verdict: a finding, or undecided when the vendor's
//! documented semantics permit them.

use crate::compare::{Differences, OutcomeDiff, OutcomeDiffKind, TableDiff};
use crate::config::{FindingsFrom, Variant, WssConfig};
use crate::replay::Replay;
use crate::schedule::SerialTxn;
use crate::weak;
use serde_json::json;
use txlab_plugin_api::prelude::*;

pub const MODEL: &str = "write-specific serializability (WSS): the concurrent run must leave the database in the same state, \
and its writes must have the same outcomes, as the serial run of its transactions in FCRFS order \
(first commit/rollback first scheduled); WriteCheck, Cui et al., PVLDB 18(8) 2025";

/// One variant's serial run and how it differs from the concurrent run.
#[derive(Clone, Debug)]
pub struct VariantResult {
    pub variant: Variant,
    pub schedule: Vec<SerialTxn>,
    pub replay: Replay,
    pub differences: Differences,
}

/// Everything a verdict is made from.
pub struct Judgement<'a> {
    pub case: &'a TestCase,
    pub history: &'a History,
    pub dialect: &'a DialectInfo,
    pub config: &'a WssConfig,
    pub order: &'a [usize],
    pub concurrent_state: &'a DbState,
    pub results: &'a [VariantResult],
}

/// Isolation levels of the case's transactions, each once, in a fixed order.
pub fn involved_levels(case: &TestCase) -> Vec<IsolationLevel> {
    let mut levels: Vec<IsolationLevel> = case.transactions.iter().map(|t| t.isolation).collect();
    levels.sort();
    levels.dedup();
    levels
}

/// A level at which WriteCheck's Assumption 1 does not hold, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weakness {
    pub level: IsolationLevel,
    pub why: String,
    /// The level is described and its weakness is a documented rule for the
    /// rows a write sees (semi-consistent reads, no predicate locks, the
    /// rule after a wait), which a run shows at work or not
    /// ([`crate::weak`]). False for a level the dialect does not describe,
    /// and for one whose serial order need not be the commit order.
    pub rule_based: bool,
}

impl Weakness {
    pub fn by_rule(&self) -> bool {
        self.rule_based
    }
}

/// Why differences at `levels` may be permitted by the vendor (WriteCheck §6.4):
/// one entry per level that is not described or does not check every write
/// conflict. Empty when Assumption 1 holds at every level.
pub fn weaknesses(dialect: &DialectInfo, levels: &[IsolationLevel]) -> Vec<Weakness> {
    levels
        .iter()
        .filter_map(|&level| {
            let (why, rule_based) = match dialect.level(level) {
                None => (
                    format!(
                        "the dialect `{}` does not describe {level}, so it is unknown whether that level checks every write conflict",
                        dialect.name
                    ),
                    false,
                ),
                Some(semantics) if !semantics.writes_serialize_in_commit_order() => {
                    let mut traits = Vec::new();
                    if semantics.semi_consistent_writes {
                        traits.push(
                            "semi-consistent writes (an UPDATE may skip rows that other transactions hold locked \
                             when their latest committed version does not match)",
                        );
                    }
                    if !semantics.predicate_conflicts {
                        traits.push(
                            "no predicate conflicts on writes (a write does not lock the range it scans, \
                             so a concurrent INSERT into that range does not conflict with it)",
                        );
                    }
                    if semantics.serial_order != SerialOrder::CommitOrder {
                        traits.push(
                            "a serial order that need not be the commit order (serializable snapshot \
                             isolation may place a transaction before one that committed earlier)",
                        );
                    }
                    (
                        format!("{} at {level} has {}", dialect.name, traits.join(" and ")),
                        semantics.serial_order == SerialOrder::CommitOrder,
                    )
                }
                Some(_) => return None,
            };
            Some(Weakness {
                level,
                why,
                rule_based,
            })
        })
        .collect()
}

fn whys(weak: &[Weakness]) -> String {
    weak.iter()
        .map(|p| p.why.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

pub fn verdict(j: &Judgement<'_>) -> Verdict {
    let weak = weaknesses(j.dialect, &involved_levels(j.case));
    let standard = j.config.findings_from() == FindingsFrom::Standard;
    if weak.is_empty() {
        return Verdict::Finding(finding(j, &weak, None));
    }
    if !weak.iter().all(Weakness::by_rule) {
        if standard {
            return Verdict::Finding(finding(j, &weak, None));
        }
        let levels: Vec<&str> = weak.iter().map(|p| p.level.name()).collect();
        // The summary groups undecided cases by the text before the first colon,
        // so it names the levels and nothing case-specific.
        return Verdict::Undecided {
            reason: format!(
                "the difference may be permitted at {}: {}, but {}. WriteCheck (PVLDB 18(8) 2025, \
                 section 6.4) shows that vendors permit such differences where its Assumption 1 does not \
                 hold, and the oracle has no rule of the level to check it against",
                levels.join(", "),
                summary(j.results),
                whys(&weak)
            ),
        };
    }
    let exposures = weak::exposures(j.case, j.history, j.dialect, &weak);
    let differences: Vec<&Differences> = j.results.iter().map(|r| &r.differences).collect();
    let explanation = weak::explain(j.case, j.history, &differences, &exposures);
    let mut f = finding(j, &weak, Some(&explanation));
    if !explanation.unexplained.is_empty() || standard {
        return Verdict::Finding(f);
    }
    let rules: Vec<&str> = explanation.rules().iter().map(|r| r.name()).collect();
    f.title = format!(
        "{} ({})",
        f.title.replace(" violation:", " difference:"),
        rules.join(", ")
    );
    f.signature = format!("WSS difference by a vendor rule: {}", rules.join(", "));
    Verdict::VendorPermitted(f)
}

fn finding(j: &Judgement<'_>, weak: &[Weakness], explained: Option<&weak::Explanation>) -> Finding {
    Finding {
        signature: String::new(),
        title: title(j.results),
        model: MODEL.into(),
        assumed_semantics: assumed_semantics(j),
        explanation: explanation(j, weak, explained),
        summary: lead(
            j.case,
            j.history,
            &order_text(j.order),
            j.results.iter().map(|r| &r.differences),
        ),
        evidence: evidence(j, weak, explained),
        files: Vec::new(),
    }
}

/// The report's lead sentence from the first difference: what the serial
/// run in `order` does, and what this run did instead ("serial T1 → T2:
/// `T2.3` DELETE affected 1 row; here it waited for a lock and affected 0
/// rows").
fn lead<'d>(
    case: &TestCase,
    history: &History,
    order: &str,
    differences: impl IntoIterator<Item = &'d Differences>,
) -> String {
    for d in differences {
        if let Some(o) = d.outcomes.first() {
            let waited = history.record(o.at).is_some_and(|r| r.blocked.is_some());
            return format!(
                "serial {order}: `{}` {} {}; here it {}{}",
                o.at,
                case.statement(o.at).map_or("?", Statement::kind_name),
                o.serial,
                if waited { "waited for a lock and " } else { "" },
                o.concurrent
            );
        }
        if let Some(t) = d.tables.first() {
            return format!(
                "serial {order} leaves {} in `{}` ({}); here the table has {} instead",
                RowsText(&t.only_serial),
                t.table,
                t.columns.join(", "),
                RowsText(&t.only_concurrent)
            );
        }
    }
    String::new()
}

fn names(results: &[&VariantResult]) -> String {
    results
        .iter()
        .map(|r| r.variant.name())
        .collect::<Vec<_>>()
        .join(" and ")
}

fn title(results: &[VariantResult]) -> String {
    let state: Vec<&VariantResult> = results
        .iter()
        .filter(|r| !r.differences.tables.is_empty())
        .collect();
    if !state.is_empty() {
        return format!(
            "{} violation: the final state differs from the serial run in commit order",
            names(&state)
        );
    }
    let outcomes: Vec<&VariantResult> = results
        .iter()
        .filter(|r| !r.differences.outcomes.is_empty())
        .collect();
    format!(
        "{} violation: a write outcome differs from the serial run in commit order",
        names(&outcomes)
    )
}

/// One line of what differed, for undecided reasons.
fn summary(results: &[VariantResult]) -> String {
    let parts: Vec<String> = results
        .iter()
        .filter(|r| !r.differences.is_empty())
        .map(|r| {
            let mut what = Vec::new();
            if !r.differences.tables.is_empty() {
                let tables: Vec<String> = r
                    .differences
                    .tables
                    .iter()
                    .map(|t| format!("`{}`", t.table))
                    .collect();
                what.push(format!("the final state differs in {}", tables.join(", ")));
            }
            if !r.differences.outcomes.is_empty() {
                let writes: Vec<String> = r
                    .differences
                    .outcomes
                    .iter()
                    .map(|o| o.at.to_string())
                    .collect();
                what.push(format!("the outcome of {} differs", writes.join(", ")));
            }
            format!("{}: {}", r.variant, what.join(" and "))
        })
        .collect();
    format!(
        "the run differs from the serial run in FCRFS order ({})",
        parts.join("; ")
    )
}

fn assumed_semantics(j: &Judgement<'_>) -> String {
    let mut lines = vec![format!(
        "dialect `{}`; WriteCheck's Assumption 1: every write-write conflict, predicate conflicts included, \
         is blocked or aborted. The levels involved:\n",
        j.dialect.name
    )];
    for level in involved_levels(j.case) {
        lines.push(match j.dialect.level(level) {
            None => format!("- {level}: not described by the dialect"),
            Some(semantics) if semantics.notes.is_empty() => format!("- {}", semantics.summary()),
            Some(semantics) => format!(
                "- {} (notes: {})",
                semantics.summary(),
                semantics.notes.join("; ")
            ),
        });
    }
    lines.join("\n")
}

fn order_text(order: &[usize]) -> String {
    if order.is_empty() {
        return "(no transaction)".into();
    }
    order
        .iter()
        .map(|&t| txn_label(t))
        .collect::<Vec<_>>()
        .join(" → ")
}

fn aborted(history: &History) -> Vec<(usize, StatementRef, ErrorClass)> {
    history
        .transactions
        .iter()
        .enumerate()
        .filter_map(|(t, r)| match r.end {
            TxnEnd::Aborted { by, class } => Some((t, by, class)),
            _ => None,
        })
        .collect()
}

fn outcome_kind_text(kind: OutcomeDiffKind) -> &'static str {
    match kind {
        OutcomeDiffKind::SucceededOnlyConcurrently => "succeeded only in the concurrent run",
        OutcomeDiffKind::SucceededOnlySerially => "succeeded only in the serial run",
        OutcomeDiffKind::ErrorClassDiffers => "failed differently",
        OutcomeDiffKind::AffectedRowsDiffer => "affected a different number of rows",
    }
}

fn schedule_text(schedule: &[SerialTxn]) -> String {
    if schedule.is_empty() {
        return "(empty)".into();
    }
    schedule
        .iter()
        .map(|txn| {
            let refs: Vec<String> = txn.refs().map(|r| r.to_string()).collect();
            format!("{}: {}", txn_label(txn.txn), refs.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn table_markdown(diff: &TableDiff) -> String {
    format!(
        "Table `{}` (columns {}):\n- only in the concurrent run: {}\n- only in the serial run: {}\n",
        diff.table,
        diff.columns.join(", "),
        RowsText(&diff.only_concurrent),
        RowsText(&diff.only_serial)
    )
}

fn outcome_markdown(case: &TestCase, diff: &OutcomeDiff) -> String {
    format!(
        "- `{}` ({}) {}: concurrent run {}, serial run {}\n",
        diff.at,
        case.statement(diff.at).map_or("?", Statement::kind_name),
        outcome_kind_text(diff.kind),
        diff.concurrent,
        diff.serial
    )
}

fn explanation(
    j: &Judgement<'_>,
    weak: &[Weakness],
    explained: Option<&weak::Explanation>,
) -> String {
    let mut md = String::from(
        "The concurrent run does not have the effect of the serial run of its transactions in FCRFS order, \
         where each transaction takes its place at the statement that ended it (its COMMIT, ROLLBACK or \
         the statement it aborted at). Aborted transactions must have no effect and are left out.\n\n",
    );
    md.push_str(&format!("**FCRFS order:** {}\n\n", order_text(j.order)));
    let aborted = aborted(j.history);
    if !aborted.is_empty() {
        let list: Vec<String> = aborted
            .iter()
            .map(|(t, by, class)| format!("{} (at `{by}`: {class})", txn_label(*t)))
            .collect();
        md.push_str(&format!("**Aborted, left out:** {}\n\n", list.join(", ")));
    }
    for result in j.results {
        md.push_str(&format!(
            "### {} ({})\n\nSerial schedule: {}\n\n",
            result.variant,
            result.variant.definition(),
            schedule_text(&result.schedule)
        ));
        if result.differences.is_empty() {
            md.push_str("No difference.\n\n");
            continue;
        }
        for diff in &result.differences.tables {
            md.push_str(&table_markdown(diff));
            md.push('\n');
        }
        if !result.differences.outcomes.is_empty() {
            md.push_str("Write outcomes that differ:\n");
            for diff in &result.differences.outcomes {
                md.push_str(&outcome_markdown(j.case, diff));
            }
            md.push('\n');
        }
    }
    match explained {
        None if !weak.is_empty() => md.push_str(&format!(
            "> **Possibly permitted by the vendor:** {}. WriteCheck (section 6.4) reports such differences as \
             false positives; this is a finding because `findings = \"standard\"`.\n",
            whys(weak)
        )),
        None => {}
        Some(e) => md.push_str(&rules_markdown(j, weak, e)),
    }
    md
}

fn outcome_json(diff: &OutcomeDiff) -> serde_json::Value {
    json!({
        "statement": diff.at.to_string(),
        "kind": diff.kind,
        "concurrent": diff.concurrent,
        "serial": diff.serial,
    })
}

/// What the vendor's rules explain of the differences, and what they do not.
fn rules_markdown(j: &Judgement<'_>, weak: &[Weakness], e: &weak::Explanation) -> String {
    let mut md = format!(
        "### The vendor's rules\n\nWriteCheck's Assumption 1 does not hold at every level of this run: {}.\n\n",
        whys(weak)
    );
    if !e.used.is_empty() {
        md.push_str("Writes the level's rules let miss another transaction's change:\n");
        for x in &e.used {
            md.push_str(&format!("- {}\n", x.describe(j.case, j.dialect)));
        }
        md.push('\n');
    }
    if e.unexplained.is_empty() {
        md.push_str(
            "Every difference involves such a write, so the run shows the vendor's documented rule at work: \
             a vendor-permitted anomaly. The oracle puts the difference down to the rule because the write \
             ran under it; it does not derive the rows the rule gives (the `troc` oracle does, for two \
             transactions on one table).\n",
        );
    } else {
        md.push_str("**Not explained by the vendor's rules:**\n");
        for line in &e.unexplained {
            md.push_str(&format!("- {line}\n"));
        }
        md.push_str(
            "\nNo documented rule of the levels lets a write miss a change here, so the difference \
             violates the vendor's semantics too.\n",
        );
    }
    md
}

fn evidence(
    j: &Judgement<'_>,
    weak: &[Weakness],
    explained: Option<&weak::Explanation>,
) -> serde_json::Value {
    let variants: Vec<serde_json::Value> = j
        .results
        .iter()
        .map(|r| {
            json!({
                "variant": r.variant.name(),
                "serial_schedule": r.schedule.iter().map(|txn| json!({
                    "transaction": txn_label(txn.txn),
                    "statements": txn.refs().map(|s| s.to_string()).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "serial_state": r.replay.state,
                "table_differences": r.differences.tables,
                "outcome_differences": r.differences.outcomes.iter().map(outcome_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "fcrfs_order": j.order.iter().map(|&t| txn_label(t)).collect::<Vec<_>>(),
        "aborted": aborted(j.history).iter().map(|(t, by, class)| json!({
            "transaction": txn_label(*t),
            "by": by.to_string(),
            "class": class,
        })).collect::<Vec<_>>(),
        "concurrent_state": j.concurrent_state,
        "variants": variants,
        "explained_by": explained.map(|e| json!({
            "rules": e.rules(),
            "writes": e.used,
            "unexplained": e.unexplained,
        })),
        "permissible_because": weak.iter().map(|p| json!({
            "level": p.level,
            "why": p.why,
        })).collect::<Vec<_>>(),
    })
}

pub const SERIALIZABILITY_MODEL: &str = "serializability (Adya PL-3, ANSI SERIALIZABLE): the committed transactions \
must have the effect of running them one at a time in some order; checked on the final state and the outcomes of \
their writes, in every order of the committed transactions";

/// The finding when no serial order of the committed transactions explains
/// a run whose every transaction ran at a level the vendor declares
/// serializable (see [`crate::orders`]).
pub fn serializability_finding(
    case: &TestCase,
    history: &History,
    dialect: &DialectInfo,
    concurrent_state: &DbState,
    tried: &[(Vec<usize>, Differences)],
) -> Verdict {
    let levels = involved_levels(case);
    let mut assumed = vec![format!(
        "dialect `{}` declares every level of this run serializable, in some order that need not be the commit order:",
        dialect.name
    )];
    for level in &levels {
        if let Some(s) = dialect.level(*level) {
            assumed.push(format!("- {} (notes: {})", s.summary(), s.notes.join("; ")));
        }
    }
    let committed: Vec<String> = (0..case.transactions.len())
        .filter(|&t| history.transactions[t].end == TxnEnd::Committed)
        .map(txn_label)
        .collect();
    let mut md = format!(
        "Every transaction ran at a level the vendor declares serializable, so the committed transactions \
         ({}) must have the effect of running them one at a time in some order. The oracle replayed them \
         in each of the {} orders; none leaves the database as the concurrent run left it with the same \
         write outcomes. Rolled-back and aborted transactions take no part.\n\n",
        committed.join(", "),
        tried.len()
    );
    let aborted = aborted(history);
    if !aborted.is_empty() {
        let list: Vec<String> = aborted
            .iter()
            .map(|(t, by, class)| format!("{} (at `{by}`: {class})", txn_label(*t)))
            .collect();
        md.push_str(&format!("**Aborted, left out:** {}\n\n", list.join(", ")));
    }
    md.push_str("**Final state of the concurrent run:**\n");
    for t in &concurrent_state.tables {
        md.push_str(&format!("- `{}`: {}\n", t.table, RowsText(&t.rows)));
    }
    md.push('\n');
    for (order, differences) in tried {
        md.push_str(&format!(
            "### Serial order {}\n\n",
            crate::orders::order_label(order)
        ));
        for diff in &differences.tables {
            md.push_str(&table_markdown(diff));
            md.push('\n');
        }
        if !differences.outcomes.is_empty() {
            md.push_str("Write outcomes that differ:\n");
            for diff in &differences.outcomes {
                md.push_str(&outcome_markdown(case, diff));
            }
            md.push('\n');
        }
    }
    Verdict::Finding(Finding {
        signature: String::new(),
        title: "serializability violation: no serial order of the committed transactions has the run's effect"
            .into(),
        model: SERIALIZABILITY_MODEL.into(),
        assumed_semantics: assumed.join("\n"),
        explanation: md,
        summary: match tried.first() {
            Some((order, d)) => format!(
                "none of the {} serial orders of {} has this run's effect; {}",
                tried.len(),
                committed.join(", "),
                lead(case, history, &crate::orders::order_label(order), [d])
            ),
            None => String::new(),
        },
        evidence: json!({
            "committed": committed,
            "concurrent_state": concurrent_state,
            "orders": tried.iter().map(|(order, d)| json!({
                "order": order.iter().map(|&t| txn_label(t)).collect::<Vec<_>>(),
                "table_differences": d.tables,
                "outcome_differences": d.outcomes.iter().map(outcome_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        }),
        files: Vec::new(),
    })
}
