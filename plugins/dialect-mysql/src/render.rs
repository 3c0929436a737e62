//! Statements and table DDL in MySQL-family SQL.

use crate::expr::{ExprWriter, Scope};
use crate::flavor::{Flavor, Target};
use crate::literal::{column_type, ident};
use crate::semantics::check_level;
use txlab_plugin_api::prelude::*;

pub fn statement(
    target: &Target,
    stmt: &Statement,
    ctx: &RenderContext<'_>,
) -> Result<String, PluginError> {
    let writer_for = |table: &str| ExprWriter {
        flavor: target.flavor,
        scope: match ctx.schema.table(table) {
            Some(t) => Scope::Table(t),
            None => Scope::Unknown,
        },
    };
    match stmt {
        Statement::Begin => begin(target, ctx.isolation),
        Statement::Commit => Ok("COMMIT".to_string()),
        Statement::Rollback => Ok("ROLLBACK".to_string()),
        Statement::Select(s) => select(target, s, writer_for(&s.table)),
        Statement::Insert(s) => insert(target, s),
        Statement::Update(s) => update(s, writer_for(&s.table)),
        Statement::Delete(s) => delete(s, writer_for(&s.table)),
        other => Err(PluginError::unsupported(format!(
            "the {} dialect cannot render the statement {}",
            target.flavor,
            other.kind_name()
        ))),
    }
}

/// The isolation level itself is set per session (see `session`); BEGIN only
/// refuses a level the flavor lacks.
fn begin(target: &Target, level: IsolationLevel) -> Result<String, PluginError> {
    check_level(target, level)?;
    Ok(match target.flavor {
        // A plain START TRANSACTION, not WITH CONSISTENT SNAPSHOT: InnoDB then takes
        // the snapshot at the first consistent read, as the semantics declare
        // (https://dev.mysql.com/doc/refman/8.0/en/innodb-consistent-read.html).
        Flavor::Mysql | Flavor::Mariadb => "START TRANSACTION".to_string(),
        // BEGIN PESSIMISTIC / OPTIMISTIC override tidb_txn_mode for this transaction
        // (https://docs.pingcap.com/tidb/stable/pessimistic-transaction#switch-transaction-mode).
        Flavor::Tidb => format!("BEGIN {}", target.txn_mode.keyword()),
    })
}

fn select(target: &Target, s: &Select, w: ExprWriter<'_>) -> Result<String, PluginError> {
    let lock =
        match (s.lock, target.flavor) {
            (RowLock::None, _) => "",
            // https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html
            (RowLock::ForUpdate, _) => " FOR UPDATE",
            // FOR SHARE replaced LOCK IN SHARE MODE in MySQL 8.0 (same page).
            (RowLock::ForShare, Flavor::Mysql) => " FOR SHARE",
            // MariaDB 10.11 has no FOR SHARE
            // (https://mariadb.com/docs/server/reference/sql-statements/data-manipulation/selecting-data/lock-in-share-mode).
            (RowLock::ForShare, Flavor::Mariadb) => " LOCK IN SHARE MODE",
            // TiDB refuses a shared lock unless tidb_enable_noop_functions makes it a
            // no-op, or tidb_enable_shared_lock_promotion (v8.3+) makes it FOR UPDATE;
            // neither is a shared lock
            // (https://docs.pingcap.com/tidb/stable/pessimistic-transaction#difference-with-mysql-innodb).
            (RowLock::ForShare, Flavor::Tidb) => return Err(PluginError::unsupported(
                "TiDB has no shared row locks: SELECT FOR SHARE is a no-op or an exclusive lock",
            )),
        };
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
    let mut sql = format!("SELECT {projection} FROM {}", ident(&s.table)?);
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
    sql.push_str(lock);
    Ok(sql)
}

fn insert(target: &Target, s: &Insert) -> Result<String, PluginError> {
    if s.columns.is_empty() || s.rows.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "INSERT into `{}` needs at least one column and one row",
            s.table
        )));
    }
    let verb = match s.on_conflict {
        OnConflict::Error => "INSERT",
        // REPLACE deletes the rows that collide on the primary key or a unique
        // index, then inserts (https://dev.mysql.com/doc/refman/8.0/en/replace.html).
        OnConflict::Replace => "REPLACE",
        // IGNORE skips rows that collide on a key; it also turns data errors into
        // warnings with adjusted values, which the generator's values never raise
        // (https://dev.mysql.com/doc/refman/8.0/en/sql-mode.html#ignore-effect-on-execution).
        OnConflict::Ignore => "INSERT IGNORE",
    };
    let values = ExprWriter {
        flavor: target.flavor,
        scope: Scope::Nothing,
    };
    let rows = s
        .rows
        .iter()
        .map(|row| Ok(format!("({})", values.list(row)?)))
        .collect::<Result<Vec<_>, PluginError>>()?;
    Ok(format!(
        "{verb} INTO {} ({}) VALUES {}",
        ident(&s.table)?,
        idents(&s.columns)?,
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
    // MySQL evaluates single-table assignments left to right, so a later one would
    // see the value an earlier one assigned
    // (https://dev.mysql.com/doc/refman/8.0/en/update.html). The IR means every
    // right-hand side to see the row as it was; that only holds if no assignment
    // reads a column assigned before it.
    for (i, a) in s.assignments.iter().enumerate() {
        let assigned_before: Vec<&str> = s.assignments[..i]
            .iter()
            .map(|earlier| earlier.column.as_str())
            .collect();
        if let Some(c) = a
            .value
            .columns()
            .into_iter()
            .find(|c| assigned_before.contains(&c.column.as_str()))
        {
            return Err(PluginError::unsupported(format!(
                "UPDATE of `{}` assigns `{}` from `{}`, which an earlier assignment changed; \
                 MySQL would read the new value",
                s.table, a.column, c.column
            )));
        }
    }
    let assignments = s
        .assignments
        .iter()
        .map(|a| Ok(format!("{} = {}", ident(&a.column)?, w.expr(&a.value)?)))
        .collect::<Result<Vec<_>, PluginError>>()?;
    let mut sql = format!("UPDATE {} SET {}", ident(&s.table)?, assignments.join(", "));
    push_where(&mut sql, s.filter.as_ref(), w)?;
    Ok(sql)
}

fn delete(s: &Delete, w: ExprWriter<'_>) -> Result<String, PluginError> {
    let mut sql = format!("DELETE FROM {}", ident(&s.table)?);
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
pub fn create_table(target: &Target, table: &Table) -> Result<Vec<String>, PluginError> {
    if table.columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "table `{}` has no columns",
            table.name
        )));
    }
    let name = ident(&table.name)?;
    let mut parts = Vec::new();
    for column in &table.columns {
        let mut def = format!("{} {}", ident(&column.name)?, column_type(column.ty)?);
        // MySQL makes PRIMARY KEY columns NOT NULL anyway; saying so keeps the DDL
        // the same on every flavor.
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
    let mut out = vec![format!(
        "CREATE TABLE {name} ({}){}",
        parts.join(", "),
        table_options(target.flavor)
    )];
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

/// Storage engine and collation. A binary collation compares text byte by byte, as
/// the IR does: the servers' default collations ignore case, which would make
/// 'a' and 'A' equal and collide in unique keys.
fn table_options(flavor: Flavor) -> &'static str {
    match flavor {
        // utf8mb4_0900_bin also does not pad: 'a' and 'a ' differ
        // (https://dev.mysql.com/doc/refman/8.0/en/charset-unicode-sets.html).
        Flavor::Mysql => " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin",
        // MariaDB's binary collation without padding
        // (https://mariadb.com/docs/server/reference/data-types/string-data-types/character-sets/supported-character-sets-and-collations).
        Flavor::Mariadb => " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin",
        // TiDB stores every table in TiKV and has no ENGINE to choose; utf8mb4_bin
        // is its binary collation in every supported version
        // (https://docs.pingcap.com/tidb/stable/character-set-and-collation).
        Flavor::Tidb => " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
    }
}

pub fn drop_table(table: &Table) -> Result<String, PluginError> {
    // https://dev.mysql.com/doc/refman/8.0/en/drop-table.html
    Ok(format!("DROP TABLE IF EXISTS {}", ident(&table.name)?))
}

/// The quoted column list of a key or index, each column checked to exist and to
/// be indexable without a prefix length.
fn key_columns(table: &Table, columns: &[String], what: &str) -> Result<String, PluginError> {
    if columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "{what} of table `{}` lists no columns",
            table.name
        )));
    }
    for name in columns {
        let Some(column) = table.column(name) else {
            return Err(PluginError::invalid_input(format!(
                "{what} of table `{}` names column `{name}`, which the table lacks",
                table.name
            )));
        };
        // A TEXT column can only be indexed by a prefix, and a prefix key would
        // treat values equal in their first characters as duplicates
        // (https://dev.mysql.com/doc/refman/8.0/en/column-indexes.html).
        if column.ty == ColumnType::Text {
            return Err(PluginError::invalid_input(format!(
                "{what} of table `{}` includes TEXT column `{name}`, which MySQL can key only \
                 by a prefix",
                table.name
            )));
        }
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
