//! What every session runs before a case: the isolation level, the server-side
//! limits, and the settings that make a run independent of server defaults.

use crate::flavor::Flavor;
use crate::semantics::{check_level, CRDB_READ_COMMITTED_DOC, CRDB_SESSION_VARS_DOC};
use txlab_plugin_api::prelude::*;

const PG_CLIENT_DOC: &str = "https://www.postgresql.org/docs/16/runtime-config-client.html";
const PG_LOCKS_DOC: &str = "https://www.postgresql.org/docs/16/runtime-config-locks.html";

/// PostgreSQL's time settings are 32-bit integers of milliseconds
/// (runtime-config-client.html); larger values fail the SET.
const MAX_MILLIS: u64 = i32::MAX as u64;

/// Options of the postgres entry that reach the session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionOptions {
    /// `deadlock_timeout` in milliseconds; `None` keeps the server's value.
    pub deadlock_timeout_ms: Option<u64>,
}

/// The statements a new session of `flavor` runs for the level and limits of
/// `request`, and the checks that they took effect (`Dialect::session_setup`).
pub fn setup(
    flavor: Flavor,
    request: &SessionRequest,
    options: SessionOptions,
) -> Result<SessionSetup, PluginError> {
    // A level the DBMS lacks is refused here too, so that an autocommit
    // transaction, which has no BEGIN, cannot claim it.
    check_level(flavor, request.isolation)?;
    let statement_ms = millis("statement_timeout_ms", request.limits.statement_timeout_ms)?;
    let lock_ms = millis("lock_wait_timeout_ms", request.limits.lock_wait_timeout_ms)?;
    let level = request.isolation.sql();
    let mut statements = vec![
        // The default for every later transaction, autocommit statements included;
        // BEGIN names the level as well (runtime-config-client.html,
        // default_transaction_isolation; CockroachDB: read-committed).
        format!("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}"),
        "SET default_transaction_read_only = off".to_string(),
        // runtime-config-client.html: statement_timeout aborts a statement that
        // runs longer (57014), lock_timeout one that waits longer for a lock (55P03).
        format!("SET statement_timeout = '{statement_ms}ms'"),
        format!("SET lock_timeout = '{lock_ms}ms'"),
        // A server configured to end idle transactions would end a transaction that
        // waits for its turn in the schedule.
        "SET idle_in_transaction_session_timeout = 0".to_string(),
        // Any value above 0 prints floats in their shortest exact form
        // (runtime-config-client.html, extra_float_digits).
        "SET extra_float_digits = 3".to_string(),
        "SET TIME ZONE 'UTC'".to_string(),
    ];
    let mut checks = vec![SessionCheck {
        sql: "SHOW default_transaction_isolation".to_string(),
        expect: level.to_lowercase(),
        explain: match (flavor, request.isolation) {
            (Flavor::Cockroach, IsolationLevel::ReadCommitted) => format!(
                "CockroachDB runs READ COMMITTED transactions as SERIALIZABLE unless the cluster setting \
                 sql.txn.read_committed_isolation.enabled is true (false by default before v24.1; newer \
                 versions may also require a license) ({CRDB_READ_COMMITTED_DOC}#enable-read-committed-isolation)"
            ),
            _ => format!(
                "{} did not take {level} as the session's isolation level",
                flavor.dbms()
            ),
        },
    }];
    match flavor {
        Flavor::Postgres => {
            // The literals rely on it: with it off, a backslash in a string
            // constant starts an escape
            // (https://www.postgresql.org/docs/16/runtime-config-compatible.html).
            statements.push("SET standard_conforming_strings = on".to_string());
            if let Some(ms) = options.deadlock_timeout_ms {
                let ms = millis("deadlock_timeout_ms", ms)?;
                statements.push(format!("SET deadlock_timeout = '{ms}ms'"));
                // pg_settings reports the value in its base unit, milliseconds.
                checks.push(SessionCheck {
                    sql: "SELECT setting FROM pg_settings WHERE name = 'deadlock_timeout'"
                        .to_string(),
                    expect: ms.to_string(),
                    explain: format!(
                        "deadlock_timeout did not become {ms} ms: only a superuser or a role granted \
                         SET on it (GRANT SET ON PARAMETER deadlock_timeout TO …) can change it \
                         ({PG_LOCKS_DOC}); remove deadlock_timeout_ms to keep the server's value"
                    ),
                });
            }
        }
        Flavor::Cockroach => {
            // CockroachDB cannot turn it off, so it is checked, not set
            // (session-variables).
            checks.push(SessionCheck {
                sql: "SHOW standard_conforming_strings".to_string(),
                expect: "on".to_string(),
                explain: format!(
                    "string literals would treat backslashes as escapes ({CRDB_SESSION_VARS_DOC})"
                ),
            });
            // The cleanup DELETE without WHERE must not be refused
            // (session-variables, sql_safe_updates).
            statements.push("SET sql_safe_updates = false".to_string());
        }
    }
    Ok(SessionSetup { statements, checks })
}

/// A limit that the server enforces, in the range its settings take; 0 would
/// switch it off (runtime-config-client.html: "A value of zero … turns this off").
fn millis(name: &str, value: u64) -> Result<u64, PluginError> {
    if value == 0 || value > MAX_MILLIS {
        return Err(PluginError::invalid_input(format!(
            "{name} = {value}: the server takes 1 to {MAX_MILLIS} ms, and 0 would switch the limit off \
             ({PG_CLIENT_DOC})"
        )));
    }
    Ok(value)
}
