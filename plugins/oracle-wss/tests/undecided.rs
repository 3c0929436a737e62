//! Runs the oracle cannot judge, scratch-database failures, and configuration.

mod common;

use common::*;
use txlab_oracle_wss::{WssConfig, WssOracle};
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::execute_one_at_a_time;
use txlab_testkit::{serial_history, MemoryDb};

const RR: IsolationLevel = IsolationLevel::RepeatableRead;

fn kv() -> Table {
    table(
        "t",
        &[("id", ColumnType::Int), ("v", ColumnType::Int)],
        &["id"],
    )
}

/// Two transactions that both update row 1, so any dropped detail would matter.
fn two() -> TestCase {
    let t = kv();
    let set = |v| {
        update(
            "t",
            vec![("v", lit(int(v)))],
            Some(Expr::eq(col("id"), lit(int(1)))),
        )
    };
    case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)]])],
        vec![
            explicit(RR, vec![set(1)], true),
            explicit(RR, vec![set(2)], true),
        ],
        &[0, 1, 0, 1, 0, 1],
    )
}

/// Checks on a fresh database and asserts that nothing was replayed.
fn undecided_without_replay(case: &TestCase, history: History) -> String {
    let mut db = MemoryDb::new();
    let verdict = oracle()
        .check(
            &CheckInput {
                case: case.clone(),
                history,
            },
            &mut db,
        )
        .unwrap();
    assert!(db.log().is_empty(), "nothing to replay: {:?}", db.log());
    expect_undecided(verdict)
}

#[test]
fn unobserved_notes_make_the_run_undecided() {
    let case = two();
    let mut history = serial_history(&case, &[0, 1]);
    history
        .unobserved
        .push("T2.2 waited but the probe could not confirm a lock".into());
    let reason = undecided_without_replay(&case, history);
    assert_eq!(
        reason,
        "the run was not fully observed: the executor reported: T2.2 waited but the probe could not confirm a lock"
    );
}

#[test]
fn an_unfinished_transaction_makes_the_run_undecided() {
    let case = two();
    let history = serial_history(&case, &[0]);
    let reason = undecided_without_replay(&case, history);
    assert_eq!(
        reason,
        "the run was not fully observed: T2 never finished, so whether it committed is unknown"
    );
}

#[test]
fn a_statement_without_reply_makes_the_run_undecided() {
    let case = two();
    let mut history = serial_history(&case, &[0, 1]);
    history.statements[1][1].outcome = Outcome::NoReply;
    let reason = undecided_without_replay(&case, history);
    assert!(
        reason.contains("T2.2 (UPDATE) got no reply, so its effect is unknown"),
        "{reason}"
    );
}

#[test]
fn unobservable_errors_make_the_run_undecided() {
    let case = two();
    for (class, text) in [
        (ErrorClass::ConnectionLost, "connection lost"),
        (ErrorClass::StatementTimeout, "statement timeout"),
    ] {
        let mut history = serial_history(&case, &[0, 1]);
        history.statements[0][2].outcome = error(class, ErrorScope::Connection);
        let reason = undecided_without_replay(&case, history);
        assert!(
            reason.contains(&format!(
                "T1.3 (COMMIT) failed with {text}, so its effect is unknown"
            )),
            "{reason}"
        );
    }
}

#[test]
fn a_block_only_a_timeout_saw_makes_the_run_undecided() {
    let case = two();
    let mut history = serial_history(&case, &[0, 1]);
    history.statements[1][1].blocked = Some(Blocking {
        detected_us: 0,
        evidence: BlockEvidence::Timeout,
        resumed_after: None,
    });
    let reason = undecided_without_replay(&case, history);
    assert_eq!(
        reason,
        "the run was not fully observed: T2.2 counted as blocked after a timeout the lock-wait probe did not confirm"
    );
}

#[test]
fn a_missing_final_state_makes_the_run_undecided() {
    let case = two();
    let mut history = serial_history(&case, &[0, 1]);
    history.final_state = None;
    let reason = undecided_without_replay(&case, history);
    assert_eq!(
        reason,
        "the run was not fully observed: the final state of the database was not read"
    );
}

#[test]
fn every_missing_observation_is_named() {
    let case = two();
    let mut history = serial_history(&case, &[0]);
    history.unobserved.push("stall".into());
    history.final_state = None;
    let reason = undecided_without_replay(&case, history);
    assert_eq!(
        reason,
        "the run was not fully observed: the executor reported: stall; T2 never finished, so whether it \
         committed is unknown; the final state of the database was not read"
    );
}

#[test]
fn a_write_that_failed_from_concurrency_in_a_committed_transaction_is_undecided() {
    let case = two();
    let mut history = serial_history(&case, &[0, 1]);
    history.statements[1][1].outcome = error(ErrorClass::LockWaitTimeout, ErrorScope::Statement);
    let reason = undecided_without_replay(&case, history);
    assert!(
        reason.contains("T2.2 (UPDATE) failed with lock wait timeout but T2 went on"),
        "{reason}"
    );
}

/// A scratch database that misbehaves at the `fail_at`-th statement it executes
/// (counting from 0): a DB error outcome, or an infrastructure failure.
struct Faulty {
    inner: MemoryDb,
    executed: usize,
    fail_at: usize,
    fault: Fault,
}

#[derive(Clone)]
enum Fault {
    Outcome(Outcome),
    Infrastructure,
}

impl HostDb for Faulty {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        // Statements sent together fail one by one, as sent alone.
        if let HostDbRequest::ExecuteEach {
            session,
            statements,
            until_conflict,
        } = request
        {
            let outcomes =
                execute_one_at_a_time(&statements, until_conflict, |s| self.execute(session, s))?;
            return Ok(HostDbResponse::Outcomes { outcomes });
        }
        if let HostDbRequest::Execute { .. } = request {
            self.executed += 1;
            if self.executed - 1 == self.fail_at {
                return match &self.fault {
                    Fault::Outcome(outcome) => Ok(HostDbResponse::Outcome {
                        outcome: outcome.clone(),
                    }),
                    Fault::Infrastructure => {
                        Err(PluginError::host("the scratch database went away"))
                    }
                };
            }
        }
        self.inner.call(request)
    }
}

fn check_faulty(fail_at: usize, fault: Fault) -> (Result<Verdict, PluginError>, Faulty) {
    let case = two();
    let history = serial_history(&case, &[0, 1]);
    let mut db = Faulty {
        inner: MemoryDb::new(),
        executed: 0,
        fail_at,
        fault,
    };
    let verdict = oracle().check(&CheckInput { case, history }, &mut db);
    (verdict, db)
}

#[test]
fn a_conflict_in_the_serial_replay_is_undecided() {
    let deadlock = Fault::Outcome(error(ErrorClass::Deadlock, ErrorScope::Transaction));
    // Statement 1 of the tx-WSS replay is T1's UPDATE.
    let (verdict, db) = check_faulty(1, deadlock);
    let reason = expect_undecided(verdict.unwrap());
    assert!(
        reason.starts_with("the tx-WSS serial replay itself could not run as a model: T1.2 (UPDATE) failed with deadlock"),
        "{reason}"
    );
    assert_eq!(db.inner.open_sessions(), 0);
    // The replay stopped at the conflict: T2 was never opened.
    let sessions = db
        .inner
        .log()
        .iter()
        .filter(|r| matches!(r, HostDbRequest::OpenSession { .. }))
        .count();
    assert_eq!(sessions, 1);

    // Statement 7 is T2's UPDATE in the stmt-WSS replay (6 statements in tx-WSS, then T1.2).
    let (verdict, db) = check_faulty(7, Fault::Outcome(Outcome::NoReply));
    let reason = expect_undecided(verdict.unwrap());
    assert!(reason.contains("the stmt-WSS serial replay"), "{reason}");
    assert!(reason.contains("T2.2 (UPDATE) got no reply"), "{reason}");
    assert_eq!(db.inner.open_sessions(), 0);
}

#[test]
fn scratch_database_failures_propagate_and_close_sessions() {
    for fail_at in 0..8 {
        let (verdict, db) = check_faulty(fail_at, Fault::Infrastructure);
        let e = verdict.unwrap_err();
        assert_eq!(e.kind, ErrorKind::HOST, "{e}");
        assert_eq!(
            db.inner.open_sessions(),
            0,
            "after a failure at statement {fail_at}"
        );
    }
}

#[test]
fn a_history_that_does_not_fit_its_case_is_rejected() {
    let case = two();
    let mut history = serial_history(&case, &[0, 1]);
    history.statements[1].pop();
    let mut db = MemoryDb::new();
    let e = oracle()
        .check(&CheckInput { case, history }, &mut db)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
    assert!(
        e.message
            .contains("2 statement records for T2, which has 3 statements"),
        "{e}"
    );
}

fn new_oracle(config_json: &str) -> Result<WssOracle, PluginError> {
    let config: WssConfig = parse_config(config_json)?;
    WssOracle::new(
        config,
        OracleContext {
            dialect: strict_dialect(),
        },
    )
}

#[test]
fn configuration_errors_are_reported() {
    let unknown_variant = new_oracle(r#"{"variants":["tx","serial"]}"#).err().unwrap();
    assert_eq!(unknown_variant.kind, ErrorKind::INVALID_CONFIG);
    assert!(
        unknown_variant.message.contains("unknown variant `serial`"),
        "{unknown_variant}"
    );
    let unknown_key = new_oracle(r#"{"compare_reads":true}"#).err().unwrap();
    assert_eq!(unknown_key.kind, ErrorKind::INVALID_CONFIG);
    assert!(
        unknown_key
            .message
            .contains("unknown field `compare_reads`"),
        "{unknown_key}"
    );
    let empty = new_oracle(r#"{"variants":[]}"#).err().unwrap();
    assert_eq!(empty.kind, ErrorKind::INVALID_CONFIG);
    assert!(new_oracle(r#"{"variants":["stmt"],"report_weak_levels":true}"#).is_ok());
}

#[test]
fn the_library_exports_the_wss_oracle() {
    let entries = txlab_oracle_wss::TXLAB_EXPORTED_LIBRARY.entries();
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry.kind, txlab_plugin_api::PluginKind::ORACLE);
    assert_eq!(entry.name.as_str(), "wss");
    assert_eq!(
        entry.default_config.as_str(),
        txlab_oracle_wss::DEFAULT_CONFIG
    );
}

/// `UPDATE t SET id = id + 1` over ids 1 and 2: whether it collides with a
/// key midway depends on the order the DBMS visits the rows. It failed in
/// the concurrent run and succeeds in the replay (the interpreter checks keys
/// after the statement): undecided, never a finding.
#[test]
fn a_key_update_that_collides_in_one_run_only_is_undecided() {
    let t = kv();
    let shift = update(
        "t",
        vec![("id", Expr::binary(BinaryOp::Add, col("id"), lit(int(1))))],
        None,
    );
    let c = case(
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(0)], vec![int(2), int(0)]])],
        vec![explicit(RR, vec![shift], true)],
        &[0, 0, 0],
    );
    let h = history(
        &c,
        &[0, 0, 0],
        vec![(
            StatementRef::new(0, 1),
            error(ErrorClass::Constraint, ErrorScope::Statement),
        )],
        vec![TxnEnd::Committed],
        state(&t, vec![vec![int(1), int(0)], vec![int(2), int(0)]]),
    );
    let mut o = oracle_with("{}", strict_dialect());
    let reason =
        txlab_testkit::oracle::expect_undecided(txlab_testkit::oracle::check(&mut o, &c, &h));
    assert!(
        reason.contains("order the DBMS visits the rows"),
        "{reason}"
    );
    // A DBMS whose profile says keys are checked at the statement's end (as
    // the standard says) owes the serial run's outcome.
    let mut at_statement_end = strict_dialect();
    at_statement_end.engine.unique_checked_per_row = false;
    let mut o = oracle_with("{}", at_statement_end);
    txlab_testkit::oracle::expect_finding(txlab_testkit::oracle::check(&mut o, &c, &h));
}
