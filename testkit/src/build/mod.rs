//! Builders for the IR, short enough that a test reads like the SQL it stands for.
//!
//! `use txlab_testkit::build::*;` brings them all in; none of their names clash
//! with the plugin API's prelude.

mod case;
mod expr;
mod query;
mod schema;
mod statement;

pub use case::{case_of, explicit};
pub use expr::{
    agg, between, bin, c, cast, count_star, eq, exists, float, in_list, in_query, int, is_null,
    neg, not, qc, scalar, text,
};
pub use query::{insert_select, join, query, query_statement};
pub use schema::{col, not_null, rows_of, strings, table};
pub use statement::{delete, insert, locking_select, select, update};
