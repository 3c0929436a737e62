//! Statements sent together (`Session::execute_each`, the MySQL driver's
//! multi-statement request) give each statement what it gives sent alone,
//! failures included: a duplicate key, a subquery that fails after rows were
//! sent, a statement ending in a comment. Checked on the real MariaDB and
//! PostgreSQL and on the embedded SQLite, against the same statements run
//! one at a time on a fresh table.

mod common;

use common::servers::{reachable, url};
use std::sync::Arc;
use std::time::Duration;
use txlab_host::driver::{Driver, QueryResult, ServerKind, Session, Timeouts};
use txlab_host::target::{open_driver, ServerDatabases, TargetLocation};
use txlab_loader::PluginLibrary;
use txlab_plugin_api::ir::{RawDbError, Value};

const TIMEOUTS: Timeouts = Timeouts {
    statement: Duration::from_secs(10),
    lock_wait: Duration::from_secs(10),
};

const SETUP: &[&str] = &[
    "DROP TABLE IF EXISTS each_t",
    "CREATE TABLE each_t (k INT PRIMARY KEY, v INT)",
    "INSERT INTO each_t VALUES (1, 10), (2, 10), (3, 30)",
];

/// Rows, a failure, counts one after another, a failure after the first
/// row (on the servers: the subquery has one row for k = 1, two from k = 2),
/// and what follows them.
const STATEMENTS: &[&str] = &[
    "SELECT k, v FROM each_t ORDER BY k",
    "INSERT INTO each_t VALUES (1, 5)",
    "UPDATE each_t SET v = v + 1 WHERE k >= 2 -- ends in a comment",
    "INSERT INTO each_t VALUES (4, 40), (5, 50)",
    "DELETE FROM each_t WHERE k = 5",
    "SELECT x.k, (SELECT u.k FROM each_t u WHERE u.k <= x.k) FROM each_t x ORDER BY x.k",
    "SELECT COUNT(*) FROM each_t",
    "DELETE FROM each_t WHERE k = 3",
    "SELECT k, v FROM each_t ORDER BY k",
];

type Results = Vec<Result<QueryResult, RawDbError>>;

/// A result as compared: a failure by its code and message.
fn comparable(results: &Results) -> Vec<Result<QueryResult, (Option<i64>, String)>> {
    results
        .iter()
        .map(|r| r.clone().map_err(|e| (e.code, e.message)))
        .collect()
}

/// Puts the table back as it began; one session serves the whole test (an
/// embedded SQLite connection closes after its session is dropped).
async fn fresh_table(session: &mut dyn Session) {
    for sql in SETUP {
        session.execute(sql).await.expect("sets the table up");
    }
}

async fn one_at_a_time(session: &mut dyn Session) -> Results {
    fresh_table(session).await;
    let mut results = Vec::new();
    for sql in STATEMENTS {
        results.push(session.execute(sql).await);
    }
    results
}

async fn together(session: &mut dyn Session, go_on: bool) -> (Results, Vec<Vec<Value>>) {
    fresh_table(session).await;
    let statements: Vec<String> = STATEMENTS.iter().map(|s| s.to_string()).collect();
    let results = session.execute_each(&statements, &|_| go_on).await;
    let after = session
        .execute("SELECT k, v FROM each_t ORDER BY k")
        .await
        .expect("reads the table")
        .rows;
    (results, after)
}

/// Checks the statements on `driver`; returns what they gave alone.
async fn check(driver: &dyn Driver, what: &str) -> Results {
    let mut session = driver.connect().await.expect("connects");
    let session = session.as_mut();
    let alone = one_at_a_time(session).await;
    let (each, _) = together(session, true).await;
    assert_eq!(comparable(&each), comparable(&alone), "{what}");
    assert!(alone[1].is_err(), "{what}: the duplicate key fails");
    let affected: Vec<u64> = alone[2..5]
        .iter()
        .map(|r| r.as_ref().unwrap().affected)
        .collect();
    assert_eq!(affected, [2, 2, 1], "{what}");

    // Stopping at the first failure: the statements after it did not run.
    let (stopped, after) = together(session, false).await;
    assert_eq!(
        comparable(&stopped),
        comparable(&alone[..2].to_vec()),
        "{what}"
    );
    let v = |k: i64| {
        after
            .iter()
            .find(|r| r[0] == Value::Int(k))
            .map(|r| r[1].clone())
    };
    assert_eq!(
        v(2),
        Some(Value::Int(10)),
        "{what}: the UPDATE after the failure did not run"
    );
    alone
}

async fn server(kind: ServerKind, library: &str, entry: &str) {
    if !reachable(kind, entry).await {
        return;
    }
    let lib = PluginLibrary::load(&common::library(library)).expect("the dialect loads");
    let dialect = Arc::new(lib.new_dialect(entry, "").expect("the dialect builds"));
    let info = dialect.info().unwrap();
    let databases = Arc::new(ServerDatabases::new(kind, &url(kind)));
    let location = TargetLocation::Server(databases.clone());
    let driver = open_driver(&dialect, &info, &location, "each", TIMEOUTS)
        .await
        .expect("the database is created");
    let alone = check(driver.as_ref(), entry).await;
    // On the servers the subquery fails, and not before the first statement.
    assert!(alone[5].is_err(), "{entry}: {:?}", alone[5]);
    assert!(alone[6].is_ok(), "{entry}: {:?}", alone[6]);
    drop(driver);
    let problems = databases.drop_created().await;
    assert!(problems.is_empty(), "{problems:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_sent_together_on_mariadb_give_what_each_gives_alone() {
    server(ServerKind::Mysql, "txlab-dialect-mysql", "mariadb").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_sent_together_on_postgres_give_what_each_gives_alone() {
    server(ServerKind::Postgres, "txlab-dialect-postgres", "postgres").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_sent_together_on_sqlite_give_what_each_gives_alone() {
    let lib = PluginLibrary::load(&common::library("txlab-dialect-sqlite")).unwrap();
    let dialect = Arc::new(lib.new_dialect("sqlite", "").unwrap());
    let info = dialect.info().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let location = TargetLocation::SqliteDir(dir.path().to_path_buf());
    let driver = open_driver(&dialect, &info, &location, "each", TIMEOUTS)
        .await
        .unwrap();
    check(driver.as_ref(), "sqlite").await;
}
