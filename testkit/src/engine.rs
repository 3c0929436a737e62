//! Executes one data statement against a set of tables. Every write builds the
//! table's new rows aside and installs them only on success, so a failing
//! statement changes nothing.

use crate::eval::{
    check_columns, convert, eval, keeps, order_cmp, resolve, Db, EvalError, Frame, Scope,
};
use std::cmp::Ordering;
use txlab_plugin_api::prelude::*;

pub type Rows = Vec<Vec<Value>>;

/// Runs a SELECT, INSERT, UPDATE or DELETE; `tables` is index-aligned with
/// `schema.tables`.
pub fn execute(schema: &Schema, tables: &mut [Rows], statement: &Statement) -> Outcome {
    let result = match statement {
        Statement::Select(select) => run_select(schema, tables, select),
        Statement::Insert(insert) => run_insert(schema, tables, insert),
        Statement::Update(update) => run_update(schema, tables, update),
        Statement::Delete(delete) => run_delete(schema, tables, delete),
        Statement::Query(query) => {
            let db = Db { schema, tables };
            crate::query::run_query(query, db, None)
                .map(|(columns, rows)| Outcome::Rows { columns, rows })
        }
        Statement::InsertSelect(insert) => run_insert_select(schema, tables, insert),
        other => Err(EvalError::Syntax(format!(
            "{} is not a data statement",
            other.kind_name()
        ))),
    };
    result.unwrap_or_else(|e| Outcome::Error(e.into_db_error()))
}

fn lookup<'a>(schema: &'a Schema, name: &str) -> Result<(usize, &'a Table), EvalError> {
    schema
        .tables
        .iter()
        .enumerate()
        .find(|(_, t)| t.name == name)
        .ok_or_else(|| EvalError::Syntax(format!("unknown table `{name}`")))
}

fn scope<'a>(frame: &'a Frame<'a>, row: &'a [Value], db: Db<'a>) -> Scope<'a> {
    Scope::new(frame, Some(row), Some(db))
}

fn run_select(schema: &Schema, tables: &[Rows], select: &Select) -> Result<Outcome, EvalError> {
    let (index, table) = lookup(schema, &select.table)?;
    let projection: Option<&[Expr]> = match &select.projection {
        Projection::All => None,
        Projection::Exprs(exprs) => Some(exprs),
    };
    for expr in select
        .filter
        .iter()
        .chain(select.order_by.iter())
        .chain(projection.into_iter().flatten())
    {
        check_columns(expr, table, true)?;
    }
    let frame = Frame::single(table);
    let db = Db { schema, tables };
    let mut selected = Vec::new();
    for row in &tables[index] {
        if !keeps(select.filter.as_ref(), scope(&frame, row, db))? {
            continue;
        }
        let keys = select
            .order_by
            .iter()
            .map(|e| eval(e, scope(&frame, row, db)))
            .collect::<Result<Vec<_>, _>>()?;
        let values = match projection {
            None => row.clone(),
            Some(exprs) => exprs
                .iter()
                .map(|e| eval(e, scope(&frame, row, db)))
                .collect::<Result<Vec<_>, _>>()?,
        };
        selected.push((keys, values));
    }
    // Stable sort: rows with equal keys keep table order.
    selected.sort_by(|(a, _), (b, _)| {
        a.iter()
            .zip(b)
            .map(|(x, y)| order_cmp(x, y))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
    let columns = match projection {
        None => table.column_names(),
        Some(exprs) => exprs.iter().map(crate::render::render_expr).collect(),
    };
    Ok(Outcome::Rows {
        columns,
        rows: selected.into_iter().map(|(_, values)| values).collect(),
    })
}

fn run_insert(schema: &Schema, tables: &mut [Rows], insert: &Insert) -> Result<Outcome, EvalError> {
    let (_, table) = lookup(schema, &insert.table)?;
    let targets = distinct_columns(table, insert.columns.iter().map(String::as_str))?;
    let frame = Frame::empty();
    let db = Db {
        schema,
        tables: &*tables,
    };
    let mut values_rows = Vec::with_capacity(insert.rows.len());
    for values in &insert.rows {
        if values.len() != targets.len() {
            return Err(EvalError::Syntax(format!(
                "INSERT row has {} values for {} columns",
                values.len(),
                targets.len()
            )));
        }
        let mut row = Vec::with_capacity(values.len());
        for expr in values {
            check_columns(expr, table, false)?;
            row.push(eval(expr, Scope::new(&frame, None, Some(db)))?);
        }
        values_rows.push(row);
    }
    insert_values(
        schema,
        tables,
        &insert.table,
        &insert.columns,
        values_rows,
        insert.on_conflict,
    )
}

/// INSERT … SELECT (IR 1.1): the query reads the tables as the statement
/// found them, then its rows are inserted as VALUES rows would be.
fn run_insert_select(
    schema: &Schema,
    tables: &mut [Rows],
    insert: &InsertSelect,
) -> Result<Outcome, EvalError> {
    if insert.query.projection.len() != insert.columns.len() {
        return Err(EvalError::Syntax(format!(
            "INSERT … SELECT projects {} values for {} columns",
            insert.query.projection.len(),
            insert.columns.len()
        )));
    }
    let db = Db {
        schema,
        tables: &*tables,
    };
    let (_, rows) = crate::query::run_query(&insert.query, db, None)?;
    insert_values(
        schema,
        tables,
        &insert.table,
        &insert.columns,
        rows,
        insert.on_conflict,
    )
}

/// Inserts evaluated rows of `columns`' values into `table_name`.
fn insert_values(
    schema: &Schema,
    tables: &mut [Rows],
    table_name: &str,
    columns: &[String],
    values_rows: Rows,
    on_conflict: OnConflict,
) -> Result<Outcome, EvalError> {
    let (index, table) = lookup(schema, table_name)?;
    let targets = distinct_columns(table, columns.iter().map(String::as_str))?;
    let mut new_rows = Vec::with_capacity(values_rows.len());
    for values in values_rows {
        let mut row = vec![Value::Null; table.columns.len()];
        for (&column, value) in targets.iter().zip(values) {
            row[column] = convert(value, table.columns[column].ty)?;
        }
        check_not_null(table, &row)?;
        new_rows.push(row);
    }
    let keys = keys(table)?;
    let mut result = tables[index].clone();
    let mut affected = 0u64;
    for row in new_rows {
        let colliding: Vec<usize> = result
            .iter()
            .enumerate()
            .filter(|(_, existing)| keys.iter().any(|key| collide(existing, &row, key)))
            .map(|(i, _)| i)
            .collect();
        if colliding.is_empty() {
            result.push(row);
            affected += 1;
            continue;
        }
        match on_conflict {
            OnConflict::Error => {
                return Err(EvalError::Constraint(format!(
                    "duplicate key in table `{}`: {} collides with {}",
                    table.name,
                    render_row(&row),
                    render_row(&result[colliding[0]])
                )))
            }
            OnConflict::Ignore => {}
            OnConflict::Replace => {
                // MySQL's count for REPLACE: rows deleted plus the row inserted.
                affected += colliding.len() as u64 + 1;
                for i in colliding.into_iter().rev() {
                    result.remove(i);
                }
                result.push(row);
            }
        }
    }
    tables[index] = result;
    Ok(Outcome::Affected { rows: affected })
}

fn run_update(schema: &Schema, tables: &mut [Rows], update: &Update) -> Result<Outcome, EvalError> {
    let (index, table) = lookup(schema, &update.table)?;
    let targets = distinct_columns(table, update.assignments.iter().map(|a| a.column.as_str()))?;
    for expr in update
        .filter
        .iter()
        .chain(update.assignments.iter().map(|a| &a.value))
    {
        check_columns(expr, table, true)?;
    }
    let frame = Frame::single(table);
    // Subqueries read the tables as the statement found them.
    let db = Db {
        schema,
        tables: &*tables,
    };
    let mut result = tables[index].clone();
    let mut affected = 0u64;
    for row in &mut result {
        if !keeps(update.filter.as_ref(), scope(&frame, row, db))? {
            continue;
        }
        // Every assignment sees the old row, as the SQL standard says.
        let mut new_row = row.clone();
        for (&column, assignment) in targets.iter().zip(&update.assignments) {
            let value = eval(&assignment.value, scope(&frame, row, db))?;
            new_row[column] = convert(value, table.columns[column].ty)?;
        }
        check_not_null(table, &new_row)?;
        *row = new_row;
        // Matched rows, as PostgreSQL and SQLite count them.
        affected += 1;
    }
    check_unique(table, &result)?;
    tables[index] = result;
    Ok(Outcome::Affected { rows: affected })
}

fn run_delete(schema: &Schema, tables: &mut [Rows], delete: &Delete) -> Result<Outcome, EvalError> {
    let (index, table) = lookup(schema, &delete.table)?;
    if let Some(filter) = &delete.filter {
        check_columns(filter, table, true)?;
    }
    let frame = Frame::single(table);
    let db = Db {
        schema,
        tables: &*tables,
    };
    let mut kept = Vec::with_capacity(tables[index].len());
    let mut affected = 0u64;
    for row in &tables[index] {
        if keeps(delete.filter.as_ref(), scope(&frame, row, db))? {
            affected += 1;
        } else {
            kept.push(row.clone());
        }
    }
    tables[index] = kept;
    Ok(Outcome::Affected { rows: affected })
}

/// Positions of the named columns; unknown or repeated names are errors.
fn distinct_columns<'a>(
    table: &Table,
    names: impl Iterator<Item = &'a str>,
) -> Result<Vec<usize>, EvalError> {
    let mut positions = Vec::new();
    for name in names {
        let position = resolve(
            table,
            &ColumnRef {
                table: None,
                column: name.to_string(),
            },
        )?;
        if positions.contains(&position) {
            return Err(EvalError::Syntax(format!("column `{name}` is named twice")));
        }
        positions.push(position);
    }
    Ok(positions)
}

/// PRIMARY KEY, UNIQUE constraints and unique indexes, as column positions.
pub fn keys(table: &Table) -> Result<Vec<Vec<usize>>, EvalError> {
    let mut keys = Vec::new();
    let declared = std::iter::once(&table.primary_key)
        .filter(|pk| !pk.is_empty())
        .chain(table.unique.iter())
        .chain(
            table
                .indexes
                .iter()
                .filter(|i| i.unique)
                .map(|i| &i.columns),
        );
    for key in declared {
        keys.push(
            key.iter()
                .map(|name| {
                    resolve(
                        table,
                        &ColumnRef {
                            table: None,
                            column: name.clone(),
                        },
                    )
                })
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(keys)
}

/// Two rows collide on a key when every key column is equal; NULLs never collide.
fn collide(a: &[Value], b: &[Value], key: &[usize]) -> bool {
    key.iter().all(|&c| {
        matches!(
            crate::eval::sql_cmp(&a[c], &b[c]),
            Ok(Some(Ordering::Equal))
        )
    })
}

pub fn check_not_null(table: &Table, row: &[Value]) -> Result<(), EvalError> {
    for (column, value) in table.columns.iter().zip(row) {
        let required = column.not_null || table.primary_key.contains(&column.name);
        if required && value.is_null() {
            return Err(EvalError::Constraint(format!(
                "column `{}` of table `{}` cannot be NULL",
                column.name, table.name
            )));
        }
    }
    Ok(())
}

/// Checks that no two rows of `rows` collide on any key of `table`.
pub fn check_unique(table: &Table, rows: &[Vec<Value>]) -> Result<(), EvalError> {
    for key in keys(table)? {
        for (i, a) in rows.iter().enumerate() {
            if let Some(b) = rows[i + 1..].iter().find(|b| collide(a, b, &key)) {
                return Err(EvalError::Constraint(format!(
                    "duplicate key in table `{}`: {} collides with {}",
                    table.name,
                    render_row(b),
                    render_row(a)
                )));
            }
        }
    }
    Ok(())
}

pub fn render_row(row: &[Value]) -> String {
    let cells: Vec<String> = row.iter().map(ToString::to_string).collect();
    format!("({})", cells.join(", "))
}
