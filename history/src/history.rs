//! The input: transactions, and for every row a read returned, the row's
//! identity and its version list.
//!
//! [`History`] is a builder. It keeps what it is given compactly (a statement
//! label once per statement, a table name once per table, each row's version
//! lists as one list per branch of its version order), so a history of a
//! million transactions fits in memory with the checker's own structures.

use crate::fx::FxMap;
use serde::{Deserialize, Serialize};
use std::collections::hash_map::Entry;
use std::fmt;
use txlab_plugin_api::ir::IsolationLevel;

/// A transaction's id. [`T0`] (`0`) is the pseudo-transaction that wrote the
/// initial data; the transactions of a history have ids `1, 2, …` (any
/// distinct non-zero numbers).
pub type TxnId = u64;

/// A row's identity, unique across all tables and never changed by a write
/// (IsoRel's `rowId`). A REPLACE or a DELETE followed by an INSERT makes a
/// new row with a new id.
pub type RowId = u64;

/// The pseudo-transaction that wrote the initial data: committed, before
/// every other transaction.
pub const T0: TxnId = 0;

/// How a transaction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnOutcome {
    /// COMMIT succeeded.
    Committed,
    /// Rolled back: by ROLLBACK, or by the DBMS (deadlock victim,
    /// serialization failure, a failed COMMIT).
    Aborted,
    /// Never finished, or the reply to its COMMIT never came: it may have
    /// committed or not. Such transactions take no part in cycles and are
    /// counted in [`Stats::unknown`](crate::Stats::unknown).
    Unknown,
}

/// A moment the observer knows only within bounds: between sending a
/// statement (`earliest`) and receiving its reply (`latest`), in
/// microseconds on one clock for the whole history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interval {
    /// The moment is not before this.
    pub earliest: u64,
    /// The moment is not after this.
    pub latest: u64,
}

impl Interval {
    /// The interval between the two bounds, in either order.
    pub fn new(a: u64, b: u64) -> Interval {
        Interval {
            earliest: a.min(b),
            latest: a.max(b),
        }
    }

    /// A moment known exactly.
    pub fn at(t: u64) -> Interval {
        Interval {
            earliest: t,
            latest: t,
        }
    }

    /// Whether this moment certainly came before `other`: this one's latest
    /// bound is before the other's earliest.
    pub fn certainly_before(&self, other: &Interval) -> bool {
        self.latest < other.earliest
    }
}

/// One transaction of the history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transaction {
    /// Its id; not [`T0`].
    pub id: TxnId,
    /// How reports name it, e.g. `T1`. Empty: `T<id>`.
    pub label: String,
    /// The session (connection) that ran it. Transactions of one session run
    /// one after another in the order they were added to the history
    /// (session order).
    pub session: Option<u64>,
    /// How it ended.
    pub outcome: TxnOutcome,
    /// The isolation level it ran at, for the models (`judge`).
    pub level: Option<IsolationLevel>,
    /// When it took its start point (for a level that takes a snapshot: when
    /// it took the snapshot; e.g. for a snapshot at the first read, from
    /// sending BEGIN to the reply of that read). Only used for G-SIa and
    /// G-SIb; `None` means unknown, and no G-SI claim involves it.
    pub started: Option<Interval>,
    /// When its COMMIT (or its rollback) took effect: from sending COMMIT or
    /// ROLLBACK (or the statement the DBMS aborted it in) to the reply.
    pub ended: Option<Interval>,
}

impl Transaction {
    /// A transaction labelled `T<id>`, without session, level or timing.
    pub fn new(id: TxnId, outcome: TxnOutcome) -> Transaction {
        Transaction {
            id,
            label: format!("T{id}"),
            session: None,
            outcome,
            level: None,
            started: None,
            ended: None,
        }
    }

    /// A committed transaction labelled `T<id>`.
    pub fn committed(id: TxnId) -> Transaction {
        Transaction::new(id, TxnOutcome::Committed)
    }

    /// An aborted transaction labelled `T<id>`.
    pub fn aborted(id: TxnId) -> Transaction {
        Transaction::new(id, TxnOutcome::Aborted)
    }

    /// The same transaction with another label.
    pub fn with_label(mut self, label: impl Into<String>) -> Transaction {
        self.label = label.into();
        self
    }

    /// The same transaction, run on `session`.
    pub fn in_session(mut self, session: u64) -> Transaction {
        self.session = Some(session);
        self
    }

    /// The same transaction, run at `level`.
    pub fn at_level(mut self, level: IsolationLevel) -> Transaction {
        self.level = Some(level);
        self
    }

    /// The same transaction with its start and end times.
    pub fn timed(mut self, started: Interval, ended: Interval) -> Transaction {
        self.started = Some(started);
        self.ended = Some(ended);
        self
    }
}

/// A statement of a transaction.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StatementId {
    /// The transaction it belongs to.
    pub txn: TxnId,
    /// Its position in the transaction, which orders the transaction's
    /// statements (program order).
    pub index: u32,
    /// How reports name it, e.g. `T1.3`. Empty: the transaction's label, a
    /// dot and the index.
    pub label: String,
}

impl StatementId {
    /// Statement `index` of `txn`, named `<transaction label>.<index>`.
    pub fn new(txn: TxnId, index: u32) -> StatementId {
        StatementId {
            txn,
            index,
            label: String::new(),
        }
    }

    /// Statement `index` of `txn` with its own label.
    pub fn labelled(txn: TxnId, index: u32, label: impl Into<String>) -> StatementId {
        StatementId {
            txn,
            index,
            label: label.into(),
        }
    }
}

/// What kind of read returned a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadKind {
    /// A plain (consistent, snapshot) SELECT.
    Plain,
    /// A locking read: SELECT … FOR UPDATE / FOR SHARE.
    Locking,
    /// IsoRel's SELECT … FOR UPDATE injected before a DELETE or a REPLACE of
    /// a keyed table, with the same predicate: the rows it returns are the
    /// versions the statement then deleted (`associatedWithDeleteOrReplace`).
    /// It makes the deleter the next writer of each row (a ww edge) and no
    /// wr edge.
    BeforeDelete,
}

impl ReadKind {
    /// `plain`, `locking`, `before-delete`.
    pub fn name(self) -> &'static str {
        match self {
            ReadKind::Plain => "plain",
            ReadKind::Locking => "locking",
            ReadKind::BeforeDelete => "before-delete",
        }
    }
}

/// One row a read returned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The statement that read it.
    pub statement: StatementId,
    /// What kind of read it was.
    pub kind: ReadKind,
    /// The row's table.
    pub table: String,
    /// The row's identity.
    pub row: RowId,
    /// The row's version list as the read returned it (IsoRel's `wList`): the
    /// ids of the transactions that wrote the row, in installation order,
    /// starting with [`T0`] for an initial row or with the inserter. A
    /// transaction that wrote the row twice appears twice in a row.
    pub versions: Vec<TxnId>,
    /// The row's user values as text, for reports, e.g. `(5, 7)`.
    pub values: String,
    /// When the statement ran (sent, replied). Used to tell that a read came
    /// after a rollback; `None` for unknown.
    #[serde(default)]
    pub at: Option<Interval>,
}

impl Observation {
    /// A borrowed view of this observation.
    pub fn as_ref(&self) -> ObservationRef<'_> {
        ObservationRef {
            statement: &self.statement,
            kind: self.kind,
            table: &self.table,
            row: self.row,
            versions: &self.versions,
            values: &self.values,
            at: self.at,
        }
    }
}

/// An [`Observation`] made of borrowed parts, for callers that feed many rows
/// without building an `Observation` for each ([`History::observe_ref`]).
#[derive(Clone, Copy, Debug)]
pub struct ObservationRef<'a> {
    /// See [`Observation::statement`].
    pub statement: &'a StatementId,
    /// See [`Observation::kind`].
    pub kind: ReadKind,
    /// See [`Observation::table`].
    pub table: &'a str,
    /// See [`Observation::row`].
    pub row: RowId,
    /// See [`Observation::versions`].
    pub versions: &'a [TxnId],
    /// See [`Observation::values`].
    pub values: &'a str,
    /// See [`Observation::at`].
    pub at: Option<Interval>,
}

/// One write a transaction made to a row, recorded apart from what reads
/// returned. Histories whose reads show every version (IsoRel's: every
/// write appends its transaction to the row's list) need none; histories
/// whose writes may go unread (Elle's list-append and registers, dbcop's)
/// record each write, so that a write no read returned still takes its
/// place after the row's latest observed version, and a read of a version
/// its writer overwrote itself is an intermediate read (G1b) even when no
/// read shows the later version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    /// The writing statement (its transaction is the writer).
    pub statement: StatementId,
    /// The row's table.
    pub table: String,
    /// The row.
    pub row: RowId,
}

impl Write {
    /// A borrowed view of this write.
    pub fn as_ref(&self) -> WriteRef<'_> {
        WriteRef {
            statement: &self.statement,
            table: &self.table,
            row: self.row,
        }
    }
}

/// A [`Write`] made of borrowed parts ([`History::write_ref`]).
#[derive(Clone, Copy, Debug)]
pub struct WriteRef<'a> {
    /// See [`Write::statement`].
    pub statement: &'a StatementId,
    /// See [`Write::table`].
    pub table: &'a str,
    /// See [`Write::row`].
    pub row: RowId,
}

/// Why the builder refused an input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// A transaction with this id was already added.
    #[error("transaction {0} was added twice")]
    DuplicateTransaction(TxnId),
    /// Id 0 is T0, the initial data; it neither is added nor reads.
    #[error("transaction id 0 is reserved for the initial data (T0)")]
    ReservedTransactionId,
    /// The transaction was never added.
    #[error("transaction {0} is not in the history (add it before its reads)")]
    UnknownTransaction(TxnId),
    /// A read returned a row with no version list.
    #[error("{statement} returned row {row} with an empty version list")]
    EmptyVersionList {
        /// The reading statement's label.
        statement: String,
        /// The row.
        row: RowId,
    },
}

/// A statement as the store keeps it (its own label and its time, which
/// few statements have, are kept apart).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StmtRec {
    /// Dense index of its transaction.
    pub txn: u32,
    pub index: u32,
}

/// A maximal observed version list of a row. The lists observed for a row
/// are prefixes of one another unless the version order forks; each branch
/// is one maximal list.
#[derive(Clone, Debug)]
pub(crate) struct Branch {
    pub list: Vec<TxnId>,
    /// An observation that returned the whole list.
    pub obs: u32,
}

/// A row as the store keeps it.
#[derive(Clone, Debug)]
pub(crate) struct RowRec {
    pub id: RowId,
    /// The table of its first observation.
    pub table: u32,
    pub branches: Vec<Branch>,
}

/// An observation as the store keeps it: its list is `branch`'s first
/// `len` entries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ObsRec {
    pub stmt: u32,
    pub row: u32,
    pub branch: u32,
    pub len: u32,
    pub values: u64,
    pub values_len: u32,
    pub kind: ReadKind,
}

/// A recorded write: its statement and its row (dense indexes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WriteRec {
    pub stmt: u32,
    pub row: u32,
}

/// A row id that two observations placed in different tables.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TableClash {
    pub row: u32,
    pub table: u32,
    pub obs: u32,
}

/// A history: transactions (with session order), and the rows their reads
/// observed with each row's version list.
///
/// Build it with [`History::new`], [`History::add_transaction`] (in each
/// session's order: the order of adding is the session order) and
/// [`History::observe`]; a transaction must be added before its reads. The
/// outcome and the timing of a transaction may be set later
/// ([`History::set_outcome`], [`History::set_times`]).
#[derive(Clone, Debug)]
pub struct History {
    /// Dense index → transaction; index 0 is T0.
    pub(crate) txns: Vec<Transaction>,
    pub(crate) txn_index: FxMap<TxnId, u32>,
    pub(crate) tables: Vec<String>,
    table_index: FxMap<String, u32>,
    pub(crate) rows: Vec<RowRec>,
    row_index: FxMap<RowId, u32>,
    pub(crate) stmts: Vec<StmtRec>,
    stmt_index: FxMap<(u32, u32), u32>,
    /// Statements with a label other than the default.
    stmt_labels: FxMap<u32, Box<str>>,
    /// Statements' times.
    pub(crate) stmt_at: FxMap<u32, Interval>,
    last_stmt: Option<(TxnId, u32, u32)>,
    pub(crate) obs: Vec<ObsRec>,
    pub(crate) values: String,
    pub(crate) clashes: Vec<TableClash>,
    /// Writes recorded apart from the reads ([`History::write`]).
    pub(crate) writes: Vec<WriteRec>,
}

impl Default for History {
    fn default() -> Self {
        History::new()
    }
}

impl History {
    /// An empty history (with T0, the initial data).
    pub fn new() -> History {
        let mut t0 = Transaction::committed(T0);
        t0.label = "T0".into();
        let mut txn_index = FxMap::default();
        txn_index.insert(T0, 0);
        History {
            txns: vec![t0],
            txn_index,
            tables: Vec::new(),
            table_index: FxMap::default(),
            rows: Vec::new(),
            row_index: FxMap::default(),
            stmts: Vec::new(),
            stmt_index: FxMap::default(),
            stmt_labels: FxMap::default(),
            stmt_at: FxMap::default(),
            last_stmt: None,
            obs: Vec::new(),
            values: String::new(),
            clashes: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// Adds a transaction. Transactions of one session must be added in the
    /// order the session ran them.
    pub fn add_transaction(&mut self, txn: Transaction) -> Result<(), HistoryError> {
        if txn.id == T0 {
            return Err(HistoryError::ReservedTransactionId);
        }
        match self.txn_index.entry(txn.id) {
            Entry::Occupied(_) => Err(HistoryError::DuplicateTransaction(txn.id)),
            Entry::Vacant(slot) => {
                slot.insert(self.txns.len() as u32);
                self.txns.push(txn);
                Ok(())
            }
        }
    }

    /// Sets how a transaction ended (when it was added before it finished).
    pub fn set_outcome(&mut self, txn: TxnId, outcome: TxnOutcome) -> Result<(), HistoryError> {
        let t = self.txn_mut(txn)?;
        t.outcome = outcome;
        Ok(())
    }

    /// Sets when a transaction started and ended; `None` leaves a time as it
    /// was.
    pub fn set_times(
        &mut self,
        txn: TxnId,
        started: Option<Interval>,
        ended: Option<Interval>,
    ) -> Result<(), HistoryError> {
        let t = self.txn_mut(txn)?;
        if started.is_some() {
            t.started = started;
        }
        if ended.is_some() {
            t.ended = ended;
        }
        Ok(())
    }

    /// Sets the isolation level a transaction ran at.
    pub fn set_level(&mut self, txn: TxnId, level: IsolationLevel) -> Result<(), HistoryError> {
        self.txn_mut(txn)?.level = Some(level);
        Ok(())
    }

    fn txn_mut(&mut self, txn: TxnId) -> Result<&mut Transaction, HistoryError> {
        if txn == T0 {
            return Err(HistoryError::ReservedTransactionId);
        }
        let i = *self
            .txn_index
            .get(&txn)
            .ok_or(HistoryError::UnknownTransaction(txn))?;
        Ok(&mut self.txns[i as usize])
    }

    /// Records one row a read returned.
    pub fn observe(&mut self, observation: Observation) -> Result<(), HistoryError> {
        self.observe_ref(observation.as_ref())
    }

    /// Records one row a read returned, from borrowed parts.
    pub fn observe_ref(&mut self, o: ObservationRef<'_>) -> Result<(), HistoryError> {
        let stmt = self.intern_statement(o.statement, o.at)?;
        if o.versions.is_empty() {
            return Err(HistoryError::EmptyVersionList {
                statement: self.stmt_label(stmt),
                row: o.row,
            });
        }
        let obs = self.obs.len() as u32;
        let row = self.intern_row(o.table, o.row, obs);
        let branch = place(&mut self.rows[row as usize].branches, o.versions, obs);
        let values = self.values.len() as u64;
        self.values.push_str(o.values);
        self.obs.push(ObsRec {
            stmt,
            row,
            branch,
            len: o.versions.len() as u32,
            values,
            values_len: o.values.len() as u32,
            kind: o.kind,
        });
        Ok(())
    }

    /// Records one write of a row, made apart from the reads (see
    /// [`Write`]). A transaction that wrote the row `n` times is recorded
    /// `n` times, in the order it wrote.
    pub fn write(&mut self, write: Write) -> Result<(), HistoryError> {
        self.write_ref(write.as_ref())
    }

    /// Records one write, from borrowed parts.
    pub fn write_ref(&mut self, w: WriteRef<'_>) -> Result<(), HistoryError> {
        let stmt = self.intern_statement(w.statement, None)?;
        let row = self.intern_row(w.table, w.row, u32::MAX);
        self.writes.push(WriteRec { stmt, row });
        Ok(())
    }

    /// The dense index of a row, added on first sight; a row seen in
    /// another table than its first is a clash (`obs` is the observation
    /// that saw it, `u32::MAX` for a write).
    fn intern_row(&mut self, table: &str, id: RowId, obs: u32) -> u32 {
        let table = self.intern_table(table);
        let row = match self.row_index.entry(id) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                let i = self.rows.len() as u32;
                e.insert(i);
                self.rows.push(RowRec {
                    id,
                    table,
                    branches: Vec::new(),
                });
                i
            }
        };
        if self.rows[row as usize].table != table && obs != u32::MAX {
            self.clashes.push(TableClash { row, table, obs });
        }
        row
    }

    fn intern_statement(
        &mut self,
        s: &StatementId,
        at: Option<Interval>,
    ) -> Result<u32, HistoryError> {
        let idx = match self.last_stmt {
            Some((txn, index, idx)) if txn == s.txn && index == s.index => idx,
            _ => {
                if s.txn == T0 {
                    return Err(HistoryError::ReservedTransactionId);
                }
                let txn = *self
                    .txn_index
                    .get(&s.txn)
                    .ok_or(HistoryError::UnknownTransaction(s.txn))?;
                let idx = match self.stmt_index.entry((txn, s.index)) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(e) => {
                        let own = !s.label.is_empty()
                            && !is_default_label(&s.label, &self.txns[txn as usize], s.index);
                        let i = self.stmts.len() as u32;
                        e.insert(i);
                        self.stmts.push(StmtRec {
                            txn,
                            index: s.index,
                        });
                        if own {
                            self.stmt_labels.insert(i, s.label.clone().into_boxed_str());
                        }
                        i
                    }
                };
                self.last_stmt = Some((s.txn, s.index, idx));
                idx
            }
        };
        if let Some(at) = at {
            self.stmt_at.entry(idx).or_insert(at);
        }
        Ok(idx)
    }

    fn intern_table(&mut self, table: &str) -> u32 {
        if let Some(&i) = self.table_index.get(table) {
            return i;
        }
        let i = self.tables.len() as u32;
        self.tables.push(table.to_string());
        self.table_index.insert(table.to_string(), i);
        i
    }

    /// The transaction with this id ([`T0`] included).
    pub fn transaction(&self, id: TxnId) -> Option<&Transaction> {
        self.txn_index.get(&id).map(|&i| &self.txns[i as usize])
    }

    /// The transactions in the order they were added (without T0).
    pub fn transactions(&self) -> impl Iterator<Item = &Transaction> + '_ {
        self.txns[1..].iter()
    }

    /// How many transactions were added (T0 not counted).
    pub fn len(&self) -> usize {
        self.txns.len() - 1
    }

    /// Whether no transaction was added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many observations (rows returned by reads) were recorded.
    pub fn observation_count(&self) -> usize {
        self.obs.len()
    }

    /// How reports name a transaction: its label, or `T<id>` for one that is
    /// not in the history.
    pub fn label(&self, id: TxnId) -> String {
        match self.transaction(id) {
            Some(t) => txn_label_of(t),
            None => format!("T{id}"),
        }
    }

    /// A statement's label.
    pub(crate) fn stmt_label(&self, stmt: u32) -> String {
        let s = &self.stmts[stmt as usize];
        match self.stmt_labels.get(&stmt) {
            Some(l) => l.to_string(),
            None => format!("{}.{}", txn_label_of(&self.txns[s.txn as usize]), s.index),
        }
    }

    /// An observation's values text.
    pub(crate) fn obs_values(&self, obs: u32) -> &str {
        let o = &self.obs[obs as usize];
        &self.values[o.values as usize..o.values as usize + o.values_len as usize]
    }

    /// An observation's version list.
    pub(crate) fn obs_list(&self, obs: u32) -> &[TxnId] {
        let o = &self.obs[obs as usize];
        &self.rows[o.row as usize].branches[o.branch as usize].list[..o.len as usize]
    }
}

impl History {
    /// How many writes were recorded apart from the reads.
    pub fn write_count(&self) -> usize {
        self.writes.len()
    }

    /// A statement as the caller gave it: its own label only where it has
    /// one (the default `T1.3` is empty).
    fn statement_id(&self, stmt: u32) -> StatementId {
        let s = &self.stmts[stmt as usize];
        StatementId {
            txn: self.txns[s.txn as usize].id,
            index: s.index,
            label: self
                .stmt_labels
                .get(&stmt)
                .map(|l| l.to_string())
                .unwrap_or_default(),
        }
    }

    /// Every observation, in the order it was recorded, as the caller gave
    /// it (a statement's default label as empty).
    pub fn observations(&self) -> impl Iterator<Item = Observation> + '_ {
        (0..self.obs.len() as u32).map(move |i| {
            let o = &self.obs[i as usize];
            let row = &self.rows[o.row as usize];
            Observation {
                statement: self.statement_id(o.stmt),
                kind: o.kind,
                table: self.obs_table(i).to_string(),
                row: row.id,
                versions: self.obs_list(i).to_vec(),
                values: self.obs_values(i).to_string(),
                at: self.stmt_at.get(&o.stmt).copied(),
            }
        })
    }

    /// Every recorded write, in the order it was recorded.
    pub fn writes(&self) -> impl Iterator<Item = Write> + '_ {
        self.writes.iter().map(move |w| {
            let row = &self.rows[w.row as usize];
            Write {
                statement: self.statement_id(w.stmt),
                table: self.tables[row.table as usize].clone(),
                row: row.id,
            }
        })
    }

    /// The table an observation named (a row's first table, or the table
    /// of a clash).
    fn obs_table(&self, obs: u32) -> &str {
        let o = &self.obs[obs as usize];
        let t = self
            .clashes
            .iter()
            .find(|c| c.obs == obs)
            .map_or(self.rows[o.row as usize].table, |c| c.table);
        &self.tables[t as usize]
    }
}

/// Two histories are equal when they hold the same transactions in the same
/// order, the same observations in the same order and the same writes in
/// the same order (how the builder stores them does not count).
impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        self.txns == other.txns
            && self.obs.len() == other.obs.len()
            && self.writes.len() == other.writes.len()
            && self.observations().eq(other.observations())
            && self.writes().eq(other.writes())
    }
}

/// A transaction's label, `T<id>` when it has none.
pub(crate) fn txn_label_of(t: &Transaction) -> String {
    if t.label.is_empty() {
        format!("T{}", t.id)
    } else {
        t.label.clone()
    }
}

/// Whether `label` is `<label of t>.<index>`.
fn is_default_label(label: &str, t: &Transaction, index: u32) -> bool {
    let Some((head, tail)) = label.rsplit_once('.') else {
        return false;
    };
    let head_matches = if t.label.is_empty() {
        head.strip_prefix('T').and_then(|d| d.parse::<u64>().ok()) == Some(t.id)
    } else {
        head == t.label
    };
    head_matches && tail.parse::<u32>().ok() == Some(index)
}

/// Puts a version list into a row's branches: the branch it is a prefix of,
/// or the branch it extends (which grows), or a new branch (the version
/// order forks). Returns the branch. The branches stay pairwise
/// incomparable, and a list once placed stays a prefix of its branch.
fn place(branches: &mut Vec<Branch>, versions: &[TxnId], obs: u32) -> u32 {
    for (i, b) in branches.iter().enumerate() {
        if b.list.len() >= versions.len() && b.list[..versions.len()] == *versions {
            return i as u32;
        }
    }
    for (i, b) in branches.iter_mut().enumerate() {
        if b.list.len() < versions.len() && versions[..b.list.len()] == b.list[..] {
            b.list.extend_from_slice(&versions[b.list.len()..]);
            b.obs = obs;
            return i as u32;
        }
    }
    branches.push(Branch {
        list: versions.to_vec(),
        obs,
    });
    (branches.len() - 1) as u32
}

impl fmt::Display for TxnOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TxnOutcome::Committed => "committed",
            TxnOutcome::Aborted => "aborted",
            TxnOutcome::Unknown => "outcome unknown",
        })
    }
}
