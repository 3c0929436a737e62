//! The intermediate representation: everything a plugin sees or returns.
//!
//! These types cross the plugin boundary as JSON, once per case or history, so they
//! can use ordinary Rust types. Their schema has a version of its own,
//! [`IR_VERSION`](crate::IR_VERSION): an additive change (a new field with a serde
//! default, a new method with a default) bumps its minor, anything else its
//! major; docs/architecture.md, "ABI evolution", states the rules.

mod case;
mod dialect;
mod expr;
mod history;
mod plugin;
mod probe;
mod query;
mod schema;
mod statement;
mod value;
mod verdict;

pub use case::*;
pub use dialect::*;
pub use expr::*;
pub use history::*;
pub use plugin::*;
pub use probe::*;
pub use query::*;
pub use schema::*;
pub use statement::*;
pub use value::*;
pub use verdict::*;

#[cfg(test)]
mod tests {
    /// An older reader must skip the fields a newer IR minor added, so no IR
    /// type may refuse unknown fields (docs/architecture.md, "ABI evolution").
    #[test]
    fn no_ir_type_refuses_unknown_fields() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ir");
        let mut files = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let attribute = ["deny", "unknown", "fields"].join("_");
            assert!(!text.contains(&attribute), "{}", path.display());
            files += 1;
        }
        assert!(files > 5);
    }
}
