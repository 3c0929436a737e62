//! The regression fixtures of the Troc digest (§10), as far as the IR expresses
//! them, with the outcomes reported for MariaDB.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

fn not_null(column: &str) -> Expr {
    Expr::IsNull {
        operand: Box::new(Expr::column(column)),
        negated: true,
    }
}

/// F1 (MySQL#104833, MDEV-26643): T2's UPDATE waits for T1's, and MariaDB then
/// skips the first row. At READ COMMITTED InnoDB's semi-consistent read does
/// that (a vendor-permitted anomaly; undecided where the profile declares no
/// rule for a wait); at a level without it, it is a finding.
#[test]
fn f1_a_resumed_update_that_skips_a_row() {
    let run = |dialect: DialectInfo, level: IsolationLevel| {
        let mut o = oracle(dialect);
        let t = t2(false);
        let case = prepared(
            &mut o,
            vec![t.clone()],
            vec![rows(
                &t,
                vec![
                    vec![Value::Null, int(1)],
                    vec![int(2), int(2)],
                    vec![Value::Null, int(3)],
                ],
            )],
            vec![
                txn(
                    level,
                    vec![
                        Statement::Begin,
                        update(vec![("c1", lit(10))], None),
                        Statement::Commit,
                    ],
                ),
                txn(
                    level,
                    vec![
                        Statement::Begin,
                        update(vec![("c2", lit(20))], Some(not_null("c1"))),
                        Statement::Commit,
                    ],
                ),
            ],
            &[0, 0, 1, 1, 0, 1],
        );
        let buggy = history(
            &case,
            &[0, 0, 1, 0, 1, 1],
            vec![(at(0, 1), affected(3)), (at(1, 1), affected(2))],
            vec![(at(1, 1), 3)],
            committed(),
            vec![r(&[10, 1], 1), r(&[10, 20], 2), r(&[10, 20], 3)],
        );
        let mut right = buggy.clone();
        right.statements[1][1].outcome = affected(3);
        right.final_state = Some(final_state(
            &case,
            vec![r(&[10, 20], 1), r(&[10, 20], 2), r(&[10, 20], 3)],
        ));
        (check(&mut o, &case, &buggy), check(&mut o, &case, &right))
    };
    // At READ COMMITTED the semi-consistent read skips row 1 (its committed
    // version does not match), waits at row 2 and reads row 3 after T1's
    // commit: MariaDB's answer. The model's own answer passes.
    let (buggy, right) = run(innodb(), RC);
    assert_eq!(right, Verdict::Pass);
    let Verdict::VendorPermitted(anomaly) = buggy else {
        panic!("expected a vendor-permitted semi-consistent read, got {buggy:?}");
    };
    assert!(
        anomaly.title.contains("semi-consistent read"),
        "{}",
        anomaly.title
    );
    let (buggy, right) = run(without_after_wait(innodb()), RC);
    for verdict in [buggy, right] {
        let reason = expect_undecided(verdict);
        assert!(
            reason.starts_with(
                "a statement that waited for a lock matches other rows before and after the wait"
            ),
            "{reason}"
        );
    }
    let (buggy, right) = run(innodb(), RR);
    assert_eq!(right, Verdict::Pass);
    let finding = expect_finding(buggy);
    assert_eq!(
        finding.title,
        "Troc: inconsistent affected-row count at `T2.2` (UPDATE, repeatable-read)"
    );
}

fn assert_lost_update(verdict: Verdict) {
    let Verdict::VendorPermitted(anomaly) = verdict else {
        panic!("expected a vendor-permitted lost update, got {verdict:?}");
    };
    assert!(anomaly.title.contains("lost update"), "{}", anomaly.title);
}

fn f3(o: &mut txlab_oracle_troc::TrocOracle, t2_value: i64) -> TestCase {
    let t = t2(false);
    prepared(
        o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(0), int(0)], vec![int(1), int(1)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    select_all(),
                    select_all(),
                    update(vec![("c1", lit(10))], None),
                    select_all(),
                    Statement::Commit,
                ],
            ),
            txn(
                RR,
                vec![
                    Statement::Begin,
                    update(vec![("c1", lit(t2_value))], Some(eq("c2", 1))),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 0, 1, 1, 1, 0, 0, 0, 0],
    )
}

fn f3_history(case: &TestCase, last: Vec<Vec<Value>>) -> History {
    let initial = vec![r(&[0, 0], 1), r(&[1, 1], 2)];
    history(
        case,
        &[0, 0, 1, 1, 1, 0, 0, 0, 0],
        vec![
            (at(0, 1), result(case, initial.clone())),
            (at(1, 1), affected(1)),
            (at(0, 2), result(case, initial)),
            // The in-memory scratch database counts matched rows.
            (at(0, 3), affected(2)),
            (at(0, 4), result(case, last)),
        ],
        vec![],
        committed(),
        vec![r(&[10, 0], 1), r(&[10, 1], 2)],
    )
}

/// F3 (MDEV-26642): after a same-value UPDATE, MariaDB's snapshot read keeps the
/// old version. The dialect declares which reading holds
/// (`same_value_update`): under InnoDB's (no version) the old version is
/// a vendor-permitted anomaly (the standard model shows the transaction its
/// own write) and the new one a finding, under PostgreSQL's and Troc's (a new
/// version) the other way round, and where the dialect does not declare it
/// the old version is undecided. The `same_value_update` option overrides the
/// profile. F3b (another value) must show the update under every rule.
#[test]
fn f3_same_value_update_under_a_snapshot() {
    let buggy = vec![r(&[10, 0], 1), r(&[1, 1], 2)];
    let right = vec![r(&[10, 0], 1), r(&[10, 1], 2)];
    let with_fact = |fact| {
        innodb_with(EngineSemantics {
            same_value_update: fact,
            ..innodb_engine()
        })
    };
    let query_result = "Troc: inconsistent query result at `T1.5` (SELECT, repeatable-read)";

    // InnoDB's declared rule: the snapshot's version stays, which the
    // standard model forbids (a transaction sees its own writes): a
    // vendor-permitted anomaly, named and counted; a finding with
    // `findings = "standard"`.
    let mut o = oracle(innodb());
    let case = f3(&mut o, 10);
    let Verdict::VendorPermitted(anomaly) = check(&mut o, &case, &f3_history(&case, buggy.clone()))
    else {
        panic!("expected a vendor-permitted anomaly");
    };
    assert_eq!(
        anomaly.signature,
        "Troc: own same-value UPDATE not seen by a snapshot read (MDEV-26642) (SELECT, repeatable-read)"
    );
    assert!(anomaly.assumed_semantics.contains("MDEV-26642"));
    let mut strict = oracle_with(r#"{"findings":"standard"}"#, innodb());
    let case = f3(&mut strict, 10);
    let finding = expect_finding(check(&mut strict, &case, &f3_history(&case, buggy.clone())));
    assert!(finding.title.contains("MDEV-26642"), "{}", finding.title);
    let mut o = oracle(innodb());
    let case = f3(&mut o, 10);
    let finding = expect_finding(check(&mut o, &case, &f3_history(&case, right.clone())));
    assert_eq!(finding.title, query_result);
    assert!(
        finding
            .assumed_semantics
            .contains("\n- at every level: same-value UPDATE keeps the row's version, "),
        "{}",
        finding.assumed_semantics
    );

    // A new version, as PostgreSQL declares and Troc assumes: T1's UPDATE
    // then wrote over T2's later commit of a row T1 had read, which InnoDB's
    // current read allows and the standard model forbids (a lost update).
    let mut o = oracle(with_fact(SameValueUpdate::NewVersion));
    let case = f3(&mut o, 10);
    let finding = expect_finding(check(&mut o, &case, &f3_history(&case, buggy.clone())));
    assert_eq!(finding.title, query_result);
    assert_lost_update(check(&mut o, &case, &f3_history(&case, right.clone())));

    // Not declared: either reading is accepted, the old version undecided.
    let mut o = oracle(with_fact(SameValueUpdate::Unknown));
    let case = f3(&mut o, 10);
    let reason = expect_undecided(check(&mut o, &case, &f3_history(&case, buggy.clone())));
    assert!(
        reason.starts_with("vendor-defined: the result depends on whether a same-value UPDATE"),
        "{reason}"
    );
    assert_eq!(
        check(&mut o, &case, &f3_history(&case, right.clone())),
        Verdict::Pass
    );

    // The option overrides the profile.
    let mut o = oracle_with(r#"{"same_value_update":"ambiguous"}"#, innodb());
    let case = f3(&mut o, 10);
    expect_undecided(check(&mut o, &case, &f3_history(&case, buggy.clone())));
    let mut o = oracle_with(r#"{"same_value_update":"new_version"}"#, innodb());
    let case = f3(&mut o, 10);
    let finding = expect_finding(check(&mut o, &case, &f3_history(&case, buggy.clone())));
    assert_eq!(finding.title, query_result);
    let mut o = oracle_with(
        r#"{"same_value_update":"no_version"}"#,
        with_fact(SameValueUpdate::NewVersion),
    );
    let case = f3(&mut o, 10);
    assert!(matches!(
        check(&mut o, &case, &f3_history(&case, buggy.clone())),
        Verdict::VendorPermitted(_)
    ));

    // F3b: T1's UPDATE changes the row T2 changed after T1 read it, whatever
    // the rule: a lost update over InnoDB's current read.
    for fact in [
        SameValueUpdate::NoVersion,
        SameValueUpdate::NewVersion,
        SameValueUpdate::Unknown,
    ] {
        let mut o = oracle(with_fact(fact));
        let case = f3(&mut o, 9);
        assert_lost_update(check(&mut o, &case, &f3_history(&case, right.clone())));
        let stale = vec![r(&[10, 0], 1), r(&[9, 1], 2)];
        expect_finding(check(&mut o, &case, &f3_history(&case, stale)));
    }
}

/// F7 (MySQL#105670): T1's DELETE does not see the row T2 deleted and committed,
/// so T1's snapshot still shows it. Without the artifact's `useDel` policy this
/// is the expected result, as all vendors answer.
#[test]
fn f7_a_row_deleted_concurrently_stays_in_the_snapshot() {
    let mut o = oracle(innodb());
    let t = t2(true);
    let either = Expr::binary(BinaryOp::Or, eq("c1", 1), eq("c1", 2));
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)], vec![int(2), int(2)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    select_all(),
                    select_all(),
                    delete(Some(either)),
                    select_all(),
                    Statement::Commit,
                ],
            ),
            txn(
                RR,
                vec![
                    Statement::Begin,
                    delete(Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 0, 1, 1, 1, 0, 0, 0, 0],
    );
    let initial = vec![r(&[1, 1], 1), r(&[2, 2], 2)];
    let h = history(
        &case,
        &[0, 0, 1, 1, 1, 0, 0, 0, 0],
        vec![
            (at(0, 1), result(&case, initial.clone())),
            (at(1, 1), affected(1)),
            (at(0, 2), result(&case, initial)),
            (at(0, 3), affected(1)),
            (at(0, 4), result(&case, vec![r(&[1, 1], 1)])),
        ],
        vec![],
        committed(),
        vec![],
    );
    assert_eq!(check(&mut o, &case, &h), Verdict::Pass);
}

/// F6 (MDEV-27992): a DELETE that waited for T1's primary-key updates deletes
/// nothing after T1 commits; the digest reproduces it at READ COMMITTED on
/// MariaDB 10.11.19.
#[test]
fn f6_a_resumed_delete_that_misses_its_row() {
    let mut o = oracle(innodb());
    let t = t2(true);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(8), int(0)]])],
        vec![
            txn(
                RC,
                vec![
                    Statement::Begin,
                    update(vec![("c1", lit(5))], None),
                    update(vec![("c1", lit(3))], None),
                    Statement::Commit,
                ],
            ),
            txn(
                RC,
                vec![
                    Statement::Begin,
                    delete(None),
                    select_where(not_null("c1"), RowLock::ForUpdate),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 1, 0, 1, 0, 0, 1, 1],
    );
    let run = |deleted: u64, seen: Vec<Vec<Value>>, final_rows: Vec<Vec<Value>>| {
        history(
            &case,
            &[0, 1, 0, 0, 0, 1, 1, 1],
            vec![
                (at(0, 1), affected(1)),
                (at(0, 2), affected(1)),
                (at(1, 1), affected(deleted)),
                (at(1, 2), result(&case, seen)),
            ],
            vec![(at(1, 1), 3)],
            committed(),
            final_rows,
        )
    };
    assert_eq!(check(&mut o, &case, &run(1, vec![], vec![])), Verdict::Pass);
    let finding = expect_finding(check(
        &mut o,
        &case,
        &run(0, vec![r(&[3, 0], 1)], vec![r(&[3, 0], 1)]),
    ));
    assert_eq!(
        finding.title,
        "Troc: inconsistent affected-row count at `T2.2` (DELETE, read-committed)"
    );
}

/// F10: an INSERT of a key whose row another transaction deleted waits for it.
/// The oracle does not predict INSERT waits, so both answers pass.
#[test]
fn f10_an_insert_of_a_deleted_key() {
    let mut o = oracle(innodb());
    let t = t2(true);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)]])],
        vec![
            txn(
                RC,
                vec![
                    Statement::Begin,
                    delete(Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
            txn(
                RC,
                vec![Statement::Begin, insert(&[1, 9]), Statement::Commit],
            ),
        ],
        &[0, 0, 1, 1, 0, 1],
    );
    let waited = history(
        &case,
        &[0, 0, 1, 0, 1, 1],
        vec![(at(0, 1), affected(1)), (at(1, 1), affected(1))],
        vec![(at(1, 1), 3)],
        committed(),
        vec![r(&[1, 9], 2)],
    );
    assert_eq!(check(&mut o, &case, &waited), Verdict::Pass);
    // Servers release locks before they answer COMMIT: the INSERT's reply may be
    // recorded before the COMMIT that let it go on. It ran after the COMMIT.
    let mut early = history(
        &case,
        &[0, 0, 1, 1, 0, 1],
        vec![(at(0, 1), affected(1)), (at(1, 1), affected(1))],
        vec![(at(1, 1), 3)],
        committed(),
        vec![r(&[1, 9], 2)],
    );
    early.statements[0][2].submitted_us = Some(33);
    assert_eq!(early.statements[1][1].completed_us, Some(35));
    assert_eq!(check(&mut o, &case, &early), Verdict::Pass);
    // Replying while a data statement of the other transaction runs: no known place.
    let mut unknown = early.clone();
    unknown.statements[0][2].submitted_us = Some(41);
    unknown.statements[0][1].submitted_us = Some(34);
    unknown.completion_order = refs(&case.transactions, &[0, 1, 1, 0, 0, 1]);
    let reason = expect_undecided(check(&mut o, &case, &unknown));
    assert!(reason.starts_with("a statement that waited replied while a statement of the other transaction was running"), "{reason}");
    // Had it failed with a duplicate key after T1 committed the delete, that is a finding.
    let mut dup = waited.clone();
    dup.statements[1][1].outcome = error(ErrorClass::Constraint, ErrorScope::Statement);
    dup.final_state = Some(final_state(&case, vec![]));
    let finding = expect_finding(check(&mut o, &case, &dup));
    assert_eq!(
        finding.title,
        "Troc: inconsistent statement outcome at `T2.2` (INSERT, read-committed)"
    );
}
