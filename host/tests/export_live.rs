//! `txlab export` as a user runs it: what it refuses (one line, exit 2),
//! and, live, the exports run by the tools they are for: a MariaDB finding
//! as a mysql-test case under `mysql-test-run --extern` against the shared
//! server, whose output must equal the exported `.result`; a PostgreSQL
//! case as an isolation spec under `isolationtester`, in a database the test
//! creates and drops. A live test skips, saying why, when its server or tool
//! is missing, and fails instead under TXLAB_REQUIRE_LIVE=1 (CI, whose
//! .ci/run installs mariadb-test; isolationtester comes with
//! postgresql-client-15).

mod common;

use common::cli_env::*;
use common::servers::{reachable, url};
use mysql_async::prelude::Queryable;
use std::path::{Path, PathBuf};
use std::process::Command;
use txlab_host::driver::ServerKind;

const MYSQL_TEST_DIR: &str = "/usr/share/mysql/mysql-test";

fn fixture(name: &str) -> PathBuf {
    common::repo_root()
        .join("script/tests/data/export")
        .join(name)
}

/// A copy of an export fixture without provenance.json, as `txlab check`
/// leaves its directory.
fn check_dir(env: &Env, name: &str) -> PathBuf {
    let dir = env.work.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["case.json", "history.json"] {
        std::fs::copy(fixture(name).join(f), dir.join(f)).unwrap();
    }
    dir
}

/// Whether `tool` is there; when not, skips (false) or, under
/// TXLAB_REQUIRE_LIVE=1, fails.
fn have(tool: &Path, what: &str) -> bool {
    if tool.exists() {
        return true;
    }
    let why = format!("{what}: {} is not installed", tool.display());
    if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
        panic!("{why}");
    }
    eprintln!("skipped: {why}");
    false
}

#[test]
fn export_refuses_what_it_cannot_write_in_one_line() {
    let env = Env::new(&[]);
    let empty = env.work.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = env.txlab(&["export", empty.to_str().unwrap(), "--format", "sql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a finding directory: it has no case.json"),
        "{}",
        stderr(&o)
    );

    let pg = check_dir(&env, "postgres-troc");
    let pg = pg.to_str().unwrap();
    let o = env.txlab(&["export", pg, "--dialect", "postgres", "--format", "mtr"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: --format mtr does not fit dialect `postgres`: mysql-test runs MySQL-family servers (MySQL, MariaDB)\n"
    );
    let o = env.txlab(&["export", pg, "--format", "sql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give --dialect"), "{}", stderr(&o));
    let o = env.txlab(&[
        "export",
        pg,
        "--dialect",
        "postgres",
        "--format",
        "spec",
        "--database",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "error: --database is for --format mtr\n");
    let o = env.txlab(&["export", pg, "--dialect", "postgres", "--format", "nope"]);
    assert_eq!(o.status.code(), Some(2));

    // A finding whose pipeline is gone renders with the dialect's defaults,
    // and says so; the header carries its provenance.
    let moved = check_dir(&env, "mariadb-troc");
    std::fs::copy(
        fixture("mariadb-troc").join("finding.json"),
        moved.join("finding.json"),
    )
    .unwrap();
    let provenance = serde_json::json!({
        "kind": "finding", "oracle": "troc", "dialect": "mariadb", "generator": "import",
        "pipeline": "/nonexistent/pipeline.toml", "run_seed": 7, "case_index": 3,
        "case_seed": 0, "txlab_version": "0.2.0"
    });
    std::fs::write(moved.join("provenance.json"), provenance.to_string()).unwrap();
    let o = env.txlab(&["export", moved.to_str().unwrap(), "--format", "troc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("note: the pipeline could not be read"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("oracle troc, dialect mariadb, generator import; run seed 7, case 3"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("\n1-2-1-2-1-1-2-2\nEND\n"),
        "{}",
        stdout(&o)
    );

    // And what it writes: the spec on stdout, a case JSON with its history.
    let o = env.txlab(&["export", pg, "--dialect", "postgres", "--format", "spec"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\npermutation "), "{}", stdout(&o));
    let case = format!("{pg}/case.json");
    let out = env.work.path().join("case.sql");
    let o = env.txlab(&[
        "export",
        &case,
        "--dialect",
        "postgres",
        "--format",
        "sql",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = env.txlab(&["import", out.to_str().unwrap(), "--dialect", "postgres"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The one directory under `dir/kind/` whose name ends with `suffix`.
fn report_dir(dir: &Path, kind: &str, suffix: &str) -> PathBuf {
    std::fs::read_dir(dir.join(kind))
        .unwrap_or_else(|e| panic!("{}/{kind}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no {kind}/*{suffix} in {}", dir.display()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_mysql_test_runs_under_mysql_test_run_live() {
    let mtr = Path::new(MYSQL_TEST_DIR).join("mtr");
    if !have(&mtr, "export mtr (apt-get install mariadb-test)")
        || !reachable(ServerKind::Mysql, "export mtr").await
    {
        return;
    }
    let env = Env::new(&[]);
    let server = url(ServerKind::Mysql);
    let check = env.work.path().join("check");
    // MDEV-27992: T2's DELETE blocks behind T1's UPDATEs and resumes after
    // T1's COMMIT; its SELECT … FOR UPDATE then still finds the row (a Troc
    // finding on MariaDB 10.11).
    let o = env.txlab(&[
        "check",
        "corpus/troc-f6-mdev27992.sql",
        "--pipeline",
        "corpus/mariadb-troc.toml",
        "--url",
        &server,
        "--out",
        check.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let finding = report_dir(&check, "findings", "-troc");

    let database = format!("txlab_export_{}", std::process::id());
    let mut conn = mysql_async::Conn::from_url(server.as_str()).await.unwrap();
    let socket: String = conn
        .query_first("SELECT @@socket")
        .await
        .unwrap()
        .expect("the server has a socket");
    conn.query_drop(format!("CREATE DATABASE {database}"))
        .await
        .unwrap();
    let suite = env.work.path().join("suite");
    let test = suite.join("t/finding.test");
    std::fs::create_dir_all(test.parent().unwrap()).unwrap();
    let o = env.txlab(&[
        "export",
        finding.to_str().unwrap(),
        "--format",
        "mtr",
        "--database",
        &database,
        "--out",
        test.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&test).unwrap();
    assert!(text.contains("--send") && text.contains("--reap"), "{text}");

    let run = Command::new(&mtr)
        .current_dir(MYSQL_TEST_DIR)
        .args([
            &format!("--extern=socket={socket}"),
            "--nocheck-testcases",
            &format!("--vardir={}", env.work.path().join("var").display()),
            &format!("--suite={}", suite.display()),
            "finding",
        ])
        .output()
        .expect("mysql-test-run runs");
    conn.query_drop(format!("DROP DATABASE {database}"))
        .await
        .unwrap();
    let output = format!(
        "{}\n{}\n{text}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
        std::fs::read_to_string(suite.join("t/finding.result")).unwrap_or_default()
    );
    assert!(run.status.success(), "{output}");
    assert!(output.contains("[ pass ]"), "{output}");
}

/// libpq's connection string for `url` with another database.
fn conninfo(url: &str, database: &str) -> String {
    let u = url::Url::parse(url).unwrap();
    let mut parts = vec![
        format!("host={}", u.host_str().unwrap_or("127.0.0.1")),
        format!("port={}", u.port().unwrap_or(5432)),
        format!("dbname={database}"),
    ];
    if !u.username().is_empty() {
        parts.push(format!("user={}", u.username()));
    }
    if let Some(p) = u.password() {
        parts.push(format!("password={p}"));
    }
    parts.join(" ")
}

fn isolationtester() -> PathBuf {
    let found = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .map(|e| {
            e.unwrap()
                .path()
                .join("lib/pgxs/src/test/isolation/isolationtester")
        })
        .find(|p| p.exists());
    found.unwrap_or_else(|| {
        PathBuf::from("/usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester")
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_spec_runs_under_the_isolation_tester_live() {
    let tester = isolationtester();
    if !have(&tester, "export spec (postgresql-client)")
        || !reachable(ServerKind::Postgres, "export spec").await
    {
        return;
    }
    let env = Env::new(&[]);
    let server = url(ServerKind::Postgres);
    let check = env.work.path().join("check");
    // T2's INSERT waits for T1's uncommitted DELETE of the same key.
    let o = env.txlab(&[
        "check",
        "corpus/troc-f10-insert-waits-for-delete.sql",
        "--pipeline",
        "corpus/postgres-troc.toml",
        "--url",
        &server,
        "--out",
        check.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let spec = env.work.path().join("finding.spec");
    let o = env.txlab(&[
        "export",
        check.to_str().unwrap(),
        "--dialect",
        "postgres",
        "--format",
        "spec",
        "--out",
        spec.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&spec).unwrap();
    assert!(text.contains("(s1"), "a resumed step is marked: {text}");

    let database = format!("txlab_export_{}", std::process::id());
    let (client, connection) = tokio_postgres::connect(&server, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .simple_query(&format!("CREATE DATABASE {database}"))
        .await
        .unwrap();
    let run = Command::new(&tester)
        .arg(conninfo(&server, &database))
        .stdin(std::fs::File::open(&spec).unwrap())
        .output()
        .expect("isolationtester runs");
    client
        .simple_query(&format!("DROP DATABASE {database}"))
        .await
        .unwrap();
    let output = format!(
        "{}\n{}\n{text}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "{output}");
    assert!(output.contains("starting permutation:"), "{output}");
    assert!(
        output.contains("<waiting ...>"),
        "the INSERT waits: {output}"
    );
    assert!(
        output.contains("<... completed>"),
        "and completes: {output}"
    );
    assert!(!output.contains("ERROR"), "{output}");
}
