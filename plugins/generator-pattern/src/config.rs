//! The generator's configuration, and `DEFAULT_CONFIG`, whose comments list
//! the whole catalogue (a test keeps the list equal to [`crate::catalogue::listing`]).

use serde::{Deserialize, Serialize};
use txlab_plugin_api::prelude::*;

/// An inclusive `[min, max]` range, written as a two-element array in TOML.
pub type Range = [u32; 2];

pub const MAX_FILLER_COLUMNS: u32 = 8;
pub const MAX_FILLER_ROWS: u32 = 50;
pub const MAX_FILLER_STATEMENTS: u32 = 10;
/// The largest filler weight: the weights are summed as 32-bit numbers.
pub const MAX_WEIGHT: u32 = 1_000_000;

/// Commented TOML with every option at its default, and the catalogue.
pub const DEFAULT_CONFIG: &str = r#"# Cases instantiated from the anomaly patterns of APTrans (Liu et al., SIGMOD 2026,
# Table 2 and Table 3, errata applied: docs/generator-pattern.md). A pattern is a
# sequence of operations: Ri[xk] transaction i reads version k of item x (0 is
# the initial row), Wi[xk] it installs version k, Ci it commits, Ai it aborts.
# Each item is one row; the case runs the operations in the pattern's order,
# after both BEGINs. Every case carries its pattern as its intent.
#
# The catalogue, one pattern a line: name, operations, anomaly | Adya's
# phenomenon (- where none applies) | the levels whose standard definition
# forbids the history as written (RU, RC, RR, SI = SNAPSHOT, SER; Adya's levels
# by name, and every level for a dirty write, RC and up for a dirty read):
#   dirty-write          W1[x1]W2[x2]C1C2              dirty write | - | RU RC RR SI SER
#   dirty-read           W1[x1]R2[x1]A1C2              dirty read | G1a | RC RR SI SER
#   lost-update          R1[x0]W2[x1]C2W1[x2]C1        lost update | G-single | RR SI SER
#   non-repeatable-read  R1[x0]W2[x1]C2R1[x1]C1        non-repeatable read | G-single | RR SI SER
#   read-skew            R1[x0]W2[x1]W2[y1]C2R1[y1]C1  read skew | G-single | RR SI SER
#   write-skew           R1[x0]R2[y0]W1[y1]W2[x1]C1C2  write skew | G2-item | RR SER
#   aptrans-1            W1[x1]R2[x1]C1C2              dirty read | - | RC RR SI SER
#   aptrans-2            W1[x1]C1R2[x1]C2              interference | G-SIa | SI
#   aptrans-3            W1[x1]R2[x1]C2W1[x2]C1        intermediate read | G1b | RC RR SI SER
#   aptrans-4            W1[x1]W2[y1]W2[x2]W1[y2]C1C2  dirty write | G0 | RU RC RR SI SER
#   aptrans-5            W1[x1]W2[y1]W1[y2]W2[x2]C1C2  dirty write | G0 | RU RC RR SI SER
#   aptrans-6            W1[x1]W2[x2]W2[y1]C2W1[y2]C1  dirty write | G0 | RU RC RR SI SER
#   aptrans-7            W1[x1]W2[y1]W2[x2]C2W1[x3]C1  dirty write | G0 | RU RC RR SI SER
#   aptrans-8            W1[x1]W2[y1]W2[x2]R1[y1]C1C2  circular information flow | G1c | RU RC RR SI SER
#   aptrans-9            W1[x1]W2[y1]R1[y1]W2[x2]C1C2  circular information flow | G1c | RU RC RR SI SER
#   aptrans-10           W1[x1]W2[y1]W2[x2]C2R1[y1]C1  circular information flow | G1c | RU RC RR SI SER
#   aptrans-11           W1[x1]W2[y1]R1[y1]C1W2[x2]C2  circular information flow | G1c | RC RR SI SER
#   aptrans-12           W1[x1]R2[y0]W2[x2]W1[y1]C1C2  read-write skew | G-single | RU RC RR SI SER
#   aptrans-13           W1[x1]R2[y0]W1[y1]W2[x2]C1C2  read-write skew | G-single | RU RC RR SI SER
#   aptrans-14           W1[x1]R2[y0]W2[x2]C2W1[y1]C1  read-write skew | G-single | RU RC RR SI SER
#   aptrans-15           W1[x1]R2[y0]W1[y1]C1W2[x2]C2  read-write skew | G-single | RR SI SER
#   aptrans-16           W1[x1]W2[y1]R2[x1]W1[y2]C1C2  circular information flow | G1c | RU RC RR SI SER
#   aptrans-17           W1[x1]W2[y1]W1[y2]R2[x1]C1C2  circular information flow | G1c | RU RC RR SI SER
#   aptrans-18           W1[x1]W2[y1]R2[x1]C2W1[y2]C1  circular information flow | G1c | RC RR SI SER
#   aptrans-19           W1[x1]W2[y1]W1[y2]C1R2[x1]C2  circular information flow | G1c | RU RC RR SI SER
#   aptrans-20           W1[x1]W2[y1]R2[x1]R1[y1]C1C2  circular information flow | G1c | RC RR SI SER
#   aptrans-21           W1[x1]W2[y1]R1[y1]R2[x1]C1C2  circular information flow | G1c | RC RR SI SER
#   aptrans-22           W1[x1]W2[y1]R2[x1]C2R1[y1]C1  circular information flow | G1c | RC RR SI SER
#   aptrans-23           W1[x1]W2[y1]R1[y1]C1R2[x1]C2  circular information flow | G1c | RC RR SI SER
#   aptrans-24           W1[x1]R2[y0]R2[x1]W1[y1]C1C2  read skew | G-single | RC RR SI SER
#   aptrans-25           W1[x1]R2[y0]W1[y1]R2[x1]C1C2  read skew | G-single | RC RR SI SER
#   aptrans-26           W1[x1]R2[y0]R2[x1]C2W1[y1]C1  read skew | G-single | RC RR SI SER
#   aptrans-27           W1[x1]R2[y0]W1[y1]C1R2[x1]C2  read skew | G-single | RR SI SER
#   aptrans-28           R1[x0]W2[y1]W2[x1]W1[y2]C1C2  read-write skew | G-single | RU RC RR SI SER
#   aptrans-29           R1[x0]W2[y1]W1[y2]W2[x1]C1C2  read-write skew | G-single | RU RC RR SI SER
#   aptrans-30           R1[x0]W2[x1]W2[y1]C2W1[y2]C1  read-write skew | G-single | RR SI SER
#   aptrans-31           R1[x0]W2[y1]W2[x1]C2W1[x2]C1  lost update | G-single | RR SI SER
#   aptrans-32           R1[x0]W2[y1]W2[x1]R1[y1]C1C2  read skew | G-single | RC RR SI SER
#   aptrans-33           R1[x0]W2[y1]R1[y1]W2[x1]C1C2  read skew | G-single | RC RR SI SER
#   aptrans-34           R1[x0]W2[y1]W2[x1]C2R1[y1]C1  read skew | G-single | RR SI SER
#   aptrans-35           R1[x0]W2[y1]R1[y1]C1W2[x1]C2  read skew | G-single | RC RR SI SER
#   aptrans-36           W1[x1]W2[y1]C2R1[y1]C1        interference through a predicate read | G-SIa | SI
#   aptrans-37           R1[x0]R2[y0]W2[x1]W1[y1]C1C2  write skew | G2-item | RR SER
#   aptrans-38           R1[x0]R2[y0]W1[y1]W2[x1]C1C2  write skew | G2-item | RR SER
#   aptrans-39           R1[x0]R2[y0]W2[x1]C2W1[y1]C1  write skew | G2-item | RR SER
#   aptrans-40           R1[x0]R2[y0]W1[y1]C1W2[x1]C2  write skew | G2-item | RR SER

# Which patterns cases are drawn from, a union of: "forbidden" (the patterns the
# case's isolation levels forbid, as listed above), "all", pattern names,
# anomalies ("lost update") and phenomena ("G2-item"). Patterns with the same
# operations (write-skew, aptrans-38) count once, unless named.
patterns = ["forbidden"]
# Draw the isolation level per transaction instead of once per case ("forbidden"
# then means forbidden at every transaction's level).
mixed_isolation = false
# Begin with a statement that takes the snapshot at once (START TRANSACTION
# WITH CONSISTENT SNAPSHOT), as APTrans does, at the levels where the dialect
# has one (MySQL and MariaDB: REPEATABLE READ); a plain BEGIN elsewhere.
consistent_snapshot_start = false
# Tables per case, t0 and t1: at most 2. With two, a pattern's items may lie in
# different tables.
tables = [1, 2]
# Columns per table besides the key `id`, the value `val` (every write puts a
# new value in it) and `tag` (a distinct number per row that no write
# changes): c0, c1, … of types the dialect can create.
filler_columns = [1, 3]
# Rows per table besides the pattern's items, keyed around them.
filler_rows = [2, 6]
# Statements per transaction besides the pattern's operations, on rows no
# operation touches: each transaction reads, updates, deletes and inserts
# rows of its own, so they add no dependency between transactions.
filler_statements = [0, 2]
# Chance that a read or write finds its row by a predicate (a range of keys, or
# `tag` equal to or in a range around the row's) rather than by its key.
predicate_probability = 0.3
# Chance that a read takes row locks (FOR UPDATE, or FOR SHARE, where the
# dialect has them).
locking_read_probability = 0.1
# Chance that an item whose first operation writes it (and that nothing reads
# before) starts absent and is INSERTed by that write; pattern aptrans-36 always
# inserts.
insert_probability = 0.3
# Chance that an item's last write, whose version nothing reads, is a DELETE.
delete_probability = 0.2
# Index `tag`, so that predicates on it need not scan the table.
tag_index_probability = 0.5

# Relative weights of the filler statements' kinds (0 to 1000000); 0 disables
# a kind.
[filler_weights]
select = 2
insert = 1
update = 2
delete = 1
"#;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub patterns: Vec<String>,
    pub mixed_isolation: bool,
    pub consistent_snapshot_start: bool,
    pub tables: Range,
    pub filler_columns: Range,
    pub filler_rows: Range,
    pub filler_statements: Range,
    pub predicate_probability: f64,
    pub locking_read_probability: f64,
    pub insert_probability: f64,
    pub delete_probability: f64,
    pub tag_index_probability: f64,
    pub filler_weights: Weights,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            patterns: vec!["forbidden".to_string()],
            mixed_isolation: false,
            consistent_snapshot_start: false,
            tables: [1, 2],
            filler_columns: [1, 3],
            filler_rows: [2, 6],
            filler_statements: [0, 2],
            predicate_probability: 0.3,
            locking_read_probability: 0.1,
            insert_probability: 0.3,
            delete_probability: 0.2,
            tag_index_probability: 0.5,
            filler_weights: Weights::default(),
        }
    }
}

/// Relative weights of the filler statements' kinds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    pub select: u32,
    pub insert: u32,
    pub update: u32,
    pub delete: u32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            select: 2,
            insert: 1,
            update: 2,
            delete: 1,
        }
    }
}

impl Weights {
    /// The weights in the order select, insert, update, delete.
    pub fn as_array(&self) -> [u32; 4] {
        [self.select, self.insert, self.update, self.delete]
    }
}

impl Config {
    /// Rejects settings the generator cannot honour, naming the offending key.
    /// The pattern names are checked when the generator is built.
    pub fn validate(&self) -> Result<(), PluginError> {
        check_range("tables", self.tables, 1, 2)?;
        check_range("filler_columns", self.filler_columns, 0, MAX_FILLER_COLUMNS)?;
        check_range("filler_rows", self.filler_rows, 0, MAX_FILLER_ROWS)?;
        check_range(
            "filler_statements",
            self.filler_statements,
            0,
            MAX_FILLER_STATEMENTS,
        )?;
        for (key, p) in [
            ("predicate_probability", self.predicate_probability),
            ("locking_read_probability", self.locking_read_probability),
            ("insert_probability", self.insert_probability),
            ("delete_probability", self.delete_probability),
            ("tag_index_probability", self.tag_index_probability),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(PluginError::config(format!(
                    "{key}: must be between 0 and 1, got {p}"
                )));
            }
        }
        if let Some(w) = self
            .filler_weights
            .as_array()
            .into_iter()
            .find(|&w| w > MAX_WEIGHT)
        {
            return Err(PluginError::config(format!(
                "filler_weights: each weight must be between 0 and {MAX_WEIGHT}, got {w}"
            )));
        }
        if self.filler_statements[1] > 0 && self.filler_weights.as_array().iter().all(|&w| w == 0) {
            return Err(PluginError::config(
                "filler_weights: at least one of select, insert, update, delete must be above 0 while filler_statements allows any",
            ));
        }
        if self.patterns.is_empty() {
            return Err(PluginError::config(
                "patterns: name at least one pattern, anomaly or phenomenon, or \"forbidden\" or \"all\"",
            ));
        }
        Ok(())
    }
}

fn check_range(key: &str, [min, max]: Range, lowest: u32, highest: u32) -> Result<(), PluginError> {
    if min > max {
        return Err(PluginError::config(format!(
            "{key}: the minimum {min} is greater than the maximum {max}"
        )));
    }
    if min < lowest {
        return Err(PluginError::config(format!(
            "{key}: the minimum must be at least {lowest}, got {min}"
        )));
    }
    if max > highest {
        return Err(PluginError::config(format!(
            "{key}: the maximum must be at most {highest}, got {max}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{listing, CATALOGUE};
    use crate::PatternGenerator;
    use txlab_plugin_api::sdk::testing::check_default_config;

    #[test]
    fn empty_config_is_the_default() {
        assert_eq!(parse_config::<Config>("{}").unwrap(), Config::default());
        assert_eq!(parse_config::<Config>("").unwrap(), Config::default());
        Config::default().validate().unwrap();
    }

    #[test]
    fn default_config_lists_every_key_at_its_default() {
        let parsed = check_default_config::<PatternGenerator, _>().unwrap();
        assert_eq!(parsed, Config::default());
        parsed.validate().unwrap();
    }

    /// The comments list exactly the catalogue, line for line, in its order.
    #[test]
    fn default_config_lists_the_catalogue() {
        let listed: String = DEFAULT_CONFIG
            .lines()
            .filter(|l| l.starts_with("#   "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            listed,
            listing(),
            "paste catalogue::listing() into DEFAULT_CONFIG"
        );
        assert_eq!(listed.lines().count(), CATALOGUE.len());
        assert!(DEFAULT_CONFIG.contains(&format!("{}\n", listing().trim_end())));
    }

    fn error_of(json: &str) -> String {
        let config: Config = parse_config(json).unwrap();
        let e = config.validate().unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
        e.message
    }

    #[test]
    fn invalid_settings_name_their_key() {
        let cases = [
            (
                r#"{"tables":[1,3]}"#,
                "tables: the maximum must be at most 2",
            ),
            (
                r#"{"tables":[0,1]}"#,
                "tables: the minimum must be at least 1",
            ),
            (r#"{"filler_rows":[3,2]}"#, "filler_rows: the minimum 3"),
            (r#"{"filler_columns":[0,9]}"#, "filler_columns: the maximum"),
            (
                r#"{"filler_statements":[0,11]}"#,
                "filler_statements: the maximum",
            ),
            (
                r#"{"predicate_probability":1.5}"#,
                "predicate_probability: must be",
            ),
            (
                r#"{"delete_probability":-0.5}"#,
                "delete_probability: must be",
            ),
            (
                r#"{"filler_weights":{"select":0,"insert":0,"update":0,"delete":0}}"#,
                "filler_weights: at least one",
            ),
            (r#"{"patterns":[]}"#, "patterns: name at least one"),
        ];
        for (json, start) in cases {
            let msg = error_of(json);
            assert!(msg.starts_with(start), "{json}: {msg}");
        }
        // No filler statements: the weights do not matter.
        let config: Config = parse_config(
            r#"{"filler_statements":[0,0],"filler_weights":{"select":0,"insert":0,"update":0,"delete":0}}"#,
        )
        .unwrap();
        config.validate().unwrap();
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let e = parse_config::<Config>(r#"{"snapshot_start":true}"#).unwrap_err();
        assert!(
            e.message.starts_with("snapshot_start: unknown field"),
            "{e}"
        );
        let e = parse_config::<Config>(r#"{"filler_weights":{"merge":1}}"#).unwrap_err();
        assert!(
            e.message.starts_with("filler_weights.merge: unknown field"),
            "{e}"
        );
    }
}
