//! Statements and table DDL.

use crate::expr::{ExprWriter, Scope};
use crate::flavor::Flavor;
use crate::literal::{ident, type_name};
use crate::semantics::check_level;
use txlab_plugin_api::prelude::*;

pub fn statement(
    flavor: Flavor,
    stmt: &Statement,
    ctx: &RenderContext<'_>,
) -> Result<String, PluginError> {
    let writer = |table: &str| ExprWriter {
        flavor,
        scope: match ctx.schema.table(table) {
            Some(t) => Scope::Table(t),
            None => Scope::Unknown,
        },
    };
    match stmt {
        Statement::Begin => {
            check_level(flavor, ctx.isolation)?;
            // The level is named on every BEGIN, so it never depends on what the
            // session was set to (https://www.postgresql.org/docs/16/sql-begin.html;
            // https://www.cockroachlabs.com/docs/v24.1/begin-transaction).
            let level = ctx.isolation.sql();
            Ok(match flavor {
                Flavor::Postgres => format!("BEGIN ISOLATION LEVEL {level}"),
                Flavor::Cockroach => format!("BEGIN TRANSACTION ISOLATION LEVEL {level}"),
            })
        }
        Statement::Commit => Ok("COMMIT".to_string()),
        Statement::Rollback => Ok("ROLLBACK".to_string()),
        Statement::Select(s) => select(s, writer(&s.table)),
        Statement::Insert(s) => insert(s, writer(&s.table)),
        Statement::Update(s) => update(s, writer(&s.table)),
        Statement::Delete(s) => delete(s, writer(&s.table)),
        other => Err(PluginError::unsupported(format!(
            "the {} dialect cannot render the statement {}",
            flavor.entry_name(),
            other.kind_name()
        ))),
    }
}

fn select(s: &Select, w: ExprWriter<'_>) -> Result<String, PluginError> {
    let projection = match &s.projection {
        Projection::All => "*".to_string(),
        Projection::Exprs(exprs) if exprs.is_empty() => {
            return Err(PluginError::invalid_input(format!(
                "SELECT from `{}` projects no columns",
                s.table
            )))
        }
        Projection::Exprs(exprs) => w.list(exprs)?,
    };
    let mut sql = format!("SELECT {projection} FROM {}", ident(w.flavor, &s.table)?);
    push_where(&mut sql, s.filter.as_ref(), w)?;
    if !s.order_by.is_empty() {
        let keys = s
            .order_by
            .iter()
            .map(|e| w.sort_key(e))
            .collect::<Result<Vec<_>, _>>()?;
        sql.push_str(" ORDER BY ");
        sql.push_str(&keys.join(", "));
    }
    // The locking clause follows ORDER BY
    // (https://www.postgresql.org/docs/16/sql-select.html#SQL-FOR-UPDATE-SHARE).
    match s.lock {
        RowLock::None => {}
        RowLock::ForShare => sql.push_str(" FOR SHARE"),
        RowLock::ForUpdate => sql.push_str(" FOR UPDATE"),
    }
    Ok(sql)
}

fn insert(s: &Insert, w: ExprWriter<'_>) -> Result<String, PluginError> {
    if s.columns.is_empty() || s.rows.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "INSERT into `{}` needs at least one column and one row",
            s.table
        )));
    }
    for column in &s.columns {
        w.scope.check(column)?;
    }
    if let Some(row) = s.rows.iter().find(|r| r.len() != s.columns.len()) {
        return Err(PluginError::invalid_input(format!(
            "INSERT into `{}` names {} columns but has a row of {} values",
            s.table,
            s.columns.len(),
            row.len()
        )));
    }
    let suffix = match s.on_conflict {
        OnConflict::Error => "",
        // https://www.postgresql.org/docs/16/sql-insert.html#SQL-ON-CONFLICT: a row
        // that would violate a unique or exclusion constraint is skipped. Unlike
        // MySQL's INSERT IGNORE, every other error still fails the statement.
        OnConflict::Ignore => " ON CONFLICT DO NOTHING",
        // Neither DBMS deletes the rows a new row collides with; CockroachDB's
        // UPSERT only overwrites the row with the same primary key.
        OnConflict::Replace => {
            return Err(PluginError::unsupported(format!(
                "{} has no REPLACE (delete the colliding rows, then insert)",
                w.flavor.dbms()
            )))
        }
    };
    let values = ExprWriter {
        flavor: w.flavor,
        scope: Scope::Nothing,
    };
    let rows = s
        .rows
        .iter()
        .map(|row| Ok(format!("({})", values.list(row)?)))
        .collect::<Result<Vec<_>, PluginError>>()?;
    Ok(format!(
        "INSERT INTO {} ({}) VALUES {}{suffix}",
        ident(w.flavor, &s.table)?,
        idents(w.flavor, &s.columns)?,
        rows.join(", ")
    ))
}

fn update(s: &Update, w: ExprWriter<'_>) -> Result<String, PluginError> {
    if s.assignments.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "UPDATE of `{}` assigns no column",
            s.table
        )));
    }
    let assignments = s
        .assignments
        .iter()
        .map(|a| {
            w.scope.check(&a.column)?;
            Ok(format!(
                "{} = {}",
                ident(w.flavor, &a.column)?,
                w.expr(&a.value)?
            ))
        })
        .collect::<Result<Vec<_>, PluginError>>()?;
    let mut sql = format!(
        "UPDATE {} SET {}",
        ident(w.flavor, &s.table)?,
        assignments.join(", ")
    );
    push_where(&mut sql, s.filter.as_ref(), w)?;
    Ok(sql)
}

fn delete(s: &Delete, w: ExprWriter<'_>) -> Result<String, PluginError> {
    let mut sql = format!("DELETE FROM {}", ident(w.flavor, &s.table)?);
    push_where(&mut sql, s.filter.as_ref(), w)?;
    Ok(sql)
}

fn push_where(
    sql: &mut String,
    filter: Option<&Expr>,
    w: ExprWriter<'_>,
) -> Result<(), PluginError> {
    if let Some(filter) = filter {
        sql.push_str(" WHERE ");
        sql.push_str(&w.expr(filter)?);
    }
    Ok(())
}

/// CREATE TABLE, then one CREATE INDEX per index.
pub fn create_table(flavor: Flavor, table: &Table) -> Result<Vec<String>, PluginError> {
    if table.columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "table `{}` has no columns",
            table.name
        )));
    }
    let name = ident(flavor, &table.name)?;
    let mut parts = Vec::new();
    for column in &table.columns {
        let mut def = format!(
            "{} {}",
            ident(flavor, &column.name)?,
            type_name(flavor, column.ty)?
        );
        // A primary key implies NOT NULL in both DBMSs; saying so keeps the DDL
        // explicit about what the IR means.
        if column.not_null || table.primary_key.contains(&column.name) {
            def.push_str(" NOT NULL");
        }
        parts.push(def);
    }
    if !table.primary_key.is_empty() {
        parts.push(format!(
            "PRIMARY KEY ({})",
            key_columns(flavor, table, &table.primary_key, "PRIMARY KEY")?
        ));
    }
    for unique in &table.unique {
        parts.push(format!(
            "UNIQUE ({})",
            key_columns(flavor, table, unique, "UNIQUE constraint")?
        ));
    }
    let mut out = vec![format!("CREATE TABLE {name} ({})", parts.join(", "))];
    for index in &table.indexes {
        let what = format!("index `{}`", index.name);
        out.push(format!(
            "CREATE {}INDEX {} ON {name} ({})",
            if index.unique { "UNIQUE " } else { "" },
            ident(flavor, &index.name)?,
            key_columns(flavor, table, &index.columns, &what)?
        ));
    }
    Ok(out)
}

pub fn drop_table(flavor: Flavor, table: &Table) -> Result<String, PluginError> {
    // Dropping a table drops its indexes and constraints
    // (https://www.postgresql.org/docs/16/sql-droptable.html).
    Ok(format!(
        "DROP TABLE IF EXISTS {}",
        ident(flavor, &table.name)?
    ))
}

/// The quoted column list of a key or index, each column checked to exist.
fn key_columns(
    flavor: Flavor,
    table: &Table,
    columns: &[String],
    what: &str,
) -> Result<String, PluginError> {
    if columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "{what} of table `{}` lists no columns",
            table.name
        )));
    }
    if let Some(missing) = columns.iter().find(|c| table.column(c).is_none()) {
        return Err(PluginError::invalid_input(format!(
            "{what} of table `{}` names column `{missing}`, which the table lacks",
            table.name
        )));
    }
    idents(flavor, columns)
}

fn idents(flavor: Flavor, names: &[String]) -> Result<String, PluginError> {
    let quoted = names
        .iter()
        .map(|n| ident(flavor, n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(quoted.join(", "))
}
