//! What a TxCheck finding says: the model, the semantics it assumed, and
//! for a sorted run that disagreed, the order, the dependencies and every
//! difference.

use crate::graph::Sdg;
use crate::replay::TableDiff;
use crate::units::Unit;
use serde_json::json;
use std::collections::BTreeSet;
use txlab_plugin_api::prelude::*;

pub const MODEL: &str =
    "TxCheck's statement dependency graph (Jiang et al., OSDI 2023, Theorem 1): \
    the statements of the committed transactions, sorted by their dependencies and run one after \
    another without transactions, give every statement the same result and leave the same database";

/// A statement as findings name it: `T1.2 (UPDATE)`.
pub(crate) fn label(case: &TestCase, at: StatementRef) -> String {
    format!(
        "{at} ({})",
        case.statement(at).map_or("?", Statement::kind_name)
    )
}

/// The levels the case ran at, as the dialect describes them.
pub(crate) fn semantics(case: &TestCase, dialect: &DialectInfo) -> String {
    let levels: BTreeSet<IsolationLevel> = case.transactions.iter().map(|t| t.isolation).collect();
    let described: Vec<String> = levels
        .iter()
        .map(|&l| match dialect.level(l) {
            Some(s) => format!(
                "{l}: snapshot {:?}, UPDATE/DELETE read {:?}",
                case.transactions
                    .iter()
                    .find(|t| t.isolation == l)
                    .map_or(s.snapshot, |t| t.snapshot_point(s)),
                s.write_reads
            ),
            None => format!("{l}: not described by the dialect"),
        })
        .collect();
    format!(
        "{} ({}); statements of aborted transactions leave no trace; a statement run alone in autocommit sees every earlier statement's effect",
        dialect.name,
        described.join("; ")
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn finding(
    case: &TestCase,
    units: &[Unit],
    order: &[usize],
    sdg: &Sdg,
    differing: &[(StatementRef, Outcome, Outcome)],
    tables: &[TableDiff],
    dialect: &DialectInfo,
) -> Finding {
    let sorted: Vec<String> = order.iter().map(|&u| units[u].main.to_string()).collect();
    let title = match differing.first() {
        Some((at, transactional, alone)) => format!(
            "{} {transactional} in the transactional run, but {alone} when the statements run sorted by their dependencies without transactions",
            label(case, *at)
        ),
        None => format!(
            "the database ends differently: table `{}` has {} rows only the transactional run left and {} only the run without transactions left",
            tables[0].table,
            tables[0].only_transactional.len(),
            tables[0].only_replayed.len()
        ),
    };
    let signature = match differing.first() {
        Some((at, _, _)) => format!(
            "{} result differs",
            case.statement(*at).map_or("?", Statement::kind_name)
        ),
        None => "final state differs".to_string(),
    };
    let mut edges = Vec::new();
    for e in sdg.graph.edge_indices() {
        let (a, b) = sdg.graph.edge_endpoints(e).expect("edge exists");
        let kinds: Vec<String> = sdg.graph[e].iter().map(ToString::to_string).collect();
        edges.push(format!(
            "{} → {}: {}",
            units[sdg.graph[a]].main,
            units[sdg.graph[b]].main,
            kinds.join(", ")
        ));
    }
    let mut explanation = format!(
        "The committed transactions' statements, sorted by the dependencies their added reads show, were run one after another without transactions on a fresh copy of the initial rows, in this order: {}.\n\nDependencies:\n{}\n",
        sorted.join(", "),
        edges.iter().map(|e| format!("- {e}")).collect::<Vec<_>>().join("\n")
    );
    for (at, transactional, alone) in differing {
        explanation.push_str(&format!(
            "\n- {}: {transactional} in the transactional run, {alone} without transactions",
            label(case, *at)
        ));
    }
    for t in tables {
        explanation.push_str(&format!(
            "\n- table `{}`: rows only the transactional run left: {:?}; rows only the run without transactions left: {:?}",
            t.table, t.only_transactional, t.only_replayed
        ));
    }
    Finding {
        title,
        signature,
        model: MODEL.to_string(),
        assumed_semantics: semantics(case, dialect),
        explanation,
        summary: match differing.first() {
            Some((at, transactional, alone)) => format!(
                "run sorted by their dependencies without transactions, `{at}` {} {alone}; here it {transactional}",
                case.statement(*at).map_or("?", Statement::kind_name)
            ),
            None => format!(
                "run sorted by their dependencies without transactions, the statements leave {} in `{}`; here the table has {}",
                RowsText(&tables[0].only_replayed),
                tables[0].table,
                RowsText(&tables[0].only_transactional)
            ),
        },
        evidence: json!({
            "order": sorted,
            "dependencies": edges,
            "differing": differing.iter().map(|(at, t, a)| json!({
                "statement": at.to_string(), "transactional": t, "without_transactions": a
            })).collect::<Vec<_>>(),
            "tables": tables.iter().map(|t| json!({
                "table": t.table,
                "only_transactional": t.only_transactional,
                "only_without_transactions": t.only_replayed,
            })).collect::<Vec<_>>(),
        }),
        files: Vec::new(),
    }
}
