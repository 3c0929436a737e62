//! The part of error classification every dialect shares.

use crate::ir::{DbError, ErrorClass, ErrorScope, RawDbError};

/// The [`DbError`] for `raw`, for [`Dialect::classify_error`](crate::sdk::Dialect::classify_error).
///
/// A connection the driver reports lost is lost whatever code the error
/// carries: the session is gone, and with it the transaction. Every other error
/// is the dialect's to judge: `by_code` gives the class and what the error
/// undid, from the driver's flags (a timeout's scope differs between DBMSs) and
/// the error code or SQLSTATE. The code, SQLSTATE and message are kept as the
/// driver reported them.
pub fn classify_with(
    raw: &RawDbError,
    by_code: impl FnOnce(&RawDbError) -> (ErrorClass, ErrorScope),
) -> DbError {
    let (class, scope) = if raw.connection_lost {
        (ErrorClass::ConnectionLost, ErrorScope::Connection)
    } else {
        by_code(raw)
    };
    DbError {
        class,
        scope,
        code: raw.code,
        sqlstate: raw.sqlstate.clone(),
        message: raw.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn as_deadlock(_: &RawDbError) -> (ErrorClass, ErrorScope) {
        (ErrorClass::Deadlock, ErrorScope::Transaction)
    }

    #[test]
    fn the_dialect_classifies_and_the_report_is_kept() {
        let raw = RawDbError {
            code: Some(1213),
            sqlstate: Some("40001".into()),
            message: "Deadlock found".into(),
            ..RawDbError::default()
        };
        let e = classify_with(&raw, as_deadlock);
        assert_eq!(
            (e.class, e.scope),
            (ErrorClass::Deadlock, ErrorScope::Transaction)
        );
        assert_eq!(e.code, Some(1213));
        assert_eq!(e.sqlstate.as_deref(), Some("40001"));
        assert_eq!(e.message, "Deadlock found");
    }

    #[test]
    fn a_lost_connection_wins_over_the_code() {
        let raw = RawDbError {
            code: Some(1213),
            connection_lost: true,
            ..RawDbError::default()
        };
        let e = classify_with(&raw, |_| {
            unreachable!("a lost connection is not judged by code")
        });
        assert_eq!(
            (e.class, e.scope),
            (ErrorClass::ConnectionLost, ErrorScope::Connection)
        );
        assert_eq!(e.code, Some(1213));
    }
}
