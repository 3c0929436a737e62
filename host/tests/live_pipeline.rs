//! The shipped server pipelines, end to end through the `txlab` binary, on the
//! real MariaDB and PostgreSQL: a short run finishes without a tool error and
//! leaves no database of its own behind; a finding is reduced on the server.

mod common;

use common::servers::{pg18_url, reachable, reachable_at, url};

use mysql_async::prelude::Queryable;
use std::path::Path;
use std::process::Command;
use txlab_host::driver::ServerKind;

/// The databases among `names` that still exist, or None if the server is
/// unreachable.
async fn existing(kind: ServerKind, url: &str, names: &[String]) -> Result<Vec<String>, String> {
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_async::Conn::from_url(url)
                .await
                .map_err(|e| e.to_string())?;
            let all: Vec<String> = conn
                .query("SHOW DATABASES")
                .await
                .map_err(|e| e.to_string())?;
            Ok(names.iter().filter(|n| all.contains(n)).cloned().collect())
        }
        ServerKind::Postgres => {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .map_err(|e| e.to_string())?;
            tokio::spawn(connection);
            let rows = client
                .query("SELECT datname FROM pg_database", &[])
                .await
                .map_err(|e| e.to_string())?;
            let all: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
            Ok(names.iter().filter(|n| all.contains(n)).cloned().collect())
        }
    }
}

/// Runs `txlab run CONFIG --cases CASES` on the server; checks that it ran
/// every case without a tool error and removed its databases, and returns
/// the run directory (inside `out`). None when the server is unreachable and
/// the test may skip.
async fn run_pipeline(
    kind: ServerKind,
    config: &str,
    cases: u64,
    out: &Path,
) -> Option<std::path::PathBuf> {
    run_pipeline_at(kind, &url(kind), config, cases, out).await
}

/// [`run_pipeline`] on the server at `url`.
async fn run_pipeline_at(
    kind: ServerKind,
    url: &str,
    config: &str,
    cases: u64,
    out: &Path,
) -> Option<std::path::PathBuf> {
    if !reachable_at(kind, url, config).await {
        return None;
    }
    let url = url.to_string();
    let plugins = common::plugin_dir(&[
        "txlab-dialect-mysql",
        "txlab-dialect-postgres",
        "txlab-generator-random",
        "txlab-oracle-wss",
        "txlab-oracle-troc",
        "txlab-oracle-isorel",
        "txlab-oracle-txcheck",
        "txlab-oracle-errors",
        "txlab-fixture-panicky",
    ]);
    let o = Command::new(env!("CARGO_BIN_EXE_txlab"))
        .args(["run", config, "--cases", &cases.to_string(), "--url", &url])
        .arg("--out")
        .arg(out)
        .env("TXLAB_PLUGIN_PATH", plugins.path())
        .current_dir(common::repo_root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    // 0: nothing found, 1: a finding (a real bug is possible); 2 and 3 are tool errors.
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{config}: exit {:?}\n{stdout}\n{stderr}",
        o.status.code()
    );
    // A URL with a password never appears whole in what txlab prints.
    let has_password = url::Url::parse(&url).is_ok_and(|u| u.password().is_some());
    if has_password {
        assert!(
            !stdout.contains(&url) && !stderr.contains(&url),
            "{stdout}\n{stderr}"
        );
    }
    let run_dir = std::fs::read_dir(out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cases"], cases, "{summary}");
    assert_eq!(summary["errors"], 0, "{summary}");
    let databases: Vec<String> = summary["databases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_string())
        .collect();
    assert!(!databases.is_empty(), "{summary}");
    assert!(
        databases.iter().all(|d| d.starts_with("txlab_")),
        "{databases:?}"
    );
    let left = existing(kind, &url, &databases).await.unwrap();
    assert!(left.is_empty(), "the run left {left:?} behind");
    assert!(Path::new(&run_dir).join("errors.log").exists());
    Some(run_dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mariadb_pipeline_runs_and_cleans_up() {
    let out = tempfile::tempdir().unwrap();
    if let Some(run_dir) =
        run_pipeline(ServerKind::Mysql, "configs/mariadb.toml", 40, out.path()).await
    {
        // WSS replays on the case's own tables: no database beside the case's.
        assert_eq!(database_roles(&run_dir), ["case"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_isorel_pipelines_run_on_both_servers() {
    for (kind, config) in [
        (ServerKind::Mysql, "configs/isorel-mariadb.toml"),
        (ServerKind::Postgres, "configs/isorel-postgres.toml"),
    ] {
        let out = tempfile::tempdir().unwrap();
        if let Some(run_dir) = run_pipeline(kind, config, 60, out.path()).await {
            let summary: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(run_dir.join("summary.json")).unwrap(),
            )
            .unwrap();
            // Every case was judged: IsoRel reads the dependencies off the
            // results, whatever the timing.
            let undecided_isorel: u64 = summary["undecided_reasons"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| k.starts_with("isorel"))
                .map(|(_, n)| n.as_u64().unwrap())
                .sum();
            assert_eq!(undecided_isorel, 0, "{config}: {summary}");
        }
    }
}

/// TxCheck's pipelines: every case judged without a tool error or an oracle
/// failure (run_pipeline checks both), and most cases decided; the
/// PostgreSQL run finds nothing (15.x has no known bug TxCheck's random
/// cases reach).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_txcheck_pipelines_run_on_both_servers() {
    for (kind, config) in [
        (ServerKind::Mysql, "configs/txcheck-mariadb.toml"),
        (ServerKind::Postgres, "configs/txcheck-postgres.toml"),
    ] {
        let out = tempfile::tempdir().unwrap();
        if let Some(run_dir) = run_pipeline(kind, config, 60, out.path()).await {
            let summary: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(run_dir.join("summary.json")).unwrap(),
            )
            .unwrap();
            assert!(
                summary["oracle_errors"]
                    .as_object()
                    .is_none_or(|o| o.is_empty()),
                "{summary}"
            );
            assert!(
                summary["passed"].as_u64().unwrap() >= 20,
                "{config}: {summary}"
            );
            if kind == ServerKind::Postgres {
                assert_eq!(summary["findings"], 0, "{config}: {summary}");
            }
            eprintln!(
                "{config}: 60 cases, passed {}, findings {}, vendor-permitted {}, undecided {}",
                summary["passed"], summary["findings"], summary["anomalies"], summary["undecided"]
            );
        }
    }
}

/// What each database of a run was for: `…_w0_case` is worker 0's case database.
fn database_roles(run_dir: &Path) -> Vec<String> {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap())
            .unwrap();
    let mut roles: Vec<String> = summary["databases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().rsplit('_').next().unwrap().to_string())
        .collect();
    roles.sort();
    roles
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgres_pipeline_runs_and_cleans_up() {
    let out = tempfile::tempdir().unwrap();
    run_pipeline(
        ServerKind::Postgres,
        "configs/postgres.toml",
        40,
        out.path(),
    )
    .await;
}

/// The same pipelines on PostgreSQL 18 (the newest major version, started
/// beside PostgreSQL 15 by `.ci/run`): WSS, Troc, IsoRel and TxCheck.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgres_pipelines_run_on_postgresql_18() {
    let url = pg18_url();
    for config in [
        "configs/postgres.toml",
        "configs/troc-postgres.toml",
        "configs/isorel-postgres.toml",
        "configs/txcheck-postgres.toml",
    ] {
        let out = tempfile::tempdir().unwrap();
        let Some(run_dir) =
            run_pipeline_at(ServerKind::Postgres, &url, config, 30, out.path()).await
        else {
            return;
        };
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(
            summary["findings"], 0,
            "{config} on PostgreSQL 18: {summary}"
        );
    }
}

/// A fixture oracle reports every blocked statement; its first finding is
/// reduced on the server to two transactions that still block.
async fn reduce_on_the_server(kind: ServerKind, dialect: &str) {
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("blocked.toml");
    std::fs::write(
        &config,
        format!(
            "[run]\nseed = 5\n\n[target]\ndialect = \"{dialect}\"\n\n\
             [generator]\nplugin = \"random\"\n[generator.config]\ntransactions = [3, 3]\n\n\
             [reduce]\nmax_per_kind = 1\n\n[[oracle]]\nplugin = \"blocked\"\n"
        ),
    )
    .unwrap();
    let out = work.path().join("out");
    let Some(run_dir) = run_pipeline(kind, config.to_str().unwrap(), 20, &out).await else {
        return;
    };
    // The fixture oracle declares no scratch database, so none is created.
    assert_eq!(database_roles(&run_dir), ["case"]);
    let reductions: Vec<serde_json::Value> = std::fs::read_dir(run_dir.join("findings"))
        .expect("the fixture oracle reports blocked statements")
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path().join("reduction.json")).ok())
        .map(|text| serde_json::from_str(&text).unwrap())
        .collect();
    assert_eq!(reductions.len(), 1, "{reductions:#?}");
    let r = &reductions[0];
    assert_eq!(r["outcome"], "reduced", "{r:#}");
    assert!(r["reproduced"].as_u64().unwrap() >= 1, "{r:#}");
    assert_eq!(r["after"]["transactions"], 2, "{r:#}");
    assert!(
        r["after"]["statements"].as_u64() < r["before"]["statements"].as_u64(),
        "{r:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_is_reduced_on_mariadb() {
    reduce_on_the_server(ServerKind::Mysql, "mariadb").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_is_reduced_on_postgres() {
    reduce_on_the_server(ServerKind::Postgres, "postgres").await;
}

/// Ctrl-C in the middle of a server run: the run stops, writes its summary and
/// drops the databases it created.
async fn interrupt_on_the_server(kind: ServerKind, config: &str) {
    let url = url(kind);
    if let Err(e) = existing(kind, &url, &[]).await {
        let why = format!("{config}: the server is unreachable: {e}");
        if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
            panic!("{why}");
        }
        eprintln!("skipped: {why}");
        return;
    }
    let plugins = common::plugin_dir(&[
        "txlab-dialect-mysql",
        "txlab-dialect-postgres",
        "txlab-generator-random",
        "txlab-oracle-wss",
    ]);
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_txlab"))
        .args(["run", config, "--duration", "2m", "--url", &url])
        .arg("--out")
        .arg(out.path())
        .env("TXLAB_PLUGIN_PATH", plugins.path())
        .current_dir(common::repo_root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{config}: txlab did not stop after Ctrl-C"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    // 130 when nothing was found before the interrupt, 1 when something was.
    assert!(
        matches!(status.code(), Some(130 | 1)),
        "{config}: {status:?}"
    );
    let run_dir = std::fs::read_dir(out.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["interrupted"], true, "{summary}");
    let databases: Vec<String> = summary["databases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_string())
        .collect();
    assert!(!databases.is_empty(), "{summary}");
    let left = existing(kind, &url, &databases).await.unwrap();
    assert!(left.is_empty(), "the interrupted run left {left:?} behind");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_drops_the_runs_databases_on_mariadb() {
    interrupt_on_the_server(ServerKind::Mysql, "configs/mariadb.toml").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_drops_the_runs_databases_on_postgres() {
    interrupt_on_the_server(ServerKind::Postgres, "configs/postgres.toml").await;
}

/// The run directory txlab made in `out`.
fn the_run_dir(out: &Path) -> std::path::PathBuf {
    std::fs::read_dir(out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

/// Each case's findings and undecided reasons of `oracle`, by case index.
fn verdicts_of(run_dir: &Path, oracle: &str) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_dir(run_dir.join("findings"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(&format!("-{oracle}")))
                .collect()
        })
        .unwrap_or_default();
    let undecided = std::fs::read_to_string(run_dir.join("undecided.log")).unwrap();
    lines.extend(
        undecided
            .lines()
            .filter(|l| l.contains(&format!("): {oracle}: ")))
            .map(str::to_string),
    );
    lines.sort();
    lines
}

/// An oracle that panics in every check, placed before WSS: each panic is
/// that oracle's error on its case, and WSS judges every case exactly as it
/// does alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_oracle_costs_only_its_own_verdicts_on_mariadb() {
    let kind = ServerKind::Mysql;
    if !reachable(kind, "configs/mariadb.toml").await {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(common::repo_root().join("configs/mariadb.toml")).unwrap();
    let alone = work.path().join("wss.toml");
    std::fs::write(&alone, &base).unwrap();
    let beside = work.path().join("panicky-and-wss.toml");
    let with_panics = base.replacen(
        "[[oracle]]",
        "[[oracle]]\nplugin = \"panicky\"\n[oracle.config]\nevery = 1\n\n[[oracle]]",
        1,
    );
    assert_ne!(with_panics, base);
    std::fs::write(&beside, with_panics).unwrap();
    let plugins = common::plugin_dir(&[
        "txlab-dialect-mysql",
        "txlab-generator-random",
        "txlab-oracle-wss",
        "txlab-fixture-panicky",
    ]);
    let cases = 60;
    let mut runs = Vec::new();
    for (name, config) in [("alone", &alone), ("beside", &beside)] {
        let out = work.path().join(name);
        let o = Command::new(env!("CARGO_BIN_EXE_txlab"))
            .arg("run")
            .arg(config)
            .args(["--cases", &cases.to_string(), "--seed", "11", "--no-reduce"])
            .args(["--url", &url(kind)])
            .arg("--out")
            .arg(&out)
            .env("TXLAB_PLUGIN_PATH", plugins.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        runs.push((o.status.code(), stdout, the_run_dir(&out)));
    }
    let (_, _, alone_dir) = &runs[0];
    let (code, stdout, beside_dir) = &runs[1];
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(beside_dir.join("summary.json")).unwrap())
            .unwrap();
    // Every case ran and counts the panic; none stopped the run.
    assert_eq!(summary["cases"], cases, "{summary}");
    assert_eq!(summary["oracle_errors"]["panicky"], cases, "{summary}");
    assert!(summary["stopped_early"].is_null(), "{summary}");
    assert!(
        stdout.contains("oracle `panicky` failed in 60 cases"),
        "{stdout}"
    );
    // Exit 1 when WSS found something, else 3: the panics are tool errors.
    assert!(matches!(code, Some(1 | 3)), "{code:?}\n{stdout}");
    let errors = std::fs::read_to_string(beside_dir.join("errors.log")).unwrap();
    assert_eq!(errors.lines().count() as u64, cases, "{errors}");
    assert!(errors.contains("injected panic in check call"), "{errors}");
    // WSS: the same findings and undecided cases, case by case.
    assert_eq!(
        verdicts_of(beside_dir, "wss"),
        verdicts_of(alone_dir, "wss")
    );
    let alone_summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(alone_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["findings"], alone_summary["findings"]);
    assert_eq!(
        summary["exercised"]["transactions"],
        alone_summary["exercised"]["transactions"]
    );
}
