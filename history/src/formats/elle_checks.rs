//! The anomalies Elle reports from the operations themselves, without a
//! dependency cycle (`src/elle/list_append.clj`, `src/elle/rw_register.clj`,
//! `src/elle/txn.clj`):
//!
//! - `internal`: a read that does not agree with the transaction's own
//!   earlier read or write of the key (Cerone et al.'s INT axiom);
//! - `future-read` (list-append): a read that shows an element the
//!   transaction appends only later;
//! - `duplicate-elements` (list-append): a read list with an element twice;
//! - `lost-update`: two committed transactions read the same version of a
//!   key and both wrote the key.
//!
//! Each is found in committed transactions only, as Elle does.

use super::elle::Txn;
use super::ops::{MopKind, MopValue, Scalar};
use super::Workload;
use crate::fx::FxMap;
use crate::TxnId;

/// One anomaly found in the operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Elle's name: `internal`, `future-read`, `duplicate-elements`,
    /// `lost-update`.
    pub name: &'static str,
    /// The transactions involved.
    pub txns: Vec<TxnId>,
    /// What was seen.
    pub explanation: String,
}

/// Every such anomaly of the committed transactions.
pub(crate) fn find(txns: &[Txn], ids: &[TxnId], workload: Workload) -> Vec<Finding> {
    let mut out = Vec::new();
    // (key, version read) -> committed transactions that read it first and
    // then wrote the key.
    let mut lost: FxMap<(&Scalar, Vec<Scalar>), Vec<TxnId>> = FxMap::default();
    for (t, &id) in txns.iter().zip(ids) {
        let Some(op) = t.done.as_ref().filter(|o| o.kind == super::OpType::Ok) else {
            continue;
        };
        let mut state: FxMap<&Scalar, State> = FxMap::default();
        let mut first_read: FxMap<&Scalar, Option<Vec<Scalar>>> = FxMap::default();
        let mut wrote: Vec<&Scalar> = Vec::new();
        let mut internal_done = false;
        for (i, m) in op.mops.iter().enumerate() {
            match (m.f, &m.value) {
                (MopKind::Read, value) => {
                    let read: Vec<Scalar> = match value {
                        MopValue::Nil => Vec::new(),
                        MopValue::Scalar(s) => vec![s.clone()],
                        MopValue::List(l) => l.clone(),
                    };
                    if workload == Workload::ListAppend {
                        let mut sorted: Vec<&Scalar> = read.iter().collect();
                        sorted.sort();
                        if sorted.windows(2).any(|w| w[0] == w[1]) {
                            out.push(Finding {
                                name: "duplicate-elements",
                                txns: vec![id],
                                explanation: format!(
                                    "T{id} read key {} = {} (micro-op {i}): an element twice",
                                    m.key,
                                    list(&read)
                                ),
                            });
                        }
                        // Elements this transaction appends later.
                        for later in &op.mops[i + 1..] {
                            if let (MopKind::Append, MopValue::Scalar(v)) = (later.f, &later.value)
                            {
                                if later.key == m.key && read.contains(v) {
                                    out.push(Finding {
                                        name: "future-read",
                                        txns: vec![id],
                                        explanation: format!(
                                            "T{id} read key {} = {} (micro-op {i}) before appending {v} itself",
                                            m.key,
                                            list(&read)
                                        ),
                                    });
                                }
                            }
                        }
                    }
                    if !internal_done {
                        if let Some(expected) = state.get(&m.key) {
                            if !expected.admits(&read, workload) {
                                internal_done = true;
                                out.push(Finding {
                                    name: "internal",
                                    txns: vec![id],
                                    explanation: format!(
                                        "T{id} read key {} = {} (micro-op {i}), but its own earlier reads and writes of the key make it {}",
                                        m.key,
                                        show_read(&read, workload),
                                        expected.show(workload)
                                    ),
                                });
                            }
                        }
                    }
                    state.insert(&m.key, State::known(read.clone()));
                    if !wrote.contains(&&m.key) {
                        first_read.entry(&m.key).or_insert(Some(read));
                    }
                }
                (MopKind::Append, MopValue::Scalar(v)) => {
                    let s = state.entry(&m.key).or_insert(State::Suffix(Vec::new()));
                    s.push(v.clone());
                    wrote_once(&mut wrote, &m.key, &first_read, &mut lost, id);
                }
                (MopKind::Write, MopValue::Scalar(v)) => {
                    state.insert(&m.key, State::known(vec![v.clone()]));
                    wrote_once(&mut wrote, &m.key, &first_read, &mut lost, id);
                }
                _ => {}
            }
        }
    }
    let mut cases: Vec<_> = lost.into_iter().filter(|(_, t)| t.len() > 1).collect();
    cases.sort_by(|a, b| a.1.cmp(&b.1));
    for ((key, read), txns) in cases {
        let names: Vec<String> = txns.iter().map(|t| format!("T{t}")).collect();
        out.push(Finding {
            name: "lost-update",
            explanation: format!(
                "{} all read key {key} = {} and then wrote it",
                names.join(", "),
                show_read(&read, workload)
            ),
            txns,
        });
    }
    out
}

/// Records a transaction's first write of a key: with a read of the key
/// before, it is a candidate for a lost update.
fn wrote_once<'a>(
    wrote: &mut Vec<&'a Scalar>,
    key: &'a Scalar,
    first_read: &FxMap<&'a Scalar, Option<Vec<Scalar>>>,
    lost: &mut FxMap<(&'a Scalar, Vec<Scalar>), Vec<TxnId>>,
    id: TxnId,
) {
    if wrote.contains(&key) {
        return;
    }
    wrote.push(key);
    if let Some(Some(read)) = first_read.get(key) {
        lost.entry((key, read.clone())).or_default().push(id);
    }
}

/// What a transaction expects a key to hold.
enum State {
    /// Exactly this (a list, or a register's one value).
    Known(Vec<Scalar>),
    /// A list ending with these, after an unknown prefix.
    Suffix(Vec<Scalar>),
}

impl State {
    fn known(v: Vec<Scalar>) -> State {
        State::Known(v)
    }

    fn push(&mut self, v: Scalar) {
        match self {
            State::Known(l) | State::Suffix(l) => l.push(v),
        }
    }

    fn admits(&self, read: &[Scalar], workload: Workload) -> bool {
        match self {
            State::Known(l) => l == read,
            // A register written and not read: its value is the last write.
            State::Suffix(l) if workload != Workload::ListAppend => {
                l.last().map(std::slice::from_ref) == Some(read)
            }
            State::Suffix(l) => read.len() >= l.len() && read[read.len() - l.len()..] == l[..],
        }
    }

    fn show(&self, workload: Workload) -> String {
        match self {
            State::Known(l) => show_read(l, workload),
            State::Suffix(l) if workload != Workload::ListAppend => {
                l.last().map_or("nil".into(), |v| v.to_string())
            }
            State::Suffix(l) => format!("[... {}]", join(l)),
        }
    }
}

fn join(l: &[Scalar]) -> String {
    l.iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn list(l: &[Scalar]) -> String {
    format!("[{}]", join(l))
}

fn show_read(l: &[Scalar], workload: Workload) -> String {
    match workload {
        Workload::ListAppend => list(l),
        _ => l.first().map_or("nil".into(), |v| v.to_string()),
    }
}
