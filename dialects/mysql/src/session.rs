//! The statements that set up a session for its isolation level and limits, and the
//! checks that they took effect.

use crate::flavor::{Flavor, SettingBasis, Target, TxnMode};
use crate::semantics::{check_level, MARIADB_SNAPSHOT_ISOLATION, MYSQL_ERROR_HANDLING};
use txlab_plugin_api::prelude::*;

/// A strict mode, so that a bad value fails its statement instead of being
/// adjusted with a warning, and the same on every server whatever its default
/// (https://dev.mysql.com/doc/refman/8.0/en/sql-mode.html). NO_BACKSLASH_ESCAPES
/// makes string literals standard SQL; the rendered literals read the same either
/// way (see `literal`).
pub const SQL_MODE: &str =
    "STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

/// The largest `innodb_lock_wait_timeout`, in seconds
/// (https://dev.mysql.com/doc/refman/8.0/en/innodb-parameters.html#sysvar_innodb_lock_wait_timeout).
const MAX_LOCK_WAIT_SECONDS: u64 = 1_073_741_824;
/// The largest MariaDB `max_statement_time`, in seconds
/// (https://mariadb.com/docs/server/ha-and-performance/optimization-and-tuning/system-variables/server-system-variables#max_statement_time).
const MAX_STATEMENT_SECONDS: u64 = 31_536_000;
/// The largest MySQL `max_execution_time`, in milliseconds
/// (https://dev.mysql.com/doc/refman/8.0/en/server-system-variables.html#sysvar_max_execution_time).
const MAX_EXECUTION_MS: u64 = 4_294_967_295;

/// The statements a new session of `target` runs for the level and limits of
/// `request`, and the checks that they took effect (`Dialect::session_setup`).
pub fn setup(target: &Target, request: &SessionRequest) -> Result<SessionSetup, PluginError> {
    // Also refused here, so that an autocommit transaction (which has no BEGIN)
    // cannot claim a level the flavor lacks.
    check_level(target, request.isolation)?;
    let limits = request.limits;
    let mut statements = vec![
        // With SESSION the level holds for every later transaction of the session,
        // not only the next one
        // (https://dev.mysql.com/doc/refman/8.0/en/set-transaction.html).
        format!(
            "SET SESSION TRANSACTION ISOLATION LEVEL {}",
            request.isolation.sql()
        ),
        // Autocommit transactions are single statements; explicit ones start with
        // START TRANSACTION or BEGIN, which suspends autocommit until they end.
        "SET SESSION autocommit = 1".to_string(),
        // The literals are UTF-8 text, and the connection must read them so.
        "SET NAMES utf8mb4".to_string(),
        format!("SET SESSION sql_mode = '{SQL_MODE}'"),
        // Whole seconds; rounding down could turn a short limit into 0, which the
        // server refuses.
        format!(
            "SET SESSION innodb_lock_wait_timeout = {}",
            limits
                .lock_wait_timeout_ms
                .div_ceil(1000)
                .clamp(1, MAX_LOCK_WAIT_SECONDS)
        ),
        statement_timeout(target.flavor, limits.statement_timeout_ms),
    ];
    let mut checks = Vec::new();
    match target.flavor {
        Flavor::Mysql | Flavor::Mariadb => {
            // The dialect classifies a lock-wait timeout (1205) as undoing only the
            // statement; innodb_rollback_on_timeout, a server start-up option, would
            // roll back the whole transaction instead (MYSQL_ERROR_HANDLING).
            checks.push(SessionCheck {
                sql: "SELECT @@innodb_rollback_on_timeout".to_string(),
                expect: "0".to_string(),
                explain: format!(
                    "the server runs with innodb_rollback_on_timeout, so a lock-wait timeout \
                     rolls back the whole transaction, but the dialect declares that it \
                     undoes only the statement ({MYSQL_ERROR_HANDLING}); restart the server \
                     without that option"
                ),
            });
        }
        Flavor::Tidb => {}
    }
    match target.flavor {
        Flavor::Mysql => {}
        // A server without the variable behaves as with it OFF.
        Flavor::Mariadb if target.snapshot_isolation_basis == SettingBasis::Absent => {}
        Flavor::Mariadb => {
            // Always set, also to the server's own value: another client may
            // change the global value during the run, and the declared
            // REPEATABLE READ and SERIALIZABLE semantics depend on it.
            let (value, shown) = if target.snapshot_isolation {
                ("ON", "1")
            } else {
                ("OFF", "0")
            };
            statements.push(format!("SET SESSION innodb_snapshot_isolation = {value}"));
            checks.push(SessionCheck {
                sql: "SELECT @@innodb_snapshot_isolation".to_string(),
                expect: shown.to_string(),
                explain: format!(
                    "innodb_snapshot_isolation is not {value} in the session, and the \
                     declared isolation semantics depend on it; the variable exists from \
                     MariaDB 10.6.18, 10.11.8 and 11.4.2 ({MARIADB_SNAPSHOT_ISOLATION})"
                ),
            });
        }
        Flavor::Tidb => {
            // BEGIN PESSIMISTIC/OPTIMISTIC sets the mode of explicit transactions;
            // autocommit statements follow tidb_txn_mode
            // (https://docs.pingcap.com/tidb/stable/system-variables#tidb_txn_mode).
            statements.push(format!(
                "SET SESSION tidb_txn_mode = '{}'",
                target.txn_mode.keyword().to_lowercase()
            ));
            if target.txn_mode == TxnMode::Optimistic {
                // An automatic retry of a conflicting optimistic transaction re-runs
                // its writes on newer data and breaks the isolation level; it is off by
                // default and deprecated from v8.0, and stays off here
                // (https://docs.pingcap.com/tidb/stable/optimistic-transaction#automatic-retry).
                statements.push("SET SESSION tidb_disable_txn_auto_retry = ON".to_string());
            }
        }
    }
    Ok(SessionSetup { statements, checks })
}

/// The server-side statement timeout; 0 means none on every flavor.
fn statement_timeout(flavor: Flavor, ms: u64) -> String {
    match flavor {
        // Seconds with microsecond precision; it stops every kind of statement
        // (https://mariadb.com/docs/server/ha-and-performance/optimization-and-tuning/query-optimizations/aborting-statements).
        Flavor::Mariadb => {
            let ms = ms.min(MAX_STATEMENT_SECONDS * 1000);
            format!(
                "SET SESSION max_statement_time = {}.{:03}",
                ms / 1000,
                ms % 1000
            )
        }
        // Milliseconds, and it stops only SELECT statements: MySQL's applies to
        // read-only top-level SELECTs
        // (https://dev.mysql.com/doc/refman/8.0/en/server-system-variables.html#sysvar_max_execution_time),
        // TiDB's to SELECT including SELECT ... FOR UPDATE
        // (https://docs.pingcap.com/tidb/stable/system-variables#max_execution_time).
        // A write waiting for a lock is still bounded by innodb_lock_wait_timeout.
        Flavor::Mysql | Flavor::Tidb => format!(
            "SET SESSION max_execution_time = {}",
            ms.min(MAX_EXECUTION_MS)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(level: IsolationLevel, statement_ms: u64, lock_ms: u64) -> SessionRequest {
        SessionRequest {
            isolation: level,
            limits: SessionLimits {
                statement_timeout_ms: statement_ms,
                lock_wait_timeout_ms: lock_ms,
            },
        }
    }

    fn statement_with(setup: &SessionSetup, prefix: &str) -> String {
        setup
            .statements
            .iter()
            .find(|s| s.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` in {:?}", setup.statements))
            .clone()
    }

    #[test]
    fn lock_wait_timeouts_round_up_to_whole_seconds() {
        for (ms, seconds) in [
            (0, 1),
            (1, 1),
            (999, 1),
            (1000, 1),
            (1001, 2),
            (8000, 8),
            (u64::MAX, MAX_LOCK_WAIT_SECONDS),
        ] {
            let setup = setup(
                &Target::mysql(),
                &request(IsolationLevel::RepeatableRead, 1, ms),
            )
            .unwrap();
            assert_eq!(
                statement_with(&setup, "SET SESSION innodb_lock_wait_timeout"),
                format!("SET SESSION innodb_lock_wait_timeout = {seconds}"),
                "{ms} ms"
            );
        }
    }

    #[test]
    fn statement_timeouts_use_each_servers_unit() {
        assert_eq!(
            statement_timeout(Flavor::Mariadb, 5_000),
            "SET SESSION max_statement_time = 5.000"
        );
        assert_eq!(
            statement_timeout(Flavor::Mariadb, 1_250),
            "SET SESSION max_statement_time = 1.250"
        );
        assert_eq!(
            statement_timeout(Flavor::Mariadb, 7),
            "SET SESSION max_statement_time = 0.007"
        );
        assert_eq!(
            statement_timeout(Flavor::Mariadb, u64::MAX),
            "SET SESSION max_statement_time = 31536000.000"
        );
        assert_eq!(
            statement_timeout(Flavor::Mysql, 1_250),
            "SET SESSION max_execution_time = 1250"
        );
        assert_eq!(
            statement_timeout(Flavor::Tidb, u64::MAX),
            "SET SESSION max_execution_time = 4294967295"
        );
        assert_eq!(
            statement_timeout(Flavor::Mysql, 0),
            "SET SESSION max_execution_time = 0"
        );
    }
}
