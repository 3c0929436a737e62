//! The oracle's walk over the actual execution order (the history's completion
//! order): for every statement it builds the view the statement's isolation
//! level allows, runs the statement alone on it, compares with what the real run
//! returned, and appends the statement's effect to the version chains.

use crate::config::{SameValueUpdate, TrocConfig};
use crate::scratch::{Scratch, ScratchError, ViewRun};
use crate::versions::{diff, LockMode, Model, Rid, Row, Status, View, ViewKind};
use serde::Serialize;
use txlab_plugin_api::prelude::*;

/// What kind of difference between the real run and the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    /// A SELECT returned other rows than on its view.
    QueryResult,
    /// A statement succeeded in one run and failed in the other.
    Outcome,
    /// A write changed another number of rows than on its view.
    AffectedRows,
    /// A statement went through although the other transaction held a lock on
    /// a row it must lock.
    MissingLock,
    /// A write succeeded although the level must fail it (first updater wins,
    /// stale writer).
    MissingAbort,
    /// The final table differs from the latest committed versions.
    FinalState,
}

impl DiffKind {
    pub fn title(self) -> &'static str {
        match self {
            DiffKind::QueryResult => "inconsistent query result",
            DiffKind::Outcome => "inconsistent statement outcome",
            DiffKind::AffectedRows => "inconsistent affected-row count",
            DiffKind::MissingLock => "missing lock",
            DiffKind::MissingAbort => "missing abort",
            DiffKind::FinalState => "inconsistent final database state",
        }
    }
}

/// One difference, with what the model expected and what the run did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    pub kind: DiffKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<StatementRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<IsolationLevel>,
    /// The view the statement ran on, in words.
    pub view: String,
    pub expected: String,
    pub actual: String,
    /// Rows of the view, or of the final state, for the report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub view_rows: Vec<Row>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_expected: Vec<Row>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_actual: Vec<Row>,
}

pub enum WalkOutcome {
    Agrees,
    Undecided(String),
    Differs(Vec<Difference>),
}

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

/// Chooses the view a statement reads and writes on.
fn view_choice(semantics: &LevelSemantics, statement: &Statement, has_snapshot: bool) -> Choice {
    match statement {
        Statement::Select(s) if s.lock == RowLock::None => match semantics.snapshot {
            SnapshotPoint::None => Choice::Dirty,
            SnapshotPoint::PerStatement => Choice::Latest,
            _ if has_snapshot => Choice::Snapshot,
            _ => Choice::Latest,
        },
        Statement::Insert(_) => Choice::Latest,
        _ => match semantics.write_reads {
            WriteReads::LatestCommitted => Choice::Latest,
            WriteReads::Snapshot if has_snapshot => Choice::Snapshot,
            WriteReads::Snapshot => Choice::Latest,
        },
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Choice {
    Dirty,
    Latest,
    Snapshot,
}

/// Levels at which a statement that waited may have evaluated some rows before
/// the wait and others after it (InnoDB semi-consistent reads, PostgreSQL's
/// re-check of updated rows at READ COMMITTED, no range locks): its result is
/// fixed only when the rows it matches did not change while it waited.
fn rows_may_mix(semantics: &LevelSemantics) -> bool {
    semantics.write_reads == WriteReads::LatestCommitted
        && semantics.write_conflict == WriteConflict::BlockThenProceed
        && (semantics.semi_consistent_writes || !semantics.predicate_conflicts)
}

fn filter_of(statement: &Statement) -> Option<&Expr> {
    match statement {
        Statement::Select(s) => s.filter.as_ref(),
        Statement::Update(u) => u.filter.as_ref(),
        Statement::Delete(d) => d.filter.as_ref(),
        _ => None,
    }
}

/// Statements that lock the rows they match: UPDATE, DELETE, locking SELECT.
fn lock_mode(statement: &Statement) -> Option<LockMode> {
    match statement {
        Statement::Update(_) | Statement::Delete(_) => Some(LockMode::Exclusive),
        Statement::Select(s) => match s.lock {
            RowLock::None => None,
            RowLock::ForShare => Some(LockMode::Shared),
            RowLock::ForUpdate => Some(LockMode::Exclusive),
        },
        _ => None,
    }
}

/// A FOR SHARE read that a secondary index covers: InnoDB may answer it from
/// that index, locking the index records only, so it neither holds nor waits
/// for locks on the rows themselves (a FOR UPDATE of the same row through the
/// primary key does not stop it).
fn shared_read_through_a_covering_index(table: &Table, statement: &Statement) -> bool {
    matches!(statement, Statement::Select(s)
        if s.lock == RowLock::ForShare && covered_by_a_secondary_index(table, s))
}

/// Whether some secondary index (with the primary key, which every InnoDB
/// secondary index carries) holds every column `select` uses, so that the
/// DBMS may answer it from that index alone.
fn covered_by_a_secondary_index(table: &Table, select: &Select) -> bool {
    let mut used: Vec<String> = Vec::new();
    let mut add = |e: &Expr| used.extend(e.columns().into_iter().map(|c| c.column.clone()));
    select.filter.iter().for_each(&mut add);
    select.order_by.iter().for_each(&mut add);
    match &select.projection {
        Projection::All => used.extend(table.columns.iter().map(|c| c.name.clone())),
        Projection::Exprs(exprs) => exprs.iter().for_each(&mut add),
    }
    let secondary = table
        .unique
        .iter()
        .map(|cols| cols.iter().map(String::as_str).collect::<Vec<_>>())
        .chain(
            table
                .indexes
                .iter()
                .map(|i| i.columns.iter().map(String::as_str).collect()),
        );
    secondary.into_iter().any(|index: Vec<&str>| {
        used.iter()
            .all(|c| index.contains(&c.as_str()) || table.primary_key.contains(c))
    })
}

pub fn sorted(mut rows: Vec<Row>) -> Vec<Row> {
    rows.sort_by(|a, b| cmp_rows(a, b));
    rows
}

impl Walk<'_> {
    fn semantics(&self, t: usize) -> &LevelSemantics {
        self.dialect
            .level(self.case.transactions[t].isolation)
            .expect("the scope check saw every level described")
    }

    /// At a level whose snapshot is taken by the first consistent read, a read
    /// that shows the snapshot of a later read of its transaction is undecided
    /// when the reads before that one all returned no rows: InnoDB creates its
    /// read view when a read first touches the table, and a read the optimizer
    /// answers without the table (an impossible WHERE, such as `c IS NULL` on a
    /// NOT NULL column) returns nothing and takes none. The snapshot may
    /// therefore come from any earlier read up to the first that returned
    /// rows, or, when none did, from this one.
    #[allow(clippy::too_many_arguments)]
    fn later_snapshot_excuse(
        &self,
        scratch: &mut Scratch<'_>,
        model: &Model,
        states: &[Model],
        order: &[StatementRef],
        at: StatementRef,
        level: IsolationLevel,
        statement: &Statement,
        kind: ViewKind,
        run: &ViewRun,
        record: &StatementRecord,
    ) -> Result<(), Stop> {
        let Outcome::Rows { rows: got, .. } = &record.outcome else {
            return Ok(());
        };
        let same = |want: &Outcome| match want {
            Outcome::Rows { rows, .. } => {
                let (a, b) = multiset_difference(rows, got);
                a.is_empty() && b.is_empty()
            }
            _ => false,
        };
        if same(&run.outcome) {
            return Ok(());
        }
        // The commit counts at which the snapshot may have been taken.
        let t = at.txn();
        let mut points = Vec::new();
        let mut touched = false;
        for (j, earlier) in order.iter().enumerate() {
            if earlier.txn() != t || earlier.stmt() >= at.stmt() {
                continue;
            }
            let plain = matches!(self.case.statement(*earlier), Some(Statement::Select(x)) if x.lock == RowLock::None);
            if !plain {
                continue;
            }
            points.push(states[j].commits);
            if matches!(
                self.history.record(*earlier).map(|r| &r.outcome),
                Some(Outcome::Rows { rows, .. }) if !rows.is_empty()
            ) {
                touched = true;
                break;
            }
        }
        if !touched {
            points.push(model.commits);
        }
        let taken = model.txns[t].snapshot;
        points.retain(|p| Some(*p) != taken);
        points.dedup();
        for point in points {
            let mut later = model.clone();
            later.txns[t].snapshot = Some(point);
            let view = later.view(t, kind);
            if view == run.before {
                continue;
            }
            if same(&scratch.run(level, &view, statement)?.outcome) {
                return Err(Stop::Undecided(format!(
                    "vendor-defined: {at} read what a snapshot taken at a later read of its transaction shows; InnoDB takes the snapshot when a read first touches the table, and earlier reads the optimizer answered without the table (an impossible WHERE) take none"
                )));
            }
        }
        Ok(())
    }

    /// Whether the other transaction may already have been rolled back as a
    /// deadlock victim (or by another concurrency error) while `record` ran:
    /// one of its statements that waited ends with such an error, sent before
    /// `record` replied. The server detects the deadlock when this statement
    /// asks for the victim's lock, rolls the victim back, and lets this one
    /// go on; the victim's error can reach the client after this reply, so
    /// the history may show the victim's locks as still held.
    fn other_may_be_a_victim_already(&self, at: StatementRef, record: &StatementRecord) -> bool {
        let Some(end) = record.completed_us else {
            return false;
        };
        let other = 1 - at.txn();
        self.history.statements.get(other).is_some_and(|records| {
            records.iter().any(|r| {
                r.blocked.is_some()
                    && r.submitted_us.is_some_and(|s| s < end)
                    && matches!(&r.outcome, Outcome::Error(e) if e.class.is_concurrency())
            })
        })
    }

    /// A write of the other transaction that waited for a lock and was in
    /// progress while `record` ran: InnoDB applies a statement row by row, so
    /// such a write may have changed some rows before it waited.
    fn write_in_flight(&self, at: StatementRef, record: &StatementRecord) -> Option<StatementRef> {
        let (start, end) = (record.submitted_us?, record.completed_us?);
        let other = 1 - at.txn();
        self.history.statements.get(other)?.iter().find_map(|r| {
            let write = self.case.statement(r.at).is_some_and(Statement::is_write);
            let overlaps =
                r.submitted_us.is_some_and(|s| s < end) && r.completed_us.is_none_or(|c| c > start);
            (write && r.blocked.is_some() && overlaps).then_some(r.at)
        })
    }

    /// The completion-order position before which a blocked statement was sent.
    fn submission_point(
        &self,
        order: &[StatementRef],
        i: usize,
        record: &StatementRecord,
    ) -> Result<usize, Stop> {
        let Some(sent) = record.submitted_us else {
            return Err(Stop::Undecided(format!(
                "the history does not say when a statement that waited was sent: {}",
                record.at
            )));
        };
        let mut point = 0;
        for (j, at) in order[..i].iter().enumerate() {
            match self.history.record(*at).and_then(|r| r.completed_us) {
                Some(done) if done <= sent => point = j + 1,
                Some(_) => {}
                None => {
                    return Err(Stop::Undecided(format!(
                        "the history does not say when a statement completed: {at}"
                    )))
                }
            }
        }
        Ok(point)
    }

    pub fn run(&self, db: &mut dyn HostDb) -> Result<WalkOutcome, PluginError> {
        let mut scratch = Scratch::new(db, &self.case.schema, self.table, self.rid);
        let mut differences = Vec::new();
        let walked = self.walk(&mut scratch, &mut differences);
        let closed = scratch.close();
        let result = match walked {
            Ok(()) if differences.is_empty() => WalkOutcome::Agrees,
            Ok(()) | Err(Stop::Differs) => WalkOutcome::Differs(differences),
            Err(Stop::Undecided(reason)) if differences.is_empty() => {
                WalkOutcome::Undecided(reason)
            }
            // A difference found before the walk had to stop still stands.
            Err(Stop::Undecided(_)) => WalkOutcome::Differs(differences),
            Err(Stop::Host(e)) => return Err(e),
        };
        closed?;
        Ok(result)
    }

    fn initial_view(&self, scratch: &mut Scratch<'_>) -> Result<View, Stop> {
        let rows: Vec<TableRows> = self
            .case
            .initial_rows
            .iter()
            .filter(|r| r.table == self.table.name)
            .cloned()
            .collect();
        // Load the initial rows and read them back, so that the chains hold values
        // as the DBMS stores them.
        let mut view = View::new();
        for r in &rows {
            for values in &r.rows {
                let mut row = vec![Value::Null; self.table.columns.len()];
                for (name, v) in r.columns.iter().zip(values) {
                    if let Some(p) = self.table.columns.iter().position(|c| &c.name == name) {
                        row[p] = v.clone();
                    }
                }
                let Value::Int(rid) = row[self.rid] else {
                    return Err(Stop::Undecided(
                        "an initial row has no row id: the case was not prepared by troc".into(),
                    ));
                };
                view.insert(rid, row);
            }
        }
        Ok(scratch.normalise(&view)?)
    }

    /// The execution order. Servers release locks before they answer COMMIT, so
    /// a statement that waited may reply while the other transaction's COMMIT or
    /// ROLLBACK is still in flight and be recorded before it; it ran after it.
    /// A waiting statement that replied while another kind of statement of the
    /// other transaction was in flight has no known place.
    fn execution_order(&self) -> Result<Vec<StatementRef>, Stop> {
        let mut order = self.history.completion_order.clone();
        let mut k = 0;
        while k < order.len() {
            let at = order[k];
            let record = self.history.record(at).expect("shape checked");
            let (Some(_), Some(done)) = (&record.blocked, record.completed_us) else {
                k += 1;
                continue;
            };
            // A deadlock victim or a lock-wait timeout has no effect: its place
            // does not matter.
            if matches!(&record.outcome, Outcome::Error(e) if e.class.is_concurrency()) {
                k += 1;
                continue;
            }
            let in_flight = order[k + 1..].iter().position(|e| {
                e.txn() != at.txn()
                    && self
                        .history
                        .record(*e)
                        .and_then(|r| r.submitted_us)
                        .is_some_and(|sent| sent < done)
            });
            if let Some(offset) = in_flight {
                let e = order[k + 1 + offset];
                // The other transaction's end (COMMIT, ROLLBACK, or the statement it
                // was aborted at) released the locks.
                let ends_it = self.case.statement(e).is_some_and(Statement::is_end)
                    || matches!(
                        self.history.transactions[e.txn()].end,
                        TxnEnd::Aborted { by, .. } if by == e
                    );
                if !ends_it {
                    return Err(Stop::Undecided(format!(
                        "a statement that waited replied while a statement of the other transaction was running, so their order is unknown: {at} and {e}"
                    )));
                }
                let moved = order.remove(k);
                order.insert(k + offset + 1, moved);
                continue;
            }
            k += 1;
        }
        Ok(order)
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
                Statement::Begin => {
                    if self.semantics(t).snapshot == SnapshotPoint::Begin {
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
                _ => self.data_statement(
                    scratch, &mut model, &states, &order, i, at, statement, record, out,
                )?,
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

    fn final_state(&self, model: &Model, out: &mut Vec<Difference>) {
        let Some(state) = self
            .history
            .final_state
            .as_ref()
            .and_then(|s| s.table(&self.table.name))
        else {
            return;
        };
        let positions: Option<Vec<usize>> = self
            .table
            .columns
            .iter()
            .map(|c| state.columns.iter().position(|n| n == &c.name))
            .collect();
        let Some(positions) = positions else {
            return;
        };
        let actual: Vec<Row> = state
            .rows
            .iter()
            .map(|r| positions.iter().map(|&p| r[p].clone()).collect())
            .collect();
        let expected: Vec<Row> = model.committed_state().into_values().collect();
        let (only_expected, only_actual) = multiset_difference(&expected, &actual);
        if !only_expected.is_empty() || !only_actual.is_empty() {
            out.push(Difference {
                kind: DiffKind::FinalState,
                at: None,
                level: None,
                view: "the latest committed version of every row".into(),
                expected: RowsText(&sorted(expected)).to_string(),
                actual: RowsText(&sorted(actual)).to_string(),
                view_rows: vec![],
                only_expected,
                only_actual,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn data_statement(
        &self,
        scratch: &mut Scratch<'_>,
        model: &mut Model,
        states: &[Model],
        order: &[StatementRef],
        i: usize,
        at: StatementRef,
        statement: &Statement,
        record: &StatementRecord,
        out: &mut Vec<Difference>,
    ) -> Result<(), Stop> {
        let t = at.txn();
        let u = 1 - t;
        let level = self.case.transactions[t].isolation;
        let semantics = self.semantics(t).clone();
        let blocked = record.blocked.is_some();
        let sent_at = if blocked {
            self.submission_point(order, i, record)?
        } else {
            i
        };
        let commits_when_sent = states[sent_at].commits;
        let plain_select = matches!(statement, Statement::Select(s) if s.lock == RowLock::None);
        let snapshot_taken_earlier = model.txns[t].snapshot.is_some();
        match semantics.snapshot {
            SnapshotPoint::FirstStatement => model.take_snapshot(t, commits_when_sent),
            SnapshotPoint::FirstRead if plain_select => model.take_snapshot(t, commits_when_sent),
            _ => {}
        }
        let outcome = &record.outcome;
        if let Outcome::Error(e) = outcome {
            if e.class.is_concurrency() {
                // The DBMS's concurrency control acted: the statement, or the whole
                // transaction, had no effect. The model follows; it never reports
                // an abort it did not predict.
                return Ok(());
            }
        }
        let kind = lock_mode(statement);
        let filter = filter_of(statement);

        // Missing lock: the other transaction is running and holds a lock on a row
        // this statement must lock, yet the statement went through at once.
        if self.config.check_missing_locks
            && !blocked
            && outcome.is_success()
            && model.is_active(u)
            && !self.other_may_be_a_victim_already(at, record)
            && !shared_read_through_a_covering_index(self.table, statement)
        {
            let held = &model.txns[u].locks;
            let conflicting: Vec<Rid> = match semantics.write_conflict {
                WriteConflict::SingleWriter if statement.is_write() => held
                    .iter()
                    .filter(|(_, m)| **m == LockMode::Exclusive)
                    .map(|(r, _)| *r)
                    .collect(),
                WriteConflict::BlockThenProceed
                | WriteConflict::BlockThenAbort
                | WriteConflict::SingleWriter
                    if kind.is_some() && !held.is_empty() =>
                {
                    let mode = kind.expect("checked");
                    let latest = model.view(t, ViewKind::LatestCommitted);
                    match scratch.matching(level, &latest, filter)? {
                        Ok(rids) => rids
                            .into_iter()
                            .filter(|r| {
                                held.get(r).is_some_and(|m| {
                                    *m == LockMode::Exclusive || mode == LockMode::Exclusive
                                })
                            })
                            .collect(),
                        Err(_) => vec![],
                    }
                }
                _ => vec![],
            };
            if !conflicting.is_empty() {
                let latest = model.view(t, ViewKind::LatestCommitted);
                let rows: Vec<Row> = conflicting
                    .iter()
                    .filter_map(|r| latest.get(r).cloned())
                    .collect();
                out.push(Difference {
                    kind: DiffKind::MissingLock,
                    at: Some(at),
                    level: Some(level),
                    view: ViewKind::LatestCommitted.describe().into(),
                    expected: format!(
                        "to wait for {} ({}), which {} and still held: {}",
                        txn_label(u),
                        match semantics.write_conflict {
                            WriteConflict::SingleWriter => "one writer at a time",
                            _ => "row locks are held until the transaction ends",
                        },
                        match semantics.write_conflict {
                            WriteConflict::SingleWriter => "had written rows",
                            _ => "locked the rows it matches",
                        },
                        RowsText(&rows)
                    ),
                    actual: format!("it did not wait and {outcome}"),
                    view_rows: rows,
                    only_expected: vec![],
                    only_actual: vec![],
                });
                return Err(Stop::Differs);
            }
        }

        let has_snapshot = model.txns[t].snapshot.is_some();
        let choice = view_choice(&semantics, statement, has_snapshot);
        let (primary_kind, alternative_kind) = match choice {
            // Reads "may" see uncommitted data: the committed version is allowed too.
            Choice::Dirty => (ViewKind::Dirty, Some(ViewKind::LatestCommitted)),
            Choice::Latest => (ViewKind::LatestCommitted, None),
            Choice::Snapshot => match self.config.same_value_update {
                SameValueUpdate::NewVersion => (
                    ViewKind::Snapshot {
                        same_value_is_version: true,
                    },
                    None,
                ),
                SameValueUpdate::NoVersion => (
                    ViewKind::Snapshot {
                        same_value_is_version: false,
                    },
                    None,
                ),
                SameValueUpdate::Ambiguous => (
                    ViewKind::Snapshot {
                        same_value_is_version: true,
                    },
                    Some(ViewKind::Snapshot {
                        same_value_is_version: false,
                    }),
                ),
            },
        };
        let view = model.view(t, primary_kind);
        let alternative = alternative_kind
            .map(|k| model.view(t, k))
            .filter(|v| v != &view);

        // Missing abort: a write to a row another transaction changed and committed
        // after this one's snapshot, at a level whose second writer must fail.
        if self.config.check_missing_aborts && has_snapshot {
            let snapshot = model.txns[t].snapshot.unwrap_or(0);
            let committed_after =
                matches!(model.txns[u].status, Status::Committed(n) if n > snapshot);
            let stale: Vec<Rid> = match semantics.write_conflict {
                _ if !committed_after => vec![],
                WriteConflict::SingleWriter if statement.is_write() => {
                    model.written_by(u).into_iter().collect()
                }
                WriteConflict::BlockThenAbort if choice == Choice::Snapshot && kind.is_some() => {
                    let written = model.written_by(u);
                    match scratch.matching(level, &view, filter)? {
                        Ok(rids) => rids.into_iter().filter(|r| written.contains(r)).collect(),
                        Err(_) => vec![],
                    }
                }
                _ => vec![],
            };
            if !stale.is_empty() {
                if outcome.is_success() {
                    let latest = model.committed_state();
                    let rows: Vec<Row> = stale
                        .iter()
                        .filter_map(|r| latest.get(r).cloned())
                        .collect();
                    out.push(Difference {
                        kind: DiffKind::MissingAbort,
                        at: Some(at),
                        level: Some(level),
                        view: primary_kind.describe().into(),
                        expected: format!(
                            "a serialization failure: {} changed and committed {} after {}'s snapshot ({})",
                            txn_label(u),
                            match semantics.write_conflict {
                                WriteConflict::SingleWriter => "the database",
                                _ => "rows this statement writes or locks",
                            },
                            txn_label(t),
                            RowsText(&rows)
                        ),
                        actual: format!("it {outcome}"),
                        view_rows: rows,
                        only_expected: vec![],
                        only_actual: vec![],
                    });
                    return Err(Stop::Differs);
                }
                return Err(Stop::Undecided(format!(
                    "a statement the model expects to fail with a serialization failure failed otherwise: {at} {}",
                    outcome
                )));
            }
        }

        // A statement that waited, at a level where it may read some rows before
        // the wait and others after it.
        if blocked && rows_may_mix(&semantics) && kind.is_some() {
            let before = states[sent_at].view(t, ViewKind::LatestCommitted);
            let now = model.view(t, ViewKind::LatestCommitted);
            if before != now {
                let then = scratch.matching(level, &before, filter)?;
                let later = scratch.matching(level, &now, filter)?;
                let same = matches!((&then, &later), (Ok(a), Ok(b)) if a == b);
                if !same {
                    return Err(Stop::Undecided(format!(
                        "a statement that waited for a lock matches other rows before and after the wait, and the level lets it read either version of a row: {at} ({}) at {} {}",
                        statement.kind_name(),
                        self.dialect.name,
                        level
                    )));
                }
            }
        }

        let run = scratch.run(level, &view, statement)?;
        let alt_run = match &alternative {
            Some(alt) => Some(scratch.run(level, alt, statement)?),
            None => None,
        };
        if let Some(alt) = &alt_run {
            if statement.is_write()
                && (alt.outcome != run.outcome
                    || diff(&alt.before, &alt.after, &alt.matched)
                        != diff(&run.before, &run.after, &run.matched))
            {
                return Err(Stop::Undecided(same_value_reason(at)));
            }
        }

        if plain_select
            && snapshot_taken_earlier
            && choice == Choice::Snapshot
            && semantics.snapshot == SnapshotPoint::FirstRead
        {
            self.later_snapshot_excuse(
                scratch,
                model,
                states,
                order,
                at,
                level,
                statement,
                primary_kind,
                &run,
                record,
            )?;
        }

        self.compare(
            model,
            at,
            level,
            &semantics,
            statement,
            &view,
            primary_kind,
            &run,
            alt_run.as_ref(),
            record,
            out,
        )?;

        if outcome.is_success() {
            let effect = diff(&run.before, &run.after, &run.matched);
            if matches!(statement, Statement::Insert(i) if i.on_conflict == OnConflict::Replace)
                && !effect.deleted.is_empty()
            {
                model.replaced_a_row = true;
            }
            if matches!(statement, Statement::Update(_) | Statement::Delete(_)) {
                // Locks on the rows matched; the effect adds the rows written.
                for &r in &run.matched {
                    model.lock(t, r, LockMode::Exclusive);
                }
            }
            if let Statement::Select(s) = statement {
                if let Some(mode) = lock_mode(statement) {
                    // InnoDB takes a shared locking read through a covering
                    // secondary index on the index records only ("If a secondary
                    // index is used in a search and the index record locks to be
                    // set are exclusive, InnoDB also retrieves the corresponding
                    // clustered index records and sets locks on them",
                    // innodb-locks-set): a writer that changes other columns does
                    // not wait. The model does not know which index the DBMS
                    // chose, so it records no lock that could predict a wait.
                    let index_only = shared_read_through_a_covering_index(self.table, statement);
                    if !index_only {
                        if let Ok(rids) = scratch.matching(level, &view, s.filter.as_ref())? {
                            for r in rids {
                                model.lock(t, r, mode);
                            }
                        }
                    }
                }
            }
            model.apply(t, &effect);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn compare(
        &self,
        model: &Model,
        at: StatementRef,
        level: IsolationLevel,
        semantics: &LevelSemantics,
        statement: &Statement,
        view: &View,
        view_kind: ViewKind,
        run: &ViewRun,
        alt_run: Option<&ViewRun>,
        record: &StatementRecord,
        out: &mut Vec<Difference>,
    ) -> Result<(), Stop> {
        let actual = &record.outcome;
        let expected = &run.outcome;
        let diff_of = |kind, expected: String, actual: String| Difference {
            kind,
            at: Some(at),
            level: Some(level),
            view: view_kind.describe().into(),
            expected,
            actual,
            view_rows: view.values().cloned().collect(),
            only_expected: vec![],
            only_actual: vec![],
        };
        match (actual, expected) {
            (Outcome::Error(_), Outcome::Error(_)) => Ok(()),
            (
                Outcome::Rows {
                    rows: got,
                    columns: got_columns,
                },
                Outcome::Rows {
                    rows: want,
                    columns: want_columns,
                },
            ) => {
                if !self.config.compare_query_results {
                    return Ok(());
                }
                if got_columns != want_columns {
                    // Not a result of this statement as written: the executor did
                    // not observe the read correctly (seen with a prepared
                    // statement whose column list went stale after a schema change).
                    return Err(Stop::Undecided(format!(
                        "the real run's result has other columns than the statement projects: {at} returned {got_columns:?}, expected {want_columns:?}"
                    )));
                }
                let (only_expected, only_actual) = multiset_difference(want, got);
                if only_expected.is_empty() && only_actual.is_empty() {
                    return Ok(());
                }
                if let Some(Outcome::Rows { rows: alt, .. }) = alt_run.map(|r| &r.outcome) {
                    let (a, b) = multiset_difference(alt, got);
                    if a.is_empty() && b.is_empty() {
                        if view_kind == ViewKind::Dirty {
                            return Ok(());
                        }
                        return Err(Stop::Undecided(same_value_reason(at)));
                    }
                    if view_kind == ViewKind::Dirty {
                        return Err(Stop::Undecided(format!(
                            "read uncommitted: a read matches neither the latest versions nor the latest committed ones, and the profile lets it read any version of each row: {at}"
                        )));
                    }
                }
                if view_kind == ViewKind::Dirty {
                    if let Some(w) = self.write_in_flight(at, record) {
                        return Err(Stop::Undecided(format!(
                            "read uncommitted: {at} ran while {w} of the other transaction was waiting for a lock, and a waiting write may already have changed the rows it reached first, which a dirty read sees"
                        )));
                    }
                }
                if model.replaced_a_row {
                    return Err(Stop::Undecided(replace_reason(at)));
                }
                let mut d = diff_of(
                    DiffKind::QueryResult,
                    RowsText(&sorted(want.clone())).to_string(),
                    RowsText(&sorted(got.clone())).to_string(),
                );
                d.only_expected = only_expected;
                d.only_actual = only_actual;
                out.push(d);
                // A read changes nothing: the walk goes on.
                Ok(())
            }
            (Outcome::Affected { rows: got }, Outcome::Affected { rows: want }) => {
                if got == want || !self.config.compare_write_outcomes {
                    return Ok(());
                }
                if model.replaced_a_row {
                    return Err(Stop::Undecided(replace_reason(at)));
                }
                out.push(diff_of(
                    DiffKind::AffectedRows,
                    format!("it {expected}"),
                    format!("it {actual}"),
                ));
                Err(Stop::Differs)
            }
            (Outcome::Error(e), want) if want.is_success() => {
                let excused = self.order_or_snapshot_excuse(model, at, semantics, statement, run);
                if !matches!(e.class, ErrorClass::Constraint | ErrorClass::Data) {
                    return Err(Stop::Undecided(format!(
                        "a statement failed with an error of class `{}`, which the model cannot reproduce on its view: {at} {}",
                        e.class,
                        actual
                    )));
                }
                if let Some(why) = excused {
                    return Err(Stop::Undecided(why));
                }
                if !self.config.compare_write_outcomes && statement.is_write() {
                    return Err(Stop::Undecided(format!(
                        "a write failed only in the real run and write outcomes are not compared: {at}"
                    )));
                }
                out.push(diff_of(
                    DiffKind::Outcome,
                    format!("it {expected}"),
                    format!("it {actual}"),
                ));
                Err(Stop::Differs)
            }
            (got, Outcome::Error(e)) if got.is_success() => {
                if e.class.is_concurrency() || e.class.is_unobservable() {
                    return Err(Stop::Undecided(format!(
                        "the statement failed with {} when run alone on its view: {at}",
                        e.class
                    )));
                }
                if let Some(why) =
                    self.order_or_snapshot_excuse(model, at, semantics, statement, run)
                {
                    return Err(Stop::Undecided(why));
                }
                if !self.config.compare_write_outcomes && statement.is_write() {
                    return Err(Stop::Undecided(format!(
                        "a write failed only on its view and write outcomes are not compared: {at}"
                    )));
                }
                out.push(diff_of(
                    DiffKind::Outcome,
                    format!("it {expected}"),
                    format!("it {actual}"),
                ));
                Err(Stop::Differs)
            }
            (got, want) => Err(Stop::Undecided(format!(
                "the real run and the view run of {at} answered differently in kind: {} vs {}",
                got, want
            ))),
        }
    }

    /// Why a success/failure difference may not be a bug: the DBMS checks unique
    /// keys row by row in an order the scratch table need not share, or against
    /// rows that are newer than the snapshot the statement reads.
    fn order_or_snapshot_excuse(
        &self,
        model: &Model,
        at: StatementRef,
        semantics: &LevelSemantics,
        statement: &Statement,
        run: &ViewRun,
    ) -> Option<String> {
        let keyed = !self.table.primary_key.is_empty()
            || !self.table.unique.is_empty()
            || self.table.indexes.iter().any(|i| i.unique);
        if !keyed {
            return None;
        }
        if matches!(statement, Statement::Update(_)) && run.matched.len() > 1 {
            return Some(format!(
                "an UPDATE of several rows of a table with unique keys succeeded in one run and failed in the other; unique keys are checked row by row in an order the model does not know: {at}"
            ));
        }
        if semantics.write_reads == WriteReads::Snapshot
            && model.view(at.txn(), ViewKind::LatestCommitted) != run.before
        {
            return Some(format!(
                "a write at a level that reads its snapshot succeeded in one run and failed in the other while newer committed rows exist; unique keys are checked against those: {at}"
            ));
        }
        None
    }
}

fn replace_reason(at: StatementRef) -> String {
    format!(
        "vendor-defined: a REPLACE replaced a row earlier; the manual describes it as a delete and an insert, InnoDB performs it as an update of the same row, and snapshots and later writes see that row differently ({at})"
    )
}

fn same_value_reason(at: StatementRef) -> String {
    format!(
        "vendor-defined: the result depends on whether a same-value UPDATE makes a new row version for the updater's snapshot reads (InnoDB and TiDB keep the snapshot's version, MDEV-26642, closed as a design decision; Troc assumes a new version): {at}"
    )
}
