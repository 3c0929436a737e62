//! Queries (IR 1.1): over one table or joins, for subqueries, top-level
//! queries and INSERT … SELECT.

use txlab_plugin_api::prelude::*;

/// `SELECT projection FROM table [AS alias] [WHERE filter]`.
pub fn query(
    table: &str,
    alias: Option<&str>,
    projection: Vec<Expr>,
    filter: Option<Expr>,
) -> Query {
    Query {
        table: table.into(),
        alias: alias.map(Into::into),
        joins: Vec::new(),
        projection,
        filter,
        group_by: Vec::new(),
        order_by: Vec::new(),
    }
}

/// A join of `table` (as `alias`) on `on`.
pub fn join(kind: JoinKind, table: &str, alias: Option<&str>, on: Expr) -> Join {
    Join {
        kind,
        table: table.into(),
        alias: alias.map(Into::into),
        on,
    }
}

/// The top-level statement of a query.
pub fn query_statement(query: Query) -> Statement {
    Statement::Query(Box::new(query))
}

pub fn insert_select(
    table: &str,
    columns: &[&str],
    query: Query,
    on_conflict: OnConflict,
) -> Statement {
    Statement::InsertSelect(Box::new(InsertSelect {
        table: table.into(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        query,
        on_conflict,
    }))
}
