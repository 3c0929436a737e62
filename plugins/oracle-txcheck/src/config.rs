//! The oracle's configuration table.

use serde::{Deserialize, Serialize};
pub use txlab_history::verdict::FindingsFrom;
use txlab_plugin_api::prelude::*;

/// Every option at its default, as shown by `txlab plugins show txcheck`.
pub const DEFAULT_CONFIG: &str = r#"# The two columns `prepare` adds to every table (TxCheck, OSDI 2023, §3.2):
# the item key, a number per row that never changes (TxCheck's PrimaryKey),
# and the version key, set by every write to a number no other write uses
# (its VersionKey; 0 for the initial rows). When a table already has a column
# of that name, `_1`, `_2`, ... is appended.
item_column = "txc_item"
version_column = "txc_version"

# A statement graph with a cycle cannot be sorted; the transactions' graph is
# then judged as IsoRel judges it. "vendor": an anomaly the vendor's documented
# semantics forbid is a finding, one only the standard model of the level
# forbids is a vendor-permitted anomaly. "standard": every anomaly the standard
# model forbids is a finding. Anything else leaves the case undecided.
findings = "vendor"

# A run that cannot be judged because of one statement (it waited for a lock
# between its added reads, read newer rows than they show, or closes a cycle
# of the statement graph) runs again on the scratch database without that
# statement, as TxCheck does (decycling, Fig. 11), at most this many times
# per case; 0 leaves such a case undecided; at most 32.
reruns = 4
"#;

/// Each rerun runs the whole case again on the scratch database.
pub const MAX_RERUNS: usize = 32;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TxcheckConfig {
    pub item_column: String,
    pub version_column: String,
    pub findings: FindingsFrom,
    pub reruns: usize,
}

impl Default for TxcheckConfig {
    fn default() -> Self {
        TxcheckConfig {
            item_column: "txc_item".into(),
            version_column: "txc_version".into(),
            findings: FindingsFrom::Vendor,
            reruns: 4,
        }
    }
}

impl TxcheckConfig {
    pub fn validate(&self) -> Result<(), PluginError> {
        let plain = |name: &str| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        for (key, name) in [
            ("item_column", &self.item_column),
            ("version_column", &self.version_column),
        ] {
            if !plain(name) {
                return Err(PluginError::config(format!(
                    "`{key}` must be a plain identifier (letters, digits, `_`), not `{name}`"
                )));
            }
        }
        if self.reruns > MAX_RERUNS {
            return Err(PluginError::config(format!(
                "`reruns` must be between 0 and {MAX_RERUNS}, not {}",
                self.reruns
            )));
        }
        if self.item_column.eq_ignore_ascii_case(&self.version_column) {
            return Err(PluginError::config(
                "`item_column` and `version_column` must differ",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_config_lists_every_key_at_its_default() {
        txlab_plugin_api::sdk::testing::check_default_config::<crate::TxcheckOracle, _>().unwrap();
    }

    #[test]
    fn column_names_are_checked() {
        let bad = TxcheckConfig {
            item_column: "a b".into(),
            ..TxcheckConfig::default()
        };
        assert!(bad.validate().unwrap_err().message.contains("item_column"));
        let same = TxcheckConfig {
            version_column: "TXC_ITEM".into(),
            ..TxcheckConfig::default()
        };
        assert!(same.validate().unwrap_err().message.contains("must differ"));
    }
}
