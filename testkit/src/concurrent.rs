//! Hand-made histories of concurrent runs, for oracle tests: the test says in
//! which order statements completed, what they returned, which waited for a
//! lock, and how the transactions ended; the builder fills in records and
//! times as the executor would.

use crate::render::render_statement;
use txlab_plugin_api::prelude::*;

/// Statement references from transaction indexes, one per statement in order:
/// `[0, 0, 1, 0]` is T1.1, T1.2, T2.1, T1.3 (WriteCheck's and Troc's case
/// files write the same schedule `1-1-2-1`).
///
/// # Panics
/// When an index names no transaction of `transactions`.
pub fn schedule(transactions: &[Transaction], txn_ids: &[usize]) -> Vec<StatementRef> {
    let mut next = vec![0usize; transactions.len()];
    txn_ids
        .iter()
        .map(|&t| {
            next[t] += 1;
            StatementRef::new(t, next[t] - 1)
        })
        .collect()
}

/// Builds the [`History`] of a concurrent run of `case`; see
/// [`concurrent_history`].
#[derive(Clone, Debug)]
pub struct ConcurrentHistory<'a> {
    case: &'a TestCase,
    completion: Vec<StatementRef>,
    outcomes: Vec<(StatementRef, Outcome)>,
    blocked: Vec<(StatementRef, usize)>,
    ends: Option<Vec<TxnEnd>>,
    final_state: Option<DbState>,
    unobserved: Vec<String>,
}

/// Starts the history of a run of `case` whose statements completed in
/// `completion` order, given as transaction indexes as in [`schedule`].
/// Statements not in it were never sent.
///
/// The made-up clock: the statement at completion position `i` (from 0) is
/// sent at `10 i + 1` µs and replies at `10 i + 5` µs; a statement that
/// [waited](ConcurrentHistory::blocked) was sent earlier.
pub fn concurrent_history<'a>(case: &'a TestCase, completion: &[usize]) -> ConcurrentHistory<'a> {
    ConcurrentHistory {
        case,
        completion: schedule(&case.transactions, completion),
        outcomes: Vec::new(),
        blocked: Vec::new(),
        ends: None,
        final_state: None,
        unobserved: Vec::new(),
    }
}

impl ConcurrentHistory<'_> {
    /// What the statement at `at` returned. Without one, a control statement
    /// succeeded and a SELECT returned no rows (and no column names); every
    /// other statement that completed needs one.
    pub fn outcome(mut self, at: StatementRef, outcome: Outcome) -> Self {
        self.outcomes.retain(|(r, _)| *r != at);
        self.outcomes.push((at, outcome));
        self
    }

    /// Several [`outcome`](Self::outcome)s.
    pub fn outcomes(self, outcomes: impl IntoIterator<Item = (StatementRef, Outcome)>) -> Self {
        outcomes
            .into_iter()
            .fold(self, |history, (at, outcome)| history.outcome(at, outcome))
    }

    /// The statement at `at` waited for a lock (the probe confirmed it): it was
    /// sent right after the `sent_after`-th completion (counting from 1), and
    /// replied where the completion order puts it.
    ///
    /// # Panics
    /// When `sent_after` is 0.
    pub fn blocked(mut self, at: StatementRef, sent_after: usize) -> Self {
        assert!(
            sent_after > 0,
            "a statement that waited is sent after a completion"
        );
        self.blocked.push((at, sent_after));
        self
    }

    /// How every transaction ended. Without it, a transaction whose last
    /// completed statement is its COMMIT committed, one whose last is its
    /// ROLLBACK rolled back, and any other never finished.
    pub fn ends(mut self, ends: Vec<TxnEnd>) -> Self {
        self.ends = Some(ends);
        self
    }

    /// The tables after the run; without it the history says the final state
    /// was not read.
    pub fn final_state(mut self, state: DbState) -> Self {
        self.final_state = Some(state);
        self
    }

    /// A note of the executor's that it did not observe something.
    pub fn unobserved(mut self, note: &str) -> Self {
        self.unobserved.push(note.to_string());
        self
    }

    /// # Panics
    /// When a write that completed has no outcome, or `ends`
    /// does not give one end per transaction.
    pub fn build(self) -> History {
        let case = self.case;
        let mut statements: Vec<Vec<StatementRecord>> = case
            .transactions
            .iter()
            .enumerate()
            .map(|(t, txn)| {
                txn.statements
                    .iter()
                    .enumerate()
                    .map(|(s, statement)| StatementRecord {
                        at: StatementRef::new(t, s),
                        sql: render_statement(statement),
                        submitted_us: None,
                        completed_us: None,
                        blocked: None,
                        outcome: Outcome::NotSubmitted,
                    })
                    .collect()
            })
            .collect();
        for (i, &at) in self.completion.iter().enumerate() {
            let statement = case
                .statement(at)
                .expect("the completion order fits the case");
            let given = self
                .outcomes
                .iter()
                .find(|(r, _)| *r == at)
                .map(|(_, o)| o.clone());
            let outcome = given.unwrap_or_else(|| match statement {
                s if s.is_control() => Outcome::Done,
                Statement::Select(_) => Outcome::Rows {
                    columns: vec![],
                    rows: vec![],
                },
                _ => panic!("the history needs an outcome for {at}"),
            });
            let record = &mut statements[at.txn()][at.stmt()];
            record.submitted_us = Some(i as u64 * 10 + 1);
            record.completed_us = Some(i as u64 * 10 + 5);
            record.outcome = outcome;
        }
        for &(at, after) in &self.blocked {
            let record = &mut statements[at.txn()][at.stmt()];
            // Between the reply at position `after` (10 after - 5) and the next
            // submission (10 after + 1).
            record.submitted_us = Some(after as u64 * 10 - 4);
            record.blocked = Some(Blocking {
                detected_us: after as u64 * 10 - 3,
                evidence: BlockEvidence::Probe,
                resumed_after: None,
            });
        }
        let ends = self.ends.unwrap_or_else(|| {
            case.transactions
                .iter()
                .enumerate()
                .map(|(t, txn)| {
                    let last = self.completion.iter().rev().find(|at| at.txn() == t);
                    match last.and_then(|&at| txn.statements.get(at.stmt())) {
                        Some(Statement::Commit) => TxnEnd::Committed,
                        Some(Statement::Rollback) => TxnEnd::RolledBack,
                        _ => TxnEnd::Unfinished,
                    }
                })
                .collect()
        });
        assert_eq!(
            ends.len(),
            case.transactions.len(),
            "one end per transaction"
        );
        let transactions = ends
            .into_iter()
            .zip(&case.transactions)
            .enumerate()
            .map(|(t, (end, txn))| {
                let last = match &end {
                    TxnEnd::Aborted { by, .. } => Some(*by),
                    TxnEnd::Unfinished => None,
                    _ => Some(StatementRef::new(t, txn.statements.len() - 1)),
                };
                TransactionRecord {
                    isolation: txn.isolation,
                    end,
                    ended_us: last.and_then(|at| statements[at.txn()][at.stmt()].completed_us),
                }
            })
            .collect();
        History {
            statements,
            transactions,
            completion_order: self.completion,
            final_state: self.final_state,
            unobserved: self.unobserved,
            server_lost: None,
            cluster: None,
        }
    }
}
