//! A server that dies while a finding is reduced or replayed, on a private
//! PostgreSQL the test starts: the reduction stops with "could not run" and
//! the server's error (before: every candidate "did not reproduce", or, with
//! an oracle that judges any history, a "reduction" of cases that never ran),
//! and `txlab replay` says a run could not run instead of counting it as
//! not reproducing. The `accuse` fixture oracle reports every case.

mod common;

use common::private_postgres::PrivatePostgres;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cases big enough, and paced, so that a reduction takes seconds.
const PIPELINE: &str = r#"
[run]
reconnect_timeout = "2s"

[target]
dialect = "postgres"

[executor]
statement_timeout = "2s"
lock_wait_timeout = "2s"
pace = "150ms"

[generator]
plugin = "random"

[generator.config]
transactions = [4, 6]
statements = [5, 10]

[reduce]
attempts = 3
confirm = 5

[[oracle]]
plugin = "accuse"
"#;

fn txlab(plugins: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_txlab"));
    c.env("TXLAB_PLUGIN_PATH", plugins)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Waits for `path` to exist.
fn wait_for(path: impl Fn() -> Option<PathBuf>, what: &str) -> PathBuf {
    let started = Instant::now();
    loop {
        if let Some(p) = path() {
            return p;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_server_that_dies_during_a_reduction_or_a_replay_is_could_not_run() {
    let Some(server) = PrivatePostgres::for_test("crash during a reduction") else {
        return;
    };
    let plugins = common::plugin_dir(&[
        "txlab-dialect-postgres",
        "txlab-generator-random",
        "txlab-fixture-panicky",
    ]);
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("accuse.toml");
    std::fs::write(&config, PIPELINE).unwrap();
    let out = work.path().join("out");
    let child = txlab(plugins.path())
        .arg("run")
        .arg(&config)
        .args(["--cases", "1", "--seed", "5", "--url", &server.url()])
        .arg("--out")
        .arg(&out)
        .spawn()
        .unwrap();
    // The finding is written, then reduced: kill the server meanwhile.
    let finding = wait_for(
        || {
            let run = std::fs::read_dir(&out).ok()?.flatten().next()?.path();
            let f = run.join("findings").join("case-000000-accuse");
            f.exists().then_some(f)
        },
        "finding",
    );
    std::thread::sleep(Duration::from_millis(300));
    server.crash();
    let o = child.wait_with_output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    // The finding stands, as found.
    assert_eq!(o.status.code(), Some(1), "{text}");
    let reduction = read_json(&finding.join("reduction.json"));
    assert_eq!(
        reduction["outcome"], "could_not_run",
        "{reduction:#}\n{text}"
    );
    let stopped = reduction["stopped"].as_str().unwrap();
    assert!(
        stopped.contains("the connection to the server broke")
            || stopped.contains("cannot connect"),
        "{reduction:#}"
    );
    assert!(!finding.join("reduced").exists());
    let run_dir = finding.parent().unwrap().parent().unwrap();
    assert!(!run_dir.join("unconfirmed").exists(), "{text}");
    assert!(!finding.join("unconfirmed").exists(), "{text}");
    let summary = read_json(&run_dir.join("summary.json"));
    assert_eq!(
        (
            summary["findings"].as_u64(),
            summary["unconfirmed"].as_u64()
        ),
        (Some(1), Some(0)),
        "{summary:#}"
    );
    let report = std::fs::read_to_string(finding.join("report.md")).unwrap();
    assert!(report.contains("could not run"), "{report}");
    assert!(!report.contains("unconfirmed"), "{report}");
    assert!(text.contains("could not run"), "{text}");

    // A replay whose server dies after its first run.
    server.start_again().unwrap();
    let mut replay = txlab(plugins.path())
        .arg("replay")
        .arg(&finding)
        .args(["--times", "50", "--url", &server.url()])
        .spawn()
        .unwrap();
    let stdout = replay.stdout.take().unwrap();
    let mut printed = Vec::new();
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let first_run = line.contains("run 1:");
        printed.push(line);
        if first_run {
            server.crash();
        }
    }
    let status = replay.wait().unwrap();
    let printed = printed.join("\n");
    assert!(printed.contains("run 1: the same finding"), "{printed}");
    assert!(printed.contains("could not run"), "{printed}");
    assert!(printed.contains("could not run or failed"), "{printed}");
    assert!(!printed.contains("/50"), "{printed}");
    // It reproduced once before the server went.
    assert_eq!(status.code(), Some(1), "{printed}");
}
