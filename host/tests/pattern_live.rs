//! The pattern generator end to end through the `txlab` binary, on embedded
//! SQLite and on the real MariaDB and PostgreSQL: about 2,000 generated
//! statements per DBMS, every statement's outcome read from the histories,
//! and at most 1% of them may fail with an error the generator caused (a
//! syntax, type or unknown-column error, or an error nobody classified).
//! Deadlocks, lock-wait timeouts, serialization failures and constraint
//! violations are what the patterns set up; they are counted and printed by
//! class. Then the shipped `configs/pattern-*.toml` (IsoRel, WSS and errors) run a few
//! cases on the same DBMS.
//!
//! The histories come from the fixture oracle `accuse`, which reports every
//! case as a finding, so that each case's directory holds its `history.json`.

mod common;

use common::generated::{run, tally};
use common::servers::{reachable, url};
use txlab_host::driver::ServerKind;

/// Cases per DBMS: about 2,000 statements (a case has 6 to 8 statements of
/// its pattern and BEGINs, and 0 to 2 filler statements per transaction).
const CASES: u64 = 220;
/// Fewer statements than this would not be the test asked for.
const MIN_STATEMENTS: usize = 1_500;

fn plugins() -> tempfile::TempDir {
    common::plugin_dir(&[
        "txlab-dialect-sqlite",
        "txlab-dialect-mysql",
        "txlab-dialect-postgres",
        "txlab-generator-pattern",
        "txlab-oracle-isorel",
        "txlab-oracle-wss",
        "txlab-oracle-errors",
        "txlab-fixture-panicky",
    ])
}

/// About 2,000 generated statements of every pattern at every level the
/// dialect offers, then the shipped pipeline for a few cases.
fn check_dialect(dialect: &str, target: &str, url: Option<&str>, shipped: &str) {
    let plugins = plugins();
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("pattern-accuse.toml");
    std::fs::write(
        &config,
        format!(
            "[run]\nworkers = 1\n\n[target]\ndialect = \"{dialect}\"\n{target}\n\
             [executor]\nstatement_timeout = \"5s\"\nlock_wait_timeout = \"8s\"\n\n\
             [generator]\nplugin = \"pattern\"\n[generator.config]\npatterns = [\"all\"]\n\n\
             [[oracle]]\nplugin = \"accuse\"\n"
        ),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (run_dir, summary) = run(
        &config,
        CASES,
        url,
        plugins.path(),
        &work.path().join("out"),
    );
    let t = tally(&run_dir);
    let rate = t.generator_caused.len() as f64 / t.statements.max(1) as f64;
    eprintln!(
        "{dialect}: {} cases, {} statements in {:.1}s; errors by class {:?}; caused by the generator {} ({:.2}%); aborted transactions {}; {} patterns",
        t.cases,
        t.statements,
        started.elapsed().as_secs_f64(),
        t.by_class,
        t.generator_caused.len(),
        100.0 * rate,
        summary["exercised"]["aborted"],
        t.patterns.len(),
    );
    assert_eq!(t.cases as u64, CASES, "{summary}");
    assert!(
        t.statements >= MIN_STATEMENTS,
        "{} statements",
        t.statements
    );
    assert!(
        rate <= 0.01,
        "{dialect}: {} of {} statements failed by the generator's fault:\n{}",
        t.generator_caused.len(),
        t.statements,
        t.generator_caused.join("\n")
    );
    // Patterns with the same operations count once: 45 distinct.
    assert!(t.patterns.len() >= 40, "{:?}", t.patterns);

    // The shipped pipeline: IsoRel, WSS and errors judge a few cases.
    let (_, summary) = run(
        &common::repo_root().join(shipped),
        40,
        url,
        plugins.path(),
        &work.path().join("shipped"),
    );
    let undecided_isorel: u64 = summary["undecided_reasons"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with("isorel"))
        .map(|(_, n)| n.as_u64().unwrap())
        .sum();
    assert_eq!(undecided_isorel, 0, "{shipped}: {summary}");
    // The patterns' expected errors (deadlocks, serialization failures, …)
    // are no finding of the errors oracle; nothing crashed.
    let explicit: Vec<&String> = summary["finding_kinds"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("errors:"))
        .collect();
    assert!(explicit.is_empty(), "{shipped}: {summary}");
    eprintln!(
        "{shipped}: 40 cases, anomalies {}, findings {}, undecided {}",
        summary["anomaly_kinds"], summary["finding_kinds"], summary["undecided_reasons"]
    );
}

#[test]
fn pattern_cases_run_on_sqlite() {
    check_dialect("sqlite", "", None, "configs/pattern-sqlite.toml");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pattern_cases_run_on_mariadb() {
    let kind = ServerKind::Mysql;
    if !reachable(kind, "pattern cases on MariaDB").await {
        return;
    }
    let url = url(kind);
    tokio::task::spawn_blocking(move || {
        check_dialect(
            "mariadb",
            "[target.config]\nsnapshot_isolation = false\n",
            Some(&url),
            "configs/pattern-mariadb.toml",
        )
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pattern_cases_run_on_postgres() {
    let kind = ServerKind::Postgres;
    if !reachable(kind, "pattern cases on PostgreSQL").await {
        return;
    }
    let url = url(kind);
    tokio::task::spawn_blocking(move || {
        check_dialect(
            "postgres",
            "[target.config]\ndeadlock_timeout_ms = 100\n",
            Some(&url),
            "configs/pattern-postgres.toml",
        )
    })
    .await
    .unwrap();
}
