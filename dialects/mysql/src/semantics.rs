//! What each flavor offers and what its isolation levels mean, with the vendor pages
//! each fact comes from. Facts marked "checked on MariaDB 10.11" are also asserted by
//! this crate's live tests against a real server.

use crate::flavor::{Flavor, Target, TxnMode};
use crate::probe::lock_probe;
use txlab_plugin_api::prelude::*;

/// The registry name of the `mysql` dialect, also `DialectInfo::name`.
pub const MYSQL: &str = "mysql";
/// The registry name of the `mariadb` dialect, also `DialectInfo::name`.
pub const MARIADB: &str = "mariadb";
/// The registry name of the `tidb` dialect, also `DialectInfo::name`.
pub const TIDB: &str = "tidb";
/// The registry name of the Galera entry (MariaDB on a cluster's nodes).
pub const GALERA: &str = "galera";

/// Galera: isolation between transactions on different nodes.
pub const GALERA_ISOLATION: &str =
    "https://galeracluster.com/library/documentation/isolation-levels.html";
/// Galera: snapshot isolation between nodes, the vendor's own account.
pub const GALERA_SNAPSHOT_ISOLATION: &str = "https://galeracluster.com/2015/09/support-for-mysql-transaction-isolation-levels-in-galera-cluster";
/// Galera: a node may not yet have applied another node's commit.
pub const GALERA_READ_AFTER_WRITE: &str =
    "https://galeracluster.com/library/training/tutorials/achieving-read-after-write-semantics.html";

// MySQL 8.0 Reference Manual; the 8.4 pages say the same.
/// MySQL: the InnoDB isolation levels.
pub const MYSQL_ISOLATION: &str =
    "https://dev.mysql.com/doc/refman/8.0/en/innodb-transaction-isolation-levels.html";
/// MySQL: consistent nonlocking reads (snapshots).
pub const MYSQL_CONSISTENT_READ: &str =
    "https://dev.mysql.com/doc/refman/8.0/en/innodb-consistent-read.html";
/// MySQL: locking reads (`FOR UPDATE`, `FOR SHARE`).
pub const MYSQL_LOCKING_READS: &str =
    "https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html";
/// MySQL: the locks each statement sets (next-key and gap locks).
pub const MYSQL_LOCKS_SET: &str = "https://dev.mysql.com/doc/refman/8.0/en/innodb-locks-set.html";
/// MySQL: semi-consistent reads.
pub const MYSQL_SEMI_CONSISTENT: &str =
    "https://dev.mysql.com/doc/refman/8.0/en/glossary.html#glos_semi_consistent_read";
/// MySQL: what InnoDB rolls back on an error.
pub const MYSQL_ERROR_HANDLING: &str =
    "https://dev.mysql.com/doc/refman/8.0/en/innodb-error-handling.html";
/// MySQL: UPDATE (a same-value assignment changes nothing).
pub const MYSQL_UPDATE: &str = "https://dev.mysql.com/doc/refman/8.0/en/update.html";
/// MySQL: REPLACE (may be performed as an update).
pub const MYSQL_REPLACE: &str = "https://dev.mysql.com/doc/refman/8.0/en/replace.html";
/// MySQL: foreign key differences from the standard (InnoDB checks UNIQUE
/// and FOREIGN KEY constraints row by row).
pub const MYSQL_FOREIGN_KEY_DIFFERENCES: &str =
    "https://dev.mysql.com/doc/refman/8.0/en/ansi-diff-foreign-keys.html";
/// MariaDB: a same-value UPDATE keeps the snapshot's row version (a design decision).
pub const MDEV_26642: &str = "https://jira.mariadb.org/browse/MDEV-26642";
/// TiDB: the same as MDEV-26642.
pub const TIDB_28212: &str = "https://github.com/pingcap/tidb/issues/28212";

/// MariaDB: `SET TRANSACTION` and its isolation levels.
pub const MARIADB_SET_TRANSACTION: &str = "https://mariadb.com/docs/server/reference/sql-statements/administrative-sql-statements/set-commands/set-transaction";
/// MariaDB: the `innodb_snapshot_isolation` variable.
pub const MARIADB_SNAPSHOT_ISOLATION: &str = "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-system-variables#innodb_snapshot_isolation";

/// MariaDB: the isolation levels (described on the SET TRANSACTION page).
pub const MARIADB_ISOLATION: &str = MARIADB_SET_TRANSACTION;
/// MariaDB: READ COMMITTED (each consistent read takes a fresh snapshot).
pub const MARIADB_READ_COMMITTED: &str =
    "https://mariadb.com/docs/server/reference/sql-statements/transactions/transactions-read-committed";
/// MariaDB: REPEATABLE READ (the snapshot of the first read).
pub const MARIADB_REPEATABLE_READ: &str =
    "https://mariadb.com/docs/server/reference/sql-statements/transactions/transactions-repeatable-read";
/// MariaDB: SERIALIZABLE (plain SELECTs become LOCK IN SHARE MODE).
pub const MARIADB_SERIALIZABLE: &str =
    "https://mariadb.com/docs/server/reference/sql-statements/transactions/transactions-serializable";
/// MariaDB: locking reads (`FOR UPDATE`).
pub const MARIADB_FOR_UPDATE: &str =
    "https://mariadb.com/docs/server/reference/sql-statements/data-manipulation/selecting-data/for-update";
/// MariaDB: shared locking reads (`LOCK IN SHARE MODE` waits for the rows'
/// writers to commit).
pub const MARIADB_LOCK_IN_SHARE_MODE: &str = "https://mariadb.com/docs/server/reference/sql-statements/data-manipulation/selecting-data/lock-in-share-mode";
/// MariaDB: InnoDB's lock modes (record, gap and next-key locks).
pub const MARIADB_LOCK_MODES: &str =
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-lock-modes";
/// MariaDB: `innodb_rollback_on_timeout` (a lock-wait timeout rolls back
/// only the statement unless it is set).
pub const MARIADB_ROLLBACK_ON_TIMEOUT: &str = "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-system-variables#innodb_rollback_on_timeout";

/// The vendor pages the facts of an InnoDB level cite: MariaDB's own
/// documentation for MariaDB, MySQL's manual for MySQL.
struct Docs {
    read_uncommitted: &'static str,
    read_committed: &'static str,
    repeatable_read: &'static str,
    serializable: &'static str,
    locking_reads: &'static str,
    locks_set: &'static str,
    semi_consistent: &'static str,
    error_handling: &'static str,
}

fn docs(flavor: Flavor) -> Docs {
    match flavor {
        Flavor::Mariadb => Docs {
            read_uncommitted: MARIADB_ISOLATION,
            read_committed: MARIADB_READ_COMMITTED,
            repeatable_read: MARIADB_REPEATABLE_READ,
            serializable: MARIADB_SERIALIZABLE,
            locking_reads: MARIADB_FOR_UPDATE,
            locks_set: MARIADB_LOCK_MODES,
            semi_consistent: MARIADB_SET_TRANSACTION,
            error_handling: MARIADB_ROLLBACK_ON_TIMEOUT,
        },
        Flavor::Mysql | Flavor::Tidb => Docs {
            read_uncommitted: MYSQL_ISOLATION,
            read_committed: MYSQL_CONSISTENT_READ,
            repeatable_read: MYSQL_CONSISTENT_READ,
            serializable: MYSQL_ISOLATION,
            locking_reads: MYSQL_LOCKING_READS,
            locks_set: MYSQL_LOCKS_SET,
            semi_consistent: MYSQL_SEMI_CONSISTENT,
            error_handling: MYSQL_ERROR_HANDLING,
        },
    }
}

/// TiDB: its isolation levels.
pub const TIDB_ISOLATION: &str =
    "https://docs.pingcap.com/tidb/stable/transaction-isolation-levels";
/// TiDB: pessimistic transactions.
pub const TIDB_PESSIMISTIC: &str = "https://docs.pingcap.com/tidb/stable/pessimistic-transaction";
/// TiDB: optimistic transactions.
pub const TIDB_OPTIMISTIC: &str = "https://docs.pingcap.com/tidb/stable/optimistic-transaction";
/// TiDB: transactions overview.
pub const TIDB_TRANSACTIONS: &str = "https://docs.pingcap.com/tidb/stable/transaction-overview";

/// What `target` offers: its isolation levels with their semantics, its features
/// and its lock probe (`Dialect::info`).
pub fn info(target: &Target) -> DialectInfo {
    DialectInfo {
        name: match target.flavor {
            Flavor::Mysql => MYSQL,
            Flavor::Mariadb if target.galera => GALERA,
            Flavor::Mariadb => MARIADB,
            Flavor::Tidb => TIDB,
        }
        .to_string(),
        driver: "mysql".to_string(),
        levels: levels(target),
        features: features(target.flavor),
        lock_probe: lock_probe(target.flavor),
        session_control: SessionControl::default(),
        engine: engine(target.flavor),
        server_query: Some(SERVER_QUERY.to_string()),
        server: None,
    }
}

/// MariaDB's snapshot-isolation switch, as `SHOW VARIABLES` names it.
pub const SNAPSHOT_ISOLATION_VARIABLE: &str = "innodb_snapshot_isolation";

/// The server settings the family's facts depend on, read once before the
/// first case (`DialectInfo::server_query`): rows of (Variable_name, Value);
/// a variable the server lacks is not listed
/// (https://mariadb.com/docs/server/reference/sql-statements/administrative-sql-statements/show/show-variables,
/// https://dev.mysql.com/doc/refman/8.4/en/show-variables.html): MariaDB's
/// snapshot isolation, the lock-wait timeout's scope (which the sessions
/// also check), whether the server is a Galera node, and TiDB's default
/// transaction mode.
pub const SERVER_QUERY: &str = "SHOW GLOBAL VARIABLES WHERE Variable_name IN \
     ('innodb_snapshot_isolation', 'innodb_rollback_on_timeout', 'wsrep_on', 'tidb_txn_mode')";

/// Fails for every level the target does not offer, naming it.
pub fn check_level(target: &Target, level: IsolationLevel) -> Result<(), PluginError> {
    let offered: Vec<IsolationLevel> = levels(target).iter().map(|l| l.level).collect();
    if offered.contains(&level) {
        return Ok(());
    }
    let names: Vec<&str> = offered.iter().map(|l| l.name()).collect();
    let mode = match target.flavor {
        Flavor::Tidb => format!(" in {} mode", target.txn_mode.keyword().to_lowercase()),
        Flavor::Mysql | Flavor::Mariadb => String::new(),
    };
    Err(PluginError::unsupported(format!(
        "{}{mode} offers {}, not {level}",
        target.flavor,
        names.join(", ")
    )))
}

/// The isolation levels `target` offers and what each one means there.
pub fn levels(target: &Target) -> Vec<LevelSemantics> {
    match target.flavor {
        Flavor::Mariadb if target.galera => vec![galera_repeatable_read(target)],
        Flavor::Mysql | Flavor::Mariadb => vec![
            innodb_read_uncommitted(target),
            innodb_read_committed(target),
            innodb_repeatable_read(target),
            innodb_serializable(target),
        ],
        // https://docs.pingcap.com/tidb/stable/transaction-isolation-levels: TiDB
        // offers REPEATABLE READ (snapshot isolation) and, in pessimistic mode
        // only, READ COMMITTED; in optimistic mode READ COMMITTED is accepted but
        // runs as REPEATABLE READ, so it is not offered. SERIALIZABLE and READ
        // UNCOMMITTED fail with error 8048 (https://docs.pingcap.com/tidb/stable/error-codes).
        Flavor::Tidb => match target.txn_mode {
            TxnMode::Pessimistic => vec![tidb_read_committed(), tidb_pessimistic_repeatable_read()],
            TxnMode::Optimistic => vec![tidb_optimistic_repeatable_read()],
        },
    }
}

/// Marks a note whose fact this crate's live tests check: they run against MariaDB,
/// so the mark goes only on the `mariadb` entry's notes.
fn checked_live(target: &Target) -> &'static str {
    match target.flavor {
        Flavor::Mariadb => "; checked on MariaDB 10.11",
        Flavor::Mysql | Flavor::Tidb => "",
    }
}

/// Notes and references every InnoDB level shares.
fn innodb_common(target: &Target, notes: &mut Vec<String>, references: &mut Vec<String>) {
    let d = docs(target.flavor);
    let sources = match target.flavor {
        Flavor::Mariadb => format!("{}; {}", d.error_handling, d.locks_set),
        Flavor::Mysql | Flavor::Tidb => d.error_handling.to_string(),
    };
    notes.push(format!(
        "Row locks taken by writes and locking reads are held until COMMIT or ROLLBACK; a \
         lock-wait timeout (1205) undoes only the waiting statement, a deadlock (1213) the \
         whole transaction of the victim ({sources}){}.",
        checked_live(target)
    ));
    references.push(d.error_handling.to_string());
    if target.flavor == Flavor::Mariadb {
        notes.push(format!(
            "innodb_snapshot_isolation is {} in every session: {} ({MARIADB_SNAPSHOT_ISOLATION}).",
            if target.snapshot_isolation {
                "ON"
            } else {
                "OFF"
            },
            target.snapshot_isolation_basis.describe()
        ));
        references.push(MARIADB_SET_TRANSACTION.to_string());
        references.push(MARIADB_SNAPSHOT_ISOLATION.to_string());
    }
    // Every page a note cites is a reference, once.
    for note in notes.iter() {
        for word in note.split_whitespace() {
            if let Some(at) = word.find("https://") {
                let url = word[at..].trim_end_matches([')', ';', ',', '.']);
                if !references.iter().any(|r| r == url) {
                    references.push(url.to_string());
                }
            }
        }
    }
    let mut seen = Vec::new();
    references.retain(|r| {
        let new = !seen.contains(r);
        seen.push(r.clone());
        new
    });
}

fn innodb_read_uncommitted(target: &Target) -> LevelSemantics {
    let d = docs(target.flavor);
    let mut notes = vec![
        format!("SELECT reads without locks and may use a row version that is not yet committed (a dirty read); otherwise READ UNCOMMITTED works like READ COMMITTED ({}).", d.read_uncommitted),
        format!("UPDATE, DELETE and locking reads lock the rows they read and wait for uncommitted changes, so they act on the latest committed version ({}).", d.locking_reads),
        format!("No gap locks: an insert into a range that another transaction's write scanned is not blocked ({}).", d.read_uncommitted),
        format!("UPDATE skips a row another transaction holds locked when the row's latest committed version does not match its WHERE clause (semi-consistent read, {}).", d.semi_consistent),
    ];
    let mut references = vec![
        d.read_uncommitted.to_string(),
        d.locking_reads.to_string(),
        d.semi_consistent.to_string(),
    ];
    if target.flavor == Flavor::Mariadb {
        notes.push(format!("Semi-consistent reads at READ UNCOMMITTED do not depend on innodb_snapshot_isolation ({MARIADB_SET_TRANSACTION}); checked on MariaDB 10.11."));
    }
    innodb_common(target, &mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::ReadUncommitted,
        // isolation levels page: "SELECT statements are performed in a nonlocking
        // fashion, but a possible earlier version of a row might be used": no
        // snapshot at all.
        snapshot: SnapshotPoint::None,
        // locking-reads page: a locking read waits for the transaction that changed
        // a row and then uses the latest values; UPDATE and DELETE read the same way.
        write_reads: WriteReads::LatestCommitted,
        // The second writer waits for the row lock, then writes the latest version.
        write_conflict: WriteConflict::BlockThenProceed,
        // isolation levels page: READ UNCOMMITTED otherwise works like READ
        // COMMITTED, which reads semi-consistently (glossary); MariaDB keeps it at
        // READ UNCOMMITTED whatever innodb_snapshot_isolation says (set-transaction
        // page; checked on MariaDB 10.11).
        semi_consistent_writes: true,
        // isolation levels page, READ COMMITTED: gap locking is disabled except for
        // foreign-key and duplicate-key checks.
        predicate_conflicts: false,
        // Write locks are held until the transaction ends.
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        // locking-reads page: a locking read waits for the row's holder, then reads
        // its latest committed version (checked on MariaDB 10.11).
        after_wait: AfterWait::LatestRows,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes,
        references,
    }
}

fn innodb_read_committed(target: &Target) -> LevelSemantics {
    // set-transaction page: "At READ COMMITTED, semi-consistent reads apply only
    // when innodb_snapshot_isolation is disabled"; checked on MariaDB 10.11.
    let semi_consistent = !target.snapshot_isolation;
    let d = docs(target.flavor);
    let no_gap_locks = match target.flavor {
        Flavor::Mariadb => format!("{MARIADB_ISOLATION}; {}", d.locks_set),
        Flavor::Mysql | Flavor::Tidb => MYSQL_ISOLATION.to_string(),
    };
    let mut notes = vec![
        format!("Each consistent read, even within the same transaction, sets and reads its own fresh snapshot ({}).", d.read_committed),
        format!("UPDATE, DELETE and locking reads lock and act on the latest committed version of each row ({}).", d.locking_reads),
        format!("No gap locks: an insert into a range that another transaction's write scanned is not blocked ({no_gap_locks})."),
    ];
    if semi_consistent {
        notes.push(format!("UPDATE skips a row another transaction holds locked when the row's latest committed version does not match its WHERE clause (semi-consistent read, {}).", d.semi_consistent));
    } else {
        notes.push(format!("With innodb_snapshot_isolation = ON, UPDATE waits for a locked row instead of reading its latest committed version: no semi-consistent reads ({MARIADB_SET_TRANSACTION}); checked on MariaDB 10.11."));
    }
    let mut references = match target.flavor {
        Flavor::Mariadb => vec![
            MARIADB_ISOLATION.to_string(),
            d.read_committed.to_string(),
            d.locking_reads.to_string(),
            d.locks_set.to_string(),
        ],
        Flavor::Mysql | Flavor::Tidb => vec![
            MYSQL_ISOLATION.to_string(),
            MYSQL_CONSISTENT_READ.to_string(),
            MYSQL_LOCKING_READS.to_string(),
            MYSQL_SEMI_CONSISTENT.to_string(),
        ],
    };
    innodb_common(target, &mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::ReadCommitted,
        // consistent-read page: "With READ COMMITTED isolation level, each
        // consistent read within a transaction sets and reads its own fresh snapshot."
        snapshot: SnapshotPoint::PerStatement,
        // locking-reads page: locking reads use the latest values; the consistent
        // read page: the snapshot "applies to SELECT statements ..., not necessarily
        // to DML statements".
        write_reads: WriteReads::LatestCommitted,
        write_conflict: WriteConflict::BlockThenProceed,
        semi_consistent_writes: semi_consistent,
        // isolation levels page: no gap locks at READ COMMITTED.
        predicate_conflicts: false,
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        // locking-reads page: a locking read waits for the row's holder, then reads
        // its latest committed version (checked on MariaDB 10.11).
        after_wait: AfterWait::LatestRows,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes,
        references,
    }
}

fn innodb_repeatable_read(target: &Target) -> LevelSemantics {
    let d = docs(target.flavor);
    let mut notes = vec![
        format!("All consistent reads within the transaction read the snapshot established by the first such read; BEGIN, writes and locking reads before it do not establish it ({}){}.", d.repeatable_read, checked_live(target)),
        format!("Locking reads, UPDATE and DELETE lock the index ranges they scan with next-key or gap locks, so inserts into a scanned range wait ({})." , d.locks_set),
    ];
    let mut references = vec![
        match target.flavor {
            Flavor::Mariadb => MARIADB_ISOLATION,
            Flavor::Mysql | Flavor::Tidb => MYSQL_ISOLATION,
        }
        .to_string(),
        d.repeatable_read.to_string(),
        d.locking_reads.to_string(),
        d.locks_set.to_string(),
    ];
    let (write_reads, write_conflict) = if target.snapshot_isolation {
        notes.push(format!("With innodb_snapshot_isolation = ON, locking a row whose latest version is not in the transaction's read view fails with error 1020 (ER_CHECKREAD) and rolls the whole transaction back, like a deadlock: a write to a row changed after the snapshot fails, also after waiting for its writer to commit ({MARIADB_SNAPSHOT_ISOLATION}); checked on MariaDB 10.11."));
        (WriteReads::Snapshot, WriteConflict::BlockThenAbort)
    } else {
        let sources = match target.flavor {
            // MariaDB documents the effect with innodb_snapshot_isolation: OFF,
            // a write does not check that its row is in the read view.
            Flavor::Mariadb => format!("{MARIADB_SNAPSHOT_ISOLATION}; {}", d.locking_reads),
            Flavor::Mysql | Flavor::Tidb => {
                format!("{MYSQL_CONSISTENT_READ}; {MYSQL_LOCKING_READS}")
            }
        };
        notes.push(format!("The snapshot applies to SELECT, not to UPDATE and DELETE: these act on the latest committed rows, so a second writer waits for the first, then overwrites its committed change; lost updates are possible ({sources}){}.", checked_live(target)));
        (WriteReads::LatestCommitted, WriteConflict::BlockThenProceed)
    };
    innodb_common(target, &mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::RepeatableRead,
        // consistent-read page: "all consistent reads within the same transaction
        // read the snapshot established by the first such read in that transaction".
        snapshot: SnapshotPoint::FirstRead,
        write_reads,
        write_conflict,
        semi_consistent_writes: false,
        // locks-set page: locking reads, UPDATE and DELETE set next-key locks on
        // the scanned index range.
        predicate_conflicts: true,
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        // locking-reads page: a locking read waits for the row's holder, then reads
        // its latest committed version (checked on MariaDB 10.11).
        after_wait: AfterWait::LatestRows,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes,
        references,
    }
}

fn innodb_serializable(target: &Target) -> LevelSemantics {
    let d = docs(target.flavor);
    let shared = match target.flavor {
        Flavor::Mariadb => MARIADB_LOCK_IN_SHARE_MODE,
        Flavor::Mysql | Flavor::Tidb => MYSQL_LOCKING_READS,
    };
    let mut notes = vec![
        format!("Like REPEATABLE READ, but plain SELECTs inside an explicit transaction become shared locking reads of the latest committed rows; an autocommit SELECT is a consistent read of its own snapshot ({}; {shared}){}.", d.serializable, checked_live(target)),
        format!("Every read, write and locking read locks the index range it scans with next-key locks, so writes to rows or ranges another transaction read wait for it, and read-write cycles end in a deadlock (1213) ({})." , d.locks_set),
    ];
    let mut references = vec![
        d.serializable.to_string(),
        shared.to_string(),
        d.locks_set.to_string(),
    ];
    let (snapshot, write_reads, write_conflict) = if target.snapshot_isolation {
        notes.push(format!("With innodb_snapshot_isolation = ON, the transaction's first statement, a write or a (locking) read, opens a read view; a write or locking read of a row whose latest version is not in that view fails with error 1020 and rolls the whole transaction back, also the first statement itself when it waited for the writer of that row, and a later statement reading a row another transaction changed and committed while the first one waited. The vendor documents the variable for REPEATABLE READ ({MARIADB_SNAPSHOT_ISOLATION}); the effect at SERIALIZABLE was measured on MariaDB 10.11.19 and 11.8.9 (2026-12-02). The profile declares a snapshot per statement: the rows every statement reads when it does not fail; the 1020 errors are not predicted."));
        (
            // Every read is a locking read of the latest committed rows;
            // writes act on them too, or fail with 1020 where the row changed
            // after the read view (an error the oracles do not predict).
            SnapshotPoint::PerStatement,
            WriteReads::LatestCommitted,
            WriteConflict::BlockThenAbort,
        )
    } else {
        (
            // Shared locking reads read the latest committed version when they
            // run, so every statement sees a fresh state of the rows it locks.
            SnapshotPoint::PerStatement,
            WriteReads::LatestCommitted,
            WriteConflict::BlockThenProceed,
        )
    };
    innodb_common(target, &mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::Serializable,
        snapshot,
        write_reads,
        write_conflict,
        semi_consistent_writes: false,
        predicate_conflicts: true,
        serial_order: SerialOrder::CommitOrder,
        // MYSQL_ISOLATION: SERIALIZABLE is REPEATABLE READ with every plain
        // SELECT made a shared locking read: two-phase locking with next-key
        // locks, the level the manual names for XA transactions and for
        // troubleshooting concurrency.
        serializable: true,
        // locking-reads page: a locking read waits for the row's holder, then reads
        // its latest committed version (checked on MariaDB 10.11).
        after_wait: AfterWait::LatestRows,
        mixed_levels: MixedLevels::Covered,
        notes,
        references,
    }
}

/// REPEATABLE READ between transactions on different nodes of a Galera
/// cluster: each node runs its transactions with InnoDB, and a transaction's
/// writes are certified against those other nodes committed meanwhile.
fn galera_repeatable_read(target: &Target) -> LevelSemantics {
    let mut notes = vec![
        format!("Transactions on different nodes are isolated by certification: a transaction whose writes touch rows another node's transaction committed meanwhile fails (first committer wins), at its COMMIT with error 1213, or as a local transaction aborted by a replicated one; this eliminates lost updates between nodes and gives snapshot isolation between them ({GALERA_ISOLATION}; {GALERA_SNAPSHOT_ISOLATION})."),
        format!("No lock is held across nodes: a write never waits for a transaction on another node, and ranges are not locked, so an insert into a range another node's transaction scanned does not conflict ({GALERA_ISOLATION})."),
        format!("SERIALIZABLE is honoured only between transactions on the same node, and in multi-primary use only REPEATABLE READ is supported ({GALERA_ISOLATION}); the profile offers REPEATABLE READ."),
        format!("Reads see the node's own state: a commit on another node may not be applied yet when a read on this node runs (no causal wait, wsrep_sync_wait = 0 by default) ({GALERA_READ_AFTER_WRITE})."),
        format!("The profile describes transactions on different nodes; two transactions on one node follow MariaDB's REPEATABLE READ (locks, lost updates allowed) ({GALERA_SNAPSHOT_ISOLATION})."),
    ];
    let mut references = vec![
        GALERA_ISOLATION.to_string(),
        GALERA_SNAPSHOT_ISOLATION.to_string(),
        GALERA_READ_AFTER_WRITE.to_string(),
    ];
    innodb_common(target, &mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::RepeatableRead,
        // Each node's InnoDB takes the snapshot at the first consistent read.
        snapshot: SnapshotPoint::FirstRead,
        // Snapshot isolation between nodes: a write over a row changed after
        // the snapshot does not commit.
        write_reads: WriteReads::Snapshot,
        write_conflict: WriteConflict::AbortAtCommit,
        semi_consistent_writes: false,
        predicate_conflicts: false,
        // Nothing makes a writer on one node wait for one on another.
        serial_order: SerialOrder::AnyOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes,
        references,
    }
}

fn tidb_common(notes: &mut Vec<String>, references: &mut Vec<String>) {
    notes.push(format!("TiDB takes no gap locks: a write or locking read over a range does not block inserts into it ({TIDB_PESSIMISTIC}, Difference with MySQL InnoDB)."));
    notes.push(format!("TiDB has no semi-consistent read ({TIDB_ISOLATION}, Difference between TiDB and MySQL Read Committed)."));
    references.push(TIDB_ISOLATION.to_string());
    references.push(TIDB_PESSIMISTIC.to_string());
}

/// Notes both pessimistic levels share.
fn tidb_pessimistic_common(notes: &mut Vec<String>) {
    notes.push(format!("An autocommit statement first tries to commit optimistically and retries in pessimistic mode after a write conflict ({TIDB_PESSIMISTIC}, Difference with MySQL InnoDB)."));
    notes.push(format!("Pessimistic locks are held until the transaction ends; a lock-wait timeout returns 1205 and a deadlock 1213, whose victim TiDB terminates ({TIDB_PESSIMISTIC})."));
}

fn tidb_read_committed() -> LevelSemantics {
    let mut notes = vec![
        format!("READ COMMITTED takes effect only in pessimistic mode; every statement reads with a new timestamp ({TIDB_ISOLATION})."),
        format!("UPDATE, DELETE, INSERT and SELECT FOR UPDATE are current reads: they lock and read the latest committed version, and a second writer waits for the first ({TIDB_PESSIMISTIC})."),
    ];
    let mut references = Vec::new();
    tidb_pessimistic_common(&mut notes);
    tidb_common(&mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::ReadCommitted,
        snapshot: SnapshotPoint::PerStatement,
        write_reads: WriteReads::LatestCommitted,
        write_conflict: WriteConflict::BlockThenProceed,
        semi_consistent_writes: false,
        predicate_conflicts: false,
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes,
        references,
    }
}

fn tidb_pessimistic_repeatable_read() -> LevelSemantics {
    let mut notes = vec![
        format!("REPEATABLE READ is snapshot isolation for reads: the read timestamp is taken when the transaction starts, and BEGIN, START TRANSACTION and START TRANSACTION WITH CONSISTENT SNAPSHOT all have that effect ({TIDB_ISOLATION}; {TIDB_TRANSACTIONS})."),
        format!("In pessimistic mode SELECT is a snapshot read, but UPDATE, DELETE, INSERT and SELECT FOR UPDATE are current reads of the latest committed version under a lock: a second writer waits for the first and then succeeds, as in MySQL ({TIDB_PESSIMISTIC}; {TIDB_ISOLATION}, Difference between TiDB and MySQL Repeatable Read)."),
    ];
    let mut references = vec![TIDB_TRANSACTIONS.to_string()];
    tidb_pessimistic_common(&mut notes);
    tidb_common(&mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::RepeatableRead,
        snapshot: SnapshotPoint::Begin,
        write_reads: WriteReads::LatestCommitted,
        write_conflict: WriteConflict::BlockThenProceed,
        semi_consistent_writes: false,
        predicate_conflicts: false,
        // Pessimistic locks are held until the transaction ends.
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes,
        references,
    }
}

fn tidb_optimistic_repeatable_read() -> LevelSemantics {
    let mut notes = vec![
        format!("Optimistic transactions read everything, writes included, at the start timestamp taken when the transaction starts ({TIDB_OPTIMISTIC}; {TIDB_TRANSACTIONS})."),
        format!("Writes take no locks while the transaction runs; at COMMIT, a transaction that finds a row it wrote changed by another transaction since it started fails and is rolled back ({TIDB_ISOLATION}; {TIDB_OPTIMISTIC})."),
        format!("Snapshot isolation allows write skew: writes are computed from the start snapshot and conflicts are checked only on the rows written, so a run's writes need not match the committed transactions run serially in commit order ({TIDB_ISOLATION}, Difference between TiDB and ANSI Repeatable Read)."),
    ];
    let mut references = vec![TIDB_OPTIMISTIC.to_string(), TIDB_TRANSACTIONS.to_string()];
    tidb_common(&mut notes, &mut references);
    LevelSemantics {
        level: IsolationLevel::RepeatableRead,
        snapshot: SnapshotPoint::Begin,
        write_reads: WriteReads::Snapshot,
        write_conflict: WriteConflict::AbortAtCommit,
        semi_consistent_writes: false,
        predicate_conflicts: false,
        // Nothing makes a writer wait for a concurrent one to commit, so the
        // committed writes need not be equivalent to any commit-order run.
        serial_order: SerialOrder::AnyOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes,
        references,
    }
}

/// How InnoDB and TiDB execute statements where vendors differ (every level).
pub fn engine(flavor: Flavor) -> EngineSemantics {
    let d = docs(flavor);
    match flavor {
        Flavor::Mysql | Flavor::Mariadb => EngineSemantics {
            // update.html: "If you set a column to the value it currently has,
            // MySQL notices this and does not update it": the row keeps its
            // version, and the updater's snapshot keeps showing the version it
            // had (MDEV-26642, closed as a design decision; MySQL#104986).
            same_value_update: SameValueUpdate::NoVersion,
            // replace.html: "a storage engine may perform the REPLACE as an
            // update rather than a delete plus insert".
            replace_may_update_in_place: true,
            // locks-set page: only exclusive index record locks make InnoDB also
            // lock the clustered index record, so a shared locking read served
            // from a covering secondary index locks that index only (a writer
            // of other columns went through on MariaDB 10.11).
            shared_reads_may_lock_only_a_covering_index: true,
            // consistent-read page: the snapshot is established by the first
            // consistent read; InnoDB opens the read view when a read first
            // touches the table, which a read with an impossible WHERE never
            // does (MariaDB 10.11: after `WHERE c IS NULL` on a NOT NULL column
            // a REPEATABLE READ transaction still saw a later commit).
            first_read_snapshot_needs_table_access: true,
            // isolation levels page (READ UNCOMMITTED reads may use a row
            // version not yet committed) and locks-set page (a write locks the
            // records as it scans them): an UPDATE that waits for a lock has
            // already changed the rows it reached (seen on MariaDB 10.11).
            dirty_reads_see_partial_writes: true,
            // ansi-diff-foreign-keys.html: "InnoDB checks UNIQUE and FOREIGN
            // KEY constraints row-by-row" (seen on MariaDB 10.11: a multi-row
            // UPDATE of a UNIQUE column collided in one run and not in another).
            unique_checked_per_row: true,
            // innodb-error-handling: "A duplicate-key error rolls back the SQL
            // statement", as do most other errors; only a deadlock (and, with
            // innodb_rollback_on_timeout, a lock-wait timeout) rolls back the
            // whole transaction, and neither happens on one session alone.
            failed_statement_keeps_transaction: true,
            notes: vec![
                format!("An UPDATE that sets a column to the value it already has does not update it ({MYSQL_UPDATE}), so the row keeps its version and the updater's snapshot reads keep showing the snapshot's version ({MDEV_26642}, a design decision)."),
                format!("A storage engine may perform REPLACE as an update of the existing row rather than a delete and an insert ({MYSQL_REPLACE})."),
                format!("A shared locking read may lock only the records of a secondary index that covers it: InnoDB also locks the clustered index record only for exclusive locks ({MYSQL_LOCKS_SET})."),
                format!("The REPEATABLE READ snapshot is established by the first consistent read ({}); a read the optimizer answers without touching the table (an impossible WHERE) does not establish it.", d.repeatable_read),
                format!("READ UNCOMMITTED reads may see rows a waiting UPDATE changed before it waited: writes lock and change rows as they scan them ({}; {}).", d.read_uncommitted, d.locks_set),
                format!("UNIQUE and PRIMARY KEY constraints are checked row by row, so whether a multi-row UPDATE of a key collides depends on the order it visits the rows ({MYSQL_FOREIGN_KEY_DIFFERENCES})."),
                format!("A statement that fails with a duplicate key (and most other errors) is rolled back alone and its transaction goes on; a deadlock rolls back the whole transaction ({MYSQL_ERROR_HANDLING})."),
            ],
        },
        Flavor::Tidb => EngineSemantics {
            // TiDB#28212: the same case as MDEV-26642; TiDB too keeps the
            // snapshot's version of a row a same-value UPDATE left unchanged.
            same_value_update: SameValueUpdate::NoVersion,
            // The cautious default: TiDB documents REPLACE as a combined
            // DELETE and INSERT, but not whether a replaced row keeps its
            // identity for snapshots and locks.
            replace_may_update_in_place: true,
            // TiDB has no shared locking read (features.select_for_share is
            // false); the cautious default stands.
            shared_reads_may_lock_only_a_covering_index: true,
            // transaction-isolation-levels: REPEATABLE READ reads at the
            // transaction's start timestamp, READ COMMITTED per statement; no
            // level waits for a read to take its snapshot.
            first_read_snapshot_needs_table_access: false,
            // TiDB offers no READ UNCOMMITTED (see `levels`): no read sees
            // uncommitted writes.
            dirty_reads_see_partial_writes: false,
            // Not documented: the cautious default.
            unique_checked_per_row: true,
            // Not documented: the cautious default.
            failed_statement_keeps_transaction: false,
            notes: vec![
                format!("A same-value UPDATE leaves the row's version as it was for the updater's snapshot reads ({TIDB_28212})."),
                format!("Snapshots are taken when the transaction starts (REPEATABLE READ) or per statement (READ COMMITTED), never deferred to a later read ({TIDB_ISOLATION})."),
                format!("No READ UNCOMMITTED and no shared locking reads ({TIDB_ISOLATION}; {TIDB_PESSIMISTIC})."),
            ],
        },
    }
}

/// Where START TRANSACTION WITH CONSISTENT SNAPSHOT takes the snapshot at
/// once: InnoDB's REPEATABLE READ (`begin_snapshot` in syntax.rs). TiDB's
/// snapshot is at BEGIN in any form.
pub fn snapshot_begin_levels(flavor: Flavor) -> Vec<IsolationLevel> {
    match flavor {
        Flavor::Mysql | Flavor::Mariadb => vec![IsolationLevel::RepeatableRead],
        Flavor::Tidb => Vec::new(),
    }
}

/// The statements and column types `flavor` supports.
pub fn features(flavor: Flavor) -> Features {
    Features {
        // https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html; TiDB
        // supports it in both modes (https://docs.pingcap.com/tidb/stable/pessimistic-transaction).
        select_for_update: true,
        // MySQL: FOR SHARE; MariaDB: LOCK IN SHARE MODE. TiDB has no shared lock
        // (see `row_lock` in syntax.rs).
        select_for_share: flavor != Flavor::Tidb,
        // https://dev.mysql.com/doc/refman/8.0/en/replace.html
        replace: true,
        // https://dev.mysql.com/doc/refman/8.0/en/insert.html (IGNORE)
        insert_ignore: true,
        snapshot_begin_levels: snapshot_begin_levels(flavor),
        // DECIMAL is exact up to 65 digits
        // (https://dev.mysql.com/doc/refman/8.0/en/fixed-point-types.html). TEXT
        // columns cannot be keyed or indexed without a prefix; such keys are
        // refused (`check_key_column` in syntax.rs).
        column_types: sql::COLUMN_TYPES.to_vec(),
    }
}
