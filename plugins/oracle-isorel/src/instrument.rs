//! `prepare`: IsoRel's instrumentation (Table 1 of the paper), at the IR level.
//!
//! Every table gets two columns, last: a row identity unique in the case
//! (initial rows are numbered from 1, every row an INSERT lists gets the next
//! free number as a literal) and the row's *writers*, the ids of the
//! transactions that wrote it, in installation order, as text (`"0"` for the
//! initial data, `"0,2,1"` after T2 and then T1 updated it). Then:
//!
//! - every SELECT also returns both columns (`SELECT *` already does);
//! - every INSERT sets them: a fresh identity and the inserting transaction;
//! - every UPDATE appends its transaction to the writers, in the same
//!   statement (`writers || ',2'`, `CONCAT(writers, ',2')` in the MySQL family);
//! - every DELETE, and every REPLACE into a table with a key, is preceded in
//!   its transaction by a read of the rows it is about to remove, locking where
//!   the dialect has `FOR UPDATE`, so the version each removed row had is seen.
//!
//! The columns have no constraint and no index, so they take no locks of their
//! own; the reads before DELETE and REPLACE use the statement's own predicate.

use crate::txn_ids::TxnIds;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::instrument::{
    free_column_name as free_name, replaced_rows, splice, Around,
};

pub use txlab_history::ir::{aux_columns, is_removal_read, AuxColumns};

fn removal_read(
    table: &str,
    aux: &AuxColumns,
    filter: Option<Expr>,
    features: &Features,
) -> Statement {
    Statement::Select(Select {
        table: table.to_string(),
        projection: Projection::Exprs(vec![Expr::column(&aux.row_id), Expr::column(&aux.writers)]),
        filter,
        order_by: vec![Expr::column(&aux.row_id)],
        // SQLite has no FOR UPDATE; there a writer holds the database's
        // write lock, and a stale one fails instead of writing.
        lock: if features.select_for_update {
            RowLock::ForUpdate
        } else {
            RowLock::None
        },
    })
}

/// Adds the two columns to every table, numbers every row, and instruments
/// every statement.
pub fn instrument(
    mut case: TestCase,
    row_id: &str,
    writers: &str,
    features: &Features,
) -> Result<TestCase, PluginError> {
    let mut aux = Vec::new();
    for table in &mut case.schema.tables {
        let row = free_name(table, row_id);
        table.columns.push(Column {
            name: row.clone(),
            ty: ColumnType::BigInt,
            not_null: false,
        });
        let list = free_name(table, writers);
        table.columns.push(Column {
            name: list.clone(),
            ty: ColumnType::Text,
            not_null: false,
        });
        aux.push((
            table.name.clone(),
            AuxColumns {
                row_id: row,
                writers: list,
            },
        ));
    }
    let aux_of = |table: &str| {
        aux.iter()
            .find(|(t, _)| t == table)
            .map(|(_, a)| a.clone())
            .ok_or_else(|| {
                PluginError::invalid_input(format!("table `{table}` is not in the schema"))
            })
    };
    let mut next: i64 = 1;
    for rows in &mut case.initial_rows {
        let a = aux_of(&rows.table)?;
        rows.columns.push(a.row_id);
        rows.columns.push(a.writers);
        for row in &mut rows.rows {
            row.push(Value::Int(next));
            row.push(Value::Text(TxnIds::INITIAL.to_string()));
            next += 1;
        }
    }
    let ids = TxnIds::of(&case);
    // Statements `prepare` puts before each original one, by its position.
    let mut added: Vec<Vec<Around>> = Vec::new();
    for (t, txn) in case.transactions.iter_mut().enumerate() {
        let autocommit = txn.kind == TxnKind::Autocommit;
        let mut around_each = Vec::new();
        for (s, statement) in txn.statements.iter_mut().enumerate() {
            let writer = ids.id(StatementRef::new(t, s)).to_string();
            let mut before = Vec::new();
            match statement {
                Statement::Select(select) => {
                    let a = aux_of(&select.table)?;
                    if let Projection::Exprs(exprs) = &mut select.projection {
                        exprs.push(Expr::column(&a.row_id));
                        exprs.push(Expr::column(&a.writers));
                    }
                }
                Statement::Insert(insert) => {
                    let a = aux_of(&insert.table)?;
                    if insert
                        .columns
                        .iter()
                        .any(|c| *c == a.row_id || *c == a.writers)
                    {
                        return Err(PluginError::invalid_input(format!(
                            "an INSERT into `{}` already names an auxiliary column",
                            insert.table
                        )));
                    }
                    // An autocommit statement is a transaction of its own: a read
                    // before it would be another one, and see nothing useful.
                    if insert.on_conflict == OnConflict::Replace && !autocommit {
                        let table = case
                            .schema
                            .table(&insert.table)
                            .expect("the table exists: aux_of found it");
                        if let Some(filter) = replaced_rows(table, insert) {
                            before.push(removal_read(&insert.table, &a, Some(filter), features));
                        }
                    }
                    insert.columns.push(a.row_id);
                    insert.columns.push(a.writers);
                    for row in &mut insert.rows {
                        row.push(Expr::Literal(Value::Int(next)));
                        row.push(Expr::Literal(Value::Text(writer.clone())));
                        next += 1;
                    }
                }
                Statement::Update(update) => {
                    let a = aux_of(&update.table)?;
                    update.assignments.push(Assignment {
                        column: a.writers.clone(),
                        value: Expr::Concat(vec![
                            Expr::column(&a.writers),
                            Expr::Literal(Value::Text(format!(",{writer}"))),
                        ]),
                    });
                }
                Statement::Delete(delete) => {
                    let a = aux_of(&delete.table)?;
                    if !autocommit {
                        before.push(removal_read(
                            &delete.table,
                            &a,
                            delete.filter.clone(),
                            features,
                        ));
                    }
                }
                _ => {}
            }
            around_each.push(Around {
                before,
                after: Vec::new(),
            });
        }
        added.push(around_each);
    }
    splice(&mut case, added);
    Ok(case)
}
