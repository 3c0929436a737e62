//! The intermediate representation: everything a plugin sees or returns.
//!
//! These types cross the plugin boundary as JSON, once per case or history, so they
//! can use ordinary Rust types. Any change to them is an ABI change: bump the
//! plugin-api version (see the crate docs).

mod case;
mod dialect;
mod expr;
mod history;
mod plugin;
mod schema;
mod statement;
mod value;
mod verdict;

pub use case::*;
pub use dialect::*;
pub use expr::*;
pub use history::*;
pub use plugin::*;
pub use schema::*;
pub use statement::*;
pub use value::*;
pub use verdict::*;
