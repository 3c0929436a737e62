//! `prepare`: TxCheck's instrumentation (§3.2 of the paper) at the IR level.
//!
//! Every table gets two columns, last: the item key (a number per row,
//! never changed: initial rows are numbered from 1, every row an INSERT lists
//! gets the next free number) and the version key (0 for the initial rows;
//! every writing statement sets it to a number no other statement uses).
//! Then every data statement of an explicit transaction becomes a *unit*,
//! submitted as one block:
//!
//! - version-set reads (VSR): `SELECT *` of the statement's table, for the
//!   versions its predicate could have looked at (for an INSERT, the rows
//!   its keys could collide with), and of every other table it reads
//!   through subqueries or joins;
//! - a before-write read (BWR) before UPDATE and DELETE, with the statement's
//!   own WHERE (and before REPLACE, of the rows it may remove): the versions
//!   the write overwrites;
//! - the statement, whose SELECT also returns both columns, and whose writes
//!   set the version key;
//! - an after-write read (AWR) after UPDATE and INSERT: the rows whose version
//!   key is the statement's, i.e. the versions it installed.
//!
//! The added reads have shapes no generator makes (they order by the added
//! columns), which is how [`crate::units`] finds them again.

use crate::config::TxcheckConfig;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::instrument::{
    free_column_name, named_like, replaced_rows, splice, Around,
};

/// The names of a table's two columns after `prepare`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyColumns {
    pub item: String,
    pub version: String,
}

/// The two columns of a table of a prepared case, found by name: the last
/// integer columns named like them. `None` when this oracle did not prepare
/// the table.
pub fn key_columns(table: &Table, config: &TxcheckConfig) -> Option<KeyColumns> {
    let last = |base: &str| {
        table
            .columns
            .iter()
            .rev()
            .find(|c| named_like(&c.name, base) && matches!(c.ty, ColumnType::BigInt))
            .map(|c| c.name.clone())
    };
    Some(KeyColumns {
        item: last(&config.item_column)?,
        version: last(&config.version_column)?,
    })
}

fn read(table: &str, filter: Option<Expr>, order_by: Vec<Expr>) -> Statement {
    Statement::Select(Select {
        table: table.to_string(),
        projection: Projection::All,
        filter,
        order_by,
        lock: RowLock::None,
    })
}

/// `SELECT * FROM t ORDER BY item, version`.
pub fn version_set_read(table: &str, keys: &KeyColumns) -> Statement {
    read(
        table,
        None,
        vec![Expr::column(&keys.item), Expr::column(&keys.version)],
    )
}

/// `SELECT * FROM t WHERE <the write's filter> ORDER BY item`.
pub fn before_write_read(table: &str, keys: &KeyColumns, filter: Option<Expr>) -> Statement {
    read(table, filter, vec![Expr::column(&keys.item)])
}

/// `SELECT * FROM t WHERE version = K ORDER BY version`.
pub fn after_write_read(table: &str, keys: &KeyColumns, version: i64) -> Statement {
    read(
        table,
        Some(Expr::eq(
            Expr::column(&keys.version),
            Expr::Literal(Value::Int(version)),
        )),
        vec![Expr::column(&keys.version)],
    )
}

/// Adds the two columns to every table, numbers every row, and turns every
/// data statement of an explicit transaction into a unit.
pub fn instrument(mut case: TestCase, config: &TxcheckConfig) -> Result<TestCase, PluginError> {
    let mut keys: Vec<(String, KeyColumns)> = Vec::new();
    for table in &mut case.schema.tables {
        let k = KeyColumns {
            item: free_column_name(table, &config.item_column),
            version: String::new(),
        };
        table.columns.push(Column {
            name: k.item.clone(),
            ty: ColumnType::BigInt,
            not_null: false,
        });
        let version = free_column_name(table, &config.version_column);
        table.columns.push(Column {
            name: version.clone(),
            ty: ColumnType::BigInt,
            not_null: false,
        });
        keys.push((table.name.clone(), KeyColumns { version, ..k }));
    }
    let keys_of = |table: &str| {
        keys.iter()
            .find(|(t, _)| t == table)
            .map(|(_, k)| k.clone())
            .ok_or_else(|| {
                PluginError::invalid_input(format!("table `{table}` is not in the schema"))
            })
    };
    let mut next_item: i64 = 1;
    for rows in &mut case.initial_rows {
        let k = keys_of(&rows.table)?;
        rows.columns.push(k.item);
        rows.columns.push(k.version);
        for row in &mut rows.rows {
            row.push(Value::Int(next_item));
            row.push(Value::Int(0));
            next_item += 1;
        }
    }
    let mut next_version: i64 = 1;
    let mut around_all = Vec::new();
    for txn in &mut case.transactions {
        let explicit = txn.kind == TxnKind::Explicit;
        let mut around_txn = Vec::new();
        for statement in &mut txn.statements {
            let mut around = Around::default();
            let Some(table) = statement.table().map(str::to_string) else {
                around_txn.push(around);
                continue;
            };
            let k = keys_of(&table)?;
            // Before an INSERT too: whether its rows collide with a key
            // depends on the rows its table holds. Then one for every other
            // table the statement reads (subqueries, joins).
            if explicit {
                let mut read = vec![table.clone()];
                for t in statement.tables_read() {
                    if !read.iter().any(|r| r == t) {
                        read.push(t.to_string());
                    }
                }
                for t in &read {
                    around.before.push(version_set_read(t, &keys_of(t)?));
                }
            }
            match statement {
                Statement::Select(select) => {
                    if let Projection::Exprs(exprs) = &mut select.projection {
                        exprs.push(Expr::column(&k.item));
                        exprs.push(Expr::column(&k.version));
                    }
                }
                Statement::Insert(insert) => {
                    if insert
                        .columns
                        .iter()
                        .any(|c| *c == k.item || *c == k.version)
                    {
                        return Err(PluginError::invalid_input(format!(
                            "an INSERT into `{table}` already names a column of this oracle"
                        )));
                    }
                    if explicit && insert.on_conflict == OnConflict::Replace {
                        let t = case.schema.table(&table).expect("keys_of found it");
                        if let Some(filter) = replaced_rows(t, insert) {
                            around
                                .before
                                .push(before_write_read(&table, &k, Some(filter)));
                        }
                    }
                    insert.columns.push(k.item.clone());
                    insert.columns.push(k.version.clone());
                    for row in &mut insert.rows {
                        row.push(Expr::Literal(Value::Int(next_item)));
                        row.push(Expr::Literal(Value::Int(next_version)));
                        next_item += 1;
                    }
                    if explicit {
                        around
                            .after
                            .push(after_write_read(&table, &k, next_version));
                    }
                    next_version += 1;
                }
                Statement::Update(update) => {
                    if explicit {
                        around
                            .before
                            .push(before_write_read(&table, &k, update.filter.clone()));
                        around
                            .after
                            .push(after_write_read(&table, &k, next_version));
                    }
                    update.assignments.push(Assignment {
                        column: k.version.clone(),
                        value: Expr::Literal(Value::Int(next_version)),
                    });
                    next_version += 1;
                }
                Statement::Delete(delete) if explicit => {
                    around
                        .before
                        .push(before_write_read(&table, &k, delete.filter.clone()));
                }
                _ => {}
            }
            around_txn.push(around);
        }
        around_all.push(around_txn);
    }
    splice(&mut case, around_all);
    Ok(case)
}
