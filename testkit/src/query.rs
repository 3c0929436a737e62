//! Queries (IR 1.1): nested-loop joins, WHERE, GROUP BY with aggregates and
//! ORDER BY, for top-level queries, INSERT … SELECT and subqueries.

use crate::eval::{eval, keeps, order_cmp, Db, EvalError, Frame, Scope};
use std::cmp::Ordering;
use txlab_plugin_api::prelude::*;

type Rows = Vec<Vec<Value>>;

fn lookup<'a>(
    schema: &'a Schema,
    tables: &'a [Rows],
    name: &str,
) -> Result<(&'a Table, &'a Rows), EvalError> {
    schema
        .tables
        .iter()
        .position(|t| t.name == name)
        .map(|i| (&schema.tables[i], &tables[i]))
        .ok_or_else(|| EvalError::Syntax(format!("unknown table `{name}`")))
}

/// The query's result columns (as readable SQL) and rows; `outer` is the
/// scope a subquery is evaluated in (its row is the enclosing row).
pub fn run_query(
    query: &Query,
    db: Db<'_>,
    outer: Option<&Scope<'_>>,
) -> Result<(Vec<String>, Rows), EvalError> {
    if query.projection.is_empty() {
        return Err(EvalError::Syntax(format!(
            "query over `{}` projects no columns",
            query.table
        )));
    }
    let names = query.names();
    let mut frame = Frame::empty();
    let mut sources = Vec::new();
    let mut offset = 0;
    for (i, &(name, table_name)) in names.iter().enumerate() {
        if names[..i].iter().any(|(n, _)| *n == name) {
            return Err(EvalError::Syntax(format!("the query names `{name}` twice")));
        }
        let (table, rows) = lookup(db.schema, db.tables, table_name)?;
        frame.tables.push((name, table, offset));
        offset += table.columns.len();
        sources.push(rows);
    }
    // Nested loops, one join at a time; a join's ON sees the tables joined so far.
    let mut joined: Rows = sources[0].clone();
    for (k, join) in query.joins.iter().enumerate() {
        let partial = Frame {
            tables: frame.tables[..k + 2].to_vec(),
        };
        let right = sources[k + 1];
        let width = frame.tables[k + 1].1.columns.len();
        let mut next = Vec::new();
        for left in &joined {
            let mut matched = false;
            for r in right {
                let row: Vec<Value> = left.iter().chain(r).cloned().collect();
                let scope = Scope {
                    outer,
                    ..Scope::new(&partial, Some(&row), Some(db))
                };
                if keeps(Some(&join.on), scope)? {
                    matched = true;
                    next.push(row);
                }
            }
            if !matched && join.kind == JoinKind::Left {
                let mut row = left.clone();
                row.extend(std::iter::repeat_n(Value::Null, width));
                next.push(row);
            } else if !matched && join.kind != JoinKind::Inner {
                return Err(EvalError::Syntax(format!(
                    "unsupported join {:?}",
                    join.kind
                )));
            }
        }
        joined = next;
    }
    let scope_for = |row: &[Value]| -> Result<bool, EvalError> {
        let scope = Scope {
            outer,
            ..Scope::new(&frame, Some(row), Some(db))
        };
        keeps(query.filter.as_ref(), scope)
    };
    let mut kept = Vec::new();
    for row in joined {
        if scope_for(&row)? {
            kept.push(row);
        }
    }
    // (sort keys, projected values) per result row.
    let mut out: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
    let project = |row: &[Value],
                   group: Option<&[Vec<Value>]>|
     -> Result<(Vec<Value>, Vec<Value>), EvalError> {
        let scope = Scope {
            outer,
            group,
            ..Scope::new(&frame, Some(row), Some(db))
        };
        let keys = query
            .order_by
            .iter()
            .map(|e| eval(e, scope))
            .collect::<Result<Vec<_>, _>>()?;
        let values = query
            .projection
            .iter()
            .map(|e| eval(e, scope))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((keys, values))
    };
    if query.is_aggregate() {
        // Groups in order of first appearance; NULL keys group together.
        let mut groups: Vec<(Vec<Value>, Rows)> = Vec::new();
        for row in kept {
            let scope = Scope {
                outer,
                ..Scope::new(&frame, Some(&row), Some(db))
            };
            let key = query
                .group_by
                .iter()
                .map(|e| eval(e, scope))
                .collect::<Result<Vec<_>, _>>()?;
            match groups.iter_mut().find(|(k, _)| same_key(k, &key)) {
                Some((_, members)) => members.push(row),
                None => groups.push((key, vec![row])),
            }
        }
        // Without GROUP BY, an aggregate query returns one row even over no rows.
        if groups.is_empty() && query.group_by.is_empty() {
            groups.push((Vec::new(), Vec::new()));
        }
        let nulls = vec![Value::Null; frame.width()];
        for (_, members) in &groups {
            let first = members.first().map_or(nulls.as_slice(), Vec::as_slice);
            out.push(project(first, Some(members))?);
        }
    } else {
        for row in &kept {
            out.push(project(row, None)?);
        }
    }
    // Stable sort: rows with equal keys keep their order.
    out.sort_by(|(a, _), (b, _)| {
        a.iter()
            .zip(b)
            .map(|(x, y)| order_cmp(x, y))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
    let columns = query
        .projection
        .iter()
        .map(crate::render::render_expr)
        .collect();
    Ok((columns, out.into_iter().map(|(_, v)| v).collect()))
}

fn same_key(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| order_cmp(x, y) == Ordering::Equal)
}
