//! What a dialect tells the host and the oracles: driver, features, the vendor's
//! isolation semantics, and the SQL it renders for a case.

use super::{ColumnType, IsolationLevel, Schema, Statement, TestCase};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DialectInfo {
    /// Registry name of the dialect entry, e.g. `sqlite`.
    pub name: String,
    /// The host driver that speaks to this DBMS: `sqlite`, `mysql` or `postgres`.
    pub driver: String,
    /// The isolation levels the DBMS offers and what each one means there.
    pub levels: Vec<LevelSemantics>,
    pub features: Features,
    /// How the executor confirms that a statement waits for a lock.
    pub lock_probe: LockProbe,
    /// How the host names a session to the lock probe and cancels its
    /// statement, where the driver's own way does not fit the DBMS.
    #[serde(default)]
    pub session_control: SessionControl,
    /// How the DBMS executes statements where vendors differ, at every level.
    /// Absent from older dialects' JSON: every fact then takes its cautious
    /// default (see [`EngineSemantics`]).
    #[serde(default)]
    pub engine: EngineSemantics,
    /// A query the host runs once on the server before the first case, whose
    /// rows are (setting name, value) pairs: the server settings the
    /// dialect's facts depend on. The host hands them back with the server's
    /// version ([`ServerFacts`]) and builds the dialect again for that server.
    /// `None`: nothing the dialect declares depends on the server. IR 1.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_query: Option<String>,
    /// The server this description was built for, as the host read it; `None`
    /// when the dialect was built without reading a server (no server yet, an
    /// embedded database, a library older than IR 1.2). IR 1.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerFacts>,
}

/// What the host read off a server before the first case, for a dialect whose
/// facts follow the server's version or settings (IR 1.2): MariaDB's default
/// `innodb_snapshot_isolation` changed in 11.6.2, and a pipeline that does not
/// set it gets the server's own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerFacts {
    /// The version as the server states it (`SELECT VERSION()`, `SHOW
    /// server_version`).
    pub version: String,
    /// The rows of the dialect's [`DialectInfo::server_query`], by setting
    /// name; a setting the server lacks is absent.
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
}

impl ServerFacts {
    /// The leading `major.minor.patch` of the version, as numbers; missing
    /// parts are 0 (`"11.8.9-MariaDB-0+deb13u1"` is `(11, 8, 9)`, `"17.12
    /// (Debian …)"` is `(17, 12, 0)`). `None` when the version does not start
    /// with a number.
    pub fn version_number(&self) -> Option<(u32, u32, u32)> {
        let lead: String = self
            .version
            .trim()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let mut parts = lead.split('.').filter(|p| !p.is_empty());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        Some((major, minor, patch))
    }

    /// A setting's value, compared without regard to case by its name.
    pub fn setting(&self, name: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A boolean setting as servers spell it (`ON`/`OFF`, `1`/`0`,
    /// `true`/`false`, `yes`/`no`); `None` when absent or spelt otherwise.
    pub fn flag(&self, name: &str) -> Option<bool> {
        match self.setting(name)?.trim().to_ascii_lowercase().as_str() {
            "on" | "1" | "true" | "yes" => Some(true),
            "off" | "0" | "false" | "no" => Some(false),
            _ => None,
        }
    }
}

/// Overrides for the driver's session naming and cancellation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionControl {
    /// A query, run on each new session, whose first value is the session's id
    /// (what `{session}` stands for). Default: the MySQL connection id, the
    /// PostgreSQL backend pid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_query: Option<String>,
    /// SQL run on the monitor connection to cancel the statement of session
    /// `{session}`. Default: `KILL QUERY {session}`, `pg_cancel_backend({session})`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<String>,
}

impl DialectInfo {
    pub fn level(&self, level: IsolationLevel) -> Option<&LevelSemantics> {
        self.levels.iter().find(|l| l.level == level)
    }

    pub fn supports(&self, level: IsolationLevel) -> bool {
        self.level(level).is_some()
    }
}

/// SQL features a generator may use against this dialect.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Features {
    pub select_for_update: bool,
    pub select_for_share: bool,
    /// REPLACE (delete colliding rows, then insert).
    pub replace: bool,
    /// INSERT that skips colliding rows.
    pub insert_ignore: bool,
    /// The levels at which a BEGIN takes the snapshot at once
    /// ([`Statement::BeginSnapshot`](super::Statement::BeginSnapshot)).
    /// Absent from older dialects' JSON: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshot_begin_levels: Vec<IsolationLevel>,
    /// Column types the dialect can create.
    pub column_types: Vec<ColumnType>,
}

/// When a transaction's consistent-read snapshot is established.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotPoint {
    /// No snapshot: reads may see uncommitted data (READ UNCOMMITTED).
    None,
    /// A new snapshot for every statement (READ COMMITTED).
    PerStatement,
    /// At BEGIN (TiDB).
    Begin,
    /// At the first statement of the transaction (PostgreSQL RR/SER).
    FirstStatement,
    /// At the first consistent read (InnoDB RR; SQLite's deferred transactions).
    FirstRead,
}

/// What rows UPDATE, DELETE and locking reads evaluate their predicate on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteReads {
    /// The transaction's snapshot.
    Snapshot,
    /// The latest committed version of each row (InnoDB "current read").
    LatestCommitted,
}

/// What happens when a transaction writes a row another in-flight transaction wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteConflict {
    /// Waits for the holder, then proceeds on the latest version (InnoDB RR: lost
    /// updates are possible by design).
    BlockThenProceed,
    /// Waits for the holder; if it committed, the waiter fails with a serialization
    /// error (PostgreSQL RR/SER: first updater wins).
    BlockThenAbort,
    /// One writer at a time for the whole database; a writer whose snapshot is stale
    /// fails (SQLite WAL: SQLITE_BUSY_SNAPSHOT).
    SingleWriter,
    /// Conflicts surface at COMMIT (optimistic concurrency control).
    AbortAtCommit,
}

/// Which rows a write or locking read that waited for a row lock acts on once
/// it resumes. Two statements of the same text can act on different rows
/// depending on where the wait fell: the oracles model the vendor's rule
/// instead of leaving such a run undecided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterWait {
    /// The statement locks and reads the latest committed version of every
    /// row it reaches, waiting where another transaction holds the row; rows
    /// it passed before the wait kept the version it read (InnoDB locking
    /// reads, UPDATE and DELETE). With `semi_consistent_writes`, an UPDATE
    /// first reads a locked row's last committed version and skips the row
    /// when that version does not match, so it waits only at the first locked
    /// row that matches.
    LatestRows,
    /// The statement scans the snapshot taken when it started; a row another
    /// transaction changed meanwhile is re-checked on its newest version once
    /// that transaction commits, and rows that only the newer state holds or
    /// matches are not seen (PostgreSQL READ COMMITTED, "EvalPlanQual").
    RecheckChanged,
    /// Not declared: a statement that waited while the rows it matches
    /// changed is undecided.
    #[default]
    Unknown,
}

/// Whom a serializable level's promise covers when transactions at other
/// levels run beside it. Meaningless where `serializable` is false.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MixedLevels {
    /// Also a cycle through transactions at weaker levels: this level's
    /// reads hold their locks until commit and every write lock is held
    /// until commit, so each dependency out of one of its transactions
    /// orders the commits (InnoDB's SERIALIZABLE, strict two-phase locking).
    Covered,
    /// Only transactions that all ran at this level: the read/write
    /// dependencies that break a cycle are tracked between them alone
    /// (serializable snapshot isolation), so a cycle through a transaction
    /// at another level gets what the level's snapshot rules give.
    #[default]
    SameLevelOnly,
}

/// Which serial order a correct run's writes are equivalent to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SerialOrder {
    /// The committed transactions in commit order: writes keep their locks until
    /// commit (strict two-phase locking for writes, or one writer at a time).
    CommitOrder,
    /// Some serial order that need not be the commit order: serializable snapshot
    /// isolation may place a transaction before one that committed earlier.
    AnyOrder,
}

/// The vendor's documented meaning of one isolation level. Oracles read these facts
/// instead of hard-coding vendors, and name them in every finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelSemantics {
    pub level: IsolationLevel,
    pub snapshot: SnapshotPoint,
    pub write_reads: WriteReads,
    pub write_conflict: WriteConflict,
    /// UPDATE may skip rows locked by others whose latest committed version does not
    /// match (InnoDB READ COMMITTED semi-consistent read).
    pub semi_consistent_writes: bool,
    /// Writes lock the ranges they scan (gap/next-key or predicate locks, or a
    /// database-wide write lock), so an insert into a scanned range conflicts.
    pub predicate_conflicts: bool,
    /// The serial order the writes of a correct run are equivalent to.
    pub serial_order: SerialOrder,
    /// The vendor promises serializability at this level: when every
    /// transaction of a run uses it, the committed transactions have the effect
    /// of running them one after another in some order (`serial_order` says
    /// which). False where the level is weaker, e.g. snapshot isolation.
    #[serde(default)]
    pub serializable: bool,
    /// Whom `serializable` covers when a run mixes levels. IR 1.1
    /// (additive: an older description reads as
    /// [`MixedLevels::SameLevelOnly`], the smaller claim).
    #[serde(default)]
    pub mixed_levels: MixedLevels,
    /// Which rows a statement that waited for a row lock acts on once it
    /// resumes, at levels where writes read the latest committed rows and
    /// proceed after a wait. IR 1.1 (additive: an older description reads
    /// as [`AfterWait::Unknown`]).
    #[serde(default)]
    pub after_wait: AfterWait,
    /// Short statements of the semantics, each with its source.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Vendor documentation the facts above come from.
    #[serde(default)]
    pub references: Vec<String>,
}

impl LevelSemantics {
    /// WriteCheck's Assumption 1 and its serial order: every write-write conflict,
    /// predicate conflicts included, is blocked or aborted, and the equivalent
    /// serial order is the commit order, so the concurrent run's effect on the
    /// database equals the committed transactions run one after another in
    /// commit order.
    pub fn writes_serialize_in_commit_order(&self) -> bool {
        self.predicate_conflicts
            && !self.semi_consistent_writes
            && self.serial_order == SerialOrder::CommitOrder
    }

    /// One line for reports: "sqlite serializable: snapshot at first read, …".
    pub fn summary(&self) -> String {
        format!(
            "{}: snapshot {}, writes read {}, write conflicts {}, semi-consistent writes {}, predicate conflicts on writes {}, serial order {}, serializable {}",
            self.level,
            match self.snapshot {
                SnapshotPoint::None => "none (dirty reads)",
                SnapshotPoint::PerStatement => "per statement",
                SnapshotPoint::Begin => "at BEGIN",
                SnapshotPoint::FirstStatement => "at the first statement",
                SnapshotPoint::FirstRead => "at the first read",
            },
            match self.write_reads {
                WriteReads::Snapshot => "the snapshot",
                WriteReads::LatestCommitted => "the latest committed rows",
            },
            match self.write_conflict {
                WriteConflict::BlockThenProceed => "block, then proceed",
                WriteConflict::BlockThenAbort => "block, then abort the second writer",
                WriteConflict::SingleWriter => "one writer at a time, stale writers abort",
                WriteConflict::AbortAtCommit => "detected at commit",
            },
            if self.semi_consistent_writes { "yes" } else { "no" },
            if self.predicate_conflicts { "yes" } else { "no" },
            match self.serial_order {
                SerialOrder::CommitOrder => "the commit order",
                SerialOrder::AnyOrder => "any (not necessarily the commit order)",
            },
            if self.serializable { "yes" } else { "no" },
        )
    }
}

/// Whether an UPDATE that writes the values a row already has (a same-value
/// update) makes a new version of the row for the updater's own later
/// snapshot reads. It matters when another transaction committed a change to
/// the row after the updater's snapshot: with a new version the updater then
/// sees the row as it wrote it, without one it keeps seeing its snapshot's
/// version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SameValueUpdate {
    /// Every row the UPDATE matched gets a new version (PostgreSQL; Troc's rule).
    NewVersion,
    /// A row whose values do not change is not written and keeps its version
    /// (InnoDB, TiDB).
    NoVersion,
    /// Not declared: an oracle must accept either reading.
    #[default]
    Unknown,
}

/// How the DBMS executes statements where vendors differ in ways an oracle
/// that models row versions and row locks can see. Unlike [`LevelSemantics`]
/// these facts hold at every isolation level (a fact about snapshots or dirty
/// reads matters only at the levels that take snapshots or read dirty).
///
/// Every fact is optional in JSON: a dialect that does not declare it gets
/// the cautious default, the one under which an oracle answers "undecided"
/// where the vendors differ, rather than report a finding the vendor may
/// consider its design.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineSemantics {
    /// Whether a same-value UPDATE makes a new row version for the updater's
    /// snapshot reads. Default [`SameValueUpdate::Unknown`]: either reading is
    /// accepted.
    pub same_value_update: SameValueUpdate,
    /// REPLACE of an existing row may be performed as an update of that row
    /// (the same record, which snapshots and locks keep following) rather
    /// than as a delete and an insert of another row. Default true: an
    /// oracle that models the delete and the insert cannot then decide how
    /// later reads and writes see the row.
    pub replace_may_update_in_place: bool,
    /// A shared locking read (FOR SHARE) that a secondary index covers (with
    /// the primary key, which such an index carries) may be answered from that
    /// index and lock only its records, so that a writer of other columns of
    /// the rows does not wait for it and it does not wait for a lock on the
    /// rows. Default true: an oracle then predicts no wait for such a read.
    pub shared_reads_may_lock_only_a_covering_index: bool,
    /// At a level whose snapshot is taken at the first read
    /// ([`SnapshotPoint::FirstRead`]), a read takes it only when it touches the
    /// table: a read the DBMS answers without the table (the optimizer finds
    /// its WHERE impossible, e.g. `c IS NULL` on a NOT NULL column) returns no
    /// rows and takes none. Default true: the snapshot may then come from any
    /// read up to the first that returned rows.
    pub first_read_snapshot_needs_table_access: bool,
    /// A dirty read (snapshot [`SnapshotPoint::None`]) may see part of a write
    /// that is waiting for a lock: the DBMS applies a statement row by row, so
    /// the write may have changed the rows it reached before it waited.
    /// Default true: such a read then matches no single state of the rows.
    pub dirty_reads_see_partial_writes: bool,
    /// PRIMARY KEY and UNIQUE constraints are checked after each row a
    /// statement writes, not at the statement's end as the SQL standard
    /// says: a multi-row UPDATE of a key column may collide midway or not,
    /// depending on the order the DBMS visits the rows (its plan). Default
    /// true: a key collision of such an UPDATE in one run only is then no
    /// finding. IR 1.1.
    pub unique_checked_per_row: bool,
    /// A statement that fails inside a transaction undoes only its own
    /// changes and the transaction goes on, as it would have in autocommit
    /// (InnoDB on a duplicate key and most other errors, SQLite's default
    /// ABORT conflict resolution). On one session with no other writer, a
    /// transaction's statements then have the same outcomes and leave the
    /// same rows inside BEGIN … COMMIT as each in autocommit. Default false:
    /// an error aborts the whole transaction (PostgreSQL). IR 1.1.
    pub failed_statement_keeps_transaction: bool,
    /// Short statements of these facts, each with its source.
    pub notes: Vec<String>,
}

impl Default for EngineSemantics {
    /// The cautious default of every fact (see the fields).
    fn default() -> Self {
        EngineSemantics {
            same_value_update: SameValueUpdate::Unknown,
            replace_may_update_in_place: true,
            shared_reads_may_lock_only_a_covering_index: true,
            first_read_snapshot_needs_table_access: true,
            dirty_reads_see_partial_writes: true,
            unique_checked_per_row: true,
            failed_statement_keeps_transaction: false,
            notes: Vec::new(),
        }
    }
}

impl EngineSemantics {
    /// One line for reports: "same-value UPDATE keeps the row's version, …".
    pub fn summary(&self) -> String {
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        format!(
            "same-value UPDATE {}, REPLACE may update the row in place {}, FOR SHARE through a covering index may lock only the index {}, a first-read snapshot needs a read that touches the table {}, dirty reads may see part of a waiting write {}, unique keys checked row by row {}, a failed statement keeps its transaction {}",
            match self.same_value_update {
                SameValueUpdate::NewVersion => "makes a new version",
                SameValueUpdate::NoVersion => "keeps the row's version",
                SameValueUpdate::Unknown => "not declared",
            },
            yes_no(self.replace_may_update_in_place),
            yes_no(self.shared_reads_may_lock_only_a_covering_index),
            yes_no(self.first_read_snapshot_needs_table_access),
            yes_no(self.dirty_reads_see_partial_writes),
            yes_no(self.unique_checked_per_row),
            yes_no(self.failed_statement_keeps_transaction),
        )
    }
}

/// How the executor learns that a session waits for a lock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum LockProbe {
    /// The driver itself knows (the embedded SQLite driver retries on SQLITE_BUSY).
    Driver,
    /// A query on a monitor connection; `{session}` is replaced by the waiting
    /// session's server-side id (MySQL connection id, PostgreSQL backend pid). The
    /// dialect reads its rows: the host sends them back as a
    /// [`LockProbeReading`](super::LockProbeReading) (IR 1.1), and a dialect that
    /// does not read them itself keeps the generic reading, a first value that is
    /// true or non-zero means the session waits
    /// ([`LockProbeReading::first_value_answer`](super::LockProbeReading::first_value_answer)).
    Query { sql: String },
    /// IR 1.0: InnoDB's live status, `SHOW ENGINE INNODB STATUS`, which the host
    /// read itself. From IR 1.1 on it means the same as
    /// `Query { sql: "SHOW ENGINE INNODB STATUS" }`: the host runs that statement
    /// and asks the dialect to read it. A dialect built for IR 1.0 cannot, and
    /// the host then reports that it cannot tell. Declare the `Query` instead.
    InnodbStatus,
    /// No probe: a statement counts as blocked only after the fallback timeout.
    None,
}

/// Server-side limits every session of a run gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionLimits {
    /// A statement running longer is stopped by the server.
    pub statement_timeout_ms: u64,
    /// A statement waiting longer for a lock fails with a lock-wait timeout.
    pub lock_wait_timeout_ms: u64,
}

/// What a new session must be set up for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRequest {
    pub isolation: IsolationLevel,
    pub limits: SessionLimits,
}

/// The statements that set a session up, and checks that it took effect.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionSetup {
    pub statements: Vec<String>,
    /// Run after the statements; a failed check stops the run before any case.
    #[serde(default)]
    pub checks: Vec<SessionCheck>,
}

/// A query whose first value, as text, must equal `expect`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionCheck {
    pub sql: String,
    pub expect: String,
    /// What it means when the check fails, for the error message.
    pub explain: String,
}

/// Asks a dialect to render a whole case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RenderCaseRequest {
    pub case: TestCase,
    pub limits: SessionLimits,
}

/// A database error as the driver reported it, before classification.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RawDbError {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqlstate: Option<String>,
    pub message: String,
    /// Whether the session is still inside a transaction after the error, when the
    /// driver can tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_transaction: Option<bool>,
    /// The driver lost the connection (no server reply at all).
    #[serde(default)]
    pub connection_lost: bool,
    /// The driver's own statement timeout fired.
    #[serde(default)]
    pub timed_out: bool,
}

/// Everything a dialect needs to render one statement on its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RenderRequest {
    pub schema: Schema,
    pub isolation: IsolationLevel,
    pub statement: Statement,
}

/// The SQL text of a whole case, rendered once before it runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RenderedCase {
    /// CREATE TABLE and CREATE INDEX statements.
    pub create: Vec<String>,
    /// Loads the initial rows (one multi-row INSERT per table).
    pub populate: Vec<String>,
    /// Empties every table, for the cheap reset between runs on the same schema.
    pub clear: Vec<String>,
    /// Drops every table of the case.
    pub drop: Vec<String>,
    /// Per transaction: session set-up and the statement texts, index-aligned with
    /// the case's statements.
    pub transactions: Vec<RenderedTransaction>,
    /// One query per table that reads all its rows.
    pub read_state: Vec<TableQuery>,
    /// How the host begins, commits and rolls back the transactions it runs
    /// itself (loading the initial rows, winding down an aborted transaction).
    /// Absent from the JSON of dialects older than IR 1.1, which get the
    /// standard spelling.
    #[serde(default)]
    pub control: TransactionControl,
}

/// The statements that begin, commit and roll back a transaction outside the
/// case, in the dialect's own spelling.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransactionControl {
    pub begin: String,
    pub commit: String,
    pub rollback: String,
}

impl Default for TransactionControl {
    /// `BEGIN`, `COMMIT`, `ROLLBACK`: what SQLite, PostgreSQL and the MySQL
    /// family all accept.
    fn default() -> Self {
        TransactionControl {
            begin: "BEGIN".into(),
            commit: "COMMIT".into(),
            rollback: "ROLLBACK".into(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RenderedTransaction {
    /// Run once on the transaction's session before the case starts.
    pub session: SessionSetup,
    pub statements: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableQuery {
    pub table: String,
    pub columns: Vec<String>,
    pub sql: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialect_without_engine_facts_gets_the_cautious_defaults() {
        let older = r#"{"name":"old","driver":"sqlite","levels":[],
            "features":{"select_for_update":false,"select_for_share":false,"replace":false,
                        "insert_ignore":false,"column_types":[]},
            "lock_probe":{"kind":"driver"}}"#;
        let info: DialectInfo = serde_json::from_str(older).unwrap();
        assert_eq!(info.engine, EngineSemantics::default());
        let partial: EngineSemantics =
            serde_json::from_str(r#"{"same_value_update":"no_version"}"#).unwrap();
        assert_eq!(partial.same_value_update, SameValueUpdate::NoVersion);
        assert!(partial.replace_may_update_in_place);
        assert!(partial.shared_reads_may_lock_only_a_covering_index);
        assert!(partial.first_read_snapshot_needs_table_access);
        assert!(partial.dirty_reads_see_partial_writes);
        assert!(partial.unique_checked_per_row);
    }

    #[test]
    fn engine_facts_round_trip_and_show_in_the_summary() {
        let facts = EngineSemantics {
            same_value_update: SameValueUpdate::NewVersion,
            replace_may_update_in_place: false,
            shared_reads_may_lock_only_a_covering_index: false,
            first_read_snapshot_needs_table_access: false,
            dirty_reads_see_partial_writes: false,
            unique_checked_per_row: false,
            failed_statement_keeps_transaction: true,
            notes: vec!["n".into()],
        };
        let json = serde_json::to_string(&facts).unwrap();
        assert_eq!(
            serde_json::from_str::<EngineSemantics>(&json).unwrap(),
            facts
        );
        assert_eq!(
            facts.summary(),
            "same-value UPDATE makes a new version, REPLACE may update the row in place no, FOR SHARE through a covering index may lock only the index no, a first-read snapshot needs a read that touches the table no, dirty reads may see part of a waiting write no, unique keys checked row by row no, a failed statement keeps its transaction yes"
        );
        assert!(EngineSemantics::default().summary().starts_with(
            "same-value UPDATE not declared, REPLACE may update the row in place yes"
        ));
    }
}

#[cfg(test)]
mod server_facts_tests {
    use super::ServerFacts;

    fn facts(version: &str) -> ServerFacts {
        ServerFacts {
            version: version.into(),
            settings: [("innodb_snapshot_isolation".to_string(), "ON".to_string())].into(),
        }
    }

    #[test]
    fn version_numbers_are_read_off_the_servers_spelling() {
        assert_eq!(
            facts("11.8.9-MariaDB-0+deb13u1 from Debian").version_number(),
            Some((11, 8, 9))
        );
        assert_eq!(facts("9.7.4-2").version_number(), Some((9, 7, 4)));
        assert_eq!(
            facts("17.12 (Debian 17.12-0+deb13u1)").version_number(),
            Some((17, 12, 0))
        );
        assert_eq!(facts("18").version_number(), Some((18, 0, 0)));
        assert_eq!(facts("v8.5.1-TiDB").version_number(), None);
        assert!((11, 6, 2) <= facts("11.6.2-MariaDB").version_number().unwrap());
    }

    #[test]
    fn settings_are_found_whatever_their_case_and_flags_as_servers_spell_them() {
        let f = facts("11.8.9");
        assert_eq!(f.setting("INNODB_SNAPSHOT_ISOLATION"), Some("ON"));
        assert_eq!(f.flag("innodb_snapshot_isolation"), Some(true));
        assert_eq!(f.flag("missing"), None);
    }
}
