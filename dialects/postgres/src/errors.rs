//! Classification of SQLSTATEs
//! (https://www.postgresql.org/docs/16/errcodes-appendix.html; CockroachDB uses the
//! same codes: https://www.cockroachlabs.com/docs/v24.1/transaction-retry-error-reference).
//!
//! The scope is the same for every error that reaches the server: inside a
//! transaction block any error aborts the whole transaction and later statements
//! fail with 25P02 until ROLLBACK
//! (https://www.postgresql.org/docs/16/tutorial-transactions.html;
//! https://www.cockroachlabs.com/docs/v24.1/transactions#error-handling), and an
//! autocommit statement's own transaction is rolled back. Errors that end the
//! session have connection scope.

use txlab_plugin_api::prelude::*;

/// The same for both DBMSs: CockroachDB reports PostgreSQL's codes, and its retry
/// errors all carry 40001.
pub fn classify(raw: &RawDbError) -> DbError {
    sql::classify_with(raw, class_and_scope)
}

/// The class of an error and what it undid, from its SQLSTATE. A dialect with
/// codes of its own can match those first and pass the rest here, then build its
/// `DbError` with `sql::classify_with`.
pub fn class_and_scope(raw: &RawDbError) -> (ErrorClass, ErrorScope) {
    use ErrorClass::*;
    use ErrorScope::{Connection, Transaction};
    if raw.timed_out {
        // The driver gave up waiting; the server may still be running the
        // statement, and whatever it returns ends the transaction.
        return (StatementTimeout, Transaction);
    }
    let Some(state) = raw.sqlstate.as_deref() else {
        // Every error the server reports carries a SQLSTATE; without one the
        // driver failed to talk to the server (an I/O error, a broken stream), so
        // what the server did, a COMMIT included, is unknown.
        return (ConnectionLost, Connection);
    };
    let class = match state {
        // serialization_failure: first-updater-wins and SSI in PostgreSQL; every
        // retry error (RETRY_WRITE_TOO_OLD, RETRY_SERIALIZABLE, ABORT_REASON_*,
        // TransactionRetryWithProtoRefreshError) and deadlock victims in CockroachDB.
        "40001" => SerializationFailure,
        "40P01" => Deadlock,
        // transaction_integrity_constraint_violation: a deferred constraint at COMMIT.
        "40002" => Constraint,
        // statement_completion_unknown: CockroachDB's "result is ambiguous"; the
        // COMMIT may or may not have happened, as after a lost connection.
        "40003" => ConnectionLost,
        // lock_not_available: lock_timeout expired.
        "55P03" => LockWaitTimeout,
        // query_canceled: statement_timeout, or a cancel request.
        "57014" => StatementTimeout,
        // in_failed_sql_transaction: "current transaction is aborted, commands
        // ignored until end of transaction block".
        "25P02" => TransactionAborted,
        // idle_in_transaction_session_timeout, admin_shutdown, crash_shutdown,
        // cannot_connect_now, database_dropped, idle_session_timeout: the server
        // ends the session.
        "25P03" | "57P01" | "57P02" | "57P03" | "57P04" | "57P05" => {
            return (ConnectionLost, Connection)
        }
        // internal_error, data_corrupted, index_corrupted: a bug or damage in the
        // DBMS itself.
        "XX000" | "XX001" | "XX002" => Internal,
        // insufficient_privilege is an access rule, not a problem with the text.
        "42501" => Other,
        // feature_not_supported: the DBMS rejected what the SQL asks for.
        "0A000" => Syntax,
        _ => match state.get(..2).unwrap_or_default() {
            // connection_exception
            "08" => return (ConnectionLost, Connection),
            // integrity_constraint_violation: unique, not null, check, foreign key.
            "23" => Constraint,
            // data_exception, cardinality_violation.
            "22" | "21" => Data,
            // syntax_error_or_access_rule_violation: syntax, unknown names, types
            // that do not match.
            "42" => Syntax,
            _ => Other,
        },
    };
    (class, Transaction)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_state(state: &str, message: &str) -> (ErrorClass, ErrorScope) {
        let e = classify(&RawDbError {
            sqlstate: Some(state.into()),
            message: message.into(),
            in_transaction: Some(true),
            ..RawDbError::default()
        });
        assert_eq!(e.sqlstate.as_deref(), Some(state));
        assert_eq!(e.message, message);
        assert_eq!(e.code, None);
        (e.class, e.scope)
    }

    #[test]
    fn sqlstates_map_to_classes() {
        use ErrorClass::*;
        use ErrorScope::*;
        let table = [
            ("40001", SerializationFailure, Transaction),
            ("40P01", Deadlock, Transaction),
            ("40002", Constraint, Transaction),
            ("40003", ConnectionLost, Transaction),
            ("40000", Other, Transaction),
            ("55P03", LockWaitTimeout, Transaction),
            ("55000", Other, Transaction),
            ("57014", StatementTimeout, Transaction),
            ("25P02", TransactionAborted, Transaction),
            ("25006", Other, Transaction),
            ("25P03", ConnectionLost, Connection),
            ("57P01", ConnectionLost, Connection),
            ("57P02", ConnectionLost, Connection),
            ("57P03", ConnectionLost, Connection),
            ("57P04", ConnectionLost, Connection),
            ("57P05", ConnectionLost, Connection),
            ("57000", Other, Transaction),
            ("08000", ConnectionLost, Connection),
            ("08006", ConnectionLost, Connection),
            ("08P01", ConnectionLost, Connection),
            ("23505", Constraint, Transaction),
            ("23502", Constraint, Transaction),
            ("23514", Constraint, Transaction),
            ("23503", Constraint, Transaction),
            ("22003", Data, Transaction),
            ("22012", Data, Transaction),
            ("22P02", Data, Transaction),
            ("22001", Data, Transaction),
            ("21000", Data, Transaction),
            ("42601", Syntax, Transaction),
            ("42703", Syntax, Transaction),
            ("42P01", Syntax, Transaction),
            ("42883", Syntax, Transaction),
            ("42804", Syntax, Transaction),
            ("42501", Other, Transaction),
            ("0A000", Syntax, Transaction),
            ("XX000", Internal, Transaction),
            ("XX001", Internal, Transaction),
            ("XX002", Internal, Transaction),
            // CockroachDB's "uncategorized" code.
            ("XXUUU", Other, Transaction),
            ("53200", Other, Transaction),
            ("54001", Other, Transaction),
            ("P0001", Other, Transaction),
            ("", Other, Transaction),
        ];
        for (state, class, scope) in table {
            assert_eq!(classify_state(state, "m"), (class, scope), "{state}");
        }
    }

    /// The retry errors of CockroachDB's reference, as their messages read.
    #[test]
    fn cockroach_retry_errors_are_serialization_failures() {
        for message in [
            "restart transaction: TransactionRetryWithProtoRefreshError: TransactionRetryError: retry txn (RETRY_WRITE_TOO_OLD - WriteTooOld flag converted to WriteTooOldError)",
            "restart transaction: TransactionRetryWithProtoRefreshError: TransactionRetryError: retry txn (RETRY_SERIALIZABLE - failed preemptive refresh)",
            "restart transaction: TransactionRetryWithProtoRefreshError: WriteTooOldError: write at timestamp 1609143635.427526584,0 too old; wrote at 1609143665.238193548,3",
            "restart transaction: TransactionRetryWithProtoRefreshError: TransactionAbortedError(ABORT_REASON_ABORTED_RECORD_FOUND)",
            "restart transaction: TransactionRetryWithProtoRefreshError: TransactionAbortedError(ABORT_REASON_PUSHER_ABORTED)",
            "restart transaction: TransactionRetryWithProtoRefreshError: ReadWithinUncertaintyIntervalError",
        ] {
            assert_eq!(
                classify_state("40001", message),
                (ErrorClass::SerializationFailure, ErrorScope::Transaction),
                "{message}"
            );
        }
    }

    #[test]
    fn driver_flags_win_over_the_code() {
        let lost = classify(&RawDbError {
            sqlstate: Some("23505".into()),
            connection_lost: true,
            ..RawDbError::default()
        });
        assert_eq!(
            (lost.class, lost.scope),
            (ErrorClass::ConnectionLost, ErrorScope::Connection)
        );
        let timed_out = classify(&RawDbError {
            sqlstate: Some("23505".into()),
            timed_out: true,
            ..RawDbError::default()
        });
        assert_eq!(
            (timed_out.class, timed_out.scope),
            (ErrorClass::StatementTimeout, ErrorScope::Transaction)
        );
        // tokio-postgres reports a connection the server closed as
        // "error communicating with the server", without marking it closed.
        let without_code = classify(&RawDbError {
            message: "error communicating with the server: Connection reset by peer".into(),
            ..RawDbError::default()
        });
        assert_eq!(
            (without_code.class, without_code.scope),
            (ErrorClass::ConnectionLost, ErrorScope::Connection)
        );
    }

    /// An autocommit statement's error rolls back its own transaction, so leaving
    /// the transaction changes nothing.
    #[test]
    fn scope_does_not_depend_on_the_transaction_state() {
        for in_transaction in [None, Some(false), Some(true)] {
            let e = classify(&RawDbError {
                sqlstate: Some("23505".into()),
                in_transaction,
                ..RawDbError::default()
            });
            assert_eq!(
                (e.class, e.scope),
                (ErrorClass::Constraint, ErrorScope::Transaction)
            );
        }
    }
}
