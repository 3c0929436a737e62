//! What the executor observed: per statement and per transaction, and the final state.

use super::{cmp_rows, txn_label, IsolationLevel, StatementRef, TestCase, Value};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A database error after the dialect classified it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DbError {
    pub class: ErrorClass,
    /// What the error undid: the statement only, or the whole transaction.
    pub scope: ErrorScope,
    /// Vendor error code (MySQL errno, SQLite extended result code, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqlstate: Option<String>,
    pub message: String,
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.class)?;
        if let Some(code) = self.code {
            write!(f, " ({code})")?;
        }
        if let Some(s) = &self.sqlstate {
            write!(f, " [{s}]")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Why a statement failed, in terms every oracle understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorClass {
    /// The DBMS chose this transaction as a deadlock victim.
    Deadlock,
    /// The statement waited for a lock longer than the DBMS allows.
    LockWaitTimeout,
    /// Write conflict or serialization failure (first-updater-wins, SSI, SQLite BUSY_SNAPSHOT).
    SerializationFailure,
    /// PRIMARY KEY, UNIQUE, NOT NULL or CHECK violation.
    Constraint,
    /// Type conversion, overflow, division by zero and other data errors.
    Data,
    /// The server-side statement timeout fired.
    StatementTimeout,
    /// The transaction was already aborted by an earlier error (PostgreSQL 25P02).
    TransactionAborted,
    /// The connection broke; the outcome of the statement is unknown.
    ConnectionLost,
    /// The DBMS reports an internal error or an assertion: a bug in itself.
    Internal,
    /// The DBMS rejected the SQL text (syntax, unknown column, unsupported feature).
    Syntax,
    Other,
}

impl ErrorClass {
    /// Errors whose occurrence tells that the DBMS's concurrency control acted.
    pub fn is_concurrency(self) -> bool {
        matches!(
            self,
            ErrorClass::Deadlock | ErrorClass::LockWaitTimeout | ErrorClass::SerializationFailure
        )
    }

    /// Errors after which the executor cannot know what the statement did.
    pub fn is_unobservable(self) -> bool {
        matches!(
            self,
            ErrorClass::ConnectionLost | ErrorClass::StatementTimeout
        )
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            ErrorClass::Deadlock => "deadlock",
            ErrorClass::LockWaitTimeout => "lock wait timeout",
            ErrorClass::SerializationFailure => "serialization failure",
            ErrorClass::Constraint => "constraint violation",
            ErrorClass::Data => "data error",
            ErrorClass::StatementTimeout => "statement timeout",
            ErrorClass::TransactionAborted => "transaction already aborted",
            ErrorClass::ConnectionLost => "connection lost",
            ErrorClass::Internal => "internal error",
            ErrorClass::Syntax => "syntax or semantic error",
            ErrorClass::Other => "error",
        };
        f.write_str(s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorScope {
    /// Only the failing statement was undone; the transaction goes on.
    Statement,
    /// The whole transaction was (or must be) rolled back.
    Transaction,
    /// The session is gone.
    Connection,
}

/// The result of one statement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Never sent: its transaction had already ended or aborted.
    NotSubmitted,
    /// Sent, but no reply came before the run ended.
    NoReply,
    /// A statement that returns no rows (control statements, DDL).
    Done,
    Rows {
        columns: Vec<String>,
        rows: Vec<Vec<Value>>,
    },
    Affected {
        rows: u64,
    },
    Error(DbError),
}

impl Outcome {
    pub fn error(&self) -> Option<&DbError> {
        match self {
            Outcome::Error(e) => Some(e),
            _ => None,
        }
    }

    pub fn is_success(&self) -> bool {
        matches!(
            self,
            Outcome::Done | Outcome::Rows { .. } | Outcome::Affected { .. }
        )
    }
}

/// How the executor learnt that a statement was waiting for a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockEvidence {
    /// The dialect's lock-wait probe saw the session waiting.
    Probe,
    /// No reply within the fallback timeout and the probe could not tell.
    Timeout,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Blocking {
    /// Microseconds from the case start to when the executor knew the statement waited.
    pub detected_us: u64,
    pub evidence: BlockEvidence,
    /// The statement whose completion let this one go on, if it resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_after: Option<StatementRef>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementRecord {
    pub at: StatementRef,
    /// The SQL text sent, as the dialect rendered it.
    pub sql: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<Blocking>,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnEnd {
    Committed,
    /// Rolled back by the transaction's own ROLLBACK.
    RolledBack,
    /// Rolled back by the DBMS (deadlock victim, serialization failure, …) or by the
    /// executor after an error that the dialect says ends the transaction.
    Aborted {
        by: StatementRef,
        class: ErrorClass,
    },
    /// The transaction never reached its end (the run stopped, the connection broke).
    Unfinished,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransactionRecord {
    pub isolation: IsolationLevel,
    pub end: TxnEnd,
    /// When the transaction ended (its COMMIT/ROLLBACK completed or it aborted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_us: Option<u64>,
}

/// The contents of every table after the run, rows in canonical order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DbState {
    pub tables: Vec<TableState>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableState {
    pub table: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

impl TableState {
    /// Sorts the rows so that two states compare as multisets of rows.
    pub fn canonicalize(&mut self) {
        self.rows.sort_by(|a, b| cmp_rows(a, b));
    }
}

impl DbState {
    pub fn canonicalize(&mut self) {
        self.tables.sort_by(|a, b| a.table.cmp(&b.table));
        for t in &mut self.tables {
            t.canonicalize();
        }
    }

    pub fn table(&self, name: &str) -> Option<&TableState> {
        self.tables.iter().find(|t| t.table == name)
    }
}

/// Everything the schedule executor recorded for one test case.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// One record per statement, indexed `[txn][stmt]` like the case.
    pub statements: Vec<Vec<StatementRecord>>,
    pub transactions: Vec<TransactionRecord>,
    /// Statements in the order their replies arrived: the actual schedule. Blocked
    /// statements appear where they resumed.
    pub completion_order: Vec<StatementRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_state: Option<DbState>,
    /// Why the executor could not observe the run fully (a stall, a lost connection,
    /// a block it could not confirm). Oracles answer undecided when this is not empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unobserved: Vec<String>,
}

/// A history that does not fit its case: a host bug, not something an oracle
/// can judge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

impl History {
    pub fn record(&self, at: StatementRef) -> Option<&StatementRecord> {
        self.statements.get(at.txn())?.get(at.stmt())
    }

    /// Checks that the history has a record for every transaction and
    /// statement of `case`, and that its completion order names statements of
    /// the case, each at most once.
    pub fn check_shape(&self, case: &TestCase) -> Result<(), ShapeError> {
        if self.transactions.len() != case.transactions.len()
            || self.statements.len() != case.transactions.len()
        {
            return Err(ShapeError(format!(
                "the history has {} transaction records and {} statement lists for {} transactions",
                self.transactions.len(),
                self.statements.len(),
                case.transactions.len()
            )));
        }
        for (t, (txn, records)) in case.transactions.iter().zip(&self.statements).enumerate() {
            if records.len() != txn.statements.len() {
                return Err(ShapeError(format!(
                    "the history has {} statement records for {}, which has {} statements",
                    records.len(),
                    txn_label(t),
                    txn.statements.len()
                )));
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for &at in &self.completion_order {
            if case.statement(at).is_none() {
                return Err(ShapeError(format!(
                    "the completion order names {at}, which does not exist"
                )));
            }
            if !seen.insert(at) {
                return Err(ShapeError(format!("the completion order names {at} twice")));
            }
        }
        Ok(())
    }

    /// Transactions in the order they ended, read off the completion order: a
    /// transaction ends at the last of its statements that completed (its COMMIT
    /// or ROLLBACK), or at the statement that aborted it. Unfinished transactions
    /// are left out. This is the FCRFS order of WriteCheck.
    pub fn end_order(&self) -> Vec<usize> {
        let mut end_position: Vec<Option<usize>> = vec![None; self.transactions.len()];
        for (pos, at) in self.completion_order.iter().enumerate() {
            if let Some(slot) = end_position.get_mut(at.txn()) {
                *slot = Some(pos);
            }
        }
        let mut ended: Vec<(usize, usize)> = self
            .transactions
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let pos = match t.end {
                    TxnEnd::Unfinished => return None,
                    TxnEnd::Aborted { by, .. } => {
                        self.completion_order.iter().position(|at| *at == by)
                    }
                    TxnEnd::Committed | TxnEnd::RolledBack => end_position[i],
                };
                Some((pos.unwrap_or(usize::MAX), i))
            })
            .collect();
        ended.sort();
        ended.into_iter().map(|(_, i)| i).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn txn(end: TxnEnd) -> TransactionRecord {
        TransactionRecord {
            isolation: IsolationLevel::Serializable,
            end,
            ended_us: None,
        }
    }

    #[test]
    fn end_order_follows_the_completion_order() {
        let at = StatementRef::new;
        let h = History {
            transactions: vec![
                txn(TxnEnd::Committed),
                txn(TxnEnd::Aborted {
                    by: at(1, 1),
                    class: ErrorClass::Deadlock,
                }),
                txn(TxnEnd::Unfinished),
                txn(TxnEnd::RolledBack),
            ],
            // T2 aborts at its second statement before T1 commits; T4 rolls back last.
            completion_order: vec![
                at(0, 0),
                at(1, 0),
                at(3, 0),
                at(1, 1),
                at(2, 0),
                at(0, 1),
                at(0, 2),
                at(3, 1),
            ],
            ..History::default()
        };
        assert_eq!(h.end_order(), vec![1, 0, 3]);
    }

    #[test]
    fn a_history_that_does_not_fit_its_case_is_refused() {
        use crate::ir::{Schema, Statement, Transaction, TxnKind};
        let at = StatementRef::new;
        let case = TestCase {
            seed: 0,
            generator: String::new(),
            schema: Schema::default(),
            initial_rows: vec![],
            transactions: vec![Transaction {
                isolation: IsolationLevel::Serializable,
                kind: TxnKind::Explicit,
                statements: vec![Statement::Begin, Statement::Commit],
            }],
            submitted_order: vec![at(0, 0), at(0, 1)],
        };
        let record = |s| StatementRecord {
            at: at(0, s),
            sql: String::new(),
            submitted_us: None,
            completed_us: None,
            blocked: None,
            outcome: Outcome::Done,
        };
        let good = History {
            statements: vec![vec![record(0), record(1)]],
            transactions: vec![txn(TxnEnd::Committed)],
            completion_order: vec![at(0, 0), at(0, 1)],
            ..History::default()
        };
        assert_eq!(good.check_shape(&case), Ok(()));
        let mut short = good.clone();
        short.statements[0].pop();
        assert!(short
            .check_shape(&case)
            .unwrap_err()
            .0
            .contains("1 statement records for T1"));
        let mut twice = good.clone();
        twice.completion_order.push(at(0, 1));
        assert!(twice
            .check_shape(&case)
            .unwrap_err()
            .0
            .contains("T1.2 twice"));
        let mut unknown = good;
        unknown.completion_order.push(at(0, 5));
        assert!(unknown
            .check_shape(&case)
            .unwrap_err()
            .0
            .contains("does not exist"));
    }
}
