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
    /// The tables of a query's FROM clause, inside the scope of the statement
    /// or query that encloses it (a subquery's columns may name the enclosing
    /// tables, qualified). IR 1.1.
    Query(&'a QueryScope<'a>),
}

/// The tables a query names and the scope around it. IR 1.1.
#[derive(Clone, Debug)]
pub struct QueryScope<'a> {
    /// Each table by the name the query knows it by (alias or table name),
    /// with the table itself when the schema has it.
    pub tables: Vec<(&'a str, Option<&'a Table>)>,
    /// The enclosing scope: [`Scope::Nothing`] for a top-level query or the
    /// source of an INSERT … SELECT.
    pub outer: Scope<'a>,
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
            Scope::Query(q) => match q.tables.as_slice() {
                [(_, Some(table))] => Scope::Table(table).check(column),
                [(_, None)] => Ok(()),
                tables => {
                    let names: Vec<String> = tables.iter().map(|(n, _)| format!("`{n}`")).collect();
                    Err(PluginError::invalid_input(format!(
                        "column `{column}` is not qualified, and the query joins {}",
                        names.join(", ")
                    )))
                }
            },
        }
    }

    /// Fails when `qualifier.column` is certainly not in scope. Outside a
    /// query (IR 1.0's single-table statements), a qualifier other than the
    /// table's name is left to the DBMS; inside one, the qualifier must name
    /// a table of the query or of an enclosing one.
    pub fn check_qualified(&self, qualifier: &str, column: &str) -> Result<(), PluginError> {
        match self.find(qualifier, column) {
            Some(result) => result,
            None if matches!(self, Scope::Query(_)) => Err(PluginError::invalid_input(format!(
                "column `{qualifier}.{column}` names no table in scope"
            ))),
            None => Ok(()),
        }
    }

    /// The check of `qualifier.column` by the first scope, inside out, that
    /// knows `qualifier`; `None` when none does.
    fn find(&self, qualifier: &str, column: &str) -> Option<Result<(), PluginError>> {
        match self {
            Scope::Table(table) if table.name == qualifier => Some(self.check(column)),
            Scope::Table(_) | Scope::Nothing => None,
            Scope::Unknown => Some(Ok(())),
            Scope::Query(q) => match q.tables.iter().find(|(name, _)| *name == qualifier) {
                Some((_, Some(table))) => Some(Scope::Table(table).check(column)),
                Some((_, None)) => Some(Ok(())),
                None => q.outer.find(qualifier, column),
            },
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
    fn queries_resolve_qualified_names_inside_out() {
        let t = table();
        let mut u = table();
        u.name = "u".into();
        let outer = QueryScope {
            tables: vec![("a", Some(&t))],
            outer: Scope::Table(&u),
        };
        let scope = Scope::Query(&outer);
        assert!(scope.check("id").is_ok());
        assert!(scope.check_qualified("a", "v").is_ok());
        assert!(scope.check_qualified("u", "v").is_ok());
        let e = scope.check_qualified("u", "nope").unwrap_err();
        assert_eq!(e.message, "table `u` has no column `nope`");
        let e = scope.check_qualified("t", "id").unwrap_err();
        assert_eq!(e.message, "column `t.id` names no table in scope");
        let joined = QueryScope {
            tables: vec![("a", Some(&t)), ("b", None)],
            outer: Scope::Nothing,
        };
        let scope = Scope::Query(&joined);
        let e = scope.check("id").unwrap_err();
        assert_eq!(
            e.message,
            "column `id` is not qualified, and the query joins `a`, `b`"
        );
        assert!(scope.check_qualified("b", "anything").is_ok());
        // Outside a query, another qualifier is left to the DBMS as before.
        assert!(Scope::Table(&t).check_qualified("elsewhere", "x").is_ok());
        assert!(Scope::Table(&t).check_qualified("t", "nope").is_err());
    }

    #[test]
    fn no_column_is_in_scope_of_nothing() {
        let e = Scope::Nothing.check("id").unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        assert!(e.message.contains("no table is in scope"), "{e}");
    }
}
