//! Classification of MySQL error numbers, shared by the three flavors: each number
//! means the same on every server that raises it, and the TiDB-only numbers do not
//! occur elsewhere. Server errors: https://dev.mysql.com/doc/mysql-errors/8.0/en/server-error-reference.html;
//! client errors: https://dev.mysql.com/doc/mysql-errors/8.0/en/client-error-reference.html;
//! MariaDB's own: https://mariadb.com/docs/server/reference/error-codes;
//! TiDB's own: https://docs.pingcap.com/tidb/stable/error-codes.

use txlab_plugin_api::prelude::*;

// Concurrency control.
const ER_LOCK_DEADLOCK: i64 = 1213;
const ER_LOCK_WAIT_TIMEOUT: i64 = 1205;
const ER_CHECKREAD: i64 = 1020;
// Constraints.
const ER_DUP_ENTRY: i64 = 1062;
const ER_BAD_NULL_ERROR: i64 = 1048;
const ER_WARN_NULL_TO_NOTNULL: i64 = 1263;
const ER_NO_DEFAULT_FOR_FIELD: i64 = 1364;
const ER_ROW_IS_REFERENCED_2: i64 = 1451;
const ER_NO_REFERENCED_ROW_2: i64 = 1452;
const ER_CHECK_CONSTRAINT_VIOLATED: i64 = 3819;
/// MariaDB's CHECK constraint failure.
const ER_CONSTRAINT_FAILED: i64 = 4025;
// Data.
const ER_WARN_DATA_OUT_OF_RANGE: i64 = 1264;
const WARN_DATA_TRUNCATED: i64 = 1265;
const ER_TRUNCATED_WRONG_VALUE: i64 = 1292;
const ER_DIVISION_BY_ZERO: i64 = 1365;
const ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: i64 = 1366;
const ER_ILLEGAL_VALUE_FOR_TYPE: i64 = 1367;
const ER_DATA_TOO_LONG: i64 = 1406;
const ER_DATA_OUT_OF_RANGE: i64 = 1690;
/// "Subquery returns more than 1 row": a scalar subquery's data (IR 1.1).
const ER_SUBQUERY_NO_1_ROW: i64 = 1242;
// The statement text.
const ER_BAD_FIELD_ERROR: i64 = 1054;
const ER_NON_UNIQ_ERROR: i64 = 1052;
const ER_PARSE_ERROR: i64 = 1064;
const ER_NO_SUCH_TABLE: i64 = 1146;
const ER_SYNTAX_ERROR: i64 = 1149;
const ER_BLOB_KEY_WITHOUT_LENGTH: i64 = 1170;
const ER_NOT_SUPPORTED_YET: i64 = 1235;
/// "You can't specify target table … for update in FROM clause": an UPDATE or
/// DELETE whose subquery reads its own table (IR 1.1; the dialect refuses to
/// render one, this is for SQL from elsewhere).
const ER_UPDATE_TABLE_USED: i64 = 1093;
// Timeouts and interruptions.
const ER_QUERY_INTERRUPTED: i64 = 1317;
/// MySQL 5.7.4–5.7.7's name for the max_execution_time error.
const ER_QUERY_TIMEOUT_OLD: i64 = 1907;
/// MariaDB's max_statement_time.
const ER_STATEMENT_TIMEOUT: i64 = 1969;
/// MySQL's max_execution_time.
const ER_QUERY_TIMEOUT: i64 = 3024;
// The connection.
const ER_SERVER_SHUTDOWN: i64 = 1053;
/// MariaDB: the connection was killed.
const ER_CONNECTION_KILLED: i64 = 1927;
const CR_SERVER_GONE_ERROR: i64 = 2006;
const CR_SERVER_LOST: i64 = 2013;
const CR_SERVER_LOST_EXTENDED: i64 = 2055;
// Damaged storage.
const ER_NOT_KEYFILE: i64 = 1034;
const ER_INDEX_CORRUPT: i64 = 1712;
const ER_TABLE_CORRUPT: i64 = 1877;
// TiDB.
const TIDB_FOR_UPDATE_CANT_RETRY: i64 = 8002;
const TIDB_WRITE_CONFLICT_STALE: i64 = 8005;
const TIDB_TXN_RETRYABLE: i64 = 8022;
const TIDB_SCHEMA_CHANGED: i64 = 8028;
const TIDB_LAZY_CONSTRAINT_ABORT: i64 = 8147;
const TIDB_WRITE_CONFLICT: i64 = 9007;

/// A driver error as a [`DbError`]: the class and scope from
/// [`class_and_scope`], the driver's flags (a lost connection) applied by the SDK.
pub fn classify(raw: &RawDbError) -> DbError {
    sql::classify_with(raw, class_and_scope)
}

/// [`classify`] on a Galera cluster whose transactions run on different
/// nodes: error 1213 there is a certification conflict, the cluster's first
/// committer winning over this transaction at COMMIT (or as the brute-force
/// abort of a local transaction by a replicated one), not a lock cycle
/// (https://galeracluster.com/library/documentation/isolation-levels.html;
/// https://mariadb.com/docs/galera-cluster/galera-architecture/certification-based-replication).
/// It is a serialization failure of the whole transaction.
pub fn classify_on_galera(raw: &RawDbError) -> DbError {
    let mut e = classify(raw);
    if raw.code == Some(ER_LOCK_DEADLOCK) {
        e.class = ErrorClass::SerializationFailure;
        e.scope = ErrorScope::Transaction;
    }
    e
}

/// The class of an error and what it undid, from its MySQL error number. A
/// dialect with error numbers of its own can match those first and pass the rest
/// here, then build its `DbError` with `sql::classify_with`.
pub fn class_and_scope(raw: &RawDbError) -> (ErrorClass, ErrorScope) {
    use ErrorClass::*;
    use ErrorScope::{Connection, Statement, Transaction};
    if raw.timed_out {
        return (StatementTimeout, Statement);
    }
    let Some(code) = raw.code else {
        return (Other, Statement);
    };
    match code {
        // A deadlock rolls back the victim's whole transaction
        // (https://dev.mysql.com/doc/refman/8.0/en/innodb-error-handling.html); TiDB
        // terminates it too (https://docs.pingcap.com/tidb/stable/pessimistic-transaction).
        // Checked on MariaDB 10.11: @@in_transaction is 0 afterwards.
        ER_LOCK_DEADLOCK => (Deadlock, Transaction),
        // Only the waiting statement is rolled back unless the server runs with
        // innodb_rollback_on_timeout (innodb-error-handling.html), which the session
        // set-up checks. Checked on MariaDB 10.11.
        ER_LOCK_WAIT_TIMEOUT => (LockWaitTimeout, Statement),
        // MariaDB with innodb_snapshot_isolation: a lock on a row not in the read
        // view; "treated in the same way as a deadlock, and the transaction is
        // rolled back" (https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-system-variables#innodb_snapshot_isolation).
        // Checked on MariaDB 10.11: @@in_transaction is 0 afterwards.
        ER_CHECKREAD => (SerializationFailure, Transaction),
        // TiDB rolls the transaction back and it can be retried as a whole
        // (https://docs.pingcap.com/tidb/stable/error-codes): 8002 a SELECT FOR UPDATE
        // transaction that met a commit conflict, 8005 and 9007 write conflicts of
        // optimistic transactions, 8022 a failed commit.
        TIDB_FOR_UPDATE_CANT_RETRY
        | TIDB_WRITE_CONFLICT_STALE
        | TIDB_TXN_RETRYABLE
        | TIDB_WRITE_CONFLICT => (SerializationFailure, Transaction),
        // A table the transaction used changed its schema under it: without the
        // metadata lock the commit fails and rolls back; with it the statement fails
        // and the transaction must not go on with stale schema (error-codes page).
        // Cases run no DDL, so this means outside interference; ending the
        // transaction is the safe reading.
        TIDB_SCHEMA_CHANGED => (SerializationFailure, Transaction),
        // tidb_constraint_check_in_place_pessimistic = OFF: any error aborts the
        // current transaction (error-codes page).
        TIDB_LAZY_CONSTRAINT_ABORT => (Other, Transaction),
        // A duplicate key, NULL into NOT NULL or a missing value for it, a foreign
        // key or CHECK violation undo only the statement (innodb-error-handling.html).
        ER_DUP_ENTRY
        | ER_BAD_NULL_ERROR
        | ER_WARN_NULL_TO_NOTNULL
        | ER_NO_DEFAULT_FOR_FIELD
        | ER_ROW_IS_REFERENCED_2
        | ER_NO_REFERENCED_ROW_2
        | ER_CHECK_CONSTRAINT_VIOLATED
        | ER_CONSTRAINT_FAILED => (Constraint, Statement),
        // Values out of range, too long or not convertible, which strict sql_mode
        // turns from warnings into errors.
        ER_WARN_DATA_OUT_OF_RANGE
        | WARN_DATA_TRUNCATED
        | ER_TRUNCATED_WRONG_VALUE
        | ER_DIVISION_BY_ZERO
        | ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
        | ER_ILLEGAL_VALUE_FOR_TYPE
        | ER_DATA_TOO_LONG
        | ER_DATA_OUT_OF_RANGE
        | ER_SUBQUERY_NO_1_ROW => (Data, Statement),
        // The server rejected the SQL text or a name in it; 1235 is also TiDB's
        // answer to a clause it does not implement.
        ER_PARSE_ERROR
        | ER_BAD_FIELD_ERROR
        | ER_NON_UNIQ_ERROR
        | ER_NO_SUCH_TABLE
        | ER_SYNTAX_ERROR
        | ER_BLOB_KEY_WITHOUT_LENGTH
        | ER_NOT_SUPPORTED_YET
        | ER_UPDATE_TABLE_USED => (Syntax, Statement),
        // max_statement_time (MariaDB), max_execution_time (MySQL, TiDB) and KILL
        // QUERY stop the statement only; the transaction goes on
        // (https://mariadb.com/docs/server/ha-and-performance/optimization-and-tuning/query-optimizations/aborting-statements).
        ER_STATEMENT_TIMEOUT | ER_QUERY_TIMEOUT | ER_QUERY_TIMEOUT_OLD | ER_QUERY_INTERRUPTED => {
            (StatementTimeout, Statement)
        }
        ER_SERVER_SHUTDOWN
        | ER_CONNECTION_KILLED
        | CR_SERVER_GONE_ERROR
        | CR_SERVER_LOST
        | CR_SERVER_LOST_EXTENDED => (ConnectionLost, Connection),
        // The server found its own table or index damaged; nothing the transaction
        // did can be trusted any more.
        ER_NOT_KEYFILE | ER_INDEX_CORRUPT | ER_TABLE_CORRUPT => (Internal, Transaction),
        // 1105 (ER_UNKNOWN_ERROR) is not a sign of a broken server: TiDB uses it for
        // many ordinary failures, unsupported features and errors passed on from TiKV
        // among them (https://docs.pingcap.com/tidb/stable/error-codes), and calling
        // those internal errors would report them as bugs. It stays Other, like every
        // number not listed.
        _ => (Other, Statement),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ErrorClass::*;
    use ErrorScope::*;

    fn classify_code(code: i64) -> (ErrorClass, ErrorScope) {
        let e = classify(&RawDbError {
            code: Some(code),
            sqlstate: Some("HY000".into()),
            message: format!("code {code}"),
            in_transaction: Some(true),
            ..RawDbError::default()
        });
        assert_eq!(e.code, Some(code));
        assert_eq!(e.sqlstate.as_deref(), Some("HY000"));
        assert_eq!(e.message, format!("code {code}"));
        (e.class, e.scope)
    }

    #[test]
    fn error_numbers_map_to_classes() {
        let table = [
            (1213, Deadlock, Transaction),
            (1205, LockWaitTimeout, Statement),
            (1020, SerializationFailure, Transaction),
            (8002, SerializationFailure, Transaction),
            (8005, SerializationFailure, Transaction),
            (8022, SerializationFailure, Transaction),
            (8028, SerializationFailure, Transaction),
            (9007, SerializationFailure, Transaction),
            (8147, Other, Transaction),
            (1062, Constraint, Statement),
            (1048, Constraint, Statement),
            (1263, Constraint, Statement),
            (1364, Constraint, Statement),
            (1451, Constraint, Statement),
            (1452, Constraint, Statement),
            (3819, Constraint, Statement),
            (4025, Constraint, Statement),
            (1264, Data, Statement),
            (1265, Data, Statement),
            (1292, Data, Statement),
            (1365, Data, Statement),
            (1366, Data, Statement),
            (1367, Data, Statement),
            (1406, Data, Statement),
            (1690, Data, Statement),
            (1242, Data, Statement),
            (1064, Syntax, Statement),
            (1054, Syntax, Statement),
            (1052, Syntax, Statement),
            (1146, Syntax, Statement),
            (1149, Syntax, Statement),
            (1170, Syntax, Statement),
            (1235, Syntax, Statement),
            (1093, Syntax, Statement),
            (1969, StatementTimeout, Statement),
            (3024, StatementTimeout, Statement),
            (1907, StatementTimeout, Statement),
            (1317, StatementTimeout, Statement),
            (1053, ConnectionLost, Connection),
            (1927, ConnectionLost, Connection),
            (2006, ConnectionLost, Connection),
            (2013, ConnectionLost, Connection),
            (2055, ConnectionLost, Connection),
            (1034, Internal, Transaction),
            (1712, Internal, Transaction),
            (1877, Internal, Transaction),
            // ER_UNKNOWN_ERROR, ER_OUTOFMEMORY, ER_RECORD_FILE_FULL, ER_LOCK_NOWAIT
            (1105, Other, Statement),
            (1037, Other, Statement),
            (1114, Other, Statement),
            (3572, Other, Statement),
        ];
        for (code, class, scope) in table {
            assert_eq!(classify_code(code), (class, scope), "code {code}");
        }
    }

    #[test]
    fn driver_flags_win_over_the_code() {
        let lost = classify(&RawDbError {
            code: Some(ER_DUP_ENTRY),
            connection_lost: true,
            ..RawDbError::default()
        });
        assert_eq!((lost.class, lost.scope), (ConnectionLost, Connection));
        let timed_out = classify(&RawDbError {
            code: Some(ER_LOCK_DEADLOCK),
            timed_out: true,
            ..RawDbError::default()
        });
        assert_eq!(
            (timed_out.class, timed_out.scope),
            (StatementTimeout, Statement)
        );
    }

    #[test]
    fn missing_code_is_other() {
        let e = classify(&RawDbError {
            message: "no code".into(),
            ..RawDbError::default()
        });
        assert_eq!((e.class, e.scope), (Other, Statement));
        assert_eq!(e.code, None);
    }

    #[test]
    fn leaving_the_transaction_does_not_change_the_scope() {
        let e = classify(&RawDbError {
            code: Some(ER_DUP_ENTRY),
            in_transaction: Some(false),
            ..RawDbError::default()
        });
        assert_eq!((e.class, e.scope), (Constraint, Statement));
    }
}
