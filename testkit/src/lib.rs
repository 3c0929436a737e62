//! Test doubles for txlab plugins.
//!
//! - [`MemoryDb`]: an in-memory database that interprets the IR behind the
//!   [`HostDb`](txlab_plugin_api::sdk::HostDb) interface, for oracle tests.
//! - [`serial_history`]: the history of a run in which transactions did not overlap.
//! - [`random_case`]: small deterministic random cases for property tests.

mod db;
mod engine;
mod eval;
mod history;
mod random;
mod render;

pub use db::MemoryDb;
pub use history::serial_history;
pub use random::random_case;
pub use render::{render_expr, render_statement};

#[cfg(test)]
mod tests;
