//! Which of a session's set-up statements a person reproducing a case must
//! type: the isolation level and the settings that change what a level
//! means, always; the others only when the run shows they mattered.

use txlab_plugin_api::ir::*;

/// Why a session setting is kept, or that it is left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// The isolation level, or a setting that changes what it means
    /// (`innodb_snapshot_isolation`, TiDB's transaction mode and retry).
    Semantics,
    /// Needed by this run: a timeout the history shows firing, a SQL mode
    /// or string setting its literals or errors depend on.
    NeededHere,
    /// A default the server is assumed to have, or one that does not change
    /// the outcome of this run's statements.
    LeftOut,
}

/// What matters of a run for its settings.
pub(super) struct RunTraits {
    timeout: bool,
    deadlock: bool,
    data_error: bool,
    backslash: bool,
    non_ascii: bool,
}

impl RunTraits {
    pub(super) fn of(rendered: &RenderedCase, history: &History) -> Self {
        let classes: Vec<ErrorClass> = history
            .statements
            .iter()
            .flatten()
            .filter_map(|r| match &r.outcome {
                Outcome::Error(e) => Some(e.class),
                _ => None,
            })
            .collect();
        let texts = || {
            rendered
                .populate
                .iter()
                .chain(rendered.transactions.iter().flat_map(|t| &t.statements))
        };
        RunTraits {
            timeout: classes.iter().any(|c| {
                matches!(
                    c,
                    ErrorClass::LockWaitTimeout | ErrorClass::StatementTimeout
                )
            }),
            deadlock: classes.contains(&ErrorClass::Deadlock),
            data_error: classes
                .iter()
                .any(|c| matches!(c, ErrorClass::Data | ErrorClass::Constraint)),
            backslash: texts().any(|s| s.contains('\\')),
            non_ascii: texts().any(|s| !s.is_ascii()),
        }
    }
}

/// Whether `sql`, a session set-up statement, is kept in a repro.
pub(super) fn classify(sql: &str, run: &RunTraits) -> Setting {
    let s = sql.to_ascii_lowercase();
    let has = |w: &str| s.contains(w);
    if has("isolation")
        || has("characteristics as transaction")
        || has("tidb_txn_mode")
        || has("tidb_disable_txn_auto_retry")
        || has("sql_safe_updates")
    {
        return Setting::Semantics;
    }
    let needed = if has("deadlock_timeout") {
        run.deadlock
    } else if has("timeout") || has("max_statement_time") || has("max_execution_time") {
        run.timeout
    } else if has("sql_mode") {
        run.data_error || run.backslash
    } else if has("standard_conforming_strings") {
        run.backslash
    } else if has("names") || has("client_encoding") {
        run.non_ascii
    } else {
        false
    };
    if needed {
        Setting::NeededHere
    } else {
        Setting::LeftOut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(timeout: bool, data_error: bool) -> RunTraits {
        RunTraits {
            timeout,
            deadlock: false,
            data_error,
            backslash: false,
            non_ascii: false,
        }
    }

    #[test]
    fn levels_and_snapshot_variables_stay_defaults_go() {
        let plain = run(false, false);
        for kept in [
            "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "SET SESSION innodb_snapshot_isolation = OFF",
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET SESSION tidb_txn_mode = 'pessimistic'",
        ] {
            assert_eq!(classify(kept, &plain), Setting::Semantics, "{kept}");
        }
        for gone in [
            "SET SESSION autocommit = 1",
            "SET NAMES utf8mb4",
            "SET SESSION sql_mode = 'STRICT_ALL_TABLES'",
            "SET SESSION innodb_lock_wait_timeout = 8",
            "SET SESSION max_statement_time = 5.000",
            "SET statement_timeout = '5000ms'",
            "SET TIME ZONE 'UTC'",
            "SET extra_float_digits = 3",
        ] {
            assert_eq!(classify(gone, &plain), Setting::LeftOut, "{gone}");
        }
        // A timeout that fired, a strict mode an error depends on: kept.
        let timed_out = run(true, true);
        for kept in [
            "SET SESSION innodb_lock_wait_timeout = 8",
            "SET lock_timeout = '8000ms'",
            "SET SESSION sql_mode = 'STRICT_ALL_TABLES'",
        ] {
            assert_eq!(classify(kept, &timed_out), Setting::NeededHere, "{kept}");
        }
    }
}
