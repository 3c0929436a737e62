//! Builders for the IR, short enough that a test reads like the SQL it stands for.
//!
//! `use txlab_testkit::build::*;` brings them all in; none of their names clash
//! with the plugin API's prelude.

mod case;
mod expr;
mod schema;
mod statement;

pub use case::{case_of, explicit};
pub use expr::{between, bin, c, cast, eq, float, in_list, int, is_null, neg, not, text};
pub use schema::{col, not_null, rows_of, strings, table};
pub use statement::{delete, insert, locking_select, select, update};
