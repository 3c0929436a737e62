//! For the `txlab clean` and password tests: the databases on a server with
//! their txlab marks, read directly (not through txlab), and `txlab` run as a
//! child process with a home and temporary directory of its own.

use mysql_async::prelude::Queryable;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use txlab_host::driver::ServerKind;

/// Every database whose name starts with `txlab`, with its mark (`None`:
/// unmarked).
pub async fn marks(kind: ServerKind, url: &str) -> BTreeMap<String, Option<String>> {
    let mut found = BTreeMap::new();
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_async::Conn::from_url(url).await.unwrap();
            let names: Vec<String> = conn
                .query("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'txlab%'")
                .await
                .unwrap();
            for name in names {
                let mark: Option<String> = conn
                    .query_first(format!("SELECT mark FROM `{name}`.txlab_marker"))
                    .await
                    .unwrap_or(None);
                found.insert(name, mark);
            }
            let _ = conn.disconnect().await;
        }
        ServerKind::Postgres => {
            let client = pg(url).await;
            for r in client
                .query(
                    "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database WHERE datname LIKE 'txlab%'",
                    &[],
                )
                .await
                .unwrap()
            {
                found.insert(r.get(0), r.get(1));
            }
        }
    }
    found
}

pub async fn pg(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// Runs each statement as the server's administrator.
pub async fn exec(kind: ServerKind, url: &str, statements: &[String]) {
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_async::Conn::from_url(url).await.unwrap();
            for s in statements {
                conn.query_drop(s)
                    .await
                    .unwrap_or_else(|e| panic!("{s}: {e}"));
            }
            let _ = conn.disconnect().await;
        }
        ServerKind::Postgres => {
            let client = pg(url).await;
            for s in statements {
                client
                    .batch_execute(s)
                    .await
                    .unwrap_or_else(|e| panic!("{s}: {e}"));
            }
        }
    }
}

/// The databases process `pid` marked as its own.
pub async fn databases_of(kind: ServerKind, url: &str, pid: u32) -> Vec<String> {
    let needle = format!("; pid={pid};");
    marks(kind, url)
        .await
        .into_iter()
        .filter(|(_, m)| m.as_deref().is_some_and(|m| m.contains(&needle)))
        .map(|(n, _)| n)
        .collect()
}

/// Waits until process `pid` has marked `count` databases; their names.
pub fn wait_for_databases(kind: ServerKind, url: &str, pid: u32, count: usize) -> Vec<String> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let started = Instant::now();
    loop {
        let names = rt.block_on(databases_of(kind, url, pid));
        if names.len() >= count {
            return names;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "txlab (pid {pid}) did not create its databases: {names:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A name that looks like a run's database: `txlab_<time>_<random>_<suffix>`.
pub fn look_alike(suffix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let random = (nanos ^ std::process::id().rotate_left(12)) & 0xff_ffff;
    format!("txlab_20000101t000000_{random:06x}_{suffix}")
}

/// `txlab` with only the given plugins, in the repository, with a home and
/// temporary directory of its own and no password in its environment.
pub fn txlab(plugins: &Path, home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_txlab"));
    c.args(args)
        .env("TXLAB_PLUGIN_PATH", plugins)
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env_remove("RUST_LOG")
        .env_remove("TXLAB_PASSWORD")
        .env_remove("MYSQL_PWD")
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE")
        .current_dir(super::repo_root());
    std::fs::create_dir_all(home.join("tmp")).unwrap();
    c
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The `txlab clean` command between backticks in `text`, as arguments
/// (single-quoted words unquoted).
pub fn clean_command_in(text: &str) -> Vec<String> {
    let start = text
        .find("`txlab clean ")
        .unwrap_or_else(|| panic!("no clean command in:\n{text}"));
    let rest = &text[start + 1..];
    let command = &rest[..rest.find('`').unwrap()];
    command
        .split_whitespace()
        .map(|w| w.trim_matches('\'').to_string())
        .collect()
}

/// Sends `signal` (e.g. "INT", "KILL") to `pid`.
pub fn signal(pid: u32, signal: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success(), "kill -{signal} {pid}");
}
