//! The oracle's configuration table.

use serde::{Deserialize, Serialize};
pub use txlab_history::verdict::FindingsFrom;
use txlab_plugin_api::prelude::*;

/// Every option at its default, as shown by `txlab plugins show troc`.
pub const DEFAULT_CONFIG: &str = r#"# Name of the auxiliary row-identity column that `prepare` adds to every table
# (an INT without any constraint or index, so that it changes no locking). When
# a table already has a column of that name, `_1`, `_2`, ... is appended.
# Generated statements never mention it; it is part of every compared row.
rid_column = "txlab_rid"

# Compare the rows every SELECT (plain, FOR SHARE, FOR UPDATE) returned with the
# rows the same statement returns on its view.
compare_query_results = true

# Compare, for every INSERT, UPDATE and DELETE, success or failure (constraint
# errors) and the affected-row count with the statement run on its view.
compare_write_outcomes = true

# Compare the final table contents with the latest committed row versions.
compare_final_state = true

# Report a statement that went through without waiting although the other,
# still running transaction held a write lock on a row it must lock (a row it
# matches in the latest committed state). Only this direction is checked: a
# statement that waited although the model saw no conflict is never reported.
check_missing_locks = true

# Report a write that succeeded although the profile says it must fail: at
# levels whose write conflicts abort the second writer (PostgreSQL REPEATABLE
# READ / SERIALIZABLE) or that allow one writer at a time and fail stale ones
# (SQLite), a write to a row another transaction changed and committed after
# this one's snapshot.
check_missing_aborts = true

# What a same-value UPDATE (one that writes the values a row already has) means
# for the updater's later snapshot reads, where vendors differ: InnoDB and TiDB
# treat it as no change and keep showing the snapshot's version (MDEV-26642,
# closed as a design decision), PostgreSQL writes a new row version. The
# dialect declares it (`same_value_update` of its engine facts); this option
# overrides the declaration.
#   "profile"     - as the dialect declares; where it does not, "ambiguous";
#   "ambiguous"   - accept either; a result only the no-change reading explains
#                   is undecided, not a finding;
#   "new_version" - Troc's rule: the update makes a new version (report it);
#   "no_version"  - the InnoDB rule: an unchanged row keeps its old version.
same_value_update = "profile"

# Which model turns an anomaly into a finding. "vendor": a result the vendor's
# documented semantics explain but the standard model forbids (a snapshot read
# that does not show its own transaction's same-value UPDATE, MDEV-26642) is a
# vendor-permitted anomaly, written under anomalies/ and counted; "standard":
# it is a finding.
findings = "vendor"
"#;

/// How a same-value UPDATE counts for the updater's snapshot reads: as the
/// dialect's profile declares, or an explicit override of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SameValueSetting {
    /// The dialect's `EngineSemantics::same_value_update`; `Ambiguous` where
    /// the dialect does not declare it.
    Profile,
    /// Either reading: a result only the no-version reading explains is
    /// undecided.
    Ambiguous,
    NewVersion,
    NoVersion,
}

impl SameValueSetting {
    /// The rule that applies with `dialect`: never `Profile`.
    pub fn resolve(self, dialect: &DialectInfo) -> SameValueSetting {
        match (self, dialect.engine.same_value_update) {
            (SameValueSetting::Profile, SameValueUpdate::NewVersion) => {
                SameValueSetting::NewVersion
            }
            (SameValueSetting::Profile, SameValueUpdate::NoVersion) => SameValueSetting::NoVersion,
            (SameValueSetting::Profile, SameValueUpdate::Unknown) => SameValueSetting::Ambiguous,
            (setting, _) => setting,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrocConfig {
    pub rid_column: String,
    pub compare_query_results: bool,
    pub compare_write_outcomes: bool,
    pub compare_final_state: bool,
    pub check_missing_locks: bool,
    pub check_missing_aborts: bool,
    pub same_value_update: SameValueSetting,
    pub findings: FindingsFrom,
}

impl Default for TrocConfig {
    fn default() -> Self {
        TrocConfig {
            rid_column: "txlab_rid".into(),
            compare_query_results: true,
            compare_write_outcomes: true,
            compare_final_state: true,
            check_missing_locks: true,
            check_missing_aborts: true,
            same_value_update: SameValueSetting::Profile,
            findings: FindingsFrom::Vendor,
        }
    }
}

impl TrocConfig {
    /// Checks what serde cannot.
    pub fn validate(&self) -> Result<(), PluginError> {
        let name = &self.rid_column;
        let ok = !name.is_empty()
            && name.len() <= 48
            && name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(PluginError::config(format!(
                "rid_column: `{name}` is not a plain identifier (letters, digits and `_`, at most 48 characters, not starting with a digit)"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TrocOracle;
    use txlab_plugin_api::sdk::testing::check_default_config;

    #[test]
    fn default_config_lists_every_key_at_its_default() {
        let parsed = check_default_config::<TrocOracle, _>().unwrap();
        assert_eq!(parsed, TrocConfig::default());
        assert!(parsed.validate().is_ok());
    }

    #[test]
    fn unknown_keys_and_bad_values_are_rejected() {
        let e = parse_config::<TrocConfig>(r#"{"rid":"x"}"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
        assert!(e.message.contains("unknown field `rid`"), "{e}");
        let e = parse_config::<TrocConfig>(r#"{"same_value_update":"maybe"}"#).unwrap_err();
        assert!(e.message.contains("unknown variant `maybe`"), "{e}");
        let bad: TrocConfig = parse_config(r#"{"rid_column":"rid; DROP"}"#).unwrap();
        assert!(bad.validate().unwrap_err().message.contains("rid_column"));
    }

    #[test]
    fn the_same_value_rule_follows_the_profile_unless_overridden() {
        let dialect = |fact| DialectInfo {
            name: "d".into(),
            driver: "sqlite".into(),
            levels: vec![],
            features: Features::default(),
            lock_probe: LockProbe::Driver,
            session_control: SessionControl::default(),
            engine: EngineSemantics {
                same_value_update: fact,
                ..EngineSemantics::default()
            },
            server_query: None,
            server: None,
        };
        use SameValueSetting::*;
        for (fact, rule) in [
            (SameValueUpdate::NewVersion, NewVersion),
            (SameValueUpdate::NoVersion, NoVersion),
            (SameValueUpdate::Unknown, Ambiguous),
        ] {
            assert_eq!(Profile.resolve(&dialect(fact)), rule);
            for setting in [Ambiguous, NewVersion, NoVersion] {
                assert_eq!(setting.resolve(&dialect(fact)), setting);
            }
        }
    }
}
