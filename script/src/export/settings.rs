//! Which of a session's set-up statements an export keeps.
//!
//! txlab's dialects set every session up the same way: the isolation level,
//! the server's time limits, and settings that make a run independent of
//! server defaults. An export writes the level in its format's own way, and
//! keeps what can change the outcome: snapshot and transaction-mode
//! variables, `sql_mode`, and a time limit only when some statement ran into
//! it (a lock-wait or statement timeout, PostgreSQL's deadlock timeout when
//! a deadlock was reported). Settings that only restate a default or make
//! txlab's own readings uniform go. A setting txlab does not know stays.

use txlab_plugin_api::ir::*;

/// What a session set-up statement sets, lower case: `innodb_lock_wait_timeout`,
/// `transaction isolation level`, `names`.
fn setting_of(sql: &str) -> String {
    let lower = sql.trim().to_lowercase();
    let rest = lower.strip_prefix("set ").unwrap_or(&lower).trim_start();
    let rest = rest
        .strip_prefix("session ")
        .or_else(|| rest.strip_prefix("@@session."))
        .unwrap_or(rest)
        .trim_start();
    if rest.starts_with("transaction isolation level")
        || rest.starts_with("characteristics as transaction")
    {
        return "transaction isolation level".into();
    }
    rest.split(|c: char| c.is_whitespace() || c == '=')
        .next()
        .unwrap_or("")
        .to_string()
}

/// Whether any statement of the history failed with `class`.
fn failed_with(history: &History, class: ErrorClass) -> bool {
    history
        .statements
        .iter()
        .flatten()
        .any(|r| r.outcome.error().is_some_and(|e| e.class == class))
}

/// The statements of `setup` an export keeps for its session (see the
/// module's documentation); never the isolation level.
pub(crate) fn kept(setup: &[String], history: &History) -> Vec<String> {
    setup
        .iter()
        .filter(|sql| {
            let name = setting_of(sql);
            match name.as_str() {
                "transaction isolation level"
                | "autocommit"
                | "names"
                | "default_transaction_read_only"
                | "idle_in_transaction_session_timeout"
                | "extra_float_digits"
                | "time"
                | "standard_conforming_strings" => false,
                "innodb_lock_wait_timeout" | "lock_timeout" => {
                    failed_with(history, ErrorClass::LockWaitTimeout)
                }
                "max_statement_time" | "max_execution_time" | "statement_timeout" => {
                    failed_with(history, ErrorClass::StatementTimeout)
                }
                "deadlock_timeout" => failed_with(history, ErrorClass::Deadlock),
                _ => true,
            }
        })
        .cloned()
        .collect()
}

/// The statements of `setup` that set the isolation level.
pub(crate) fn levels(setup: &[String]) -> Vec<String> {
    setup
        .iter()
        .filter(|sql| setting_of(sql) == "transaction isolation level")
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_defaults_and_unused_limits_go_snapshot_variables_stay() {
        let setup: Vec<String> = [
            "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
            "SET SESSION autocommit = 1",
            "SET NAMES utf8mb4",
            "SET SESSION sql_mode = 'STRICT_ALL_TABLES'",
            "SET SESSION innodb_lock_wait_timeout = 8",
            "SET SESSION max_statement_time = 5.000",
            "SET SESSION innodb_snapshot_isolation = OFF",
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET lock_timeout = '8000ms'",
            "SET TIME ZONE 'UTC'",
            "SET some_future_variable = 1",
        ]
        .map(String::from)
        .to_vec();
        let quiet = History::default();
        assert_eq!(
            kept(&setup, &quiet),
            [
                "SET SESSION sql_mode = 'STRICT_ALL_TABLES'",
                "SET SESSION innodb_snapshot_isolation = OFF",
                "SET some_future_variable = 1",
            ]
        );
        let timed_out = History {
            statements: vec![vec![StatementRecord {
                at: StatementRef::new(0, 0),
                sql: String::new(),
                submitted_us: Some(1),
                completed_us: Some(2),
                blocked: None,
                outcome: Outcome::Error(DbError {
                    class: ErrorClass::LockWaitTimeout,
                    scope: ErrorScope::Statement,
                    code: Some(1205),
                    sqlstate: None,
                    message: "Lock wait timeout exceeded".into(),
                }),
            }]],
            ..History::default()
        };
        let kept = kept(&setup, &timed_out);
        assert!(kept.contains(&"SET SESSION innodb_lock_wait_timeout = 8".to_string()));
        assert!(kept.contains(&"SET lock_timeout = '8000ms'".to_string()));
        assert!(!kept.iter().any(|s| s.contains("max_statement_time")));
    }
}
