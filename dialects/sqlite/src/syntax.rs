//! How SQLite spells what differs between DBMSs; the shared renderer
//! (`txlab_plugin_api::sdk::sql`) writes the rest of every statement and table.

use crate::literal::{ident, literal, type_name};
use crate::semantics::check_level;
use crate::SqliteDialect;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::sql::{literal_under_minus, InsertForm};

impl SqlSyntax for SqliteDialect {
    fn ident(&self, name: &str) -> Result<String, PluginError> {
        ident(name)
    }

    fn literal(&self, value: &Value) -> Result<String, PluginError> {
        literal(value)
    }

    /// SQLite takes its column types as CAST targets too.
    fn column_type(&self, ty: ColumnType) -> Result<String, PluginError> {
        type_name(ty)
    }

    /// SQLite accepts an empty list: `x IN ()` is false and `x NOT IN ()` true
    /// (https://www.sqlite.org/lang_expr.html#the_in_and_not_in_operators).
    fn empty_in_list(&self, operand: &str, negated: bool) -> Result<String, PluginError> {
        let not = if negated { "NOT " } else { "" };
        Ok(format!("({operand} {not}IN ())"))
    }

    /// SQLite reads an integer constant in ORDER BY as a result-column position
    /// (https://www.sqlite.org/lang_select.html#the_order_by_clause). Booleans
    /// render as 1 and 0, and decimals without a point as bare digits, so they
    /// are integer constants too.
    fn order_by_cast(&self, key: &Expr) -> Option<&'static str> {
        match literal_under_minus(key)? {
            Value::Int(_) | Value::Bool(_) => Some("INTEGER"),
            Value::Decimal(text) if !text.contains('.') => Some("INTEGER"),
            _ => None,
        }
    }

    /// Plain BEGIN is DEFERRED, which gives the snapshot-at-first-read semantics
    /// the dialect declares (https://www.sqlite.org/lang_transaction.html).
    fn begin(&self, isolation: IsolationLevel) -> Result<String, PluginError> {
        check_level(isolation)?;
        Ok("BEGIN".to_string())
    }

    /// https://www.sqlite.org/lang_select.html has no locking clause: SQLite locks
    /// the whole database, never rows.
    fn row_lock(&self, lock: RowLock) -> Result<&'static str, PluginError> {
        let statement = match lock {
            RowLock::None => return Ok(""),
            RowLock::ForShare => "SELECT FOR SHARE",
            RowLock::ForUpdate => "SELECT FOR UPDATE",
        };
        Err(PluginError::unsupported(format!(
            "SQLite has no {statement}"
        )))
    }

    /// https://www.sqlite.org/lang_conflict.html
    fn insert_form(&self, on_conflict: OnConflict) -> Result<InsertForm, PluginError> {
        Ok(match on_conflict {
            OnConflict::Error => InsertForm::PLAIN,
            OnConflict::Replace => InsertForm::verb("INSERT OR REPLACE"),
            OnConflict::Ignore => InsertForm::verb("INSERT OR IGNORE"),
        })
    }
}
