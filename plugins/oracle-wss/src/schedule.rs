//! The FCRFS serial order ("first commit/rollback first scheduled", WriteCheck
//! §5.4) and the serial schedules of both WSS variants.

use crate::config::Variant;
use txlab_plugin_api::prelude::*;

/// Why no serial order can be derived: the history contradicts its case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("{txn} is recorded as {end} but its last statement is not COMMIT or ROLLBACK")]
    NoEndStatement { txn: String, end: &'static str },
    #[error("{txn} is an autocommit transaction recorded as rolled back")]
    AutocommitRolledBack { txn: String },
    #[error("{txn} is recorded as aborted by {by}, a statement of another transaction or none")]
    ForeignAbort { txn: String, by: StatementRef },
    #[error("{txn} ended at {at}, which is not in the completion order")]
    EndNotCompleted { txn: String, at: StatementRef },
}

impl From<ScheduleError> for PluginError {
    fn from(e: ScheduleError) -> Self {
        PluginError::invalid_input(e.to_string())
    }
}

/// The statement whose completion ended transaction `t`; `None` while unfinished.
pub fn end_statement(
    case: &TestCase,
    history: &History,
    t: usize,
) -> Result<Option<StatementRef>, ScheduleError> {
    let txn = &case.transactions[t];
    let label = || txn_label(t);
    match (&history.transactions[t].end, txn.kind) {
        (TxnEnd::Unfinished, _) => Ok(None),
        (TxnEnd::Aborted { by, .. }, _) => {
            if by.txn() == t && by.stmt() < txn.statements.len() {
                Ok(Some(*by))
            } else {
                Err(ScheduleError::ForeignAbort {
                    txn: label(),
                    by: *by,
                })
            }
        }
        (TxnEnd::RolledBack, TxnKind::Autocommit) => {
            Err(ScheduleError::AutocommitRolledBack { txn: label() })
        }
        (_, TxnKind::Autocommit) => Ok(Some(StatementRef::new(t, 0))),
        (end, TxnKind::Explicit) => match txn.statements.last() {
            Some(last) if last.is_end() => Ok(Some(StatementRef::new(t, txn.statements.len() - 1))),
            _ => Err(ScheduleError::NoEndStatement {
                txn: label(),
                end: if *end == TxnEnd::Committed {
                    "committed"
                } else {
                    "rolled back"
                },
            }),
        },
    }
}

/// Transactions in the order their ending statements completed: the FCRFS order.
/// Unfinished transactions are left out.
pub fn fcrfs_order(case: &TestCase, history: &History) -> Result<Vec<usize>, ScheduleError> {
    let ends = (0..case.transactions.len())
        .map(|t| end_statement(case, history, t))
        .collect::<Result<Vec<_>, _>>()?;
    let mut order = Vec::new();
    for at in &history.completion_order {
        if let Some(t) = ends.iter().position(|end| end.as_ref() == Some(at)) {
            if !order.contains(&t) {
                order.push(t);
            }
        }
    }
    for (t, end) in ends.iter().enumerate() {
        if let Some(at) = end {
            if !order.contains(&t) {
                return Err(ScheduleError::EndNotCompleted {
                    txn: txn_label(t),
                    at: *at,
                });
            }
        }
    }
    Ok(order)
}

/// One transaction of a serial schedule: which of its statements run, in order,
/// on a session of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SerialTxn {
    pub txn: usize,
    pub isolation: IsolationLevel,
    pub statements: Vec<usize>,
}

impl SerialTxn {
    pub fn refs(&self) -> impl Iterator<Item = StatementRef> + '_ {
        self.statements
            .iter()
            .map(move |&s| StatementRef::new(self.txn, s))
    }
}

/// The serial schedule of `variant` over the FCRFS `order`.
///
/// tx-WSS replays every transaction that did not abort, whole; stmt-WSS replays
/// the statements of committed transactions without their BEGIN/COMMIT. Aborted
/// transactions never appear: they must have had no effect.
pub fn serial_schedule(
    variant: Variant,
    case: &TestCase,
    history: &History,
    order: &[usize],
) -> Vec<SerialTxn> {
    order
        .iter()
        .filter_map(|&t| {
            let txn = &case.transactions[t];
            let statements: Vec<usize> = match (variant, &history.transactions[t].end) {
                (_, TxnEnd::Aborted { .. } | TxnEnd::Unfinished) => return None,
                (Variant::Tx, _) => (0..txn.statements.len()).collect(),
                (Variant::Stmt, TxnEnd::Committed) => txn
                    .statements
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| !s.is_control())
                    .map(|(i, _)| i)
                    .collect(),
                (Variant::Stmt, _) => return None,
            };
            // A committed transaction of control statements only has nothing to replay.
            if statements.is_empty() {
                return None;
            }
            Some(SerialTxn {
                txn: t,
                isolation: txn.isolation,
                statements,
            })
        })
        .collect()
}
