//! Classification of SQLite result codes (https://www.sqlite.org/rescode.html).
//!
//! The host's driver reports the extended result code; its low byte is the primary
//! code.

use txlab_plugin_api::prelude::*;

const SQLITE_ERROR: i64 = 1;
const SQLITE_INTERNAL: i64 = 2;
const SQLITE_BUSY: i64 = 5;
const SQLITE_LOCKED: i64 = 6;
const SQLITE_INTERRUPT: i64 = 9;
const SQLITE_CORRUPT: i64 = 11;
const SQLITE_TOOBIG: i64 = 18;
const SQLITE_CONSTRAINT: i64 = 19;
const SQLITE_MISMATCH: i64 = 20;
const SQLITE_RANGE: i64 = 25;
const SQLITE_NOTADB: i64 = 26;
const SQLITE_BUSY_SNAPSHOT: i64 = SQLITE_BUSY | (2 << 8);

/// A driver error as a [`DbError`]: the class and scope from
/// [`class_and_scope`], the driver's flags applied by the SDK.
pub fn classify(raw: &RawDbError) -> DbError {
    sql::classify_with(raw, class_and_scope)
}

/// The class of an error and what it undid, from its (extended) result code.
pub fn class_and_scope(raw: &RawDbError) -> (ErrorClass, ErrorScope) {
    use ErrorClass::*;
    use ErrorScope::{Statement, Transaction};
    if raw.timed_out {
        return (StatementTimeout, Statement);
    }
    let Some(code) = raw.code else {
        return (Other, Statement);
    };
    if code == SQLITE_BUSY_SNAPSHOT {
        // rescode.html#busy_snapshot: the snapshot is stale, so the transaction can
        // never write; only a rollback and a fresh transaction get past it.
        return (SerializationFailure, Transaction);
    }
    match code & 0xff {
        // Another connection holds the write lock; the host already retried.
        SQLITE_BUSY => (LockWaitTimeout, Statement),
        // A conflict inside this process (shared cache or the same connection).
        SQLITE_LOCKED => (LockWaitTimeout, Statement),
        // The default conflict algorithm ABORT undoes only the failing statement
        // (https://www.sqlite.org/lang_conflict.html).
        SQLITE_CONSTRAINT => (Constraint, Statement),
        SQLITE_INTERRUPT => (StatementTimeout, Statement),
        SQLITE_MISMATCH | SQLITE_TOOBIG | SQLITE_RANGE => (Data, Statement),
        // SQLite's generic code: syntax errors, unknown tables and columns.
        SQLITE_ERROR => (Syntax, Statement),
        // The database file or the library is broken; nothing the transaction did
        // can be trusted any more.
        SQLITE_INTERNAL | SQLITE_CORRUPT | SQLITE_NOTADB => (Internal, Transaction),
        _ => (Other, Statement),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_code(code: i64) -> (ErrorClass, ErrorScope) {
        let e = classify(&RawDbError {
            code: Some(code),
            message: format!("code {code}"),
            in_transaction: Some(true),
            ..RawDbError::default()
        });
        assert_eq!(e.code, Some(code));
        assert_eq!(e.message, format!("code {code}"));
        (e.class, e.scope)
    }

    #[test]
    fn result_codes_map_to_classes() {
        use ErrorClass::*;
        use ErrorScope::*;
        let table = [
            (517, SerializationFailure, Transaction),
            (5, LockWaitTimeout, Statement),
            // SQLITE_BUSY_RECOVERY and SQLITE_BUSY_TIMEOUT
            (261, LockWaitTimeout, Statement),
            (773, LockWaitTimeout, Statement),
            (6, LockWaitTimeout, Statement),
            // SQLITE_LOCKED_SHAREDCACHE
            (262, LockWaitTimeout, Statement),
            (19, Constraint, Statement),
            (1555, Constraint, Statement),
            (2067, Constraint, Statement),
            (1299, Constraint, Statement),
            (275, Constraint, Statement),
            (787, Constraint, Statement),
            (9, StatementTimeout, Statement),
            (20, Data, Statement),
            (18, Data, Statement),
            (25, Data, Statement),
            (1, Syntax, Statement),
            (2, Internal, Transaction),
            (11, Internal, Transaction),
            // SQLITE_CORRUPT_INDEX
            (779, Internal, Transaction),
            (26, Internal, Transaction),
            // SQLITE_FULL, SQLITE_IOERR_READ, SQLITE_READONLY, SQLITE_ABORT_ROLLBACK
            (13, Other, Statement),
            (266, Other, Statement),
            (8, Other, Statement),
            (516, Other, Statement),
        ];
        for (code, class, scope) in table {
            assert_eq!(classify_code(code), (class, scope), "code {code}");
        }
    }

    #[test]
    fn driver_flags_win_over_the_code() {
        let timed_out = classify(&RawDbError {
            code: Some(SQLITE_BUSY),
            timed_out: true,
            ..RawDbError::default()
        });
        assert_eq!(timed_out.class, ErrorClass::StatementTimeout);
        assert_eq!(timed_out.scope, ErrorScope::Statement);
        let lost = classify(&RawDbError {
            code: Some(SQLITE_CONSTRAINT),
            connection_lost: true,
            ..RawDbError::default()
        });
        assert_eq!(lost.class, ErrorClass::ConnectionLost);
        assert_eq!(lost.scope, ErrorScope::Connection);
    }

    #[test]
    fn missing_code_is_other() {
        let e = classify(&RawDbError {
            message: "no code".into(),
            ..RawDbError::default()
        });
        assert_eq!(
            (e.class, e.scope),
            (ErrorClass::Other, ErrorScope::Statement)
        );
    }

    #[test]
    fn leaving_the_transaction_does_not_change_the_scope() {
        let e = classify(&RawDbError {
            code: Some(2067),
            in_transaction: Some(false),
            ..RawDbError::default()
        });
        assert_eq!(
            (e.class, e.scope),
            (ErrorClass::Constraint, ErrorScope::Statement)
        );
    }
}
