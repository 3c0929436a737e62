//! Elle's histories: Jepsen's operations in EDN (or the JSON elle-cli reads)
//! for the list-append and rw-register workloads, read into a [`History`]
//! and written from one.
//!
//! Matched against Elle's own sources (jepsen-io/elle: `src/elle/list_append.clj`,
//! `src/elle/rw_register.clj`, `src/elle/txn.clj`, `histories/*.edn`) and
//! elle-cli's reader (ligurio/elle-cli: `src/elle_cli/cli.clj`).
//!
//! List-append maps onto version lists: a key is a row, and a read of
//! `[1 2 3]` is the row's version list `[T0, writer of 1, writer of 2,
//! writer of 3]` (each element's writer is the transaction that appended it;
//! Elle demands unique appends per key). Every append is also recorded as a
//! write ([`History::write`]), so an append no read returned follows the
//! key's longest read list (Elle's `previously-appended-element`), and a read
//! that ends with an append its writer followed with another append to the
//! key is an intermediate read (Elle's G1b).

use super::ops::{read_edn, read_json, MopKind, MopMeta, MopValue, Op, OpType, Scalar};
use super::{elle_checks, register, FormatError, Imported, OpOrigin, Workload};
use crate::fx::FxMap;
use crate::{
    History, Interval, Observation, ReadKind, RowId, StatementId, Transaction, TxnId, TxnOutcome,
    Write, T0,
};
use std::io::BufRead;

pub use super::export::{export, to_string, ExportOptions};

/// The file's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Jepsen's EDN: op maps one after another, or one vector of them.
    Edn,
    /// elle-cli's JSON: an array of op objects (or one object per line).
    Json,
}

impl Syntax {
    /// JSON when the path ends with `.json`, else EDN.
    pub fn of_path(path: &std::path::Path) -> Syntax {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Syntax::Json,
            _ => Syntax::Edn,
        }
    }
}

/// Reads an Elle history.
pub fn import(input: impl BufRead, syntax: Syntax) -> Result<Imported, FormatError> {
    let ops = match syntax {
        Syntax::Edn => read_edn(input)?,
        Syntax::Json => {
            let mut text = String::new();
            let mut input = input;
            input.read_to_string(&mut text)?;
            read_json(&text)?
        }
    };
    from_ops(ops)
}

/// One transaction: its invocation and completion, as paired by process.
pub(crate) struct Txn {
    pub(crate) invoke: Option<Op>,
    pub(crate) done: Option<Op>,
}

impl Txn {
    /// The op whose micro-ops count: the completion, else the invocation.
    pub(crate) fn op(&self) -> &Op {
        self.done
            .as_ref()
            .or(self.invoke.as_ref())
            .expect("a transaction has an op")
    }

    pub(crate) fn outcome(&self) -> TxnOutcome {
        if let Some(o) = self.op().meta.as_ref().and_then(|m| m.outcome) {
            return o;
        }
        match self.done.as_ref().map(|o| o.kind) {
            Some(OpType::Ok) => TxnOutcome::Committed,
            Some(OpType::Fail) => TxnOutcome::Aborted,
            _ => TxnOutcome::Unknown,
        }
    }

    /// Whether reads of this transaction count: a committed one's, and
    /// reads that returned something in a failed or unknown one (Elle takes
    /// an `:info` read of nil for "not known").
    pub(crate) fn read_counts(&self, value: &MopValue) -> bool {
        match self.done.as_ref().map(|o| o.kind) {
            Some(OpType::Ok) => true,
            Some(OpType::Fail | OpType::Info) => *value != MopValue::Nil,
            _ => false,
        }
    }
}

/// Pairs invocations with completions by process, in the order the
/// transactions completed (an unfinished one where it was invoked).
pub(crate) fn pair(ops: Vec<Op>) -> Result<Vec<Txn>, FormatError> {
    let mut pending: FxMap<i64, usize> = FxMap::default();
    let mut txns: Vec<Txn> = Vec::new();
    for op in ops {
        match (op.kind, op.process) {
            (OpType::Invoke, Some(p)) => {
                // A second invocation of a process without a completion:
                // the first never finished.
                pending.insert(p, txns.len());
                txns.push(Txn {
                    invoke: Some(op),
                    done: None,
                });
            }
            (OpType::Invoke, None) => txns.push(Txn {
                invoke: Some(op),
                done: None,
            }),
            (_, p) => match p.and_then(|p| pending.remove(&p)) {
                Some(i) => txns[i].done = Some(op),
                None => txns.push(Txn {
                    invoke: None,
                    done: Some(op),
                }),
            },
        }
    }
    // In completion order: a completed transaction takes the place of its
    // completion, which comes after every earlier completion of its process.
    txns.sort_by_key(|t| t.op().pos.line);
    Ok(txns)
}

/// Which workload the micro-ops are.
fn workload(txns: &[Txn]) -> Result<Workload, FormatError> {
    let (mut append, mut write, mut list, mut scalar) = (None, None, false, false);
    for t in txns {
        for op in [t.invoke.as_ref(), t.done.as_ref()].into_iter().flatten() {
            for m in &op.mops {
                match m.f {
                    MopKind::Append => append = append.or(Some(op.pos)),
                    MopKind::Write => write = write.or(Some(op.pos)),
                    MopKind::Read => match m.value {
                        MopValue::List(_) => list = true,
                        MopValue::Scalar(_) => scalar = true,
                        MopValue::Nil => {}
                    },
                }
            }
        }
    }
    match (append, write) {
        (Some(a), Some(w)) => Err(FormatError::Invalid(format!(
            "the history mixes :append ({a}) and :w ({w}) micro-ops: it is neither list-append nor rw-register"
        ))),
        (Some(_), None) => Ok(Workload::ListAppend),
        (None, Some(_)) => Ok(Workload::RwRegister),
        (None, None) if scalar && !list => Ok(Workload::RwRegister),
        (None, None) => Ok(Workload::ListAppend),
    }
}

/// Builds the history of the operations, as [`import`] does once it has
/// read them: the stream executor hands its recorded transactions over
/// this way, so that they are inferred exactly as an Elle file is.
pub fn from_ops(ops: Vec<Op>) -> Result<Imported, FormatError> {
    let txns = pair(ops)?;
    let workload = workload(&txns)?;
    from_txns(txns, workload)
}

/// Builds the history of the transactions (txlab's own export in its
/// recorded order).
pub(crate) fn from_txns(mut txns: Vec<Txn>, workload: Workload) -> Result<Imported, FormatError> {
    let from_txlab = !txns.is_empty() && txns.iter().all(|t| t.op().meta.is_some());
    if from_txlab {
        txns.sort_by_key(|t| t.op().meta.as_ref().map_or(0, |m| m.seq));
    }
    let mut history = History::new();
    let mut origins = Vec::with_capacity(txns.len());
    let ids = add_transactions(&txns, &mut history, &mut origins, from_txlab)?;
    let keys = match workload {
        Workload::ListAppend => list_append(&txns, &ids, &mut history, from_txlab)?,
        Workload::Dbcop if from_txlab => {
            super::dbcop::exact(&txns, &ids, &mut history)?;
            Vec::new()
        }
        _ => register::build(&txns, &ids, &mut history, workload)?,
    };
    let findings = elle_checks::find(&txns, &ids, workload);
    origins.sort_by_key(|o: &OpOrigin| o.txn);
    Ok(Imported {
        history,
        workload,
        findings,
        ops: origins,
        keys,
        from_txlab,
    })
}

/// Nanoseconds to the microseconds of [`Interval`], rounding outwards.
fn micros(from_ns: i64, to_ns: i64) -> Option<Interval> {
    if from_ns < 0 || to_ns < 0 {
        return None;
    }
    Some(Interval::new(
        from_ns as u64 / 1000,
        (to_ns as u64).div_ceil(1000),
    ))
}

/// Adds one transaction per paired op; returns their ids.
pub(crate) fn add_transactions(
    txns: &[Txn],
    history: &mut History,
    origins: &mut Vec<OpOrigin>,
    from_txlab: bool,
) -> Result<Vec<TxnId>, FormatError> {
    let mut ids = Vec::with_capacity(txns.len());
    for (n, t) in txns.iter().enumerate() {
        let op = t.op();
        let mut txn = if let (true, Some(m)) = (from_txlab, op.meta.as_ref()) {
            let mut txn = Transaction::new(m.id, t.outcome()).with_label(m.label.clone());
            txn.session = m.session;
            txn.level = m.level;
            txn.started = m.started;
            txn.ended = m.ended;
            txn
        } else {
            let id = n as TxnId + 1;
            let mut txn = Transaction::new(id, t.outcome());
            txn.session = op.process.and_then(|p| u64::try_from(p).ok());
            // The transaction took its start point and committed between
            // its invocation and its completion.
            if let (Some(a), Some(b)) = (
                t.invoke.as_ref().and_then(|o| o.time),
                t.done.as_ref().and_then(|o| o.time),
            ) {
                let i = micros(a, b);
                txn.started = i;
                txn.ended = i;
            }
            txn
        };
        if txn.id == T0 {
            txn.id = n as TxnId + 1;
        }
        ids.push(txn.id);
        origins.push(OpOrigin {
            txn: txn.id,
            index: op.index,
            process: op.process,
            line: op.pos.line,
        });
        history.add_transaction(txn).map_err(|e| {
            FormatError::at(op.pos, format!("the transaction cannot be recorded: {e}"))
        })?;
    }
    Ok(ids)
}

/// Rows for keys: the key itself when every key is a non-negative integer,
/// else numbers in order of first sight, with the keys' names.
pub(crate) struct Rows {
    ints: bool,
    map: FxMap<Scalar, RowId>,
    pub(crate) names: Vec<(RowId, String)>,
}

impl Rows {
    pub(crate) fn new<'a>(keys: impl Iterator<Item = &'a Scalar>) -> Rows {
        let mut rows = Rows {
            ints: true,
            map: FxMap::default(),
            names: Vec::new(),
        };
        let mut all: Vec<&Scalar> = Vec::new();
        for k in keys {
            if !matches!(k, Scalar::Int(i) if *i >= 0) {
                rows.ints = false;
            }
            all.push(k);
        }
        if !rows.ints {
            for k in all {
                let next = rows.map.len() as RowId + 1;
                rows.map.entry(k.clone()).or_insert_with(|| {
                    rows.names.push((next, k.to_string()));
                    next
                });
            }
        }
        rows
    }

    pub(crate) fn row(&self, key: &Scalar) -> RowId {
        match key {
            Scalar::Int(i) if self.ints => *i as RowId,
            _ => self.map[key],
        }
    }
}

/// The transaction's micro-ops with txlab's details of each, when present.
fn metas(op: &Op, from_txlab: bool) -> Option<&[MopMeta]> {
    if !from_txlab {
        return None;
    }
    op.meta
        .as_ref()
        .map(|m| m.mops.as_slice())
        .filter(|m| m.len() == op.mops.len())
}

fn list_append(
    txns: &[Txn],
    ids: &[TxnId],
    history: &mut History,
    from_txlab: bool,
) -> Result<Vec<(RowId, String)>, FormatError> {
    let rows = Rows::new(txns.iter().flat_map(|t| t.op().mops.iter().map(|m| &m.key)));
    // Who appended each element of each key.
    let mut writer: FxMap<(RowId, Scalar), (TxnId, usize)> = FxMap::default();
    for (t, &id) in txns.iter().zip(ids) {
        let op = t.op();
        for m in &op.mops {
            if m.f != MopKind::Append {
                continue;
            }
            let MopValue::Scalar(v) = &m.value else {
                return Err(FormatError::at(
                    op.pos,
                    format!("[:append {} {:?}] appends no single value", m.key, m.value),
                ));
            };
            let row = rows.row(&m.key);
            if let Some((_, line)) = writer.insert((row, v.clone()), (id, op.pos.line)) {
                return Err(FormatError::Invalid(format!(
                    "value {v} was appended to key {} twice (the ops on lines {line} and {}): Elle requires unique appends per key",
                    m.key, op.pos.line
                )));
            }
        }
    }
    let mut unknown: FxMap<(RowId, Scalar), TxnId> = FxMap::default();
    let mut next_unknown = ids.iter().copied().max().unwrap_or(0) + 1;
    let mut versions: Vec<TxnId> = Vec::new();
    let mut seen: FxMap<&Scalar, ()> = FxMap::default();
    for (t, &id) in txns.iter().zip(ids) {
        let op = t.op();
        let metas = metas(op, from_txlab);
        for (i, m) in op.mops.iter().enumerate() {
            let meta = metas.map(|ms| &ms[i]);
            let row = rows.row(&m.key);
            match m.f {
                MopKind::Append => {
                    let (index, label, table) = match meta {
                        Some(MopMeta::Derived) => continue,
                        Some(MopMeta::Write {
                            index,
                            label,
                            table,
                        }) => (*index, label.clone(), table.clone()),
                        _ => (i as u32, String::new(), "list".to_string()),
                    };
                    history
                        .write(Write {
                            statement: StatementId::labelled(id, index, label),
                            table,
                            row,
                        })
                        .map_err(|e| FormatError::at(op.pos, e.to_string()))?;
                }
                MopKind::Read => {
                    if !t.read_counts(&m.value) {
                        continue;
                    }
                    let list: &[Scalar] = match &m.value {
                        MopValue::Nil => &[],
                        MopValue::List(l) => l,
                        MopValue::Scalar(s) => {
                            return Err(FormatError::at(
                                op.pos,
                                format!(
                                    "[:r {} {s}] in a list-append history: a read returns a list",
                                    m.key
                                ),
                            ))
                        }
                    };
                    versions.clear();
                    versions.push(T0);
                    seen.clear();
                    for e in list {
                        // A duplicate element (Elle's duplicate-elements) is
                        // placed where it first appears, as Elle does.
                        if list.len() > 1 && seen.insert(e, ()).is_some() {
                            continue;
                        }
                        let w = match writer.get(&(row, e.clone())) {
                            Some(&(w, _)) => w,
                            None => *unknown.entry((row, e.clone())).or_insert_with(|| {
                                next_unknown += 1;
                                next_unknown - 1
                            }),
                        };
                        versions.push(w);
                    }
                    let (statement, kind, table, values, at) = match meta {
                        Some(MopMeta::Read {
                            index,
                            label,
                            kind,
                            table,
                            values,
                            at,
                            from_t0,
                        }) => {
                            if !from_t0 && versions.len() > 1 {
                                versions.remove(0);
                            }
                            (
                                StatementId::labelled(id, *index, label.clone()),
                                *kind,
                                table.clone(),
                                values.clone(),
                                *at,
                            )
                        }
                        _ => (
                            StatementId::new(id, i as u32),
                            ReadKind::Plain,
                            "list".to_string(),
                            String::new(),
                            None,
                        ),
                    };
                    history
                        .observe(Observation {
                            statement,
                            kind,
                            table,
                            row,
                            versions: versions.clone(),
                            values,
                            at,
                        })
                        .map_err(|e| FormatError::at(op.pos, e.to_string()))?;
                }
                MopKind::Write => unreachable!("a list-append history has no :w"),
            }
        }
    }
    Ok(rows.names)
}
