//! The schedule executor: WriteCheck's and Troc's Algorithm 1, for N transactions.
//!
//! Statements are sent one at a time in the case's submitted order, each
//! transaction on its own session. A statement that does not return is *blocked*
//! once the monitor's lock-wait probe confirms it (a timeout is only the fallback,
//! and then the run is marked as not fully observed); its transaction's later
//! statements wait. After a transaction ends (COMMIT, ROLLBACK or abort) the
//! executor waits until every blocked statement has either resumed or is confirmed
//! still waiting, records resumed statements in the order their replies arrived,
//! and starts again from the beginning of the submitted order.

use crate::driver::{Deadlines, Interrupt, Monitor, NoAnswer, QueryResult, Session};
use std::time::Duration;
use txlab_loader::{CallError, DialectHandle};
use txlab_plugin_api::ir::*;

#[derive(Clone, Copy, Debug)]
pub struct ExecutorSettings {
    /// How long after submitting a statement to wait for its reply before
    /// the first lock-wait probe (the servers show a lock wait about 0.5 ms
    /// after the statement was sent).
    pub probe_after: Duration,
    /// Between lock-wait probes while a statement gives no reply.
    pub probe_interval: Duration,
    /// A statement without reply counts as blocked after this long when the probe
    /// cannot tell (the run is then marked as not fully observed).
    pub block_timeout: Duration,
    /// After a transaction ends, how long to wait for a blocked statement whose
    /// state the probe cannot tell.
    pub settle_timeout: Duration,
    /// When every unfinished transaction is blocked and nothing moves for this
    /// long, the case is wound down as a stall.
    pub stall_timeout: Duration,
    /// A statement that runs (not waits) this long without a reply is given up.
    pub reply_timeout: Duration,
    /// A pause after a statement is confirmed blocked and after a statement
    /// that ended a transaction, before the next statement is sent, as a
    /// person typing into two clients would leave: some bugs show only when
    /// a waiting statement has settled into its wait. Zero by default;
    /// confirmation runs raise it. For a paced case the case runner also
    /// creates the tables afresh and leaves the same pause after that
    /// set-up, before the first statement.
    pub pace: Duration,
    /// Table resets and session set-ups go as one request each where the
    /// driver sends several statements at once (the same statements; one
    /// round trip instead of one per statement), and a scratch session whose
    /// last statement was a COMMIT or ROLLBACK that succeeded is handed back
    /// without another ROLLBACK. The executor itself sends a case's
    /// statements one at a time either way.
    pub fewer_round_trips: bool,
    /// How long the monitor's probes and cancels may take before the server
    /// counts as not answering (a case's own statements are bounded by the
    /// timeouts above).
    pub deadlines: Deadlines,
}

impl Default for ExecutorSettings {
    fn default() -> Self {
        ExecutorSettings {
            probe_after: Duration::from_micros(250),
            probe_interval: Duration::from_micros(500),
            block_timeout: Duration::from_millis(500),
            settle_timeout: Duration::from_millis(200),
            stall_timeout: Duration::from_secs(10),
            reply_timeout: Duration::from_secs(15),
            pace: Duration::ZERO,
            fewer_round_trips: true,
            deadlines: Deadlines::default(),
        }
    }
}

/// The outcome of a statement that returned: rows for a query (a SELECT or an
/// IR 1.1 `Statement::Query`, even an empty one, whose columns some drivers
/// cannot tell), done for a control statement, affected rows otherwise.
pub fn success_outcome(r: QueryResult, statement: &Statement) -> Outcome {
    if r.returns_rows || matches!(statement, Statement::Select(_) | Statement::Query(_)) {
        Outcome::Rows {
            columns: r.columns,
            rows: r.rows,
        }
    } else if statement.is_control() {
        Outcome::Done
    } else {
        Outcome::Affected { rows: r.affected }
    }
}

/// Turns driver errors into classified database errors.
pub trait ErrorClassifier: Sync {
    fn classify(&self, raw: &RawDbError) -> Result<DbError, CallError>;
}

impl ErrorClassifier for DialectHandle {
    fn classify(&self, raw: &RawDbError) -> Result<DbError, CallError> {
        self.classify_error(raw)
    }
}

/// Failures that make a case's run meaningless (tool errors, not findings).
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("the case needs {needed} sessions, {given} were given")]
    NotEnoughSessions { needed: usize, given: usize },
    #[error("the rendered case does not match the case: {0}")]
    RenderMismatch(String),
    #[error(transparent)]
    Classify(#[from] CallError),
    #[error("a session task ended unexpectedly")]
    SessionGone,
    /// The monitor's probe or cancel got no answer in time: the server is
    /// frozen or unreachable.
    #[error(transparent)]
    NoAnswer(#[from] NoAnswer),
    /// The run was asked to stop; the statements in flight were cancelled.
    #[error("the run was interrupted; the statements in flight were cancelled")]
    Interrupted,
}

pub struct ScheduleExecutor<'a> {
    pub settings: ExecutorSettings,
    pub monitor: &'a dyn Monitor,
    pub classifier: &'a dyn ErrorClassifier,
    /// When set, the case stops at once: the statements in flight are
    /// cancelled and their connections dropped.
    pub interrupt: Interrupt,
}

/// Sessions handed back after a case; `None` where a session had to be abandoned
/// (its statement never returned, or its connection broke) and must be replaced.
pub type ReturnedSessions = Vec<Option<Box<dyn Session>>>;

pub mod fine_timer;
mod schedule;
pub use schedule::empty_history;
pub mod stream;

#[cfg(test)]
mod fake;
#[cfg(test)]
mod tests;

#[cfg(test)]
mod outcome_tests {
    use super::*;

    #[test]
    fn an_empty_query_result_is_rows_whatever_the_driver_says() {
        let empty = || QueryResult {
            returns_rows: false,
            columns: Vec::new(),
            rows: Vec::new(),
            affected: 0,
        };
        let query = Statement::Query(Box::new(Query::from_table("t", vec![Expr::column("a")])));
        assert_eq!(
            success_outcome(empty(), &query),
            Outcome::Rows {
                columns: Vec::new(),
                rows: Vec::new()
            }
        );
        let delete = Statement::Delete(Delete {
            table: "t".into(),
            filter: None,
        });
        assert_eq!(
            success_outcome(empty(), &delete),
            Outcome::Affected { rows: 0 }
        );
    }
}
