//! A server that crashes during a run, on a private PostgreSQL the test starts
//! (never the shared one): the `errors` oracle reports the crash, and the run
//! either goes on once the server is back or, when it does not come back,
//! stops cleanly with its findings on disk.

mod common;

use common::private_postgres::PrivatePostgres;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

fn pipeline(dir: &Path, reconnect_timeout: &str) -> PathBuf {
    let path = dir.join("crash.toml");
    std::fs::write(
        &path,
        format!(
            r#"
[run]
workers = 1
reconnect_timeout = "{reconnect_timeout}"
# Waiting for the server must not spend this: two cases in a row that fail
# while the server is away would stop the run.
max_consecutive_errors = 2

[target]
dialect = "postgres"

[executor]
statement_timeout = "5s"
lock_wait_timeout = "8s"

[generator]
plugin = "random"

[generator.config]
transactions = [2, 3]
statements = [2, 5]

[[oracle]]
plugin = "errors"

[[oracle]]
plugin = "wss"
"#
        ),
    )
    .unwrap();
    path
}

struct Run {
    child: Child,
    out: tempfile::TempDir,
    _plugins: tempfile::TempDir,
    _config_dir: tempfile::TempDir,
}

fn start_run(server: &PrivatePostgres, duration: &str, reconnect_timeout: &str) -> Run {
    let plugins = common::plugin_dir(&[
        "txlab-dialect-postgres",
        "txlab-generator-random",
        "txlab-oracle-errors",
        "txlab-oracle-wss",
    ]);
    let config_dir = tempfile::tempdir().unwrap();
    let config = pipeline(config_dir.path(), reconnect_timeout);
    let out = tempfile::tempdir().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_txlab"))
        .arg("run")
        .arg(&config)
        .args(["--duration", duration, "--seed", "11", "--no-reduce"])
        .args(["--url", &server.url()])
        .arg("--out")
        .arg(out.path())
        .env("TXLAB_PLUGIN_PATH", plugins.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Run {
        child,
        out,
        _plugins: plugins,
        _config_dir: config_dir,
    }
}

/// Waits until the run's directory exists (its worker is set up and cases
/// start), then lets it judge a few cases.
fn wait_for_cases(run: &Run, server: &PrivatePostgres) {
    let started = Instant::now();
    while std::fs::read_dir(run.out.path())
        .map(|mut d| d.next().is_none())
        .unwrap_or(true)
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run never started:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(2));
}

fn finish(run: Run, limit: Duration) -> (ExitStatus, String, serde_json::Value, PathBuf) {
    let Run { mut child, out, .. } = run;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("txlab did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let output = child.wait_with_output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let run_dir = std::fs::read_dir(out.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir.join("summary.json"))
            .unwrap_or_else(|e| panic!("no summary.json: {e}\n{text}")),
    )
    .unwrap();
    // Keep the run directory past the TempDir.
    let kept = out.keep();
    (
        status,
        text,
        summary,
        kept.join(run_dir.file_name().unwrap()),
    )
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The `errors` oracle's findings in the run directory: each one's history
/// and provenance.
fn crash_findings(run_dir: &Path) -> Vec<(serde_json::Value, serde_json::Value)> {
    let Ok(entries) = std::fs::read_dir(run_dir.join("findings")) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .ends_with("-errors")
        })
        .map(|p| {
            (
                read_json(&p.join("history.json")),
                read_json(&p.join("provenance.json")),
            )
        })
        .collect()
}

/// The server is killed and started again 10 s later: the run waits for it
/// (with growing pauses between connection attempts, costing no case),
/// resumes, and finishes its duration; with `max_consecutive_errors = 2`,
/// cases that failed one after another while the server was away would
/// have stopped it.
#[test]
fn a_crashed_server_is_a_finding_and_the_run_resumes_after_the_restart() {
    let Some(server) = PrivatePostgres::for_test("crash and restart") else {
        return;
    };
    let run = start_run(&server, "30s", "60s");
    wait_for_cases(&run, &server);
    server.crash();
    server.wait_until_down(Duration::from_secs(10));
    std::thread::sleep(Duration::from_secs(10));
    server.start_again().unwrap();
    let (status, text, summary, run_dir) = finish(run, Duration::from_secs(120));

    // A finding (the crash), not a tool error nor an early stop.
    assert_eq!(status.code(), Some(1), "{text}\n{summary}");
    assert!(summary["stopped_early"].is_null(), "{summary}");
    let findings = crash_findings(&run_dir);
    assert!(!findings.is_empty(), "no crash finding\n{text}\n{summary}");
    let (history, provenance) = &findings[0];
    let loss = &history["server_lost"];
    // Back after the 10 s the server was down, not at once.
    assert!(loss["back_after_ms"].as_u64().unwrap() > 8_000, "{loss}");
    assert_eq!(loss["restarted"], true, "{loss}");
    assert_eq!(
        summary["finding_kinds"]["errors: server-crash"].as_u64(),
        Some(findings.len() as u64),
        "{summary}"
    );
    // Cases ran after the restart: more than the one that saw the crash, and
    // the ones after it passed or were judged as usual.
    assert!(summary["passed"].as_u64().unwrap() > 0, "{summary}");
    let crash_case = provenance["case_index"].as_u64().unwrap();
    assert!(
        summary["cases"].as_u64().unwrap() > crash_case + 1,
        "no case ran after the crash (case {crash_case})\n{summary}"
    );
}

#[test]
fn a_server_that_does_not_come_back_stops_the_run_with_its_findings_on_disk() {
    let Some(server) = PrivatePostgres::for_test("crash without restart") else {
        return;
    };
    let run = start_run(&server, "5m", "3s");
    wait_for_cases(&run, &server);
    server.crash();
    let (status, text, summary, run_dir) = finish(run, Duration::from_secs(90));

    assert_eq!(status.code(), Some(1), "{text}\n{summary}");
    let stopped = summary["stopped_early"].as_str().unwrap_or_default();
    assert!(
        stopped.contains("did not accept connections"),
        "{stopped}\n{summary}"
    );
    let findings = crash_findings(&run_dir);
    assert_eq!(findings.len(), 1, "{text}\n{summary}");
    assert!(findings[0].0["server_lost"]["back_after_ms"].is_null());
    assert!(text.contains("did not accept connections"), "{text}");
}
