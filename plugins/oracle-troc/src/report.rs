//! Turns differences into a finding that names the model and the vendor
//! semantics it assumed.

use crate::walk::{DiffKind, Difference};
use serde_json::json;
use txlab_plugin_api::prelude::*;

pub const MODEL: &str = "Troc's transaction oracle (Dou et al., ICSE 2023): under pessimistic concurrency control, \
each statement of a transaction, run alone on the database view its isolation level allows (visibility rules V1-V4 \
over per-row version chains, taken from the dialect's semantics profile), must return the same rows and make the same \
changes as in the concurrent run, the final table must hold the latest committed versions, a statement must wait for \
row locks the other running transaction holds, and a level that aborts the second writer must abort it";

/// Isolation levels of the case's transactions, each once, in a fixed order.
fn involved_levels(case: &TestCase) -> Vec<IsolationLevel> {
    let mut levels: Vec<IsolationLevel> = case.transactions.iter().map(|t| t.isolation).collect();
    levels.sort();
    levels.dedup();
    levels
}

pub fn assumed_semantics(case: &TestCase, dialect: &DialectInfo) -> String {
    let mut lines = vec![format!(
        "dialect `{}`; every statement reads its view as the profile of its transaction's level says \
         (snapshot point for plain SELECT; snapshot or latest committed rows for UPDATE, DELETE and locking reads; \
         INSERT checks keys against the latest committed rows). The levels involved:\n",
        dialect.name
    )];
    for level in involved_levels(case) {
        lines.push(match dialect.level(level) {
            None => format!("- {level}: not described by the dialect"),
            Some(s) if s.notes.is_empty() => format!("- {}", s.summary()),
            Some(s) => format!("- {} (notes: {})", s.summary(), s.notes.join("; ")),
        });
    }
    let engine = &dialect.engine;
    lines.push(if engine.notes.is_empty() {
        format!("- at every level: {}", engine.summary())
    } else {
        format!(
            "- at every level: {} (notes: {})",
            engine.summary(),
            engine.notes.join("; ")
        )
    });
    lines.join("\n")
}

fn heading(case: &TestCase, d: &Difference) -> String {
    match d.at {
        Some(at) => format!(
            "{} at `{at}` ({}, {})",
            d.kind.title(),
            case.statement(at).map_or("?", Statement::kind_name),
            d.level.map_or("?", IsolationLevel::name)
        ),
        None => d.kind.title().to_string(),
    }
}

/// The first difference without its position: what kind, of which statement
/// kind, at which level. A reduced case keeps it while statements renumber.
fn signature(case: &TestCase, d: &Difference) -> String {
    match d.at {
        Some(at) => format!(
            "Troc: {} ({}, {})",
            d.kind.title(),
            case.statement(at).map_or("?", Statement::kind_name),
            d.level.map_or("?", IsolationLevel::name)
        ),
        None => format!("Troc: {}", d.kind.title()),
    }
}

/// Rows for a sentence: the rows themselves when there are few.
fn few_rows(rows: &str, count: usize) -> String {
    if count <= 3 {
        rows.to_string()
    } else {
        format!("{count} rows")
    }
}

/// The report's lead sentence from the first difference: what the
/// statement does on the view its level allows, and what it did here.
fn lead(case: &TestCase, d: &Difference) -> String {
    let Some(at) = d.at else {
        return format!(
            "the final table should hold the latest committed version of every row{}; here it holds {}",
            if d.only_expected.is_empty() {
                String::new()
            } else {
                format!(", among them {}", RowsText(&d.only_expected))
            },
            if d.only_actual.is_empty() {
                "no rows beyond those".to_string()
            } else {
                RowsText(&d.only_actual).to_string()
            }
        );
    };
    let statement = format!(
        "`{at}` {} at {}",
        case.statement(at).map_or("?", Statement::kind_name),
        d.level.map_or("?", IsolationLevel::name)
    );
    match d.kind {
        DiffKind::QueryResult => {
            let mut here = Vec::new();
            if !d.only_expected.is_empty() {
                here.push(format!("it did not return {}", RowsText(&d.only_expected)));
            }
            if !d.only_actual.is_empty() {
                here.push(format!(
                    "it returned {}, which that view does not hold",
                    RowsText(&d.only_actual)
                ));
            }
            let expected_rows = d.expected.matches('(').count();
            format!(
                "{statement}, run alone on the view its level allows, returns {}; here {}",
                few_rows(&d.expected, expected_rows),
                here.join(" and ")
            )
        }
        DiffKind::MissingLock => {
            format!("{statement} was expected {}; here {}", d.expected, d.actual)
        }
        DiffKind::MissingAbort => format!(
            "{statement} should fail with {}; here {}",
            d.expected, d.actual
        ),
        _ => match d.expected.strip_prefix("it ") {
            Some(expected) => format!(
                "{statement}, run alone on the view its level allows, {expected}; here {}",
                d.actual
            ),
            None => format!(
                "{statement}: the model gives {}; here {}",
                d.expected, d.actual
            ),
        },
    }
}

fn title(case: &TestCase, differences: &[Difference]) -> String {
    let first = &differences[0];
    let mut title = format!("Troc: {}", heading(case, first));
    if differences.len() > 1 {
        title.push_str(&format!(" and {} more", differences.len() - 1));
    }
    title
}

/// An order as the report shows it, with the statements that waited marked.
fn order_text(history: &History, order: &[StatementRef]) -> String {
    order
        .iter()
        .map(|at| {
            let waited = history.record(*at).is_some_and(|r| r.blocked.is_some());
            if waited {
                format!("{at}(waited)")
            } else {
                at.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn explanation(
    case: &TestCase,
    history: &History,
    order: &[StatementRef],
    differences: &[Difference],
) -> String {
    let mut md = String::from(
        "Every statement was run alone, in autocommit mode, on the database view its transaction's isolation \
         level allows at the point where it executed in the real run (the execution order below), built from the \
         row versions written so far. The real run differs from that model:\n\n",
    );
    md.push_str(&format!(
        "**Execution order:** {}\n\n",
        order_text(history, order)
    ));
    if order != history.completion_order.as_slice() {
        md.push_str(&format!(
            "The replies arrived in another order: {}. A statement that waited is placed after the \
             statement that ended the other transaction and so released what it waited for: a COMMIT or \
             ROLLBACK, which releases its locks before it replies, or the statement at which the other \
             transaction was aborted (a deadlock victim is rolled back before the statement that waited for \
             it goes on, but its error may arrive later).\n\n",
            order_text(history, &history.completion_order)
        ));
    }
    for d in differences {
        md.push_str(&format!("### {}\n\n", heading(case, d)));
        if d.kind != DiffKind::FinalState {
            md.push_str(&format!("- view: {}\n", d.view));
            if !d.view_rows.is_empty() || d.kind == DiffKind::QueryResult {
                let label = match d.kind {
                    DiffKind::MissingLock | DiffKind::MissingAbort => "rows concerned",
                    _ => "rows of the view",
                };
                md.push_str(&format!("- {label}: {}\n", RowsText(&d.view_rows)));
            }
        }
        md.push_str(&format!(
            "- expected: {}\n- actual: {}\n",
            d.expected, d.actual
        ));
        if !d.only_expected.is_empty() || !d.only_actual.is_empty() {
            md.push_str(&format!(
                "- only expected: {}\n- only in the real run: {}\n",
                RowsText(&d.only_expected),
                RowsText(&d.only_actual)
            ));
        }
        md.push('\n');
    }
    md
}

/// A finding of only vendor-permitted differences, as the vendor-permitted
/// anomaly it is: the standard model it violates, and why the vendor permits
/// it.
pub fn permitted(mut f: Finding, first: DiffKind) -> Finding {
    let (model, why) = match first {
        DiffKind::LostUpdate => (
            "the standard model of REPEATABLE READ (Adya's PL-2.99, Berenson et al.'s P4): a transaction that read a row at its snapshot may not overwrite a version another transaction committed after it (a lost update, G-single)",
            "The vendor documents that at REPEATABLE READ the snapshot applies to SELECT, while UPDATE and DELETE act on the latest committed rows (a current read), so a second writer waits for the first and then overwrites its committed change: lost updates are possible (MySQL manual, innodb-consistent-read.html and innodb-locking-reads.html). The dialect declares it (writes read the latest committed rows, the second writer proceeds).",
        ),
        DiffKind::SemiConsistentRead => (
            "Troc's statement view at READ COMMITTED and READ UNCOMMITTED: a write acts on the latest committed version of every row it matches once it has all the locks it waited for, so an UPDATE that waited updates every row that matches after the other transaction ended",
            "The vendor documents the semi-consistent read: at READ COMMITTED (and READ UNCOMMITTED) an UPDATE that finds a row locked reads the row's latest committed version and skips the row when that version does not match the WHERE clause; only a row that matches is read again, waited for and locked (MySQL manual, innodb-transaction-isolation-levels.html, READ COMMITTED; MariaDB: set-transaction, innodb_snapshot_isolation OFF). Rows after the one it waited for are read once the other transaction has ended. MDEV-26643 and MySQL#104833 report the resulting skipped rows; both are verified and unfixed. The dialect declares it (`semi_consistent_writes`, `after_wait = latest_rows`).",
        ),
        DiffKind::PassedBeforeWait => (
            "Troc's statement view at READ COMMITTED and READ UNCOMMITTED: a write or locking read acts on the latest committed version of every row it matches once it has all the locks it waited for",
            "The vendor documents that at READ COMMITTED (and READ UNCOMMITTED) locking reads, UPDATE and DELETE lock only index records, not the gaps before them, so other sessions insert freely and phantom problems may occur (MySQL manual, innodb-transaction-isolation-levels.html, READ COMMITTED); a statement reads the clustered index in key order, so a row that appears before the row it waits for is behind its scan position once it resumes. The dialect declares it (`predicate_conflicts = false`, `after_wait = latest_rows`).",
        ),
        DiffKind::RecheckAfterWait => (
            "Troc's statement view at READ COMMITTED: a write or locking read acts on the latest committed version of every row it matches once it has all the locks it waited for",
            "The vendor documents that UPDATE, DELETE and SELECT FOR UPDATE/SHARE at READ COMMITTED find their rows in the snapshot taken when the command started; a row a concurrent transaction updated is waited for and its WHERE clause evaluated again on the updated version, while rows that only the newer state holds or matches are not seen (PostgreSQL documentation, transaction-iso.html, 13.2.1). The dialect declares it (`after_wait = recheck_changed`).",
        ),
        _ => (
            "the standard model of the level: a transaction sees its own writes, so its snapshot reads show the rows its UPDATE wrote, also where the values did not change",
            "The vendor documents that an UPDATE setting a column to the value it already has changes nothing, so the row keeps its version and the transaction's snapshot reads keep showing the snapshot's version (MySQL manual, update.html; MDEV-26642 and TiDB#28212, closed as design decisions). The dialect declares it (`same_value_update = no_version`).",
        ),
    };
    f.model = format!("{model} ({MODEL})");
    f.assumed_semantics = format!("{why}\n\n{}", f.assumed_semantics);
    f
}

/// The finding of `differences`, found walking the statements in `order`
/// (the history's completion order, with the statements that waited placed
/// after what released them).
pub fn finding(
    case: &TestCase,
    history: &History,
    order: &[StatementRef],
    dialect: &DialectInfo,
    differences: &[Difference],
) -> Verdict {
    let labels = |order: &[StatementRef]| order.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let mut evidence = json!({
        "execution_order": labels(order),
        "differences": differences,
    });
    if order != history.completion_order.as_slice() {
        evidence["completion_order"] = json!(labels(&history.completion_order));
    }
    Verdict::Finding(Finding {
        title: title(case, differences),
        signature: signature(case, &differences[0]),
        model: MODEL.into(),
        assumed_semantics: assumed_semantics(case, dialect),
        explanation: explanation(case, history, order, differences),
        summary: lead(case, &differences[0]),
        evidence,
        files: Vec::new(),
    })
}
