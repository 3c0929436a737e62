//! A [`History`] written as an Elle list-append history (Jepsen's EDN):
//! each row a key, each write a unique element appended to it, each read
//! the list of elements its version list shows, one op map per line.
//!
//! The elements of a key are numbered `1, 2, …` in the order of its
//! versions (the writer's first write of the row the first element it
//! appends, and so on). A transaction's appends stand at its recorded
//! writes' statements, else right before the first of its own reads that
//! shows them, else after its last micro-op; its invocation and completion
//! stand at its start and end times when every transaction has them (a
//! process per session), else every invocation comes before every
//! completion, each transaction on a process of its own: Elle then sees no
//! real-time or process order that did not hold.
//!
//! Everything else of the history (ids, labels, sessions, levels, exact
//! times, statements, read kinds, tables, values, which appends are
//! recorded writes) goes under `:txlab` in the completion, a key Elle
//! ignores, so that importing the file gives the same history back.

use super::edn::string;
use crate::fx::FxMap;
use crate::{History, Interval, Observation, ReadKind, RowId, TxnId, TxnOutcome, Write, T0};
use std::io;
use txlab_plugin_api::ir::IsolationLevel;

/// How to write the history.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// Leave out txlab's `:txlab` details: the file is then what Elle reads
    /// and nothing more (importing it again infers, as for any Elle file).
    pub plain: bool,
}

/// One micro-op of an exported transaction, with where it goes.
pub(crate) struct Mop {
    /// (statement index, 0 for appends before reads of that statement, order).
    place: (u32, u8, u32),
    pub(crate) row: RowId,
    pub(crate) kind: Kind,
}

pub(crate) enum Kind {
    Read {
        elements: Vec<u64>,
        obs: Observation,
    },
    Append {
        element: u64,
        write: Option<Write>,
    },
}

/// The elements of each row: `(row, writer, n-th write)` to its element.
#[derive(Default)]
struct Elements {
    map: FxMap<(RowId, TxnId, u32), u64>,
    next: FxMap<RowId, u64>,
}

impl Elements {
    fn of(&mut self, row: RowId, writer: TxnId, nth: u32) -> u64 {
        let next = &mut self.next;
        *self.map.entry((row, writer, nth)).or_insert_with(|| {
            let n = next.entry(row).or_insert(0);
            *n += 1;
            *n
        })
    }
}

/// The transactions of a history with their micro-ops in order.
pub(crate) struct Plan<'h> {
    pub(crate) txns: Vec<&'h crate::Transaction>,
    pub(crate) mops: Vec<Vec<Mop>>,
}

/// Lays out every transaction's reads and appends.
pub(crate) fn plan(history: &History) -> Plan<'_> {
    let txns: Vec<&crate::Transaction> = history.transactions().collect();
    let position: FxMap<TxnId, usize> = txns.iter().enumerate().map(|(i, t)| (t.id, i)).collect();
    let mut mops: Vec<Vec<Mop>> = (0..txns.len()).map(|_| Vec::new()).collect();
    let mut elements = Elements::default();
    // Number every row's versions first, in version order (the longest
    // list of each row first), so that elements grow along a key.
    let observations: Vec<Observation> = history.observations().collect();
    let mut longest: FxMap<RowId, usize> = FxMap::default();
    for (i, o) in observations.iter().enumerate() {
        let e = longest.entry(o.row).or_insert(i);
        if o.versions.len() > observations[*e].versions.len() {
            *e = i;
        }
    }
    let mut rows: Vec<(RowId, usize)> = longest.into_iter().collect();
    rows.sort_unstable();
    for (row, i) in rows {
        number(&mut elements, row, &observations[i].versions);
    }
    // Reads.
    for (seq, o) in observations.into_iter().enumerate() {
        let Some(&t) = position.get(&o.statement.txn) else {
            continue;
        };
        let els = number(&mut elements, o.row, &o.versions);
        mops[t].push(Mop {
            place: (o.statement.index, 1, seq as u32),
            row: o.row,
            kind: Kind::Read {
                elements: els,
                obs: o,
            },
        });
    }
    appends(history, &position, &mut mops, &mut elements);
    for m in &mut mops {
        m.sort_by_key(|m| m.place);
    }
    Plan { txns, mops }
}

/// Writes `history` as an Elle list-append history.
pub fn export(
    history: &History,
    out: &mut dyn io::Write,
    options: &ExportOptions,
) -> io::Result<()> {
    let plan = plan(history);
    write_ops(&plan.txns, &plan.mops, out, options)
}

/// The elements a version list shows (T0 shows none).
fn number(elements: &mut Elements, row: RowId, versions: &[TxnId]) -> Vec<u64> {
    let mut count: FxMap<TxnId, u32> = FxMap::default();
    let mut out = Vec::with_capacity(versions.len());
    for &w in versions {
        if w == T0 {
            continue;
        }
        let n = count.entry(w).or_insert(0);
        *n += 1;
        out.push(elements.of(row, w, *n));
    }
    out
}

/// Every transaction's appends: its recorded writes at their statements,
/// and the writes only its version lists show right before the first of
/// its own reads that shows each, else at its end.
fn appends(
    history: &History,
    position: &FxMap<TxnId, usize>,
    mops: &mut [Vec<Mop>],
    elements: &mut Elements,
) {
    // How many writes of each (row, writer) the lists show.
    let mut shown: FxMap<(RowId, TxnId), u32> = FxMap::default();
    let mut own_first: FxMap<(RowId, TxnId, u32), (u32, u32)> = FxMap::default();
    for (seq, o) in history.observations().enumerate() {
        let mut count: FxMap<TxnId, u32> = FxMap::default();
        for &w in &o.versions {
            if w == T0 {
                continue;
            }
            let n = count.entry(w).or_insert(0);
            *n += 1;
            let s = shown.entry((o.row, w)).or_insert(0);
            *s = (*s).max(*n);
            if w == o.statement.txn {
                own_first
                    .entry((o.row, w, *n))
                    .or_insert((o.statement.index, seq as u32));
            }
        }
    }
    // Recorded writes, per (row, writer) in order.
    let mut recorded: FxMap<(RowId, TxnId), u32> = FxMap::default();
    for (seq, w) in history.writes().enumerate() {
        let writer = w.statement.txn;
        let Some(&t) = position.get(&writer) else {
            continue;
        };
        let n = recorded.entry((w.row, writer)).or_insert(0);
        *n += 1;
        let element = elements.of(w.row, writer, *n);
        mops[t].push(Mop {
            place: (w.statement.index, 0, seq as u32),
            row: w.row,
            kind: Kind::Append {
                element,
                write: Some(w),
            },
        });
    }
    // Writes only the lists show.
    let mut derived: Vec<((RowId, TxnId), u32)> = shown.into_iter().collect();
    derived.sort_unstable();
    for ((row, writer), n) in derived {
        let Some(&t) = position.get(&writer) else {
            continue;
        };
        let have = recorded.get(&(row, writer)).copied().unwrap_or(0);
        for nth in have + 1..=n {
            let element = elements.of(row, writer, nth);
            let place = match own_first.get(&(row, writer, nth)) {
                Some(&(index, seq)) => (index, 0, seq),
                None => (u32::MAX, 0, nth),
            };
            mops[t].push(Mop {
                place,
                row,
                kind: Kind::Append {
                    element,
                    write: None,
                },
            });
        }
    }
}

/// An event of the exported history: a transaction's invocation or
/// completion.
#[derive(Clone, Copy)]
struct Event {
    time: u64,
    done: bool,
    txn: usize,
}

fn write_ops(
    txns: &[&crate::Transaction],
    mops: &[Vec<Mop>],
    out: &mut dyn io::Write,
    options: &ExportOptions,
) -> io::Result<()> {
    let times: Vec<Option<(u64, u64)>> = txns.iter().map(|t| span(t)).collect();
    let timed = times.iter().all(Option::is_some);
    let max_session = txns.iter().filter_map(|t| t.session).max().unwrap_or(0);
    let process = |i: usize| -> u64 {
        match (timed, txns[i].session) {
            (true, Some(s)) => s,
            _ => max_session + 1 + i as u64,
        }
    };
    let mut events: Vec<Event> = Vec::with_capacity(txns.len() * 2);
    if timed {
        for (i, t) in times.iter().enumerate() {
            let (a, b) = t.expect("timed");
            events.push(Event {
                time: a,
                done: false,
                txn: i,
            });
            events.push(Event {
                time: b,
                done: true,
                txn: i,
            });
        }
        events.sort_by_key(|e| (e.time, e.done, e.txn));
        // A session's next invocation after its previous completion.
        let mut open: FxMap<u64, usize> = FxMap::default();
        let mut held: FxMap<u64, Vec<Event>> = FxMap::default();
        let mut ordered = Vec::with_capacity(events.len());
        for e in events {
            let p = process(e.txn);
            if !e.done {
                if open.contains_key(&p) {
                    held.entry(p).or_default().push(e);
                    continue;
                }
                open.insert(p, e.txn);
                ordered.push(e);
            } else {
                ordered.push(e);
                if open.get(&p) == Some(&e.txn) {
                    open.remove(&p);
                    if let Some(q) = held.get_mut(&p) {
                        if !q.is_empty() {
                            let next = q.remove(0);
                            open.insert(p, next.txn);
                            ordered.push(next);
                        }
                    }
                }
            }
        }
        events = ordered;
    } else {
        for i in 0..txns.len() {
            events.push(Event {
                time: 0,
                done: false,
                txn: i,
            });
        }
        for i in 0..txns.len() {
            events.push(Event {
                time: 0,
                done: true,
                txn: i,
            });
        }
    }
    let mut line = String::new();
    for (index, e) in events.iter().enumerate() {
        let t = txns[e.txn];
        line.clear();
        let kind = match (e.done, t.outcome) {
            (false, _) => ":invoke",
            (true, TxnOutcome::Committed) => ":ok",
            (true, TxnOutcome::Aborted) => ":fail",
            (true, TxnOutcome::Unknown) => ":info",
        };
        line.push_str(&format!(
            "{{:index {index}, :type {kind}, :process {}, :f :txn",
            process(e.txn)
        ));
        if timed {
            line.push_str(&format!(", :time {}", e.time.saturating_mul(1000)));
        }
        line.push_str(", :value [");
        for (k, m) in mops[e.txn].iter().enumerate() {
            if k > 0 {
                line.push(' ');
            }
            match &m.kind {
                Kind::Read { elements, .. } => {
                    if e.done {
                        line.push_str(&format!("[:r {} [", m.row));
                        for (j, el) in elements.iter().enumerate() {
                            if j > 0 {
                                line.push(' ');
                            }
                            line.push_str(&el.to_string());
                        }
                        line.push_str("]]");
                    } else {
                        line.push_str(&format!("[:r {} nil]", m.row));
                    }
                }
                Kind::Append { element, .. } => {
                    line.push_str(&format!("[:append {} {element}]", m.row));
                }
            }
        }
        line.push(']');
        if e.done && !options.plain {
            line.push_str(", :txlab ");
            meta(&mut line, t, e.txn, &mops[e.txn]);
        }
        line.push_str("}\n");
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}

/// A transaction's span for the op times (µs): from the earliest moment it
/// may have begun to the latest it may have ended.
fn span(t: &crate::Transaction) -> Option<(u64, u64)> {
    let a = match (t.started, t.ended) {
        (Some(s), Some(e)) => s.earliest.min(e.earliest),
        (Some(s), None) => s.earliest,
        (None, Some(e)) => e.earliest,
        (None, None) => return None,
    };
    let b = match (t.started, t.ended) {
        (_, Some(e)) => e.latest,
        (Some(s), None) => s.latest,
        (None, None) => return None,
    };
    Some((a, b.max(a)))
}

pub(crate) fn interval(i: Option<Interval>) -> String {
    i.map_or("nil".into(), |i| format!("[{} {}]", i.earliest, i.latest))
}

/// A transaction's `:txlab` details up to the opening of its `:mops`
/// vector: `{:id 3, :label "T3", …, :seq 2, :mops [`.
pub(crate) fn meta_head(
    id: TxnId,
    label: &str,
    session: Option<u64>,
    level: Option<IsolationLevel>,
    (started, ended): (Option<Interval>, Option<Interval>),
    seq: u64,
) -> String {
    format!(
        "{{:id {id}, :label {}, :session {}, :level {}, :started {}, :ended {}, :seq {seq}, :mops [",
        string(label),
        session.map_or("nil".into(), |s| s.to_string()),
        level.map_or("nil".into(), |l| format!(":{}", l.name())),
        interval(started),
        interval(ended),
    )
}

fn meta(line: &mut String, t: &crate::Transaction, seq: usize, mops: &[Mop]) {
    line.push_str(&meta_head(
        t.id,
        &t.label,
        t.session,
        t.level,
        (t.started, t.ended),
        seq as u64,
    ));
    for (k, m) in mops.iter().enumerate() {
        if k > 0 {
            line.push(' ');
        }
        match &m.kind {
            Kind::Read { obs, .. } => line.push_str(&format!(
                "[:r {} {} :{} {} {} {} {}]",
                obs.statement.index,
                string(&obs.statement.label),
                read_kind(obs.kind),
                string(&obs.table),
                string(&obs.values),
                interval(obs.at),
                obs.versions.first() == Some(&T0),
            )),
            Kind::Append { write: Some(w), .. } => line.push_str(&format!(
                "[:w {} {} {}]",
                w.statement.index,
                string(&w.statement.label),
                string(&w.table)
            )),
            Kind::Append { write: None, .. } => line.push_str("nil"),
        }
    }
    line.push_str("]}");
}

fn read_kind(k: ReadKind) -> &'static str {
    k.name()
}

/// Writes `history` to a string (for tests and small histories).
pub fn to_string(history: &History, options: &ExportOptions) -> String {
    let mut out = Vec::new();
    export(history, &mut out, options).expect("writing to memory");
    String::from_utf8(out).expect("EDN is UTF-8")
}
