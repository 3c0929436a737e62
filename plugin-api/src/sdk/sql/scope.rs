//! Which columns a bare column name may refer to.

use crate::ir::{Schema, Table};
use crate::sdk::PluginError;

/// The columns a bare (unqualified) column name may refer to.
///
/// A name the schema lacks is a mistake in the case. It is refused before
/// anything runs, with a message that names it: the DBMS would report it only
/// when the statement runs, as a failure recorded in the history, and SQLite
/// even reads a double-quoted name that matches no column as a string literal
/// (<https://www.sqlite.org/quirks.html#double_quoted_string_literals_are_accepted>).
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// The columns of this table.
    Table(&'a Table),
    /// The table is not in the schema: the DBMS reports what it cannot resolve.
    Unknown,
    /// No column is in scope (INSERT … VALUES). MySQL would let a value name a
    /// column of the row being inserted, which the IR does not mean.
    Nothing,
}

impl<'a> Scope<'a> {
    /// The columns of `table` if the schema has it, otherwise [`Scope::Unknown`].
    pub fn of(schema: &'a Schema, table: &str) -> Scope<'a> {
        match schema.table(table) {
            Some(t) => Scope::Table(t),
            None => Scope::Unknown,
        }
    }

    /// Fails when `column` is certainly not in scope.
    pub fn check(&self, column: &str) -> Result<(), PluginError> {
        match self {
            Scope::Table(table) if table.column(column).is_none() => {
                Err(PluginError::invalid_input(format!(
                    "table `{}` has no column `{column}`",
                    table.name
                )))
            }
            Scope::Nothing => Err(PluginError::invalid_input(format!(
                "column `{column}` is referenced where no table is in scope"
            ))),
            Scope::Table(_) | Scope::Unknown => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::ErrorKind;
    use crate::sdk::sql::test_syntax::table;

    #[test]
    fn a_known_table_knows_its_columns() {
        let schema = Schema {
            tables: vec![table()],
        };
        let scope = Scope::of(&schema, "t");
        assert!(scope.check("id").is_ok());
        let e = scope.check("nope").unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        assert_eq!(e.message, "table `t` has no column `nope`");
    }

    #[test]
    fn an_unknown_table_is_left_to_the_dbms() {
        let empty = Schema::default();
        let scope = Scope::of(&empty, "elsewhere");
        assert!(matches!(scope, Scope::Unknown));
        assert!(scope.check("anything").is_ok());
    }

    #[test]
    fn no_column_is_in_scope_of_nothing() {
        let e = Scope::Nothing.check("id").unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        assert!(e.message.contains("no table is in scope"), "{e}");
    }
}
