//! What [`check`](crate::check) returns: edges, anomalies, violations and
//! statistics, and the options that shape them.

use crate::history::{History, ReadKind, RowId, TxnId};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind of a dependency edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DepKind {
    /// Write-write: `to` installed the version of a row right after `from`'s
    /// (or deleted the version `from` wrote).
    WW,
    /// Write-read: `to` read a version `from` wrote.
    WR,
    /// Read-write (anti-dependency): `from` read a version, and `to` wrote
    /// the next version of the row (or deleted that version).
    RW,
    /// Session order: `to` ran right after `from` on the same session (only
    /// with [`Options::session_order`]).
    SO,
    /// Start order: `from` certainly committed before `to` started (Adya's
    /// start-dependency, from the transactions' timing). Appears only in
    /// G-SIb cycles; never in [`Report::edges`].
    Start,
}

impl DepKind {
    /// `ww`, `wr`, `rw`, `so`, `start`.
    pub fn name(self) -> &'static str {
        match self {
            DepKind::WW => "ww",
            DepKind::WR => "wr",
            DepKind::RW => "rw",
            DepKind::SO => "so",
            DepKind::Start => "start",
        }
    }
}

impl fmt::Display for DepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dependency between two transactions, with where it was seen.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Edge {
    /// The transaction the edge leaves.
    pub from: TxnId,
    /// The transaction the edge enters.
    pub to: TxnId,
    /// The kind of dependency.
    pub kind: DepKind,
    /// The row it is about (`None` for session and start order).
    pub row: Option<RowId>,
    /// The row's table.
    pub table: Option<String>,
    /// The kind of read the edge was inferred from: for wr and rw edges the
    /// reader's read (the read in `to` for wr, in `from` for rw); for a ww
    /// edge, `BeforeDelete` when `to` deleted the row, else `None`.
    pub read: Option<ReadKind>,
    /// The observations it was inferred from, e.g. `T1.2 read t0 row 3 =
    /// (5, 7) [T0,T2], written by T2`.
    pub evidence: String,
}

impl Edge {
    /// `rw t0 row 3`, `so`, `start`: the label of the edge in a drawing.
    pub fn short(&self) -> String {
        match (&self.table, self.row) {
            (Some(t), Some(r)) => format!("{} {t} row {r}", self.kind),
            (None, Some(r)) => format!("{} row {r}", self.kind),
            _ => self.kind.name().to_string(),
        }
    }
}

/// Adya's phenomena (1999/2000), as txlab-history reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Phenomenon {
    /// A cycle of ww edges only (dirty write).
    G0,
    /// Aborted read: a committed transaction read a version written by a
    /// transaction that aborted.
    G1a,
    /// Intermediate read: a committed transaction read a version that its
    /// (committed) writer later overwrote itself.
    G1b,
    /// Circular information flow: a cycle of ww and wr edges with at least
    /// one wr edge.
    G1c,
    /// A cycle with exactly one rw edge (the others ww or wr).
    GSingle,
    /// Interference: a ww or wr edge from `Ti` to `Tj` although `Tj`
    /// certainly started before `Ti` committed.
    GSIa,
    /// Missed effects: a cycle with exactly one rw edge that closes only
    /// with start-order edges (with ww, wr and start edges; one that closes
    /// without start edges is G-single).
    GSIb,
    /// A cycle that needs at least two rw edges (item anti-dependencies; the
    /// histories have no predicate reads).
    G2Item,
}

impl Phenomenon {
    /// Every phenomenon, in the order reports list them.
    pub const ALL: [Phenomenon; 8] = [
        Phenomenon::G0,
        Phenomenon::G1a,
        Phenomenon::G1b,
        Phenomenon::G1c,
        Phenomenon::GSingle,
        Phenomenon::GSIa,
        Phenomenon::GSIb,
        Phenomenon::G2Item,
    ];

    /// Adya's name: `G0`, `G1a`, `G-single`, `G-SIa`, `G2-item`, …
    pub fn name(self) -> &'static str {
        match self {
            Phenomenon::G0 => "G0",
            Phenomenon::G1a => "G1a",
            Phenomenon::G1b => "G1b",
            Phenomenon::G1c => "G1c",
            Phenomenon::GSingle => "G-single",
            Phenomenon::GSIa => "G-SIa",
            Phenomenon::GSIb => "G-SIb",
            Phenomenon::G2Item => "G2-item",
        }
    }

    /// Whether the phenomenon is a cycle (reported with [`Anomaly::cycle`]).
    pub fn is_cycle(self) -> bool {
        !matches!(self, Phenomenon::G1a | Phenomenon::G1b | Phenomenon::GSIa)
    }
}

impl fmt::Display for Phenomenon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The SQL-level names of anomalies (Berenson et al.; Li et al.), decided
/// from the kinds and rows of an anomaly's edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SqlAnomaly {
    /// G0.
    DirtyWrite,
    /// G1a.
    DirtyRead,
    /// G1b.
    IntermediateRead,
    /// One rw edge and a ww edge, all on the same row.
    LostUpdate,
    /// One rw edge and a ww edge, on different rows.
    ReadWriteSkew,
    /// Two or more rw edges.
    WriteSkew,
    /// One rw edge, the rest wr edges, all on the same row.
    NonRepeatableRead,
    /// One rw edge, the rest wr edges, on different rows.
    ReadSkew,
}

impl SqlAnomaly {
    /// `lost update`, `read skew`, …
    pub fn name(self) -> &'static str {
        match self {
            SqlAnomaly::DirtyWrite => "dirty write",
            SqlAnomaly::DirtyRead => "dirty read",
            SqlAnomaly::IntermediateRead => "intermediate read",
            SqlAnomaly::LostUpdate => "lost update",
            SqlAnomaly::ReadWriteSkew => "read-write skew",
            SqlAnomaly::WriteSkew => "write skew",
            SqlAnomaly::NonRepeatableRead => "non-repeatable read",
            SqlAnomaly::ReadSkew => "read skew",
        }
    }
}

impl fmt::Display for SqlAnomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One anomaly: a phenomenon with its minimal cycle or its evidence.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Anomaly {
    /// Which phenomenon.
    pub phenomenon: Phenomenon,
    /// The SQL-level name, where one applies.
    pub subtype: Option<SqlAnomaly>,
    /// A shortest cycle of the phenomenon's class in its strongly connected
    /// component (of the edges the class may use; for G-SIb: a shortest
    /// cycle through one rw edge), edge by edge: each edge's `to` is the
    /// next one's `from`, the last one's `to` the first one's `from`. It
    /// starts with the edge the class is defined by (the ww edge of G0, a
    /// wr edge of G1c, the rw edge of G-single and G-SIb, an rw edge of
    /// G2-item). Empty for G1a, G1b and G-SIa.
    pub cycle: Vec<Edge>,
    /// For G1a, G1b and G-SIa, the edges that show it (the read of the
    /// aborted or intermediate version, the later version, the edge against
    /// the start order); empty for cycles.
    pub evidence: Vec<Edge>,
    /// The transactions involved, ascending.
    pub transactions: Vec<TxnId>,
    /// The cycle closes only through session-order edges (with
    /// [`Options::session_order`]): every cycle of this class in the
    /// component needs one. Such a cycle is not one of Adya's phenomena as
    /// such; it is the phenomenon under the session's own order (each
    /// transaction of a session starts after the previous one ended).
    #[serde(default)]
    pub needs_session_order: bool,
}

impl Anomaly {
    /// The cycle's edges, or the evidence when there is no cycle.
    pub fn edges(&self) -> &[Edge] {
        if self.cycle.is_empty() {
            &self.evidence
        } else {
            &self.cycle
        }
    }

    /// One line: `G-single (lost update): T1 -rw t row 1-> T2 -ww t row 1-> T1`.
    pub fn describe(&self, history: &History) -> String {
        let mut s = self.phenomenon.name().to_string();
        if let Some(sub) = self.subtype {
            s.push_str(&format!(" ({sub})"));
        }
        if self.needs_session_order {
            s.push_str(" through session order");
        }
        s.push_str(": ");
        if self.cycle.is_empty() {
            let parts: Vec<String> = self
                .evidence
                .iter()
                .map(|e| {
                    format!(
                        "{} -{}-> {}",
                        history.label(e.from),
                        e.short(),
                        history.label(e.to)
                    )
                })
                .collect();
            s.push_str(&parts.join("; "));
        } else {
            s.push_str(&history.label(self.cycle[0].from));
            for e in &self.cycle {
                s.push_str(&format!(" -{}-> {}", e.short(), history.label(e.to)));
            }
        }
        s
    }
}

/// A version list as one read returned it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Sighting {
    /// The reading statement's label.
    pub statement: String,
    /// The version list it returned.
    pub versions: Vec<TxnId>,
    /// The reader then deleted the row (a before-delete read of a committed
    /// transaction): the delete is the next version.
    #[serde(default)]
    pub deleted_by: Option<TxnId>,
}

/// How an aborted transaction's write was seen to survive its rollback.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Survival {
    /// Another transaction wrote the row on top of the aborted version.
    FollowedBy {
        /// The writer after the aborted one.
        writer: TxnId,
        /// A read that returned the list.
        seen: Sighting,
    },
    /// A statement that certainly began after the rollback ended still
    /// returned a version list containing the aborted write.
    SeenAfterRollback {
        /// The read.
        seen: Sighting,
        /// When the rollback had certainly ended (µs).
        rolled_back_by: u64,
        /// When the read was sent (µs).
        read_from: u64,
    },
}

/// What no isolation level allows: the observations contradict each other
/// or the assumptions the inference rests on (IsoRel §4). Each is a finding
/// at every level.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Violation {
    /// Two reads returned version lists of a row that are not prefixes of
    /// one another (after setting aside lists that end with an aborted or
    /// unfinished transaction, which its own reads and dirty reads may
    /// legitimately see): the version order itself forks.
    ForkedVersions {
        /// The row's table.
        table: String,
        /// The row.
        row: RowId,
        /// One list.
        first: Sighting,
        /// A list that is neither a prefix nor an extension of the first.
        second: Sighting,
    },
    /// An aborted transaction's write survived its rollback.
    AbortedWriteSurvived {
        /// The aborted transaction.
        txn: TxnId,
        /// The row's table.
        table: String,
        /// The row.
        row: RowId,
        /// How it was seen.
        how: Survival,
    },
    /// A transaction read the row with its own write in the version list,
    /// and a later statement of the same transaction read it without.
    OwnWriteLost {
        /// The transaction.
        txn: TxnId,
        /// The row's table.
        table: String,
        /// The row.
        row: RowId,
        /// The read that showed the transaction's write.
        earlier: Sighting,
        /// The later read that did not.
        later: Sighting,
    },
    /// A version list names a transaction the history does not have (it
    /// takes part in no cycle: its outcome is unknown).
    UnknownWriter {
        /// The unknown id.
        txn: TxnId,
        /// The row's table.
        table: String,
        /// The row.
        row: RowId,
        /// A read that returned it.
        seen: Sighting,
    },
    /// One row id was returned from two tables; row ids must be unique
    /// across tables. The row is treated as one row (of the first table).
    RowInTwoTables {
        /// The row.
        row: RowId,
        /// The table of its first observation.
        first_table: String,
        /// The other table.
        second_table: String,
        /// The statement that returned it from `second_table`.
        statement: String,
    },
}

impl Violation {
    /// A one-line description, naming transactions by their labels.
    pub fn describe(&self, history: &History) -> String {
        let list = |v: &[TxnId]| {
            v.iter()
                .map(|&t| history.label(t))
                .collect::<Vec<_>>()
                .join(",")
        };
        let seen = |s: &Sighting| {
            let mut out = format!("{} saw [{}]", s.statement, list(&s.versions));
            if let Some(d) = s.deleted_by {
                out.push_str(&format!(" and {} then deleted it", history.label(d)));
            }
            out
        };
        match self {
            Violation::ForkedVersions {
                table,
                row,
                first,
                second,
            } => format!(
                "forked version order of {table} row {row}: {}; {}",
                seen(first),
                seen(second)
            ),
            Violation::AbortedWriteSurvived {
                txn,
                table,
                row,
                how,
            } => match how {
                Survival::FollowedBy { writer, seen: s } => format!(
                    "{} aborted, yet {} wrote {table} row {row} on top of its version: {}",
                    history.label(*txn),
                    history.label(*writer),
                    seen(s)
                ),
                Survival::SeenAfterRollback {
                    seen: s,
                    rolled_back_by,
                    read_from,
                } => format!(
                    "{} rolled back by {rolled_back_by} µs, yet a read sent at {read_from} µs still returned its write to {table} row {row}: {}",
                    history.label(*txn),
                    seen(s)
                ),
            },
            Violation::OwnWriteLost {
                txn,
                table,
                row,
                earlier,
                later,
            } => format!(
                "{} lost its own write to {table} row {row}: {}; later {}",
                history.label(*txn),
                seen(earlier),
                seen(later)
            ),
            Violation::UnknownWriter {
                txn,
                table,
                row,
                seen: s,
            } => format!(
                "{table} row {row} names T{txn}, which is not in the history: {}",
                seen(s)
            ),
            Violation::RowInTwoTables {
                row,
                first_table,
                second_table,
                statement,
            } => format!(
                "row id {row} was returned from {first_table} and, by {statement}, from {second_table}"
            ),
        }
    }
}

/// Whether the transactions' timing allowed the G-SI checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "coverage")]
pub enum StartOrder {
    /// [`Options::start_order`] is off: no G-SI claims.
    Off,
    /// No committed transaction has a start or end time: no G-SI claims.
    NoTiming,
    /// Some committed transactions lack a start or end time; G-SIa and
    /// G-SIb are claimed only where the order of the events is certain from
    /// the known times, and never for the others.
    Partial {
        /// Committed transactions with both times.
        timed: usize,
        /// Committed transactions without one of them.
        untimed: usize,
    },
    /// Every committed transaction has both times; G-SI is claimed where the
    /// order is certain (intervals that overlap decide nothing).
    Full {
        /// Committed transactions with both times.
        timed: usize,
    },
}

impl StartOrder {
    /// One sentence for reports.
    pub fn describe(&self) -> String {
        match self {
            StartOrder::Off => "start order not used: no G-SIa or G-SIb claims".into(),
            StartOrder::NoTiming => {
                "no transaction timing: G-SIa and G-SIb were not checked".into()
            }
            StartOrder::Partial { timed, untimed } => format!(
                "timing known for {timed} committed transactions, unknown for {untimed}: G-SIa and G-SIb claimed only among the timed ones, where the order is certain"
            ),
            StartOrder::Full { timed } => format!(
                "timing known for all {timed} committed transactions: G-SIa and G-SIb claimed where the order is certain"
            ),
        }
    }
}

/// Counts that describe a check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Transactions in the history (T0 not counted).
    pub transactions: usize,
    /// Committed transactions.
    pub committed: usize,
    /// Aborted transactions (they take part only in G1a and violations).
    pub aborted: usize,
    /// Transactions whose outcome is unknown, plus writers named in version
    /// lists but missing from the history: excluded from cycles.
    pub unknown: usize,
    /// Observations (rows returned by reads).
    pub observations: usize,
    /// Distinct rows observed.
    pub rows: usize,
    /// Distinct edges inferred (ww, wr, rw; so with session order).
    /// Without [`Options::list_edges`], only those that may be on a cycle
    /// (between committed transactions, not from T0) are kept and counted.
    pub edges: usize,
    /// Edges between committed transactions that cycles may use, counted
    /// once per pair of transactions and kind (and read kind).
    pub graph_edges: usize,
    /// Strongly connected components with more than one transaction.
    pub components: usize,
    /// Transactions in the largest of them.
    pub largest_component: usize,
    /// Two-transaction cycles set aside by the locking-read exemption.
    pub exempted_cycles: usize,
    /// Cycle searches stopped by their work bound (about twice the size of
    /// the graph searched) before they proved a cycle the shortest: the
    /// cycle reported for that class and component, if any, is one that a
    /// few unbounded searches found, not necessarily the shortest.
    pub searches_cut: usize,
    /// What the timing allowed for G-SI.
    pub start_order: StartOrder,
}

/// Options of [`check`](crate::check).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// IsoRel's exemption for locking reads: a two-transaction cycle made of
    /// an rw edge from a plain read of `Ti` and a wr edge into a later
    /// locking read of `Ti` (`Ti` read the snapshot, then locked and read
    /// the latest committed version) is not reported. Default true.
    pub exempt_locking_reads: bool,
    /// Add session-order edges (between consecutive committed transactions
    /// of a session). Cycles that close without them are reported as
    /// usual; a class whose every cycle in a component needs them is
    /// reported once for that component with
    /// [`Anomaly::needs_session_order`]. Default false (Adya's phenomena
    /// have no session order).
    pub session_order: bool,
    /// Use the transactions' start and end times for G-SIa and G-SIb.
    /// Default true; without timing nothing is claimed either way.
    pub start_order: bool,
    /// List every inferred edge in [`Report::edges`]. Default true; a stream
    /// of millions of transactions turns it off (the anomalies still carry
    /// their edges in full).
    pub list_edges: bool,
    /// Let an intermediate read's rw edge to the version's own writer (`R`
    /// read a version `W` then overwrote itself) close cycles, as Elle does:
    /// a G1b read then also makes a G-single cycle with the wr edge of the
    /// same read. Default false: Adya's G1b, no cycle.
    pub intermediate_reads_in_cycles: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            exempt_locking_reads: true,
            session_order: false,
            start_order: true,
            list_edges: true,
            intermediate_reads_in_cycles: false,
        }
    }
}

/// The result of [`check`](crate::check). Everything in it is sorted, so the
/// same history gives the same report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Every distinct edge (with [`Options::list_edges`]), sorted by
    /// `from`, `to`, kind, row.
    pub edges: Vec<Edge>,
    /// The anomalies, sorted by phenomenon, then transactions.
    pub anomalies: Vec<Anomaly>,
    /// What no isolation level allows.
    pub violations: Vec<Violation>,
    /// Counts.
    pub stats: Stats,
}

impl Report {
    /// No anomaly and no violation.
    pub fn is_clean(&self) -> bool {
        self.anomalies.is_empty() && self.violations.is_empty()
    }

    /// The anomalies of one phenomenon.
    pub fn of(&self, phenomenon: Phenomenon) -> impl Iterator<Item = &Anomaly> + '_ {
        self.anomalies
            .iter()
            .filter(move |a| a.phenomenon == phenomenon)
    }

    /// The listed edges from `from` to `to`.
    pub fn edges_between(&self, from: TxnId, to: TxnId) -> impl Iterator<Item = &Edge> + '_ {
        self.edges
            .iter()
            .filter(move |e| e.from == from && e.to == to)
    }
}
