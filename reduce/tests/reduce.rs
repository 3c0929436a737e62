//! The reducer against judges with known answers: a structural one whose
//! minimal case is known exactly, and semantic ones that run the case on the
//! in-memory database, for which the result is checked to be 1-minimal.

use proptest::prelude::*;
use std::collections::BTreeSet;
use txlab_plugin_api::prelude::*;
use txlab_reduce::edits::*;
use txlab_reduce::{reduce, CaseSize, Limits, Stopped};
use txlab_testkit::build::*;
use txlab_testkit::{random_case, serial_history};

fn unlimited() -> Limits {
    Limits::trials(100_000)
}

/// Four transactions on two tables; only T2's UPDATE and T4's DELETE matter
/// to the structural judge below.
fn busy_case() -> TestCase {
    let t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("v", ColumnType::Int),
            col("w", ColumnType::Text),
        ],
        &["id"],
    );
    let u = table("u", vec![col("k", ColumnType::Int)], &["k"]);
    let rr = IsolationLevel::RepeatableRead;
    let rows: Vec<Vec<Value>> = (1..=6)
        .map(|i| vec![Value::Int(i), Value::Int(i * 10), Value::Text("x".into())])
        .collect();
    let transactions = vec![
        explicit(
            rr,
            vec![
                Statement::Begin,
                select("t", Some(eq(c("id"), int(1))), vec![]),
                select("u", None, vec![]),
                Statement::Commit,
            ],
        ),
        explicit(
            rr,
            vec![
                Statement::Begin,
                select("t", None, vec![]),
                update(
                    "t",
                    vec![("v", int(7)), ("w", text("y"))],
                    Some(bin(
                        BinaryOp::And,
                        eq(c("id"), int(2)),
                        bin(BinaryOp::Gt, c("v"), int(0)),
                    )),
                ),
                insert(
                    "t",
                    &["id", "v", "w"],
                    vec![
                        vec![Value::Int(8), Value::Int(1), Value::Text("z".into())],
                        vec![Value::Int(9), Value::Int(2), Value::Text("z".into())],
                    ],
                    OnConflict::Error,
                ),
                Statement::Commit,
            ],
        ),
        explicit(
            IsolationLevel::ReadCommitted,
            vec![Statement::Begin, delete("u", None), Statement::Rollback],
        ),
        explicit(
            rr,
            vec![
                Statement::Begin,
                select(
                    "t",
                    Some(in_list(c("id"), vec![int(2), int(3), int(4)], false)),
                    vec![],
                ),
                delete("t", Some(in_list(c("id"), vec![int(2), int(5)], false))),
                Statement::Commit,
            ],
        ),
    ];
    let mut case = case_of(
        Schema {
            tables: vec![t.clone(), u.clone()],
        },
        vec![
            rows_of(&t, rows),
            rows_of(&u, vec![vec![Value::Int(1)], vec![Value::Int(2)]]),
        ],
        transactions,
    );
    // Round-robin over the transactions, as a generator might interleave them.
    let mut order = Vec::new();
    let longest = case
        .transactions
        .iter()
        .map(|t| t.statements.len())
        .max()
        .unwrap();
    for s in 0..longest {
        for (t, txn) in case.transactions.iter().enumerate() {
            if s < txn.statements.len() {
                order.push(StatementRef::new(t, s));
            }
        }
    }
    case.submitted_order = order;
    case.validate().unwrap();
    case
}

/// An UPDATE of `t` at REPEATABLE READ in one transaction and a DELETE of `t`
/// in another, the DELETE submitted after the UPDATE.
fn update_then_delete(case: &TestCase) -> bool {
    let position = |pred: &dyn Fn(&Statement, &Transaction) -> bool| {
        case.submitted_order.iter().position(|r| {
            let txn = &case.transactions[r.txn()];
            pred(&txn.statements[r.stmt()], txn)
        })
    };
    let update = position(&|s, t| {
        matches!(s, Statement::Update(u) if u.table == "t")
            && t.isolation == IsolationLevel::RepeatableRead
    });
    let delete = position(&|s, _| matches!(s, Statement::Delete(d) if d.table == "t"));
    match (update, delete) {
        (Some(u), Some(d)) => {
            let (tu, td) = (case.submitted_order[u].txn, case.submitted_order[d].txn);
            u < d && tu != td
        }
        _ => false,
    }
}

#[test]
fn the_structural_minimum_is_reached() {
    let case = busy_case();
    assert!(update_then_delete(&case));
    let r = reduce(case, unlimited(), update_then_delete);
    assert_eq!(r.stopped, Stopped::Minimal);
    let size = CaseSize::of(&r.case);
    assert_eq!(size.transactions, 2, "{:#?}", r.case);
    // BEGIN, the write, COMMIT in each.
    assert_eq!(size.statements, 6, "{:#?}", r.case.transactions);
    assert_eq!(size.initial_rows, 0);
    assert_eq!(size.tables, 1, "table u is named by no remaining statement");
    let Statement::Update(update) = &r.case.transactions[0].statements[1] else {
        panic!("{:#?}", r.case.transactions[0]);
    };
    assert!(update.filter.is_none(), "the judge ignores filters");
    // An UPDATE keeps one assignment; the key and that column are all that stay.
    assert_eq!(update.assignments.len(), 1);
    assert_eq!(size.columns, 2, "{:#?}", r.case.schema);
    assert!(!r.steps.is_empty());
    assert!(update_then_delete(&r.case));
    // Steps name statements as in the original case: T1 and T3 went first, so
    // the statements removed later belong to T2 and T4 there.
    let statement_steps: Vec<&String> = r
        .steps
        .iter()
        .filter(|s| s.starts_with("removed statement"))
        .collect();
    assert!(!statement_steps.is_empty(), "{:#?}", r.steps);
    for step in statement_steps {
        assert!(
            !step.contains("T1.")
                && !step.contains("T3.")
                && (step.contains("T2.") || step.contains("T4.")),
            "{step}"
        );
    }
    assert!(
        r.steps
            .iter()
            .any(|s| s.contains("of t") && s.starts_with("removed")),
        "rows are named by their values and table: {:#?}",
        r.steps
    );
}

#[test]
fn a_case_nothing_can_be_taken_from_stays_as_it_is() {
    let case = busy_case();
    let r = reduce(case.clone(), unlimited(), |c| *c == case);
    assert_eq!(r.case, case);
    assert!(r.steps.is_empty());
    assert_eq!(r.stopped, Stopped::Minimal);
    assert!(r.trials > 0);
}

#[test]
fn the_trial_budget_is_kept() {
    let r = reduce(busy_case(), Limits::trials(3), |_| false);
    assert_eq!(r.trials, 3);
    assert_eq!(r.stopped, Stopped::Trials);
    assert_eq!(r.case, busy_case());
}

#[test]
fn a_passed_deadline_stops_before_any_trial() {
    let r = reduce(
        busy_case(),
        Limits {
            deadline: Some(std::time::Instant::now()),
            ..Limits::trials(100)
        },
        |_| true,
    );
    assert_eq!(r.trials, 0);
    assert_eq!(r.stopped, Stopped::Time);
}

#[test]
fn no_candidate_is_judged_twice() {
    let mut seen = BTreeSet::new();
    reduce(busy_case(), unlimited(), |c| {
        assert!(
            seen.insert(serde_json::to_string(c).unwrap()),
            "judged twice: {c:#?}"
        );
        update_then_delete(c)
    });
}

#[test]
fn removing_statements_renumbers_the_submitted_order() {
    let case = busy_case();
    let gone: BTreeSet<_> = [StatementRef::new(1, 1), StatementRef::new(1, 2)].into();
    let smaller = without_statements(&case, &gone).unwrap();
    smaller.validate().unwrap();
    assert_eq!(smaller.transactions[1].statements.len(), 3);
    assert!(matches!(
        smaller.transactions[1].statements[1],
        Statement::Insert(_)
    ));
    let gone: BTreeSet<_> = [0, 2].into();
    let smaller = without_transactions(&case, &gone).unwrap();
    smaller.validate().unwrap();
    assert_eq!(smaller.transactions.len(), 2);
    assert!(without_transactions(&case, &[0, 1, 2, 3].into()).is_none());
}

#[test]
fn a_dropped_column_leaves_rows_and_inserts() {
    let case = busy_case();
    let gone: BTreeSet<_> = [SchemaUnit::Column {
        table: "t".into(),
        column: "w".into(),
    }]
    .into();
    let smaller = without_schema(&case, &gone).unwrap();
    let t = smaller.schema.table("t").unwrap();
    assert_eq!(t.column_names(), ["id", "v"]);
    assert_eq!(smaller.initial_rows[0].columns, ["id", "v"]);
    assert!(smaller.initial_rows[0].rows.iter().all(|r| r.len() == 2));
    let Statement::Insert(insert) = &smaller.transactions[1].statements[3] else {
        panic!()
    };
    assert_eq!(insert.columns, ["id", "v"]);
    assert!(insert.rows.iter().all(|r| r.len() == 2));
    // Both `v` and `w` are assigned by the UPDATE: neither is a candidate.
    let units = schema_units(&case);
    assert!(
        !units.contains(&SchemaUnit::Column {
            table: "t".into(),
            column: "w".into()
        }),
        "w is assigned by the UPDATE: {units:?}"
    );
}

/// Every single removal or simplification the reducer knows, applied to `case`.
fn single_steps(case: &TestCase) -> Vec<TestCase> {
    fn each<U: Ord + Clone>(
        case: &TestCase,
        units: Vec<U>,
        edit: fn(&TestCase, &BTreeSet<U>) -> Option<TestCase>,
        out: &mut Vec<TestCase>,
    ) {
        out.extend(units.into_iter().filter_map(|u| edit(case, &[u].into())));
    }
    let mut out = Vec::new();
    each(
        case,
        (0..case.transactions.len()).collect(),
        without_transactions,
        &mut out,
    );
    each(
        case,
        removable_statements(case),
        without_statements,
        &mut out,
    );
    each(case, insert_rows(case), without_insert_rows, &mut out);
    each(case, initial_rows(case), without_initial_rows, &mut out);
    each(case, schema_units(case), without_schema, &mut out);
    out.extend(simplifications(case).into_iter().map(|s| s.case));
    out.extend(locking_reads(case).into_iter().map(|s| s.case));
    out.retain(|c| c.validate().is_ok());
    out
}

/// The final state of running the transactions one after another.
fn serial_state(case: &TestCase) -> DbState {
    let order: Vec<usize> = (0..case.transactions.len()).collect();
    serial_history(case, &order)
        .final_state
        .expect("a serial history has a final state")
}

/// A judge with real semantics: the serial run leaves some table with a row
/// count other than the one it started with.
fn changes_a_row_count(case: &TestCase) -> bool {
    let state = serial_state(case);
    case.schema.tables.iter().any(|t| {
        let before = case
            .initial_rows
            .iter()
            .filter(|r| r.table == t.name)
            .map(|r| r.rows.len())
            .sum::<usize>();
        state.table(&t.name).map(|s| s.rows.len()) != Some(before)
    })
}

/// Another: some statement of the serial run fails.
fn a_statement_fails(case: &TestCase) -> bool {
    let order: Vec<usize> = (0..case.transactions.len()).collect();
    serial_history(case, &order)
        .statements
        .iter()
        .flatten()
        .any(|r| r.outcome.error().is_some())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn reductions_are_one_minimal_and_repeatable(seed in any::<u64>(), which in 0..2usize) {
        let judge: fn(&TestCase) -> bool = [changes_a_row_count, a_statement_fails][which];
        let case = random_case(seed);
        prop_assume!(judge(&case));
        let first = reduce(case.clone(), unlimited(), judge);
        prop_assert_eq!(first.stopped, Stopped::Minimal);
        prop_assert!(judge(&first.case));
        let before = CaseSize::of(&case);
        let after = CaseSize::of(&first.case);
        prop_assert!(after.statements <= before.statements);
        prop_assert!(after.transactions <= before.transactions);
        for smaller in single_steps(&first.case) {
            prop_assert!(!judge(&smaller), "a single step still reproduces: {:#?}", smaller);
        }
        let second = reduce(case, unlimited(), judge);
        prop_assert_eq!(first.case, second.case);
        prop_assert_eq!(first.steps, second.steps);
    }
}

/// A table read only through a subquery stays, with every column of it and
/// of the statement's own table: the reducer does not follow aliases and
/// subqueries (IR 1.1).
#[test]
fn tables_and_columns_read_through_query_forms_stay() {
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Int)],
        &["id"],
    );
    let u = table(
        "u",
        vec![col("k", ColumnType::Int), col("n", ColumnType::Int)],
        &["k"],
    );
    let in_u = in_query(
        c("id"),
        query("u", Some("s"), vec![qc("s", "k")], None),
        false,
    );
    let case = case_of(
        Schema { tables: vec![t, u] },
        vec![],
        vec![explicit(
            IsolationLevel::Serializable,
            vec![Statement::Begin, delete("t", Some(in_u)), Statement::Commit],
        )],
    );
    assert_eq!(schema_units(&case), []);
}

/// A fake runner for a finding that shows only some of the time: a true
/// candidate (one `update_then_delete` accepts) shows the finding on one run
/// in `every`, counted over all runs, so that any `every` runs in a row of
/// a true candidate include one that shows it.
struct Flaky {
    every: usize,
    runs: usize,
}

impl Flaky {
    fn judge(&mut self, case: &TestCase) -> bool {
        self.runs += 1;
        update_then_delete(case) && self.runs % self.every == 0
    }
}

#[test]
fn a_flaky_finding_needs_as_many_attempts_as_it_misses_runs() {
    // One attempt per candidate: true candidates are rejected whenever their
    // one run misses, and the search stops far from the minimum.
    let mut one = Flaky { every: 3, runs: 0 };
    let r = reduce(busy_case(), unlimited(), |c| one.judge(c));
    assert_eq!(r.stopped, Stopped::Minimal);
    let size = CaseSize::of(&r.case);
    assert!(size.statements > 6, "{size:?}");
    // Three attempts: every true candidate shows it within its runs, and the
    // search reaches the structural minimum (see the_structural_minimum_is_reached).
    let mut three = Flaky { every: 3, runs: 0 };
    let r = reduce(
        busy_case(),
        Limits {
            attempts: 3,
            ..unlimited()
        },
        |c| three.judge(c),
    );
    assert_eq!(r.stopped, Stopped::Minimal);
    let size = CaseSize::of(&r.case);
    assert_eq!(
        (
            size.transactions,
            size.statements,
            size.initial_rows,
            size.tables
        ),
        (2, 6, 0, 1),
        "{size:?}"
    );
    assert_eq!(r.runs, three.runs);
    assert!(r.runs > r.trials, "{} runs for {} trials", r.runs, r.trials);
}

/// A fake runner that misses every candidate on its first two runs and
/// shows a true one from its third run on.
fn late_judge(seen: &mut std::collections::HashMap<String, usize>, c: &TestCase) -> bool {
    let n = seen.entry(serde_json::to_string(c).unwrap()).or_default();
    *n += 1;
    *n > 2 && update_then_delete(c)
}

#[test]
fn later_looks_take_the_true_candidates_that_missed_all_their_runs() {
    let mut seen = Default::default();
    let two = Limits {
        attempts: 2,
        ..unlimited()
    };
    let r = reduce(busy_case(), two, |c| late_judge(&mut seen, c));
    assert_eq!(r.stopped, Stopped::Minimal);
    let size = CaseSize::of(&r.case);
    assert_eq!(
        (
            size.transactions,
            size.statements,
            size.initial_rows,
            size.tables
        ),
        (2, 6, 0, 1),
        "{:#?}",
        r.steps
    );
    assert!(
        r.steps.iter().all(|s| s.contains("(look ")),
        "nothing could go in the first look: {:#?}",
        r.steps
    );
    // With one attempt the judge is deterministic to the search: one look,
    // and nothing goes.
    let mut seen = Default::default();
    let r = reduce(busy_case(), unlimited(), |c| late_judge(&mut seen, c));
    assert_eq!(r.case, busy_case());
    assert_eq!(r.runs, r.trials);
}

#[test]
fn a_candidate_is_run_until_it_shows_the_finding_and_no_more() {
    let mut calls = 0;
    let r = reduce(
        busy_case(),
        Limits {
            attempts: 4,
            ..Limits::trials(1)
        },
        |_| {
            calls += 1;
            calls == 2
        },
    );
    assert_eq!((r.trials, r.runs, calls), (1, 2, 2));
    assert_eq!(r.steps.len(), 1, "{:#?}", r.steps);
}

/// Some transaction locks rows of `t` (an UPDATE or a SELECT … FOR UPDATE)
/// before a DELETE of `t` in another transaction is submitted: a finding
/// that needs a lock, whatever statement takes it.
fn locks_then_deletes(case: &TestCase) -> bool {
    let statement = |r: &StatementRef| &case.transactions[r.txn()].statements[r.stmt()];
    case.submitted_order.iter().enumerate().any(|(i, l)| {
        let locks = match statement(l) {
            Statement::Update(u) => u.table == "t",
            Statement::Select(s) => s.table == "t" && s.lock == RowLock::ForUpdate,
            _ => false,
        };
        locks
            && case.submitted_order[i + 1..].iter().any(|d| {
                d.txn != l.txn && matches!(statement(d), Statement::Delete(x) if x.table == "t")
            })
    })
}

#[test]
fn an_update_that_only_locks_becomes_a_locking_read_and_its_column_goes() {
    let t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("v", ColumnType::Int),
            col("w", ColumnType::Text),
        ],
        &["id"],
    );
    let rows = vec![
        vec![Value::Int(1), Value::Int(10), Value::Text("x".into())],
        vec![Value::Int(2), Value::Int(20), Value::Text("y".into())],
    ];
    let rc = IsolationLevel::ReadCommitted;
    let mut case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, rows)],
        vec![
            explicit(
                rc,
                vec![
                    Statement::Begin,
                    update(
                        "t",
                        vec![("w", text("z"))],
                        Some(bin(BinaryOp::Gt, c("v"), int(5))),
                    ),
                    Statement::Commit,
                ],
            ),
            explicit(
                rc,
                vec![
                    Statement::Begin,
                    delete("t", Some(eq(c("v"), int(10)))),
                    Statement::Commit,
                ],
            ),
        ],
    );
    case.submitted_order = [(0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (1, 2)]
        .iter()
        .map(|&(t, s)| StatementRef::new(t, s))
        .collect();
    case.validate().unwrap();
    assert!(locks_then_deletes(&case));
    let r = reduce(case, unlimited(), locks_then_deletes);
    assert_eq!(r.stopped, Stopped::Minimal);
    let Statement::Select(read) = &r.case.transactions[0].statements[1] else {
        panic!("{:#?}", r.case.transactions[0]);
    };
    assert_eq!(read.lock, RowLock::ForUpdate);
    assert_eq!(read.projection, Projection::All);
    // Nothing assigns w any more, and no filter is needed: the key is left.
    assert_eq!(
        r.case.schema.tables[0].column_names(),
        ["id"],
        "{:#?}",
        r.steps
    );
    assert!(
        r.steps
            .iter()
            .any(|s| s == "simplified T1.2: made the UPDATE a locking read (SELECT * … FOR UPDATE)"),
        "{:#?}",
        r.steps
    );
}
