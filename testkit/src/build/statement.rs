//! Data statements on one table.

use super::strings;
use txlab_plugin_api::prelude::*;

/// `SELECT *` without a row lock.
pub fn select(table: &str, filter: Option<Expr>, order_by: Vec<Expr>) -> Statement {
    Statement::Select(Select {
        table: table.into(),
        projection: Projection::All,
        filter,
        order_by,
        lock: RowLock::None,
    })
}

/// `SELECT *` with a row lock and no ORDER BY.
pub fn locking_select(table: &str, filter: Option<Expr>, lock: RowLock) -> Statement {
    Statement::Select(Select {
        table: table.into(),
        projection: Projection::All,
        filter,
        order_by: Vec::new(),
        lock,
    })
}

/// An INSERT of literal rows.
pub fn insert(
    table: &str,
    columns: &[&str],
    rows: Vec<Vec<Value>>,
    on_conflict: OnConflict,
) -> Statement {
    Statement::Insert(Insert {
        table: table.into(),
        columns: strings(columns),
        rows: rows
            .into_iter()
            .map(|r| r.into_iter().map(Expr::Literal).collect())
            .collect(),
        on_conflict,
    })
}

/// An UPDATE of `(column, value)` assignments.
pub fn update(table: &str, assignments: Vec<(&str, Expr)>, filter: Option<Expr>) -> Statement {
    Statement::Update(Update {
        table: table.into(),
        assignments: assignments
            .into_iter()
            .map(|(column, value)| Assignment {
                column: column.into(),
                value,
            })
            .collect(),
        filter,
    })
}

pub fn delete(table: &str, filter: Option<Expr>) -> Statement {
    Statement::Delete(Delete {
        table: table.into(),
        filter,
    })
}
