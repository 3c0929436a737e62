//! `txlab export`'s writers on findings from every shipped oracle: snapshots
//! of each format, the round trips (`spec` and `sql` read back by `txlab
//! import` as the same case, run in the order it ran), and the refusals.
//!
//! The fixtures in tests/data/export/ are finding and anomaly directories'
//! `case.json` and `history.json` as `txlab check` wrote them for corpus
//! scripts on MariaDB 10.11 and PostgreSQL 15 (each README.md says which);
//! the `errors` finding is the troc one with a lost connection put into its
//! history by hand.

use std::path::PathBuf;
use txlab_plugin_api::prelude::*;
use txlab_script::export::{
    export, order::execution_order, ExportError, ExportFormat, ExportInput, ExportOptions, Origin,
};
use txlab_script::{import, Family, ImportOptions};

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/export")
        .join(path)
}

fn json(path: PathBuf) -> serde_json::Value {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// One fixture: its case, history and the finding's title.
struct Fixture {
    name: &'static str,
    dialect: &'static str,
    case: TestCase,
    history: History,
    lead: String,
}

fn fixture(name: &'static str, dialect: &'static str) -> Fixture {
    let lead = if data(&format!("{name}/finding.json")).exists() {
        let finding = json(data(&format!("{name}/finding.json")));
        format!("txlab finding: {}", finding["title"].as_str().unwrap())
    } else {
        format!("txlab case {name}")
    };
    Fixture {
        name,
        dialect,
        case: serde_json::from_value(json(data(&format!("{name}/case.json")))).unwrap(),
        history: serde_json::from_value(json(data(&format!("{name}/history.json")))).unwrap(),
        lead,
    }
}

/// The `errors` oracle's finding: the troc fixture's case, whose blocked
/// UPDATE lost its connection (the server went away).
fn errors_fixture() -> Fixture {
    let mut f = fixture("mariadb-troc", "mariadb");
    f.name = "mariadb-errors";
    let at = f
        .case
        .submitted_order
        .iter()
        .copied()
        .find(|&at| f.history.record(at).is_some_and(|r| r.blocked.is_some()))
        .expect("the troc fixture has a blocked statement");
    let record = &mut f.history.statements[at.txn()][at.stmt()];
    record.outcome = Outcome::Error(DbError {
        class: ErrorClass::ConnectionLost,
        scope: ErrorScope::Connection,
        code: None,
        sqlstate: None,
        message: "Lost connection to server during query".into(),
    });
    f.lead = format!("txlab finding: errors: {at} lost its connection (the server went away)");
    f
}

fn mysql_fixtures() -> Vec<Fixture> {
    vec![
        fixture("mariadb-troc", "mariadb"),
        fixture("mariadb-wss", "mariadb"),
        fixture("mariadb-isorel", "mariadb"),
        fixture("mariadb-txcheck", "mariadb"),
        errors_fixture(),
    ]
}

fn postgres_fixtures() -> Vec<Fixture> {
    vec![
        fixture("postgres-troc", "postgres"),
        fixture("postgres-wss", "postgres"),
        fixture("postgres-isorel", "postgres"),
        fixture("postgres-txcheck", "postgres"),
    ]
}

const LIMITS: SessionLimits = SessionLimits {
    statement_timeout_ms: 5000,
    lock_wait_timeout_ms: 8000,
};

fn render(dialect: &str, case: &TestCase) -> RenderedCase {
    match dialect {
        "mariadb" => {
            <txlab_mysql::MariadbDialect as DialectPlugin>::new(serde_json::from_str("{}").unwrap())
                .unwrap()
                .render_case(case, &LIMITS)
        }
        "postgres" => <txlab_postgres::PostgresDialect as DialectPlugin>::new(
            serde_json::from_str("{}").unwrap(),
        )
        .unwrap()
        .render_case(case, &LIMITS),
        _ => txlab_sqlite::SqliteDialect.render_case(case, &LIMITS),
    }
    .unwrap()
}

fn family(dialect: &str) -> Family {
    Family::of_dialect(dialect).unwrap()
}

fn export_of(f: &Fixture, format: ExportFormat) -> Result<Vec<String>, ExportError> {
    let rendered = render(f.dialect, &f.case);
    let input = ExportInput {
        case: &f.case,
        history: &f.history,
        rendered: &rendered,
        family: family(f.dialect),
        dialect: f.dialect,
        lead: &f.lead,
        origin: Some(Origin {
            oracle: f.name.split('-').nth(1).unwrap(),
            generator: &f.case.generator,
            request: CaseRequest {
                run_seed: 7,
                index: 3,
                seed: f.case.seed,
            },
        }),
    };
    let files = export(format, &input, &ExportOptions::default())?;
    Ok(files.into_iter().map(|f| f.text).collect())
}

#[test]
fn every_format_of_every_oracles_finding_matches_its_snapshot() {
    for f in mysql_fixtures() {
        for format in [ExportFormat::Mtr, ExportFormat::Troc, ExportFormat::Sql] {
            let texts =
                export_of(&f, format).unwrap_or_else(|e| panic!("{} as {format}: {e}", f.name));
            insta::assert_snapshot!(format!("{}.{format}", f.name), texts[0]);
            if format == ExportFormat::Mtr {
                insta::assert_snapshot!(format!("{}.mtr-result", f.name), texts[1]);
            }
        }
    }
    for f in postgres_fixtures() {
        for format in [ExportFormat::Spec, ExportFormat::Sql] {
            let texts =
                export_of(&f, format).unwrap_or_else(|e| panic!("{} as {format}: {e}", f.name));
            insta::assert_snapshot!(format!("{}.{format}", f.name), texts[0]);
        }
    }
}

/// What SQL cannot tell apart, as tests/round_trip.rs normalises it.
fn normalise(mut case: TestCase) -> TestCase {
    for t in &mut case.schema.tables {
        let pk = t.primary_key.clone();
        for c in &mut t.columns {
            c.not_null |= pk.contains(&c.name);
        }
    }
    case.initial_rows.retain(|r| !r.rows.is_empty());
    case
}

/// The case as an export runs it: in the order it ran.
fn as_run(case: &TestCase, history: &History) -> TestCase {
    let mut case = case.clone();
    case.submitted_order = execution_order(&case, history);
    case
}

fn read_back(f: &Fixture, format: ExportFormat) -> TestCase {
    let text = export_of(f, format).unwrap().remove(0);
    let file = format!("{}.{}", f.name, format.extension());
    let options = ImportOptions {
        family: family(f.dialect),
        ..ImportOptions::default()
    };
    import(&file, &text, &options)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .case
}

#[test]
fn spec_and_sql_exports_read_back_as_the_case_in_the_order_it_ran() {
    for f in postgres_fixtures() {
        let want = normalise(as_run(&f.case, &f.history));
        assert_eq!(
            normalise(read_back(&f, ExportFormat::Spec)),
            want,
            "{} spec",
            f.name
        );
        assert_eq!(
            normalise(read_back(&f, ExportFormat::Sql)),
            want,
            "{} sql",
            f.name
        );
    }
    for f in mysql_fixtures() {
        let want = normalise(as_run(&f.case, &f.history));
        assert_eq!(
            normalise(read_back(&f, ExportFormat::Sql)),
            want,
            "{} sql",
            f.name
        );
    }
}

#[test]
fn the_pace_and_begins_that_did_not_run_first_survive_the_spec() {
    // The fixture with its sessions' BEGINs put after another statement: BEGIN
    // becomes a step of its own; and a pace, which the spec's header carries.
    let mut f = fixture("postgres-troc", "postgres");
    f.case.pace_ms = Some(200);
    let order = &mut f.case.submitted_order;
    let second_begin = order
        .iter()
        .position(|at| at.txn() == 1 && at.stmt() == 0)
        .unwrap();
    let first_other = order
        .iter()
        .position(|at| at.txn() == 0 && at.stmt() == 1)
        .unwrap();
    if second_begin < first_other {
        let b = order.remove(second_begin);
        order.insert(first_other, b);
    }
    // Times for the new order, so that it is the order the statements ran in.
    for (i, at) in f.case.submitted_order.clone().into_iter().enumerate() {
        f.history.statements[at.txn()][at.stmt()].submitted_us = Some(i as u64);
        f.history.statements[at.txn()][at.stmt()].blocked = None;
    }
    let text = export_of(&f, ExportFormat::Spec).unwrap().remove(0);
    assert!(text.contains("step s2a { BEGIN"), "{text}");
    assert!(text.contains("# pace: 200 ms"), "{text}");
    let back = read_back(&f, ExportFormat::Spec);
    assert_eq!(normalise(back), normalise(f.case.clone()));
}

#[test]
fn formats_that_do_not_fit_the_dialect_or_the_case_are_refused() {
    let pg = fixture("postgres-troc", "postgres");
    let e = export_of(&pg, ExportFormat::Mtr).unwrap_err();
    assert!(matches!(e, ExportError::WrongDialect { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "--format mtr does not fit dialect `postgres`: mysql-test runs MySQL-family servers (MySQL, MariaDB)"
    );
    assert!(matches!(
        export_of(&pg, ExportFormat::Troc),
        Err(ExportError::WrongDialect { .. })
    ));
    let my = fixture("mariadb-troc", "mariadb");
    let e = export_of(&my, ExportFormat::Spec).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("--format spec does not fit dialect `mariadb`"),
        "{e}"
    );

    // Troc tests a pair of transactions: a third one is refused with the reason.
    let mut three = fixture("mariadb-troc", "mariadb");
    let extra = Transaction {
        isolation: IsolationLevel::ReadCommitted,
        kind: TxnKind::Autocommit,
        statements: vec![three.case.transactions[0].statements[1].clone()],
    };
    three.case.transactions.push(extra);
    three.case.submitted_order.push(StatementRef::new(2, 0));
    three
        .history
        .transactions
        .push(three.history.transactions[0].clone());
    let mut record = three.history.statements[0][1].clone();
    record.at = StatementRef::new(2, 0);
    three.history.statements.push(vec![record]);
    let e = export_of(&three, ExportFormat::Troc).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--format troc: the case has 3 transactions; Troc tests a pair"
    );
    // A history of another case.
    let mut other = fixture("mariadb-troc", "mariadb");
    other.history.statements[0].pop();
    let e = export_of(&other, ExportFormat::Sql).unwrap_err();
    assert!(matches!(e, ExportError::Mismatch(_)), "{e}");
}
