//! A statement graph with a cycle cannot be sorted; the transactions'
//! dependency graph can still be judged. The versions the added reads
//! returned become `txlab-history`'s history (each row's version list: the
//! transactions that installed its committed versions, in the order their
//! after-write reads completed), and the anomalies it finds are judged by the
//! standard model of each level and by the vendor's semantics, as IsoRel's
//! are. Item dependencies only: every read returned whole rows.

use crate::graph::{Installer, Observed, Version};
use crate::units::{Role, Unit};
use std::collections::BTreeMap;
use txlab_history as h;
use txlab_history::verdict::{FindingsFrom, Source};
use txlab_plugin_api::prelude::*;

const SOURCE: Source<'static> = Source {
    oracle: "TxCheck",
    provenance: "The statement dependency graph had a cycle, so the transactions' dependencies were judged instead: they come from the item and version keys the added reads returned, each row's versions in the order the statements that installed them completed (TxCheck's instrumentation).",
    guarantees: "every write sets a version key no other statement uses and the after-write read shows the versions it installed, so every committed version of a row is known with its writer.",
    assumes: "none beyond atomic statements: a write and its version key are one statement",
};

fn transaction_id(t: usize) -> h::TxnId {
    t as h::TxnId + 1
}

/// The verdict of the transactions' dependency graph; `None` when it finds
/// nothing either model forbids.
pub fn classify(
    case: &TestCase,
    history: &History,
    units: &[Unit],
    observed: &Observed,
    chains: &BTreeMap<i64, Vec<(usize, Version)>>,
    dialect: &DialectInfo,
    findings_from: FindingsFrom,
) -> Option<Verdict> {
    let mut hist = h::History::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        let outcome = match history.transactions[t].end {
            TxnEnd::Committed => h::TxnOutcome::Committed,
            TxnEnd::Unfinished => h::TxnOutcome::Unknown,
            _ => h::TxnOutcome::Aborted,
        };
        let record = h::Transaction::new(transaction_id(t), outcome)
            .with_label(txn_label(t))
            .at_level(txn.isolation);
        hist.add_transaction(record).ok()?;
    }
    let writer = |installer: &Installer| match installer {
        Installer::Initial => h::T0,
        Installer::Unit(u) => transaction_id(units[*u].txn),
    };
    for (u, unit) in units.iter().enumerate() {
        let reads = observed.reads[u].iter();
        for (role, table, seen) in reads {
            let at = unit
                .with_role(*role)
                .next()
                .expect("a read of the unit has its role");
            let kind = match (role, case.statement(at)) {
                (Role::BeforeWrite, _)
                    if matches!(
                        case.statement(unit.main),
                        Some(Statement::Delete(_)) | Some(Statement::Insert(_))
                    ) =>
                {
                    if observed.removed[u].is_empty() {
                        h::ReadKind::Plain
                    } else {
                        h::ReadKind::BeforeDelete
                    }
                }
                (_, Some(s)) if s.is_locking_read() => h::ReadKind::Locking,
                _ => h::ReadKind::Plain,
            };
            for &(item, version) in seen {
                let Some(chain) = chains.get(&item) else {
                    continue;
                };
                let Some(end) = chain.iter().position(|(_, v)| *v == (item, version)) else {
                    // An aborted transaction's version: judged before, not here.
                    continue;
                };
                let versions = chain[..=end]
                    .iter()
                    .map(|(_, v)| writer(&observed.installer[v]))
                    .collect();
                hist.observe(h::Observation {
                    statement: h::StatementId::labelled(
                        transaction_id(at.txn()),
                        at.stmt() as u32,
                        at.to_string(),
                    ),
                    kind,
                    table: table.clone(),
                    row: item as h::RowId,
                    versions,
                    values: String::new(),
                    at: None,
                })
                .ok()?;
            }
        }
    }
    let report = h::check(&hist, &h::Options::default());
    match txlab_history::verdict::verdict(&hist, &report, dialect, findings_from, &SOURCE) {
        v @ (Verdict::Finding(_) | Verdict::VendorPermitted(_)) => Some(v),
        _ => None,
    }
}
