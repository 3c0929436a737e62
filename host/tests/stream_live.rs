//! Stream runs end to end through the `txlab` binary: the shipped
//! `configs/stream-*.toml` for a few seconds on embedded SQLite, MariaDB,
//! PostgreSQL and PostgreSQL 18, and the register workload on SQLite and
//! MariaDB: the sessions ran concurrently, transactions
//! committed (and on the servers some aborted), every window was checked, no
//! transaction was left over, and no finding the vendor's semantics forbid.

mod common;

use common::cli_env::{run_dir, stderr, stdout, summary};
use common::servers::{pg18_url, reachable_at, url};
use std::process::Command;
use txlab_host::driver::ServerKind;

fn plugins() -> tempfile::TempDir {
    common::plugin_dir(&[
        "txlab-dialect-sqlite",
        "txlab-dialect-mysql",
        "txlab-dialect-postgres",
        "txlab-generator-elle",
    ])
}

/// Runs `config` for `seconds` (on `url`) and checks what every stream must
/// show; returns the summary.
fn stream(config: &str, seconds: u64, url: Option<&str>) -> serde_json::Value {
    let plugins = plugins();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_txlab"));
    command
        .args(["run", config, "--seed", "5", "--duration"])
        .arg(format!("{seconds}s"))
        .args(["--progress-every", "1s", "--out"])
        .arg(&out)
        .env("TXLAB_PLUGIN_PATH", plugins.path())
        .env_remove("RUST_LOG")
        .current_dir(common::repo_root());
    if let Some(url) = url {
        command.args(["--url", url]);
    }
    let o = command.output().unwrap();
    let text = format!("{}{}", stdout(&o), stderr(&o));
    let dir = run_dir(&out);
    let s = summary(&dir);
    eprintln!("{config}: {}\n{text}", s["stream"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{config}: findings {} ({})\n{text}",
        s["finding_kinds"],
        s["finding_dirs"]
    );
    // summary.json is what docs/summary.schema.json says.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::repo_root().join("docs/summary.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&s).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{s}");
    let t = &s["stream"];
    assert_eq!(t["sessions"], 8, "{s}");
    assert!(t["transactions"].as_u64().unwrap() >= 100, "{s}");
    assert!(t["committed"].as_u64().unwrap() >= 50, "{s}");
    assert!(t["windows"].as_u64().unwrap() >= 1, "{s}");
    assert_eq!(t["late_transactions"], 0, "{s}");
    assert!(t.get("session_errors").is_none(), "{s}");
    assert_eq!(s["errors"], 0, "{s}");
    assert_eq!(s["findings"], 0, "{s}");
    // A window line per check, with the memory.
    assert!(
        text.contains("window 1: ") && text.contains("RSS "),
        "{text}"
    );
    // Every anomaly written has its report, the window's history in Elle's
    // format and its cycle; the report says it was not run again.
    for d in s["anomaly_dirs"].as_array().unwrap() {
        let d = dir.join(d.as_str().unwrap());
        for f in ["report.md", "history.edn", "finding.json"] {
            assert!(d.join(f).is_file(), "{} has no {f}", d.display());
        }
        let report = std::fs::read_to_string(d.join("report.md")).unwrap();
        assert!(
            report.contains("Not confirmed by running again"),
            "{report}"
        );
    }
    s
}

#[test]
fn a_stream_runs_on_sqlite() {
    let s = stream("configs/stream-sqlite.toml", 4, None);
    // SQLite serialises writers: a stale snapshot aborts, nothing else shows.
    assert_eq!(s["anomalies"], 0, "{s}");
}

#[test]
fn a_register_stream_runs_on_sqlite() {
    let s = stream("configs/stream-register-sqlite.toml", 3, None);
    assert_eq!(s["anomalies"], 0, "{s}");
}

/// [`stream`] on the server at `url`; `None` when it is unreachable and the
/// run does not require it.
async fn stream_on(
    kind: ServerKind,
    url: String,
    config: &'static str,
    seconds: u64,
) -> Option<serde_json::Value> {
    if !reachable_at(kind, &url, &format!("a stream of {config}")).await {
        return None;
    }
    let s = tokio::task::spawn_blocking(move || stream(config, seconds, Some(&url)))
        .await
        .unwrap();
    Some(s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_register_stream_runs_on_mariadb() {
    let kind = ServerKind::Mysql;
    stream_on(kind, url(kind), "configs/stream-register-mariadb.toml", 4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_runs_on_mariadb() {
    let kind = ServerKind::Mysql;
    let Some(s) = stream_on(kind, url(kind), "configs/stream-mariadb.toml", 5).await else {
        return;
    };
    // Hot keys and eight sessions: InnoDB's deadlock detection acts.
    assert!(s["stream"]["aborted"].as_u64().unwrap() > 0, "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_runs_on_postgres() {
    let kind = ServerKind::Postgres;
    let Some(s) = stream_on(kind, url(kind), "configs/stream-postgres.toml", 5).await else {
        return;
    };
    // First-updater-wins and SSI abort some transactions.
    assert!(s["stream"]["aborted"].as_u64().unwrap() > 0, "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_runs_on_postgres_18() {
    stream_on(
        ServerKind::Postgres,
        pg18_url(),
        "configs/stream-postgres.toml",
        5,
    )
    .await;
}
