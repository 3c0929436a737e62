//! What PostgreSQL and CockroachDB offer and what each isolation level means there,
//! with the vendor pages every fact comes from. Facts marked "measured" are also
//! checked against PostgreSQL 15 by this crate's live tests (tests/semantics.rs,
//! tests/classify.rs).

use crate::flavor::Flavor;
use txlab_plugin_api::prelude::*;

// PostgreSQL manual, version 16 (the pages are the same for 15 and 17 in every fact
// used here).
/// PostgreSQL: transaction isolation.
pub const PG_ISOLATION_DOC: &str = "https://www.postgresql.org/docs/16/transaction-iso.html";
/// PostgreSQL: data consistency checks at the application level (13.4).
pub const PG_CONSISTENCY_DOC: &str = "https://www.postgresql.org/docs/16/applevel-consistency.html";
/// PostgreSQL: explicit locking (row-level and table-level locks).
pub const PG_LOCKING_DOC: &str = "https://www.postgresql.org/docs/16/explicit-locking.html";
/// PostgreSQL: the locking clause of SELECT.
pub const PG_SELECT_LOCKING_DOC: &str =
    "https://www.postgresql.org/docs/16/sql-select.html#SQL-FOR-UPDATE-SHARE";
/// PostgreSQL: INSERT … ON CONFLICT.
pub const PG_INSERT_DOC: &str =
    "https://www.postgresql.org/docs/16/sql-insert.html#SQL-ON-CONFLICT";
/// PostgreSQL: the tutorial on transactions (errors abort the transaction).
pub const PG_TRANSACTIONS_TUTORIAL: &str =
    "https://www.postgresql.org/docs/16/tutorial-transactions.html";
/// PostgreSQL: CREATE TABLE (non-deferrable unique constraints are checked
/// row by row, Compatibility).
pub const PG_CREATE_TABLE_DOC: &str = "https://www.postgresql.org/docs/16/sql-createtable.html";
/// PostgreSQL: trigger functions (`suppress_redundant_updates_trigger`: a
/// same-value UPDATE makes a new row version unless suppressed).
pub const PG_TRIGGER_FUNCTIONS_DOC: &str =
    "https://www.postgresql.org/docs/16/functions-trigger.html";

// CockroachDB documentation, version 24.1 (23.2 where the two differ).
/// CockroachDB: transactions.
pub const CRDB_TRANSACTIONS_DOC: &str = "https://www.cockroachlabs.com/docs/v24.1/transactions";
/// CockroachDB: the transaction layer of its architecture.
pub const CRDB_TXN_LAYER_DOC: &str =
    "https://www.cockroachlabs.com/docs/v24.1/architecture/transaction-layer";
/// CockroachDB: READ COMMITTED.
pub const CRDB_READ_COMMITTED_DOC: &str = "https://www.cockroachlabs.com/docs/v24.1/read-committed";
/// CockroachDB: the transaction retry errors.
pub const CRDB_RETRY_ERRORS_DOC: &str =
    "https://www.cockroachlabs.com/docs/v24.1/transaction-retry-error-reference";
/// CockroachDB: SELECT FOR UPDATE and FOR SHARE.
pub const CRDB_SELECT_FOR_UPDATE_DOC: &str =
    "https://www.cockroachlabs.com/docs/v24.1/select-for-update";
/// CockroachDB: session variables.
pub const CRDB_SESSION_VARS_DOC: &str =
    "https://www.cockroachlabs.com/docs/v24.1/session-variables";
/// Hermitage's published CockroachDB run: observed behaviour, not vendor text.
pub const CRDB_HERMITAGE: &str = "https://github.com/ept/hermitage/blob/master/cockroachdb.md";

/// What `flavor` offers: its isolation levels with their semantics, its features,
/// its lock probe and session control (`Dialect::info`).
pub fn info(flavor: Flavor) -> DialectInfo {
    DialectInfo {
        name: flavor.entry_name().to_string(),
        // Both speak the PostgreSQL wire protocol.
        driver: "postgres".to_string(),
        levels: levels(flavor),
        features: features(flavor),
        lock_probe: lock_probe(flavor),
        session_control: session_control(flavor),
        engine: engine(flavor),
        server_query: match flavor {
            Flavor::Postgres => Some(SERVER_QUERY.to_string()),
            Flavor::Cockroach => None,
        },
        server: None,
    }
}

/// The server settings reports name, read once before the first case
/// (`DialectInfo::server_query`); none of the declared facts depends on them
/// from PostgreSQL 15 to 18 (https://www.postgresql.org/docs/current/view-pg-settings.html).
pub const SERVER_QUERY: &str = "SELECT name, setting FROM pg_settings WHERE name IN \
     ('default_transaction_isolation', 'deadlock_timeout', 'server_version_num')";

/// How PostgreSQL and CockroachDB execute statements where vendors differ
/// (every level).
pub fn engine(flavor: Flavor) -> EngineSemantics {
    match flavor {
        Flavor::Postgres => EngineSemantics {
            // functions-trigger.html (suppress_redundant_updates_trigger): "the
            // normal behavior which always performs the update regardless of
            // whether or not the data has changed": a new row version.
            same_value_update: SameValueUpdate::NewVersion,
            // PostgreSQL has no REPLACE (features.replace is false).
            replace_may_update_in_place: false,
            // sql-select.html, The Locking Clause: FOR SHARE locks each retrieved
            // row, and explicit-locking.html 13.3.2: it blocks UPDATE, DELETE and
            // FOR UPDATE of those rows, whatever index found them.
            shared_reads_may_lock_only_a_covering_index: false,
            // transaction-iso.html 13.2.2: the snapshot is taken at the first
            // non-transaction-control statement, whatever it reads; no level
            // takes it at the first read.
            first_read_snapshot_needs_table_access: false,
            // transaction-iso.html table 13.1: dirty reads are not possible in
            // PostgreSQL at any level.
            dirty_reads_see_partial_writes: false,
            // sql-createtable.html, Compatibility: "When a UNIQUE or PRIMARY
            // KEY constraint is not deferrable, PostgreSQL checks for
            // uniqueness immediately whenever a row is inserted or modified."
            unique_checked_per_row: true,
            // tutorial-transactions: any error inside a transaction block
            // aborts it; later statements fail until ROLLBACK.
            failed_statement_keeps_transaction: false,
            notes: vec![
                format!("A UNIQUE or PRIMARY KEY constraint that is not deferrable is checked whenever a row is inserted or modified, not at the statement's end as the standard says ({PG_CREATE_TABLE_DOC}, Compatibility)."),
                format!("An UPDATE writes a new row version even when no value changes ({PG_TRIGGER_FUNCTIONS_DOC}, suppress_redundant_updates_trigger)."),
                format!("FOR SHARE locks every row it returns, so UPDATE, DELETE and FOR UPDATE of those rows wait for it ({PG_SELECT_LOCKING_DOC}; {PG_LOCKING_DOC}, 13.3.2)."),
                format!("Snapshots are taken per statement or at the first statement after BEGIN, whatever it reads, and no read sees uncommitted data ({PG_ISOLATION_DOC})."),
            ],
        },
        Flavor::Cockroach => EngineSemantics {
            // The cautious default: the documentation does not say whether an
            // UPDATE that changes no value writes a new version.
            same_value_update: SameValueUpdate::Unknown,
            // CockroachDB has no REPLACE (features.replace is false).
            replace_may_update_in_place: false,
            // FOR SHARE is not offered to generators (features.select_for_share
            // is false); the cautious default stands.
            shared_reads_may_lock_only_a_covering_index: true,
            // transaction-layer: the snapshot is the transaction's timestamp,
            // taken when it starts (SERIALIZABLE), or per statement (READ
            // COMMITTED); no level takes it at the first read.
            first_read_snapshot_needs_table_access: false,
            // read-committed: statements see data committed before they began;
            // there is no READ UNCOMMITTED level.
            dirty_reads_see_partial_writes: false,
            // Not documented: the cautious default.
            unique_checked_per_row: true,
            // tutorial-transactions: any error inside a transaction block
            // aborts it; later statements fail until ROLLBACK.
            failed_statement_keeps_transaction: false,
            notes: vec![
                format!("Snapshots are taken when the transaction starts (SERIALIZABLE) or per statement (READ COMMITTED), and no read sees uncommitted data ({CRDB_TXN_LAYER_DOC}#reading; {CRDB_READ_COMMITTED_DOC})."),
            ],
        },
    }
}

/// PostgreSQL sessions are named by backend pid, the host driver's default.
/// CockroachDB has no backend pids: its sessions are named by the hex id of
/// `SHOW session_id`, and a statement is cancelled by query id
/// (https://www.cockroachlabs.com/docs/v24.1/cancel-query,
/// https://www.cockroachlabs.com/docs/v24.1/show-statements).
pub fn session_control(flavor: Flavor) -> SessionControl {
    match flavor {
        Flavor::Postgres => SessionControl::default(),
        Flavor::Cockroach => SessionControl {
            id_query: Some("SHOW session_id".to_string()),
            cancel: Some(
                "CANCEL QUERIES IF EXISTS (SELECT query_id FROM [SHOW CLUSTER STATEMENTS] \
                 WHERE session_id = '{session}')"
                    .to_string(),
            ),
        },
    }
}

/// The isolation levels `flavor` offers and what each one means there.
pub fn levels(flavor: Flavor) -> Vec<LevelSemantics> {
    match flavor {
        Flavor::Postgres => vec![
            pg_read_uncommitted(),
            pg_read_committed(),
            pg_repeatable_read(),
            pg_serializable(),
        ],
        Flavor::Cockroach => vec![crdb_read_committed(), crdb_serializable()],
    }
}

/// Fails for every level the DBMS does not offer, naming it.
pub fn check_level(flavor: Flavor, level: IsolationLevel) -> Result<(), PluginError> {
    if levels(flavor).iter().any(|l| l.level == level) {
        return Ok(());
    }
    let why = match (flavor, level) {
        (Flavor::Postgres, IsolationLevel::Snapshot) => {
            "PostgreSQL has no SNAPSHOT level; its REPEATABLE READ is snapshot isolation"
        }
        (Flavor::Cockroach, IsolationLevel::ReadUncommitted) => {
            "CockroachDB runs READ UNCOMMITTED as READ COMMITTED or SERIALIZABLE; request one of those"
        }
        (Flavor::Cockroach, _) => {
            "CockroachDB offers SERIALIZABLE and READ COMMITTED; its REPEATABLE READ (snapshot) level is a preview behind a cluster setting and is not described here"
        }
        (Flavor::Postgres, _) => "PostgreSQL does not offer it",
    };
    Err(PluginError::unsupported(format!(
        "the {} dialect cannot run transactions at {level}: {why}",
        flavor.entry_name()
    )))
}

/// Said at every PostgreSQL level: an error ends the transaction.
fn pg_error_note() -> String {
    format!("Any error inside a transaction block aborts the whole transaction: later statements fail with 25P02 until ROLLBACK, and COMMIT then rolls back ({PG_TRANSACTIONS_TUTORIAL}); measured.")
}

fn crdb_error_note() -> String {
    format!("Any SQL error aborts the transaction: COMMIT or ROLLBACK then reverts everything it did ({CRDB_TRANSACTIONS_DOC}#error-handling).")
}

/// PostgreSQL accepts READ UNCOMMITTED and runs it as READ COMMITTED. It is offered
/// because its documented equivalence to read committed is itself a claim a run can
/// check: every fact below is the read committed one, so a dirty read would show up
/// as a violation.
fn pg_read_uncommitted() -> LevelSemantics {
    let mut rc = pg_read_committed();
    rc.level = IsolationLevel::ReadUncommitted;
    rc.notes.insert(
        0,
        format!("PostgreSQL's Read Uncommitted mode behaves like Read Committed: dirty reads never happen, and everything below is the read committed behaviour ({PG_ISOLATION_DOC}); measured."),
    );
    rc
}

fn pg_read_committed() -> LevelSemantics {
    LevelSemantics {
        level: IsolationLevel::ReadCommitted,
        // transaction-iso.html 13.2.1: a SELECT "sees a snapshot of the database as
        // of the instant the query begins to run".
        snapshot: SnapshotPoint::PerStatement,
        // 13.2.1: UPDATE, DELETE and SELECT FOR UPDATE/SHARE find rows committed as
        // of the command start, wait for a concurrent updater, and then re-evaluate
        // the WHERE clause on "the updated version of the row" (EvalPlanQual).
        write_reads: WriteReads::LatestCommitted,
        // 13.2.1: "the second updater can proceed with updating the originally found
        // row" after a rollback, or applies its operation to the updated version
        // after a commit.
        write_conflict: WriteConflict::BlockThenProceed,
        // 13.2.1: a row locked by another transaction is waited for, never skipped.
        semi_consistent_writes: false,
        // explicit-locking.html 13.3.2: row-level locks only; there are no range or
        // predicate locks outside SERIALIZABLE.
        predicate_conflicts: false,
        // Row locks are held until the transaction ends (13.3.2), so conflicting
        // writes apply in commit order.
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        // 13.2.1: rows come from the command's snapshot; a row a concurrent
        // transaction updated is re-checked on its updated version.
        after_wait: AfterWait::RecheckChanged,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![
            format!("Each statement sees a snapshot taken when it starts ({PG_ISOLATION_DOC}, 13.2.1); measured."),
            format!("UPDATE, DELETE and SELECT FOR UPDATE/SHARE ({PG_SELECT_LOCKING_DOC}) find target rows in the statement's snapshot; a row changed by a concurrent transaction is waited for, then its WHERE clause is re-evaluated on the latest committed version and the statement proceeds with that version ({PG_ISOLATION_DOC}, 13.2.1); measured."),
            format!("Writers hold row locks until the transaction ends and take no predicate or range locks, so an INSERT into a range another transaction's UPDATE scanned does not conflict with it ({PG_LOCKING_DOC}, 13.3.2)."),
            format!("INSERT … ON CONFLICT DO NOTHING may skip a row because of a concurrent insert that its snapshot does not show ({PG_ISOLATION_DOC}, 13.2.1; {PG_INSERT_DOC})."),
            "PostgreSQL 15 shows lost updates (P4), read skew (G-single) and write skew (G2-item, G2) at this level in the Hermitage schedules (measured for this project).".to_string(),
            pg_error_note(),
        ],
        references: vec![
            PG_ISOLATION_DOC.to_string(),
            PG_LOCKING_DOC.to_string(),
            PG_SELECT_LOCKING_DOC.to_string(),
            PG_INSERT_DOC.to_string(),
            PG_TRANSACTIONS_TUTORIAL.to_string(),
        ],
    }
}

fn pg_repeatable_read() -> LevelSemantics {
    LevelSemantics {
        level: IsolationLevel::RepeatableRead,
        // transaction-iso.html 13.2.2: "a snapshot as of the start of the first
        // non-transaction-control statement in the transaction".
        snapshot: SnapshotPoint::FirstStatement,
        // 13.2.2: UPDATE, DELETE and SELECT FOR UPDATE/SHARE "only find target rows
        // that were committed as of the transaction start time".
        write_reads: WriteReads::Snapshot,
        // 13.2.2: the second writer waits; if the first commits "the repeatable read
        // transaction will be rolled back with the message ERROR: could not
        // serialize access due to concurrent update".
        write_conflict: WriteConflict::BlockThenAbort,
        semi_consistent_writes: false,
        // explicit-locking.html 13.3.2: row-level locks only.
        predicate_conflicts: false,
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![
            format!("Snapshot isolation: the snapshot is taken at the first statement after BEGIN, not at BEGIN ({PG_ISOLATION_DOC}, 13.2.2); measured."),
            format!("UPDATE, DELETE and SELECT FOR UPDATE/SHARE see the transaction's snapshot; a row changed after it is waited for if its writer is in flight, and once that writer has committed an update or delete of it the statement fails with 40001 \"could not serialize access due to concurrent update\" (first updater wins) ({PG_ISOLATION_DOC}, 13.2.2); measured."),
            format!("No predicate or range locks: serialization anomalies such as write skew are possible ({PG_ISOLATION_DOC}, table 13.1; {PG_LOCKING_DOC})."),
            "INSERT … ON CONFLICT DO NOTHING fails with 40001 when the conflicting row was committed by a transaction its snapshot does not show; measured.".to_string(),
            "PostgreSQL 15 prevents every Hermitage anomaly at this level except write skew (G2-item, G2) (measured for this project).".to_string(),
            pg_error_note(),
        ],
        references: vec![
            PG_ISOLATION_DOC.to_string(),
            PG_LOCKING_DOC.to_string(),
            PG_TRANSACTIONS_TUTORIAL.to_string(),
        ],
    }
}

fn pg_serializable() -> LevelSemantics {
    LevelSemantics {
        level: IsolationLevel::Serializable,
        // transaction-iso.html 13.2.3: "this isolation level works exactly the same
        // as Repeatable Read except that it monitors for conditions which could make
        // execution … inconsistent with all possible serial … executions".
        snapshot: SnapshotPoint::FirstStatement,
        write_reads: WriteReads::Snapshot,
        write_conflict: WriteConflict::BlockThenAbort,
        semi_consistent_writes: false,
        // 13.2.3: predicate (SIRead) locks "do not cause any blocking"; they only
        // flag read/write dependencies, and a transaction fails only when the
        // dependencies could complete a cycle. An INSERT into a range that a write
        // scanned is therefore neither blocked nor refused by itself: the declared
        // fact is about conflicts, and these are not conflicts (measured).
        predicate_conflicts: false,
        // 13.2.3: the committed transactions have the effect of "some serial order".
        // SSI places a transaction that read a row before another transaction's
        // committed update of it before that transaction, even when it commits later
        // (WriteCheck excludes PostgreSQL SERIALIZABLE for this reason); measured.
        serial_order: SerialOrder::AnyOrder,
        // 13.2.3: "any concurrent execution of a set of Serializable transactions
        // is guaranteed to produce the same effect as running them one at a time
        // in some order" (for the transactions that commit).
        serializable: true,
        after_wait: AfterWait::Unknown,
        // Read/write dependencies are tracked between serializable transactions
        // only: a cycle through a transaction at a weaker level is not broken.
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![
            format!("Serializable snapshot isolation: the snapshot and write conflicts of repeatable read, plus monitoring of read/write dependencies that adds no blocking ({PG_ISOLATION_DOC}, 13.2.3); measured."),
            format!("The promise covers serializable transactions among themselves: \"any concurrent execution of a set of Serializable transactions\" behaves like a serial one, and consistency needs Serializable \"for all writes and for all reads which need a consistent view of the data\" ({PG_ISOLATION_DOC}, 13.2.3; {PG_CONSISTENCY_DOC}). A cycle through a transaction at a weaker level gets the snapshot isolation of repeatable read only."),
            format!("A set of transactions whose dependencies could form a cycle is broken by failing one with 40001 \"could not serialize access due to read/write dependencies among transactions\", possibly at COMMIT ({PG_ISOLATION_DOC}, 13.2.3); measured."),
            format!("Predicate (SIRead) locks never block and never cause deadlocks: an INSERT into a range another transaction scanned proceeds, and neither transaction fails unless the dependencies could form a cycle ({PG_ISOLATION_DOC}, 13.2.3); measured."),
            "The equivalent serial order need not be the commit order: a transaction that read a row before another transaction committed an update of it is ordered before that transaction even if it commits later; measured.".to_string(),
            format!("Unique-constraint violations can occur that no serial order would produce, when a concurrent serializable transaction inserts the same key ({PG_ISOLATION_DOC}, 13.2.3)."),
            pg_error_note(),
        ],
        references: vec![
            PG_ISOLATION_DOC.to_string(),
            PG_LOCKING_DOC.to_string(),
            PG_TRANSACTIONS_TUTORIAL.to_string(),
        ],
    }
}

fn crdb_serializable() -> LevelSemantics {
    LevelSemantics {
        level: IsolationLevel::Serializable,
        // transaction-layer: the gateway picks the transaction's timestamp when it
        // starts, and non-stale reads "see all writes performed by writers that
        // committed before the reading transaction … started". Hermitage's OTV
        // schedule shows a transaction that began before another's commit not
        // seeing that commit in its first read.
        snapshot: SnapshotPoint::Begin,
        // transaction-layer "Read refreshing": when its timestamp is pushed, a
        // transaction re-validates everything it read at the new timestamp or
        // restarts, so its reads and writes always use one consistent snapshot,
        // which can only move forward as a whole.
        write_reads: WriteReads::Snapshot,
        // transaction-layer "Transaction conflicts": a write that meets a pending
        // intent waits in the TxnWaitQueue. After the holder commits, the waiter
        // proceeds if its earlier reads refresh to a timestamp after the holder's,
        // and otherwise fails with 40001 (RETRY_WRITE_TOO_OLD, RETRY_SERIALIZABLE).
        // The IR has no value for that condition. A read-modify-write of the row
        // always fails (Hermitage P4, WriteTooOldError), so lost updates never
        // happen, which is what BlockThenAbort promises; a blind write proceeds
        // (Hermitage G0), which is a legal serial order that SerialOrder::AnyOrder
        // already admits.
        write_conflict: WriteConflict::BlockThenAbort,
        semi_consistent_writes: false,
        // transaction-layer "Timestamp cache": a write into what another
        // transaction read is ordered after that read by moving its timestamp, not
        // blocked; only existing rows are ever locked (select-for-update).
        predicate_conflicts: false,
        // transactions are serialized in timestamp order, not commit order: a
        // transaction that read a key is serialized before a later writer of the
        // key even if the writer commits first (timestamp cache).
        serial_order: SerialOrder::AnyOrder,
        // CRDB_TRANSACTIONS_DOC (Isolation levels): SERIALIZABLE, the default,
        // "guarantees that even though transactions may execute in parallel, the
        // result is the same as if they had executed one at a time".
        serializable: true,
        after_wait: AfterWait::Unknown,
        // The documentation promises serializability among SERIALIZABLE
        // transactions; nothing is claimed for a cycle through a READ
        // COMMITTED one, so the smaller claim.
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![
            format!("Reads see the writes of transactions that committed before this one started ({CRDB_TXN_LAYER_DOC}#reading); a transaction that began before another's commit does not see it even in its first statement ({CRDB_HERMITAGE}, OTV)."),
            format!("When a conflict moves a transaction's timestamp forward, it re-checks its earlier reads at the new timestamp (read refreshing) and continues, or fails with 40001 RETRY_SERIALIZABLE, possibly only at COMMIT ({CRDB_TXN_LAYER_DOC}#read-refreshing; {CRDB_RETRY_ERRORS_DOC})."),
            format!("A write to a row another transaction has written waits for it; after that transaction commits, the waiter continues when its earlier reads are still valid (a blind UPDATE) and otherwise fails with 40001 RETRY_WRITE_TOO_OLD or WriteTooOldError (an UPDATE of a row it had read) ({CRDB_TXN_LAYER_DOC}#transaction-conflicts; {CRDB_HERMITAGE}, G0 and P4). write_conflict is declared as block-then-abort because no lost update can commit."),
            format!("Unlike PostgreSQL, non-locking reads wait for the write intents of pending transactions: \"writes can only block reads under the default SERIALIZABLE isolation level\" ({CRDB_TXN_LAYER_DOC}#transaction-conflicts)."),
            format!("Transactions are serialized in timestamp order, which need not be the commit order: a transaction that read a key is serialized before a later writer of that key, even if the writer commits first ({CRDB_TXN_LAYER_DOC}#timestamp-cache)."),
            format!("Deadlocks are broken by aborting one transaction with a 40001 retry error (ABORT_REASON_ABORTED_RECORD_FOUND, ABORT_REASON_PUSHER_ABORTED), not with 40P01 ({CRDB_READ_COMMITTED_DOC}#read-committed-abort; {CRDB_RETRY_ERRORS_DOC})."),
            format!("SELECT … FOR SHARE takes no lock at this level unless the session variable enable_shared_locking_for_serializable is on ({CRDB_SESSION_VARS_DOC}), so the dialect does not offer FOR SHARE to generators."),
            crdb_error_note(),
        ],
        references: vec![
            CRDB_TRANSACTIONS_DOC.to_string(),
            CRDB_TXN_LAYER_DOC.to_string(),
            CRDB_RETRY_ERRORS_DOC.to_string(),
            CRDB_SESSION_VARS_DOC.to_string(),
            CRDB_HERMITAGE.to_string(),
        ],
    }
}

fn crdb_read_committed() -> LevelSemantics {
    LevelSemantics {
        level: IsolationLevel::ReadCommitted,
        // read-committed: "statements in READ COMMITTED transactions see data that
        // committed before each statement began".
        snapshot: SnapshotPoint::PerStatement,
        // transaction-layer "Read snapshots" and the retry error reference: a
        // statement that meets a newer committed version is retried internally at a
        // new read timestamp, so it applies to the latest committed rows.
        write_reads: WriteReads::LatestCommitted,
        // read-committed: a write to a locked row waits for the holder; writes
        // "can interleave without aborting transactions", and the lost update
        // anomaly is documented.
        write_conflict: WriteConflict::BlockThenProceed,
        semi_consistent_writes: false,
        // read-committed "Locking reads": only existing rows can be locked, so
        // inserted rows (phantoms) never conflict.
        predicate_conflicts: false,
        // Write intents are exclusive locks held until commit.
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![
            format!("READ COMMITTED needs the cluster setting sql.txn.read_committed_isolation.enabled (false by default in v23.2, true from v24.1); without it READ COMMITTED transactions silently run as SERIALIZABLE, which the session set-up checks ({CRDB_READ_COMMITTED_DOC}#enable-read-committed-isolation)."),
            format!("Each statement reads a snapshot taken when it begins ({CRDB_READ_COMMITTED_DOC}; {CRDB_TXN_LAYER_DOC}#read-snapshots)."),
            format!("A statement that conflicts with a newer committed write is retried internally at a new read timestamp instead of failing, so writes apply to the latest committed rows and concurrent transactions do not abort each other ({CRDB_RETRY_ERRORS_DOC}; {CRDB_READ_COMMITTED_DOC})."),
            format!("Lost updates and write skew are possible; a write never blocks a non-locking read ({CRDB_READ_COMMITTED_DOC}#concurrency-anomalies)."),
            format!("Locking reads lock existing rows only, so inserted rows are never locked against ({CRDB_READ_COMMITTED_DOC}#locking-reads; {CRDB_SELECT_FOR_UPDATE_DOC})."),
            format!("Deadlocks and constraint violations abort the transaction, deadlocks with 40001 ({CRDB_READ_COMMITTED_DOC}#read-committed-abort)."),
            crdb_error_note(),
        ],
        references: vec![
            CRDB_READ_COMMITTED_DOC.to_string(),
            CRDB_TXN_LAYER_DOC.to_string(),
            CRDB_RETRY_ERRORS_DOC.to_string(),
            CRDB_TRANSACTIONS_DOC.to_string(),
        ],
    }
}

/// The statements and column types `flavor` supports.
pub fn features(flavor: Flavor) -> Features {
    Features {
        // PostgreSQL: sql-select.html, "The Locking Clause"; CockroachDB:
        // select-for-update.
        select_for_update: true,
        // CockroachDB parses FOR SHARE at every level, but under SERIALIZABLE it
        // locks nothing unless enable_shared_locking_for_serializable is on
        // (session-variables), and features cannot differ per level.
        select_for_share: flavor == Flavor::Postgres,
        // Neither has REPLACE. CockroachDB's UPSERT replaces on the primary key only
        // and never deletes rows that collide on another unique key.
        replace: false,
        // INSERT … ON CONFLICT DO NOTHING (sql-insert.html). Unlike MySQL's INSERT
        // IGNORE it only skips rows that collide on a unique or exclusion
        // constraint: NOT NULL violations, bad values and overflows still fail the
        // statement, and nothing is silently converted.
        insert_ignore: true,
        snapshot_begin_levels: Vec::new(),
        // NUMERIC is exact to 1000 digits, well past what a double holds.
        column_types: sql::COLUMN_TYPES.to_vec(),
    }
}

/// How the host learns that a session of `flavor` waits for a lock.
pub fn lock_probe(flavor: Flavor) -> LockProbe {
    match flavor {
        // https://www.postgresql.org/docs/16/functions-info.html: pg_blocking_pids
        // "returns an array of the process ID(s) of the sessions that are blocking
        // the server process with the specified process ID from acquiring a lock".
        // It answers live: measured for this project at 0.48 ms median after the
        // wait starts, the fastest of the live sources tried.
        Flavor::Postgres => LockProbe::Query {
            sql: "SELECT cardinality(pg_blocking_pids({session})) > 0".to_string(),
        },
        // https://www.cockroachlabs.com/docs/v24.1/crdb-internal#cluster_locks:
        // every lock and every request waiting for one
        // (granted = false) in the lock tables, read-only waiters included; a
        // session's current transaction is crdb_internal.cluster_sessions.kv_txn.
        // CockroachDB session ids are hex strings (SHOW session_id), hence the
        // quotes. The query fans out to every node, which costs milliseconds, not
        // the sub-millisecond of pg_blocking_pids.
        Flavor::Cockroach => LockProbe::Query {
            sql: "SELECT EXISTS (SELECT 1 FROM crdb_internal.cluster_locks AS l \
                  JOIN crdb_internal.cluster_sessions AS s ON l.txn_id::STRING = s.kv_txn \
                  WHERE s.session_id = '{session}' AND NOT l.granted)"
                .to_string(),
        },
    }
}
