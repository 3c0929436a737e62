//! Histories of runs in which no transactions overlapped.

use crate::render::render_statement;
use crate::MemoryDb;
use txlab_plugin_api::prelude::*;

/// Microseconds between a statement's submission and its reply, and between two
/// statements, in the made-up clock of a serial history.
const STEP_US: u64 = 10;

/// Runs whole transactions of `case` one after another in `order` on a fresh
/// [`MemoryDb`] and records the history the executor would record for that run.
///
/// A transaction missing from `order` is never started: its statements are
/// `NotSubmitted` and it stays `Unfinished`. An error ends a transaction (as
/// `Aborted`) when it is a concurrency error, when its scope is wider than the
/// statement, or when the transaction is a single autocommit statement.
///
/// # Panics
/// When `order` names a transaction twice or one that does not exist, or when
/// the case's initial rows do not fit its schema.
pub fn serial_history(case: &TestCase, order: &[usize]) -> History {
    for (i, &txn) in order.iter().enumerate() {
        assert!(
            txn < case.transactions.len(),
            "order names {}, which does not exist",
            txn_label(txn)
        );
        assert!(
            !order[..i].contains(&txn),
            "order names {} twice",
            txn_label(txn)
        );
    }
    let mut db = MemoryDb::with_rows(&case.schema, &case.initial_rows)
        .expect("the case's initial rows fit its schema");
    let mut history = History {
        statements: case
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
            .collect(),
        transactions: case
            .transactions
            .iter()
            .map(|txn| TransactionRecord {
                isolation: txn.isolation,
                end: TxnEnd::Unfinished,
                ended_us: None,
            })
            .collect(),
        ..History::default()
    };
    let mut clock = 0u64;
    for &t in order {
        let txn = &case.transactions[t];
        let session = db
            .open_session(txn.isolation)
            .expect("the in-memory database opens sessions");
        for (s, statement) in txn.statements.iter().enumerate() {
            let at = StatementRef::new(t, s);
            let outcome = db.execute(session, statement).expect("the session is open");
            let record = &mut history.statements[t][s];
            record.submitted_us = Some(clock);
            clock += STEP_US;
            record.completed_us = Some(clock);
            clock += STEP_US;
            record.outcome = outcome.clone();
            history.completion_order.push(at);
            let end = match &outcome {
                Outcome::Error(e)
                    if txn.kind == TxnKind::Autocommit
                        || e.scope != ErrorScope::Statement
                        || e.class.is_concurrency() =>
                {
                    Some(TxnEnd::Aborted {
                        by: at,
                        class: e.class,
                    })
                }
                Outcome::Error(_) => None,
                _ if txn.kind == TxnKind::Autocommit => Some(TxnEnd::Committed),
                _ if s + 1 == txn.statements.len() => match statement {
                    Statement::Commit => Some(TxnEnd::Committed),
                    Statement::Rollback => Some(TxnEnd::RolledBack),
                    _ => None,
                },
                _ => None,
            };
            if let Some(end) = end {
                let record = &mut history.transactions[t];
                record.end = end;
                record.ended_us = history.statements[t][s].completed_us;
                break;
            }
        }
        db.close_session(session)
            .expect("the session is open until closed");
    }
    history.final_state = Some(
        db.read_state()
            .expect("the in-memory database reads its state"),
    );
    history
}
