//! Row version chains and the views built from them (Troc §III-C, visibility
//! rules V1–V4). Pure data: no database access.

use std::collections::{BTreeMap, BTreeSet};
use txlab_plugin_api::prelude::*;

/// A row's identity: the value of the auxiliary row-id column.
pub type Rid = i64;

/// A row as the table holds it, every column in table order (row id included).
pub type Row = Vec<Value>;

/// The rows of a view, by row id.
pub type View = BTreeMap<Rid, Row>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// The initial rows.
    Init,
    /// A transaction of the case, by index.
    Txn(usize),
}

/// One version of a row: ⟨data, writer, deleted⟩, plus whether an UPDATE wrote
/// the values the row already had (vendors disagree whether that is a version).
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    pub data: Row,
    pub writer: Writer,
    pub deleted: bool,
    pub same_value: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Active,
    /// Committed as the `n`-th commit of the run (from 1).
    Committed(u64),
    /// Rolled back by ROLLBACK or by the DBMS.
    Ended,
}

/// Row lock modes, for the missing-lock check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LockMode {
    Shared,
    Exclusive,
}

#[derive(Clone, Debug)]
pub struct TxnState {
    pub status: Status,
    /// The number of commits the snapshot includes, once it is taken.
    pub snapshot: Option<u64>,
    /// Row locks taken by statements that succeeded, held until the end.
    pub locks: BTreeMap<Rid, LockMode>,
    /// Rows whose clustering key an INSERT of this transaction collided with
    /// and failed on. InnoDB keeps a shared lock on such an index record
    /// until the transaction ends ("If a duplicate-key error occurs, a shared
    /// lock on the duplicate index record is set", innodb-locks-set); kept
    /// apart from `locks` because only the scan-order rule for a statement
    /// that waited uses it (where a scan stopped), not the missing-lock check.
    pub key_collisions: BTreeSet<Rid>,
    /// Rows an UPDATE or DELETE of this transaction matched before it
    /// failed (a duplicate key, a value out of range) while the transaction
    /// went on: InnoDB rolls back the statement, not the row locks it took
    /// on the rows it visited before the failure ("Locks are not released in
    /// a rollback of a single SQL statement", innodb-error-handling), which
    /// it holds until the transaction ends. Which of the matched rows it visited is not known,
    /// so, like `key_collisions`, these serve only the scan-order rule for a
    /// statement that waited, never the missing-lock check.
    pub failed_write_rows: BTreeSet<Rid>,
}

/// Which versions a statement sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// V1+V2: the latest version of every row, uncommitted ones included.
    Dirty,
    /// V1+V3: own writes plus the latest committed version.
    LatestCommitted,
    /// V1+V4: own writes plus what was committed when the snapshot was taken.
    /// `same_value_is_version` = false skips own same-value versions (InnoDB).
    Snapshot { same_value_is_version: bool },
}

impl ViewKind {
    pub fn describe(self) -> &'static str {
        match self {
            ViewKind::Dirty => "the latest version of every row, uncommitted ones included (V1+V2)",
            ViewKind::LatestCommitted => {
                "its own writes plus the latest committed version of every row (V1+V3)"
            }
            ViewKind::Snapshot {
                same_value_is_version: true,
            } => "its own writes plus the rows committed when its snapshot was taken (V1+V4)",
            ViewKind::Snapshot {
                same_value_is_version: false,
            } => "its own writes plus the rows committed when its snapshot was taken (V1+V4), a same-value UPDATE counting as no change",
        }
    }
}

/// The database change history of one table and the transactions' states.
#[derive(Clone, Debug)]
pub struct Model {
    pub chains: BTreeMap<Rid, Vec<Version>>,
    pub txns: Vec<TxnState>,
    pub commits: u64,
    /// Whether a REPLACE has replaced an existing row on a DBMS that may
    /// perform that as an update of the same row (InnoDB; the dialect's
    /// `replace_may_update_in_place`): the model takes it as a delete and an
    /// insert of another row, and reads and writes of it can differ for that
    /// reason.
    pub replaced_a_row: bool,
}

/// A statement's effect on rows, found by diffing its view before and after.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effect {
    /// New data per row (inserted or changed rows, and same-value updates).
    pub written: BTreeMap<Rid, (Row, bool)>,
    /// Rows the statement deleted, with their data before.
    pub deleted: BTreeMap<Rid, Row>,
}

impl Effect {
    pub fn rows(&self) -> BTreeSet<Rid> {
        self.written
            .keys()
            .chain(self.deleted.keys())
            .copied()
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.written.is_empty() && self.deleted.is_empty()
    }
}

impl Model {
    pub fn new(initial: View, transactions: usize) -> Self {
        Model {
            chains: initial
                .into_iter()
                .map(|(rid, data)| {
                    (
                        rid,
                        vec![Version {
                            data,
                            writer: Writer::Init,
                            deleted: false,
                            same_value: false,
                        }],
                    )
                })
                .collect(),
            txns: vec![
                TxnState {
                    status: Status::Active,
                    snapshot: None,
                    locks: BTreeMap::new(),
                    key_collisions: BTreeSet::new(),
                    failed_write_rows: BTreeSet::new(),
                };
                transactions
            ],
            commits: 0,
            replaced_a_row: false,
        }
    }

    fn committed_within(&self, writer: Writer, limit: Option<u64>) -> bool {
        match writer {
            Writer::Init => true,
            Writer::Txn(t) => match self.txns[t].status {
                Status::Committed(n) => limit.is_none_or(|l| n <= l),
                _ => false,
            },
        }
    }

    /// The view of transaction `t`.
    pub fn view(&self, t: usize, kind: ViewKind) -> View {
        let mut view = View::new();
        for (&rid, chain) in &self.chains {
            let visible = chain.iter().rev().find(|v| match kind {
                ViewKind::Dirty => true,
                ViewKind::LatestCommitted => {
                    v.writer == Writer::Txn(t) || self.committed_within(v.writer, None)
                }
                ViewKind::Snapshot {
                    same_value_is_version,
                } => {
                    if v.writer == Writer::Txn(t) {
                        same_value_is_version || !v.same_value
                    } else {
                        self.committed_within(v.writer, Some(self.txns[t].snapshot.unwrap_or(0)))
                    }
                }
            });
            if let Some(v) = visible {
                if !v.deleted {
                    view.insert(rid, v.data.clone());
                }
            }
        }
        view
    }

    /// The latest committed rows: the state once every transaction has ended.
    pub fn committed_state(&self) -> View {
        let mut view = View::new();
        for (&rid, chain) in &self.chains {
            if let Some(v) = chain
                .iter()
                .rev()
                .find(|v| self.committed_within(v.writer, None))
            {
                if !v.deleted {
                    view.insert(rid, v.data.clone());
                }
            }
        }
        view
    }

    pub fn take_snapshot(&mut self, t: usize, commits: u64) {
        if self.txns[t].snapshot.is_none() {
            self.txns[t].snapshot = Some(commits);
        }
    }

    pub fn commit(&mut self, t: usize) {
        if self.txns[t].status == Status::Active {
            self.commits += 1;
            self.txns[t].status = Status::Committed(self.commits);
        }
        self.txns[t].locks.clear();
        self.txns[t].key_collisions.clear();
        self.txns[t].failed_write_rows.clear();
    }

    /// ROLLBACK, or an abort by the DBMS: every version of `t` disappears.
    pub fn rollback(&mut self, t: usize) {
        for chain in self.chains.values_mut() {
            chain.retain(|v| v.writer != Writer::Txn(t));
        }
        self.chains.retain(|_, chain| !chain.is_empty());
        self.txns[t].status = Status::Ended;
        self.txns[t].locks.clear();
        self.txns[t].key_collisions.clear();
        self.txns[t].failed_write_rows.clear();
    }

    pub fn apply(&mut self, t: usize, effect: &Effect) {
        for (&rid, (data, same_value)) in &effect.written {
            self.chains.entry(rid).or_default().push(Version {
                data: data.clone(),
                writer: Writer::Txn(t),
                deleted: false,
                same_value: *same_value,
            });
            self.lock(t, rid, LockMode::Exclusive);
        }
        for (&rid, data) in &effect.deleted {
            self.chains.entry(rid).or_default().push(Version {
                data: data.clone(),
                writer: Writer::Txn(t),
                deleted: true,
                same_value: false,
            });
            self.lock(t, rid, LockMode::Exclusive);
        }
    }

    pub fn lock(&mut self, t: usize, rid: Rid, mode: LockMode) {
        let held = self.txns[t].locks.entry(rid).or_insert(mode);
        if mode > *held {
            *held = mode;
        }
    }

    /// Whether every version `u` wrote of `rid` is a same-value UPDATE: the
    /// row's values did not change (InnoDB then writes nothing).
    pub fn only_same_values(&self, u: usize, rid: Rid) -> bool {
        self.chains.get(&rid).is_some_and(|chain| {
            chain
                .iter()
                .filter(|v| v.writer == Writer::Txn(u))
                .all(|v| v.same_value && !v.deleted)
        })
    }

    /// Rows transaction `u` wrote, whatever its state.
    pub fn written_by(&self, u: usize) -> BTreeSet<Rid> {
        self.chains
            .iter()
            .filter(|(_, chain)| chain.iter().any(|v| v.writer == Writer::Txn(u)))
            .map(|(&rid, _)| rid)
            .collect()
    }

    pub fn is_active(&self, t: usize) -> bool {
        self.txns[t].status == Status::Active
    }
}

/// What a statement did to a view: rows new or changed (with whether the UPDATE
/// matched them without changing them) and rows gone.
pub fn diff(before: &View, after: &View, matched: &[Rid]) -> Effect {
    let mut effect = Effect::default();
    for (rid, row) in after {
        match before.get(rid) {
            Some(old) if old == row => {
                if matched.contains(rid) {
                    effect.written.insert(*rid, (row.clone(), true));
                }
            }
            _ => {
                effect.written.insert(*rid, (row.clone(), false));
            }
        }
    }
    for (rid, row) in before {
        if !after.contains_key(rid) {
            effect.deleted.insert(*rid, row.clone());
        }
    }
    effect
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(a: i64, rid: i64) -> Row {
        vec![Value::Int(a), Value::Int(rid)]
    }

    fn initial() -> View {
        [(1, row(0, 1)), (2, row(1, 2))].into_iter().collect()
    }

    #[test]
    fn views_follow_v1_to_v4() {
        let mut m = Model::new(initial(), 2);
        m.take_snapshot(0, 0);
        // T2 changes row 2 and has not committed.
        let mut e = Effect::default();
        e.written.insert(2, (row(10, 2), false));
        m.apply(1, &e);
        assert_eq!(m.view(0, ViewKind::Dirty)[&2], row(10, 2));
        assert_eq!(m.view(0, ViewKind::LatestCommitted)[&2], row(1, 2));
        m.commit(1);
        assert_eq!(m.view(0, ViewKind::LatestCommitted)[&2], row(10, 2));
        let snap = ViewKind::Snapshot {
            same_value_is_version: true,
        };
        assert_eq!(m.view(0, snap)[&2], row(1, 2));
        // T1 writes the same value: a version under Troc's rule, none under InnoDB's.
        let mut same = Effect::default();
        same.written.insert(2, (row(10, 2), true));
        m.apply(0, &same);
        assert_eq!(m.view(0, snap)[&2], row(10, 2));
        let innodb = ViewKind::Snapshot {
            same_value_is_version: false,
        };
        assert_eq!(m.view(0, innodb)[&2], row(1, 2));
        m.rollback(0);
        assert_eq!(m.committed_state()[&2], row(10, 2));
    }

    #[test]
    fn diff_finds_inserts_updates_deletes_and_same_values() {
        let before = initial();
        let after: View = [(1, row(0, 1)), (3, row(5, 3))].into_iter().collect();
        let e = diff(&before, &after, &[1]);
        assert_eq!(e.written[&1], (row(0, 1), true));
        assert_eq!(e.written[&3], (row(5, 3), false));
        assert_eq!(e.deleted[&2], row(1, 2));
        assert!(diff(&before, &before, &[]).is_empty());
    }

    #[test]
    fn rolled_back_inserts_vanish() {
        let mut m = Model::new(initial(), 2);
        let mut e = Effect::default();
        e.written.insert(9, (row(9, 9), false));
        m.apply(0, &e);
        assert!(m.chains.contains_key(&9));
        m.rollback(0);
        assert!(!m.chains.contains_key(&9));
    }
}
