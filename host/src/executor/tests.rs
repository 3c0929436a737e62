//! The executor's blocking, resume and abort bookkeeping against the fake DBMS.

use super::fake::{BackgroundDeadlocks, FakeClassifier, FakeDb};
use super::*;

fn ir(sql: &str) -> Statement {
    match sql.split_whitespace().next() {
        Some("BEGIN") => Statement::Begin,
        Some("COMMIT") => Statement::Commit,
        Some("ROLLBACK") => Statement::Rollback,
        Some("R") => Statement::Select(Select {
            table: "t".into(),
            projection: Projection::All,
            filter: None,
            order_by: vec![],
            lock: RowLock::None,
        }),
        _ => Statement::Update(Update {
            table: "t".into(),
            assignments: vec![],
            filter: None,
        }),
    }
}

/// A case whose transactions are lists of fake commands, run in `order`
/// (1-based transaction numbers, WriteCheck style: "1-2-2-1" takes each
/// transaction's next statement).
fn case(txns: &[&[&str]], order: &[usize]) -> (TestCase, RenderedCase) {
    let mut next = vec![0usize; txns.len()];
    let submitted_order = order
        .iter()
        .map(|&t| {
            let at = StatementRef::new(t - 1, next[t - 1]);
            next[t - 1] += 1;
            at
        })
        .collect();
    let case = TestCase {
        seed: 1,
        generator: "test".into(),
        schema: Schema::default(),
        initial_rows: vec![],
        transactions: txns
            .iter()
            .map(|t| Transaction {
                isolation: IsolationLevel::RepeatableRead,
                kind: TxnKind::Explicit,
                statements: t.iter().map(|s| ir(s)).collect(),
            })
            .collect(),
        submitted_order,
        intent: None,
        pace_ms: None,
    };
    case.validate().expect("test cases are valid");
    let rendered = RenderedCase {
        transactions: txns
            .iter()
            .map(|t| RenderedTransaction {
                session: SessionSetup::default(),
                statements: t.iter().map(|s| s.to_string()).collect(),
            })
            .collect(),
        ..RenderedCase::default()
    };
    (case, rendered)
}

fn settings() -> ExecutorSettings {
    ExecutorSettings {
        probe_after: Duration::from_millis(1),
        probe_interval: Duration::from_millis(1),
        block_timeout: Duration::from_millis(30),
        settle_timeout: Duration::from_millis(30),
        stall_timeout: Duration::from_millis(100),
        reply_timeout: Duration::from_secs(2),
        pace: Duration::ZERO,
        fewer_round_trips: true,
        deadlines: crate::driver::Deadlines {
            statement: Duration::from_secs(2),
            monitor: Duration::from_millis(300),
        },
    }
}

async fn run(db: &FakeDb, txns: &[&[&str]], order: &[usize]) -> (History, ReturnedSessions) {
    run_with(db, &FakeClassifier, txns, order).await
}

async fn run_with(
    db: &FakeDb,
    classifier: &dyn ErrorClassifier,
    txns: &[&[&str]],
    order: &[usize],
) -> (History, ReturnedSessions) {
    let (case, rendered) = case(txns, order);
    let monitor = db.monitor();
    let exec = ScheduleExecutor {
        settings: settings(),
        monitor: &monitor,
        classifier,
        interrupt: crate::driver::Interrupt::default(),
    };
    let (history, sessions) = exec.run(&case, &rendered, db.sessions(txns.len())).await;
    (history.expect("the run works"), sessions)
}

fn r(txn: usize, stmt: usize) -> StatementRef {
    StatementRef::new(txn - 1, stmt - 1)
}

fn order(h: &History) -> Vec<String> {
    h.completion_order.iter().map(ToString::to_string).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dirty_write_blocks_and_resumes_after_commit() {
    let db = FakeDb::new();
    let (h, sessions) = run(
        &db,
        &[&["BEGIN", "W a", "COMMIT"], &["BEGIN", "W a", "COMMIT"]],
        &[1, 1, 2, 2, 1, 2],
    )
    .await;
    assert_eq!(order(&h), ["T1.1", "T1.2", "T2.1", "T1.3", "T2.2", "T2.3"]);
    let blocked = h
        .record(r(2, 2))
        .unwrap()
        .blocked
        .clone()
        .expect("T2.2 blocked");
    assert_eq!(blocked.evidence, BlockEvidence::Probe);
    assert_eq!(blocked.resumed_after, Some(r(1, 3)));
    assert!(h.record(r(1, 2)).unwrap().blocked.is_none());
    assert_eq!(h.transactions[0].end, TxnEnd::Committed);
    assert_eq!(h.transactions[1].end, TxnEnd::Committed);
    assert!(h.transactions[0].ended_us < h.transactions[1].ended_us);
    assert_eq!(h.end_order(), vec![0, 1]);
    assert!(h.unobserved.is_empty(), "{:?}", h.unobserved);
    assert_eq!(sessions.iter().filter(|s| s.is_some()).count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_reply_that_overtakes_the_commit_is_recorded_after_it() {
    let mut db = FakeDb::new();
    db.end_reply_delay = Duration::from_millis(20);
    let (h, _) = run(
        &db,
        &[&["BEGIN", "W a", "COMMIT"], &["BEGIN", "W a", "COMMIT"]],
        &[1, 1, 2, 2, 1, 2],
    )
    .await;
    // T2.2's reply arrives first, but T1's COMMIT is what let it go on.
    assert_eq!(order(&h), ["T1.1", "T1.2", "T2.1", "T1.3", "T2.2", "T2.3"]);
    let b = h.record(r(2, 2)).unwrap().blocked.clone().unwrap();
    assert_eq!(b.resumed_after, Some(r(1, 3)));
    assert!(
        h.record(r(2, 2)).unwrap().completed_us < h.record(r(1, 3)).unwrap().completed_us,
        "the test did not make the resumed reply overtake the commit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_error_that_overtakes_the_commit_is_recorded_after_it() {
    let mut db = FakeDb::new();
    db.end_reply_delay = Duration::from_millis(20);
    let (h, _) = run(
        &db,
        &[&["BEGIN", "W a", "COMMIT"], &["BEGIN", "WD a", "COMMIT"]],
        &[1, 1, 2, 2, 1, 2],
    )
    .await;
    // T2.2 fails once T1's COMMIT lets it go on; its reply arrives first.
    assert_eq!(order(&h), ["T1.1", "T1.2", "T2.1", "T1.3", "T2.2", "T2.3"]);
    let record = h.record(r(2, 2)).unwrap();
    assert!(
        matches!(&record.outcome, Outcome::Error(e) if e.class == ErrorClass::Constraint),
        "{:?}",
        record.outcome
    );
    assert_eq!(
        record.blocked.as_ref().unwrap().resumed_after,
        Some(r(1, 3))
    );
    assert!(
        record.completed_us < h.record(r(1, 3)).unwrap().completed_us,
        "the test did not make the resumed reply overtake the commit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_transactions_later_statements_wait_while_others_go_on() {
    let db = FakeDb::new();
    // Submitted order puts T2's COMMIT before T1's; T2 is blocked then, so T1
    // goes first and T2's COMMIT follows its resumed write.
    let (h, _) = run(
        &db,
        &[
            &["BEGIN", "W a", "R", "COMMIT"],
            &["BEGIN", "W a", "COMMIT"],
        ],
        &[1, 1, 2, 2, 2, 1, 1],
    )
    .await;
    assert_eq!(
        order(&h),
        ["T1.1", "T1.2", "T2.1", "T1.3", "T1.4", "T2.2", "T2.3"]
    );
    assert!(matches!(
        h.record(r(1, 3)).unwrap().outcome,
        Outcome::Rows { .. }
    ));
    assert_eq!(
        h.record(r(2, 2)).unwrap().outcome,
        Outcome::Affected { rows: 1 }
    );
    assert_eq!(h.end_order(), vec![0, 1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadlock_makes_exactly_one_victim_whose_rest_is_not_sent() {
    let db = FakeDb::new();
    let (h, sessions) = run(
        &db,
        &[
            &["BEGIN", "W a", "W b", "COMMIT"],
            &["BEGIN", "W b", "W a", "COMMIT"],
        ],
        &[1, 2, 1, 2, 1, 2, 1, 2],
    )
    .await;
    // T1.3 waits for T2's lock on b; T2.3 closes the cycle and is the victim; its
    // abort (and the executor's ROLLBACK) lets T1.3 resume.
    assert_eq!(
        order(&h),
        ["T1.1", "T2.1", "T1.2", "T2.2", "T2.3", "T1.3", "T1.4"]
    );
    let victim = h.record(r(2, 3)).unwrap();
    assert_eq!(
        victim.outcome.error().map(|e| e.class),
        Some(ErrorClass::Deadlock)
    );
    assert_eq!(
        h.transactions[1].end,
        TxnEnd::Aborted {
            by: r(2, 3),
            class: ErrorClass::Deadlock
        }
    );
    assert_eq!(h.record(r(2, 4)).unwrap().outcome, Outcome::NotSubmitted);
    assert_eq!(h.transactions[0].end, TxnEnd::Committed);
    assert_eq!(
        h.record(r(1, 3))
            .unwrap()
            .blocked
            .as_ref()
            .unwrap()
            .resumed_after,
        Some(r(2, 3))
    );
    assert_eq!(h.end_order(), vec![1, 0]);
    assert!(h.unobserved.is_empty(), "{:?}", h.unobserved);
    assert_eq!(sessions.iter().filter(|s| s.is_some()).count(), 2);
}

/// MySQL 8.0.18 and later: T2.3 closes the cycle and waits; the background
/// search picks T1 as the victim and rolls it back, T2.3 goes on and replies,
/// T2 sends its COMMIT, and only then does T1.3's deadlock error arrive.
/// Nothing T2's COMMIT released let T1.3 end: its error is recorded where it
/// arrived, before the COMMIT, and resumed after nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_deadlock_error_is_not_held_behind_the_survivors_commit() {
    let mut db = FakeDb::new();
    db.background_deadlocks = Some(BackgroundDeadlocks {
        detect_after: Duration::from_millis(20),
        error_after: Duration::from_millis(10),
    });
    db.end_reply_delay = Duration::from_millis(60);
    let (h, sessions) = run(
        &db,
        &[
            &["BEGIN", "W a", "W b", "COMMIT"],
            &["BEGIN", "W b", "W a", "COMMIT"],
        ],
        &[1, 2, 1, 2, 1, 2, 1, 2],
    )
    .await;
    let victim = h.record(r(1, 3)).unwrap();
    let commit = h.record(r(2, 4)).unwrap();
    assert!(
        victim.completed_us > commit.submitted_us && victim.completed_us < commit.completed_us,
        "the test did not make the victim's error arrive while the COMMIT was in flight: {h:?}"
    );
    assert_eq!(
        order(&h),
        ["T1.1", "T2.1", "T1.2", "T2.2", "T2.3", "T1.3", "T2.4"]
    );
    assert_eq!(
        victim.outcome.error().map(|e| e.class),
        Some(ErrorClass::Deadlock)
    );
    assert_eq!(victim.blocked.as_ref().unwrap().resumed_after, None);
    assert_eq!(
        h.transactions[0].end,
        TxnEnd::Aborted {
            by: r(1, 3),
            class: ErrorClass::Deadlock
        }
    );
    let survivor = h.record(r(2, 3)).unwrap();
    assert_eq!(survivor.outcome, Outcome::Affected { rows: 1 });
    assert!(survivor.blocked.is_some(), "T2.3 was seen waiting");
    assert_eq!(h.transactions[1].end, TxnEnd::Committed);
    assert!(h.unobserved.is_empty(), "{:?}", h.unobserved);
    assert_eq!(sessions.iter().filter(|s| s.is_some()).count(), 2);
}

/// The fake's classification, taking a while over a duplicate key: an
/// executor slow to send its next statement, as a debug build on a loaded
/// machine is.
struct SlowToClassifyDuplicates(Duration);

impl ErrorClassifier for SlowToClassifyDuplicates {
    fn classify(&self, raw: &RawDbError) -> Result<DbError, txlab_loader::CallError> {
        if raw.code == Some(1062) {
            std::thread::sleep(self.0);
        }
        FakeClassifier.classify(raw)
    }
}

/// T1.2 shows as waiting and then replies by itself, while the executor is
/// still busy with T2.2's error: the reply is in the channel before T2's
/// COMMIT is sent, so the COMMIT cannot be what let it go on. It is recorded
/// where it arrived, not held behind the COMMIT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_that_arrived_before_the_statement_in_flight_was_sent_is_not_held() {
    let mut db = FakeDb::new();
    db.end_reply_delay = Duration::from_millis(40);
    let (h, _) = run_with(
        &db,
        &SlowToClassifyDuplicates(Duration::from_millis(40)),
        &[
            &["BEGIN", "SHOWN_WAITING 10", "COMMIT"],
            &["BEGIN", "FAIL 1062", "COMMIT"],
        ],
        &[1, 1, 2, 2, 1, 2],
    )
    .await;
    let resumed = h.record(r(1, 2)).unwrap();
    let commit = h.record(r(2, 3)).unwrap();
    assert!(resumed.blocked.is_some(), "T1.2 was seen waiting");
    assert!(
        resumed.completed_us < commit.submitted_us,
        "the test did not make T1.2's reply arrive before T2's COMMIT was sent: {h:?}"
    );
    assert_eq!(order(&h), ["T1.1", "T2.1", "T2.2", "T1.2", "T2.3", "T1.3"]);
    assert_eq!(resumed.blocked.as_ref().unwrap().resumed_after, None);
    assert_eq!(resumed.outcome, Outcome::Affected { rows: 1 });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_error_keeps_the_transaction_and_a_rollback_ends_it() {
    let db = FakeDb::new();
    let (h, _) = run(
        &db,
        &[
            &["BEGIN", "FAIL 1062", "W a", "ROLLBACK"],
            &["BEGIN", "W a", "COMMIT"],
        ],
        &[1, 1, 1, 2, 2, 1, 2],
    )
    .await;
    assert_eq!(
        h.record(r(1, 2)).unwrap().outcome.error().unwrap().class,
        ErrorClass::Constraint
    );
    assert_eq!(h.transactions[0].end, TxnEnd::RolledBack);
    assert_eq!(h.transactions[1].end, TxnEnd::Committed);
    // T2's write waited for T1's ROLLBACK.
    assert_eq!(
        h.record(r(2, 2))
            .unwrap()
            .blocked
            .as_ref()
            .unwrap()
            .resumed_after,
        Some(r(1, 4))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undetected_deadlock_is_a_stall_and_the_case_is_wound_down() {
    let mut db = FakeDb::new();
    db.detect_deadlocks = false;
    let (h, sessions) = run(
        &db,
        &[
            &["BEGIN", "W a", "W b", "COMMIT"],
            &["BEGIN", "W b", "W a", "COMMIT"],
        ],
        &[1, 2, 1, 2, 1, 2, 1, 2],
    )
    .await;
    assert!(
        h.unobserved
            .iter()
            .any(|n| n.starts_with("stall: T1.3, T2.3")),
        "{:?}",
        h.unobserved
    );
    assert_eq!(h.transactions[0].end, TxnEnd::Unfinished);
    assert_eq!(h.transactions[1].end, TxnEnd::Unfinished);
    // The cancelled waits came back and the sessions are reusable.
    assert!(h.record(r(1, 3)).unwrap().outcome.error().is_some());
    assert_eq!(sessions.iter().filter(|s| s.is_some()).count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_working_probe_a_block_is_assumed_by_timeout_and_noted() {
    let mut db = FakeDb::new();
    db.probe_works = false;
    let (h, _) = run(
        &db,
        &[&["BEGIN", "W a", "COMMIT"], &["BEGIN", "W a", "COMMIT"]],
        &[1, 1, 2, 2, 1, 2],
    )
    .await;
    let b = h.record(r(2, 2)).unwrap().blocked.clone().unwrap();
    assert_eq!(b.evidence, BlockEvidence::Timeout);
    assert!(
        h.unobserved
            .iter()
            .any(|n| n.contains("T2.2 gave no reply")),
        "{:?}",
        h.unobserved
    );
    assert_eq!(h.transactions[1].end, TxnEnd::Committed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_connection_is_recorded_as_such() {
    let db = FakeDb::new();
    db.break_session(2);
    let (h, sessions) = run(
        &db,
        &[&["BEGIN", "W a", "COMMIT"], &["BEGIN", "W b", "COMMIT"]],
        &[1, 2, 1, 2, 1, 2],
    )
    .await;
    // The broken session is not handed back for the next case.
    assert!(sessions[0].is_some() && sessions[1].is_none());
    assert_eq!(
        h.record(r(2, 1)).unwrap().outcome.error().unwrap().class,
        ErrorClass::ConnectionLost
    );
    assert_eq!(h.transactions[1].end, TxnEnd::Unfinished);
    assert!(
        h.unobserved
            .iter()
            .any(|n| n.contains("T2.1 lost its connection")),
        "{:?}",
        h.unobserved
    );
    assert_eq!(h.transactions[0].end, TxnEnd::Committed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_few_sessions_is_an_error_not_a_hang() {
    let db = FakeDb::new();
    let (case, rendered) = case(&[&["BEGIN", "COMMIT"], &["BEGIN", "COMMIT"]], &[1, 2, 1, 2]);
    let monitor = db.monitor();
    let exec = ScheduleExecutor {
        settings: settings(),
        monitor: &monitor,
        classifier: &FakeClassifier,
        interrupt: crate::driver::Interrupt::default(),
    };
    let (h, sessions) = exec.run(&case, &rendered, db.sessions(1)).await;
    assert!(matches!(
        h,
        Err(ExecError::NotEnoughSessions {
            needed: 2,
            given: 1
        })
    ));
    assert_eq!(sessions.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paced_run_pauses_after_a_block_and_a_transaction_end() {
    let db = FakeDb::new();
    let txns: &[&[&str]] = &[&["BEGIN", "W a", "COMMIT"], &["BEGIN", "W a", "COMMIT"]];
    let (case, rendered) = case(txns, &[1, 1, 2, 2, 1, 2]);
    let monitor = db.monitor();
    let pace = Duration::from_millis(40);
    let exec = ScheduleExecutor {
        settings: ExecutorSettings { pace, ..settings() },
        monitor: &monitor,
        classifier: &FakeClassifier,
        interrupt: crate::driver::Interrupt::default(),
    };
    let (h, _) = exec.run(&case, &rendered, db.sessions(2)).await;
    let h = h.expect("the run works");
    // The same run as unpaced, with the pauses between the sends.
    assert_eq!(order(&h), ["T1.1", "T1.2", "T2.1", "T1.3", "T2.2", "T2.3"]);
    let sent = |at: StatementRef| h.record(at).unwrap().submitted_us.unwrap();
    let pace_us = pace.as_micros() as u64;
    // After T2.2 was confirmed blocked, T1's COMMIT waited the pause.
    assert!(sent(r(1, 3)) - sent(r(2, 2)) >= pace_us);
    // After T1's COMMIT, T2's COMMIT did too.
    let committed = h.record(r(1, 3)).unwrap().completed_us.unwrap();
    assert!(sent(r(2, 3)) - committed >= pace_us);
}

/// A server that stops answering mid-case (a process under SIGSTOP): the
/// lock-wait probe of the statement that got no reply passes its deadline,
/// the case ends with that error, and no session is handed back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_server_ends_the_case_within_the_probe_deadline() {
    let db = FakeDb::new();
    let txns: &[&[&str]] = &[&["BEGIN", "W a", "COMMIT"], &["BEGIN", "FREEZE", "COMMIT"]];
    let (case, rendered) = case(txns, &[1, 1, 2, 2, 1, 2]);
    let monitor = db.monitor();
    let exec = ScheduleExecutor {
        settings: settings(),
        monitor: &monitor,
        classifier: &FakeClassifier,
        interrupt: crate::driver::Interrupt::default(),
    };
    let started = std::time::Instant::now();
    let (h, sessions) = exec.run(&case, &rendered, db.sessions(2)).await;
    match h {
        Err(ExecError::NoAnswer(e)) => assert_eq!(
            e.to_string(),
            "the server did not answer within 300ms (the lock-wait probe)"
        ),
        other => panic!("expected NoAnswer, got {:?}", other.map(|_| ())),
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(sessions.iter().all(Option::is_none));
    // A silent server is not asked to cancel.
    assert!(db.cancelled().is_empty());
}

/// The run is asked to stop while a statement waits for a lock that nothing
/// will release: the case ends at once, the waiting statement is cancelled
/// through the monitor, and no session is handed back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_cancels_the_statement_in_flight() {
    let mut db = FakeDb::new();
    db.detect_deadlocks = false;
    let txns: &[&[&str]] = &[&["BEGIN", "W a", "W b"], &["BEGIN", "W b", "W a"]];
    let (case, rendered) = case(txns, &[1, 1, 2, 2, 1, 2]);
    let monitor = db.monitor();
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let exec = ScheduleExecutor {
        settings: ExecutorSettings {
            stall_timeout: Duration::from_secs(30),
            ..settings()
        },
        monitor: &monitor,
        classifier: &FakeClassifier,
        interrupt: crate::driver::Interrupt::new(flag.clone()),
    };
    let setter = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let started = std::time::Instant::now();
    let (h, sessions) = exec.run(&case, &rendered, db.sessions(2)).await;
    setter.await.unwrap();
    assert!(
        matches!(h, Err(ExecError::Interrupted)),
        "{:?}",
        h.map(|_| ())
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let mut cancelled = db.cancelled();
    cancelled.sort_unstable();
    assert_eq!(cancelled, [1, 2]);
    assert!(sessions.iter().all(Option::is_none));
}
