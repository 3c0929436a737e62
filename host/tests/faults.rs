//! What a server does to a run, on private PostgreSQL and MariaDB servers
//! the tests start (never the shared ones): a server frozen with SIGSTOP
//! does not hold txlab silent, Ctrl-C ends a run on a frozen server within
//! seconds, and SIGTERM leaves no database behind on a live one.

mod common;

use common::frozen::Frozen;
use common::private_mariadb::PrivateMariadb;
use common::private_postgres::PrivatePostgres;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Short server limits, so that the deadlines derived from them (6 s for a
/// statement the host runs, 2 s for a probe) are short too.
const PIPELINE: &str = r#"
[run]
workers = 2

[target]
dialect = "DIALECT"

[executor]
statement_timeout = "2s"
lock_wait_timeout = "2s"

[generator]
plugin = "random"

[generator.config]
transactions = [2, 3]
statements = [2, 5]

[[oracle]]
plugin = "wss"
"#;

/// A private server the tests may freeze.
trait Private {
    const DIALECT: &'static str;
    const PLUGIN: &'static str;
    fn url(&self) -> String;
    fn freeze(&self) -> Frozen;
    fn log(&self) -> String;
    fn txlab_databases(&self) -> Vec<String>;
}

impl Private for PrivatePostgres {
    const DIALECT: &'static str = "postgres";
    const PLUGIN: &'static str = "txlab-dialect-postgres";
    fn url(&self) -> String {
        PrivatePostgres::url(self)
    }
    fn freeze(&self) -> Frozen {
        PrivatePostgres::freeze(self)
    }
    fn log(&self) -> String {
        PrivatePostgres::log(self)
    }
    fn txlab_databases(&self) -> Vec<String> {
        PrivatePostgres::txlab_databases(self)
    }
}

impl Private for PrivateMariadb {
    const DIALECT: &'static str = "mariadb";
    const PLUGIN: &'static str = "txlab-dialect-mysql";
    fn url(&self) -> String {
        PrivateMariadb::url(self)
    }
    fn freeze(&self) -> Frozen {
        PrivateMariadb::freeze(self)
    }
    fn log(&self) -> String {
        PrivateMariadb::log(self)
    }
    fn txlab_databases(&self) -> Vec<String> {
        PrivateMariadb::txlab_databases(self)
    }
}

struct Run {
    child: Child,
    out: tempfile::TempDir,
    _plugins: tempfile::TempDir,
}

fn start_run<S: Private>(server: &S, duration: &str) -> Run {
    let plugins = common::plugin_dir(&[S::PLUGIN, "txlab-generator-random", "txlab-oracle-wss"]);
    let out = tempfile::tempdir().unwrap();
    let config = out.path().join("faults.toml");
    std::fs::write(&config, PIPELINE.replace("DIALECT", S::DIALECT)).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_txlab"))
        .arg("run")
        .arg(&config)
        .args(["--duration", duration, "--seed", "5", "--no-reduce"])
        .args(["--url", &server.url()])
        .arg("--out")
        .arg(out.path().join("out"))
        .env("TXLAB_PLUGIN_PATH", plugins.path())
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Run {
        child,
        out,
        _plugins: plugins,
    }
}

impl Run {
    /// Waits until the run's directory exists (its workers are set up and
    /// cases start), then lets it run cases a while.
    fn wait_for_cases(&self, server: &impl Private) {
        let started = Instant::now();
        while self.run_dir().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the run never started:\n{}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_secs(2));
    }

    fn run_dir(&self) -> Option<PathBuf> {
        let entries = std::fs::read_dir(self.out.path().join("out")).ok()?;
        entries.flatten().map(|e| e.path()).find(|p| p.is_dir())
    }

    fn summary_written(&self) -> bool {
        self.run_dir()
            .is_some_and(|d| d.join("summary.json").is_file())
    }

    /// Waits for the process up to `limit`; `None` if it still runs (then
    /// it is killed, after the caller's assertion message is built).
    fn wait(&mut self, limit: Duration) -> Option<ExitStatus> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// What the run printed, and its summary.
    fn output(mut self) -> (String, serde_json::Value) {
        let _ = self.child.kill();
        let run_dir = self.run_dir();
        let output = self.child.wait_with_output().unwrap();
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let summary = run_dir
            .and_then(|d| std::fs::read_to_string(d.join("summary.json")).ok())
            .unwrap_or_else(|| panic!("no summary.json\n{text}"));
        (text, serde_json::from_str(&summary).unwrap())
    }
}

fn signal(name: &str, child: &Child) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// A server frozen for 30 s during a 10 s run: txlab gives up on it after
/// the deadlines derived from the pipeline's limits, ends while the server
/// is still frozen, and says why in its summary and on the console
/// (before: it stayed silent until the server ran again, and exited 0).
#[test]
fn a_frozen_postgres_ends_the_run_on_time_with_the_reason() {
    if let Some(server) = PrivatePostgres::for_test("frozen PostgreSQL") {
        frozen_server_ends_the_run(&server);
    }
}

#[test]
fn a_frozen_mariadb_ends_the_run_on_time_with_the_reason() {
    if let Some(server) = PrivateMariadb::for_test("frozen MariaDB") {
        frozen_server_ends_the_run(&server);
    }
}

fn frozen_server_ends_the_run(server: &impl Private) {
    let mut run = start_run(server, "10s");
    run.wait_for_cases(server);
    let frozen = server.freeze();
    let frozen_at = Instant::now();
    let status = run.wait(Duration::from_secs(30));
    let took = frozen_at.elapsed();
    drop(frozen);
    let (text, summary) = run.output();
    let Some(status) = status else {
        panic!("txlab still ran 30 s after the server froze:\n{text}");
    };
    assert_eq!(status.code(), Some(3), "{text}\n{summary:#}");
    // The run had 10 s, the deadlines are 2 s and 6 s, the clean-up under
    // 3 s: well before the server would have answered again.
    eprintln!("txlab ended {took:?} after the server froze");
    assert!(took < Duration::from_secs(25), "{took:?}\n{text}");
    let reasons = summary["error_reasons"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert!(
        reasons
            .keys()
            .any(|r| r.starts_with("the server did not answer within ")),
        "{summary:#}"
    );
    assert!(summary["errors"].as_u64().unwrap() >= 1, "{summary:#}");
    assert!(
        text.contains("tool error") && text.contains("the server did not answer within"),
        "{text}"
    );
    // The databases it could not drop are named.
    assert!(
        text.contains("could not drop its databases; left on ")
            && text.contains(": txlab_")
            && text.contains("txlab clean --url "),
        "{text}"
    );
}

/// Ctrl-C while statements hang on a frozen server: the statements are
/// cancelled (and their connections dropped), the summary is written within
/// a few seconds, and txlab exits 130, naming the databases it could not
/// drop (before: nothing happened until the server ran again).
#[test]
fn ctrl_c_on_a_frozen_postgres_ends_the_run_within_seconds() {
    if let Some(server) = PrivatePostgres::for_test("Ctrl-C on a frozen PostgreSQL") {
        ctrl_c_on_a_frozen_server(&server);
    }
}

#[test]
fn ctrl_c_on_a_frozen_mariadb_ends_the_run_within_seconds() {
    if let Some(server) = PrivateMariadb::for_test("Ctrl-C on a frozen MariaDB") {
        ctrl_c_on_a_frozen_server(&server);
    }
}

fn ctrl_c_on_a_frozen_server(server: &impl Private) {
    let mut run = start_run(server, "5m");
    run.wait_for_cases(server);
    let frozen = server.freeze();
    // Long enough for a statement to be sent and hang.
    std::thread::sleep(Duration::from_millis(500));
    signal("INT", &run.child);
    let interrupted = Instant::now();
    while !run.summary_written() && interrupted.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let summary_after = interrupted.elapsed();
    let status = run.wait(Duration::from_secs(20));
    let exit_after = interrupted.elapsed();
    drop(frozen);
    let (text, summary) = run.output();
    let Some(status) = status else {
        panic!("txlab still ran 20 s after Ctrl-C:\n{text}");
    };
    assert_eq!(status.code(), Some(130), "{text}");
    eprintln!("after Ctrl-C: summary in {summary_after:?}, exit in {exit_after:?}");
    assert!(
        summary_after < Duration::from_secs(5),
        "the summary came {summary_after:?} after Ctrl-C\n{text}"
    );
    assert!(
        exit_after < Duration::from_secs(10),
        "{exit_after:?}\n{text}"
    );
    assert_eq!(summary["interrupted"], true, "{summary:#}");
    let stopped = summary["stopped_early"].as_str().unwrap_or_default();
    assert!(stopped.contains("interrupted"), "{summary:#}");
    assert!(
        text.contains("could not drop its databases; left on ")
            && text.contains(": txlab_")
            && text.contains("txlab clean --url "),
        "{text}"
    );
}

/// SIGTERM (a service manager's stop) on a live server: the summary is
/// written and every database of the run is dropped.
#[test]
fn sigterm_drops_the_runs_databases_on_postgres() {
    if let Some(server) = PrivatePostgres::for_test("SIGTERM on PostgreSQL") {
        sigterm_drops_the_runs_databases(&server);
    }
}

#[test]
fn sigterm_drops_the_runs_databases_on_mariadb() {
    if let Some(server) = PrivateMariadb::for_test("SIGTERM on MariaDB") {
        sigterm_drops_the_runs_databases(&server);
    }
}

fn sigterm_drops_the_runs_databases(server: &impl Private) {
    let mut run = start_run(server, "5m");
    run.wait_for_cases(server);
    assert!(!server.txlab_databases().is_empty());
    signal("TERM", &run.child);
    let status = run.wait(Duration::from_secs(30));
    let (text, summary) = run.output();
    assert_eq!(status.and_then(|s| s.code()), Some(130), "{text}");
    assert_eq!(summary["interrupted"], true, "{summary:#}");
    assert!(summary["cases"].as_u64().unwrap() > 0, "{summary:#}");
    assert!(
        server.txlab_databases().is_empty(),
        "{:?}\n{text}",
        server.txlab_databases()
    );
}
