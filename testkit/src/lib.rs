//! Test doubles and shared test code for txlab plugins.
//!
//! - [`MemoryDb`]: an in-memory database that interprets the IR behind the
//!   [`HostDb`](txlab_plugin_api::sdk::HostDb) interface, for oracle tests.
//! - [`serial_history`]: the history of a run in which transactions did not overlap.
//! - [`concurrent_history`]: a hand-made history of a concurrent run.
//! - [`oracle`]: running an oracle's check on a [`MemoryDb`].
//! - [`random_case`]: small deterministic random cases for property tests.
//! - [`build`]: builders for schemas, rows, statements, expressions and cases.
//! - [`cases`]: whole sample cases the dialect suites render or run.
//! - [`dialect`]: calling a dialect the way the host does.
//! - [`dialect_checks`]: assertions every dialect suite makes.
//! - [`keyed_table`]: the table the error tests break the constraints of.
//! - [`render_samples`] and [`describe`]: the sample IR the dialects' snapshots
//!   render, and rendered cases as text to review.
//! - [`replay`]: running a rendered case's SQL through a test's own connection.
//! - [`round_trip`]: values that must come back from a database unchanged.
//! - [`statement_effects`]: a table and the statements that show what each
//!   statement kind changes.
//! - [`live`]: skipping or requiring live servers, and names for test databases.

pub mod build;
pub mod cases;
mod concurrent;
mod db;
pub mod describe;
pub mod dialect;
pub mod dialect_checks;
mod engine;
mod eval;
mod history;
pub mod keyed_table;
pub mod live;
pub mod oracle;
mod query;
mod random;
mod render;
pub mod render_samples;
pub mod replay;
pub mod round_trip;
pub mod statement_effects;

pub use concurrent::{concurrent_history, schedule, ConcurrentHistory};
pub use db::MemoryDb;
pub use history::serial_history;
pub use random::random_case;
pub use render::{render_expr, render_statement};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_queries;
