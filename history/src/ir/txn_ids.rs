//! The transaction ids written into the writers column: one per explicit
//! transaction, one per statement of an autocommit transaction (each is a
//! transaction of its own), numbered from 1 in case order; 0 is the initial
//! data.

use txlab_plugin_api::prelude::*;

/// The case's transaction ids.
pub struct TxnIds {
    /// Per transaction of the case, per statement.
    ids: Vec<Vec<u64>>,
    labels: Vec<String>,
}

impl TxnIds {
    /// The id of the initial data.
    pub const INITIAL: u64 = 0;

    /// The ids of a case's transactions.
    pub fn of(case: &TestCase) -> Self {
        let mut ids = Vec::new();
        let mut labels = vec!["T0 (initial data)".to_string()];
        for (t, txn) in case.transactions.iter().enumerate() {
            match txn.kind {
                TxnKind::Explicit => {
                    ids.push(vec![labels.len() as u64; txn.statements.len()]);
                    labels.push(txn_label(t));
                }
                TxnKind::Autocommit => {
                    let mut per = Vec::new();
                    for s in 0..txn.statements.len() {
                        per.push(labels.len() as u64);
                        labels.push(StatementRef::new(t, s).to_string());
                    }
                    ids.push(per);
                }
            }
        }
        TxnIds { ids, labels }
    }

    /// The transaction id of the statement at `at`.
    pub fn id(&self, at: StatementRef) -> u64 {
        self.ids[at.txn()][at.stmt()]
    }

    /// How reports name transaction `id`: `T2`, or `T3.1` for an autocommit
    /// statement.
    pub fn label(&self, id: u64) -> String {
        self.labels
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| format!("an unknown transaction {id}"))
    }

    /// Every id of the case's transactions (not the initial data).
    pub fn all(&self) -> impl Iterator<Item = u64> + '_ {
        1..self.labels.len() as u64
    }

    /// The statements that run as transaction `id`.
    pub fn statements(&self, id: u64) -> Vec<StatementRef> {
        let mut out = Vec::new();
        for (t, per) in self.ids.iter().enumerate() {
            for (s, &i) in per.iter().enumerate() {
                if i == id {
                    out.push(StatementRef::new(t, s));
                }
            }
        }
        out
    }
}
