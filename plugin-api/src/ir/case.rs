//! A test case: initial database, transactions, and the order statements are submitted in.

use super::{
    EngineSemantics, ErrorClass, LevelSemantics, Outcome, Schema, SnapshotPoint, Statement, Value,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The isolation levels txlab knows. Which ones a DBMS offers, and what each means
/// there, is the dialect's [`crate::ir::LevelSemantics`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum IsolationLevel {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Snapshot,
    Serializable,
}

impl IsolationLevel {
    pub const ALL: [IsolationLevel; 5] = [
        IsolationLevel::ReadUncommitted,
        IsolationLevel::ReadCommitted,
        IsolationLevel::RepeatableRead,
        IsolationLevel::Snapshot,
        IsolationLevel::Serializable,
    ];

    /// The kebab-case name used in pipelines and reports.
    pub fn name(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "read-uncommitted",
            IsolationLevel::ReadCommitted => "read-committed",
            IsolationLevel::RepeatableRead => "repeatable-read",
            IsolationLevel::Snapshot => "snapshot",
            IsolationLevel::Serializable => "serializable",
        }
    }

    /// The SQL spelling (`REPEATABLE READ`, …).
    pub fn sql(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "READ UNCOMMITTED",
            IsolationLevel::ReadCommitted => "READ COMMITTED",
            IsolationLevel::RepeatableRead => "REPEATABLE READ",
            IsolationLevel::Snapshot => "SNAPSHOT",
            IsolationLevel::Serializable => "SERIALIZABLE",
        }
    }
}

impl fmt::Display for IsolationLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Rows of one table, column order as listed in `columns`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableRows {
    pub table: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnKind {
    /// BEGIN, statements, COMMIT or ROLLBACK, all listed in `statements`.
    #[default]
    Explicit,
    /// A single statement run in autocommit mode.
    Autocommit,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transaction {
    pub isolation: IsolationLevel,
    #[serde(default)]
    pub kind: TxnKind,
    pub statements: Vec<Statement>,
}

impl Transaction {
    /// When the transaction takes its consistent-read snapshot at `level`:
    /// the level's point, or BEGIN where it begins with
    /// [`Statement::BeginSnapshot`] and the level reads from a snapshot at all.
    pub fn snapshot_point(&self, level: &LevelSemantics) -> SnapshotPoint {
        let at_begin = self.statements.first() == Some(&Statement::BeginSnapshot);
        match level.snapshot {
            SnapshotPoint::FirstStatement | SnapshotPoint::FirstRead if at_begin => {
                SnapshotPoint::Begin
            }
            point => point,
        }
    }

    /// Whether the transaction is written to end in COMMIT (it may still abort).
    pub fn intends_commit(&self) -> bool {
        match self.kind {
            TxnKind::Autocommit => true,
            TxnKind::Explicit => matches!(self.statements.last(), Some(Statement::Commit)),
        }
    }
}

/// Names one statement of a case: transaction index and statement index, both from 0.
/// Displayed 1-based, as `T1.2`, the way reports and repro scripts show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StatementRef {
    pub txn: u32,
    pub stmt: u32,
}

impl StatementRef {
    pub fn new(txn: usize, stmt: usize) -> Self {
        StatementRef {
            txn: txn as u32,
            stmt: stmt as u32,
        }
    }
    pub fn txn(self) -> usize {
        self.txn as usize
    }
    pub fn stmt(self) -> usize {
        self.stmt as usize
    }
}

impl fmt::Display for StatementRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "T{}.{}", self.txn + 1, self.stmt + 1)
    }
}

/// Formats a transaction index 1-based, as reports name transactions.
pub fn txn_label(txn: usize) -> String {
    format!("T{}", txn + 1)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    /// The seed this case was generated from; the same seed gives the same case.
    pub seed: u64,
    /// Name of the generator plugin that made the case.
    #[serde(default)]
    pub generator: String,
    pub schema: Schema,
    #[serde(default)]
    pub initial_rows: Vec<TableRows>,
    pub transactions: Vec<Transaction>,
    /// The order the executor submits statements in; it lists every statement once
    /// and keeps each transaction's own order.
    pub submitted_order: Vec<StatementRef>,
    /// What the generator set the case up to show, when it knows (a pattern
    /// generator does): reports and the run summary count cases by it. IR 1.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<CaseIntent>,
    /// The pause, in milliseconds, the case needs after each statement that
    /// blocked and after each transaction's end to show what it was saved
    /// for: a finding that showed only when a blocked statement had settled
    /// into its lock wait before the other transaction went on. Hosts run
    /// the case at least this slowly. IR 1.1 (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace_ms: Option<u64>,
}

/// The anomaly a case was generated to provoke.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseIntent {
    /// The pattern's name, e.g. `lost-update` or `aptrans-37`.
    pub pattern: String,
    /// The anomaly it sets up, e.g. `lost update`.
    pub anomaly: String,
    /// Its phenomenon in Adya's terms, e.g. `G-single`, where one applies.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phenomenon: String,
    /// The isolation levels whose standard definition forbids it.
    #[serde(default)]
    pub forbidden_at: Vec<IsolationLevel>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaseError {
    #[error("the submitted order names {0}, which does not exist")]
    UnknownStatement(StatementRef),
    #[error("the submitted order lists {0} twice")]
    Duplicate(StatementRef),
    #[error("the submitted order lists {later} before {earlier} of the same transaction")]
    OutOfOrder {
        earlier: StatementRef,
        later: StatementRef,
    },
    #[error("the submitted order leaves out {0}")]
    Missing(StatementRef),
    #[error("transaction {0} has no statements")]
    EmptyTransaction(String),
    #[error("initial rows name table `{0}`, which is not in the schema")]
    UnknownTable(String),
}

impl TestCase {
    pub fn statement(&self, at: StatementRef) -> Option<&Statement> {
        self.transactions.get(at.txn())?.statements.get(at.stmt())
    }

    /// The kind of the statement at `at` ("UPDATE", "SELECT FOR SHARE", …), for
    /// messages; "unknown statement" when the case has none there.
    pub fn kind_name(&self, at: StatementRef) -> &'static str {
        self.statement(at)
            .map_or("unknown statement", Statement::kind_name)
    }

    /// Total number of statements over all transactions.
    pub fn statement_count(&self) -> usize {
        self.transactions.iter().map(|t| t.statements.len()).sum()
    }

    /// Checks that the submitted order is a complete interleaving of the transactions.
    /// The first statement, in submitted order, that uses an IR 1.1 query
    /// form, with the form in words: "T1.2 (UPDATE) reads `t2` through a
    /// subquery". Oracles that cannot model these forms answer undecided with it.
    pub fn first_query_form(&self) -> Option<String> {
        self.submitted_order.iter().find_map(|&at| {
            let form = self.statement(at)?.query_form()?;
            Some(format!("{at} {form}"))
        })
    }

    /// Whether two runs' outcomes of statement `at` may differ only by the
    /// order in which the DBMS visited the rows: an UPDATE that assigns a
    /// PRIMARY KEY or UNIQUE column, matched several rows in one run and
    /// failed with a constraint violation in the other, on a DBMS whose
    /// profile says unique keys are checked row by row
    /// ([`EngineSemantics::unique_checked_per_row`]: MySQL-family servers,
    /// PostgreSQL's non-deferred constraints): whether such an UPDATE
    /// collides midway then depends on the plan, not on isolation.
    pub fn row_order_collision(
        &self,
        engine: &EngineSemantics,
        at: StatementRef,
        a: &Outcome,
        b: &Outcome,
    ) -> bool {
        if !engine.unique_checked_per_row {
            return false;
        }
        let Some(Statement::Update(update)) = self.statement(at) else {
            return false;
        };
        let Some(table) = self.schema.table(&update.table) else {
            return false;
        };
        let keyed = |column: &str| {
            std::iter::once(&table.primary_key)
                .chain(&table.unique)
                .any(|key| key.iter().any(|c| c == column))
        };
        if !update.assignments.iter().any(|x| keyed(&x.column)) {
            return false;
        }
        let collided = |o: &Outcome| o.error().is_some_and(|e| e.class == ErrorClass::Constraint);
        let several = |o: &Outcome| matches!(o, Outcome::Affected { rows } if *rows > 1);
        (collided(a) && several(b)) || (collided(b) && several(a))
    }

    pub fn validate(&self) -> Result<(), CaseError> {
        for (i, t) in self.transactions.iter().enumerate() {
            if t.statements.is_empty() {
                return Err(CaseError::EmptyTransaction(txn_label(i)));
            }
        }
        for rows in &self.initial_rows {
            if self.schema.table(&rows.table).is_none() {
                return Err(CaseError::UnknownTable(rows.table.clone()));
            }
        }
        let mut next: Vec<usize> = vec![0; self.transactions.len()];
        for &at in &self.submitted_order {
            let Some(t) = self.transactions.get(at.txn()) else {
                return Err(CaseError::UnknownStatement(at));
            };
            if at.stmt() >= t.statements.len() {
                return Err(CaseError::UnknownStatement(at));
            }
            let expected = next[at.txn()];
            if at.stmt() < expected {
                return Err(CaseError::Duplicate(at));
            }
            if at.stmt() > expected {
                return Err(CaseError::OutOfOrder {
                    earlier: StatementRef::new(at.txn(), expected),
                    later: at,
                });
            }
            next[at.txn()] += 1;
        }
        for (i, t) in self.transactions.iter().enumerate() {
            if next[i] < t.statements.len() {
                return Err(CaseError::Missing(StatementRef::new(i, next[i])));
            }
        }
        Ok(())
    }
}
