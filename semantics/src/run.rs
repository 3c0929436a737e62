//! Reading an experiment's history: statements by their labels (`T1.2`),
//! what they returned, whether they waited, when transactions committed.

use txlab_plugin_api::ir::*;

/// An experiment's history, read by statement labels as the scripts count
/// them: `T1.2` is the second statement of the first session.
pub struct Run<'a> {
    pub history: &'a History,
}

/// A statement label, `T1.2`, as transaction and statement indexes.
fn at(label: &str) -> (usize, usize) {
    let (t, s) = label
        .strip_prefix('T')
        .and_then(|rest| rest.split_once('.'))
        .expect("a label like T1.2");
    let index = |n: &str| n.parse::<usize>().expect("a number") - 1;
    (index(t), index(s))
}

impl<'a> Run<'a> {
    pub fn new(history: &'a History) -> Self {
        Run { history }
    }

    fn record(&self, label: &str) -> Option<&'a StatementRecord> {
        let (t, s) = at(label);
        self.history.statements.get(t)?.get(s)
    }

    /// Why the run cannot be judged at all: the executor did not observe it
    /// fully, the server went away, a statement got no reply.
    pub fn unjudgeable(&self) -> Option<String> {
        if let Some(note) = self.history.unobserved.first() {
            return Some(format!("the run was not fully observed: {note}"));
        }
        if let Some(loss) = &self.history.server_lost {
            return Some(format!("the server was lost: {}", loss.message));
        }
        for record in self.history.statements.iter().flatten() {
            match &record.outcome {
                Outcome::NoReply => return Some(format!("{} got no reply", record.at)),
                Outcome::Error(e)
                    if matches!(
                        e.class,
                        ErrorClass::ConnectionLost
                            | ErrorClass::Internal
                            | ErrorClass::Syntax
                            | ErrorClass::StatementTimeout
                            | ErrorClass::LockWaitTimeout
                    ) =>
                {
                    return Some(format!("{} failed with {e}", record.at))
                }
                _ => {}
            }
        }
        None
    }

    pub fn outcome(&self, label: &str) -> Option<&'a Outcome> {
        self.record(label).map(|r| &r.outcome)
    }

    /// Whether the statement waited for a lock.
    pub fn blocked(&self, label: &str) -> bool {
        self.record(label).is_some_and(|r| r.blocked.is_some())
    }

    pub fn succeeded(&self, label: &str) -> bool {
        self.outcome(label).is_some_and(Outcome::is_success)
    }

    /// The class of the error the statement failed with.
    pub fn error(&self, label: &str) -> Option<ErrorClass> {
        self.outcome(label)?.error().map(|e| e.class)
    }

    /// The one integer a statement returned (one row, first column).
    pub fn int(&self, label: &str) -> Option<i64> {
        match self.outcome(label)? {
            Outcome::Rows { rows, .. } if rows.len() == 1 => as_int(rows[0].first()?),
            _ => None,
        }
    }

    /// How many rows a write affected.
    pub fn affected(&self, label: &str) -> Option<u64> {
        match self.outcome(label)? {
            Outcome::Affected { rows } => Some(*rows),
            _ => None,
        }
    }

    /// Whether transaction `txn` (1 = T1) committed.
    pub fn committed(&self, txn: usize) -> bool {
        self.history
            .transactions
            .get(txn - 1)
            .is_some_and(|t| t.end == TxnEnd::Committed)
    }

    /// Whether transaction `txn` committed before statement `label` was sent.
    pub fn committed_before(&self, txn: usize, label: &str) -> bool {
        let Some(sent) = self.record(label).and_then(|r| r.submitted_us) else {
            return false;
        };
        self.committed(txn)
            && self
                .history
                .transactions
                .get(txn - 1)
                .and_then(|t| t.ended_us)
                .is_some_and(|ended| ended <= sent)
    }

    /// Column `v` of table `t`'s row with `id`, in the final state.
    pub fn final_v(&self, id: i64) -> Option<i64> {
        let table = self.history.final_state.as_ref()?.table("t")?;
        let id_at = table.columns.iter().position(|c| c == "id")?;
        let v_at = table.columns.iter().position(|c| c == "v")?;
        table
            .rows
            .iter()
            .find(|row| row.get(id_at).and_then(as_int) == Some(id))
            .and_then(|row| row.get(v_at).and_then(as_int))
    }

    /// The ids of table `t` in the final state, sorted.
    pub fn final_ids(&self) -> Option<Vec<i64>> {
        let table = self.history.final_state.as_ref()?.table("t")?;
        let id_at = table.columns.iter().position(|c| c == "id")?;
        let mut ids: Vec<i64> = table
            .rows
            .iter()
            .filter_map(|row| row.get(id_at).and_then(as_int))
            .collect();
        ids.sort_unstable();
        Some(ids)
    }

    /// What a statement did, for a report: "waited, then affected 1 row".
    pub fn describe(&self, label: &str) -> String {
        let Some(record) = self.record(label) else {
            return format!("{label} did not run");
        };
        let did = match &record.outcome {
            Outcome::Rows { rows, .. } if rows.len() == 1 && rows[0].len() == 1 => {
                format!("returned {}", show(&rows[0][0]))
            }
            outcome => outcome.to_string(),
        };
        if record.blocked.is_some() {
            format!("{label} waited, then {did}")
        } else {
            format!("{label} {did}")
        }
    }
}

fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Decimal(s) | Value::Text(s) => s.trim().parse().ok(),
        Value::Float(f) if f.fract() == 0.0 => Some(*f as i64),
        _ => None,
    }
}

fn show(v: &Value) -> String {
    match as_int(v) {
        Some(i) => i.to_string(),
        None => format!("{v:?}"),
    }
}
