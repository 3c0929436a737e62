//! The workload's configuration: keys, their generations, transaction sizes.

use serde::{Deserialize, Serialize};
use txlab_plugin_api::prelude::*;

/// Upper bounds that keep a case small and every key and element inside an
/// SQL INT and a 64-bit integer.
pub const MAX_KEYS: u32 = 10_000;
pub const MAX_TRANSACTIONS: u32 = 64;
pub const MAX_OPS: u32 = 64;

/// Commented TOML with every option at its default; kept in sync with
/// [`Config`] by the tests below.
pub const DEFAULT_CONFIG: &str = r#"# Elle's workload: "list-append" (appends to and reads of whole lists,
# which fix the order of every version) or "rw-register" (writes and reads
# of single values, whose order between two writes is not known).
workload = "list-append"
# The table: one row per key (k INT PRIMARY KEY, v TEXT), named
# "elle_list" for list-append and "elle_register" for registers unless set.
# table = "elle_list"
# Keys in use at a time (one generation).
keys = 8
# The first `hot_keys` keys of a generation are drawn with `hot_probability`,
# otherwise a key is drawn uniformly from all of them.
hot_keys = 2
hot_probability = 0.5
# Consecutive cases (by index) that share a generation of keys; the next
# generation's keys are new, so lists stay short and a stream checker can
# retire the transactions of keys no one touches again.
cases_per_generation = 16
# Transactions per case (a stream session runs them one after another).
transactions = 4
# Micro-operations (reads and appends) per transaction, an inclusive range.
ops = [1, 4]
# Chance that a micro-operation reads a key rather than appends or writes.
read_probability = 0.5
# Draw the isolation level per transaction (from the levels the pipeline
# tests) instead of once per case.
mixed_isolation = true
"#;

/// Which of Elle's workloads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Appends to and reads of whole lists.
    #[default]
    ListAppend,
    /// Writes and reads of single values.
    RwRegister,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub workload: Workload,
    pub table: Option<String>,
    pub keys: u32,
    pub hot_keys: u32,
    pub hot_probability: f64,
    pub cases_per_generation: u64,
    pub transactions: u32,
    pub ops: [u32; 2],
    pub read_probability: f64,
    pub mixed_isolation: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            workload: Workload::ListAppend,
            table: None,
            keys: 8,
            hot_keys: 2,
            hot_probability: 0.5,
            cases_per_generation: 16,
            transactions: 4,
            ops: [1, 4],
            read_probability: 0.5,
            mixed_isolation: true,
        }
    }
}

impl Config {
    /// The table's name: `table`, else the workload's default.
    pub fn table(&self) -> &str {
        match (&self.table, self.workload) {
            (Some(t), _) => t,
            (None, Workload::ListAppend) => "elle_list",
            (None, Workload::RwRegister) => "elle_register",
        }
    }

    pub fn validate(&self) -> Result<(), PluginError> {
        let bad = |m: String| Err(PluginError::config(m));
        let table = self.table();
        let ident = !table.is_empty()
            && table.len() <= 48
            && table
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !table.starts_with(|c: char| c.is_ascii_digit());
        if !ident {
            return bad(format!(
                "`table` must be a lower-case SQL name of at most 48 characters (a-z, 0-9, _), not `{table}`"
            ));
        }
        if self.keys == 0 || self.keys > MAX_KEYS {
            return bad(format!(
                "`keys` must be between 1 and {MAX_KEYS}, not {}",
                self.keys
            ));
        }
        if self.hot_keys > self.keys {
            return bad(format!(
                "`hot_keys` ({}) must be at most `keys` ({})",
                self.hot_keys, self.keys
            ));
        }
        for (key, p) in [
            ("hot_probability", self.hot_probability),
            ("read_probability", self.read_probability),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return bad(format!("`{key}` must be between 0 and 1, not {p}"));
            }
        }
        if self.cases_per_generation == 0 {
            return bad("`cases_per_generation` must be at least 1".into());
        }
        if self.transactions == 0 || self.transactions > MAX_TRANSACTIONS {
            return bad(format!(
                "`transactions` must be between 1 and {MAX_TRANSACTIONS}, not {}",
                self.transactions
            ));
        }
        let [lo, hi] = self.ops;
        if lo == 0 || lo > hi || hi > MAX_OPS {
            return bad(format!(
                "`ops` must be a range [min, max] with 1 <= min <= max <= {MAX_OPS}, not [{lo}, {hi}]"
            ));
        }
        Ok(())
    }

    /// Elements (or register values) a case may append or write at most:
    /// the stride between the element numbers of consecutive cases.
    pub fn elements_per_case(&self) -> u64 {
        u64::from(self.transactions) * u64::from(self.ops[1])
    }

    /// The largest case index whose keys and elements stay in range.
    pub fn max_index(&self) -> u64 {
        let by_keys = (i32::MAX as u64 / u64::from(self.keys)) * self.cases_per_generation;
        let by_elements = i64::MAX as u64 / self.elements_per_case() - 1;
        by_keys.min(by_elements)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_defaults_are_the_defaults() {
        let parsed: Config = toml::from_str(DEFAULT_CONFIG).unwrap();
        assert_eq!(parsed, Config::default());
        parsed.validate().unwrap();
    }

    #[test]
    fn bad_values_are_named() {
        let cases = [
            ("keys = 0", "`keys`"),
            ("hot_keys = 9", "`hot_keys`"),
            ("read_probability = 1.5", "`read_probability`"),
            ("ops = [3, 2]", "`ops`"),
            ("transactions = 0", "`transactions`"),
            ("cases_per_generation = 0", "`cases_per_generation`"),
            ("table = \"x; drop\"", "`table`"),
        ];
        for (text, key) in cases {
            let c: Config = toml::from_str(text).unwrap();
            let e = c.validate().unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
        let e = toml::from_str::<Config>("workload = \"bank\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("rw-register"), "{e}");
    }

    #[test]
    fn the_table_is_named_after_the_workload() {
        let c: Config = toml::from_str("workload = \"rw-register\"").unwrap();
        assert_eq!(c.table(), "elle_register");
        assert_eq!(Config::default().table(), "elle_list");
        let c: Config = toml::from_str("table = \"mine\"").unwrap();
        assert_eq!(c.table(), "mine");
    }
}
