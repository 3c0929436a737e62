//! Unit tests: hand-built histories of every class, the IsoRel digest's
//! fixtures, violations, and both models.

mod classes;
mod fixtures;
mod models;
mod search;
mod violations;

use crate::*;
use std::collections::HashMap;

/// Builds histories tersely: every read is a new statement of its
/// transaction, in table `t` unless named.
pub(crate) struct B {
    pub h: History,
    next: HashMap<TxnId, u32>,
}

impl B {
    pub fn new() -> B {
        B {
            h: History::new(),
            next: HashMap::new(),
        }
    }

    /// Committed transactions.
    pub fn txns(mut self, ids: &[TxnId]) -> B {
        for &id in ids {
            self.h.add_transaction(Transaction::committed(id)).unwrap();
        }
        self
    }

    pub fn add(mut self, t: Transaction) -> B {
        self.h.add_transaction(t).unwrap();
        self
    }

    pub fn aborted(self, id: TxnId) -> B {
        self.add(Transaction::aborted(id))
    }

    pub fn obs(
        mut self,
        txn: TxnId,
        kind: ReadKind,
        table: &str,
        row: RowId,
        versions: &[TxnId],
        at: Option<Interval>,
    ) -> B {
        let index = self.next.entry(txn).or_insert(0);
        *index += 1;
        self.h
            .observe(Observation {
                statement: StatementId::new(txn, *index),
                kind,
                table: table.into(),
                row,
                versions: versions.to_vec(),
                values: String::new(),
                at,
            })
            .unwrap();
        self
    }

    /// A plain read of row `row` of `t`.
    pub fn read(self, txn: TxnId, row: RowId, versions: &[TxnId]) -> B {
        self.obs(txn, ReadKind::Plain, "t", row, versions, None)
    }

    pub fn read_in(self, txn: TxnId, table: &str, row: RowId, versions: &[TxnId]) -> B {
        self.obs(txn, ReadKind::Plain, table, row, versions, None)
    }

    pub fn locking(self, txn: TxnId, row: RowId, versions: &[TxnId]) -> B {
        self.obs(txn, ReadKind::Locking, "t", row, versions, None)
    }

    pub fn before_delete(self, txn: TxnId, row: RowId, versions: &[TxnId]) -> B {
        self.obs(txn, ReadKind::BeforeDelete, "t", row, versions, None)
    }

    pub fn check(&self) -> Report {
        check(&self.h, &Options::default())
    }

    pub fn check_with(&self, o: &Options) -> Report {
        check(&self.h, o)
    }
}

/// The phenomena of a report, in order.
pub(crate) fn phenomena(r: &Report) -> Vec<(Phenomenon, Option<SqlAnomaly>)> {
    r.anomalies
        .iter()
        .map(|a| (a.phenomenon, a.subtype))
        .collect()
}

/// Edges as (kind, from, to, row), sorted.
pub(crate) fn edge_set(edges: &[Edge]) -> Vec<(DepKind, TxnId, TxnId, Option<RowId>)> {
    let mut v: Vec<_> = edges
        .iter()
        .map(|e| (e.kind, e.from, e.to, e.row))
        .collect();
    v.sort();
    v
}

/// A cycle as (kind, from, to, row) in order.
pub(crate) fn cycle_of(a: &Anomaly) -> Vec<(DepKind, TxnId, TxnId, Option<RowId>)> {
    a.cycle
        .iter()
        .map(|e| (e.kind, e.from, e.to, e.row))
        .collect()
}

pub(crate) use DepKind::{RW, SO, WR, WW};
