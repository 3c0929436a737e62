//! Running a case again without a unit (TxCheck's Fig. 11 and decycling):
//! T2's UPDATE waited for T1's lock between its before-write read and its
//! write, and then wrote over T1's version rather than the one its read
//! returned. As it ran, the case cannot be judged; run again without that
//! UPDATE (on the in-memory host database, which runs a case serially), it
//! can. The history is hand-made from two serial runs: T2's first reads as
//! they read before T1, everything else as after T1.

use txlab_oracle_txcheck::units::{units, Role};
use txlab_oracle_txcheck::{TxcheckConfig, TxcheckOracle};
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::{concurrent_history, serial_history, MemoryDb};

const RC: IsolationLevel = IsolationLevel::ReadCommitted;

fn t() -> Table {
    table(
        "t",
        vec![col("id", ColumnType::Int), col("value", ColumnType::Int)],
        &["id"],
    )
}

fn oracle(config: TxcheckConfig) -> TxcheckOracle {
    let dialect = <txlab_postgres::PostgresDialect as DialectPlugin>::new(Default::default())
        .unwrap()
        .info();
    TxcheckOracle::new(config, OracleContext { dialect }).unwrap()
}

/// The instrumented case and the run in which T2's UPDATE of row 1 waited
/// for T1, which updated row 1.
fn waited_over_a_commit(o: &mut TxcheckOracle) -> (TestCase, History) {
    waited(o, "t")
}

/// T2's UPDATE of row 1 of `t` waited until T1, which updated row 1 of
/// `t1_table` (`t` or `u`), committed.
fn waited(o: &mut TxcheckOracle, t1_table: &str) -> (TestCase, History) {
    let u = Table {
        name: "u".into(),
        ..t()
    };
    let row = || vec![vec![Value::Int(1), Value::Int(0)]];
    let raw = case_of(
        Schema {
            tables: vec![t(), u.clone()],
        },
        vec![rows_of(&t(), row()), rows_of(&u, row())],
        vec![
            explicit(
                RC,
                vec![
                    Statement::Begin,
                    update(t1_table, vec![("value", int(1))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
            explicit(
                RC,
                vec![
                    Statement::Begin,
                    update(
                        "t",
                        vec![("value", bin(BinaryOp::Add, c("value"), int(10)))],
                        Some(eq(c("id"), int(1))),
                    ),
                    select("t", None, vec![]),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let case = o.prepare(raw).unwrap();
    let after = serial_history(&case, &[0, 1]);
    let before = serial_history(&case, &[1, 0]);
    let update = t2_update(&case);
    let t2_len = case.transactions[1].statements.len();
    let t1_len = case.transactions[0].statements.len();
    // T2's BEGIN and the reads before its UPDATE, then T1, then the rest of T2.
    let first = update.stmt();
    let mut completion = vec![1; first];
    completion.extend(vec![0; t1_len]);
    completion.extend(vec![1; t2_len - first]);
    let outcome = |at: StatementRef| {
        let from = if at.txn() == 1 && at.stmt() < first {
            &before
        } else {
            &after
        };
        (at, from.record(at).unwrap().outcome.clone())
    };
    let all: Vec<_> = (0..2)
        .flat_map(|t| {
            (0..case.transactions[t].statements.len()).map(move |s| StatementRef::new(t, s))
        })
        .map(outcome)
        .collect();
    let history = concurrent_history(&case, &completion)
        .outcomes(all)
        .blocked(update, first)
        .final_state(after.final_state.clone().unwrap())
        .build();
    (case, history)
}

fn t2_update(case: &TestCase) -> StatementRef {
    let s = case.transactions[1]
        .statements
        .iter()
        .position(|s| matches!(s, Statement::Update(_)))
        .unwrap();
    StatementRef::new(1, s)
}

/// T2's own SELECT (not a read the oracle added).
fn t2_select(case: &TestCase) -> StatementRef {
    let all = units(case, &TxcheckConfig::default()).unwrap();
    all.iter()
        .find(|u| u.txn == 1 && matches!(case.statement(u.main), Some(Statement::Select(_))))
        .map(|u| u.main)
        .unwrap()
}

fn check(
    o: &mut TxcheckOracle,
    case: &TestCase,
    history: &History,
    db: &mut dyn HostDb,
) -> Verdict {
    o.check(
        &CheckInput {
            case: case.clone(),
            history: history.clone(),
        },
        db,
    )
    .unwrap()
}

fn run_cases(db: &MemoryDb) -> Vec<TestCase> {
    db.log()
        .iter()
        .filter_map(|r| match r {
            HostDbRequest::RunCase { case } => Some(case.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_write_that_waited_over_a_commit_is_run_again_without_it() {
    let mut o = oracle(TxcheckConfig::default());
    let (case, history) = waited_over_a_commit(&mut o);
    let mut db = MemoryDb::new();
    assert_eq!(check(&mut o, &case, &history, &mut db), Verdict::Pass);
    let runs = run_cases(&db);
    assert_eq!(runs.len(), 1, "one run again");
    let edited = &runs[0];
    // T2 lost its UPDATE and the reads added around it, nothing else.
    let all = units(&case, &TxcheckConfig::default()).unwrap();
    let update_unit = all.iter().find(|u| u.main == t2_update(&case)).unwrap();
    assert_eq!(
        edited.transactions[1].statements.len(),
        case.transactions[1].statements.len() - update_unit.members.len()
    );
    assert_eq!(edited.transactions[0], case.transactions[0]);
    assert!(!edited.transactions[1]
        .statements
        .iter()
        .any(|s| matches!(s, Statement::Update(_))));
    // Submitted as the run completed them: T2's BEGIN, all of T1, then T2's
    // SELECT with its added reads as one block.
    let txns: Vec<usize> = edited.submitted_order.iter().map(|at| at.txn()).collect();
    let t1 = case.transactions[0].statements.len();
    let mut expected = vec![1];
    expected.extend(vec![0; t1]);
    expected.extend(vec![1; edited.transactions[1].statements.len() - 1]);
    assert_eq!(txns, expected);
}

/// The host database as a faulty DBMS: a run of a case returns T2's SELECT
/// without rows.
struct LosesRows {
    db: MemoryDb,
}

impl HostDb for LosesRows {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        let reply = self.db.call(request.clone())?;
        let (HostDbRequest::RunCase { case }, HostDbResponse::History { mut history }) =
            (request, reply.clone())
        else {
            return Ok(reply);
        };
        let at = t2_select(&case);
        if let Outcome::Rows { rows, .. } = &mut history.statements[at.txn()][at.stmt()].outcome {
            rows.clear();
        }
        Ok(HostDbResponse::History { history })
    }
}

#[test]
fn a_finding_of_the_run_again_names_the_statements_of_the_original_case() {
    let mut o = oracle(TxcheckConfig::default());
    let (case, history) = waited_over_a_commit(&mut o);
    let mut db = LosesRows {
        db: MemoryDb::new(),
    };
    let Verdict::Finding(finding) = check(&mut o, &case, &history, &mut db) else {
        panic!("expected a finding");
    };
    // The SELECT is named as in the case the run was given, not as in the copy.
    let select = t2_select(&case);
    assert!(
        finding.title.starts_with(&format!("{select} (SELECT)")),
        "{}",
        finding.title
    );
    let update = t2_update(&case);
    assert!(
        finding.explanation.contains(&format!("without {update}")),
        "{}",
        finding.explanation
    );
    let left_out = &finding.evidence["run_again_without"][0];
    assert_eq!(left_out["statement"], update.to_string());
    let differing = &finding.evidence["differing"][0]["statement"];
    assert_eq!(*differing, select.to_string());
    // What the verdict was reached on, for the finding's directory.
    let file = finding
        .files
        .iter()
        .find(|f| f.name == "run-again.json")
        .expect("run-again.json");
    let run: serde_json::Value = serde_json::from_str(&file.content).unwrap();
    let copy: TestCase = serde_json::from_value(run["case"].clone()).unwrap();
    let history: History = serde_json::from_value(run["history"].clone()).unwrap();
    history.check_shape(&copy).unwrap();
    assert_eq!(
        run["original"][1][0],
        serde_json::to_value(StatementRef::new(1, 0)).unwrap()
    );
}

#[test]
fn without_re_runs_the_case_is_undecided() {
    let config = TxcheckConfig {
        reruns: 0,
        ..TxcheckConfig::default()
    };
    let mut o = oracle(config);
    let (case, history) = waited_over_a_commit(&mut o);
    let mut db = MemoryDb::new();
    let Verdict::Undecided { reason } = check(&mut o, &case, &history, &mut db) else {
        panic!("expected undecided");
    };
    assert!(reason.contains("did not run as one block"), "{reason}");
    assert!(reason.contains("reruns"), "{reason}");
    assert!(run_cases(&db).is_empty());
}

/// A host of IR 1.0, which knows no `RunCase`.
struct NoRuns {
    db: MemoryDb,
}

impl HostDb for NoRuns {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        if matches!(request, HostDbRequest::RunCase { .. }) {
            return Err(PluginError::invalid_input(
                "host database request: unknown variant `run_case`",
            ));
        }
        self.db.call(request)
    }
}

#[test]
fn a_host_that_cannot_run_a_case_again_leaves_it_undecided() {
    let mut o = oracle(TxcheckConfig::default());
    let (case, history) = waited_over_a_commit(&mut o);
    let mut db = NoRuns {
        db: MemoryDb::new(),
    };
    let Verdict::Undecided { reason } = check(&mut o, &case, &history, &mut db) else {
        panic!("expected undecided");
    };
    assert!(reason.contains("this host cannot do"), "{reason}");
    // The reason names the run's own statements.
    let update = t2_update(&case);
    assert!(reason.contains(&update.to_string()), "{reason}");
}

/// The split unit is T2's UPDATE's: its before-write read is the statement
/// before the UPDATE, a member of the unit.
#[test]
fn the_history_splits_the_update_unit() {
    let mut o = oracle(TxcheckConfig::default());
    let (case, history) = waited_over_a_commit(&mut o);
    let all = units(&case, &TxcheckConfig::default()).unwrap();
    let unit = all.iter().find(|u| u.main == t2_update(&case)).unwrap();
    assert!(unit.with_role(Role::BeforeWrite).next().is_some());
    assert!(txlab_oracle_txcheck::units::first_split(unit, &history).is_some());
}

/// A write that waited inside its unit but wrote exactly what its read
/// showed (T1 changed another table) is judged as it ran: no run again.
#[test]
fn a_write_that_waited_and_wrote_what_its_read_showed_is_judged_as_it_ran() {
    let mut o = oracle(TxcheckConfig::default());
    let (case, history) = waited(&mut o, "u");
    let all = units(&case, &TxcheckConfig::default()).unwrap();
    let unit = all.iter().find(|u| u.main == t2_update(&case)).unwrap();
    assert!(txlab_oracle_txcheck::units::first_split(unit, &history).is_some());
    let mut db = MemoryDb::new();
    assert_eq!(check(&mut o, &case, &history, &mut db), Verdict::Pass);
    assert!(run_cases(&db).is_empty());
}
