//! What a dialect tells the shared renderer: one method per thing that DBMSs
//! spell differently, and hooks for checks only some of them need.

use super::Scope;
use crate::ir::*;
use crate::sdk::PluginError;

/// The parts of SQL that differ between DBMSs. The shared renderer
/// ([`render_statement`](super::render_statement),
/// [`create_table`](super::create_table)) asks for each of them and writes
/// everything else the same way for every dialect.
///
/// Methods with a default hold for most DBMSs (the checks default to none); the
/// others have no answer that holds for every DBMS.
pub trait SqlSyntax {
    /// `name` as a delimited identifier, or an error when the DBMS cannot name
    /// an object so (a NUL character, a length it would truncate).
    fn ident(&self, name: &str) -> Result<String, PluginError>;

    /// A constant that the DBMS reads back as exactly `value`, whatever the
    /// session's settings.
    fn literal(&self, value: &Value) -> Result<String, PluginError>;

    /// The declared type of a column in CREATE TABLE.
    fn column_type(&self, ty: ColumnType) -> Result<String, PluginError>;

    /// The target type of `CAST(… AS …)`. Most DBMSs take their column types
    /// there; override where CAST has a list of its own (MySQL's SIGNED, CHAR).
    fn cast_type(&self, ty: ColumnType) -> Result<String, PluginError> {
        self.column_type(ty)
    }

    /// A binary operator. Every DBMS so far spells every operator of the IR the
    /// standard way ([`BinaryOp::sql`]). An operator the IR gains may mean
    /// something else in some DBMS (`||` is OR in MySQL, `/` divides integers as
    /// integers in SQLite): override to refuse or respell it.
    fn binary_op(&self, op: BinaryOp) -> Result<&'static str, PluginError> {
        Ok(op.sql())
    }

    /// Text concatenation of already rendered parts; NULL if any part is.
    /// The default is standard SQL's `||` (SQLite, PostgreSQL, CockroachDB).
    fn concat(&self, parts: &[String]) -> Result<String, PluginError> {
        match parts {
            [] => Err(PluginError::invalid_input("a concatenation needs parts")),
            [one] => Ok(one.clone()),
            _ => Ok(format!("({})", parts.join(" || "))),
        }
    }

    /// `operand [NOT] IN ()` for an empty list, `operand` already rendered.
    /// Standard SQL's grammar has no empty list, so each DBMS needs its own
    /// spelling of "no item matches".
    fn empty_in_list(&self, operand: &str, negated: bool) -> Result<String, PluginError>;

    /// The type to cast an ORDER BY key to, when the parser would otherwise read
    /// the key as something other than an expression: an integer constant is a
    /// result-column position in most DBMSs, and PostgreSQL refuses any other
    /// bare constant. `None` leaves the key as it is. A constant sorts nothing
    /// whatever its value, so the cast changes no order.
    /// [`literal_under_minus`](super::literal_under_minus) finds the constant.
    fn order_by_cast(&self, key: &Expr) -> Option<&'static str>;

    /// The statement that starts a transaction at `isolation`, or an error when
    /// the DBMS does not offer that level.
    fn begin(&self, isolation: IsolationLevel) -> Result<String, PluginError>;

    /// The statement that starts a transaction at `isolation` and takes its
    /// snapshot at once; by default an error: the DBMS has no such statement.
    fn begin_snapshot(&self, isolation: IsolationLevel) -> Result<String, PluginError> {
        let _ = isolation;
        Err(PluginError::invalid_input(
            "this dialect has no BEGIN that takes the snapshot at once (features.snapshot_begin_levels)",
        ))
    }

    /// The locking clause that ends a SELECT, with its leading space; empty for
    /// [`RowLock::None`]. An error when the DBMS has no such lock.
    fn row_lock(&self, lock: RowLock) -> Result<&'static str, PluginError>;

    /// How an INSERT says what happens when a row collides with a key.
    fn insert_form(&self, on_conflict: OnConflict) -> Result<InsertForm, PluginError>;

    /// Checks a column that an INSERT names or an UPDATE assigns. Columns that
    /// expressions read are always checked against the scope; the default
    /// leaves written ones to the DBMS, which refuses an unknown column when
    /// the statement runs. Override with [`Scope::check`] to refuse them before.
    fn check_written_column(&self, _scope: Scope<'_>, _column: &str) -> Result<(), PluginError> {
        Ok(())
    }

    /// Checks of an INSERT beyond the shared ones (at least one column and one
    /// row, the written columns, known columns in the values); they run before
    /// the rows are rendered.
    fn check_insert(&self, _insert: &Insert) -> Result<(), PluginError> {
        Ok(())
    }

    /// Checks of an UPDATE beyond the shared ones (at least one assignment, the
    /// written columns, known columns in the expressions); they run before the
    /// assignments are rendered.
    fn check_update(&self, _update: &Update) -> Result<(), PluginError> {
        Ok(())
    }

    /// A join keyword (`INNER JOIN`, `LEFT JOIN`); by default the standard
    /// spelling ([`JoinKind::sql`]), which every DBMS so far reads. IR 1.1.
    fn join(&self, kind: JoinKind) -> Result<&'static str, PluginError> {
        Ok(kind.sql())
    }

    /// An aggregate call, `arg` already rendered (`None`: `COUNT(*)`). IR 1.1.
    fn aggregate(&self, func: AggregateFunc, arg: Option<&str>) -> Result<String, PluginError> {
        match (func, arg) {
            (AggregateFunc::Count, None) => Ok("COUNT(*)".to_string()),
            (func, Some(arg)) => Ok(format!("{}({arg})", func.sql())),
            (func, None) => Err(PluginError::invalid_input(format!(
                "{} needs an argument; only COUNT takes *",
                func.sql()
            ))),
        }
    }

    /// Checks an UPDATE or DELETE (`statement`) of `target` with a subquery
    /// that reads `target` too. By default nothing: most DBMSs allow it. A
    /// DBMS that refuses it (MySQL's error 1093) refuses it here, before it
    /// runs; generators avoid the form for such a dialect. IR 1.1.
    fn check_target_in_subquery(&self, _statement: &str, _target: &str) -> Result<(), PluginError> {
        Ok(())
    }

    /// Text after CREATE TABLE's closing parenthesis (storage engine, collation),
    /// with its leading space.
    fn table_options(&self) -> &'static str {
        ""
    }

    /// Checks one column of a primary key, unique constraint or index, beyond
    /// the shared check that the table has it. `what` names the key in messages
    /// ("PRIMARY KEY", "index `i`").
    fn check_key_column(
        &self,
        _table: &Table,
        _column: &Column,
        _what: &str,
    ) -> Result<(), PluginError> {
        Ok(())
    }
}

/// How an INSERT spells its [`OnConflict`]: the verb that starts the statement
/// (`INSERT`, `INSERT OR IGNORE`, `REPLACE`) and a clause after the rows
/// (`ON CONFLICT DO NOTHING`). DBMSs put the choice in one or the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InsertForm {
    pub verb: &'static str,
    /// Empty for none; written after the rows, separated by a space.
    pub trailing_clause: &'static str,
}

impl InsertForm {
    /// A plain INSERT: a colliding row fails the statement.
    pub const PLAIN: InsertForm = InsertForm {
        verb: "INSERT",
        trailing_clause: "",
    };

    /// Another verb in place of INSERT, nothing after the rows.
    pub const fn verb(verb: &'static str) -> InsertForm {
        InsertForm {
            verb,
            trailing_clause: "",
        }
    }

    /// INSERT with a clause after the rows.
    pub const fn trailing(clause: &'static str) -> InsertForm {
        InsertForm {
            verb: "INSERT",
            trailing_clause: clause,
        }
    }
}
