//! The oracle's configuration table.

use serde::{Deserialize, Serialize};
use txlab_plugin_api::prelude::*;

/// Every option at its default, as shown by `txlab plugins show errors`.
pub const DEFAULT_CONFIG: &str = r#"# Errors that reveal a bug by themselves are always findings: the server went
# down during the case (server-crash), it dropped a session without going down
# (connection-lost), it reported an internal error or a failed assertion
# (internal-error), or it answered with an error the dialect cannot classify
# (unclassified-error). The errors a concurrent run may meet by design are not
# findings: deadlock, lock_wait_timeout, serialization_failure, constraint,
# data, statement_timeout, transaction_aborted, and syntax (APTrans discards a
# case that met them).
#
# The classes listed here are findings too, by their snake_case names: e.g.
# ["syntax"] to catch a generator or dialect that writes SQL the DBMS refuses,
# or ["statement_timeout"] to report statements that ran into the run's limit.
also_findings = []
"#;

/// The error classes `also_findings` may name: those that are not findings
/// by default, with their snake_case names (as `ErrorClass` serialises).
pub const EXPECTED_CLASSES: [(&str, ErrorClass); 8] = [
    ("deadlock", ErrorClass::Deadlock),
    ("lock_wait_timeout", ErrorClass::LockWaitTimeout),
    ("serialization_failure", ErrorClass::SerializationFailure),
    ("constraint", ErrorClass::Constraint),
    ("data", ErrorClass::Data),
    ("statement_timeout", ErrorClass::StatementTimeout),
    ("transaction_aborted", ErrorClass::TransactionAborted),
    ("syntax", ErrorClass::Syntax),
];

/// The classes that are findings whatever the configuration says.
const ALWAYS_FINDINGS: [&str; 3] = ["connection_lost", "internal", "other"];

/// The snake_case name of an error class, as configurations and signatures
/// write it.
pub fn class_name(class: ErrorClass) -> String {
    match serde_json::to_value(class) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{class:?}").to_ascii_lowercase(),
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ErrorsConfig {
    /// Error classes, by snake_case name, that are findings besides the
    /// always reported ones.
    pub also_findings: Vec<String>,
}

impl ErrorsConfig {
    /// The classes `also_findings` names, each once, in the order given; an
    /// error names the valid values.
    pub fn also_findings(&self) -> Result<Vec<ErrorClass>, PluginError> {
        let valid = || {
            EXPECTED_CLASSES
                .iter()
                .map(|(name, _)| format!("\"{name}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut classes = Vec::new();
        for name in &self.also_findings {
            if ALWAYS_FINDINGS.contains(&name.as_str()) {
                return Err(PluginError::config(format!(
                    "also_findings: \"{name}\" errors are always findings; the classes it may add are {}",
                    valid()
                )));
            }
            let Some(&(_, class)) = EXPECTED_CLASSES.iter().find(|(n, _)| *n == name) else {
                return Err(PluginError::config(format!(
                    "also_findings: unknown error class \"{name}\"; the classes it may add are {}",
                    valid()
                )));
            };
            if !classes.contains(&class) {
                classes.push(class);
            }
        }
        Ok(classes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_config_lists_every_key_at_its_default() {
        let config =
            txlab_plugin_api::sdk::testing::check_default_config::<crate::ErrorsOracle, _>()
                .unwrap();
        assert_eq!(config.also_findings().unwrap(), []);
    }

    #[test]
    fn the_names_are_the_ir_names_of_the_classes() {
        for (name, class) in EXPECTED_CLASSES {
            assert_eq!(class_name(class), name);
        }
        assert_eq!(class_name(ErrorClass::ConnectionLost), ALWAYS_FINDINGS[0]);
        assert_eq!(class_name(ErrorClass::Internal), ALWAYS_FINDINGS[1]);
        assert_eq!(class_name(ErrorClass::Other), ALWAYS_FINDINGS[2]);
    }

    #[test]
    fn also_findings_are_read_once_each_in_order() {
        let config: ErrorsConfig =
            parse_config(r#"{"also_findings": ["syntax", "statement_timeout", "syntax"]}"#)
                .unwrap();
        assert_eq!(
            config.also_findings().unwrap(),
            [ErrorClass::Syntax, ErrorClass::StatementTimeout]
        );
    }

    #[test]
    fn an_unknown_class_is_refused_with_the_valid_ones() {
        let config: ErrorsConfig = parse_config(r#"{"also_findings": ["syntx"]}"#).unwrap();
        let e = config.also_findings().unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
        assert_eq!(
            e.message,
            "also_findings: unknown error class \"syntx\"; the classes it may add are \
             \"deadlock\", \"lock_wait_timeout\", \"serialization_failure\", \"constraint\", \
             \"data\", \"statement_timeout\", \"transaction_aborted\", \"syntax\""
        );
        // The Rust spelling is not the configuration's.
        let config: ErrorsConfig = parse_config(r#"{"also_findings": ["Syntax"]}"#).unwrap();
        assert!(config.also_findings().is_err());
    }

    #[test]
    fn a_class_that_is_always_a_finding_is_refused() {
        for name in ALWAYS_FINDINGS {
            let config = ErrorsConfig {
                also_findings: vec![name.to_string()],
            };
            let e = config.also_findings().unwrap_err();
            assert!(
                e.message.starts_with(&format!(
                    "also_findings: \"{name}\" errors are always findings"
                )),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_refused() {
        let e = parse_config::<ErrorsConfig>(r#"{"also_finding": ["syntax"]}"#).unwrap_err();
        assert!(
            e.message.contains("unknown field `also_finding`"),
            "{}",
            e.message
        );
        let e = parse_config::<ErrorsConfig>(r#"{"also_findings": "syntax"}"#).unwrap_err();
        assert!(
            e.message.starts_with("also_findings: invalid type"),
            "{}",
            e.message
        );
    }
}
