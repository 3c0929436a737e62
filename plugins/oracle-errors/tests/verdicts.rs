//! Hand-made histories of one case, with each kind of error, judged by the
//! oracle: what is a finding, with which signature and title, what passes,
//! and which finding wins when several apply.

use serde_json::json;
use txlab_loader::OracleHandle;
use txlab_oracle_errors::{ErrorsOracle, MODEL};
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::concurrent_history;
use txlab_testkit::oracle::{check, expect_finding};
use txlab_testkit::MemoryDb;

fn sqlite() -> DialectInfo {
    <txlab_sqlite::SqliteDialect as DialectPlugin>::new(Default::default())
        .unwrap()
        .info()
}

fn oracle(config: &str) -> ErrorsOracle {
    ErrorsOracle::new(
        parse_config(config).unwrap(),
        OracleContext { dialect: sqlite() },
    )
    .unwrap()
}

fn at(txn: usize, stmt: usize) -> StatementRef {
    StatementRef::new(txn, stmt)
}

/// T1: BEGIN; SELECT row 1; UPDATE row 1; COMMIT.
/// T2: BEGIN; UPDATE row 1; COMMIT.
fn case() -> TestCase {
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Int)],
        &["id"],
    );
    case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(10)]])],
        vec![
            explicit(
                IsolationLevel::RepeatableRead,
                vec![
                    Statement::Begin,
                    select("t", Some(eq(c("id"), int(1))), vec![]),
                    update("t", vec![("v", int(11))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
            explicit(
                IsolationLevel::Serializable,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", int(20))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
        ],
    )
}

/// Every statement ran, in the order T1.1 T2.1 T1.2 T2.2 T1.3 T2.3 T1.4, and
/// succeeded unless `outcomes` says otherwise.
fn history(case: &TestCase, outcomes: Vec<(StatementRef, Outcome)>) -> History {
    concurrent_history(case, &[0, 1, 0, 1, 0, 1, 0])
        .outcome(at(0, 2), Outcome::Affected { rows: 1 })
        .outcome(at(1, 1), Outcome::Affected { rows: 1 })
        .outcomes(outcomes)
        .final_state(DbState::default())
        .build()
}

fn error(class: ErrorClass, code: Option<i64>, sqlstate: Option<&str>, message: &str) -> Outcome {
    Outcome::Error(DbError {
        class,
        scope: ErrorScope::Statement,
        code,
        sqlstate: sqlstate.map(str::to_string),
        message: message.into(),
    })
}

fn loss(
    at: Option<StatementRef>,
    back_after_ms: Option<u64>,
    restarted: Option<bool>,
) -> ServerLoss {
    ServerLoss {
        at,
        message: "server closed the connection unexpectedly".into(),
        back_after_ms,
        restarted,
        waited_ms: back_after_ms.unwrap_or(60_000),
    }
}

/// A run that broke at T2.2 (the UPDATE): no reply, T2 never finished, and
/// the host could not read the final state.
fn broken_at_t2_2(case: &TestCase, loss: ServerLoss) -> History {
    let mut h = concurrent_history(case, &[0, 1, 0])
        .unobserved("the connection to the server broke")
        .build();
    h.statements[1][1].outcome = Outcome::NoReply;
    h.server_lost = Some(loss);
    h
}

const EXPECTED: [ErrorClass; 8] = [
    ErrorClass::Deadlock,
    ErrorClass::LockWaitTimeout,
    ErrorClass::SerializationFailure,
    ErrorClass::Constraint,
    ErrorClass::Data,
    ErrorClass::TransactionAborted,
    ErrorClass::StatementTimeout,
    ErrorClass::Syntax,
];

#[test]
fn a_run_without_errors_passes() {
    let case = case();
    assert_eq!(
        check(&mut oracle("{}"), &case, &history(&case, vec![])),
        Verdict::Pass
    );
}

#[test]
fn the_errors_a_concurrent_run_meets_by_design_pass() {
    let case = case();
    for class in EXPECTED {
        let h = history(
            &case,
            vec![(
                at(1, 1),
                error(class, Some(1213), Some("40001"), "expected"),
            )],
        );
        assert_eq!(
            check(&mut oracle("{}"), &case, &h),
            Verdict::Pass,
            "{class:?}"
        );
    }
}

#[test]
fn an_internal_error_is_a_finding_named_by_its_code() {
    let case = case();
    let message = "Incorrect key file for table 't'; try to repair it";
    let h = history(
        &case,
        vec![(
            at(1, 1),
            error(ErrorClass::Internal, Some(1034), Some("HY000"), message),
        )],
    );
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "internal-error:1034");
    assert_eq!(
        f.title,
        format!("T2.2 (UPDATE) failed with internal error (1034) [HY000]: {message}")
    );
    assert_eq!(f.model, MODEL);
    assert!(f
        .assumed_semantics
        .starts_with("the dialect `sqlite` classifies"));
    let sql = &h.record(at(1, 1)).unwrap().sql;
    assert!(f.explanation.contains(sql.as_str()), "{}", f.explanation);
    assert!(f.explanation.contains(message), "{}", f.explanation);
    assert!(
        f.explanation
            .contains("**Statement:** T2.2 (UPDATE), in T2 at serializable"),
        "{}",
        f.explanation
    );
    assert!(
        !f.explanation.contains("more explicit"),
        "{}",
        f.explanation
    );
    assert_eq!(f.evidence["kind"], "internal-error");
    assert_eq!(f.evidence["at"], "T2.2");
    assert_eq!(f.evidence["sql"], json!(sql));
    assert_eq!(f.evidence["error"]["code"], 1034);
    assert_eq!(f.evidence["others"], json!([]));
}

#[test]
fn internal_errors_are_told_apart_by_code_then_sqlstate_never_by_message() {
    let case = case();
    let signature = |code, state, message: &str| {
        let h = history(
            &case,
            vec![(at(0, 1), error(ErrorClass::Internal, code, state, message))],
        );
        expect_finding(check(&mut oracle("{}"), &case, &h)).signature
    };
    assert_eq!(
        signature(Some(1105), Some("HY000"), "a"),
        "internal-error:1105"
    );
    assert_eq!(
        signature(Some(1105), Some("HY000"), "row 42 is broken"),
        "internal-error:1105"
    );
    assert_eq!(
        signature(Some(1877), Some("HY000"), "a"),
        "internal-error:1877"
    );
    assert_eq!(signature(None, Some("XX000"), "a"), "internal-error:XX000");
    assert_eq!(signature(None, None, "a"), "internal-error");
    assert_eq!(signature(None, Some(""), "a"), "internal-error");
}

#[test]
fn an_error_the_dialect_could_not_classify_is_a_finding() {
    let case = case();
    let h = history(
        &case,
        vec![(
            at(0, 1),
            error(
                ErrorClass::Other,
                None,
                Some("P0001"),
                "raised by a trigger",
            ),
        )],
    );
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "unclassified-error:P0001");
    assert_eq!(
        f.title,
        "T1.2 (SELECT) failed with unclassified error [P0001]: raised by a trigger"
    );
    assert!(
        f.explanation
            .contains("an error the dialect `sqlite` does not classify"),
        "{}",
        f.explanation
    );
    let h = history(
        &case,
        vec![(
            at(0, 1),
            error(ErrorClass::Other, Some(1105), Some("HY000"), "x"),
        )],
    );
    assert_eq!(
        expect_finding(check(&mut oracle("{}"), &case, &h)).signature,
        "unclassified-error:1105"
    );
}

#[test]
fn a_lost_connection_without_the_hosts_report_is_one_connection_lost_finding() {
    let case = case();
    let lost = |msg: &str| error(ErrorClass::ConnectionLost, Some(2013), Some("HY000"), msg);
    let h = history(
        &case,
        vec![
            (at(1, 1), lost("Lost connection to server during query")),
            (at(0, 2), lost("Lost connection to server during query")),
        ],
    );
    assert!(h.server_lost.is_none());
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "connection-lost");
    assert_eq!(
        f.title,
        "the connection broke during T2.2 (UPDATE) (whether the server went down is unknown): \
         connection lost (2013) [HY000]: Lost connection to server during query"
    );
    // Both statements are listed, as one problem.
    assert!(
        f.explanation.contains("- T2.2 (UPDATE): connection lost"),
        "{}",
        f.explanation
    );
    assert!(
        f.explanation.contains("- T1.3 (UPDATE): connection lost"),
        "{}",
        f.explanation
    );
    assert!(
        !f.explanation.contains("more explicit"),
        "{}",
        f.explanation
    );
    assert_eq!(f.evidence["lost_connections"].as_array().unwrap().len(), 2);
}

#[test]
fn a_server_that_restarted_is_a_crash() {
    let case = case();
    let h = broken_at_t2_2(&case, loss(Some(at(1, 1)), Some(4200), Some(true)));
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "server-crash");
    assert_eq!(
        f.title,
        "the server went down during T2.2 (UPDATE): it restarted and accepted connections after 4.2 s"
    );
    let sql = &h.record(at(1, 1)).unwrap().sql;
    assert!(f.explanation.contains(sql.as_str()), "{}", f.explanation);
    assert!(
        f.explanation
            .contains("server closed the connection unexpectedly"),
        "{}",
        f.explanation
    );
    assert!(
        f.explanation.contains("**Outcome:** it got no reply"),
        "{}",
        f.explanation
    );
    assert!(
        f.explanation.contains(&format!(
            "**What the host found:** {}.",
            h.server_lost.as_ref().unwrap()
        )),
        "{}",
        f.explanation
    );
    assert_eq!(f.evidence["server_lost"]["back_after_ms"], 4200);
    assert_eq!(f.evidence["server_lost"]["restarted"], true);
}

#[test]
fn a_server_that_never_came_back_is_a_crash() {
    let case = case();
    let h = broken_at_t2_2(&case, loss(Some(at(1, 1)), None, None));
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "server-crash");
    assert_eq!(
        f.title,
        "the server went down during T2.2 (UPDATE): it did not accept connections within 60.0 s"
    );
    // Outside the statements (setting up, reading the final state).
    let h = broken_at_t2_2(&case, loss(None, None, Some(false)));
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "server-crash");
    assert_eq!(
        f.title,
        "the server went down outside the case's statements: it did not accept connections within 60.0 s"
    );
    assert!(
        !f.explanation.contains("**Statement:**"),
        "{}",
        f.explanation
    );
}

#[test]
fn a_server_that_refused_connections_for_a_while_went_down() {
    let case = case();
    for (restarted, text) in [
        (Some(false), "its start time had not changed"),
        (None, "whether it restarted is unknown"),
    ] {
        let h = broken_at_t2_2(&case, loss(Some(at(1, 1)), Some(1500), restarted));
        let f = expect_finding(check(&mut oracle("{}"), &case, &h));
        assert_eq!(f.signature, "server-crash");
        assert_eq!(
            f.title,
            format!(
                "the server went down during T2.2 (UPDATE): it accepted connections again only after 1.5 s ({text})"
            )
        );
    }
}

#[test]
fn a_server_that_stayed_up_dropped_a_connection() {
    let case = case();
    let mut h = broken_at_t2_2(&case, loss(Some(at(1, 1)), Some(0), Some(false)));
    h.statements[1][1].outcome = error(
        ErrorClass::ConnectionLost,
        None,
        Some("57P01"),
        "terminating connection due to administrator command",
    );
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "connection-lost");
    assert_eq!(
        f.title,
        "the server dropped the connection during T2.2 (UPDATE) without restarting"
    );
    assert!(
        f.explanation
            .contains("- T2.2 (UPDATE): connection lost [57P01]: terminating connection"),
        "{}",
        f.explanation
    );
    // Where the host cannot read the start time.
    let h = broken_at_t2_2(&case, loss(Some(at(1, 1)), Some(0), None));
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(f.signature, "connection-lost");
    assert!(
        f.title.ends_with("(whether it restarted is unknown)"),
        "{}",
        f.title
    );
    assert!(f
        .explanation
        .contains("could not tell whether the server restarted"));
}

#[test]
fn the_most_severe_error_is_the_finding_and_the_others_are_counted() {
    let case = case();
    let outcomes = vec![
        // In completion order: T1.2, T2.2, T1.3, T2.3.
        (
            at(0, 1),
            error(ErrorClass::Syntax, Some(1064), Some("42000"), "syntax"),
        ),
        (at(1, 1), error(ErrorClass::Other, Some(4242), None, "odd")),
        (
            at(0, 2),
            error(ErrorClass::Internal, Some(1877), None, "corrupt"),
        ),
        (
            at(1, 2),
            error(ErrorClass::ConnectionLost, Some(2013), None, "lost"),
        ),
    ];
    let h = history(&case, outcomes.clone());
    let others = |f: &Finding| -> Vec<String> {
        f.evidence["others"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["signature"].as_str().unwrap().to_string())
            .collect()
    };
    let mut also = oracle(r#"{"also_findings": ["syntax"]}"#);
    let f = expect_finding(check(&mut also, &case, &h));
    assert_eq!(f.signature, "connection-lost");
    assert_eq!(
        others(&f),
        [
            "internal-error:1877",
            "unclassified-error:4242",
            "syntax:1064"
        ]
    );
    assert!(
        f.explanation
            .contains("### 3 more explicit errors in this case"),
        "{}",
        f.explanation
    );
    // Without also_findings, the syntax error is not counted.
    let f = expect_finding(check(&mut oracle("{}"), &case, &h));
    assert_eq!(
        others(&f),
        ["internal-error:1877", "unclassified-error:4242"]
    );
    // The lost connection gone: internal beats an unclassified error that came first.
    let h = history(&case, outcomes[..3].to_vec());
    let f = expect_finding(check(&mut also, &case, &h));
    assert_eq!(f.signature, "internal-error:1877");
    assert_eq!(others(&f), ["unclassified-error:4242", "syntax:1064"]);
    assert!(f
        .explanation
        .contains("### 2 more explicit errors in this case"));
    let h = history(&case, outcomes[..2].to_vec());
    let f = expect_finding(check(&mut also, &case, &h));
    assert_eq!(f.signature, "unclassified-error:4242");
    assert_eq!(others(&f), ["syntax:1064"]);
    assert!(f
        .explanation
        .contains("### 1 more explicit error in this case"));
    // A server crash beats everything; the statements that lost their
    // connection in it are part of it, not other errors.
    let mut h = history(&case, outcomes);
    h.server_lost = Some(loss(Some(at(1, 2)), Some(3000), Some(true)));
    let f = expect_finding(check(&mut also, &case, &h));
    assert_eq!(f.signature, "server-crash");
    assert_eq!(
        f.title,
        "the server went down during T2.3 (COMMIT): it restarted and accepted connections after 3.0 s"
    );
    assert_eq!(
        others(&f),
        [
            "internal-error:1877",
            "unclassified-error:4242",
            "syntax:1064"
        ]
    );
    assert!(f
        .explanation
        .contains("- T2.3 (COMMIT): connection lost (2013): lost"));
}

#[test]
fn also_findings_make_expected_classes_findings() {
    let case = case();
    let h = history(
        &case,
        vec![(
            at(0, 1),
            error(
                ErrorClass::Syntax,
                Some(1054),
                Some("42S22"),
                "Unknown column 'w'",
            ),
        )],
    );
    assert_eq!(check(&mut oracle("{}"), &case, &h), Verdict::Pass);
    let mut syntax = oracle(r#"{"also_findings": ["syntax"]}"#);
    let f = expect_finding(check(&mut syntax, &case, &h));
    assert_eq!(f.signature, "syntax:1054");
    assert_eq!(
        f.title,
        "T1.2 (SELECT) failed with syntax or semantic error (1054) [42S22]: Unknown column 'w' (also_findings)"
    );
    assert!(f
        .assumed_semantics
        .ends_with("this run also reports syntax or semantic error (also_findings)"));
    assert!(!f.assumed_semantics.contains("(deadlock, lock wait timeout, serialization failure, constraint violation, data error, statement timeout, transaction already aborted, syntax"));
    // Only the classes named.
    let timeout = history(
        &case,
        vec![(
            at(1, 1),
            error(
                ErrorClass::StatementTimeout,
                None,
                Some("57014"),
                "canceled",
            ),
        )],
    );
    assert_eq!(check(&mut syntax, &case, &timeout), Verdict::Pass);
    let mut both = oracle(r#"{"also_findings": ["syntax", "statement_timeout"]}"#);
    assert_eq!(
        expect_finding(check(&mut both, &case, &timeout)).signature,
        "statement_timeout:57014"
    );
    // Every expected class can be named.
    for (name, class) in txlab_oracle_errors::config::EXPECTED_CLASSES {
        let h = history(&case, vec![(at(1, 1), error(class, Some(1), None, "x"))]);
        let mut o = oracle(&format!(r#"{{"also_findings": ["{name}"]}}"#));
        assert_eq!(
            expect_finding(check(&mut o, &case, &h)).signature,
            format!("{name}:1")
        );
    }
}

#[test]
fn an_unobserved_run_is_judged_not_undecided() {
    let case = case();
    // A stall note, an unfinished transaction, no final state.
    let mut h = concurrent_history(&case, &[0, 1, 0, 1])
        .outcome(
            at(1, 1),
            error(ErrorClass::Deadlock, Some(1213), None, "deadlock"),
        )
        .unobserved("the case stalled")
        .build();
    assert!(!h.unobserved_reasons(&case).is_empty());
    assert_eq!(check(&mut oracle("{}"), &case, &h), Verdict::Pass);
    h.statements[1][1].outcome = error(ErrorClass::Internal, Some(1034), None, "broken");
    assert_eq!(
        expect_finding(check(&mut oracle("{}"), &case, &h)).signature,
        "internal-error:1034"
    );
}

#[test]
fn a_history_that_does_not_fit_its_case_is_an_error() {
    let case = case();
    let mut h = history(&case, vec![]);
    h.statements[1].pop();
    let e = oracle("{}")
        .check(&CheckInput { case, history: h }, &mut MemoryDb::new())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
}

fn handle(config: &str) -> Result<OracleHandle, String> {
    OracleHandle::from_plugin::<ErrorsOracle>(config, OracleContext { dialect: sqlite() })
        .map_err(|e| e.to_string())
}

#[test]
fn through_the_plugin_boundary() {
    let case = case();
    let mut handle = handle("{}").unwrap();
    let requirements = handle.requirements().unwrap();
    assert!(!requirements.scratch_db && !requirements.final_state);
    assert_eq!(requirements.modes, [ExecutorMode::Schedule]);
    assert_eq!(handle.prepare(&case).unwrap(), case);
    // The host's report of the lost server crosses as JSON.
    let history = broken_at_t2_2(&case, loss(Some(at(1, 1)), Some(4200), Some(true)));
    let mut db = MemoryDb::new();
    let verdict = handle
        .check(&CheckInput { case, history }, &mut db)
        .unwrap();
    assert_eq!(expect_finding(verdict).signature, "server-crash");
    assert_eq!(db.open_sessions(), 0);
}

fn refused(config: &str) -> String {
    match handle(config) {
        Ok(_) => panic!("{config} was accepted"),
        Err(e) => e,
    }
}

#[test]
fn configuration_errors_are_refused() {
    let e = refused(r#"{"also_findings": ["syntx"]}"#);
    assert!(e.contains("unknown error class \"syntx\""), "{e}");
    assert!(e.contains("\"statement_timeout\""), "{e}");
    let e = refused(r#"{"also_findings": ["internal"]}"#);
    assert!(e.contains("\"internal\" errors are always findings"), "{e}");
    let e = refused(r#"{"ignore": ["deadlock"]}"#);
    assert!(e.contains("unknown field `ignore`"), "{e}");
    assert!(handle(r#"{"also_findings": []}"#).is_ok());
}
