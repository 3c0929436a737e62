//! Cases outside the model are undecided, never findings.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;
use txlab_testkit::serial_history;

fn simple(o: &mut txlab_oracle_troc::TrocOracle, n: usize, tables: usize) -> TestCase {
    let mut all = vec![t2(true)];
    let mut initial = vec![rows(&all[0], vec![vec![int(1), int(1)]])];
    for i in 1..tables {
        let mut t = t2(true);
        t.name = format!("t{i}");
        initial.push(rows(&t, vec![vec![int(1), int(1)]]));
        all.push(t);
    }
    let transactions: Vec<Transaction> = (0..n)
        .map(|_| txn(RC, vec![Statement::Begin, select_all(), Statement::Commit]))
        .collect();
    let submitted: Vec<usize> = (0..n).flat_map(|t| [t, t, t]).collect();
    prepared(o, all, initial, transactions, &submitted)
}

fn reason(o: &mut txlab_oracle_troc::TrocOracle, case: &TestCase) -> String {
    let order: Vec<usize> = (0..case.transactions.len()).collect();
    expect_undecided(check(o, case, &serial_history(case, &order)))
}

#[test]
fn more_transactions_or_tables_are_outside_the_model() {
    let mut o = oracle(innodb());
    let three = simple(&mut o, 3, 1);
    assert_eq!(
        reason(&mut o, &three),
        "outside the model: Troc models exactly two transactions, the case has 3"
    );
    let two_tables = simple(&mut o, 2, 2);
    assert_eq!(
        reason(&mut o, &two_tables),
        "outside the model: Troc models one table, the case has 2"
    );
    let two = simple(&mut o, 2, 1);
    assert_eq!(
        check(&mut o, &two, &serial_history(&two, &[0, 1])),
        Verdict::Pass
    );
}

#[test]
fn levels_the_profile_does_not_pin_down_are_undecided() {
    let mut o = oracle(postgres());
    let case = simple(&mut o, 2, 1);
    let mut serializable = case.clone();
    for t in &mut serializable.transactions {
        t.isolation = SER;
    }
    assert_eq!(
        reason(&mut o, &serializable),
        "outside the model: the dialect `postgres-like` does not describe serializable"
    );
    let mut optimistic = postgres();
    optimistic.levels[0].write_conflict = WriteConflict::AbortAtCommit;
    let mut o = oracle(optimistic);
    let r = reason(&mut o, &case);
    assert!(
        r.contains("detects write conflicts at commit (optimistic)"),
        "{r}"
    );
}

#[test]
fn unobserved_runs_and_unprepared_cases_are_undecided() {
    let mut o = oracle(innodb());
    let case = simple(&mut o, 2, 1);
    let mut h = serial_history(&case, &[0, 1]);
    h.unobserved.push("a stall".into());
    let r = expect_undecided(check(&mut o, &case, &h));
    assert!(
        r.starts_with("the run was not fully observed: the executor reported: a stall"),
        "{r}"
    );
    let mut h = serial_history(&case, &[0, 1]);
    h.statements[0][1].blocked = Some(Blocking {
        detected_us: 0,
        evidence: BlockEvidence::Timeout,
        resumed_after: None,
    });
    let r = expect_undecided(check(&mut o, &case, &h));
    assert!(r.contains("the lock-wait probe did not confirm"), "{r}");

    let t = t2(true);
    let raw = TestCase {
        seed: 0,
        generator: "test".into(),
        schema: Schema {
            tables: vec![t.clone()],
        },
        initial_rows: vec![rows(&t, vec![vec![int(1), int(1)]])],
        transactions: case.transactions.clone(),
        submitted_order: case.submitted_order.clone(),
        intent: None,
        pace_ms: None,
    };
    let r = expect_undecided(check(&mut o, &raw, &serial_history(&raw, &[0, 1])));
    assert!(r.contains("was not prepared by troc"), "{r}");
}

#[test]
fn an_error_the_view_cannot_reproduce_is_undecided() {
    let mut o = oracle(innodb());
    let case = simple(&mut o, 2, 1);
    let mut h = serial_history(&case, &[0, 1]);
    h.statements[1][1].outcome = error(ErrorClass::Other, ErrorScope::Statement);
    let r = expect_undecided(check(&mut o, &case, &h));
    assert!(
        r.starts_with(
            "a statement failed with an error of class `error`, which the model cannot reproduce"
        ),
        "{r}"
    );
}

#[test]
fn a_deadlock_victim_is_modelled_as_rolled_back() {
    let mut o = oracle(innodb());
    let t = t2(true);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)], vec![int(2), int(2)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(5))], Some(eq("c1", 1))),
                    update(vec![("c2", lit(5))], Some(eq("c1", 2))),
                    Statement::Commit,
                ],
            ),
            txn(
                RR,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(7))], Some(eq("c1", 2))),
                    update(vec![("c2", lit(7))], Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
        ],
        &[0, 0, 1, 1, 0, 1, 0, 1],
    );
    // T1's second UPDATE waits for T2; T2's second UPDATE closes the cycle and is
    // the victim; T1 resumes and commits.
    let h = history(
        &case,
        &[0, 0, 1, 1, 1, 0, 0],
        vec![
            (at(0, 1), affected(1)),
            (at(1, 1), affected(1)),
            (
                at(1, 2),
                error(ErrorClass::Deadlock, ErrorScope::Transaction),
            ),
            (at(0, 2), affected(1)),
        ],
        vec![(at(0, 2), 4)],
        vec![
            TxnEnd::Committed,
            TxnEnd::Aborted {
                by: at(1, 2),
                class: ErrorClass::Deadlock,
            },
        ],
        vec![r(&[1, 5], 1), r(&[2, 5], 2)],
    );
    assert_eq!(check(&mut o, &case, &h), Verdict::Pass);
    let mut survived = h.clone();
    survived.final_state = Some(final_state(&case, vec![r(&[1, 5], 1), r(&[2, 7], 2)]));
    expect_finding(check(&mut o, &case, &survived));
}

/// IR 1.1's query forms: a subquery reads its table outside the statement's
/// view, and a query or INSERT … SELECT is no single-table statement.
#[test]
fn query_forms_are_outside_the_model() {
    use txlab_testkit::build::{agg, c, count_star, in_query, query, query_statement};
    let mut o = oracle(innodb());
    let with = |o: &mut txlab_oracle_troc::TrocOracle, statement: Statement| {
        let t = t2(true);
        let initial = vec![rows(&t, vec![vec![int(1), int(1)]])];
        let transactions = vec![
            txn(RC, vec![Statement::Begin, select_all(), Statement::Commit]),
            txn(RC, vec![Statement::Begin, statement, Statement::Commit]),
        ];
        prepared(o, vec![t], initial, transactions, &[0, 1, 0, 1, 0, 1])
    };
    let largest = query("t", None, vec![agg(AggregateFunc::Max, c("c2"))], None);
    let case = with(&mut o, delete(Some(in_query(c("c1"), largest, false))));
    assert_eq!(
        reason(&mut o, &case),
        "outside the model: T2.2 (DELETE) reads `t` through a subquery; Troc's views hold \
         one table, and it runs single-table statements on them"
    );
    let counted = query("t", None, vec![count_star()], None);
    let case = with(&mut o, query_statement(counted));
    assert_eq!(
        reason(&mut o, &case),
        "outside the model: T2.2 is a query over `t` with aggregates; Troc's views hold one \
         table, and it runs single-table statements on them"
    );
}
