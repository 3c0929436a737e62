//! The generator's configuration: size ranges, probabilities and statement weights.

use serde::{Deserialize, Serialize};
use txlab_plugin_api::prelude::*;

/// An inclusive `[min, max]` range, written as a two-element array in TOML.
pub type Range = [u32; 2];

/// The most initial rows a table may get. Value domains grow with the row count so
/// that unique keys always have a free value; this bound keeps every generated value
/// inside the column types' ranges (see `values.rs`).
pub const MAX_ROWS: u32 = 500;
/// Upper bounds that keep a case in memory and its run short.
pub const MAX_TABLES: u32 = 16;
pub const MAX_COLUMNS: u32 = 32;
pub const MAX_TRANSACTIONS: u32 = 64;
pub const MAX_STATEMENTS: u32 = 200;
/// The largest statement weight: the weights are summed as 32-bit numbers.
pub const MAX_WEIGHT: u32 = 1_000_000;

/// Commented TOML with every option at its default; kept in sync with [`Config`] by
/// the tests below.
pub const DEFAULT_CONFIG: &str = r#"# Tables per schema, an inclusive [min, max] range. Tables are named t0, t1, ...
tables = [1, 3]
# Columns per table (c0, c1, ...).
columns = [2, 5]
# Initial rows per table; at most 500.
rows = [5, 20]
# Transactions per case.
transactions = [2, 4]
# Statements per transaction, not counting BEGIN and COMMIT/ROLLBACK.
statements = [1, 6]
# Chance that a transaction ends in COMMIT rather than ROLLBACK.
commit_probability = 0.7
# Chance that a literal or key is taken from the values already in the table or
# written by earlier statements, so that transactions touch the same rows.
cache_probability = 0.8
# Chance that an INSERT reuses a key value the table already holds (a duplicate
# key, unless another transaction removed it); otherwise it takes a key value
# the table does not hold yet. Lower it for DBMSs where a failed statement ends
# the whole transaction (PostgreSQL).
key_collision_probability = 0.5
# Draw the isolation level per transaction instead of once per case.
mixed_isolation = false
# Consecutive cases (by index) that share one schema and its initial rows.
cases_per_schema = 1
# Chance that a predicate atom of a SELECT, UPDATE or DELETE is a subquery
# (IN, EXISTS or a comparison with a scalar aggregate subquery), and that an
# UPDATE assigns a nullable column from a scalar subquery. The subquery of an
# UPDATE or DELETE never reads the statement's own table (MySQL refuses it).
# 0 keeps the IR 1.0 statements every seed made before.
subquery_probability = 0.0

# Relative weights of the statement kinds inside transactions (0 to 1000000);
# 0 disables a kind.
[weights]
select = 4
insert = 2
update = 3
delete = 1
# A query over one to three joined tables, half of them with aggregates and
# GROUP BY (IR 1.1); 0 by default.
query = 0
# INSERT … SELECT from a table of the schema (IR 1.1); 0 by default.
insert_select = 0
"#;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub tables: Range,
    pub columns: Range,
    pub rows: Range,
    pub transactions: Range,
    pub statements: Range,
    pub commit_probability: f64,
    pub cache_probability: f64,
    pub key_collision_probability: f64,
    pub mixed_isolation: bool,
    pub cases_per_schema: u64,
    /// IR 1.1: subqueries in predicates and assignments; 0 by default.
    pub subquery_probability: f64,
    pub weights: Weights,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            tables: [1, 3],
            columns: [2, 5],
            rows: [5, 20],
            transactions: [2, 4],
            statements: [1, 6],
            commit_probability: 0.7,
            cache_probability: 0.8,
            key_collision_probability: 0.5,
            mixed_isolation: false,
            cases_per_schema: 1,
            subquery_probability: 0.0,
            weights: Weights::default(),
        }
    }
}

/// Relative weights of the statement kinds drawn inside a transaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    pub select: u32,
    pub insert: u32,
    pub update: u32,
    pub delete: u32,
    /// IR 1.1: queries over joins with aggregates; 0 by default.
    pub query: u32,
    /// IR 1.1: INSERT … SELECT; 0 by default.
    pub insert_select: u32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            select: 4,
            insert: 2,
            update: 3,
            delete: 1,
            query: 0,
            insert_select: 0,
        }
    }
}

impl Weights {
    /// The weights in the order select, insert, update, delete, query,
    /// insert_select. The IR 1.1 kinds come last: at weight 0 they leave the
    /// draws of the others as they were.
    pub fn as_array(&self) -> [u32; 6] {
        [
            self.select,
            self.insert,
            self.update,
            self.delete,
            self.query,
            self.insert_select,
        ]
    }
}

impl Config {
    /// Rejects settings the generator cannot honour, naming the offending key.
    pub fn validate(&self) -> Result<(), PluginError> {
        check_range("tables", self.tables, 1)?;
        check_range("columns", self.columns, 1)?;
        check_range("rows", self.rows, 0)?;
        check_range("transactions", self.transactions, 1)?;
        check_range("statements", self.statements, 1)?;
        if self.rows[1] > MAX_ROWS {
            return Err(PluginError::config(format!(
                "rows: at most {MAX_ROWS} rows per table are supported, got {}",
                self.rows[1]
            )));
        }
        for (key, [_, max], limit) in [
            ("tables", self.tables, MAX_TABLES),
            ("columns", self.columns, MAX_COLUMNS),
            ("transactions", self.transactions, MAX_TRANSACTIONS),
            ("statements", self.statements, MAX_STATEMENTS),
        ] {
            if max > limit {
                return Err(PluginError::config(format!(
                    "{key}: at most {limit} are supported, got {max}"
                )));
            }
        }
        check_probability("commit_probability", self.commit_probability)?;
        check_probability("cache_probability", self.cache_probability)?;
        check_probability("key_collision_probability", self.key_collision_probability)?;
        check_probability("subquery_probability", self.subquery_probability)?;
        if self.cases_per_schema == 0 {
            return Err(PluginError::config("cases_per_schema: must be at least 1"));
        }
        if let Some(w) = self
            .weights
            .as_array()
            .into_iter()
            .find(|&w| w > MAX_WEIGHT)
        {
            return Err(PluginError::config(format!(
                "weights: each weight must be between 0 and {MAX_WEIGHT}, got {w}"
            )));
        }
        if self.weights.as_array().iter().all(|&w| w == 0) {
            return Err(PluginError::config(
                "weights: at least one of select, insert, update, delete, query, insert_select \
                 must be above 0",
            ));
        }
        Ok(())
    }
}

fn check_range(key: &str, [min, max]: Range, lowest: u32) -> Result<(), PluginError> {
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
    Ok(())
}

fn check_probability(key: &str, p: f64) -> Result<(), PluginError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(PluginError::config(format!(
            "{key}: must be between 0 and 1, got {p}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RandomGenerator;
    use txlab_plugin_api::sdk::testing::check_default_config;

    #[test]
    fn empty_config_is_the_default() {
        assert_eq!(parse_config::<Config>("{}").unwrap(), Config::default());
        assert_eq!(parse_config::<Config>("").unwrap(), Config::default());
        Config::default().validate().unwrap();
    }

    #[test]
    fn default_config_lists_every_key_at_its_default() {
        let parsed = check_default_config::<RandomGenerator, _>().unwrap();
        assert_eq!(parsed, Config::default());
        parsed.validate().unwrap();
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
            (r#"{"tables":[3,1]}"#, "tables: the minimum 3 is greater"),
            (
                r#"{"columns":[0,2]}"#,
                "columns: the minimum must be at least 1",
            ),
            (r#"{"transactions":[0,0]}"#, "transactions: the minimum"),
            (r#"{"statements":[2,1]}"#, "statements: the minimum 2"),
            (r#"{"rows":[5,501]}"#, "rows: at most 500"),
            (
                r#"{"commit_probability":1.5}"#,
                "commit_probability: must be",
            ),
            (
                r#"{"cache_probability":-0.1}"#,
                "cache_probability: must be",
            ),
            (r#"{"cases_per_schema":0}"#, "cases_per_schema: must be"),
            (
                r#"{"weights":{"select":4000000000,"insert":4000000000}}"#,
                "weights: each weight must be between 0 and 1000000",
            ),
            (
                r#"{"weights":{"select":0,"insert":0,"update":0,"delete":0}}"#,
                "weights: at least one",
            ),
        ];
        for (json, start) in cases {
            let msg = error_of(json);
            assert!(msg.starts_with(start), "{json}: {msg}");
        }
    }

    #[test]
    fn boundary_settings_are_accepted() {
        let config: Config = parse_config(
            r#"{"rows":[0,500],"tables":[1,1],"commit_probability":1.0,
                "weights":{"select":0,"insert":0,"update":0,"delete":1}}"#,
        )
        .unwrap();
        config.validate().unwrap();
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let e = parse_config::<Config>(r#"{"weights":{"merge":1}}"#).unwrap_err();
        assert!(e.message.starts_with("weights.merge: unknown field"), "{e}");
        let e = parse_config::<Config>(r#"{"table":[1,2]}"#).unwrap_err();
        assert!(e.message.starts_with("table: unknown field"), "{e}");
    }
}
