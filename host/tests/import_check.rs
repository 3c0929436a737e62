//! `txlab import` and `txlab check` as a user runs them: a PostgreSQL
//! isolation spec and a `-- T1:` marked script read as cases, errors that
//! name the line, and the cases run on embedded SQLite and, live, on
//! PostgreSQL and MariaDB.

mod common;

use common::cli_env::*;
use common::servers::{reachable, url};
use std::path::{Path, PathBuf};
use txlab_host::driver::ServerKind;
use txlab_plugin_api::ir::*;

fn data(name: &str) -> String {
    common::repo_root()
        .join("script/tests/data")
        .join(name)
        .display()
        .to_string()
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn import_prints_the_case_and_refuses_bad_scripts_by_line() {
    let env = Env::new(&[]);
    let o = env.txlab(&[
        "import",
        &data("simple-write-skew.spec"),
        "--dialect",
        "postgres",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let case: TestCase = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(case.transactions.len(), 2);
    assert_eq!(case.statement_count(), 6);

    let out = env.work.path().join("case.json");
    let o = env.txlab(&[
        "import",
        &data("lost-update.sql"),
        "--level",
        "read-committed",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let case: TestCase = read(&out);
    assert!(case
        .transactions
        .iter()
        .all(|t| t.isolation == IsolationLevel::ReadCommitted));

    let bad = env.work.path().join("bad.sql");
    std::fs::write(
        &bad,
        "CREATE TABLE t (id INT PRIMARY KEY);\n-- T1: BEGIN;\n-- T1: LOCK TABLE t;\n-- T1: COMMIT;\n",
    )
    .unwrap();
    let o = env.txlab(&["import", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let expected = format!(
        "{}:3: T1: LOCK TABLE is not supported by txlab's case format",
        bad.display()
    );
    assert!(stderr(&o).contains(&expected), "{}", stderr(&o));
}

/// `txlab check` with `args`; its exit code, output and directory.
fn check(env: &Env, args: &[&str]) -> (Option<i32>, String, PathBuf) {
    let dir = env
        .work
        .path()
        .join(format!("check-{}", args.len() + args[1].len()));
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", dir.to_str().unwrap()]);
    let o = env.txlab(&all);
    let text = format!("{}\n{}", stdout(&o), stderr(&o));
    (o.status.code(), text, dir)
}

#[test]
fn check_runs_a_marked_script_on_sqlite_and_keeps_a_pass() {
    let env = Env::new(&[]);
    let (code, text, dir) = check(
        &env,
        &[
            &data("lost-update.sql"),
            "--pipeline",
            "configs/quickstart.toml",
        ],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("wss: pass"), "{text}");
    assert!(text.contains("using serializable"), "{text}");
    let history: History = read(&dir.join("history.json"));
    // SQLite (WAL) lets T1 write while T2 reads; T2 read before T1's
    // commit, so its UPDATE is refused (SQLITE_BUSY_SNAPSHOT): no lost update.
    assert_eq!(history.transactions.len(), 3);
    assert_eq!(history.transactions[0].end, TxnEnd::Committed, "{text}");
    assert!(
        matches!(
            &history.transactions[1].end,
            TxnEnd::Aborted { class, .. } if *class == ErrorClass::SerializationFailure
        ),
        "{:?}\n{text}",
        history.transactions[1].end
    );
    let last: Vec<Vec<Value>> = match &history.record(StatementRef::new(2, 0)).unwrap().outcome {
        Outcome::Rows { rows, .. } => rows.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(last[0], [Value::Int(1), Value::Int(110)]);
    for file in [
        "generated.json",
        "case.json",
        "report.md",
        "repro.sql",
        "verdicts.json",
    ] {
        assert!(dir.join(file).exists(), "{file}");
    }
    // A default directory is made when --out is not given.
    let o = env.txlab(&[
        "check",
        &data("lost-update.sql"),
        "--pipeline",
        "configs/quickstart.toml",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("output: txlab-check-lost-update-"),
        "{}",
        stdout(&o)
    );
    let made = stdout(&o)
        .lines()
        .find_map(|l| l.trim().strip_prefix("output: ").map(str::to_string))
        .unwrap();
    let made = common::repo_root().join(made);
    assert!(made.join("history.json").exists());
    std::fs::remove_dir_all(made).unwrap();
}

#[test]
fn check_refuses_a_level_the_dialect_lacks() {
    let env = Env::new(&[]);
    let (code, text, _) = check(
        &env,
        &[
            &data("lost-update.sql"),
            "--pipeline",
            "configs/quickstart.toml",
            "--level",
            "read-committed",
        ],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("T1 runs at read-committed, which dialect `sqlite` does not offer"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_runs_a_postgres_isolation_spec_live() {
    if !reachable(ServerKind::Postgres, "import_check: PostgreSQL spec").await {
        return;
    }
    let env = Env::new(&[]);
    let pg = url(ServerKind::Postgres);
    let spec = data("simple-write-skew.spec");
    // The tester's first order runs s1, then s2: both commit.
    let (code, text, dir) = check(
        &env,
        &[&spec, "--pipeline", "configs/postgres.toml", "--url", &pg],
    );
    assert_eq!(code, Some(0), "{text}");
    let history: History = read(&dir.join("history.json"));
    assert!(
        history
            .transactions
            .iter()
            .all(|t| t.end == TxnEnd::Committed),
        "{text}"
    );
    // The third (rwx1 rwx2 c2 c1): the write skew is refused at T1's COMMIT.
    let (code, text, dir) = check(
        &env,
        &[
            &spec,
            "--pipeline",
            "configs/postgres.toml",
            "--url",
            &pg,
            "--permutation",
            "3",
        ],
    );
    assert_eq!(code, Some(0), "{text}");
    let history: History = read(&dir.join("history.json"));
    assert_eq!(history.transactions[1].end, TxnEnd::Committed, "{text}");
    assert!(
        matches!(
            &history.transactions[0].end,
            TxnEnd::Aborted { class, .. } if *class == ErrorClass::SerializationFailure
        ),
        "{:?}\n{text}",
        history.transactions[0].end
    );
    assert!(text.contains("wss: pass"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_runs_a_marked_script_on_mariadb_live() {
    if !reachable(ServerKind::Mysql, "import_check: MariaDB script").await {
        return;
    }
    let env = Env::new(&[]);
    let (code, text, dir) = check(
        &env,
        &[
            &data("lost-update.sql"),
            "--pipeline",
            "configs/isorel-mariadb.toml",
            "--url",
            &url(ServerKind::Mysql),
        ],
    );
    // Both read balance 100 at REPEATABLE READ (MariaDB's default) and both
    // updates succeed: a lost update the standard model forbids and MariaDB
    // documents, so IsoRel reports a vendor-permitted anomaly, not a finding.
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("using repeatable-read"), "{text}");
    assert!(text.contains("isorel: vendor-permitted anomaly"), "{text}");
    assert!(text.contains("wss: pass"), "{text}");
    let anomalies: Vec<_> = std::fs::read_dir(dir.join("anomalies")).unwrap().collect();
    assert_eq!(anomalies.len(), 1);
}

#[test]
fn check_exits_with_1_on_a_finding_and_takes_a_case_json() {
    // The `accuse` fixture oracle reports every case it sees as a finding.
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline(
        "p.toml",
        &pipeline("random", &["plugin = \"accuse\"", "plugin = \"wss\""]),
    );
    let case = env.work.path().join("case.json");
    let o = env.txlab(&[
        "import",
        &data("lost-update.sql"),
        "--dialect",
        "sqlite",
        "-o",
        case.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (code, text, dir) = check(
        &env,
        &[case.to_str().unwrap(), "--pipeline", p.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("accuse: finding"), "{text}");
    assert!(text.contains("wss: pass"), "{text}");
    // Read as JSON: no notes about levels, the case as imported.
    assert!(!text.contains("states no isolation level"), "{text}");
    let generated: TestCase = read(&dir.join("generated.json"));
    assert_eq!(generated, read::<TestCase>(&case));
    let finding = dir.join("findings/case-000000-accuse");
    for file in ["report.md", "repro.sql", "finding.json", "history.json"] {
        assert!(finding.join(file).exists(), "{file}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_runs_an_on_conflict_spec_with_blocking_live() {
    if !reachable(ServerKind::Postgres, "import_check: ON CONFLICT spec").await {
        return;
    }
    let env = Env::new(&[]);
    let pg = url(ServerKind::Postgres);
    let spec = data("insert-conflict-do-nothing.spec");
    for (permutation, t1_end, t2_inserted) in
        [("1", TxnEnd::Committed, 0), ("2", TxnEnd::RolledBack, 1)]
    {
        let (code, text, dir) = check(
            &env,
            &[
                &spec,
                "--pipeline",
                "configs/postgres.toml",
                "--url",
                &pg,
                "--permutation",
                permutation,
            ],
        );
        assert_eq!(code, Some(0), "{text}");
        let history: History = read(&dir.join("history.json"));
        assert_eq!(history.transactions[0].end, t1_end, "{text}");
        // s2's INSERT waits for s1's uncommitted row, then does nothing
        // (s1 committed) or inserts (s1 aborted).
        let insert = history.record(StatementRef::new(1, 1)).unwrap();
        assert!(insert.blocked.is_some(), "{insert:?}");
        assert_eq!(
            insert.outcome,
            Outcome::Affected { rows: t2_inserted },
            "{text}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
