//! Two models that say whether an anomaly is allowed: Adya's levels (the
//! standard model), and the vendor's model derived from the dialect's
//! declared semantics profile.
//!
//! [`judge`] applies both to an anomaly whose transactions may have run at
//! different levels: an anomaly counts as forbidden only if it is forbidden
//! for every transaction whose guarantee it breaks (see [`breakers`]).

use crate::history::{History, ReadKind, RowId, TxnId, T0};
use crate::report::{Anomaly, DepKind, Edge, Phenomenon};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use txlab_plugin_api::ir::{
    DialectInfo, EngineSemantics, IsolationLevel, LevelSemantics, MixedLevels, SnapshotPoint,
    WriteConflict, WriteReads,
};

/// Adya's portable isolation levels (Adya 1999, with PL-SI from Adya's
/// thesis, §4.2 and §4.3 of the generalized definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AdyaLevel {
    /// PL-1 (read uncommitted): proscribes G0.
    PL1,
    /// PL-2 (read committed): proscribes G0 and G1 (G1a, G1b, G1c).
    PL2,
    /// PL-2+ (consistent view): PL-2 and G-single.
    PL2Plus,
    /// PL-SI (snapshot isolation): PL-2 and G-SI (G-SIa, G-SIb), and
    /// thereby G-single (a G-single cycle is a G-SIb cycle).
    PLSI,
    /// PL-2.99 (repeatable read): PL-2 and G2-item (every cycle with an rw
    /// edge: G-single and G2-item here).
    PL299,
    /// PL-3 (serializable): PL-2 and G2 (without predicate reads: every
    /// cycle with an rw edge).
    PL3,
}

impl AdyaLevel {
    /// Every level, weakest first (PL-SI and PL-2.99 are incomparable).
    pub const ALL: [AdyaLevel; 6] = [
        AdyaLevel::PL1,
        AdyaLevel::PL2,
        AdyaLevel::PL2Plus,
        AdyaLevel::PLSI,
        AdyaLevel::PL299,
        AdyaLevel::PL3,
    ];

    /// `PL-1`, `PL-2`, `PL-2+`, `PL-SI`, `PL-2.99`, `PL-3`.
    pub fn name(self) -> &'static str {
        match self {
            AdyaLevel::PL1 => "PL-1",
            AdyaLevel::PL2 => "PL-2",
            AdyaLevel::PL2Plus => "PL-2+",
            AdyaLevel::PLSI => "PL-SI",
            AdyaLevel::PL299 => "PL-2.99",
            AdyaLevel::PL3 => "PL-3",
        }
    }

    /// Whether the level proscribes the phenomenon (digest §8.3). G-SIa and
    /// G-SIb speak of start order, which only PL-SI constrains: a
    /// serializable history may read what committed after a transaction
    /// started.
    pub fn forbids(self, p: Phenomenon) -> bool {
        use Phenomenon::*;
        match p {
            G0 => true,
            G1a | G1b | G1c => self != AdyaLevel::PL1,
            GSingle => matches!(
                self,
                AdyaLevel::PL2Plus | AdyaLevel::PLSI | AdyaLevel::PL299 | AdyaLevel::PL3
            ),
            GSIa | GSIb => self == AdyaLevel::PLSI,
            G2Item => matches!(self, AdyaLevel::PL299 | AdyaLevel::PL3),
        }
    }

    /// The standard model for `level` by its name alone: RU → PL-1, RC →
    /// PL-2, RR → PL-2.99, SNAPSHOT → PL-SI, SERIALIZABLE → PL-3.
    pub fn named(level: IsolationLevel) -> AdyaLevel {
        match level {
            IsolationLevel::ReadUncommitted => AdyaLevel::PL1,
            IsolationLevel::ReadCommitted => AdyaLevel::PL2,
            IsolationLevel::RepeatableRead => AdyaLevel::PL299,
            IsolationLevel::Snapshot => AdyaLevel::PLSI,
            IsolationLevel::Serializable => AdyaLevel::PL3,
            // A level added later: the weakest claim.
            _ => AdyaLevel::PL1,
        }
    }

    /// The standard model for the level the transactions ran at: the
    /// level's name ([`AdyaLevel::named`]), except that a level whose
    /// profile is snapshot isolation ([`is_snapshot_isolation`]) is PL-SI,
    /// whatever it is called (PostgreSQL's and TiDB's REPEATABLE READ).
    pub fn standard(level: IsolationLevel, semantics: &LevelSemantics) -> AdyaLevel {
        if is_snapshot_isolation(semantics) {
            AdyaLevel::PLSI
        } else {
            AdyaLevel::named(level)
        }
    }
}

impl fmt::Display for AdyaLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether the profile is snapshot isolation: a snapshot per transaction,
/// writes that read that snapshot, a write conflict that never lets a
/// transaction overwrite a version committed after its snapshot
/// (first-updater-wins, abort at commit, one writer at a time), and no
/// promise of serializability.
pub fn is_snapshot_isolation(s: &LevelSemantics) -> bool {
    transaction_snapshot(s)
        && s.write_reads == WriteReads::Snapshot
        && s.write_conflict != WriteConflict::BlockThenProceed
        && !s.serializable
}

fn transaction_snapshot(s: &LevelSemantics) -> bool {
    matches!(
        s.snapshot,
        SnapshotPoint::Begin | SnapshotPoint::FirstStatement | SnapshotPoint::FirstRead
    )
}

/// The vendor's regime at one level, as the profile's facts make it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// `serializable = true`: no cycle (2PL, SSI, a single writer).
    Serializable,
    /// Snapshot isolation ([`is_snapshot_isolation`]).
    SnapshotIsolation,
    /// A snapshot per transaction for plain reads, while writes and locking
    /// reads act on the latest committed version, or writes wait and then
    /// overwrite a newer version (InnoDB and TiDB pessimistic REPEATABLE
    /// READ).
    SnapshotWithCurrentWrites,
    /// A snapshot per statement (READ COMMITTED).
    StatementSnapshot,
    /// No snapshot: reads may see uncommitted versions (READ UNCOMMITTED).
    NoSnapshot,
}

impl Regime {
    /// The regime a profile declares.
    pub fn of(s: &LevelSemantics) -> Regime {
        if s.serializable {
            Regime::Serializable
        } else if is_snapshot_isolation(s) {
            Regime::SnapshotIsolation
        } else if transaction_snapshot(s) {
            Regime::SnapshotWithCurrentWrites
        } else if s.snapshot == SnapshotPoint::PerStatement {
            Regime::StatementSnapshot
        } else {
            Regime::NoSnapshot
        }
    }
}

/// The vendor model's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum VendorJudgement {
    /// The declared semantics forbid it: a finding.
    Forbidden {
        /// Which declared facts forbid it.
        why: String,
    },
    /// The declared semantics allow it (by design).
    Permitted {
        /// The declared facts that allow it, then the profile's notes and
        /// references, quoted.
        facts: Vec<String>,
    },
}

impl VendorJudgement {
    /// Whether the vendor's semantics forbid the anomaly.
    pub fn is_forbidden(&self) -> bool {
        matches!(self, VendorJudgement::Forbidden { .. })
    }
}

/// The vendor's model of one isolation level, from the profile alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VendorModel {
    /// The level's declared semantics.
    pub semantics: LevelSemantics,
    /// The dialect's engine facts.
    pub engine: EngineSemantics,
    /// The regime they make.
    pub regime: Regime,
}

impl VendorModel {
    /// The model a profile declares.
    pub fn from_semantics(semantics: &LevelSemantics, engine: &EngineSemantics) -> VendorModel {
        VendorModel {
            semantics: semantics.clone(),
            engine: engine.clone(),
            regime: Regime::of(semantics),
        }
    }

    /// Whether the level allows the anomaly, and by which declared facts.
    /// `history` names the transactions in the answer.
    ///
    /// | | no snapshot | per statement | snapshot, current writes | SI | serializable |
    /// |---|---|---|---|---|---|
    /// | G0 | F | F | F | F | F |
    /// | G1a, G1b, G1c | P | F | F | F | F |
    /// | G-single | P | P | P with a ww edge or a wr edge into a locking read, else F | F | F |
    /// | G2-item | P | P | P | P | F |
    /// | G-SIa | P | P | F for a wr edge into a plain read, else P | F | F with a transaction snapshot that writes read too, else P |
    /// | G-SIb | P | P | as G-single | F | F |
    pub fn permits(&self, anomaly: &Anomaly, history: &History) -> VendorJudgement {
        use Phenomenon::*;
        use Regime::*;
        let s = &self.semantics;
        let level = s.level;
        let forbid = |why: String| VendorJudgement::Forbidden {
            why: format!("{level}: {why}"),
        };
        let permit = |fact: String| {
            let mut facts = vec![format!("{level}: {fact}")];
            facts.extend(s.notes.iter().map(|n| format!("declared: {n}")));
            if self.regime == NoSnapshot {
                facts.extend(self.engine.notes.iter().map(|n| format!("engine: {n}")));
            }
            facts.extend(s.references.iter().map(|r| format!("reference: {r}")));
            VendorJudgement::Permitted { facts }
        };
        if self.regime == Serializable && s.mixed_levels == MixedLevels::SameLevelOnly {
            if let Some(other) = other_level(anomaly, history, level)
                .or_else(|| weaker_writer(anomaly, history, level))
            {
                return self.outside_same_level(anomaly, history, &other);
            }
        }
        let conflict = conflict_text(s.write_conflict);
        let session = if anomaly.needs_session_order {
            " (the transactions of a session run one after another, so session order binds like any other order)"
        } else {
            ""
        };
        match anomaly.phenomenon {
            G0 => forbid(format!(
                "write conflicts: {conflict}: no transaction overwrites another's uncommitted version, so no cycle of ww edges{session}"
            )),
            G1a | G1b | G1c if self.regime == NoSnapshot => permit(format!(
                "snapshot = none: reads may return versions that are not committed (dirty reads){}",
                if anomaly.phenomenon == G1c { ", so information may flow both ways between running transactions" } else { "" }
            )),
            G1a => forbid("reads return committed versions only (snapshot taken at a statement or transaction start): no read of an aborted write".into()),
            G1b => forbid("reads return committed versions only: no read of a version its writer later overwrote itself".into()),
            G1c => forbid(format!("reads return committed versions only and write conflicts ({conflict}) keep writers apart: no cycle of ww and wr edges{session}")),
            GSingle | G2Item | GSIb if self.regime == Serializable => forbid(format!(
                "serializable = true: the committed transactions must have the effect of a serial order ({}), and this cycle admits none{session}",
                serial_order_text(s)
            )),
            GSingle | G2Item if matches!(self.regime, NoSnapshot | StatementSnapshot) => permit(format!(
                "snapshot = {}: a transaction's reads need not come from one state of the database, so it may miss writes that others order after it",
                snapshot_text(s.snapshot)
            )),
            G2Item => permit(format!(
                "write conflicts ({conflict}) are checked only between writers of the same row, and plain reads take no locks ({}): two transactions may each miss the other's write (write skew)",
                if s.serializable { "the serializable promise does not reach this cycle" } else { "serializable = false" }
            )),
            GSingle | GSIb if self.regime == SnapshotIsolation => forbid(format!(
                "snapshot isolation (snapshot {}, writes read the snapshot, write conflicts: {conflict}): a transaction sees one snapshot and cannot overwrite a version committed after it, so a cycle with a single rw edge cannot form{session}",
                snapshot_text(s.snapshot)
            )),
            GSIb if matches!(self.regime, NoSnapshot | StatementSnapshot) => permit(format!(
                "snapshot = {}: no transaction-wide snapshot, so start order constrains nothing this model can check",
                snapshot_text(s.snapshot)
            )),
            GSingle | GSIb => {
                // SnapshotWithCurrentWrites
                match write_edge(anomaly) {
                    Some(e) => permit(format!(
                        "writes read {} (write conflicts: {conflict}), while plain reads keep the transaction's snapshot: a write or a locking read may act on a version the snapshot does not show ({} {} {}: {})",
                        write_reads_text(s.write_reads),
                        history.label(e.from),
                        e.short(),
                        history.label(e.to),
                        match e.kind { DepKind::WW => "a write on top of a newer version", _ => "a locking read of a newer version" }
                    )),
                    None => forbid(format!(
                        "plain reads read one snapshot per transaction (snapshot {}): a cycle of one rw edge and wr edges into plain reads means a transaction's snapshot was not consistent{session}",
                        snapshot_text(s.snapshot)
                    )),
                }
            }
            GSIa => self.g_si_a(anomaly, history, &permit, &forbid),
        }
    }

    /// A serializable level whose promise holds only among transactions at
    /// the level ([`MixedLevels::SameLevelOnly`]), judging a cycle through
    /// `other` (a transaction at another level): what the level gives
    /// without that promise decides, and a permission names the reason.
    fn outside_same_level(
        &self,
        anomaly: &Anomaly,
        history: &History,
        other: &str,
    ) -> VendorJudgement {
        let s = &self.semantics;
        let regime = Regime::of(&LevelSemantics {
            serializable: false,
            ..s.clone()
        });
        let without_promise = VendorModel {
            regime,
            ..self.clone()
        };
        match without_promise.permits(anomaly, history) {
            VendorJudgement::Permitted { facts } => {
                let mut all = vec![format!(
                    "{}: serializable = true covers only transactions that all ran at {} (mixed levels: same level only), and {other}; without that promise the level is {}",
                    s.level,
                    s.level,
                    regime_text(regime)
                )];
                all.extend(facts);
                VendorJudgement::Permitted { facts: all }
            }
            forbidden => forbidden,
        }
    }

    fn g_si_a(
        &self,
        anomaly: &Anomaly,
        history: &History,
        permit: &dyn Fn(String) -> VendorJudgement,
        forbid: &dyn Fn(String) -> VendorJudgement,
    ) -> VendorJudgement {
        let s = &self.semantics;
        let Some(e) = anomaly.evidence.first() else {
            return forbid("G-SIa without its edge".into());
        };
        let into_plain_read = e.kind == DepKind::WR && e.read == Some(ReadKind::Plain);
        let snapshot_based = transaction_snapshot(s) && s.write_reads == WriteReads::Snapshot;
        let what = format!(
            "{} {} {}",
            history.label(e.from),
            e.short(),
            history.label(e.to)
        );
        match self.regime {
            Regime::NoSnapshot | Regime::StatementSnapshot => permit(format!(
                "snapshot = {}: a transaction may read and overwrite versions committed after it started ({what})",
                snapshot_text(s.snapshot)
            )),
            Regime::SnapshotIsolation => forbid(format!(
                "snapshot isolation: a transaction neither sees nor overwrites what committed after its snapshot ({what})"
            )),
            Regime::Serializable if snapshot_based => forbid(format!(
                "serializable with a transaction snapshot (snapshot {}, writes read the snapshot): nothing committed after the snapshot is read or overwritten ({what})",
                snapshot_text(s.snapshot)
            )),
            Regime::Serializable => permit(format!(
                "serializable by locking (snapshot {}, writes read {}): reads and writes act on the latest committed versions, also those committed after the transaction started ({what})",
                snapshot_text(s.snapshot),
                write_reads_text(s.write_reads)
            )),
            Regime::SnapshotWithCurrentWrites if into_plain_read => forbid(format!(
                "plain reads read the transaction's snapshot (snapshot {}), which cannot hold a version committed after the transaction started ({what})",
                snapshot_text(s.snapshot)
            )),
            Regime::SnapshotWithCurrentWrites => permit(format!(
                "writes and locking reads read {} ({what})",
                write_reads_text(s.write_reads)
            )),
        }
    }
}

/// A transaction of the anomaly that did not run at `level`, described
/// (\"T7 ran at read committed\"), if there is one.
fn other_level(anomaly: &Anomaly, history: &History, level: IsolationLevel) -> Option<String> {
    anomaly.transactions.iter().find_map(|&t| {
        let name = history.label(t);
        match history.transaction(t).and_then(|x| x.level) {
            Some(l) if l == level => None,
            Some(l) => Some(format!("{name} ran at {l}")),
            None => Some(format!("{name}'s level is not recorded")),
        }
    })
}

/// A transaction outside the cycle, at another level than `level`, that
/// wrote a row the cycle's edges are about, described ("T7 (read
/// uncommitted) wrote t0 row 3, a row of the cycle"), if there is one.
/// Serializable snapshot isolation promises serializability only when every
/// transaction that writes runs at the level (PostgreSQL: "if any
/// transaction writing data is not serializable, the guarantee can be
/// lost"): a weaker writer of the cycle's rows, inside the cycle or not,
/// puts the cycle outside the promise.
fn weaker_writer(anomaly: &Anomaly, history: &History, level: IsolationLevel) -> Option<String> {
    let rows: BTreeSet<(&str, RowId)> = anomaly
        .cycle
        .iter()
        .filter_map(|e| Some((e.table.as_deref()?, e.row?)))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut writers: BTreeMap<TxnId, (String, RowId)> = BTreeMap::new();
    let mut note = |t: TxnId, table: &str, row: RowId| {
        if t != T0 && !anomaly.transactions.contains(&t) {
            writers.entry(t).or_insert_with(|| (table.to_string(), row));
        }
    };
    for o in history.observations() {
        if rows.contains(&(o.table.as_str(), o.row)) {
            for &t in &o.versions {
                note(t, &o.table, o.row);
            }
        }
    }
    for w in history.writes() {
        if rows.contains(&(w.table.as_str(), w.row)) {
            note(w.statement.txn, &w.table, w.row);
        }
    }
    writers.into_iter().find_map(|(t, (table, row))| {
        let at = match history.transaction(t).and_then(|x| x.level) {
            Some(l) if l == level => return None,
            Some(l) => l.to_string(),
            None => "a level not recorded".to_string(),
        };
        Some(format!(
            "{} ({at}) wrote {table} row {row}, a row of the cycle, and the promise needs every writer at {level}",
            history.label(t)
        ))
    })
}

fn regime_text(r: Regime) -> &'static str {
    match r {
        Regime::Serializable => "serializable",
        Regime::SnapshotIsolation => "snapshot isolation",
        Regime::SnapshotWithCurrentWrites => {
            "a transaction snapshot whose writes act on the latest committed versions"
        }
        Regime::StatementSnapshot => "a snapshot per statement",
        Regime::NoSnapshot => "without a snapshot",
    }
}

/// The first ww edge, or wr edge into a locking read, of a cycle.
fn write_edge(anomaly: &Anomaly) -> Option<&Edge> {
    anomaly.cycle.iter().find(|e| {
        e.kind == DepKind::WW
            || (e.kind == DepKind::WR
                && matches!(e.read, Some(ReadKind::Locking | ReadKind::BeforeDelete)))
    })
}

fn snapshot_text(p: SnapshotPoint) -> &'static str {
    match p {
        SnapshotPoint::None => "none",
        SnapshotPoint::PerStatement => "per statement",
        SnapshotPoint::Begin => "at BEGIN",
        SnapshotPoint::FirstStatement => "at the first statement",
        SnapshotPoint::FirstRead => "at the first read",
    }
}

fn write_reads_text(w: WriteReads) -> &'static str {
    match w {
        WriteReads::Snapshot => "the snapshot",
        WriteReads::LatestCommitted => "the latest committed version",
    }
}

fn conflict_text(c: WriteConflict) -> &'static str {
    match c {
        WriteConflict::BlockThenProceed => "a second writer waits for the first, then proceeds",
        WriteConflict::BlockThenAbort => {
            "a second writer waits, then fails if the first committed (first updater wins)"
        }
        WriteConflict::SingleWriter => "one writer at a time, a stale writer fails",
        WriteConflict::AbortAtCommit => "detected at COMMIT (first committer wins)",
    }
}

fn serial_order_text(s: &LevelSemantics) -> &'static str {
    match s.serial_order {
        txlab_plugin_api::ir::SerialOrder::CommitOrder => "the commit order",
        txlab_plugin_api::ir::SerialOrder::AnyOrder => "some order",
    }
}

/// Where [`judge`] finds each level's semantics.
pub trait Profiles {
    /// The declared semantics of `level`, if the dialect offers it.
    fn level(&self, level: IsolationLevel) -> Option<&LevelSemantics>;
    /// The dialect's engine facts.
    fn engine(&self) -> &EngineSemantics;
}

impl Profiles for DialectInfo {
    fn level(&self, level: IsolationLevel) -> Option<&LevelSemantics> {
        DialectInfo::level(self, level)
    }

    fn engine(&self) -> &EngineSemantics {
        &self.engine
    }
}

/// The standard model's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandardJudgement {
    /// The Adya level that decided: the first judged transaction's whose
    /// level permits the anomaly, or, when all forbid it, the first judged
    /// transaction's.
    pub level: AdyaLevel,
    /// Whether the anomaly is forbidden for every judged transaction.
    pub forbidden: bool,
    /// Which transaction at which level, and why.
    pub why: String,
}

/// Both models' answers for one anomaly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judgement {
    /// Adya's levels.
    pub standard: StandardJudgement,
    /// The vendor's declared semantics.
    pub vendor: VendorJudgement,
    /// The transactions whose guarantees the anomaly breaks, which were
    /// judged ([`breakers`]).
    pub judged: Vec<TxnId>,
}

impl Judgement {
    /// A finding: the vendor's own semantics forbid the anomaly.
    pub fn is_finding(&self) -> bool {
        self.vendor.is_forbidden()
    }
}

/// The transactions whose guarantee an anomaly breaks: the reader that
/// missed a write (the source of each rw edge), the reader that saw a write
/// (the target of each wr edge) and the writer that overwrote a version
/// (the target of each ww edge); for G-SIa the transaction that read or
/// overwrote too early. Session and start edges break nobody's guarantee by
/// themselves. Sorted.
pub fn breakers(anomaly: &Anomaly) -> Vec<TxnId> {
    let edges: &[Edge] = match anomaly.phenomenon {
        Phenomenon::G1b => &anomaly.evidence[..anomaly.evidence.len().min(1)],
        _ => anomaly.edges(),
    };
    let mut out: Vec<TxnId> = edges
        .iter()
        .filter_map(|e| match e.kind {
            DepKind::RW => Some(e.from),
            DepKind::WR | DepKind::WW => Some(e.to),
            DepKind::SO | DepKind::Start => None,
        })
        .collect();
    if out.is_empty() {
        out = anomaly.transactions.clone();
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Judges an anomaly by both models. Transactions of one history may run at
/// different levels: the anomaly is judged at the level of each transaction
/// whose guarantee it breaks ([`breakers`]), and counts as forbidden only if
/// it is forbidden for every one of them (the conservative rule: a weaker
/// transaction in the cycle may legitimately cause it). A transaction
/// without a recorded level, or at a level the dialect does not declare
/// (vendor model), makes the anomaly permitted, saying so.
pub fn judge<P: Profiles + ?Sized>(
    anomaly: &Anomaly,
    history: &History,
    profiles: &P,
) -> Judgement {
    let judged = breakers(anomaly);
    let mut standard: Option<StandardJudgement> = None;
    let mut first_forbidding: Option<StandardJudgement> = None;
    let mut vendor_facts: Option<Vec<String>> = None;
    let mut vendor_why: Vec<String> = Vec::new();
    for &t in &judged {
        let name = history.label(t);
        let Some(level) = history.transaction(t).and_then(|x| x.level) else {
            standard.get_or_insert(StandardJudgement {
                level: AdyaLevel::PL1,
                forbidden: false,
                why: format!("{name}'s isolation level is not recorded"),
            });
            vendor_facts.get_or_insert_with(|| {
                vec![format!(
                    "{name}'s isolation level is not recorded: nothing is claimed for it"
                )]
            });
            continue;
        };
        let semantics = profiles.level(level);
        let adya = match semantics {
            Some(s) => AdyaLevel::standard(level, s),
            None => AdyaLevel::named(level),
        };
        let forbids = adya.forbids(anomaly.phenomenon);
        let why = format!(
            "{name} ran at {level} ({adya}), which {} {}",
            if forbids { "proscribes" } else { "allows" },
            anomaly.phenomenon
        );
        let this = StandardJudgement {
            level: adya,
            forbidden: forbids,
            why,
        };
        if forbids {
            first_forbidding.get_or_insert(this);
        } else {
            standard.get_or_insert(this);
        }
        match semantics {
            None => {
                vendor_facts.get_or_insert_with(|| {
                    vec![format!("{name} ran at {level}, which the dialect does not declare: nothing is claimed for it")]
                });
            }
            Some(s) => match VendorModel::from_semantics(s, profiles.engine())
                .permits(anomaly, history)
            {
                VendorJudgement::Permitted { facts } => {
                    vendor_facts.get_or_insert_with(|| {
                        facts
                            .into_iter()
                            .map(|f| format!("{name} at {f}"))
                            .collect()
                    });
                }
                VendorJudgement::Forbidden { why } => vendor_why.push(format!("{name} at {why}")),
            },
        }
    }
    let standard = standard.or(first_forbidding).unwrap_or(StandardJudgement {
        level: AdyaLevel::PL1,
        forbidden: false,
        why: "no transaction to judge".into(),
    });
    let vendor = match vendor_facts {
        Some(facts) => VendorJudgement::Permitted { facts },
        None if vendor_why.is_empty() => VendorJudgement::Permitted {
            facts: vec!["no transaction to judge".into()],
        },
        None => VendorJudgement::Forbidden {
            why: vendor_why.join("; "),
        },
    };
    Judgement {
        standard,
        vendor,
        judged,
    }
}
