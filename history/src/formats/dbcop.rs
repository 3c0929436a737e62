//! dbcop's histories (Biswas and Enea, "On the Complexity of Checking
//! Transactional Consistency", OOPSLA 2019): sessions of transactions of
//! reads and writes of variables, each write a unique version, `0` (or
//! null) the initial one.
//!
//! Read: the JSON of today's dbcop (rnbguy/dbcop,
//! `crates/core/src/history/raw/types.rs`, `docs/history-format.md`: the
//! `{"params", "info", "start", "end", "data"}` file `dbcop generate`
//! writes, or the bare array of sessions; events `{"Read": {"variable",
//! "version"}}`, `{"Write": …}` or `["r", var, ver]`; transactions
//! `{"events", "committed"}`) and the bincode `history.bincode` of its
//! OOPSLA 2019 version (the `oopsla-2019` branch, amnore/dbcop:
//! `src/db/history.rs`: events `{write, variable, value, success}`,
//! transactions `{events, success}`). Written: today's JSON.
//!
//! A dbcop history is a register history: it is inferred as Elle's
//! rw-register is ([`super::register`]). txlab's export adds a `"txlab"`
//! object to each transaction (dbcop ignores it) with the full version
//! lists, so that importing it again gives the same history.

use super::elle::{from_txns, Txn};
use super::export::{plan, Kind};
use super::ops::{Mop, MopKind, MopMeta, MopValue, Op, OpType, Scalar, TxnMeta};
use super::{FormatError, Imported, Pos, Workload};
use crate::fx::FxMap;
use crate::{History, Interval, ReadKind, RowId, TxnId, TxnOutcome};
use serde_json::{json, Value};

/// Reads a dbcop history: JSON when it starts with `{` or `[`, else the
/// OOPSLA 2019 version's bincode.
pub fn import(bytes: &[u8]) -> Result<Imported, FormatError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let txns = match first {
        Some(b'{' | b'[') => from_json(bytes)?,
        _ => from_bincode(bytes)?,
    };
    from_txns(txns, Workload::Dbcop)
}

fn at_nothing() -> Pos {
    Pos { line: 1, column: 1 }
}

fn from_json(bytes: &[u8]) -> Result<Vec<Txn>, FormatError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        FormatError::at(
            Pos {
                line: e.line(),
                column: e.column(),
            },
            format!("not JSON: {e}"),
        )
    })?;
    let sessions = match &value {
        Value::Array(s) => s,
        Value::Object(o) => o.get("data").and_then(Value::as_array).ok_or_else(|| {
            FormatError::Invalid(
                "a dbcop history is an array of sessions or an object with \"data\"".into(),
            )
        })?,
        _ => return Err(FormatError::Invalid("not a dbcop history".into())),
    };
    let mut txns = Vec::new();
    for (s, session) in sessions.iter().enumerate() {
        let session_txns = session.as_array().ok_or_else(|| {
            FormatError::Invalid(format!("session {s} is not an array of transactions"))
        })?;
        for (t, txn) in session_txns.iter().enumerate() {
            let place =
                |m: &str| FormatError::Invalid(format!("session {s}, transaction {t}: {m}"));
            let committed = txn
                .get("committed")
                .or_else(|| txn.get("success"))
                .and_then(Value::as_bool)
                .ok_or_else(|| place("no \"committed\" (or \"success\")"))?;
            let events = txn
                .get("events")
                .and_then(Value::as_array)
                .ok_or_else(|| place("no \"events\""))?;
            let mut mops = Vec::with_capacity(events.len());
            for (e, event) in events.iter().enumerate() {
                if let Some(m) = json_event(event).map_err(|m| place(&format!("event {e}: {m}")))? {
                    mops.push(m);
                }
            }
            let meta = match txn.get("txlab") {
                Some(m) => {
                    Some(meta(m).map_err(|m| place(&format!("its \"txlab\" details: {m}")))?)
                }
                None => None,
            };
            txns.push(txn_of(s, committed, mops, meta));
        }
    }
    Ok(txns)
}

fn txn_of(session: usize, committed: bool, mops: Vec<Mop>, meta: Option<TxnMeta>) -> Txn {
    Txn {
        invoke: None,
        done: Some(Op {
            index: None,
            kind: if committed { OpType::Ok } else { OpType::Fail },
            process: Some(session as i64 + 1),
            time: None,
            mops,
            meta,
            pos: at_nothing(),
        }),
    }
}

fn version(v: Option<&Value>) -> Result<MopValue, String> {
    match v {
        None | Some(Value::Null) => Ok(MopValue::Nil),
        Some(v) => match v.as_i64() {
            Some(0) => Ok(MopValue::Nil),
            Some(i) => Ok(MopValue::Scalar(Scalar::Int(i))),
            None => Err(format!("version {v} is not an integer")),
        },
    }
}

fn variable(v: Option<&Value>) -> Result<Scalar, String> {
    match v {
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Scalar::Int)
            .ok_or_else(|| format!("variable {n} is not an integer")),
        Some(Value::String(s)) => Ok(Scalar::Name(s.clone())),
        _ => Err("no variable".into()),
    }
}

/// One event; `None` for an event of the OOPSLA version that did not
/// succeed (it did not happen).
fn json_event(e: &Value) -> Result<Option<Mop>, String> {
    if let Some(items) = e.as_array() {
        let f = match items.first().and_then(Value::as_str) {
            Some("r") => MopKind::Read,
            Some("w") => MopKind::Write,
            _ => return Err(format!("{e} is not [\"r\"|\"w\", variable, version]")),
        };
        return Ok(Some(Mop {
            f,
            key: variable(items.get(1))?,
            value: version(items.get(2))?,
        }));
    }
    for (name, f) in [("Read", MopKind::Read), ("Write", MopKind::Write)] {
        if let Some(inner) = e.get(name) {
            return Ok(Some(Mop {
                f,
                key: variable(inner.get("variable"))?,
                value: version(inner.get("version"))?,
            }));
        }
    }
    if let Some(write) = e.get("write").and_then(Value::as_bool) {
        if e.get("success").and_then(Value::as_bool) == Some(false) {
            return Ok(None);
        }
        return Ok(Some(Mop {
            f: if write { MopKind::Write } else { MopKind::Read },
            key: variable(e.get("variable"))?,
            value: version(e.get("value"))?,
        }));
    }
    Err(format!("{e} is not a dbcop event"))
}

/// The OOPSLA 2019 version's `history.bincode` (bincode 1: little-endian
/// u64 lengths and integers, one byte per bool).
fn from_bincode(bytes: &[u8]) -> Result<Vec<Txn>, FormatError> {
    let mut r = Bin { bytes, at: 0 };
    for _ in 0..5 {
        r.u64("the history's params")?;
    }
    r.string("info")?;
    r.string("start time")?;
    r.string("end time")?;
    let sessions = r.len("sessions")?;
    let mut txns = Vec::new();
    for s in 0..sessions {
        let n = r.len("a session's transactions")?;
        for _ in 0..n {
            let events = r.len("a transaction's events")?;
            let mut mops = Vec::with_capacity(events);
            for _ in 0..events {
                let write = r.bool("an event's write")?;
                let var = r.u64("an event's variable")?;
                let value = r.u64("an event's value")?;
                let success = r.bool("an event's success")?;
                if !success {
                    continue;
                }
                let key = Scalar::Int(i64::try_from(var).map_err(|_| r.err("variable too large"))?);
                let value = match value {
                    0 => MopValue::Nil,
                    v => MopValue::Scalar(Scalar::Int(
                        i64::try_from(v).map_err(|_| r.err("value too large"))?,
                    )),
                };
                mops.push(Mop {
                    f: if write { MopKind::Write } else { MopKind::Read },
                    key,
                    value,
                });
            }
            let success = r.bool("a transaction's success")?;
            txns.push(txn_of(s, success, mops, None));
        }
    }
    if r.at != bytes.len() {
        return Err(r.err("bytes left after the history"));
    }
    Ok(txns)
}

struct Bin<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Bin<'_> {
    fn err(&self, m: &str) -> FormatError {
        FormatError::Invalid(format!(
            "not a dbcop history.bincode: {m} at byte {}",
            self.at
        ))
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], FormatError> {
        if self.bytes.len() - self.at < n {
            return Err(self.err(&format!("the file ends inside {what}")));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u64(&mut self, what: &str) -> Result<u64, FormatError> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    fn len(&mut self, what: &str) -> Result<usize, FormatError> {
        let n = self.u64(what)?;
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(self.err(&format!("{what}: a length of {n} is longer than the file")));
        }
        Ok(n as usize)
    }

    fn bool(&mut self, what: &str) -> Result<bool, FormatError> {
        match self.take(1, what)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.err(&format!("{what}: {b} is not a bool"))),
        }
    }

    fn string(&mut self, what: &str) -> Result<String, FormatError> {
        let n = self.len(what)?;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| self.err(&format!("{what} is not UTF-8")))
    }
}

fn interval(i: Option<Interval>) -> Value {
    i.map_or(Value::Null, |i| json!([i.earliest, i.latest]))
}

fn meta(m: &Value) -> Result<TxnMeta, String> {
    let int = |k: &str| m.get(k).and_then(Value::as_u64);
    let iv = |v: Option<&Value>| -> Result<Option<Interval>, String> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(v) => {
                let a = v.get(0).and_then(Value::as_u64);
                let b = v.get(1).and_then(Value::as_u64);
                match (a, b) {
                    (Some(a), Some(b)) => Ok(Some(Interval::new(a, b))),
                    _ => Err(format!("{v} is not an interval")),
                }
            }
        }
    };
    let level = match m.get("level").and_then(Value::as_str) {
        None => None,
        Some(l) => Some(
            txlab_plugin_api::ir::IsolationLevel::ALL
                .into_iter()
                .find(|x| x.name() == l)
                .ok_or_else(|| format!("unknown level {l}"))?,
        ),
    };
    let mut mops = Vec::new();
    for x in m
        .get("mops")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let s = |k: &str| {
            x.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let index = x.get("index").and_then(Value::as_u64).unwrap_or(0) as u32;
        mops.push(match x.get("op").and_then(Value::as_str) {
            None => MopMeta::Derived,
            Some("w") => MopMeta::Write {
                index,
                label: s("label"),
                table: s("table"),
            },
            Some("r") => MopMeta::Read {
                index,
                label: s("label"),
                kind: match x.get("kind").and_then(Value::as_str) {
                    Some("locking") => ReadKind::Locking,
                    Some("before-delete") => ReadKind::BeforeDelete,
                    _ => ReadKind::Plain,
                },
                table: s("table"),
                values: s("values"),
                at: iv(x.get("at"))?,
                from_t0: true,
            },
            Some(o) => return Err(format!("unknown op {o}")),
        });
    }
    Ok(TxnMeta {
        id: int("id").ok_or("no id")?,
        label: m
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        session: int("session"),
        level,
        started: iv(m.get("started"))?,
        ended: iv(m.get("ended"))?,
        seq: int("seq").ok_or("no seq")?,
        mops,
        outcome: match m.get("outcome").and_then(Value::as_str) {
            Some("committed") => Some(TxnOutcome::Committed),
            Some("aborted") => Some(TxnOutcome::Aborted),
            Some("unknown") => Some(TxnOutcome::Unknown),
            _ => None,
        },
        versions: lists(m),
    })
}

/// A history txlab exported, from its own details: the whole version lists
/// the registers cannot hold.
pub(crate) fn exact(txns: &[Txn], ids: &[TxnId], history: &mut History) -> Result<(), FormatError> {
    for (t, &id) in txns.iter().zip(ids) {
        let op = t.op();
        let Some(meta) = op.meta.as_ref() else {
            continue;
        };
        for (i, (m, mm)) in op.mops.iter().zip(&meta.mops).enumerate() {
            let row = match &m.key {
                Scalar::Int(r) if *r >= 0 => *r as RowId,
                k => {
                    return Err(FormatError::Invalid(format!(
                        "transaction {id}: variable {k} is not a row id"
                    )))
                }
            };
            match mm {
                MopMeta::Read {
                    index,
                    label,
                    kind,
                    table,
                    values,
                    at,
                    ..
                } => {
                    let versions = meta.versions.get(i).cloned().flatten().ok_or_else(|| {
                        FormatError::Invalid(format!(
                            "transaction {id}: event {i} has no version list"
                        ))
                    })?;
                    history
                        .observe(crate::Observation {
                            statement: crate::StatementId::labelled(id, *index, label.clone()),
                            kind: *kind,
                            table: table.clone(),
                            row,
                            versions,
                            values: values.clone(),
                            at: *at,
                        })
                        .map_err(|e| FormatError::Invalid(e.to_string()))?;
                }
                MopMeta::Write {
                    index,
                    label,
                    table,
                } => history
                    .write(crate::Write {
                        statement: crate::StatementId::labelled(id, *index, label.clone()),
                        table: table.clone(),
                        row,
                    })
                    .map_err(|e| FormatError::Invalid(e.to_string()))?,
                MopMeta::Derived => {}
            }
        }
    }
    Ok(())
}

/// The full version lists of txlab's export, by transaction and micro-op.
pub(crate) fn lists(m: &Value) -> Vec<Option<Vec<TxnId>>> {
    m.get("mops")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|x| {
            x.get("versions")
                .and_then(Value::as_array)
                .map(|v| v.iter().filter_map(Value::as_u64).collect::<Vec<TxnId>>())
        })
        .collect()
}

/// Writes `history` as today's dbcop JSON: a session per session of the
/// history (a transaction without one a session of its own), each write a
/// version unique in the history, each read the version its list ends
/// with (null for the initial one). Committed transactions are
/// `"committed": true`; aborted ones and those whose outcome is unknown
/// `false` (dbcop has no unknown outcome). With `details`, each
/// transaction carries txlab's `"txlab"` object.
pub fn export(history: &History, details: bool) -> Value {
    let plan = plan(history);
    let mut version: FxMap<(RowId, u64), u64> = FxMap::default();
    let mut ver = |row: RowId, element: u64| -> u64 {
        let next = version.len() as u64 + 1;
        *version.entry((row, element)).or_insert(next)
    };
    let mut sessions: Vec<Vec<Value>> = Vec::new();
    let mut session_of: FxMap<u64, usize> = FxMap::default();
    let mut rows = 0usize;
    let mut seen_rows: FxMap<RowId, ()> = FxMap::default();
    for (seq, (t, mops)) in plan.txns.iter().zip(&plan.mops).enumerate() {
        let mut events = Vec::with_capacity(mops.len());
        let mut metas = Vec::with_capacity(mops.len());
        for m in mops {
            if seen_rows.insert(m.row, ()).is_none() {
                rows += 1;
            }
            match &m.kind {
                Kind::Read { elements, obs } => {
                    let v = elements.last().map(|&e| ver(m.row, e));
                    events.push(json!({"Read": {"variable": m.row, "version": v}}));
                    metas.push(json!({
                        "op": "r",
                        "index": obs.statement.index,
                        "label": obs.statement.label,
                        "kind": obs.kind.name(),
                        "table": obs.table,
                        "values": obs.values,
                        "at": interval(obs.at),
                        "versions": obs.versions,
                    }));
                }
                Kind::Append { element, write } => {
                    events.push(
                        json!({"Write": {"variable": m.row, "version": ver(m.row, *element)}}),
                    );
                    metas.push(match write {
                        Some(w) => json!({
                            "op": "w",
                            "index": w.statement.index,
                            "label": w.statement.label,
                            "table": w.table,
                        }),
                        None => json!({}),
                    });
                }
            }
        }
        let mut txn = json!({"events": events, "committed": t.outcome == TxnOutcome::Committed});
        if details {
            txn["txlab"] = json!({
                "id": t.id,
                "label": t.label,
                "session": t.session,
                "level": t.level.map(|l| l.name()),
                "started": interval(t.started),
                "ended": interval(t.ended),
                "seq": seq,
                "outcome": match t.outcome {
                    TxnOutcome::Committed => "committed",
                    TxnOutcome::Aborted => "aborted",
                    TxnOutcome::Unknown => "unknown",
                },
                "mops": metas,
            });
        }
        let s = match t.session {
            Some(s) => *session_of.entry(s).or_insert_with(|| {
                sessions.push(Vec::new());
                sessions.len() - 1
            }),
            None => {
                sessions.push(Vec::new());
                sessions.len() - 1
            }
        };
        sessions[s].push(txn);
    }
    let longest = sessions.iter().map(Vec::len).max().unwrap_or(0);
    let events = plan.mops.iter().map(Vec::len).max().unwrap_or(0);
    json!({
        "params": {
            "id": 0,
            "n_node": sessions.len(),
            "n_variable": rows,
            "n_transaction": longest,
            "n_event": events,
        },
        "info": "txlab history export",
        "start": "1970-01-01T00:00:00+00:00",
        "end": "1970-01-01T00:00:00+00:00",
        "data": sessions,
    })
}
