//! The oracle's configuration table.

use serde::{Deserialize, Serialize};
use std::fmt;
use txlab_plugin_api::prelude::*;

pub use txlab_history::verdict::FindingsFrom;

/// Every option at its default, as shown by `txlab plugins show`.
pub const DEFAULT_CONFIG: &str = r#"# Which WriteCheck checks to run, each against the serial run in FCRFS order
# (first commit/rollback first scheduled):
#   "tx"   - tx-WSS (Definition 1): whole transactions, BEGIN to COMMIT/ROLLBACK;
#   "stmt" - stmt-WSS (Definition 2): each statement of a committed transaction
#            in autocommit mode.
variants = ["tx", "stmt"]

# Also compare, for every INSERT, UPDATE and DELETE of the replayed transactions,
# whether it succeeded in both runs (and the error class when both failed).
compare_write_outcomes = true

# Also compare the affected-row counts of writes that succeeded in both runs.
compare_affected_rows = true

# Which model turns a difference into a finding. At levels whose documented
# semantics do not check every write conflict (semi-consistent writes, no
# predicate locks; WriteCheck section 6.4), a difference that involves a write
# the level's rule let miss another transaction's change is a vendor-permitted
# anomaly under "vendor" (written under anomalies/ and counted) and a finding
# under "standard"; a difference no such write explains is a finding either way.
findings = "vendor"

# The older name of findings = "standard": true reports every difference at a
# weak level as a finding.
report_weak_levels = false

# Where every transaction runs at a level the dialect declares serializable in
# some order other than the commit order (serializable snapshot isolation, as
# PostgreSQL's and CockroachDB's SERIALIZABLE), replay the committed
# transactions in every order: a run no order explains violates
# serializability; a run one order explains passes.
search_serial_orders = true

# Give up (undecided) when the committed transactions have more orders than
# this (5 transactions: 120); 1 to 5040 (7 transactions).
max_serial_orders = 120

# Read stmt-WSS's serial run off tx-WSS's where the two must agree: every
# replayed transaction committed, tx-WSS's run did not stop, and the dialect
# declares that a failed statement keeps its transaction (InnoDB, SQLite), so
# a transaction's statements do inside BEGIN ... COMMIT what each does in
# autocommit. One replay on the scratch database instead of two; false
# replays both.
share_serial_runs = true
"#;

/// The two WSS checks of WriteCheck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Definition 1: transactions replayed whole.
    Tx,
    /// Definition 2: committed transactions' statements replayed in autocommit.
    Stmt,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tx => "tx-WSS",
            Variant::Stmt => "stmt-WSS",
        }
    }

    /// Which definition of the paper the variant checks, for reports.
    pub fn definition(self) -> &'static str {
        match self {
            Variant::Tx => "Definition 1: every transaction that did not abort replayed whole, BEGIN to COMMIT/ROLLBACK",
            Variant::Stmt => "Definition 2: the statements of every committed transaction replayed one by one in autocommit mode",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every order is a serial replay of the case: 7! of them take seconds.
pub const MAX_SERIAL_ORDERS: usize = 5040;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WssConfig {
    pub variants: Vec<Variant>,
    pub compare_write_outcomes: bool,
    pub compare_affected_rows: bool,
    pub findings: FindingsFrom,
    pub report_weak_levels: bool,
    pub search_serial_orders: bool,
    pub max_serial_orders: usize,
    pub share_serial_runs: bool,
}

impl Default for WssConfig {
    fn default() -> Self {
        WssConfig {
            variants: vec![Variant::Tx, Variant::Stmt],
            compare_write_outcomes: true,
            compare_affected_rows: true,
            findings: FindingsFrom::Vendor,
            report_weak_levels: false,
            search_serial_orders: true,
            max_serial_orders: 120,
            share_serial_runs: true,
        }
    }
}

impl WssConfig {
    /// Which model makes a difference a finding, the older key included.
    pub fn findings_from(&self) -> FindingsFrom {
        if self.report_weak_levels {
            FindingsFrom::Standard
        } else {
            self.findings
        }
    }

    /// Checks what serde cannot: at least one variant, none twice, a bound
    /// on the serial orders that keeps a case's search short.
    pub fn validate(&self) -> Result<(), PluginError> {
        if !(1..=MAX_SERIAL_ORDERS).contains(&self.max_serial_orders) {
            return Err(PluginError::config(format!(
                "max_serial_orders: must be between 1 and {MAX_SERIAL_ORDERS} (7 transactions), got {}",
                self.max_serial_orders
            )));
        }
        if self.variants.is_empty() {
            return Err(PluginError::config(
                "variants: at least one of \"tx\" and \"stmt\" is needed",
            ));
        }
        for (i, v) in self.variants.iter().enumerate() {
            if self.variants[..i].contains(v) {
                return Err(PluginError::config(format!(
                    "variants: \"{}\" is listed twice",
                    match v {
                        Variant::Tx => "tx",
                        Variant::Stmt => "stmt",
                    }
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WssOracle;
    use txlab_plugin_api::sdk::testing::check_default_config;

    #[test]
    fn default_config_lists_every_key_at_its_default() {
        let parsed = check_default_config::<WssOracle, _>().unwrap();
        assert_eq!(parsed, WssConfig::default());
        assert!(parsed.validate().is_ok());
    }

    #[test]
    fn unknown_keys_and_variants_are_rejected() {
        let e = parse_config::<WssConfig>(r#"{"variant":["tx"]}"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
        assert!(e.message.contains("unknown field `variant`"), "{e}");
        let e = parse_config::<WssConfig>(r#"{"variants":["tx","final"]}"#).unwrap_err();
        assert!(e.message.contains("unknown variant `final`"), "{e}");
    }

    #[test]
    fn empty_and_repeated_variants_are_rejected() {
        let empty: WssConfig = parse_config(r#"{"variants":[]}"#).unwrap();
        assert!(empty
            .validate()
            .unwrap_err()
            .message
            .contains("at least one"));
        let twice: WssConfig = parse_config(r#"{"variants":["stmt","stmt"]}"#).unwrap();
        assert!(twice.validate().unwrap_err().message.contains("twice"));
        let one: WssConfig = parse_config(r#"{"variants":["stmt"]}"#).unwrap();
        assert!(one.validate().is_ok());
        assert!(WssConfig::default().validate().is_ok());
    }
}
