//! Statements and table DDL in SQLite's SQL.

use crate::expr::{expr, list_of, sort_key, Scope};
use crate::literal::{ident, type_name};
use crate::semantics::check_level;
use txlab_plugin_api::prelude::*;

pub fn statement(stmt: &Statement, ctx: &RenderContext<'_>) -> Result<String, PluginError> {
    let scope_of = |table: &str| match ctx.schema.table(table) {
        Some(t) => Scope::Table(t),
        None => Scope::Unknown,
    };
    match stmt {
        Statement::Begin => {
            check_level(ctx.isolation)?;
            // Plain BEGIN is DEFERRED, which gives the snapshot-at-first-read
            // semantics the dialect declares (https://www.sqlite.org/lang_transaction.html).
            Ok("BEGIN".to_string())
        }
        Statement::Commit => Ok("COMMIT".to_string()),
        Statement::Rollback => Ok("ROLLBACK".to_string()),
        Statement::Select(s) => select(s, scope_of(&s.table)),
        Statement::Insert(s) => insert(s),
        Statement::Update(s) => update(s, scope_of(&s.table)),
        Statement::Delete(s) => delete(s, scope_of(&s.table)),
        other => Err(PluginError::unsupported(format!(
            "the sqlite dialect cannot render the statement {}",
            other.kind_name()
        ))),
    }
}

fn select(s: &Select, scope: Scope<'_>) -> Result<String, PluginError> {
    match s.lock {
        RowLock::None => {}
        // https://www.sqlite.org/lang_select.html has no locking clause: SQLite locks
        // the whole database, never rows.
        RowLock::ForUpdate | RowLock::ForShare => {
            return Err(PluginError::unsupported(format!(
                "SQLite has no {}",
                Statement::Select(s.clone()).kind_name()
            )))
        }
    }
    let projection = match &s.projection {
        Projection::All => "*".to_string(),
        Projection::Exprs(exprs) if exprs.is_empty() => {
            return Err(PluginError::invalid_input(format!(
                "SELECT from `{}` projects no columns",
                s.table
            )))
        }
        Projection::Exprs(exprs) => list_of(exprs, scope)?,
    };
    let mut sql = format!("SELECT {projection} FROM {}", ident(&s.table)?);
    push_where(&mut sql, s.filter.as_ref(), scope)?;
    if !s.order_by.is_empty() {
        let keys = s
            .order_by
            .iter()
            .map(|e| sort_key(e, scope))
            .collect::<Result<Vec<_>, _>>()?;
        sql.push_str(" ORDER BY ");
        sql.push_str(&keys.join(", "));
    }
    Ok(sql)
}

fn insert(s: &Insert) -> Result<String, PluginError> {
    if s.columns.is_empty() || s.rows.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "INSERT into `{}` needs at least one column and one row",
            s.table
        )));
    }
    // https://www.sqlite.org/lang_conflict.html
    let verb = match s.on_conflict {
        OnConflict::Error => "INSERT",
        OnConflict::Replace => "INSERT OR REPLACE",
        OnConflict::Ignore => "INSERT OR IGNORE",
    };
    let rows = s
        .rows
        .iter()
        .map(|row| Ok(format!("({})", list_of(row, Scope::Nothing)?)))
        .collect::<Result<Vec<_>, PluginError>>()?;
    Ok(format!(
        "{verb} INTO {} ({}) VALUES {}",
        ident(&s.table)?,
        idents(&s.columns)?,
        rows.join(", ")
    ))
}

fn update(s: &Update, scope: Scope<'_>) -> Result<String, PluginError> {
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
            Ok(format!(
                "{} = {}",
                ident(&a.column)?,
                expr(&a.value, scope)?
            ))
        })
        .collect::<Result<Vec<_>, PluginError>>()?;
    let mut sql = format!("UPDATE {} SET {}", ident(&s.table)?, assignments.join(", "));
    push_where(&mut sql, s.filter.as_ref(), scope)?;
    Ok(sql)
}

fn delete(s: &Delete, scope: Scope<'_>) -> Result<String, PluginError> {
    let mut sql = format!("DELETE FROM {}", ident(&s.table)?);
    push_where(&mut sql, s.filter.as_ref(), scope)?;
    Ok(sql)
}

fn push_where(
    sql: &mut String,
    filter: Option<&Expr>,
    scope: Scope<'_>,
) -> Result<(), PluginError> {
    if let Some(filter) = filter {
        sql.push_str(" WHERE ");
        sql.push_str(&expr(filter, scope)?);
    }
    Ok(())
}

/// CREATE TABLE, then one CREATE INDEX per index.
pub fn create_table(table: &Table) -> Result<Vec<String>, PluginError> {
    if table.columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "table `{}` has no columns",
            table.name
        )));
    }
    let name = ident(&table.name)?;
    let mut parts = Vec::new();
    for column in &table.columns {
        let mut def = format!("{} {}", ident(&column.name)?, type_name(column.ty)?);
        // SQLite lets PRIMARY KEY columns hold NULL unless they are declared NOT NULL
        // (https://www.sqlite.org/lang_createtable.html#the_primary_key); the IR
        // follows the SQL standard, where a key column is never NULL.
        if column.not_null || table.primary_key.contains(&column.name) {
            def.push_str(" NOT NULL");
        }
        parts.push(def);
    }
    if !table.primary_key.is_empty() {
        parts.push(format!(
            "PRIMARY KEY ({})",
            key_columns(table, &table.primary_key, "PRIMARY KEY")?
        ));
    }
    for unique in &table.unique {
        parts.push(format!(
            "UNIQUE ({})",
            key_columns(table, unique, "UNIQUE constraint")?
        ));
    }
    let mut out = vec![format!("CREATE TABLE {name} ({})", parts.join(", "))];
    for index in &table.indexes {
        let what = format!("index `{}`", index.name);
        out.push(format!(
            "CREATE {}INDEX {} ON {name} ({})",
            if index.unique { "UNIQUE " } else { "" },
            ident(&index.name)?,
            key_columns(table, &index.columns, &what)?
        ));
    }
    Ok(out)
}

pub fn drop_table(table: &Table) -> Result<String, PluginError> {
    // Dropping a table drops its indexes too (https://www.sqlite.org/lang_droptable.html).
    Ok(format!("DROP TABLE IF EXISTS {}", ident(&table.name)?))
}

/// The quoted column list of a key or index, each column checked to exist.
fn key_columns(table: &Table, columns: &[String], what: &str) -> Result<String, PluginError> {
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
    idents(columns)
}

fn idents(names: &[String]) -> Result<String, PluginError> {
    let quoted = names
        .iter()
        .map(|n| ident(n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(quoted.join(", "))
}
