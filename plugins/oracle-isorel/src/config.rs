//! The oracle's configuration table.

use serde::{Deserialize, Serialize};
use txlab_plugin_api::prelude::*;

/// Every option at its default, as shown by `txlab plugins show isorel`.
pub const DEFAULT_CONFIG: &str = r#"# The two auxiliary columns `prepare` adds to every table (IsoRel, ISSTA 2025):
# a row identity unique in the case, and the list of the transactions that
# wrote the row, in the order their writes were installed ("0" is the initial
# data, "0,2,1" a row T2 and then T1 updated). Neither has a constraint or an
# index, so they take no locks of their own. When a table already has a column
# of that name, `_1`, `_2`, ... is appended.
row_id_column = "txlab_row"
writers_column = "txlab_writers"

# IsoRel's exemption: a cycle between a plain SELECT's anti-dependency and a
# SELECT ... FOR UPDATE / FOR SHARE that read a newer version in the same
# transaction is not an anomaly where locking reads read the latest version.
exempt_locking_reads = true

# Which model makes findings. "vendor": an anomaly the vendor's documented
# semantics forbid is a finding, one that only the standard model of the level
# forbids is a vendor-permitted anomaly (written under anomalies/ and counted).
# "standard": every anomaly the standard model forbids is a finding.
findings = "vendor"
"#;

pub use txlab_history::verdict::FindingsFrom;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IsorelConfig {
    pub row_id_column: String,
    pub writers_column: String,
    pub exempt_locking_reads: bool,
    pub findings: FindingsFrom,
}

impl Default for IsorelConfig {
    fn default() -> Self {
        IsorelConfig {
            row_id_column: "txlab_row".into(),
            writers_column: "txlab_writers".into(),
            exempt_locking_reads: true,
            findings: FindingsFrom::Vendor,
        }
    }
}

impl IsorelConfig {
    pub fn validate(&self) -> Result<(), PluginError> {
        let ok = |name: &str| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        for (key, name) in [
            ("row_id_column", &self.row_id_column),
            ("writers_column", &self.writers_column),
        ] {
            if !ok(name) {
                return Err(PluginError::config(format!(
                    "`{key}` must be a plain identifier (letters, digits, `_`), not `{name}`"
                )));
            }
        }
        if self
            .row_id_column
            .eq_ignore_ascii_case(&self.writers_column)
        {
            return Err(PluginError::config(
                "`row_id_column` and `writers_column` must differ",
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
        txlab_plugin_api::sdk::testing::check_default_config::<crate::IsorelOracle, _>().unwrap();
    }

    #[test]
    fn column_names_are_checked() {
        let bad = IsorelConfig {
            writers_column: "a b".into(),
            ..IsorelConfig::default()
        };
        assert!(bad
            .validate()
            .unwrap_err()
            .message
            .contains("writers_column"));
        let same = IsorelConfig {
            writers_column: "TXLAB_ROW".into(),
            ..IsorelConfig::default()
        };
        assert!(same.validate().is_err());
    }
}
