//! The random generator's IR 1.1 query forms (subqueries, joins, aggregates,
//! INSERT … SELECT) end to end through the `txlab` binary, on embedded SQLite
//! and on the real MariaDB and PostgreSQL: about 2,000 generated statements
//! per DBMS, every statement's outcome read from the histories, and at most
//! 1% of them may fail with an error the generator caused (a syntax, type or
//! unknown-column error, or one nobody classified). The histories come from
//! the fixture oracle `accuse`, which writes every case as a finding.

mod common;

use common::generated::{run, tally};
use common::servers::{reachable, url};
use txlab_host::driver::ServerKind;
use txlab_plugin_api::ir::TestCase;

/// Cases per DBMS: about 2,000 statements (2 to 4 transactions of 2 to 8
/// statements, with their BEGIN and COMMIT).
const CASES: u64 = 200;
const MIN_STATEMENTS: usize = 1_500;

fn check_dialect(dialect: &str, target: &str, url: Option<&str>) {
    let plugins = common::plugin_dir(&[
        "txlab-dialect-sqlite",
        "txlab-dialect-mysql",
        "txlab-dialect-postgres",
        "txlab-generator-random",
        "txlab-fixture-panicky",
    ]);
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("query-forms.toml");
    std::fs::write(
        &config,
        format!(
            "[run]\nworkers = 1\n\n[target]\ndialect = \"{dialect}\"\n{target}\n\
             [executor]\nstatement_timeout = \"5s\"\nlock_wait_timeout = \"8s\"\n\n\
             [generator]\nplugin = \"random\"\n[generator.config]\n\
             transactions = [2, 4]\nstatements = [2, 8]\nsubquery_probability = 0.3\n\
             [generator.config.weights]\nquery = 2\ninsert_select = 1\n\n\
             [[oracle]]\nplugin = \"accuse\"\n"
        ),
    )
    .unwrap();
    let (run_dir, summary) = run(
        &config,
        CASES,
        url,
        plugins.path(),
        &work.path().join("out"),
    );
    let t = tally(&run_dir);
    // The forms came up: count the statements that use one.
    let mut forms = 0;
    for entry in std::fs::read_dir(run_dir.join("findings")).unwrap() {
        let dir = entry.unwrap().path();
        let case: TestCase =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        forms += case
            .transactions
            .iter()
            .flat_map(|t| &t.statements)
            .filter(|s| s.query_form().is_some())
            .count();
    }
    let rate = t.generator_caused.len() as f64 / t.statements.max(1) as f64;
    eprintln!(
        "{dialect}: {} cases, {} statements ({forms} in a query form); errors by class {:?}; caused by the generator {} ({:.2}%)",
        t.cases,
        t.statements,
        t.by_class,
        t.generator_caused.len(),
        100.0 * rate,
    );
    assert_eq!(t.cases as u64, CASES, "{summary}");
    assert!(
        t.statements >= MIN_STATEMENTS,
        "{} statements",
        t.statements
    );
    assert!(forms >= 200, "only {forms} statements in a query form");
    assert!(
        rate <= 0.01,
        "{dialect}: {} of {} statements failed by the generator's fault:\n{}",
        t.generator_caused.len(),
        t.statements,
        t.generator_caused.join("\n")
    );
}

#[test]
fn query_forms_run_on_sqlite() {
    check_dialect("sqlite", "", None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_forms_run_on_mariadb() {
    let kind = ServerKind::Mysql;
    if !reachable(kind, "query forms on MariaDB").await {
        return;
    }
    let url = url(kind);
    tokio::task::spawn_blocking(move || {
        check_dialect(
            "mariadb",
            "[target.config]\nsnapshot_isolation = false\n",
            Some(&url),
        )
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_forms_run_on_postgres() {
    let kind = ServerKind::Postgres;
    if !reachable(kind, "query forms on PostgreSQL").await {
        return;
    }
    let url = url(kind);
    tokio::task::spawn_blocking(move || {
        check_dialect(
            "postgres",
            "[target.config]\ndeadlock_timeout_ms = 100\n",
            Some(&url),
        )
    })
    .await
    .unwrap();
}
