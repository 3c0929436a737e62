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

    /// Whether a serial run cannot go on past this outcome: transactions run
    /// one at a time never conflict, and a statement with no reply has an
    /// unknown effect. What `HostDbRequest::ExecuteEach` stops at with
    /// `until_conflict`.
    pub fn breaks_serial_run(&self) -> bool {
        match self {
            Outcome::NoReply | Outcome::NotSubmitted => true,
            Outcome::Error(e) => e.class.is_concurrency() || e.class.is_unobservable(),
            _ => false,
        }
    }

    pub fn is_success(&self) -> bool {
        matches!(
            self,
            Outcome::Done | Outcome::Rows { .. } | Outcome::Affected { .. }
        )
    }
}

impl fmt::Display for Outcome {
    /// What the statement did, as a report says it: "affected 2 rows",
    /// "returned 3 rows", "failed with constraint violation (1062): …".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Affected { rows: 1 } => f.write_str("affected 1 row"),
            Outcome::Affected { rows } => write!(f, "affected {rows} rows"),
            Outcome::Done => f.write_str("succeeded"),
            Outcome::Rows { rows, .. } => write!(f, "returned {} rows", rows.len()),
            Outcome::Error(e) => write!(f, "failed with {e}"),
            Outcome::NoReply => f.write_str("got no reply"),
            Outcome::NotSubmitted => f.write_str("was not sent"),
        }
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
    /// The connection to the server broke during the case, and what the host
    /// found when it connected again. Absent when nothing broke (and from
    /// histories of hosts older than IR 1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_lost: Option<ServerLoss>,
    /// The case ran on a cluster target (several nodes): where each
    /// transaction ran, and the nodes whose tables still differed from the
    /// first node's once the case settled. Absent for one server. IR 1.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRun>,
}

/// A case's run on a cluster target. IR 1.2.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterRun {
    /// How many nodes the target has.
    pub node_count: u32,
    /// The node (from 0, in the target's order) each transaction ran on, by
    /// transaction index.
    pub nodes: Vec<u32>,
    /// Nodes whose tables, read after the case, still differed from the
    /// first node's (`History::final_state`) when the host stopped waiting
    /// for replication to settle: the nodes disagree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disagreeing: Vec<NodeState>,
    /// How long the host waited for the nodes to agree, in milliseconds.
    #[serde(default)]
    pub settle_ms: u64,
}

/// The tables as one node of a cluster held them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeState {
    pub node: u32,
    pub state: DbState,
}

impl ClusterRun {
    /// Whether the case's transactions ran on more than one node.
    pub fn spans_nodes(&self) -> bool {
        self.nodes.iter().any(|n| Some(n) != self.nodes.first())
    }
}

/// A broken connection to the server, and what the host found after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerLoss {
    /// The first statement that lost its connection; `None` when the loss
    /// showed outside the case's statements (setting up, reading the final
    /// state, or a server that restarted between cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<StatementRef>,
    /// The first error the host saw.
    pub message: String,
    /// Milliseconds from the loss until the server accepted a new connection;
    /// `None` when it did not within the reconnect timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back_after_ms: Option<u64>,
    /// Whether the server had restarted in between (its start time changed);
    /// `None` where the host cannot tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarted: Option<bool>,
    /// How long the host waited for the server.
    pub waited_ms: u64,
}

impl ServerLoss {
    /// Whether the server itself went away (it restarted, refused connections
    /// for a while, or never came back), rather than one connection breaking.
    pub fn server_went_down(&self) -> bool {
        self.restarted == Some(true) || self.back_after_ms != Some(0)
    }
}

impl fmt::Display for ServerLoss {
    /// "the connection broke during T2.3 (…); the server restarted and accepted
    /// connections again after 4.2 s".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the connection to the server broke")?;
        if let Some(at) = self.at {
            write!(f, " during {at}")?;
        }
        write!(f, " ({})", self.message)?;
        let secs = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
        match (self.back_after_ms, self.restarted) {
            (None, _) => write!(
                f,
                "; the server did not accept connections within {}",
                secs(self.waited_ms)
            ),
            (Some(ms), Some(true)) => write!(
                f,
                "; the server restarted and accepted connections again after {}",
                secs(ms)
            ),
            (Some(0), Some(false)) => {
                f.write_str("; the server accepted a new connection at once and had not restarted")
            }
            (Some(ms), Some(false)) => write!(
                f,
                "; the server accepted connections again after {} and had not restarted",
                secs(ms)
            ),
            (Some(ms), None) => write!(
                f,
                "; the server accepted connections again after {} (whether it restarted is unknown)",
                secs(ms)
            ),
        }
    }
}

/// A history that does not fit its case: a host bug, not something an oracle
/// can judge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

impl History {
    /// Whether the case's transactions ran on more than one node of a
    /// cluster: one node's locks and views no longer describe the run.
    pub fn spans_nodes(&self) -> bool {
        self.cluster.as_ref().is_some_and(ClusterRun::spans_nodes)
    }

    /// The node transaction `txn` ran on, on a cluster target.
    pub fn node_of(&self, txn: usize) -> Option<u32> {
        self.cluster.as_ref()?.nodes.get(txn).copied()
    }

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

    /// What the executor could not observe, one sentence each; an oracle that
    /// needs the whole run answers undecided when this is not empty. It lists
    /// the executor's own notes, transactions that never finished, statements
    /// that got no reply or failed in a way that leaves their effect unknown
    /// (lost connection, statement timeout), statements counted as blocked only
    /// because a timeout passed (the probe never confirmed a lock wait, so the
    /// schedule is a guess), and a missing final state. The host notes the
    /// last two kinds itself, but a history from elsewhere need not.
    pub fn unobserved_reasons(&self, case: &TestCase) -> Vec<String> {
        let mut missing: Vec<String> = self
            .unobserved
            .iter()
            .map(|note| format!("the executor reported: {note}"))
            .collect();
        for (t, record) in self.transactions.iter().enumerate() {
            if record.end == TxnEnd::Unfinished {
                missing.push(format!(
                    "{} never finished, so whether it committed is unknown",
                    txn_label(t)
                ));
            }
        }
        for record in self.statements.iter().flatten() {
            let kind = case.kind_name(record.at);
            match &record.outcome {
                Outcome::NoReply => missing.push(format!(
                    "{} ({kind}) got no reply, so its effect is unknown",
                    record.at
                )),
                Outcome::Error(e) if e.class.is_unobservable() => missing.push(format!(
                    "{} ({kind}) failed with {}, so its effect is unknown: {}",
                    record.at, e.class, e.message
                )),
                _ => {}
            }
            if let Some(b) = &record.blocked {
                if b.evidence == BlockEvidence::Timeout {
                    missing.push(format!(
                        "{} counted as blocked after a timeout the lock-wait probe did not confirm",
                        record.at
                    ));
                }
            }
        }
        if let Some(loss) = &self.server_lost {
            missing.push(loss.to_string());
        }
        if self.final_state.is_none() {
            missing.push("the final state of the database was not read".into());
        }
        missing
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
    fn outcomes_display_as_reports_say_them() {
        let error = DbError {
            class: ErrorClass::Constraint,
            scope: ErrorScope::Statement,
            code: Some(1062),
            sqlstate: Some("23000".into()),
            message: "Duplicate entry".into(),
        };
        let texts = [
            (Outcome::Affected { rows: 1 }, "affected 1 row"),
            (Outcome::Affected { rows: 0 }, "affected 0 rows"),
            (Outcome::Done, "succeeded"),
            (
                Outcome::Rows {
                    columns: vec!["a".into()],
                    rows: vec![vec![Value::Int(1)], vec![Value::Int(2)]],
                },
                "returned 2 rows",
            ),
            (
                Outcome::Error(error),
                "failed with constraint violation (1062) [23000]: Duplicate entry",
            ),
            (Outcome::NoReply, "got no reply"),
            (Outcome::NotSubmitted, "was not sent"),
        ];
        for (outcome, text) in texts {
            assert_eq!(outcome.to_string(), text);
        }
    }

    #[test]
    fn unobserved_reasons_name_everything_the_executor_missed() {
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
                statements: vec![Statement::Begin, Statement::Commit, Statement::Rollback],
            }],
            submitted_order: vec![at(0, 0), at(0, 1), at(0, 2)],
            intent: None,
            pace_ms: None,
        };
        let record = |s, outcome| StatementRecord {
            at: at(0, s),
            sql: String::new(),
            submitted_us: None,
            completed_us: None,
            blocked: None,
            outcome,
        };
        let observed = History {
            statements: vec![vec![
                record(0, Outcome::Done),
                record(1, Outcome::Done),
                record(2, Outcome::NotSubmitted),
            ]],
            transactions: vec![txn(TxnEnd::Committed)],
            completion_order: vec![at(0, 0), at(0, 1)],
            final_state: Some(DbState::default()),
            unobserved: vec![],
            server_lost: None,
            cluster: None,
        };
        assert!(observed.unobserved_reasons(&case).is_empty());

        let mut missed = observed;
        missed.unobserved.push("a stall".into());
        missed.transactions[0].end = TxnEnd::Unfinished;
        missed.statements[0][0].blocked = Some(Blocking {
            detected_us: 1,
            evidence: BlockEvidence::Timeout,
            resumed_after: None,
        });
        missed.statements[0][1].outcome = Outcome::Error(DbError {
            class: ErrorClass::ConnectionLost,
            scope: ErrorScope::Connection,
            code: None,
            sqlstate: None,
            message: "broken pipe".into(),
        });
        missed.statements[0][2].outcome = Outcome::NoReply;
        missed.final_state = None;
        assert_eq!(
            missed.unobserved_reasons(&case),
            vec![
                "the executor reported: a stall",
                "T1 never finished, so whether it committed is unknown",
                "T1.1 counted as blocked after a timeout the lock-wait probe did not confirm",
                "T1.2 (COMMIT) failed with connection lost, so its effect is unknown: broken pipe",
                "T1.3 (ROLLBACK) got no reply, so its effect is unknown",
                "the final state of the database was not read",
            ]
        );
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
            intent: None,
            pace_ms: None,
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
