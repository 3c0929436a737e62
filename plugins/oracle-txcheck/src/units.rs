//! Finding `prepare`'s units again in the case `check` gets: each data
//! statement with the reads added around it, and checking that the unit ran
//! as one block in the actual execution order.

use crate::config::TxcheckConfig;
use crate::instrument::{key_columns, KeyColumns};
use txlab_plugin_api::prelude::*;

/// What a statement of a unit is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    VersionSet,
    BeforeWrite,
    Statement,
    AfterWrite,
}

/// A data statement with its added reads, in transaction order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub txn: usize,
    /// The statement the unit is about.
    pub main: StatementRef,
    pub members: Vec<(StatementRef, Role)>,
    pub table: String,
}

impl Unit {
    pub fn refs(&self) -> impl Iterator<Item = StatementRef> + '_ {
        self.members.iter().map(|(at, _)| *at)
    }

    pub fn with_role(&self, role: Role) -> impl Iterator<Item = StatementRef> + '_ {
        self.members
            .iter()
            .filter(move |(_, r)| *r == role)
            .map(|(at, _)| *at)
    }
}

fn role_of(statement: &Statement, keys: &KeyColumns) -> Option<Role> {
    let Statement::Select(s) = statement else {
        return None;
    };
    if s.projection != Projection::All || s.lock != RowLock::None {
        return None;
    }
    let item = Expr::column(&keys.item);
    let version = Expr::column(&keys.version);
    if s.order_by == [item.clone(), version.clone()] && s.filter.is_none() {
        return Some(Role::VersionSet);
    }
    if s.order_by == [item] {
        return Some(Role::BeforeWrite);
    }
    let versioned = matches!(&s.filter, Some(Expr::Binary { op: BinaryOp::Eq, left, right })
        if **left == version && matches!(**right, Expr::Literal(Value::Int(_))));
    (s.order_by == [version] && versioned).then_some(Role::AfterWrite)
}

/// The units of every explicit transaction, in transaction order. `Err` names
/// what does not look like this oracle's instrumentation.
pub fn units(case: &TestCase, config: &TxcheckConfig) -> Result<Vec<Unit>, String> {
    let keys_of = |table: &str| {
        case.schema
            .table(table)
            .and_then(|t| key_columns(t, config))
            .ok_or_else(|| format!("table `{table}` has no columns of this oracle"))
    };
    let mut units = Vec::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        if txn.kind != TxnKind::Explicit {
            continue;
        }
        let mut pending: Vec<(StatementRef, Role)> = Vec::new();
        let mut s = 0;
        while s < txn.statements.len() {
            let statement = &txn.statements[s];
            let at = StatementRef::new(t, s);
            let Some(table) = statement.table() else {
                if !pending.is_empty() {
                    return Err(format!(
                        "the reads added before {at} belong to no statement"
                    ));
                }
                s += 1;
                continue;
            };
            let keys = keys_of(table)?;
            match role_of(statement, &keys) {
                Some(role @ (Role::VersionSet | Role::BeforeWrite)) => {
                    pending.push((at, role));
                    s += 1;
                }
                Some(_) => return Err(format!("{at} reads after no write")),
                None => {
                    let mut members = std::mem::take(&mut pending);
                    members.push((at, Role::Statement));
                    s += 1;
                    if let Some(next) = txn.statements.get(s) {
                        if next.table() == Some(table)
                            && role_of(next, &keys) == Some(Role::AfterWrite)
                        {
                            members.push((StatementRef::new(t, s), Role::AfterWrite));
                            s += 1;
                        }
                    }
                    units.push(Unit {
                        txn: t,
                        main: at,
                        members,
                        table: table.to_string(),
                    });
                }
            }
        }
    }
    Ok(units)
}

/// The first place where a unit did not run as one block: two of its
/// statements with another transaction's statement completing in between.
pub fn first_split(unit: &Unit, history: &History) -> Option<(StatementRef, StatementRef)> {
    let position = |at: StatementRef| history.completion_order.iter().position(|x| *x == at);
    let positions: Vec<(StatementRef, usize)> = unit
        .refs()
        .filter_map(|at| Some((at, position(at)?)))
        .collect();
    for pair in positions.windows(2) {
        let ((_, a), (_, b)) = (pair[0], pair[1]);
        if let Some(intruder) = history.completion_order[a + 1..b]
            .iter()
            .find(|x| x.txn() != unit.txn)
        {
            return Some((pair[1].0, *intruder));
        }
    }
    None
}
