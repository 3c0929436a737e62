//! The experiments and their judges. Each judge predicts, from the declared
//! facts, what the server does in the experiment's case, and compares that
//! with what the history shows. The scripts are in `experiments/`.

use crate::{Declared, Experiment, Fact, Judgement, Run};
use txlab_plugin_api::ir::*;

macro_rules! script {
    ($name:literal) => {
        include_str!(concat!("../experiments/", $name, ".sql"))
    };
}

/// Every experiment, in the order `txlab semantics` runs them.
pub static EXPERIMENTS: &[Experiment] = &[
    Experiment {
        name: "dirty-read",
        fact: Fact::Snapshot,
        script: script!("dirty-read"),
        judge: dirty_read,
    },
    Experiment {
        name: "snapshot-point",
        fact: Fact::Snapshot,
        script: script!("snapshot-point"),
        judge: snapshot_point,
    },
    Experiment {
        name: "write-write",
        fact: Fact::WriteConflict,
        script: script!("write-write"),
        judge: write_write,
    },
    Experiment {
        name: "write-after-commit",
        fact: Fact::WriteReads,
        script: script!("write-after-commit"),
        judge: write_after_commit,
    },
    Experiment {
        name: "locked-row-not-matching",
        fact: Fact::SemiConsistentWrites,
        script: script!("locked-row-not-matching"),
        judge: locked_row_not_matching,
    },
    Experiment {
        name: "locked-row-committed-matches",
        fact: Fact::WriteReads,
        script: script!("locked-row-committed-matches"),
        judge: locked_row_committed_matches,
    },
    Experiment {
        name: "insert-into-scanned-range",
        fact: Fact::PredicateConflicts,
        script: script!("insert-into-scanned-range"),
        judge: insert_into_scanned_range,
    },
    Experiment {
        name: "write-skew",
        fact: Fact::Serializable,
        script: script!("write-skew"),
        judge: write_skew,
    },
    Experiment {
        name: "rows-after-a-wait",
        fact: Fact::AfterWait,
        script: script!("rows-after-a-wait"),
        judge: rows_after_a_wait,
    },
    Experiment {
        name: "same-value-update",
        fact: Fact::SameValueUpdate,
        script: script!("same-value-update"),
        judge: same_value_update,
    },
    Experiment {
        name: "failed-statement",
        fact: Fact::FailedStatementKeepsTransaction,
        script: script!("failed-statement"),
        judge: failed_statement,
    },
    Experiment {
        name: "empty-first-read",
        fact: Fact::FirstReadSnapshotNeedsTableAccess,
        script: script!("empty-first-read"),
        judge: empty_first_read,
    },
];

fn point_name(p: SnapshotPoint) -> &'static str {
    match p {
        SnapshotPoint::None => "none (dirty reads)",
        SnapshotPoint::PerStatement => "per statement",
        SnapshotPoint::Begin => "at BEGIN",
        SnapshotPoint::FirstStatement => "at the first statement",
        SnapshotPoint::FirstRead => "at the first read",
    }
}

/// Whether the level reads from a snapshot older than the statement: one
/// taken at BEGIN, the first statement or the first read.
fn transaction_snapshot(level: &LevelSemantics) -> bool {
    matches!(
        level.snapshot,
        SnapshotPoint::Begin | SnapshotPoint::FirstStatement | SnapshotPoint::FirstRead
    )
}

/// A serialization failure: the DBMS refused a write or a commit to keep the
/// level's promise (first updater wins, a stale writer, a failed commit).
fn refused(class: Option<ErrorClass>) -> bool {
    matches!(class, Some(ErrorClass::SerializationFailure))
}

fn dirty_read(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T2.2 writes 11 and holds it; T1.2 reads.
    if !run.succeeded("T2.2") || run.blocked("T2.2") {
        return Judgement::not_observable(format!(
            "the uncommitted write did not happen as set up: {}",
            run.describe("T2.2")
        ));
    }
    let observed = match run.int("T1.2") {
        Some(11) => "reads the uncommitted 11",
        Some(10) => "reads the committed 10",
        _ => {
            return Judgement::not_observable(format!(
                "the read did not return one value: {}",
                run.describe("T1.2")
            ))
        }
    };
    let expected = if d.level.snapshot == SnapshotPoint::None {
        "reads the uncommitted 11"
    } else {
        "reads the committed 10"
    };
    with_detail(
        Judgement::compare(expected, observed),
        &run.describe("T1.2"),
    )
}

/// Adds what the statement did to an agreement or a contradiction.
fn with_detail(j: Judgement, detail: &str) -> Judgement {
    match j {
        Judgement::Agrees { observed } => Judgement::Agrees {
            observed: format!("{observed} ({detail})"),
        },
        Judgement::Contradicts { expected, observed } => Judgement::Contradicts {
            expected,
            observed: format!("{observed} ({detail})"),
        },
        other => other,
    }
}

fn snapshot_point(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1: BEGIN (T1.1), UPDATE of row 2 (T1.2), reads of row 1 (T1.3, T1.4).
    // Writers of row 1: T2 -> 11, T3 -> 12, T4 -> 13.
    let reads = ["T1.3", "T1.4"];
    let mut values = Vec::new();
    for read in reads {
        match run.int(read) {
            Some(v) => values.push(v),
            None => {
                return Judgement::not_observable(format!(
                    "a read did not return one value: {}",
                    run.describe(read)
                ))
            }
        }
    }
    // The value a snapshot taken when `cut` was sent holds for row 1.
    let holds = |cut: &str| -> i64 {
        (2..=4)
            .filter(|&w| run.committed_before(w, cut))
            .map(|w| 9 + w as i64)
            .max()
            .unwrap_or(10)
    };
    let candidates = [
        (SnapshotPoint::Begin, ["T1.1", "T1.1"]),
        (SnapshotPoint::FirstStatement, ["T1.2", "T1.2"]),
        (SnapshotPoint::FirstRead, ["T1.3", "T1.3"]),
        (SnapshotPoint::PerStatement, ["T1.3", "T1.4"]),
    ];
    let fits: Vec<SnapshotPoint> = candidates
        .iter()
        .filter(|(_, cuts)| cuts.iter().zip(&values).all(|(cut, v)| holds(cut) == *v))
        .map(|(p, _)| *p)
        .collect();
    let seen = format!("T1's reads returned {} and {}", values[0], values[1]);
    let observed = if fits.is_empty() {
        format!("{seen}: no snapshot point gives that")
    } else {
        let names: Vec<&str> = fits.iter().map(|p| point_name(*p)).collect();
        format!("{seen}: a snapshot {}", names.join(" or "))
    };
    // Dirty reads see committed writes too: here like a snapshot per statement.
    let declared = match d.level.snapshot {
        SnapshotPoint::None => SnapshotPoint::PerStatement,
        p => p,
    };
    if fits.contains(&declared) {
        Judgement::agrees(observed)
    } else {
        Judgement::Contradicts {
            expected: format!("a snapshot {}", point_name(d.level.snapshot)),
            observed,
        }
    }
}

fn write_write(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1.2 changes row 1 and holds it; T2.2 took T2's snapshot; T2.3 writes row 1.
    if !run.succeeded("T1.2") || !run.succeeded("T2.2") {
        return Judgement::not_observable(format!(
            "the set-up did not run as planned: {}; {}",
            run.describe("T1.2"),
            run.describe("T2.2")
        ));
    }
    if !run.committed(1) {
        return Judgement::not_observable(format!(
            "the first writer did not commit: {}",
            run.describe("T1.3")
        ));
    }
    let waited = run.blocked("T2.3");
    let observed = if refused(run.error("T2.3")) {
        if waited {
            "waits, then fails as the second writer"
        } else {
            "fails at once as the second writer"
        }
    } else if run.succeeded("T2.3") {
        if refused(run.error("T2.4")) {
            if waited {
                "waits, then its COMMIT fails"
            } else {
                "does not wait, and its COMMIT fails"
            }
        } else if run.committed(2) && run.final_v(1) == Some(21) {
            if waited {
                "waits, then writes the first writer's committed row (v = 21)"
            } else {
                "does not wait, and writes the first writer's committed row (v = 21)"
            }
        } else {
            return Judgement::Contradicts {
                expected: expected_write_write(d.level.write_conflict).into(),
                observed: format!(
                    "{}; {}; final v = {:?}",
                    run.describe("T2.3"),
                    run.describe("T2.4"),
                    run.final_v(1)
                ),
            };
        }
    } else {
        return Judgement::not_observable(format!(
            "the second write failed otherwise: {}",
            run.describe("T2.3")
        ));
    };
    Judgement::compare(expected_write_write(d.level.write_conflict), observed)
}

fn expected_write_write(conflict: WriteConflict) -> &'static str {
    match conflict {
        WriteConflict::BlockThenProceed => {
            "waits, then writes the first writer's committed row (v = 21)"
        }
        WriteConflict::BlockThenAbort | WriteConflict::SingleWriter => {
            "waits, then fails as the second writer"
        }
        WriteConflict::AbortAtCommit => "does not wait, and its COMMIT fails",
    }
}

fn write_after_commit(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1.2 reads row 1 (10); T2 adds 1 and commits; T1.3 adds 10.
    if !run.committed_before(2, "T1.3") {
        return Judgement::not_observable(format!(
            "T2 did not commit before T1's write ({}): the level's reads lock what they read",
            run.describe("T2.2")
        ));
    }
    let observed = if refused(run.error("T1.3")) {
        "T1's UPDATE fails".to_string()
    } else if run.succeeded("T1.3") && refused(run.error("T1.4")) {
        "T1's COMMIT fails".to_string()
    } else if run.committed(1) {
        match run.final_v(1) {
            Some(21) => "T1's UPDATE adds to the committed 11 (v = 21)".to_string(),
            Some(20) => "T1's UPDATE adds to its snapshot's 10 (v = 20, a lost update)".to_string(),
            v => format!("v = {v:?}"),
        }
    } else {
        return Judgement::not_observable(format!(
            "T1 ended otherwise: {}; {}",
            run.describe("T1.3"),
            run.describe("T1.4")
        ));
    };
    if transaction_snapshot(d.level)
        && d.level.write_conflict == WriteConflict::AbortAtCommit
        && (observed == "T1's UPDATE fails" || observed == "T1's COMMIT fails")
    {
        // Conflicts detected at COMMIT may also stop the write itself where
        // the other's commit already reached it (a Galera node that applied
        // the other node's commit, with innodb_snapshot_isolation ON).
        return Judgement::agrees(format!("{observed} (the level refuses the write)"));
    }
    let expected = if !transaction_snapshot(d.level) {
        "T1's UPDATE adds to the committed 11 (v = 21)"
    } else {
        match (d.level.write_conflict, d.level.write_reads) {
            (WriteConflict::BlockThenAbort | WriteConflict::SingleWriter, _) => "T1's UPDATE fails",
            (WriteConflict::AbortAtCommit, _) => "T1's UPDATE or its COMMIT fails",
            (WriteConflict::BlockThenProceed, WriteReads::LatestCommitted) => {
                "T1's UPDATE adds to the committed 11 (v = 21)"
            }
            (WriteConflict::BlockThenProceed, WriteReads::Snapshot) => {
                "T1's UPDATE adds to its snapshot's 10 (v = 20, a lost update)"
            }
        }
    };
    Judgement::compare(expected, observed)
}

fn locked_row_not_matching(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1.2 holds row 1 (10 -> 11); T2.2 updates WHERE v = 20.
    if !run.succeeded("T1.2") {
        return Judgement::not_observable(run.describe("T1.2"));
    }
    let level = d.level;
    let expect_wait = if level.write_conflict == WriteConflict::SingleWriter {
        true
    } else if level.write_reads == WriteReads::LatestCommitted
        && level.after_wait == AfterWait::LatestRows
    {
        !level.semi_consistent_writes
    } else if level.after_wait == AfterWait::RecheckChanged {
        // Scans its statement's snapshot: the row does not match there.
        false
    } else {
        return Judgement::not_observable(
            "the declared facts do not say whether a write that reads its snapshot waits for a locked row it does not match",
        );
    };
    let observed = if run.blocked("T2.2") {
        "waits for the locked row"
    } else {
        "skips the locked row without waiting"
    };
    let expected = if expect_wait {
        "waits for the locked row"
    } else {
        "skips the locked row without waiting"
    };
    with_detail(
        Judgement::compare(expected, observed),
        &run.describe("T2.2"),
    )
}

fn locked_row_committed_matches(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1.2 holds row 2 (20 -> 21); T2.2 updates WHERE v = 20; T1 rolls back,
    // so once T2 has waited, row 2 is back at 20 and T2 updates it.
    if !run.succeeded("T1.2") {
        return Judgement::not_observable(run.describe("T1.2"));
    }
    if d.level.write_conflict == WriteConflict::AbortAtCommit {
        return Judgement::not_observable("conflicts surface at COMMIT: no write waits");
    }
    let observed = if !run.blocked("T2.2") {
        "does not wait for the row its committed version matches"
    } else if run.affected("T2.2") == Some(1) && run.final_v(2) == Some(120) {
        "waits, then updates the row the holder rolled back"
    } else {
        "waits, then leaves the row the holder rolled back"
    };
    with_detail(
        Judgement::compare(
            "waits, then updates the row the holder rolled back",
            observed,
        ),
        &format!(
            "{}; final v = {}",
            run.describe("T2.2"),
            run.final_v(2)
                .map(|v| v.to_string())
                .unwrap_or_else(|| "not read".into())
        ),
    )
}

fn insert_into_scanned_range(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1.2 updates 1 <= id <= 3; T2.2 inserts id 2.
    if !run.succeeded("T1.2") {
        return Judgement::not_observable(run.describe("T1.2"));
    }
    let conflict = run.blocked("T2.2")
        || ["T1.3", "T2.2", "T2.3"].iter().any(|s| {
            matches!(
                run.error(s),
                Some(ErrorClass::SerializationFailure | ErrorClass::Deadlock)
            )
        });
    let observed = if conflict {
        "the insert conflicts with the scanned range"
    } else {
        "the insert does not conflict"
    };
    let expected = if d.level.predicate_conflicts {
        "the insert conflicts with the scanned range"
    } else {
        "the insert does not conflict"
    };
    with_detail(
        Judgement::compare(expected, observed),
        &format!("{}; {}", run.describe("T2.2"), run.describe("T2.3")),
    )
}

fn write_skew(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    let skewed = run.committed(1)
        && run.committed(2)
        && run.final_v(1) == Some(11)
        && run.final_v(2) == Some(21)
        && !["T1.3", "T2.3"].iter().any(|s| run.blocked(s));
    let observed = if skewed {
        "both commit: a write skew"
    } else {
        "the write skew is prevented"
    };
    if d.level.serializable {
        Judgement::compare("the write skew is prevented", observed)
    } else {
        // No promise: either is what the level allows.
        Judgement::agrees(format!("{observed} (the level makes no promise)"))
    }
}

fn rows_after_a_wait(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1 moves row 1 out of T2's predicate and row 2 into it; T2.2 waits.
    if !run.blocked("T2.2") {
        return Judgement::not_observable(format!(
            "T2's UPDATE did not wait: {}",
            run.describe("T2.2")
        ));
    }
    if run.error("T2.2").is_some() {
        return Judgement::not_observable(format!(
            "T2's UPDATE failed after its wait, as the level's second writer may: {}",
            run.describe("T2.2")
        ));
    }
    let observed = match run.affected("T2.2") {
        Some(1) => "acts on the latest committed rows (updates row 2)",
        Some(0) => "keeps its snapshot's rows and re-checks the changed one (updates none)",
        _ => return Judgement::not_observable(run.describe("T2.2")),
    };
    let expected = match d.level.after_wait {
        AfterWait::LatestRows => "acts on the latest committed rows (updates row 2)",
        AfterWait::RecheckChanged => {
            "keeps its snapshot's rows and re-checks the changed one (updates none)"
        }
        AfterWait::Unknown => {
            return Judgement::not_observable(format!(
                "the profile does not declare it; the server's statement {observed}"
            ))
        }
    };
    Judgement::compare(expected, observed)
}

fn same_value_update(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    // T1.2 reads 10; T2 commits 11; T1.3 sets 11; T1.4 reads.
    if !transaction_snapshot(d.level) {
        return Judgement::not_observable("every statement takes its own snapshot at this level");
    }
    if run.int("T1.2") != Some(10) || !run.committed_before(2, "T1.3") {
        return Judgement::not_observable(format!(
            "the set-up did not run as planned: {}; {}",
            run.describe("T1.2"),
            run.describe("T2.2")
        ));
    }
    if !run.succeeded("T1.3") {
        return Judgement::not_observable(format!(
            "the level refuses the write: {}",
            run.describe("T1.3")
        ));
    }
    let observed = match run.int("T1.4") {
        Some(11) => "makes a new version (T1 then reads 11)",
        Some(10) => "keeps the row's version (T1 still reads 10)",
        _ => return Judgement::not_observable(run.describe("T1.4")),
    };
    let expected = match d.engine.same_value_update {
        SameValueUpdate::NewVersion => "makes a new version (T1 then reads 11)",
        SameValueUpdate::NoVersion => "keeps the row's version (T1 still reads 10)",
        SameValueUpdate::Unknown => {
            return Judgement::agrees(format!("{observed}; the profile accepts either"))
        }
    };
    Judgement::compare(expected, observed)
}

fn failed_statement(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    if run.error("T1.3") != Some(ErrorClass::Constraint) {
        return Judgement::not_observable(format!(
            "the colliding INSERT did not fail on its key: {}",
            run.describe("T1.3")
        ));
    }
    let kept = run.succeeded("T1.4") && run.committed(1) && run.final_ids() == Some(vec![1, 2, 3]);
    let observed = if kept {
        "only the failed statement is undone; the transaction commits its other rows"
    } else {
        "the failure ends the transaction"
    };
    let expected = if d.engine.failed_statement_keeps_transaction {
        "only the failed statement is undone; the transaction commits its other rows"
    } else {
        "the failure ends the transaction"
    };
    with_detail(
        Judgement::compare(expected, observed),
        &format!(
            "{}; the table holds ids {}",
            run.describe("T1.4"),
            run.final_ids()
                .map(|ids| format!("{ids:?}"))
                .unwrap_or_else(|| "not read".into())
        ),
    )
}

fn empty_first_read(d: Declared<'_>, run: &Run<'_>) -> Judgement {
    if d.level.snapshot != SnapshotPoint::FirstRead {
        return Judgement::not_observable("the level does not take its snapshot at the first read");
    }
    if !run.committed_before(2, "T1.3") {
        return Judgement::not_observable(format!(
            "T2 did not commit before T1's second read: {}",
            run.describe("T2.2")
        ));
    }
    let observed = match run.int("T1.3") {
        Some(11) => "a read that matches no row by its WHERE clause alone takes no snapshot",
        Some(10) => "the empty read takes the snapshot",
        _ => return Judgement::not_observable(run.describe("T1.3")),
    };
    if d.engine.first_read_snapshot_needs_table_access {
        // A permission: the snapshot may come from either read.
        Judgement::agrees(format!("{observed} (the profile allows either)"))
    } else {
        Judgement::compare("the empty read takes the snapshot", observed)
    }
}
