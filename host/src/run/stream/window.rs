//! Checking a growing list-append (or register) history in windows.
//!
//! Every dependency edge (ww, wr, rw) joins two transactions that touched
//! the same key, so every cycle lies inside one group of transactions
//! connected through shared keys. A group can be checked once and retired
//! when no transaction will ever touch its keys again: each session's
//! current case says the smallest key its later cases may touch (the
//! smallest key its `Ensure` names; the `elle` generator's keys only grow,
//! generation by generation), so keys below every session's floor are
//! closed, and so are the groups whose keys all are. Checking a window of
//! closed groups gives exactly the anomalies the whole history gives for
//! them; what stays open is bounded by the keys in use.

use std::collections::BTreeMap;
use txlab_history::formats::sql_list::{SqlMop, SqlWorkload};
use txlab_history::formats::{elle, FormatError, Imported, Mop, Op, OpType, Pos, TxnMeta};
use txlab_history::{Interval, TxnId, TxnOutcome};
use txlab_plugin_api::ir::IsolationLevel;

/// One transaction of the list-append history, as the stream recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct ListTxn {
    /// From 1, in the order the checker received them.
    pub id: TxnId,
    pub session: usize,
    pub level: IsolationLevel,
    pub outcome: TxnOutcome,
    /// Appends (that may have taken effect) and reads (with the list they
    /// returned), in order.
    pub mops: Vec<(SqlMop, Option<Vec<i64>>)>,
    /// When its first statement was sent and its last one answered (µs).
    pub invoked_us: u64,
    pub completed_us: u64,
    /// When it took its snapshot, and when it committed or aborted.
    pub started: Interval,
    pub ended: Interval,
}

impl ListTxn {
    fn keys(&self) -> impl Iterator<Item = i64> + '_ {
        self.mops.iter().filter_map(|(m, _)| match m {
            SqlMop::Append { key, .. } | SqlMop::Write { key, .. } | SqlMop::Read { key } => {
                Some(*key)
            }
            SqlMop::Ensure { .. } => None,
        })
    }
}

/// The transactions not yet checked, and the sessions' floors.
#[derive(Debug, Default)]
pub struct Windows {
    open: BTreeMap<TxnId, ListTxn>,
    /// Per session: the smallest key its later transactions may touch;
    /// `None` once it ended.
    floors: Vec<Option<i64>>,
    /// Keys below this were retired.
    retired_below: i64,
    /// Transactions that touched a retired key (the workload broke its
    /// promise): checked alone, without the retired ones.
    pub late: u64,
}

impl Windows {
    pub fn new(sessions: usize) -> Windows {
        Windows {
            open: BTreeMap::new(),
            floors: vec![Some(i64::MIN); sessions],
            retired_below: i64::MIN,
            late: 0,
        }
    }

    /// Session `session`'s later transactions touch no key below `floor`
    /// (`None`: it ended).
    pub fn set_floor(&mut self, session: usize, floor: Option<i64>) {
        self.floors[session] = floor;
    }

    pub fn add(&mut self, txn: ListTxn) {
        if txn.keys().any(|k| k < self.retired_below) {
            self.late += 1;
        }
        self.open.insert(txn.id, txn);
    }

    /// Transactions waiting for their window.
    pub fn open(&self) -> usize {
        self.open.len()
    }

    /// Takes every group of transactions whose keys are all closed (all of
    /// them when `all`: the stream ended), in id order.
    pub fn take_closed(&mut self, all: bool) -> Vec<ListTxn> {
        let floor = if all {
            i64::MAX
        } else {
            self.floors
                .iter()
                .map(|f| f.unwrap_or(i64::MAX))
                .min()
                .unwrap_or(i64::MAX)
        };
        // Union-find over keys: a group is closed when its largest key is.
        let mut parent: BTreeMap<i64, i64> = BTreeMap::new();
        fn find(parent: &mut BTreeMap<i64, i64>, k: i64) -> i64 {
            let p = *parent.entry(k).or_insert(k);
            if p == k {
                return k;
            }
            let root = find(parent, p);
            parent.insert(k, root);
            root
        }
        for txn in self.open.values() {
            let mut keys = txn.keys();
            if let Some(first) = keys.next() {
                let a = find(&mut parent, first);
                for k in keys {
                    let b = find(&mut parent, k);
                    if a != b {
                        parent.insert(b, a);
                    }
                }
            }
        }
        let mut largest: BTreeMap<i64, i64> = BTreeMap::new();
        let keys: Vec<i64> = parent.keys().copied().collect();
        for k in keys {
            let root = find(&mut parent, k);
            let m = largest.entry(root).or_insert(k);
            *m = (*m).max(k);
        }
        let closed = |txn: &ListTxn, parent: &mut BTreeMap<i64, i64>| match txn.keys().next() {
            None => true,
            Some(k) => largest[&find(parent, k)] < floor,
        };
        let ids: Vec<TxnId> = self
            .open
            .values()
            .filter(|t| closed(t, &mut parent))
            .map(|t| t.id)
            .collect();
        if !all && floor > self.retired_below {
            self.retired_below = floor;
        }
        ids.into_iter()
            .filter_map(|id| self.open.remove(&id))
            .collect()
    }
}

fn micros_to_nanos(us: u64) -> i64 {
    us.saturating_mul(1000).min(i64::MAX as u64) as i64
}

fn elle_mops(txn: &ListTxn, completed: bool, workload: SqlWorkload) -> Vec<Mop> {
    txn.mops
        .iter()
        .filter_map(|(m, list)| {
            let list = if completed { list.as_deref() } else { None };
            txlab_history::formats::sql_list::elle_mop(m, list, workload)
        })
        .collect()
}

/// The window's workload: registers when a transaction wrote one, else
/// list-append (a window of reads alone has only empty lists and initial
/// values, the same history either way).
pub fn workload(txns: &[ListTxn]) -> SqlWorkload {
    txns.iter()
        .flat_map(|t| &t.mops)
        .find_map(|(m, _)| SqlWorkload::of(m))
        .unwrap_or(SqlWorkload::ListAppend)
}

/// The window's transactions read through the Elle importer as Elle
/// operations ([`ops`]): the same inference as `txlab history check`.
pub fn history(txns: &[ListTxn]) -> Result<Imported, FormatError> {
    elle::from_ops(ops(txns))
}

/// The window's transactions as Elle operations (an invocation and a
/// completion each), with txlab's details (level, session, times).
pub fn ops(txns: &[ListTxn]) -> Vec<Op> {
    let workload = workload(txns);
    let mut ops = Vec::with_capacity(txns.len() * 2);
    for (n, t) in txns.iter().enumerate() {
        let line = 2 * n + 1;
        let process = Some(t.session as i64);
        ops.push(Op {
            index: Some(line as i64 - 1),
            kind: OpType::Invoke,
            process,
            time: Some(micros_to_nanos(t.invoked_us)),
            mops: elle_mops(t, false, workload),
            meta: None,
            pos: Pos { line, column: 1 },
        });
        ops.push(Op {
            index: Some(line as i64),
            kind: match t.outcome {
                TxnOutcome::Committed => OpType::Ok,
                TxnOutcome::Aborted => OpType::Fail,
                TxnOutcome::Unknown => OpType::Info,
            },
            process,
            time: Some(micros_to_nanos(t.completed_us)),
            mops: elle_mops(t, true, workload),
            meta: Some(TxnMeta {
                id: t.id,
                label: format!("T{}", t.id),
                session: Some(t.session as u64),
                level: Some(t.level),
                started: Some(t.started),
                ended: Some(t.ended),
                seq: t.id,
                mops: Vec::new(),
                outcome: Some(t.outcome),
                versions: Vec::new(),
            }),
            pos: Pos {
                line: line + 1,
                column: 1,
            },
        });
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use txlab_history::{check, Options, Phenomenon};

    fn txn(id: TxnId, session: usize, at: u64, mops: Vec<(SqlMop, Option<Vec<i64>>)>) -> ListTxn {
        ListTxn {
            id,
            session,
            level: IsolationLevel::Serializable,
            outcome: TxnOutcome::Committed,
            mops,
            invoked_us: at,
            completed_us: at + 5,
            started: Interval::new(at, at + 1),
            ended: Interval::new(at + 4, at + 5),
        }
    }
    fn append(key: i64, value: i64) -> (SqlMop, Option<Vec<i64>>) {
        (SqlMop::Append { key, value }, None)
    }
    fn read(key: i64, list: &[i64]) -> (SqlMop, Option<Vec<i64>>) {
        (SqlMop::Read { key }, Some(list.to_vec()))
    }

    /// Two generations of keys (1-2, then 3-4). In the first, T1 and T2
    /// both read key 1 empty and append to it (a lost update: G-single
    /// through T1 -rw-> T2 -ww-> T1); in the second, T4 and T5 write skew
    /// on keys 3 and 4 (G2-item); T3 and T6 only read.
    fn hand_made() -> Vec<ListTxn> {
        vec![
            txn(1, 0, 10, vec![read(1, &[]), append(1, 11)]),
            txn(2, 1, 12, vec![read(1, &[]), append(1, 12), append(2, 21)]),
            txn(3, 0, 30, vec![read(1, &[12, 11]), read(2, &[21])]),
            txn(4, 0, 40, vec![read(3, &[]), read(4, &[]), append(3, 31)]),
            txn(5, 1, 41, vec![read(3, &[]), read(4, &[]), append(4, 41)]),
            txn(6, 1, 60, vec![read(3, &[31]), read(4, &[41])]),
        ]
    }

    fn anomalies(txns: &[ListTxn]) -> Vec<(Phenomenon, Vec<TxnId>)> {
        let imported = history(txns).unwrap();
        let report = check(&imported.history, &Options::default());
        assert!(report.violations.is_empty(), "{:?}", report.violations);
        report
            .anomalies
            .iter()
            .map(|a| (a.phenomenon, a.transactions.clone()))
            .collect()
    }

    #[test]
    fn windows_find_what_the_whole_history_shows() {
        let all = hand_made();
        let mut whole = anomalies(&all);
        assert!(
            whole.contains(&(Phenomenon::GSingle, vec![1, 2])),
            "{whole:?}"
        );
        assert!(
            whole
                .iter()
                .any(|(p, t)| *p == Phenomenon::G2Item && t == &vec![4, 5]),
            "{whole:?}"
        );

        let mut w = Windows::new(2);
        let mut found = Vec::new();
        // Both sessions in the first generation (floor 1): nothing closes.
        w.set_floor(0, Some(1));
        w.set_floor(1, Some(1));
        for t in &all[..3] {
            w.add(t.clone());
        }
        assert!(w.take_closed(false).is_empty());
        // Session 0 moves on to keys 3-4; session 1 is still at 1.
        w.set_floor(0, Some(3));
        assert!(w.take_closed(false).is_empty());
        // Both moved on: the first generation's three close, alone.
        w.set_floor(1, Some(3));
        let first = w.take_closed(false);
        assert_eq!(
            first.iter().map(|t| t.id).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        found.extend(anomalies(&first));
        for t in &all[3..] {
            w.add(t.clone());
        }
        assert!(w.take_closed(false).is_empty(), "keys 3-4 are in use");
        w.set_floor(0, None);
        w.set_floor(1, None);
        let second = w.take_closed(false);
        assert_eq!(second.len(), 3);
        assert_eq!(w.open(), 0);
        assert_eq!(w.late, 0);
        found.extend(anomalies(&second));
        found.sort();
        whole.sort();
        assert_eq!(found, whole);
    }

    #[test]
    fn a_window_of_register_writes_is_checked_as_registers() {
        let write = |key, value| (SqlMop::Write { key, value }, None);
        // Write skew on registers 1 and 2: each read the other's initial
        // value and wrote its own; T3 reads both written values.
        let txns = vec![
            txn(1, 0, 10, vec![read(1, &[]), write(2, 21)]),
            txn(2, 1, 11, vec![read(2, &[]), write(1, 11)]),
            txn(3, 0, 30, vec![read(1, &[11]), read(2, &[21])]),
        ];
        assert_eq!(workload(&txns), SqlWorkload::Register);
        let imported = history(&txns).unwrap();
        assert_eq!(
            imported.workload,
            txlab_history::formats::Workload::RwRegister
        );
        let found = anomalies(&txns);
        assert!(
            found
                .iter()
                .any(|(p, t)| *p == Phenomenon::G2Item && t == &vec![1, 2]),
            "{found:?}"
        );
        // Written as Elle's register ops, the window reads back the same.
        let edn = txlab_history::formats::to_edn(&ops(&txns));
        assert!(
            edn.contains("[:w 2 21]") && edn.contains("[:r 1 11]"),
            "{edn}"
        );
        let again = txlab_history::formats::elle::import(
            edn.as_bytes(),
            txlab_history::formats::elle::Syntax::Edn,
        )
        .unwrap();
        let report = check(&again.history, &Options::default());
        assert!(
            report
                .anomalies
                .iter()
                .any(|a| a.phenomenon == Phenomenon::G2Item),
            "{edn}"
        );
        assert_eq!(
            again.history.transaction(1).unwrap().level,
            Some(IsolationLevel::Serializable)
        );
        // A value no one wrote is a reader of an unknown writer.
        let bad = vec![
            txn(1, 0, 10, vec![read(1, &[99])]),
            txn(2, 0, 20, vec![write(1, 5)]),
        ];
        let report = check(&history(&bad).unwrap().history, &Options::default());
        assert!(!report.violations.is_empty());
    }

    #[test]
    fn a_transaction_on_a_retired_key_is_counted_late() {
        let all = hand_made();
        let mut w = Windows::new(1);
        w.set_floor(0, Some(3));
        w.add(all[0].clone());
        assert_eq!(w.take_closed(false).len(), 1);
        w.add(all[1].clone());
        assert_eq!(w.late, 1);
    }

    #[test]
    fn groups_joined_by_a_transaction_close_together() {
        // T7 touches keys 1 and 5: the group {1, 5} closes only below 6.
        let mut w = Windows::new(1);
        w.add(txn(7, 0, 1, vec![read(1, &[]), append(5, 51)]));
        w.add(txn(8, 0, 9, vec![read(2, &[])]));
        w.set_floor(0, Some(5));
        let closed = w.take_closed(false);
        assert_eq!(closed.iter().map(|t| t.id).collect::<Vec<_>>(), vec![8]);
        w.set_floor(0, Some(6));
        assert_eq!(w.take_closed(false).len(), 1);
    }
}
