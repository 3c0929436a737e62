//! The shipped pipelines of the newer servers run as a user runs them:
//! MySQL 9 (`configs/mysql-9.toml`), MariaDB 11.8 with its own snapshot
//! isolation and with it OFF, PostgreSQL 17, the Galera cluster (a schedule
//! run and a stream), each for a few cases, on the server the pipeline
//! names (or the URL variable of `servers/servers.sh env`). Each must reach
//! the server version it is for and end without a tool error. An
//! unreachable server skips its run, or fails it with `TXLAB_REQUIRE_LIVE=1`.

mod common;

use common::cli_env::*;
use common::servers;
use txlab_host::driver::ServerKind;

/// Runs `config` against `urls` (comma-separated for a cluster) with
/// `args`, and returns the summary; `None` when a server is unreachable.
async fn run(config: &str, urls: &str, args: &[&str]) -> Option<serde_json::Value> {
    for url in urls.split(',') {
        let kind = if url.starts_with("mysql:") {
            ServerKind::Mysql
        } else {
            ServerKind::Postgres
        };
        if !servers::reachable_at(kind, url, config).await {
            return None;
        }
    }
    let env = Env::new(&[]);
    let out = env.out();
    let mut all = vec![
        "run",
        config,
        "--url",
        urls,
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "7",
        "-q",
    ];
    all.extend_from_slice(args);
    let o = env.txlab(&all);
    // 0: nothing found; 1: findings, which a short run on a real server may
    // give (the campaigns triage them); never a set-up or tool error.
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{config}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    let summary = summary(&run_dir(&out));
    assert_eq!(summary["errors"], 0, "{config}: {summary}");
    Some(summary)
}

fn version(summary: &serde_json::Value) -> String {
    summary["server_version"].as_str().unwrap_or("").to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn mysql_9_runs_its_pipeline() {
    let url = servers::mysql9_url();
    let Some(s) = run("configs/mysql-9.toml", &url, &["--cases", "40"]).await else {
        return;
    };
    assert!(version(&s).starts_with('9'), "{s}");
    assert_eq!(s["dialect"], "mysql");
    assert_eq!(s["cases"], 40);
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_11_runs_its_pipelines_with_and_without_snapshot_isolation() {
    let url = servers::mariadb11_url();
    for config in ["configs/mariadb-11.toml", "configs/mariadb-11-si-off.toml"] {
        let Some(s) = run(config, &url, &["--cases", "40"]).await else {
            return;
        };
        assert!(version(&s).starts_with("11."), "{s}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_17_runs_its_pipeline() {
    let url = servers::pg17_url();
    let Some(s) = run("configs/postgres-17.toml", &url, &["--cases", "40"]).await else {
        return;
    };
    assert!(version(&s).starts_with("17."), "{s}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_galera_cluster_runs_a_schedule_pipeline_and_a_stream() {
    let urls = servers::galera_urls().join(",");
    let Some(s) = run("configs/galera.toml", &urls, &["--cases", "40"]).await else {
        return;
    };
    assert_eq!(s["dialect"], "galera");
    // The cluster's certification fails the later of two writers of a row
    // on different nodes: serialization failures, never a lock wait.
    let exercised = &s["exercised"];
    assert_eq!(exercised["blocked_statements"], 0, "{s}");
    let Some(s) = run("configs/stream-galera.toml", &urls, &["--duration", "5s"]).await else {
        return;
    };
    assert!(
        s["exercised"]["transactions"].as_u64().unwrap() > 100,
        "{s}"
    );
}
