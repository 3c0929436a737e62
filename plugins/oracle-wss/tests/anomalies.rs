//! Injected anomalies must be found.

mod common;

use common::*;
use proptest::prelude::*;
use txlab_plugin_api::prelude::*;
use txlab_testkit::{random_case, serial_history};

const RR: IsolationLevel = IsolationLevel::RepeatableRead;

fn kv() -> Table {
    table(
        "t",
        &[("id", ColumnType::Int), ("v", ColumnType::Int)],
        &["id"],
    )
}

fn add_to_v(amount: i64) -> Statement {
    update(
        "t",
        vec![("v", Expr::binary(BinaryOp::Add, col("v"), lit(int(amount))))],
        Some(Expr::eq(col("id"), lit(int(1)))),
    )
}

#[test]
fn a_lost_update_is_found_by_both_variants() {
    let t = kv();
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)]])],
        vec![
            explicit(RR, vec![add_to_v(1)], true),
            explicit(RR, vec![add_to_v(10)], true),
        ],
        &[0, 1, 0, 1, 0, 1],
    );
    let mut history = serial_history(&case, &[0, 1]);
    assert_eq!(check(&mut oracle(), &case, &history), Verdict::Pass);
    // T2 overwrote T1's increment instead of adding to it.
    history.final_state = Some(state(&t, vec![vec![int(1), int(10)]]));
    let finding = expect_finding(check(&mut oracle(), &case, &history));
    assert_eq!(
        finding.title,
        "tx-WSS and stmt-WSS violation: the final state differs from the serial run in commit order"
    );
    assert!(finding.model.contains("FCRFS"), "{}", finding.model);
    assert!(
        finding.model.contains("PVLDB 18(8) 2025"),
        "{}",
        finding.model
    );
    assert!(
        finding.explanation.contains("**FCRFS order:** T1 → T2"),
        "{}",
        finding.explanation
    );
    assert!(
        finding
            .explanation
            .contains("- only in the concurrent run: (1, 10)\n- only in the serial run: (1, 11)"),
        "{}",
        finding.explanation
    );
    assert!(
        finding.assumed_semantics.contains("dialect `testdb`"),
        "{}",
        finding.assumed_semantics
    );
    assert!(
        finding
            .assumed_semantics
            .contains("repeatable-read: snapshot"),
        "{}",
        finding.assumed_semantics
    );
    assert!(
        finding
            .assumed_semantics
            .contains("test profile of repeatable-read"),
        "{}",
        finding.assumed_semantics
    );
    let evidence = &finding.evidence;
    assert_eq!(evidence["fcrfs_order"], serde_json::json!(["T1", "T2"]));
    assert_eq!(evidence["variants"][0]["variant"], "tx-WSS");
    assert_eq!(evidence["variants"][1]["variant"], "stmt-WSS");
    assert_eq!(
        evidence["variants"][0]["table_differences"][0]["only_serial"],
        serde_json::json!([[{"int": 1}, {"int": 11}]])
    );
    assert_eq!(
        evidence["concurrent_state"]["tables"][0]["rows"],
        serde_json::json!([[{"int": 1}, {"int": 10}]])
    );
}

#[test]
fn a_surviving_write_of_an_aborted_transaction_is_found() {
    let t = kv();
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)]])],
        vec![
            explicit(
                RR,
                vec![insert(
                    "t",
                    &["id", "v"],
                    vec![int(2), int(2)],
                    OnConflict::Error,
                )],
                true,
            ),
            explicit(RR, vec![add_to_v(5)], true),
        ],
        &[0, 1, 0, 1, 0, 1],
    );
    let mut history = serial_history(&case, &[0, 1]);
    // The DBMS said T1's COMMIT failed, yet T1's row is in the final state.
    let commit = StatementRef::new(0, 2);
    history.statements[0][2].outcome =
        error(ErrorClass::SerializationFailure, ErrorScope::Transaction);
    history.transactions[0].end = TxnEnd::Aborted {
        by: commit,
        class: ErrorClass::SerializationFailure,
    };
    let finding = expect_finding(check(&mut oracle(), &case, &history));
    assert!(
        finding
            .title
            .starts_with("tx-WSS and stmt-WSS violation: the final state"),
        "{}",
        finding.title
    );
    assert!(
        finding
            .explanation
            .contains("**Aborted, left out:** T1 (at `T1.3`: serialization failure)"),
        "{}",
        finding.explanation
    );
    assert!(
        finding
            .explanation
            .contains("only in the concurrent run: (2, 2)"),
        "{}",
        finding.explanation
    );
    // The aborted transaction's own writes are never compared.
    assert!(
        !finding.explanation.contains("`T1.2`"),
        "{}",
        finding.explanation
    );
    assert_eq!(finding.evidence["aborted"][0]["by"], "T1.3");
    // Neither serial run contains T1.
    for variant in finding.evidence["variants"].as_array().unwrap() {
        let txns: Vec<&str> = variant["serial_schedule"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["transaction"].as_str().unwrap())
            .collect();
        assert_eq!(txns, ["T2"]);
    }
}

#[test]
fn a_row_an_update_skipped_is_found() {
    let t = kv();
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)], vec![int(2), int(0)]])],
        vec![explicit(
            RR,
            vec![update(
                "t",
                vec![("v", lit(int(5)))],
                Some(Expr::eq(col("v"), lit(int(0)))),
            )],
            true,
        )],
        &[0, 0, 0],
    );
    let history = history(
        &case,
        &[0, 0, 0],
        vec![(StatementRef::new(0, 1), affected(1))],
        vec![TxnEnd::Committed],
        state(&t, vec![vec![int(1), int(5)], vec![int(2), int(0)]]),
    );
    let finding = expect_finding(check(&mut oracle(), &case, &history));
    assert!(
        finding.title.contains("final state differs"),
        "{}",
        finding.title
    );
    assert!(
        finding
            .explanation
            .contains("only in the concurrent run: (2, 0)"),
        "{}",
        finding.explanation
    );
    assert!(
        finding
            .explanation
            .contains("only in the serial run: (2, 5)"),
        "{}",
        finding.explanation
    );
    assert!(
        finding.explanation.contains(
            "- `T1.2` (UPDATE) affected a different number of rows: concurrent run affected 1 row, serial run affected 2 rows"
        ),
        "{}",
        finding.explanation
    );
}

/// T1 inserts key 2 and commits first; T2 inserts key 2 too but, in the run,
/// succeeded although the final state is that of the serial run.
fn duplicate_insert() -> (TestCase, History) {
    let t = kv();
    let case = case(
        vec![t.clone()],
        vec![],
        vec![
            explicit(
                RR,
                vec![insert(
                    "t",
                    &["id", "v"],
                    vec![int(2), int(0)],
                    OnConflict::Error,
                )],
                true,
            ),
            explicit(
                RR,
                vec![insert(
                    "t",
                    &["id", "v"],
                    vec![int(2), int(7)],
                    OnConflict::Error,
                )],
                true,
            ),
        ],
        &[0, 1, 0, 1, 0, 1],
    );
    let history = history(
        &case,
        &[0, 1, 0, 1, 0, 1],
        vec![
            (StatementRef::new(0, 1), affected(1)),
            (StatementRef::new(1, 1), affected(1)),
        ],
        vec![TxnEnd::Committed, TxnEnd::Committed],
        state(&t, vec![vec![int(2), int(0)]]),
    );
    (case, history)
}

#[test]
fn a_write_that_succeeded_concurrently_but_fails_serially_is_found() {
    let (case, history) = duplicate_insert();
    let finding = expect_finding(check(&mut oracle(), &case, &history));
    assert_eq!(
        finding.title,
        "tx-WSS and stmt-WSS violation: a write outcome differs from the serial run in commit order"
    );
    assert!(
        finding.explanation.contains(
            "- `T2.2` (INSERT) succeeded only in the concurrent run: concurrent run affected 1 row, serial run failed with constraint violation"
        ),
        "{}",
        finding.explanation
    );
    assert_eq!(
        finding.evidence["variants"][0]["outcome_differences"][0]["kind"],
        "succeeded_only_concurrently"
    );

    let stmt_only = expect_finding(check(
        &mut oracle_with(r#"{"variants":["stmt"]}"#, strict_dialect()),
        &case,
        &history,
    ));
    assert!(
        stmt_only
            .title
            .starts_with("stmt-WSS violation: a write outcome"),
        "{}",
        stmt_only.title
    );
    let tx_only = expect_finding(check(
        &mut oracle_with(r#"{"variants":["tx"]}"#, strict_dialect()),
        &case,
        &history,
    ));
    assert!(
        tx_only
            .title
            .starts_with("tx-WSS violation: a write outcome"),
        "{}",
        tx_only.title
    );

    let no_outcomes = oracle_with(r#"{"compare_write_outcomes":false}"#, strict_dialect());
    assert_eq!(check(&mut { no_outcomes }, &case, &history), Verdict::Pass);
}

#[test]
fn differing_error_classes_and_affected_rows_are_configurable() {
    let (case, mut history) = duplicate_insert();
    // Both failed, but for different reasons.
    history.statements[1][1].outcome = error(ErrorClass::Data, ErrorScope::Statement);
    let finding = expect_finding(check(&mut oracle(), &case, &history));
    assert!(
        finding.explanation.contains("(INSERT) failed differently"),
        "{}",
        finding.explanation
    );
    history.statements[1][1].outcome = error(ErrorClass::Constraint, ErrorScope::Statement);
    assert_eq!(check(&mut oracle(), &case, &history), Verdict::Pass);

    history.statements[0][1].outcome = affected(3);
    expect_finding(check(&mut oracle(), &case, &history));
    let lenient = oracle_with(r#"{"compare_affected_rows":false}"#, strict_dialect());
    assert_eq!(check(&mut { lenient }, &case, &history), Verdict::Pass);
}

#[test]
fn reads_are_not_compared() {
    let t = kv();
    let case = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)]])],
        vec![explicit(RR, vec![select("t")], true)],
        &[0, 0, 0],
    );
    // The SELECT timed out waiting for a lock, which a serial run never does, and
    // the transaction went on: reads are not WSS's business.
    let history = history(
        &case,
        &[0, 0, 0],
        vec![(
            StatementRef::new(0, 1),
            error(ErrorClass::LockWaitTimeout, ErrorScope::Statement),
        )],
        vec![TxnEnd::Committed],
        state(&t, vec![vec![int(1), int(0)]]),
    );
    assert_eq!(check(&mut oracle(), &case, &history), Verdict::Pass);
}

/// Changes `state` so that it cannot equal the original as a multiset.
fn perturb(state: &mut DbState, choice: usize) {
    let nonempty: Vec<usize> = (0..state.tables.len())
        .filter(|&i| !state.tables[i].rows.is_empty())
        .collect();
    if nonempty.is_empty() {
        // Nothing to drop or alter: add a row.
        let count = state.tables.len();
        let table = &mut state.tables[choice % count];
        let width = table.columns.len();
        table.rows.push(vec![Value::Int(99); width]);
        return;
    }
    let table = &mut state.tables[nonempty[choice % nonempty.len()]];
    let row = (choice / 3) % table.rows.len();
    match choice % 3 {
        0 => {
            table.rows.remove(row);
        }
        // No generated value is 1000, so the altered row is new to the multiset.
        1 => table.rows[row][1] = Value::Int(1000),
        _ => {
            let copy = table.rows[row].clone();
            table.rows.push(copy);
        }
    }
    state.canonicalize();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_perturbed_final_state_is_found(seed in any::<u64>(), reverse in any::<bool>(), choice in 0usize..1000) {
        let case = random_case(seed);
        let mut order: Vec<usize> = (0..case.transactions.len()).collect();
        if reverse {
            order.reverse();
        }
        let mut history = serial_history(&case, &order);
        let original = history.final_state.clone().unwrap();
        let mut perturbed = original.clone();
        perturb(&mut perturbed, choice);
        prop_assert_ne!(&perturbed, &original);
        history.final_state = Some(perturbed);
        let verdict = check(&mut oracle(), &case, &history);
        match verdict {
            Verdict::Finding(f) => prop_assert!(f.title.contains("final state differs"), "{}", f.title),
            other => prop_assert!(false, "expected a finding, got {:?}", other),
        }
    }
}
