//! A test dialect with standard spellings and visible markers where dialects
//! differ, so that the tests of each module can tell whose text they see. It
//! refuses written columns the table lacks and keys on DOUBLE columns, as a
//! dialect's own checks would.

use super::*;
use crate::ir::*;
use crate::sdk::PluginError;

pub struct Standard;

impl SqlSyntax for Standard {
    fn ident(&self, name: &str) -> Result<String, PluginError> {
        if name.is_empty() {
            return Err(PluginError::unsupported("empty name"));
        }
        Ok(quoted(name, '"'))
    }

    fn literal(&self, value: &Value) -> Result<String, PluginError> {
        Ok(match value {
            Value::Text(text) => quoted(text, '\''),
            other => other.to_string(),
        })
    }

    fn column_type(&self, ty: ColumnType) -> Result<String, PluginError> {
        Ok(format!("{ty:?}").to_uppercase())
    }

    fn empty_in_list(&self, operand: &str, negated: bool) -> Result<String, PluginError> {
        Ok(format!("(EMPTY {negated} {operand})"))
    }

    fn order_by_cast(&self, key: &Expr) -> Option<&'static str> {
        match literal_under_minus(key)? {
            Value::Int(_) => Some("POSITIONLESS"),
            _ => None,
        }
    }

    fn begin(&self, isolation: IsolationLevel) -> Result<String, PluginError> {
        Ok(format!("BEGIN {}", isolation.sql()))
    }

    fn row_lock(&self, lock: RowLock) -> Result<&'static str, PluginError> {
        Ok(match lock {
            RowLock::None => "",
            RowLock::ForShare => " LOCK(SHARE)",
            RowLock::ForUpdate => " LOCK(UPDATE)",
        })
    }

    fn insert_form(&self, on_conflict: OnConflict) -> Result<InsertForm, PluginError> {
        Ok(match on_conflict {
            OnConflict::Error => InsertForm::PLAIN,
            OnConflict::Replace => InsertForm::verb("REPLACE"),
            OnConflict::Ignore => InsertForm::trailing("ON CONFLICT DO NOTHING"),
        })
    }

    fn check_written_column(&self, scope: Scope<'_>, column: &str) -> Result<(), PluginError> {
        scope.check(column)
    }

    fn table_options(&self) -> &'static str {
        " STRICT"
    }

    fn check_key_column(
        &self,
        _table: &Table,
        column: &Column,
        what: &str,
    ) -> Result<(), PluginError> {
        if column.ty == ColumnType::Double {
            return Err(PluginError::unsupported(format!(
                "{what} keys DOUBLE column `{}`",
                column.name
            )));
        }
        Ok(())
    }
}

/// A table `t (id INT, v TEXT)` keyed by `id`.
pub fn table() -> Table {
    Table {
        name: "t".into(),
        columns: vec![
            Column {
                name: "id".into(),
                ty: ColumnType::Int,
                not_null: false,
            },
            Column {
                name: "v".into(),
                ty: ColumnType::Text,
                not_null: true,
            },
        ],
        primary_key: vec!["id".into()],
        unique: vec![],
        indexes: vec![],
    }
}
