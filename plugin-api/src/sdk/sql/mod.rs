//! A SQL renderer that dialects share, and the small helpers SQL dialects need.
//!
//! Most of a dialect's SQL is the same from one DBMS to the next: statements
//! with the same clauses in the same order, expressions fully parenthesised so
//! that no DBMS's operator precedence can change their meaning, the same checks
//! that a case names only columns its schema has. A dialect implements
//! [`SqlSyntax`] for what its DBMS spells its own way (identifier quoting,
//! literals, type names, BEGIN, locking clauses, …) and calls
//! [`render_statement`], [`create_table`] and [`drop_table`] from its
//! [`Dialect`](crate::sdk::Dialect) methods:
//!
//! ```ignore
//! fn render(&self, statement: &Statement, ctx: &RenderContext<'_>) -> Result<String, PluginError> {
//!     sql::render_statement(self, statement, ctx)
//! }
//! ```
//!
//! - [`syntax`]: the trait a dialect implements;
//! - [`scope`]: which columns a bare column name may refer to;
//! - [`expr`]: expressions, lists and ORDER BY keys;
//! - [`statement`]: BEGIN, COMMIT, ROLLBACK, SELECT, INSERT, UPDATE, DELETE,
//!   and (IR 1.1) queries over joins with aggregates, INSERT … SELECT;
//! - [`ddl`]: CREATE TABLE with its indexes, DROP TABLE;
//! - [`lexical`]: quoting, hexadecimal and decimal helpers for literals;
//! - [`types`]: the column types the shipped dialects offer;
//! - [`errors`]: the part of error classification every dialect shares.

pub mod ddl;
pub mod errors;
pub mod expr;
pub mod lexical;
pub mod scope;
pub mod statement;
pub mod syntax;
pub mod types;

pub use ddl::{create_table, drop_table};
pub use errors::classify_with;
pub use expr::{literal_under_minus, ExprWriter};
pub use lexical::{finite_float, lower_hex, quoted, upper_hex, PlainDecimal};
pub use scope::{QueryScope, Scope};
pub use statement::{render_query, render_statement};
pub use syntax::{InsertForm, SqlSyntax};
pub use types::COLUMN_TYPES;

#[cfg(test)]
mod test_syntax;
