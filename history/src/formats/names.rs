//! txlab's anomalies in Elle's terms, and which of Elle's consistency models
//! forbid each (`src/elle/consistency_model.clj`: `direct-proscribed-anomalies`
//! with the models each model implies and the anomalies that imply each
//! proscribed one; `src/elle/txn.clj`: how a cycle is named).

use crate::report::{Anomaly, DepKind, Phenomenon, Violation};
use crate::Survival;

/// The four models `txlab history check` judges by, as Elle names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// `:read-committed` (Adya's PL-2).
    ReadCommitted,
    /// `:repeatable-read` (PL-2.99).
    RepeatableRead,
    /// `:snapshot-isolation` (PL-SI).
    SnapshotIsolation,
    /// `:serializable` (PL-3, conflict serializability).
    Serializable,
}

impl Model {
    /// Every model, weakest first.
    pub const ALL: [Model; 4] = [
        Model::ReadCommitted,
        Model::RepeatableRead,
        Model::SnapshotIsolation,
        Model::Serializable,
    ];

    /// Elle's name: `read-committed`, ….
    pub fn name(self) -> &'static str {
        match self {
            Model::ReadCommitted => "read-committed",
            Model::RepeatableRead => "repeatable-read",
            Model::SnapshotIsolation => "snapshot-isolation",
            Model::Serializable => "serializable",
        }
    }

    /// Adya's name of the level.
    pub fn adya(self) -> &'static str {
        match self {
            Model::ReadCommitted => "PL-2",
            Model::RepeatableRead => "PL-2.99",
            Model::SnapshotIsolation => "PL-SI",
            Model::Serializable => "PL-3",
        }
    }

    /// The model named `name`.
    pub fn parse(name: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether Elle's model forbids the anomaly named `anomaly` (one of
    /// [`ANOMALIES`]).
    pub fn forbids(self, anomaly: &str) -> bool {
        // Every model forbids these (read committed's, through PL-1 and G1):
        const RC: &[&str] = &[
            "G0",
            "G1a",
            "G1b",
            "G1c",
            "dirty-update",
            "incompatible-order",
            "duplicate-elements",
            "future-read",
            // txlab's: what no isolation level allows.
            "aborted-write-survived",
            "unknown-writer",
            "row-in-two-tables",
        ];
        // Repeatable read adds G2-item and what implies it (Adya), and lost
        // update (Bailis, through cursor stability).
        const RR: &[&str] = &[
            "G-single-item",
            "G-nonadjacent-item",
            "G2-item",
            "lost-update",
        ];
        // Snapshot isolation adds internal, G-SI (and G-single, which
        // implies G-SIb), G-nonadjacent (Cerone and Gotsman), lost update
        // (update atomic).
        const SI: &[&str] = &[
            "internal",
            "G-single-item",
            "G-nonadjacent-item",
            "GSIa",
            "GSIb",
            "lost-update",
        ];
        RC.contains(&anomaly)
            || match self {
                Model::ReadCommitted => false,
                Model::RepeatableRead => RR.contains(&anomaly),
                Model::SnapshotIsolation => SI.contains(&anomaly),
                Model::Serializable => RR.contains(&anomaly) || SI.contains(&anomaly),
            }
    }
}

/// Every name this module gives, in the order reports list them.
pub const ANOMALIES: &[&str] = &[
    "G0",
    "G1a",
    "G1b",
    "G1c",
    "G-single-item",
    "G-nonadjacent-item",
    "G2-item",
    "GSIa",
    "GSIb",
    "internal",
    "future-read",
    "duplicate-elements",
    "incompatible-order",
    "dirty-update",
    "lost-update",
    "aborted-write-survived",
    "unknown-writer",
    "row-in-two-tables",
];

/// Elle's name of an anomaly txlab found. A cycle is named by its edges as
/// Elle's cycle explainer names it: no rw edge and a wr edge G1c, only ww
/// G0, one rw edge G-single-item, several G2-item if two rw edges are
/// adjacent, else G-nonadjacent-item. (Elle's G-single-item is the paper's
/// G-single: item, not predicate, anti-dependencies.)
pub fn anomaly_name(a: &Anomaly) -> &'static str {
    match a.phenomenon {
        Phenomenon::G0 => "G0",
        Phenomenon::G1a => "G1a",
        Phenomenon::G1b => "G1b",
        Phenomenon::G1c => "G1c",
        Phenomenon::GSingle => "G-single-item",
        Phenomenon::GSIa => "GSIa",
        Phenomenon::GSIb => "GSIb",
        Phenomenon::G2Item => {
            let rw: Vec<bool> = a.cycle.iter().map(|e| e.kind == DepKind::RW).collect();
            let n = rw.len();
            let adjacent = (0..n).any(|i| rw[i] && rw[(i + 1) % n]);
            if adjacent || n == 0 {
                "G2-item"
            } else {
                "G-nonadjacent-item"
            }
        }
    }
}

/// Elle's name for what txlab calls a violation, or txlab's own name where
/// Elle has none.
pub fn violation_name(v: &Violation) -> &'static str {
    match v {
        // Elle's incompatible-order: two reads of a key that cannot come
        // from one order of appends.
        Violation::ForkedVersions { .. } => "incompatible-order",
        // Elle's dirty-update: a committed write after an aborted one in
        // a key's version order.
        Violation::AbortedWriteSurvived {
            how: Survival::FollowedBy { .. },
            ..
        } => "dirty-update",
        Violation::AbortedWriteSurvived { .. } => "aborted-write-survived",
        // Elle's internal: a transaction does not see its own write.
        Violation::OwnWriteLost { .. } => "internal",
        Violation::UnknownWriter { .. } => "unknown-writer",
        Violation::RowInTwoTables { .. } => "row-in-two-tables",
    }
}

/// One anomaly in Elle's terms: its name, the transactions, and how it was
/// seen (a cycle edge by edge, or the reads that show it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// Elle's name (or txlab's, where Elle has none).
    pub name: &'static str,
    /// The transactions involved, ascending.
    pub txns: Vec<crate::TxnId>,
    /// One line: the cycle or the evidence, with txlab's names.
    pub summary: String,
    /// The edges with their evidence (cycles, G1a, G1b, G-SIa).
    pub edges: Vec<crate::Edge>,
}

/// How `txlab history check` checks an imported history: as Elle does for
/// its non-strong models, from the dependencies alone (no session order,
/// no start order), without IsoRel's locking-read exemption (Elle's
/// histories have no locking reads), and with an intermediate read's rw
/// edge in cycles (Elle reports G-single-item beside G1b there).
pub fn check_options() -> crate::Options {
    crate::Options {
        exempt_locking_reads: false,
        session_order: false,
        start_order: false,
        list_edges: false,
        intermediate_reads_in_cycles: true,
    }
}

/// Every anomaly of a report and of the file's own findings, in Elle's
/// terms, in the order of [`ANOMALIES`].
pub fn named(imported: &super::Imported, report: &crate::Report) -> Vec<Named> {
    let h = &imported.history;
    let mut out: Vec<Named> = Vec::new();
    for a in &report.anomalies {
        let mut txns = a.transactions.clone();
        txns.sort_unstable();
        out.push(Named {
            name: anomaly_name(a),
            txns,
            summary: a.describe(h),
            edges: a.edges().to_vec(),
        });
    }
    prune_implied(&mut out);
    for v in &report.violations {
        out.push(Named {
            name: violation_name(v),
            txns: Vec::new(),
            summary: v.describe(h),
            edges: Vec::new(),
        });
    }
    for f in &imported.findings {
        out.push(Named {
            name: f.name,
            txns: f.txns.clone(),
            summary: f.explanation.clone(),
            edges: Vec::new(),
        });
    }
    let rank = |n: &str| ANOMALIES.iter().position(|x| *x == n).unwrap_or(usize::MAX);
    out.sort_by(|a, b| (rank(a.name), &a.txns).cmp(&(rank(b.name), &b.txns)));
    out
}

/// Elle reports, per strongly connected component, the most severe cycle
/// classes and skips those they imply (`cycle-cases-in-scc`: G0 implies G1c,
/// G-single-item G-nonadjacent-item and G2-item, G-nonadjacent-item
/// G2-item). txlab reports one cycle per class and component; cycles that
/// share a transaction are in one component, and of those the implied
/// classes are dropped here.
fn prune_implied(out: &mut Vec<Named>) {
    const CYCLES: &[&str] = &[
        "G0",
        "G1c",
        "G-single-item",
        "G-nonadjacent-item",
        "G2-item",
    ];
    let idx: Vec<usize> = (0..out.len())
        .filter(|&i| CYCLES.contains(&out[i].name))
        .collect();
    // Union-find over the cycles, joined by a shared transaction.
    let mut parent: Vec<usize> = (0..idx.len()).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for a in 0..idx.len() {
        for b in a + 1..idx.len() {
            let shared = out[idx[a]]
                .txns
                .iter()
                .any(|t| out[idx[b]].txns.binary_search(t).is_ok());
            if shared {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra] = rb;
            }
        }
    }
    let implied = |worse: &str| -> &'static [&'static str] {
        match worse {
            "G0" => &["G1c"],
            "G-single-item" => &["G-nonadjacent-item", "G2-item"],
            "G-nonadjacent-item" => &["G2-item"],
            _ => &[],
        }
    };
    let mut drop = vec![false; out.len()];
    for a in 0..idx.len() {
        for b in 0..idx.len() {
            if a != b
                && root(&mut parent, a) == root(&mut parent, b)
                && implied(out[idx[a]].name).contains(&out[idx[b]].name)
            {
                drop[idx[b]] = true;
            }
        }
    }
    let mut i = 0;
    out.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}
