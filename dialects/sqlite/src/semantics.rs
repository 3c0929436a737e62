//! What SQLite offers and what its one isolation level means, with the vendor pages
//! each fact comes from.

use txlab_plugin_api::prelude::*;

/// The registry name of the `sqlite` dialect, also `DialectInfo::name`.
pub const NAME: &str = "sqlite";

const ISOLATION_DOC: &str = "https://www.sqlite.org/isolation.html";
const WAL_DOC: &str = "https://www.sqlite.org/wal.html";
const TRANSACTION_DOC: &str = "https://www.sqlite.org/lang_transaction.html";
const BUSY_SNAPSHOT_DOC: &str = "https://www.sqlite.org/rescode.html#busy_snapshot";
const CONFLICT_DOC: &str = "https://www.sqlite.org/lang_conflict.html";

/// What SQLite offers: its one isolation level with its semantics, its features
/// and its lock probe (`Dialect::info`).
pub fn info() -> DialectInfo {
    DialectInfo {
        name: NAME.to_string(),
        driver: "sqlite".to_string(),
        levels: vec![serializable()],
        features: features(),
        // The host's driver runs with busy_timeout = 0 and retries SQLITE_BUSY itself,
        // so it knows when a statement waits for the write lock.
        lock_probe: LockProbe::Driver,
        session_control: SessionControl::default(),
        engine: engine(),
        server_query: None,
        server: None,
    }
}

/// How SQLite executes statements where vendors differ.
pub fn engine() -> EngineSemantics {
    EngineSemantics {
        // rescode.html#busy_snapshot: a transaction writes only while its
        // snapshot is the latest version of the database, so no commit is newer
        // than the rows its UPDATE matched; the row as it wrote it is what its
        // later reads see.
        same_value_update: SameValueUpdate::NewVersion,
        // lang_conflict.html: REPLACE "deletes pre-existing rows that are
        // causing the constraint violation prior to inserting the current row".
        replace_may_update_in_place: false,
        // SQLite has no locking reads and no row locks: one writer at a time
        // locks the whole database (isolation.html).
        shared_reads_may_lock_only_a_covering_index: false,
        // lang_transaction.html: a first SELECT after BEGIN DEFERRED starts
        // the read transaction, whatever it reads.
        first_read_snapshot_needs_table_access: false,
        // isolation.html: changes are invisible to other connections until
        // they commit; the level offered has no dirty reads.
        dirty_reads_see_partial_writes: false,
        // Not documented either way: the cautious default.
        unique_checked_per_row: true,
        // lang_conflict.html, ABORT (the default): the statement's changes are
        // backed out, "changes caused by prior SQL statements within the same
        // transaction are preserved and the transaction remains active".
        failed_statement_keeps_transaction: true,
        notes: vec![
            format!("A transaction writes only while its snapshot is the latest ({BUSY_SNAPSHOT_DOC}), so its reads see every row it updated as it wrote it."),
            format!("REPLACE deletes the rows that collide and then inserts the new row ({CONFLICT_DOC})."),
            format!("A statement that violates a constraint is backed out alone and its transaction remains active (ABORT, the default conflict resolution; {CONFLICT_DOC})."),
            format!("The first SELECT after BEGIN starts the read transaction, whatever it reads ({TRANSACTION_DOC}); no connection sees another's uncommitted changes ({ISOLATION_DOC})."),
        ],
    }
}

/// Fails for every level SQLite does not offer, naming it.
pub fn check_level(level: IsolationLevel) -> Result<(), PluginError> {
    if info().supports(level) {
        Ok(())
    } else {
        Err(PluginError::unsupported(format!(
            "SQLite offers only serializable transactions, not {level}"
        )))
    }
}

fn serializable() -> LevelSemantics {
    LevelSemantics {
        level: IsolationLevel::Serializable,
        // lang_transaction.html: BEGIN DEFERRED starts no transaction on the database
        // file; the first SELECT starts a read transaction. wal.html: a reader sees the
        // database as of the start of its read transaction.
        snapshot: SnapshotPoint::FirstRead,
        // rescode.html#busy_snapshot: a connection whose read snapshot is not the
        // latest version of the database cannot start a write transaction, so every
        // write reads the latest snapshot or fails.
        write_reads: WriteReads::Snapshot,
        // wal.html: "there can only be one writer at a time"; rescode.html#busy_snapshot:
        // a stale reader's write fails with SQLITE_BUSY_SNAPSHOT.
        write_conflict: WriteConflict::SingleWriter,
        // isolation.html: SQLite "implements serializable transactions by actually
        // serializing the writes"; a writer holds the whole database, so it never
        // meets a row locked by someone else and has nothing to skip.
        semi_consistent_writes: false,
        // isolation.html: one writer at a time for the whole database, so any
        // concurrent write, an insert into a scanned range included, conflicts.
        predicate_conflicts: true,
        // A writer holds the database-wide write lock until it commits, and must
        // hold the latest snapshot to write at all: writes serialize in commit order.
        serial_order: SerialOrder::CommitOrder,
        // isolation.html: "SQLite implements serializable transactions".
        serializable: true,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![
            format!("Transactions are serializable; writes are serialized, one writer at a time ({ISOLATION_DOC})."),
            format!("BEGIN is DEFERRED: nothing starts until the database is first accessed; a first SELECT starts a read transaction (and its snapshot), a first write a write transaction, and a later write upgrades a read transaction or fails with SQLITE_BUSY ({TRANSACTION_DOC})."),
            format!("In WAL mode a read transaction sees the database as of its start, and readers and the one writer do not block each other ({WAL_DOC})."),
            format!("A transaction whose snapshot is older than the latest commit cannot write: its write fails with SQLITE_BUSY_SNAPSHOT and it must roll back ({BUSY_SNAPSHOT_DOC})."),
            "The host's driver runs SQLite in WAL mode with busy_timeout = 0 and retries SQLITE_BUSY, so a write that waits for the write lock is a blocked statement.".to_string(),
        ],
        references: vec![
            ISOLATION_DOC.to_string(),
            WAL_DOC.to_string(),
            TRANSACTION_DOC.to_string(),
            BUSY_SNAPSHOT_DOC.to_string(),
        ],
    }
}

/// The statements and column types SQLite supports.
pub fn features() -> Features {
    Features {
        // https://www.sqlite.org/lang_select.html has no locking clause.
        select_for_update: false,
        select_for_share: false,
        // https://www.sqlite.org/lang_conflict.html: REPLACE deletes the rows that
        // cause a PRIMARY KEY or UNIQUE violation, then inserts the new row.
        replace: true,
        // lang_conflict.html: IGNORE skips the row that violates a constraint.
        insert_ignore: true,
        snapshot_begin_levels: Vec::new(),
        // SQLite keeps NUMERIC values as INTEGER or REAL
        // (https://www.sqlite.org/datatype3.html), so precision beyond 15
        // significant digits is lost; 10 digits stay exact. It does not enforce
        // a VARCHAR's length (datatype3.html); any length renders.
        column_types: sql::COLUMN_TYPES
            .into_iter()
            .filter(|ty| !matches!(ty, ColumnType::Decimal { precision, .. } if *precision > 15))
            .collect(),
    }
}
