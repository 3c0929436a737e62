//! From an executed case to `txlab-history`'s history: a transaction per id
//! (with its outcome, level and, where the profile says when its snapshot was
//! taken, its start and end times), and an observation per row every read
//! returned, with the row's identity and writers. The final state counts as
//! one more read, by a transaction after all others: it shows the last
//! version of every row, and so the next writer after every version a
//! transaction read.

use super::txn_ids::TxnIds;
use super::{aux_columns, is_removal_read, AuxColumns};
use crate as h;
use txlab_plugin_api::prelude::*;

/// The history `check` judges, and how to name its transactions.
pub struct Observed {
    /// The history.
    pub history: h::History,
    /// How the case's transactions are numbered.
    pub ids: TxnIds,
    /// The id of the final-state read, when the final state was read.
    pub final_read: Option<h::TxnId>,
}

/// Why the run cannot be judged: a read whose rows cannot be told apart.
#[derive(Debug)]
pub struct Unreadable(pub String);

fn interval(record: &StatementRecord) -> Option<h::Interval> {
    Some(h::Interval::new(record.submitted_us?, record.completed_us?))
}

fn outcome_of(end: &TxnEnd) -> h::TxnOutcome {
    match end {
        TxnEnd::Committed => h::TxnOutcome::Committed,
        TxnEnd::RolledBack | TxnEnd::Aborted { .. } => h::TxnOutcome::Aborted,
        TxnEnd::Unfinished => h::TxnOutcome::Unknown,
    }
}

/// When a transaction's snapshot was taken, as far as the observer can
/// tell: between the start of the statement that may first have taken it
/// and the end of the one that certainly had, by the profile's snapshot
/// point. Where the engine takes a first-read snapshot only when a read
/// touches a table (InnoDB: a read the optimizer answers without the table,
/// an impossible WHERE, takes none), any plain read up to the first that
/// returned rows may have taken it. `None` where there is no transaction
/// snapshot (or no statement took it), so nothing is claimed about start
/// order.
fn snapshot_taken(
    case: &TestCase,
    history: &History,
    t: usize,
    dialect: &DialectInfo,
) -> Option<h::Interval> {
    let txn = &case.transactions[t];
    let point = txn.snapshot_point(dialect.level(txn.isolation)?);
    let record = |s: usize| history.record(StatementRef::new(t, s));
    let is_plain_read =
        |s: &Statement| matches!(s, Statement::Select(sel) if sel.lock == RowLock::None);
    let first = txn.statements.iter().position(|s| match point {
        SnapshotPoint::Begin => s.is_begin(),
        SnapshotPoint::FirstStatement => !s.is_control(),
        SnapshotPoint::FirstRead => is_plain_read(s),
        _ => false,
    })?;
    let mut last = first;
    if point == SnapshotPoint::FirstRead && dialect.engine.first_read_snapshot_needs_table_access {
        let returned_rows = |s: usize| matches!(record(s).map(|r| &r.outcome), Some(Outcome::Rows { rows, .. }) if !rows.is_empty());
        last = (first..txn.statements.len())
            .find(|&s| is_plain_read(&txn.statements[s]) && returned_rows(s))?;
    }
    let from = record(first)?.submitted_us?;
    let to = record(last)?.completed_us?;
    Some(h::Interval::new(from, to))
}

fn row_id(v: &Value) -> Option<h::RowId> {
    match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Decimal(s) | Value::Text(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn writers(v: &Value) -> Option<Vec<h::TxnId>> {
    let text = match v {
        Value::Text(s) => s.clone(),
        Value::Bytes(b) => String::from_utf8(b.clone()).ok()?,
        _ => return None,
    };
    text.split(',').map(|p| p.trim().parse().ok()).collect()
}

fn values_text(row: &[Value], skip: &[usize]) -> String {
    let shown: Vec<String> = row
        .iter()
        .enumerate()
        .filter(|(i, _)| !skip.contains(i))
        .map(|(_, v)| v.to_string())
        .collect();
    format!("({})", shown.join(", "))
}

/// The positions of the two columns in a result, by name.
fn positions(columns: &[String], aux: &AuxColumns) -> Option<(usize, usize)> {
    let at = |name: &str| columns.iter().position(|c| c.eq_ignore_ascii_case(name));
    Some((at(&aux.row_id)?, at(&aux.writers)?))
}

struct Rows<'a> {
    /// Writers whose versions this read may not trust when a list ends with
    /// them: a committed transaction with a write statement that failed
    /// (rolled back alone), read before it ended (see `dirty_read_unsure`).
    unsure: &'a [h::TxnId],
    statement: h::StatementId,
    kind: h::ReadKind,
    table: &'a str,
    aux: &'a AuxColumns,
    columns: &'a [String],
    rows: &'a [Vec<Value>],
    at: Option<h::Interval>,
}

fn observe_rows(out: &mut h::History, r: Rows<'_>) -> Result<(), Unreadable> {
    if r.rows.is_empty() {
        // Nothing seen; some drivers cannot tell an empty result's columns.
        return Ok(());
    }
    let (row_at, writers_at) = positions(r.columns, r.aux).ok_or_else(|| {
        Unreadable(format!(
            "{} returned no `{}` and `{}` columns, so its rows cannot be told apart",
            r.statement.label, r.aux.row_id, r.aux.writers
        ))
    })?;
    for row in r.rows {
        let (Some(id), Some(versions)) = (
            row.get(row_at).and_then(row_id),
            row.get(writers_at).and_then(writers),
        ) else {
            return Err(Unreadable(format!(
                "{} returned a row of `{}` whose identity or writers cannot be read: {}",
                r.statement.label,
                r.table,
                values_text(row, &[])
            )));
        };
        if versions
            .last()
            .is_some_and(|last| *last != r.statement.txn && r.unsure.contains(last))
        {
            continue;
        }
        out.observe(h::Observation {
            statement: r.statement.clone(),
            kind: r.kind,
            table: r.table.to_string(),
            row: id,
            versions,
            values: values_text(row, &[row_at, writers_at]),
            at: r.at,
        })
        .map_err(|e| Unreadable(format!("{}: {e}", r.statement.label)))?;
    }
    Ok(())
}

/// Committed explicit transactions with a write statement that failed, and
/// when each began to end (its last statement was sent). A failed statement
/// is rolled back alone (InnoDB undoes the rows it had changed), so a read
/// made before the transaction ended — a dirty read — may have seen a version
/// of that statement which never became part of the committed transaction:
/// such a list proves nothing about the version order. Reads after the end
/// see only what the transaction kept.
fn failed_writers(
    case: &TestCase,
    history: &History,
    ids: &TxnIds,
) -> Vec<(h::TxnId, Option<u64>)> {
    let mut out = Vec::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        if txn.kind != TxnKind::Explicit || history.transactions[t].end != TxnEnd::Committed {
            continue;
        }
        let failed = txn.statements.iter().enumerate().any(|(s, statement)| {
            statement.is_write()
                && matches!(
                    history.record(StatementRef::new(t, s)).map(|r| &r.outcome),
                    Some(Outcome::Error(_))
                )
        });
        if failed {
            let ended = txn
                .statements
                .len()
                .checked_sub(1)
                .and_then(|s| history.record(StatementRef::new(t, s)))
                .and_then(|r| r.submitted_us);
            out.push((ids.id(StatementRef::new(t, 0)), ended));
        }
    }
    out
}

/// The history of an executed, prepared case.
pub fn observe(
    case: &TestCase,
    history: &History,
    dialect: Option<&DialectInfo>,
    row_id_column: &str,
    writers_column: &str,
) -> Result<Observed, Unreadable> {
    let ids = TxnIds::of(case);
    let mut out = h::History::new();
    let add = |out: &mut h::History, t: h::Transaction| {
        out.add_transaction(t)
            .map_err(|e| Unreadable(format!("the transactions cannot be recorded: {e}")))
    };
    for (t, txn) in case.transactions.iter().enumerate() {
        let level = txn.isolation;
        match txn.kind {
            TxnKind::Explicit => {
                let id = ids.id(StatementRef::new(t, 0));
                let mut record = h::Transaction::new(id, outcome_of(&history.transactions[t].end))
                    .with_label(txn_label(t))
                    .at_level(level);
                // Each time where it is known: a transaction that never took
                // a snapshot (only writes, under a first-read snapshot) still
                // ended when its last statement did.
                record.started = dialect.and_then(|d| snapshot_taken(case, history, t, d));
                record.ended = txn
                    .statements
                    .len()
                    .checked_sub(1)
                    .and_then(|s| history.record(StatementRef::new(t, s)))
                    .and_then(interval);
                add(&mut out, record)?;
            }
            TxnKind::Autocommit => {
                for s in 0..txn.statements.len() {
                    let at = StatementRef::new(t, s);
                    let record = history.record(at);
                    let outcome = match record.map(|r| &r.outcome) {
                        Some(Outcome::Rows { .. } | Outcome::Affected { .. } | Outcome::Done) => {
                            h::TxnOutcome::Committed
                        }
                        Some(Outcome::Error(_)) => h::TxnOutcome::Aborted,
                        _ => h::TxnOutcome::Unknown,
                    };
                    let mut entry = h::Transaction::new(ids.id(at), outcome)
                        .with_label(at.to_string())
                        .at_level(level);
                    if let Some(i) = record.and_then(interval) {
                        entry = entry.timed(i, i);
                    }
                    add(&mut out, entry)?;
                }
            }
        }
    }
    let failed_writers = failed_writers(case, history, &ids);
    for (t, txn) in case.transactions.iter().enumerate() {
        for (s, statement) in txn.statements.iter().enumerate() {
            let Statement::Select(select) = statement else {
                continue;
            };
            let at = StatementRef::new(t, s);
            let Some(record) = history.record(at) else {
                continue;
            };
            let Outcome::Rows { columns, rows } = &record.outcome else {
                continue;
            };
            let table = case.schema.table(&select.table).ok_or_else(|| {
                Unreadable(format!(
                    "{at} reads `{}`, which is not in the schema",
                    select.table
                ))
            })?;
            let aux = aux_columns(table, row_id_column, writers_column).ok_or_else(|| {
                Unreadable(format!(
                    "table `{}` has no `{}` and `{}` columns: the case was not prepared by isorel",
                    table.name, row_id_column, writers_column
                ))
            })?;
            // The read before a removal shows the versions the removal then
            // deleted only if the removal succeeded and removed as many rows
            // as the read returned. The two are separate statements: at
            // PostgreSQL's READ COMMITTED each takes its own snapshot, and a
            // locking read that waited re-checks only the rows it had
            // matched, so the DELETE may remove other rows. Where the counts
            // differ the read is only a read: what the removal took goes
            // unseen (a dependency missed, never one made up).
            // A REPLACE counts the rows it inserted and those it deleted.
            let removed = || {
                let next = StatementRef::new(t, s + 1);
                let inserted = match case.statement(next) {
                    Some(Statement::Insert(i)) => i.rows.len() as u64,
                    _ => 0,
                };
                match history.record(next).map(|r| &r.outcome) {
                    Some(Outcome::Affected { rows: affected }) => matches!(
                        &record.outcome,
                        Outcome::Rows { rows, .. } if rows.len() as u64 + inserted == *affected
                    ),
                    _ => false,
                }
            };
            let kind = if is_removal_read(select, &aux) && removed() {
                h::ReadKind::BeforeDelete
            } else if select.lock != RowLock::None {
                h::ReadKind::Locking
            } else {
                h::ReadKind::Plain
            };
            let id = ids.id(at);
            let index = if txn.kind == TxnKind::Autocommit {
                0
            } else {
                s as u32
            };
            // A read that completed before the writer began to end may be a
            // dirty read of a statement the writer later lost.
            let read_done = record.completed_us.unwrap_or(u64::MAX);
            let unsure: Vec<h::TxnId> = failed_writers
                .iter()
                .filter(|(_, ended)| ended.is_none_or(|e| read_done < e))
                .map(|(w, _)| *w)
                .collect();
            observe_rows(
                &mut out,
                Rows {
                    unsure: &unsure,
                    statement: h::StatementId::labelled(id, index, at.to_string()),
                    kind,
                    table: &table.name,
                    aux: &aux,
                    columns,
                    rows,
                    at: interval(record),
                },
            )?;
        }
    }
    let final_read = match &history.final_state {
        None => None,
        Some(state) => {
            let id = ids.all().last().unwrap_or(0) + 1;
            let after = history
                .statements
                .iter()
                .flatten()
                .filter_map(|r| r.completed_us)
                .max()
                .map_or(0, |t| t + 1);
            // After every transaction ended, any level must read the latest
            // committed versions: the final read is judged at the strongest
            // level the dialect offers, so that an anomaly through it (a
            // committed delete that did not stick) is never excused.
            let mut reader = h::Transaction::committed(id)
                .with_label("the final state")
                .timed(h::Interval::at(after), h::Interval::at(after));
            if let Some(strongest) = dialect.and_then(|d| d.levels.iter().map(|l| l.level).max()) {
                reader = reader.at_level(strongest);
            }
            add(&mut out, reader)?;
            for table_state in &state.tables {
                let Some(table) = case.schema.table(&table_state.table) else {
                    continue;
                };
                let Some(aux) = aux_columns(table, row_id_column, writers_column) else {
                    continue;
                };
                observe_rows(
                    &mut out,
                    Rows {
                        unsure: &[],
                        statement: h::StatementId::labelled(id, 0, "the final state"),
                        kind: h::ReadKind::Plain,
                        table: &table.name,
                        aux: &aux,
                        columns: &table_state.columns,
                        rows: &table_state.rows,
                        at: Some(h::Interval::at(after)),
                    },
                )?;
            }
            Some(id)
        }
    };
    Ok(Observed {
        history: out,
        ids,
        final_read,
    })
}
