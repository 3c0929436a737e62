//! Differences at levels where WriteCheck's Assumption 1 does not hold, with
//! PostgreSQL's documented rules: the READ COMMITTED re-check after a wait
//! and snapshot isolation's writes on the snapshot. Each is a vendor-permitted
//! anomaly named by its rule; the same run under a profile that claims every
//! write conflict is checked is a finding.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

const RC: IsolationLevel = IsolationLevel::ReadCommitted;
const RR: IsolationLevel = IsolationLevel::RepeatableRead;

/// PostgreSQL's READ COMMITTED as the postgres dialect declares it.
fn postgres_rc() -> LevelSemantics {
    LevelSemantics {
        snapshot: SnapshotPoint::PerStatement,
        after_wait: AfterWait::RecheckChanged,
        mixed_levels: MixedLevels::SameLevelOnly,
        ..semantics(RC, false, false)
    }
}

/// PostgreSQL's REPEATABLE READ (snapshot isolation).
fn postgres_rr() -> LevelSemantics {
    LevelSemantics {
        snapshot: SnapshotPoint::FirstStatement,
        write_reads: WriteReads::Snapshot,
        write_conflict: WriteConflict::BlockThenAbort,
        ..semantics(RR, false, false)
    }
}

fn t() -> Table {
    table(
        "t",
        &[("id", ColumnType::Int), ("v", ColumnType::Int)],
        &["id"],
    )
}

fn id_is(id: i64) -> Option<Expr> {
    Some(Expr::eq(col("id"), lit(int(id))))
}

/// T1 moves row 1 into T2's range (v 5 → 0) and row 2 out of it (0 → 7);
/// T2's `UPDATE … WHERE v = 0` waits for row 2, re-checks it (no longer
/// matches) and never sees row 1: it updates nothing. Serially T1 → T2 it
/// updates row 1.
fn recheck_run() -> (TestCase, History) {
    let t = t();
    let order = [0, 0, 0, 1, 1, 0, 1];
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(5)], vec![int(2), int(0)]])],
        vec![
            explicit(
                RC,
                vec![
                    update("t", vec![("v", lit(int(0)))], id_is(1)),
                    update("t", vec![("v", lit(int(7)))], id_is(2)),
                ],
                true,
            ),
            explicit(
                RC,
                vec![update(
                    "t",
                    vec![("v", Expr::binary(BinaryOp::Add, col("v"), lit(int(10))))],
                    Some(Expr::eq(col("v"), lit(int(0)))),
                )],
                true,
            ),
        ],
        &order,
    );
    // Completion order: T1.1 T1.2 T1.3 T2.1, then T1.4 (COMMIT) before the
    // waiting T2.2, then T2.3.
    let completion = [0, 0, 0, 1, 0, 1, 1];
    let history = txlab_testkit::concurrent_history(&case, &completion)
        .blocked(StatementRef::new(1, 1), 4)
        .outcomes(vec![
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(0, 2), affected(1)),
            (StatementRef::new(1, 1), affected(0)),
        ])
        .ends(vec![TxnEnd::Committed, TxnEnd::Committed])
        .final_state(state(&t, vec![vec![int(1), int(0)], vec![int(2), int(7)]]))
        .build();
    (case, history)
}

#[test]
fn postgres_read_committed_recheck_after_a_wait_is_vendor_permitted() {
    let (case, history) = recheck_run();
    let anomaly = expect_vendor_permitted(check(
        &mut oracle_with("", dialect(vec![postgres_rc()])),
        &case,
        &history,
    ));
    assert_eq!(
        anomaly.evidence["explained_by"]["rules"],
        serde_json::json!(["recheck_after_wait"])
    );
    assert!(
        anomaly.title.ends_with("(re-check after a wait)"),
        "{}",
        anomaly.title
    );
    let strict = dialect(vec![semantics(RC, false, true)]);
    let finding = expect_finding(check(&mut oracle_with("", strict), &case, &history));
    assert!(finding.title.contains("violation"), "{}", finding.title);
}

/// T2 reads (its snapshot), T1 inserts row 3 and commits, T2 updates every
/// row on its snapshot and misses row 3. Serially T1 → T2 updates all three.
fn snapshot_run() -> (TestCase, History) {
    let t = t();
    let order = [1, 1, 0, 0, 0, 1, 1];
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)], vec![int(2), int(0)]])],
        vec![
            explicit(
                RR,
                vec![insert(
                    "t",
                    &["id", "v"],
                    vec![int(3), int(0)],
                    OnConflict::Error,
                )],
                true,
            ),
            explicit(
                RR,
                vec![
                    select("t"),
                    update(
                        "t",
                        vec![("v", Expr::binary(BinaryOp::Add, col("v"), lit(int(1))))],
                        None,
                    ),
                ],
                true,
            ),
        ],
        &order,
    );
    let history = history(
        &case,
        &order,
        vec![
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(1, 2), affected(2)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(
            &t,
            vec![
                vec![int(1), int(1)],
                vec![int(2), int(1)],
                vec![int(3), int(0)],
            ],
        ),
    );
    (case, history)
}

#[test]
fn snapshot_isolation_missing_a_concurrent_insert_is_vendor_permitted() {
    let (case, history) = snapshot_run();
    let anomaly = expect_vendor_permitted(check(
        &mut oracle_with("", dialect(vec![postgres_rr()])),
        &case,
        &history,
    ));
    assert_eq!(
        anomaly.evidence["explained_by"]["rules"],
        serde_json::json!(["change_after_snapshot_not_seen"])
    );
    let writes = anomaly.evidence["explained_by"]["writes"]
        .as_array()
        .unwrap();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0]["write"], "T2.3");
    assert_eq!(writes[0]["other_write"], "T1.2");
}

#[test]
fn findings_standard_makes_the_rule_explained_difference_a_finding() {
    let (case, history) = snapshot_run();
    let finding = expect_finding(check(
        &mut oracle_with(r#"{"findings": "standard"}"#, dialect(vec![postgres_rr()])),
        &case,
        &history,
    ));
    assert!(
        finding.explanation.contains("a vendor-permitted anomaly"),
        "the rules' section still says what the vendor permits: {}",
        finding.explanation
    );
}

#[test]
fn the_snapshot_rule_needs_the_change_to_come_after_the_snapshot() {
    // T1 commits before T2's first statement: T2's snapshot holds row 3, so
    // an UPDATE that misses it is not what snapshot isolation permits.
    let (case, history) = snapshot_run();
    let order = [0, 0, 0, 1, 1, 1, 1];
    let case = TestCase {
        submitted_order: refs(&case.transactions, &order),
        ..case
    };
    let history = History {
        ..common::history(
            &case,
            &order,
            vec![
                (StatementRef::new(0, 1), affected(1)),
                (StatementRef::new(1, 2), affected(2)),
            ],
            vec![TxnEnd::Committed, TxnEnd::Committed],
            history.final_state.clone().unwrap(),
        )
    };
    let finding = expect_finding(check(
        &mut oracle_with("", dialect(vec![postgres_rr()])),
        &case,
        &history,
    ));
    assert!(
        finding
            .explanation
            .contains("**Not explained by the vendor's rules:**"),
        "{}",
        finding.explanation
    );
}

/// MariaDB's READ COMMITTED as the mysql dialect declares it.
fn mariadb_rc() -> LevelSemantics {
    LevelSemantics {
        snapshot: SnapshotPoint::PerStatement,
        after_wait: AfterWait::LatestRows,
        mixed_levels: MixedLevels::SameLevelOnly,
        ..semantics(RC, true, false)
    }
}

/// From a MariaDB campaign (run seed 2026, case 1064, reduced): T2's UPDATE
/// ran before T1 inserted the row it would have changed serially; T3,
/// after both committed, then finds the row as T1 left it, which the serial
/// run does not. T3's outcome differs only because the table T2's exposed
/// UPDATE left behind differs: the same rule explains it.
#[test]
fn a_later_transaction_that_finds_the_rows_an_exposed_write_left_is_explained() {
    let t = t();
    let order = [1, 0, 1, 0, 0, 1, 2, 2, 2];
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![])],
        vec![
            explicit(
                RC,
                vec![insert(
                    "t",
                    &["id", "v"],
                    vec![int(1), int(5)],
                    OnConflict::Error,
                )],
                true,
            ),
            explicit(RC, vec![update("t", vec![("v", lit(int(0)))], None)], true),
            explicit(
                RC,
                vec![update(
                    "t",
                    vec![("v", lit(int(9)))],
                    Some(Expr::eq(col("v"), lit(int(5)))),
                )],
                false,
            ),
        ],
        &order,
    );
    let history = history(
        &case,
        &order,
        vec![
            (StatementRef::new(1, 1), affected(0)),
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(2, 1), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed, TxnEnd::RolledBack],
        state(&t, vec![vec![int(1), int(5)]]),
    );
    let anomaly = expect_vendor_permitted(check(
        &mut oracle_with("", dialect(vec![mariadb_rc()])),
        &case,
        &history,
    ));
    assert_eq!(
        anomaly.evidence["explained_by"]["unexplained"],
        serde_json::json!([])
    );
    let writes = anomaly.evidence["explained_by"]["writes"]
        .as_array()
        .unwrap();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0]["write"], "T2.2");
    // Without T2's exposure (a profile with predicate locks and no
    // semi-consistent read) nothing explains T3's outcome.
    let strict = dialect(vec![semantics(RC, false, true)]);
    expect_finding(check(&mut oracle_with("", strict), &case, &history));
}
