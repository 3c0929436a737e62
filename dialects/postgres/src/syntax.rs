//! How PostgreSQL and CockroachDB spell what differs between DBMSs; the shared
//! renderer (`txlab_plugin_api::sdk::sql`) writes the rest of every statement
//! and table.
//!
//! Types are left to the DBMS: PostgreSQL is strictly typed, so an expression the
//! IR writes with mismatched types (a BOOLEAN column compared with an integer)
//! fails there with an error instead of being reinterpreted here.

use crate::flavor::Flavor;
use crate::literal::{ident, literal, type_name};
use crate::semantics::check_level;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::sql::{literal_under_minus, InsertForm, Scope};

impl SqlSyntax for Flavor {
    fn ident(&self, name: &str) -> Result<String, PluginError> {
        ident(*self, name)
    }

    fn literal(&self, value: &Value) -> Result<String, PluginError> {
        literal(value)
    }

    /// Both DBMSs take their column types as CAST targets too.
    fn column_type(&self, ty: ColumnType) -> Result<String, PluginError> {
        type_name(*self, ty)
    }

    /// `x IN ()` is a syntax error. An empty subquery of the operand's own type
    /// gives the set semantics: IN is false and NOT IN true, also for NULL
    /// (https://www.postgresql.org/docs/16/functions-subquery.html).
    fn empty_in_list(&self, operand: &str, negated: bool) -> Result<String, PluginError> {
        let not = if negated { "NOT " } else { "" };
        Ok(format!(
            "({operand} {not}IN (SELECT {operand} WHERE FALSE))"
        ))
    }

    /// A bare integer constant in ORDER BY is a result-column position and any
    /// other bare constant is an error ("non-integer constant in ORDER BY")
    /// (https://www.postgresql.org/docs/16/queries-order.html). The parser folds a
    /// minus into the constant, so `-1` counts as one too. Integer, string,
    /// boolean and NULL literals render as bare constants; floats, decimals and
    /// bytes already render as casts.
    fn order_by_cast(&self, key: &Expr) -> Option<&'static str> {
        match literal_under_minus(key)? {
            Value::Int(_) => Some("BIGINT"),
            Value::Text(_) | Value::Null => Some("TEXT"),
            Value::Bool(_) => Some("BOOLEAN"),
            _ => None,
        }
    }

    /// The level is named on every BEGIN, so it never depends on what the session
    /// was set to (https://www.postgresql.org/docs/16/sql-begin.html;
    /// https://www.cockroachlabs.com/docs/v24.1/begin-transaction).
    fn begin(&self, isolation: IsolationLevel) -> Result<String, PluginError> {
        check_level(*self, isolation)?;
        let level = isolation.sql();
        Ok(match self {
            Flavor::Postgres => format!("BEGIN ISOLATION LEVEL {level}"),
            Flavor::Cockroach => format!("BEGIN TRANSACTION ISOLATION LEVEL {level}"),
        })
    }

    /// The locking clause follows ORDER BY
    /// (https://www.postgresql.org/docs/16/sql-select.html#SQL-FOR-UPDATE-SHARE).
    fn row_lock(&self, lock: RowLock) -> Result<&'static str, PluginError> {
        Ok(match lock {
            RowLock::None => "",
            RowLock::ForShare => " FOR SHARE",
            RowLock::ForUpdate => " FOR UPDATE",
        })
    }

    fn insert_form(&self, on_conflict: OnConflict) -> Result<InsertForm, PluginError> {
        Ok(match on_conflict {
            OnConflict::Error => InsertForm::PLAIN,
            // https://www.postgresql.org/docs/16/sql-insert.html#SQL-ON-CONFLICT: a
            // row that would violate a unique or exclusion constraint is skipped.
            // Unlike MySQL's INSERT IGNORE, every other error still fails the
            // statement.
            OnConflict::Ignore => InsertForm::trailing("ON CONFLICT DO NOTHING"),
            // Neither DBMS deletes the rows a new row collides with; CockroachDB's
            // UPSERT only overwrites the row with the same primary key.
            OnConflict::Replace => {
                return Err(PluginError::unsupported(format!(
                    "{} has no REPLACE (delete the colliding rows, then insert)",
                    self.dbms()
                )))
            }
        })
    }

    /// An INSERT or UPDATE may write only columns the table has.
    fn check_written_column(&self, scope: Scope<'_>, column: &str) -> Result<(), PluginError> {
        scope.check(column)
    }

    /// Every row of an INSERT gives each named column a value.
    fn check_insert(&self, insert: &Insert) -> Result<(), PluginError> {
        if let Some(row) = insert.rows.iter().find(|r| r.len() != insert.columns.len()) {
            return Err(PluginError::invalid_input(format!(
                "INSERT into `{}` names {} columns but has a row of {} values",
                insert.table,
                insert.columns.len(),
                row.len()
            )));
        }
        Ok(())
    }
}
