//! Cases from the WriteCheck paper and the bugs it cites, as hand-made histories
//! of what the DBMS did.

mod common;

use common::*;
use txlab_loader::OracleHandle;
use txlab_oracle_wss::WssOracle;
use txlab_plugin_api::prelude::*;
use txlab_testkit::MemoryDb;

const RC: IsolationLevel = IsolationLevel::ReadCommitted;
const RR: IsolationLevel = IsolationLevel::RepeatableRead;

/// F1, TiDB#42121 (Figure 1): `t(c1 DOUBLE PRIMARY KEY)` holding 1.
/// T1: BEGIN; DELETE FROM t; COMMIT.
/// T2: BEGIN; INSERT 2; REPLACE 1; COMMIT.
/// Submitted 1-2-2-2-1-2-1.
fn f1() -> (Table, TestCase) {
    let t = table("t", &[("c1", ColumnType::Double)], &["c1"]);
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![Value::Float(1.0)]])],
        vec![
            explicit(RR, vec![delete("t", None)], true),
            explicit(
                RR,
                vec![
                    insert("t", &["c1"], vec![Value::Float(2.0)], OnConflict::Error),
                    insert("t", &["c1"], vec![Value::Float(1.0)], OnConflict::Replace),
                ],
                true,
            ),
        ],
        &[0, 1, 1, 1, 0, 1, 0],
    );
    (t, case)
}

/// TiDB 6.6.0: the REPLACE that leaves row 1 unchanged forgets to lock it, so
/// T1's DELETE is not blocked and removes only row 1; final state {2}.
fn f1_buggy() -> (TestCase, History) {
    let (t, case) = f1();
    let history = history(
        &case,
        &[0, 1, 1, 1, 0, 1, 0],
        vec![
            (StatementRef::new(1, 1), affected(1)),
            (StatementRef::new(1, 2), affected(2)),
            (StatementRef::new(0, 1), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![vec![Value::Float(2.0)]]),
    );
    (case, history)
}

#[test]
fn f1_tidb_42121_is_a_finding() {
    let (case, history) = f1_buggy();
    let finding = expect_finding(check(&mut oracle(), &case, &history));
    assert_eq!(
        finding.title,
        "tx-WSS and stmt-WSS violation: the final state differs from the serial run in commit order"
    );
    // Serial T2 → T1 leaves the table empty.
    assert_eq!(
        finding.evidence["fcrfs_order"],
        serde_json::json!(["T2", "T1"])
    );
    for variant in finding.evidence["variants"].as_array().unwrap() {
        assert_eq!(
            variant["serial_state"]["tables"][0]["rows"],
            serde_json::json!([])
        );
    }
    insta::assert_snapshot!("f1_explanation", finding.explanation);
}

#[test]
fn f1_after_the_fix_passes() {
    // Fixed: the DELETE blocks until T2 commits, then deletes both rows.
    let (t, case) = f1();
    let history = history(
        &case,
        &[0, 1, 1, 1, 1, 0, 0],
        vec![
            (StatementRef::new(1, 1), affected(1)),
            (StatementRef::new(1, 2), affected(2)),
            (StatementRef::new(0, 1), affected(2)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![]),
    );
    assert_eq!(check(&mut oracle(), &case, &history), Verdict::Pass);
}

#[test]
fn f1_through_the_plugin_boundary() {
    // The same check through the ABI: JSON in and out, the scratch database
    // behind the host bridge.
    let (case, history) = f1_buggy();
    let mut handle = OracleHandle::from_plugin::<WssOracle>(
        "{}",
        OracleContext {
            dialect: strict_dialect(),
        },
    )
    .unwrap();
    let requirements = handle.requirements().unwrap();
    assert!(requirements.scratch_db && requirements.final_state);
    assert_eq!(requirements.modes, [ExecutorMode::Schedule]);
    assert_eq!(handle.prepare(&case).unwrap(), case);
    let mut db = MemoryDb::new();
    let verdict = handle
        .check(&CheckInput { case, history }, &mut db)
        .unwrap();
    assert!(matches!(verdict, Verdict::Finding(_)), "{verdict:?}");
    assert_eq!(db.open_sessions(), 0);
}

/// F5, TiDB#42486 (Listing 4), optimistic RR: `t(c1 INT)` holding 1.
/// T1 inserts 2 and commits; T2 then deletes everything and commits, but its
/// snapshot predates T1's commit and the conflict goes undetected.
#[test]
fn f5_tidb_42486_is_a_finding() {
    let t = table("t", &[("c1", ColumnType::Int)], &[]);
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1)]])],
        vec![
            explicit(
                RR,
                vec![insert("t", &["c1"], vec![int(2)], OnConflict::Error)],
                true,
            ),
            explicit(RR, vec![delete("t", None)], true),
        ],
        &[0, 1, 0, 0, 1, 1],
    );
    let history = history(
        &case,
        &[0, 1, 0, 0, 1, 1],
        vec![
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(1, 1), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![vec![int(2)]]),
    );
    let mut optimistic = semantics(RR, false, true);
    optimistic.write_conflict = WriteConflict::AbortAtCommit;
    optimistic.snapshot = SnapshotPoint::Begin;
    let mut oracle = oracle_with("", dialect(vec![optimistic]));
    let finding = expect_finding(check(&mut oracle, &case, &history));
    assert!(
        finding
            .title
            .starts_with("tx-WSS and stmt-WSS violation: the final state"),
        "{}",
        finding.title
    );
    assert_eq!(
        finding.evidence["fcrfs_order"],
        serde_json::json!(["T1", "T2"])
    );
    assert!(
        finding
            .explanation
            .contains("only in the concurrent run: (2)"),
        "{}",
        finding.explanation
    );
    assert!(
        finding
            .explanation
            .contains("`T2.2` (DELETE) affected a different number of rows"),
        "{}",
        finding.explanation
    );
    assert!(
        finding
            .assumed_semantics
            .contains("write conflicts detected at commit"),
        "{}",
        finding.assumed_semantics
    );
}

/// MDEV-26687 (same family as F7): `t(a INT, b INT)` holding (NULL,1), (NULL,2),
/// (NULL,3). s1: BEGIN; UPDATE t SET a = 10; COMMIT.
/// s2: BEGIN; UPDATE t SET b = 20 WHERE a; COMMIT. Submitted 1-1-2-2-1-2.
fn mdev_26687(level: IsolationLevel) -> (Table, TestCase) {
    let t = table("t", &[("a", ColumnType::Int), ("b", ColumnType::Int)], &[]);
    let case = case(
        vec![t.clone()],
        vec![rows(
            &t,
            vec![
                vec![Value::Null, int(1)],
                vec![Value::Null, int(2)],
                vec![Value::Null, int(3)],
            ],
        )],
        vec![
            explicit(
                level,
                vec![update("t", vec![("a", lit(int(10)))], None)],
                true,
            ),
            explicit(
                level,
                vec![update("t", vec![("b", lit(int(20)))], Some(col("a")))],
                true,
            ),
        ],
        &[0, 0, 1, 1, 0, 1],
    );
    (t, case)
}

/// At READ COMMITTED the semi-consistent read lets s2's UPDATE evaluate the
/// latest committed rows (a still NULL) without blocking: nothing is updated.
fn mdev_26687_rc_run() -> (TestCase, History) {
    let (t, case) = mdev_26687(RC);
    let history = history(
        &case,
        &[0, 0, 1, 1, 0, 1],
        vec![
            (StatementRef::new(0, 1), affected(3)),
            (StatementRef::new(1, 1), affected(0)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(
            &t,
            vec![
                vec![int(10), int(1)],
                vec![int(10), int(2)],
                vec![int(10), int(3)],
            ],
        ),
    );
    (case, history)
}

/// MariaDB's documented READ COMMITTED: semi-consistent UPDATEs, no gap locks.
fn mariadb_like() -> DialectInfo {
    dialect(vec![semantics(RC, true, false), semantics(RR, false, true)])
}

#[test]
fn mdev_26687_semi_consistent_read_is_vendor_permitted_at_read_committed() {
    let (case, history) = mdev_26687_rc_run();
    let anomaly =
        expect_vendor_permitted(check(&mut oracle_with("", mariadb_like()), &case, &history));
    assert_eq!(
        anomaly.title,
        "tx-WSS and stmt-WSS difference: the final state differs from the serial run in commit order \
         (semi-consistent read)"
    );
    assert_eq!(
        anomaly.signature,
        "WSS difference by a vendor rule: semi-consistent read"
    );
    assert_eq!(
        anomaly.evidence["explained_by"]["rules"],
        serde_json::json!(["semi_consistent_read"])
    );
    // s2's UPDATE evaluated its rows while s1's UPDATE was not committed.
    let writes = anomaly.evidence["explained_by"]["writes"]
        .as_array()
        .unwrap();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0]["write"], "T2.2");
    assert_eq!(writes[0]["other_write"], "T1.2");
    assert!(
        anomaly.explanation.contains(
            "`T2.2` (UPDATE) on `t` evaluated its rows while the changes of T1 (`T1.2`, UPDATE) were not in its sight"
        ),
        "{}",
        anomaly.explanation
    );
    assert!(
        anomaly.explanation.contains("a vendor-permitted anomaly"),
        "{}",
        anomaly.explanation
    );
    assert!(anomaly.model.contains("write-specific serializability"));
}

#[test]
fn mdev_26687_is_a_finding_when_weak_levels_are_reported() {
    let (case, history) = mdev_26687_rc_run();
    for config in [
        r#"{"report_weak_levels": true}"#,
        r#"{"findings": "standard"}"#,
    ] {
        let mut oracle = oracle_with(config, mariadb_like());
        let finding = expect_finding(check(&mut oracle, &case, &history));
        assert!(
            finding.title.contains("violation: the final state differs"),
            "{}",
            finding.title
        );
        assert!(
            finding.explanation.contains("### The vendor's rules"),
            "{}",
            finding.explanation
        );
        assert!(
            finding.explanation.contains("semi-consistent writes"),
            "{}",
            finding.explanation
        );
        assert!(
            finding
                .assumed_semantics
                .contains("semi-consistent writes yes"),
            "{}",
            finding.assumed_semantics
        );
        assert_eq!(
            finding.evidence["permissible_because"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }
}

/// MDEV-26687's statements, one transaction after the other: no write ran
/// while the other transaction's change was uncommitted, so a lost effect
/// is a finding at READ COMMITTED too.
#[test]
fn a_difference_no_concurrent_write_explains_is_a_finding_at_a_weak_level() {
    let (t, case) = mdev_26687(RC);
    let order = [0, 0, 0, 1, 1, 1];
    let case = TestCase {
        submitted_order: refs(&case.transactions, &order),
        ..case
    };
    let history = history(
        &case,
        &order,
        vec![
            (StatementRef::new(0, 1), affected(3)),
            (StatementRef::new(1, 1), affected(0)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(
            &t,
            vec![
                vec![int(10), int(1)],
                vec![int(10), int(2)],
                vec![int(10), int(3)],
            ],
        ),
    );
    let finding = expect_finding(check(&mut oracle_with("", mariadb_like()), &case, &history));
    assert!(
        finding
            .explanation
            .contains("**Not explained by the vendor's rules:**"),
        "{}",
        finding.explanation
    );
    assert!(
        finding
            .explanation
            .contains("table `t` differs, and no write on it missed another transaction's change"),
        "{}",
        finding.explanation
    );
    assert_eq!(
        finding.evidence["explained_by"]["writes"],
        serde_json::json!([])
    );
}

#[test]
fn mdev_26687_blocked_at_repeatable_read_passes() {
    // At REPEATABLE READ s2's UPDATE waits for s1 and then updates all three rows.
    let (t, case) = mdev_26687(RR);
    let history = history(
        &case,
        &[0, 0, 1, 0, 1, 1],
        vec![
            (StatementRef::new(0, 1), affected(3)),
            (StatementRef::new(1, 1), affected(3)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![vec![int(10), int(20)]; 3]),
    );
    assert_eq!(
        check(&mut oracle_with("", mariadb_like()), &case, &history),
        Verdict::Pass
    );
}

#[test]
fn f7_mysql_semi_consistent_read_is_vendor_permitted() {
    // Listing 5: t(c1 INT, c2 VARCHAR(5)) holding (1,''), (5,'').
    let t = table(
        "t",
        &[
            ("c1", ColumnType::Int),
            ("c2", ColumnType::Varchar { len: 5 }),
        ],
        &[],
    );
    let case = case(
        vec![t.clone()],
        vec![rows(
            &t,
            vec![vec![int(1), text("")], vec![int(5), text("")]],
        )],
        vec![
            explicit(
                RC,
                vec![update(
                    "t",
                    vec![("c1", lit(int(5))), ("c2", lit(text("tx1")))],
                    Some(Expr::eq(col("c1"), lit(int(1)))),
                )],
                true,
            ),
            explicit(
                RC,
                vec![update(
                    "t",
                    vec![("c1", lit(int(1))), ("c2", lit(text("tx2")))],
                    Some(Expr::eq(col("c1"), lit(int(5)))),
                )],
                true,
            ),
        ],
        &[0, 0, 1, 1, 0, 1],
    );
    let history = history(
        &case,
        &[0, 0, 1, 1, 0, 1],
        vec![
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(1, 1), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(
            &t,
            vec![vec![int(5), text("tx1")], vec![int(1), text("tx2")]],
        ),
    );
    let mysql_rc = dialect(vec![semantics(RC, true, false)]);
    let anomaly = expect_vendor_permitted(check(
        &mut oracle_with("", mysql_rc.clone()),
        &case,
        &history,
    ));
    assert_eq!(
        anomaly.evidence["explained_by"]["rules"],
        serde_json::json!(["semi_consistent_read"])
    );
    // With a profile that claims full conflict checking, the same run is a finding.
    let strict = dialect(vec![semantics(RC, false, true)]);
    let finding = expect_finding(check(&mut oracle_with("", strict), &case, &history));
    // Multisets: one (1, 'tx2') is in both runs, the second only in the serial one.
    assert!(
        finding.explanation.contains(
            "- only in the concurrent run: (5, 'tx1')\n- only in the serial run: (1, 'tx2')\n"
        ),
        "{}",
        finding.explanation
    );
}

#[test]
fn f8_tidb_missing_gap_lock_is_vendor_permitted() {
    // Listing 6: t(c1 INT) holding 3; T1 deletes 1..10, T2 inserts 5 and
    // commits, T1 increments everything and commits.
    let t = table("t", &[("c1", ColumnType::Int)], &[]);
    let between = Expr::Between {
        operand: Box::new(col("c1")),
        low: Box::new(lit(int(1))),
        high: Box::new(lit(int(10))),
        negated: false,
    };
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(3)]])],
        vec![
            explicit(
                RC,
                vec![
                    delete("t", Some(between)),
                    update(
                        "t",
                        vec![("c1", Expr::binary(BinaryOp::Add, col("c1"), lit(int(1))))],
                        None,
                    ),
                ],
                true,
            ),
            explicit(
                RC,
                vec![insert("t", &["c1"], vec![int(5)], OnConflict::Error)],
                true,
            ),
        ],
        &[0, 0, 1, 1, 1, 0, 0],
    );
    let history = history(
        &case,
        &[0, 0, 1, 1, 1, 0, 0],
        vec![
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(1, 1), affected(1)),
            (StatementRef::new(0, 2), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![vec![int(6)]]),
    );
    let tidb_rc = dialect(vec![semantics(RC, false, false)]);
    let anomaly = expect_vendor_permitted(check(&mut oracle_with("", tidb_rc), &case, &history));
    // T1's DELETE locked no gap, so T2's INSERT into its range did not wait,
    // and T2 committed first: the serial run deletes that row too.
    let writes = anomaly.evidence["explained_by"]["writes"]
        .as_array()
        .unwrap();
    assert_eq!(writes[0]["write"], "T1.2", "{writes:?}");
    assert_eq!(
        anomaly.evidence["explained_by"]["rules"],
        serde_json::json!(["uncommitted_change_not_seen"])
    );
    assert!(
        anomaly.assumed_semantics.contains("read-committed"),
        "{}",
        anomaly.assumed_semantics
    );
    assert!(
        !anomaly.title.contains("semi-consistent"),
        "{}",
        anomaly.title
    );
}

#[test]
fn a_level_the_dialect_does_not_describe_is_undecided() {
    let (case, history) = f1_buggy();
    let only_rc = dialect(vec![semantics(RC, false, true)]);
    let reason = expect_undecided(check(
        &mut oracle_with("", only_rc.clone()),
        &case,
        &history,
    ));
    assert!(
        reason.contains("does not describe repeatable-read"),
        "{reason}"
    );
    let mut reporting = oracle_with(r#"{"report_weak_levels": true}"#, only_rc);
    let finding = expect_finding(check(&mut reporting, &case, &history));
    assert!(
        finding
            .assumed_semantics
            .contains("repeatable-read: not described by the dialect"),
        "{}",
        finding.assumed_semantics
    );
}

#[test]
fn a_level_whose_serial_order_need_not_be_the_commit_order_is_undecided() {
    // PostgreSQL's SERIALIZABLE (SSI) may serialize a transaction before one that
    // committed earlier, so the FCRFS replay is not the model there.
    let (case, history) = f1_buggy();
    let mut ssi = semantics(RR, false, true);
    ssi.serial_order = SerialOrder::AnyOrder;
    let reason = expect_undecided(check(
        &mut oracle_with("", dialect(vec![ssi])),
        &case,
        &history,
    ));
    assert!(
        reason.contains("a serial order that need not be the commit order"),
        "{reason}"
    );
    assert!(!reason.contains("semi-consistent"), "{reason}");
}
