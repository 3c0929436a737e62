//! From what the stream executor recorded to the list-append history: each
//! statement read back as the micro-op it is (`sql_list::decode`), each read
//! reply as its list.

use super::window::ListTxn;
use crate::executor::stream::{TxnEnd, TxnRun};
use txlab_history::formats::sql_list::{self, SqlMop};
use txlab_history::{Interval, TxnId, TxnOutcome};
use txlab_plugin_api::ir::*;

/// Why a recorded run is not a list-append history.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotListAppend {
    #[error("the generator's case has {0} tables: a stream checks list-append histories only, over the one table of the `elle` generator")]
    Tables(usize),
    #[error("`{0}` is not a list-append statement (an append, a read of one key or the creation of keys, as the `elle` generator writes them): a stream checks list-append histories only")]
    Statement(String),
    #[error("case {case}, transaction {txn}: {error}")]
    List {
        case: u64,
        txn: usize,
        error: sql_list::ListError,
    },
}

/// The table of the case's workload, after checking that every statement
/// of it is the workload's.
pub fn workload_table(case: &TestCase) -> Result<String, NotListAppend> {
    let [table] = case.schema.tables.as_slice() else {
        return Err(NotListAppend::Tables(case.schema.tables.len()));
    };
    for s in case.transactions.iter().flat_map(|t| &t.statements) {
        if !s.is_control() && sql_list::decode(&table.name, s).is_none() {
            return Err(NotListAppend::Statement(format!("{s:?}")));
        }
    }
    Ok(table.name.clone())
}

/// The smallest key a case names: the session's later cases touch none
/// below it (the keys of a generation, which the case's `Ensure` lists).
pub fn floor(case: &TestCase, table: &str) -> Option<i64> {
    case.transactions
        .iter()
        .flat_map(|t| &t.statements)
        .filter_map(|s| match sql_list::decode(table, s)? {
            SqlMop::Ensure { keys } => keys.into_iter().min(),
            SqlMop::Append { key, .. } | SqlMop::Write { key, .. } | SqlMop::Read { key } => {
                Some(key)
            }
        })
        .min()
}

/// The case's key generation: the smallest key its `Ensure` names divided
/// by the number of keys it names (the `elle` generator's generations are
/// consecutive blocks of as many keys); `None` without an `Ensure`.
pub fn generation(case: &TestCase, table: &str) -> Option<u64> {
    let keys = case
        .transactions
        .iter()
        .flat_map(|t| &t.statements)
        .find_map(|s| match sql_list::decode(table, s)? {
            SqlMop::Ensure { keys } => Some(keys),
            _ => None,
        })?;
    let first = *keys.iter().min()?;
    Some(first.div_euclid(keys.len() as i64).max(0) as u64)
}

/// The transaction in list-append terms, `None` for one that neither read
/// nor appended (the autocommit creation of keys).
pub fn list_txn(id: TxnId, run: &TxnRun, table: &str) -> Result<Option<ListTxn>, NotListAppend> {
    let mut mops = Vec::new();
    let mut first_read_reply: Option<u64> = None;
    for s in &run.statements {
        let Some(mop) = sql_list::decode(table, &s.statement) else {
            continue;
        };
        match (&mop, &s.outcome) {
            (SqlMop::Ensure { .. }, _) => {}
            // An append or write that failed changed nothing; one without a
            // reply may have taken effect (its transaction then did not
            // commit).
            (
                SqlMop::Append { .. } | SqlMop::Write { .. },
                Outcome::Affected { rows: 1.. } | Outcome::NoReply,
            ) => mops.push((mop, None)),
            (SqlMop::Append { .. } | SqlMop::Write { .. }, _) => {}
            (SqlMop::Read { .. }, Outcome::Rows { rows, .. }) => {
                let list = sql_list::parse_list(rows).map_err(|error| NotListAppend::List {
                    case: run.case_index,
                    txn: run.txn,
                    error,
                })?;
                first_read_reply.get_or_insert(s.replied_us);
                mops.push((mop, Some(list)));
            }
            (SqlMop::Read { .. }, _) => {}
        }
    }
    if mops.is_empty() && run.kind == TxnKind::Autocommit {
        return Ok(None);
    }
    let (Some(first), Some(last)) = (run.statements.first(), run.statements.last()) else {
        return Ok(None);
    };
    // The snapshot is taken at BEGIN at the earliest and by the first read's
    // reply at the latest (InnoDB takes it at the first consistent read);
    // the end lies within the last statement.
    let started = Interval::new(
        first.submitted_us,
        first_read_reply.unwrap_or(last.replied_us),
    );
    let ended = Interval::new(last.submitted_us, last.replied_us);
    Ok(Some(ListTxn {
        id,
        session: run.session,
        level: run.isolation,
        outcome: match run.end {
            TxnEnd::Committed => TxnOutcome::Committed,
            TxnEnd::Aborted(_) => TxnOutcome::Aborted,
            TxnEnd::Unknown => TxnOutcome::Unknown,
        },
        mops,
        invoked_us: first.submitted_us,
        completed_us: last.replied_us,
        started,
        ended,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::stream::StatementRun;

    fn statement(s: Statement, at: u64, outcome: Outcome) -> StatementRun {
        StatementRun {
            statement: s,
            submitted_us: at,
            replied_us: at + 1,
            outcome,
        }
    }

    #[test]
    fn appends_that_changed_a_row_and_reads_become_micro_ops() {
        let t = "elle_list";
        let read = sql_list::statement(t, &SqlMop::Read { key: 2 });
        let append = |value| sql_list::statement(t, &SqlMop::Append { key: 2, value });
        let run = TxnRun {
            session: 3,
            case_index: 9,
            txn: 1,
            isolation: IsolationLevel::RepeatableRead,
            kind: TxnKind::Explicit,
            statements: vec![
                statement(Statement::Begin, 10, Outcome::Done),
                statement(append(5), 20, Outcome::Affected { rows: 1 }),
                statement(append(6), 30, Outcome::Affected { rows: 0 }),
                statement(
                    read,
                    40,
                    Outcome::Rows {
                        columns: vec!["v".into()],
                        rows: vec![vec![Value::Text(",1,5".into())]],
                    },
                ),
                statement(Statement::Commit, 50, Outcome::Done),
            ],
            end: TxnEnd::Committed,
        };
        let l = list_txn(4, &run, t).unwrap().unwrap();
        assert_eq!(
            l.mops,
            vec![
                (SqlMop::Append { key: 2, value: 5 }, None),
                (SqlMop::Read { key: 2 }, Some(vec![1, 5]))
            ]
        );
        assert_eq!((l.id, l.session, l.outcome), (4, 3, TxnOutcome::Committed));
        assert_eq!(l.started, Interval::new(10, 41));
        assert_eq!(l.ended, Interval::new(50, 51));
    }
}
