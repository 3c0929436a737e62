//! Row locks: which statements take them, which the model records, and the
//! missing-lock check (a statement that went through although the other,
//! still running transaction held a conflicting lock on a row it matches).

use super::statement::Step;
use super::views::Views;
use super::{DiffKind, Difference, Stop, Walk};
use crate::scratch::{clustering_key, Scratch, ViewRun};
use crate::versions::{LockMode, Model, Rid, Row, View, ViewKind};
use txlab_plugin_api::prelude::*;

/// Statements that lock the rows they match: UPDATE, DELETE, locking SELECT.
pub(super) fn lock_mode(statement: &Statement) -> Option<LockMode> {
    match statement {
        Statement::Update(_) | Statement::Delete(_) => Some(LockMode::Exclusive),
        Statement::Select(s) => match s.lock {
            RowLock::None => None,
            RowLock::ForShare => Some(LockMode::Shared),
            RowLock::ForUpdate => Some(LockMode::Exclusive),
        },
        _ => None,
    }
}

/// Whether some secondary index (with the primary key, which an InnoDB
/// secondary index carries) holds every column `select` uses, so that the
/// DBMS may answer it from that index alone.
fn covered_by_a_secondary_index(table: &Table, select: &Select) -> bool {
    let mut used: Vec<String> = Vec::new();
    let mut add = |e: &Expr| used.extend(e.columns().into_iter().map(|c| c.column.clone()));
    select.filter.iter().for_each(&mut add);
    select.order_by.iter().for_each(&mut add);
    match &select.projection {
        Projection::All => used.extend(table.columns.iter().map(|c| c.name.clone())),
        Projection::Exprs(exprs) => exprs.iter().for_each(&mut add),
    }
    let secondary = table
        .unique
        .iter()
        .map(|cols| cols.iter().map(String::as_str).collect::<Vec<_>>())
        .chain(
            table
                .indexes
                .iter()
                .map(|i| i.columns.iter().map(String::as_str).collect()),
        );
    secondary.into_iter().any(|index: Vec<&str>| {
        used.iter()
            .all(|c| index.contains(&c.as_str()) || table.primary_key.contains(c))
    })
}

impl Walk<'_> {
    /// A FOR SHARE read that a secondary index covers, on a DBMS that declares
    /// such a read may lock only that index (InnoDB:
    /// `shared_reads_may_lock_only_a_covering_index`): it may neither hold nor
    /// wait for locks on the rows themselves (a FOR UPDATE of the same row
    /// through the primary key does not stop it).
    fn shared_read_may_skip_row_locks(&self, statement: &Statement) -> bool {
        self.dialect
            .engine
            .shared_reads_may_lock_only_a_covering_index
            && matches!(statement, Statement::Select(s)
                if s.lock == RowLock::ForShare && covered_by_a_secondary_index(self.table, s))
    }

    /// Missing lock: the other transaction is running and holds a lock on a row
    /// this statement must lock, yet the statement went through at once.
    pub(super) fn check_missing_lock(
        &self,
        scratch: &mut Scratch<'_>,
        model: &Model,
        step: &Step<'_>,
        out: &mut Vec<Difference>,
    ) -> Result<(), Stop> {
        let (t, u) = (step.t(), step.u());
        let outcome = step.outcome();
        if !self.config.check_missing_locks
            || step.blocked
            || !outcome.is_success()
            || !model.is_active(u)
            || self.other_may_be_a_victim_already(step.at, step.record)
            || self.shared_read_may_skip_row_locks(step.statement)
        {
            return Ok(());
        }
        let write_conflict = step.semantics.write_conflict;
        let held = &model.txns[u].locks;
        let conflicting: Vec<Rid> = match write_conflict {
            WriteConflict::SingleWriter if step.statement.is_write() => held
                .iter()
                .filter(|(_, m)| **m == LockMode::Exclusive)
                .map(|(r, _)| *r)
                .collect(),
            WriteConflict::BlockThenProceed
            | WriteConflict::BlockThenAbort
            | WriteConflict::SingleWriter
                if step.lock.is_some() && !held.is_empty() =>
            {
                let mode = step.lock.expect("checked");
                let latest = model.view(t, ViewKind::LatestCommitted);
                match scratch.matching(step.level, &latest, step.filter)? {
                    Ok(rids) => rids
                        .into_iter()
                        .filter(|r| {
                            held.get(r).is_some_and(|m| {
                                *m == LockMode::Exclusive || mode == LockMode::Exclusive
                            })
                        })
                        .collect(),
                    Err(_) => vec![],
                }
            }
            _ => vec![],
        };
        if conflicting.is_empty() {
            return Ok(());
        }
        let latest = model.view(t, ViewKind::LatestCommitted);
        let rows: Vec<Row> = conflicting
            .iter()
            .filter_map(|r| latest.get(r).cloned())
            .collect();
        out.push(Difference {
            kind: DiffKind::MissingLock,
            at: Some(step.at),
            level: Some(step.level),
            view: ViewKind::LatestCommitted.describe().into(),
            expected: format!(
                "to wait for {} ({}), which {} and still held: {}",
                txn_label(u),
                match write_conflict {
                    WriteConflict::SingleWriter => "one writer at a time",
                    _ => "row locks are held until the transaction ends",
                },
                match write_conflict {
                    WriteConflict::SingleWriter => "had written rows",
                    _ => "locked the rows it matches",
                },
                RowsText(&rows)
            ),
            actual: format!("it did not wait and {outcome}"),
            view_rows: rows,
            only_expected: vec![],
            only_actual: vec![],
        });
        Err(Stop::Differs)
    }

    /// The row locks a statement that succeeded holds from now on (the rows it
    /// writes are locked when its effect is applied).
    pub(super) fn record_locks(
        &self,
        scratch: &mut Scratch<'_>,
        model: &mut Model,
        step: &Step<'_>,
        views: &Views,
        run: &ViewRun,
    ) -> Result<(), Stop> {
        let t = step.t();
        match step.statement {
            Statement::Update(_) | Statement::Delete(_) => {
                // Locks on the rows matched; the effect adds the rows written.
                for &r in &run.matched {
                    model.lock(t, r, LockMode::Exclusive);
                }
            }
            Statement::Select(s) => {
                let Some(mode) = step.lock else {
                    return Ok(());
                };
                // InnoDB takes a shared locking read through a covering
                // secondary index on the index records only ("If a secondary
                // index is used in a search and the index record locks to be
                // set are exclusive, InnoDB also retrieves the corresponding
                // clustered index records and sets locks on them",
                // innodb-locks-set): a writer that changes other columns does
                // not wait. Where the dialect declares such reads, the model
                // does not know which index the DBMS chose, so it records no
                // lock that could predict a wait.
                if self.shared_read_may_skip_row_locks(step.statement) {
                    return Ok(());
                }
                if let Ok(rids) = scratch.matching(step.level, &views.view, s.filter.as_ref())? {
                    for r in rids {
                        model.lock(t, r, mode);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// After an UPDATE or DELETE failed and its transaction went on (the
    /// dialect's `failed_statement_keeps_transaction`): the rows it matched
    /// in its view, which it may hold locked until the transaction ends
    /// (`TxnState::failed_write_rows`).
    pub(super) fn record_failed_write(
        &self,
        scratch: &mut Scratch<'_>,
        model: &mut Model,
        step: &Step<'_>,
        view: &View,
    ) -> Result<(), Stop> {
        if !matches!(step.statement, Statement::Update(_) | Statement::Delete(_))
            || !self.dialect.engine.failed_statement_keeps_transaction
        {
            return Ok(());
        }
        if let Ok(rids) = scratch.matching(step.level, view, step.filter)? {
            model.txns[step.t()].failed_write_rows.extend(rids);
        }
        Ok(())
    }

    /// After an INSERT failed on a key, or an INSERT IGNORE skipped a row
    /// for one: the rows of its view whose clustering
    /// key it repeated, whose index records InnoDB now holds with a shared
    /// lock until the transaction ends (the scan-order rule of a statement
    /// that waited needs them: such a scan stops there). Only rows given by
    /// literals are matched; another INSERT leaves nothing recorded.
    pub(super) fn record_key_collisions(&self, model: &mut Model, step: &Step<'_>, view: &View) {
        let Statement::Insert(insert) = step.statement else {
            return;
        };
        let key = clustering_key(self.table);
        let positions: Option<Vec<(usize, usize)>> = key
            .iter()
            .map(|c| {
                let in_insert = insert.columns.iter().position(|x| x == c)?;
                let in_table = self.table.columns.iter().position(|col| col.name == *c)?;
                Some((in_insert, in_table))
            })
            .collect();
        let Some(positions) = positions.filter(|p| !p.is_empty()) else {
            return;
        };
        for values in &insert.rows {
            let literals: Option<Vec<&Value>> = positions
                .iter()
                .map(|&(i, _)| match values.get(i) {
                    Some(Expr::Literal(v)) => Some(v),
                    _ => None,
                })
                .collect();
            let Some(literals) = literals else {
                continue;
            };
            for (rid, row) in view {
                let same_key = positions
                    .iter()
                    .zip(&literals)
                    .all(|(&(_, p), v)| row.get(p) == Some(*v));
                if same_key {
                    model.txns[step.t()].key_collisions.insert(*rid);
                }
            }
        }
    }
}
