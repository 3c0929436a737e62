//! Registers (Elle's rw-register, dbcop's histories) into version lists, by
//! the sound part of Elle's inference.
//!
//! A register's writes replace its value, so a read shows only the last
//! writer, never the order of the writes before it. What is inferred, as
//! Elle infers it by default (`src/elle/rw_register.clj`: unique values,
//! the initial state before every version, external reads and writes):
//!
//! - **wr**: a read of value `v` follows the (unique) write of `v`;
//! - **rw**: a read of the initial value (`nil`; dbcop's `0` or null)
//!   precedes every write of the key, so the reader anti-depends on each
//!   writer of the key (Elle's `initial-state-version-graphs`);
//! - **G1a**, **G1b**: a read of a failed transaction's write, of a write
//!   its transaction overwrote itself.
//!
//! Not inferred: the order of two writes of a key (no ww edges between
//! transactions, so no G0; rw only from reads of the initial value). Elle's
//! optional orders (`:wfr-keys?`, `:sequential-keys?`,
//! `:linearizable-keys?`, each an assumption about the database) are not
//! made either.
//!
//! In version-list terms: each (key, writer) is a row of its own, written by
//! that writer only (its `n`-th write of the key is the list `[T0, W, …, W]`
//! with `n` entries `W`), so the rows carry exactly those edges and no
//! order between writers. A read of the initial value is a read of `[T0]` on
//! every writer's row of the key; a read of `W`'s value is a read of `W`'s
//! row.

use super::elle::Txn;
use super::ops::{MopKind, MopValue, Scalar};
use super::{FormatError, Workload};
use crate::fx::FxMap;
use crate::{History, Observation, ReadKind, RowId, StatementId, TxnId, Write, T0};

/// Builds the observations and writes of a register history; returns the
/// rows' names.
pub(crate) fn build(
    txns: &[Txn],
    ids: &[TxnId],
    history: &mut History,
    workload: Workload,
) -> Result<Vec<(RowId, String)>, FormatError> {
    let table = if workload == Workload::Dbcop {
        "variable"
    } else {
        "register"
    };
    // Each write's writer and its place among that writer's writes of the
    // key; each key's writers.
    let mut writer: FxMap<(&Scalar, &Scalar), (TxnId, usize, usize)> = FxMap::default();
    let mut writers: FxMap<&Scalar, Vec<TxnId>> = FxMap::default();
    let mut count: FxMap<(&Scalar, TxnId), usize> = FxMap::default();
    for (t, &id) in txns.iter().zip(ids) {
        let op = t.op();
        for m in &op.mops {
            if m.f != MopKind::Write {
                continue;
            }
            let MopValue::Scalar(v) = &m.value else {
                return Err(FormatError::at(
                    op.pos,
                    format!("a write of key {} with no single value", m.key),
                ));
            };
            let n = count.entry((&m.key, id)).or_insert(0);
            *n += 1;
            if *n == 1 {
                writers.entry(&m.key).or_default().push(id);
            }
            if let Some((_, _, line)) = writer.insert((&m.key, v), (id, *n, op.pos.line)) {
                return Err(FormatError::Invalid(format!(
                    "value {v} was written to key {} twice (lines {line} and {}): registers need unique writes per key",
                    m.key, op.pos.line
                )));
            }
        }
    }
    // A row per (key, writer), numbered in order of first sight.
    let mut rows = RowsOf::default();
    let mut unknown: FxMap<(&Scalar, &Scalar), TxnId> = FxMap::default();
    let mut next_unknown = ids.iter().copied().max().unwrap_or(0) + 1;
    let mut versions = Vec::new();
    for (t, &id) in txns.iter().zip(ids) {
        let op = t.op();
        // Keys this transaction read or wrote before: only its external
        // reads (a key's first access, a read) show other transactions.
        let mut touched: Vec<&Scalar> = Vec::new();
        let mut writes_of: FxMap<&Scalar, usize> = FxMap::default();
        for (i, m) in op.mops.iter().enumerate() {
            let first = !touched.contains(&&m.key);
            if first {
                touched.push(&m.key);
            }
            match m.f {
                MopKind::Write => {
                    let n = writes_of.entry(&m.key).or_insert(0);
                    *n += 1;
                    let row = rows.of(&m.key, id);
                    history
                        .write(Write {
                            statement: StatementId::new(id, i as u32),
                            table: table.to_string(),
                            row,
                        })
                        .map_err(|e| FormatError::at(op.pos, e.to_string()))?;
                }
                MopKind::Read => {
                    if !first || !t.read_counts(&m.value) {
                        continue;
                    }
                    let mut observe = |row: RowId, versions: &[TxnId], values: String| {
                        history
                            .observe(Observation {
                                statement: StatementId::new(id, i as u32),
                                kind: ReadKind::Plain,
                                table: table.to_string(),
                                row,
                                versions: versions.to_vec(),
                                values,
                                at: None,
                            })
                            .map_err(|e| FormatError::at(op.pos, e.to_string()))
                    };
                    match &m.value {
                        MopValue::Nil => {
                            // The initial value: before every write of the key.
                            for &w in writers.get(&m.key).map(Vec::as_slice).unwrap_or(&[]) {
                                if w == id {
                                    continue;
                                }
                                let row = rows.of(&m.key, w);
                                observe(row, &[T0], format!("{} = nil", m.key))?;
                            }
                        }
                        MopValue::Scalar(v) => {
                            let (w, n) = match writer.get(&(&m.key, v)) {
                                Some(&(w, n, _)) => (w, n),
                                None => {
                                    let w = *unknown.entry((&m.key, v)).or_insert_with(|| {
                                        next_unknown += 1;
                                        next_unknown - 1
                                    });
                                    (w, 1)
                                }
                            };
                            if w == id {
                                // Reads its own later write: Elle's
                                // internal checks say what that is.
                                continue;
                            }
                            versions.clear();
                            versions.push(T0);
                            versions.extend(std::iter::repeat_n(w, n));
                            let row = rows.of(&m.key, w);
                            observe(row, &versions, format!("{} = {v}", m.key))?;
                        }
                        MopValue::List(_) => {
                            return Err(FormatError::at(
                                op.pos,
                                format!("a register read of key {} returned a list", m.key),
                            ))
                        }
                    }
                }
                MopKind::Append => unreachable!("a register history has no :append"),
            }
        }
    }
    Ok(rows.names)
}

/// A row per (key, writer), numbered in order of first sight, with the
/// key's name.
#[derive(Default)]
struct RowsOf {
    map: FxMap<(Scalar, TxnId), RowId>,
    names: Vec<(RowId, String)>,
}

impl RowsOf {
    fn of(&mut self, key: &Scalar, w: TxnId) -> RowId {
        if let Some(&r) = self.map.get(&(key.clone(), w)) {
            return r;
        }
        let r = self.names.len() as RowId + 1;
        self.names.push((r, key.to_string()));
        self.map.insert((key.clone(), w), r);
        r
    }
}
