//! The oracle's walk over the actual execution order (the history's completion
//! order, with each statement that waited placed after what released it): for
//! every statement it builds the view the statement's isolation level allows,
//! runs the statement alone on it, compares with what the real run returned,
//! and appends the statement's effect to the version chains.
//!
//! - [`timing`]: the execution order, and what the history's clock says about
//!   statements that overlapped;
//! - [`tables`]: the initial rows and the final-state comparison;
//! - [`statement`]: one data statement, step by step;
//! - [`views`]: which view a statement reads, and the same-value alternative;
//! - [`locks`]: the locks statements take and the missing-lock check;
//! - [`aborts`]: the missing-abort check;
//! - [`wait`]: the rows a statement that waited acts on, by the vendor's rule;
//! - [`excuses`]: vendor-defined situations that leave a statement undecided
//!   before it is compared;
//! - [`compare`]: the statement's real outcome against its view run;
//! - [`difference`]: what the walk reports.

mod aborts;
mod compare;
mod difference;
mod excuses;
mod locks;
mod statement;
mod tables;
mod timing;
mod views;
mod wait;

pub use difference::{sorted, DiffKind, Difference};

use crate::config::TrocConfig;
use crate::scratch::{Scratch, ScratchError};
use crate::versions::{Model, Status};
use txlab_plugin_api::prelude::*;

pub enum WalkOutcome {
    Agrees,
    Undecided(String),
    Differs(Vec<Difference>),
    /// Only vendor-permitted anomalies: the run agrees with the vendor's
    /// semantics, not with the standard model.
    Permitted(Vec<Difference>),
}

/// Why the walk stopped early.
enum Stop {
    Undecided(String),
    Differs,
    Host(PluginError),
}

impl From<ScratchError> for Stop {
    fn from(e: ScratchError) -> Self {
        match e {
            ScratchError::Model(m) => Stop::Undecided(m),
            ScratchError::Host(e) => Stop::Host(e),
        }
    }
}

impl From<PluginError> for Stop {
    fn from(e: PluginError) -> Self {
        Stop::Host(e)
    }
}

pub struct Walk<'a> {
    pub case: &'a TestCase,
    pub history: &'a History,
    pub dialect: &'a DialectInfo,
    pub config: &'a TrocConfig,
    pub table: &'a Table,
    pub rid: usize,
}

/// The walk so far, as the checks of a statement need it.
struct Trace<'w> {
    /// The execution order.
    order: &'w [StatementRef],
    /// The model before each position of `order`, up to the current one.
    states: &'w [Model],
}

impl Walk<'_> {
    fn semantics(&self, t: usize) -> &LevelSemantics {
        self.dialect
            .level(self.case.transactions[t].isolation)
            .expect("the scope check saw every level described")
    }

    /// When transaction `t` takes its snapshot: its level's point, or BEGIN
    /// when it began with [`Statement::BeginSnapshot`].
    fn snapshot(&self, t: usize) -> SnapshotPoint {
        self.case.transactions[t].snapshot_point(self.semantics(t))
    }

    /// The order the walk takes the statements in: the completion order,
    /// with the moves [`Walk::execution_order`] makes; `None` where it has
    /// none (the walk is then undecided).
    pub fn order(&self) -> Option<Vec<StatementRef>> {
        self.execution_order().ok()
    }

    pub fn run(&self, db: &mut dyn HostDb) -> Result<WalkOutcome, PluginError> {
        let mut scratch = Scratch::new(db, &self.case.schema, self.table, self.rid);
        let mut differences = Vec::new();
        let walked = self.walk(&mut scratch, &mut differences);
        let closed = scratch.close();
        let permitted_only = differences.iter().all(|d| d.kind.is_vendor_permitted());
        let result = match walked {
            Ok(()) if differences.is_empty() => WalkOutcome::Agrees,
            Ok(()) if permitted_only => WalkOutcome::Permitted(differences),
            Ok(()) | Err(Stop::Differs) => WalkOutcome::Differs(
                differences
                    .into_iter()
                    .filter(|d| !d.kind.is_vendor_permitted())
                    .collect(),
            ),
            Err(Stop::Undecided(reason)) if permitted_only => WalkOutcome::Undecided(reason),
            // A difference found before the walk had to stop still stands.
            Err(Stop::Undecided(_)) => WalkOutcome::Differs(
                differences
                    .into_iter()
                    .filter(|d| !d.kind.is_vendor_permitted())
                    .collect(),
            ),
            Err(Stop::Host(e)) => return Err(e),
        };
        closed?;
        Ok(result)
    }

    fn walk(&self, scratch: &mut Scratch<'_>, out: &mut Vec<Difference>) -> Result<(), Stop> {
        let initial = self.initial_view(scratch)?;
        let mut model = Model::new(initial, self.case.transactions.len());
        let mut states: Vec<Model> = Vec::new();
        let order = self.execution_order()?;
        for (i, &at) in order.iter().enumerate() {
            states.push(model.clone());
            let t = at.txn();
            let statement = self.case.statement(at).expect("shape checked");
            let record = self.history.record(at).expect("shape checked");
            let aborted_here = matches!(
                self.history.transactions[t].end,
                TxnEnd::Aborted { by, .. } if by == at
            );
            if model.txns[t].status != Status::Active {
                return Err(Stop::Undecided(format!(
                    "a statement completed after its transaction had ended: {at}"
                )));
            }
            match statement {
                Statement::Begin | Statement::BeginSnapshot => {
                    if self.snapshot(t) == SnapshotPoint::Begin {
                        let commits = model.commits;
                        model.take_snapshot(t, commits);
                    }
                }
                Statement::Commit => {
                    if record.outcome.is_success() && !aborted_here {
                        model.commit(t);
                    }
                }
                Statement::Rollback => model.rollback(t),
                _ => {
                    let trace = Trace {
                        order: &order,
                        states: &states,
                    };
                    self.data_statement(scratch, &mut model, &trace, i, out)?
                }
            }
            if aborted_here {
                model.rollback(t);
            }
        }
        if self.config.compare_final_state {
            self.final_state(&model, out);
        }
        Ok(())
    }
}
