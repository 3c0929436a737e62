//! The run's page (`index.html`) in a real browser: headless Chromium (the
//! Debian package `chromium`) loads the page of a hand-built run directory
//! with a finding, and of a real `txlab run` on the shared MariaDB with
//! vendor-permitted anomalies; the tests read the DOM Chromium built
//! (`--dump-dom`) for the counts, the findings table and each report's
//! timeline (a lane per transaction, a bar per statement sent), and look at
//! its screenshot (`--screenshot`): a PNG of the page's size that is not one
//! colour. Without Chromium they say so and skip; with
//! `TXLAB_REQUIRE_LIVE=1` (as `.ci/run` sets) they fail.
//!
//! The screenshots stay in `target/tmp/html-view/` for a look.

mod common;

use common::cli_env::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use txlab_host::driver::ServerKind;
use txlab_plugin_api::ir::*;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 2400;

fn require_live() -> bool {
    std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1")
}

/// Chromium's binary, or `None` (having said why) when the test may skip.
fn chromium(what: &str) -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
    });
    if found.is_none() {
        let why = format!("{what}: chromium is not installed (apt-get install chromium)");
        assert!(!require_live(), "{why}");
        eprintln!("skipped: {why}");
    }
    found
}

/// Runs headless Chromium on `page` with `args`; its stdout. Its output goes
/// to files (a dumped DOM fills a pipe long before Chromium ends).
fn run_chromium(browser: &Path, page: &Path, args: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let stdout_path = profile.path().join("stdout");
    let stderr_path = profile.path().join("stderr");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("profile").display()
        ))
        .args(args)
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish within 60 s: {}",
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "chromium failed: {}",
        std::fs::read_to_string(&stderr_path).unwrap_or_default()
    );
    std::fs::read_to_string(&stdout_path).unwrap()
}

/// The page as Chromium built it, and its screenshot (kept under `name`).
fn render(browser: &Path, page: &Path, name: &str) -> (String, PathBuf) {
    let dom = run_chromium(browser, page, &["--dump-dom".to_string()]);
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-view");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    run_chromium(
        browser,
        page,
        &[
            format!("--screenshot={}", png.display()),
            format!("--window-size={WIDTH},{HEIGHT}"),
        ],
    );
    eprintln!("screenshot: {}", png.display());
    (dom, png)
}

/// The screenshot is the page as drawn: a PNG of the window's size with
/// text and pictures on it, not a blank or one-colour page.
fn check_screenshot(png: &Path) {
    let bytes = std::fs::read(png).unwrap();
    assert!(
        bytes.len() > 30_000,
        "{} is {} bytes",
        png.display(),
        bytes.len()
    );
    let image = common::png::decode(&bytes).unwrap();
    assert_eq!((image.width, image.height), (WIDTH, HEIGHT));
    let mut colours: Vec<[u8; 4]> = image.pixels.clone();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 50, "{} colours", colours.len());
    let white = image
        .pixels
        .iter()
        .filter(|p| p[..3] == [255, 255, 255])
        .count();
    let inked = image.pixels.len() - white;
    assert!(
        inked * 20 > image.pixels.len(),
        "only {inked} of {} pixels are not white",
        image.pixels.len()
    );
    // The header bar is dark, the page below it light: drawn with the
    // page's own style.
    let at = |x: u32, y: u32| image.pixels[(y * image.width + x) as usize];
    assert!(at(5, 5)[..3].iter().all(|&c| c < 80), "{:?}", at(5, 5));
}

/// The text between `<tag ... id="id"` and the element's end tag (no nesting of
/// the same tag inside, as for sections and tables here).
fn element<'a>(dom: &'a str, tag: &str, id: &str) -> &'a str {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element with id {id}"));
    let start = dom[..start].rfind(&format!("<{tag}")).unwrap();
    let end = start + dom[start..].find(&format!("</{tag}>")).unwrap();
    &dom[start..end]
}

/// The first `<svg class="{class}"` … `</svg>` in `html`.
fn svg<'a>(html: &'a str, class: &str) -> Option<&'a str> {
    let start = html.find(&format!("<svg class=\"{class}\""))?;
    let end = start + html[start..].find("</svg>")?;
    Some(&html[start..end])
}

fn count_card(dom: &str, kind: &str) -> u64 {
    let at = dom
        .find(&format!("data-kind=\"{kind}\"><span class=\"n\">"))
        .unwrap_or_else(|| panic!("no count card {kind}"));
    let rest = &dom[at..];
    let rest = &rest[rest.find("class=\"n\">").unwrap() + "class=\"n\">".len()..];
    rest[..rest.find('<').unwrap()].parse().unwrap()
}

/// A report's section holds its timeline: one lane per transaction of its
/// history, one bar per statement that was sent, a hatched span per blocked
/// statement and an arrow per resumption.
fn check_timeline(dom: &str, report_dir: &Path, section_id: &str) {
    let history: History =
        serde_json::from_str(&std::fs::read_to_string(report_dir.join("history.json")).unwrap())
            .unwrap();
    let section = element(dom, "section", section_id);
    let timeline = svg(section, "timeline").unwrap_or_else(|| panic!("{section_id}: no timeline"));
    assert_eq!(
        timeline.matches("<g class=\"lane\"").count(),
        history.transactions.len(),
        "{section_id}"
    );
    for t in 0..history.transactions.len() {
        assert!(timeline.contains(&format!("data-txn=\"T{}\"", t + 1)));
    }
    let records = history.statements.iter().flatten();
    let sent = records.clone().filter(|r| r.submitted_us.is_some()).count();
    assert_eq!(
        timeline.matches("<rect class=\"bar\"").count(),
        sent,
        "{section_id}"
    );
    let blocked = records
        .clone()
        .filter(|r| r.submitted_us.is_some() && r.blocked.is_some());
    assert_eq!(
        timeline.matches("<rect class=\"wait\"").count(),
        blocked.clone().count()
    );
    let resumed = blocked.filter(|r| r.blocked.as_ref().unwrap().resumed_after.is_some());
    assert_eq!(
        timeline.matches("<path class=\"resume\"").count(),
        resumed.count()
    );
    let aborted = history
        .transactions
        .iter()
        .filter(|t| matches!(t.end, TxnEnd::Aborted { .. }))
        .count();
    assert_eq!(timeline.matches("<g class=\"abort\"").count(), aborted);
}

/// Nothing of the page comes from elsewhere: no scripts, styles, fonts,
/// images or frames by URL, every `url()` a reference inside the page, and
/// every link relative (to the run's files or a section). URLs in the
/// oracles' text stay text.
fn check_offline(html: &str) {
    // Markup from the run is escaped, so a `<` here starts one of our tags.
    for tag in [
        "<link", "<script", "<img", "<iframe", "<object", "<embed", "<audio", "<video",
    ] {
        assert!(!html.contains(tag), "the page has {tag}");
    }
    let style = &html[html.find("<style>").unwrap()..html.find("</style>").unwrap()];
    for bad in ["@import", "@font-face", "url("] {
        assert!(!style.contains(bad), "the style has {bad}");
    }
    for (i, _) in html.match_indices("=\"url(") {
        assert!(html[i..].starts_with("=\"url(#"), "{}", &html[i..i + 40]);
    }
    for (i, _) in html.match_indices(" href=\"") {
        let target = &html[i + 7..];
        let target = &target[..target.find('"').unwrap()];
        assert!(
            !target.contains(':') && !target.starts_with('/'),
            "a link to {target}"
        );
    }
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

fn record(
    txn: usize,
    stmt: usize,
    sql: &str,
    span: (u64, u64),
    blocked: Option<(u64, StatementRef)>,
    outcome: Outcome,
) -> StatementRecord {
    StatementRecord {
        at: StatementRef::new(txn, stmt),
        sql: sql.into(),
        submitted_us: Some(span.0),
        completed_us: Some(span.1),
        blocked: blocked.map(|(detected_us, after)| Blocking {
            detected_us,
            evidence: BlockEvidence::Probe,
            resumed_after: Some(after),
        }),
        outcome,
    }
}

/// A run directory as `txlab run` writes it, built by hand: a finding whose
/// T2 UPDATE waited for T1's COMMIT and whose T3 was a deadlock victim
/// (its COMMIT never sent), with a dependency cycle, Troc-shaped
/// evidence, a reduced case, an export file, and a title that tries to
/// inject markup.
fn hand_built_run(dir: &Path) -> PathBuf {
    let finding = dir.join("findings/case-000003-troc");
    std::fs::create_dir_all(finding.join("reduced")).unwrap();
    let t1_commit = StatementRef::new(0, 2);
    let rows = |rows: Vec<Vec<Value>>| Outcome::Rows {
        columns: vec!["k".into(), "v".into()],
        rows,
    };
    let history = History {
        statements: vec![
            vec![
                record(
                    0,
                    0,
                    "SELECT k, v FROM t0 WHERE k = 1",
                    (120, 480),
                    None,
                    rows(vec![vec![Value::Int(1), Value::Int(10)]]),
                ),
                record(
                    0,
                    1,
                    "UPDATE t0 SET v = 11 WHERE k = 1",
                    (1_300, 1_900),
                    None,
                    Outcome::Affected { rows: 1 },
                ),
                record(0, 2, "COMMIT", (420_000, 421_000), None, Outcome::Done),
            ],
            vec![
                record(
                    1,
                    0,
                    "UPDATE t0 SET v = v + 1 WHERE k = 1",
                    (2_500, 421_400),
                    Some((52_000, t1_commit)),
                    Outcome::Affected { rows: 1 },
                ),
                record(
                    1,
                    1,
                    "SELECT k, v FROM t0 WHERE k = 1",
                    (421_900, 422_300),
                    None,
                    rows(vec![vec![Value::Int(1), Value::Int(11)]]),
                ),
                record(1, 2, "COMMIT", (422_500, 423_100), None, Outcome::Done),
            ],
            vec![
                record(
                    2,
                    0,
                    "DELETE FROM t0 WHERE k = 1",
                    (3_100, 60_000),
                    None,
                    Outcome::Error(DbError {
                        class: ErrorClass::Deadlock,
                        scope: ErrorScope::Transaction,
                        code: Some(1213),
                        sqlstate: Some("40001".into()),
                        message: "Deadlock found when trying to get lock".into(),
                    }),
                ),
                StatementRecord {
                    at: StatementRef::new(2, 1),
                    sql: "COMMIT".into(),
                    submitted_us: None,
                    completed_us: None,
                    blocked: None,
                    outcome: Outcome::NotSubmitted,
                },
            ],
        ],
        transactions: vec![
            TransactionRecord {
                isolation: IsolationLevel::RepeatableRead,
                end: TxnEnd::Committed,
                ended_us: Some(421_000),
            },
            TransactionRecord {
                isolation: IsolationLevel::RepeatableRead,
                end: TxnEnd::Committed,
                ended_us: Some(423_100),
            },
            TransactionRecord {
                isolation: IsolationLevel::ReadCommitted,
                end: TxnEnd::Aborted {
                    by: StatementRef::new(2, 0),
                    class: ErrorClass::Deadlock,
                },
                ended_us: Some(60_000),
            },
        ],
        completion_order: [(0, 0), (0, 1), (2, 0), (0, 2), (1, 0), (1, 1), (1, 2)]
            .iter()
            .map(|&(t, s)| StatementRef::new(t, s))
            .collect(),
        ..History::default()
    };
    write_json(&finding.join("history.json"), &history);
    write_json(&finding.join("reduced/history.json"), &history);
    write_json(
        &finding.join("finding.json"),
        &Finding {
            title: "Troc: inconsistent query result at T2.2 <script>alert(1)</script>".into(),
            signature: String::new(),
            summary: "T2.2 alone on its snapshot returns (1, 10); here it returned (1, 11)".into(),
            model: "Troc's model: each statement alone on its view".into(),
            assumed_semantics: "- `mariadb` at REPEATABLE READ: snapshot at the first read".into(),
            explanation: "T2.2 returned **(1, 11)**; its snapshot holds `(1, 10)`.".into(),
            evidence: serde_json::json!({
                "execution_order": ["T1.1", "T1.2", "T1.3", "T2.1", "T2.2", "T2.3"],
                "differences": [{
                    "kind": "query_result",
                    "at": {"txn": 1, "stmt": 1},
                    "level": "repeatable_read",
                    "view": "T2's snapshot",
                    "expected": "(1, 10)",
                    "actual": "(1, 11)",
                    "only_expected": [[{"int": 1}, {"int": 10}]],
                    "only_actual": [[{"int": 1}, {"int": 11}]],
                }]
            }),
            files: vec![],
        },
    );
    write_json(
        &finding.join("provenance.json"),
        &serde_json::json!({
            "kind": "finding", "oracle": "troc", "dialect": "mariadb", "generator": "random",
            "pipeline": "/configs/troc-mariadb.toml", "run_seed": 10, "case_index": 3,
            "case_seed": 99, "txlab_version": "0.2.0"
        }),
    );
    std::fs::write(
        finding.join("cycle.dot"),
        "digraph anomaly {\n  label=\"G-single (read skew)\";\n  t0 [label=\"T1\\ncommitted\\nrepeatable-read\"];\n  t1 [label=\"T2\\ncommitted\\nrepeatable-read\"];\n  t0 -> t1 [label=\"ww t0 row 1\", tooltip=\"T1 wrote row 1 first\"];\n  t1 -> t0 [label=\"rw t0 row 1\", tooltip=\"T2 read row 1 before T1 wrote it\", style=dashed];\n}\n",
    )
    .unwrap();
    let repro = "-- txlab finding\nCREATE TABLE t0 (k INT PRIMARY KEY, v INT);\n/* T1 */ BEGIN;\n/* T2 */ UPDATE t0 SET v = v + 1 WHERE k = 1; -- blocked, resumed after T1.3\n";
    std::fs::write(finding.join("repro.sql"), repro).unwrap();
    std::fs::write(finding.join("reduced/repro.sql"), repro).unwrap();
    std::fs::write(finding.join("report.md"), "# Troc\n").unwrap();
    std::fs::write(
        finding.join("case-000003.test"),
        "--connect (c1,localhost,root)\n",
    )
    .unwrap();
    write_json(
        &finding.join("reduction.json"),
        &serde_json::json!({
            "outcome": "reduced", "before": {"statements": 9, "transactions": 2, "initial_rows": 4},
            "after": {"statements": 6, "transactions": 2, "initial_rows": 1},
            "reproduced": 3, "confirm_runs": 3
        }),
    );
    write_json(
        &dir.join("summary.json"),
        &serde_json::json!({
            "seed": 10, "cases": 40, "passed": 35, "cases_with_findings": 1, "findings": 1,
            "undecided": 2, "undecided_reasons": {"wss: the run was not fully observed": 2},
            "finding_kinds": {"troc: Troc: inconsistent query result": 1},
            "cases_with_anomalies": 1, "anomalies": 1,
            "anomaly_kinds": {"isorel: G-single (lost update) at repeatable-read": 1},
            "cases_unconfirmed": 0, "unconfirmed": 0, "errors": 1, "elapsed_secs": 4.2,
            "stopped_early": null, "interrupted": false,
        }),
    );
    finding
}

#[test]
fn a_hand_built_run_with_a_finding_renders_in_chromium() {
    let Some(browser) = chromium("the page of a hand-built run") else {
        return;
    };
    let env = Env::new(&[]);
    let run = env.work.path().join("run-2026-01-01T00-00-00Z-seed10");
    let finding = hand_built_run(&run);
    let o = env.txlab(&["html", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = run.join("index.html");
    assert_eq!(stdout(&o).trim(), page.display().to_string());
    let html = std::fs::read_to_string(&page).unwrap();
    check_offline(&html);

    let (dom, png) = render(&browser, &page, "hand-built");
    check_screenshot(&png);
    // The counts, from summary.json.
    for (kind, n) in [
        ("cases", 40),
        ("passed", 35),
        ("findings", 1),
        ("anomalies", 1),
        ("undecided", 2),
        ("errors", 1),
    ] {
        assert_eq!(count_card(&dom, kind), n, "{kind}");
    }
    assert!(element(&dom, "table", "anomaly-kinds").contains("G-single (lost update)"));
    assert!(element(&dom, "table", "undecided-reasons").contains("not fully observed"));
    // The findings table links to the finding's section.
    let table = element(&dom, "table", "reports-table");
    assert_eq!(table.matches("<tr data-kind=").count(), 1);
    let id = "r-findings-case-000003-troc";
    assert!(table.contains(&format!("href=\"#{id}\"")), "{table}");
    // The title's markup is text, in the table and in the section.
    assert!(
        !dom.contains("<script"),
        "markup from the run became an element"
    );
    assert!(table.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    check_timeline(&dom, &finding, id);
    let section = element(&dom, "section", id);
    // T2.1 waited for T1.3: the arrow goes from T1.3 to T2.1. T3 was
    // aborted: its DELETE is an error bar, then a cross.
    assert!(section.contains("data-from=\"T1.3\" data-to=\"T2.1\""));
    assert!(section.contains("<g class=\"stmt error\" data-at=\"T3.1\""));
    assert!(section.contains("<g class=\"abort\" data-txn=\"T3\""));
    assert!(section.contains("read-committed · aborted (deadlock)"));
    // The cycle: two transactions, two labelled edges, one of them rw.
    let cycle = svg(section, "cycle").expect("a cycle picture");
    assert_eq!(cycle.matches("<g class=\"node\"").count(), 2);
    assert_eq!(cycle.matches("<g class=\"dep").count(), 2);
    assert!(cycle.contains("rw t0 row 1") && cycle.contains("class=\"dep dashed\""));
    // Expected against actual, the reduced case, the export.
    let compare = &section[section
        .find("<table class=\"compare\"")
        .expect("expected and actual")..];
    assert!(compare.contains("(1, 10)") && compare.contains("(1, 11)"));
    assert!(section.contains("UPDATE t0 SET v = v + 1 WHERE k = 1; -- blocked, resumed after T1.3"));
    assert!(section.contains("href=\"findings/case-000003-troc/reduced/repro.sql\""));
    assert!(section.contains("href=\"findings/case-000003-troc/case-000003.test\""));
    assert!(section.contains("mysql-test (export)"));
    assert!(section.contains("reduced, 9 → 6 statements"));

    // Not a run directory: one line, exit 2.
    let o = env.txlab(&["html", env.work.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a run directory"),
        "{}",
        stderr(&o)
    );
}

/// 100 cases of `configs/troc-mariadb.toml` with seed 10 on the shared
/// MariaDB (10.11): cases 82 and 90 show InnoDB's semi-consistent read,
/// three vendor-permitted anomalies (Troc's and WSS's), in about 10 s.
/// The page `txlab run` wrote is the one `txlab html` writes from the
/// files, and Chromium shows every report with its timeline.
#[test]
fn a_real_mariadb_run_with_anomalies_renders_in_chromium() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    if !rt.block_on(common::servers::reachable(
        ServerKind::Mysql,
        "the page of a MariaDB run",
    )) {
        return;
    }
    let Some(browser) = chromium("the page of a MariaDB run") else {
        return;
    };
    let env = Env::new(&[]);
    let out = env.out();
    let url = common::servers::url(ServerKind::Mysql);
    let started = Instant::now();
    let o = env.txlab(&[
        "run",
        "configs/troc-mariadb.toml",
        "--cases",
        "100",
        "--seed",
        "10",
        "--no-reduce",
        "--url",
        &url,
        "--out",
        out.to_str().unwrap(),
    ]);
    eprintln!("the run took {:.1} s", started.elapsed().as_secs_f64());
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    let run = run_dir(&out);
    let page = run.join("index.html");
    assert!(
        stdout(&o).contains(&format!("page: {}", page.display())),
        "{}",
        stdout(&o)
    );
    let s = summary(&run);
    let anomalies = s["anomalies"].as_u64().unwrap();
    assert!(anomalies > 0, "seed 10 no longer gives an anomaly: {s}");
    // `txlab html` writes the same page again from the files.
    let written = std::fs::read_to_string(&page).unwrap();
    std::fs::remove_file(&page).unwrap();
    let o = env.txlab(&["html", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), written);
    check_offline(&written);

    let (dom, png) = render(&browser, &page, "mariadb-troc");
    check_screenshot(&png);
    for (kind, key) in [
        ("cases", "cases"),
        ("passed", "passed"),
        ("findings", "findings"),
        ("anomalies", "anomalies"),
        ("undecided", "undecided"),
        ("errors", "errors"),
    ] {
        assert_eq!(count_card(&dom, kind), s[key].as_u64().unwrap(), "{kind}");
    }
    let by_class = element(&dom, "table", "anomaly-kinds");
    for (class, n) in s["anomaly_kinds"].as_object().unwrap() {
        let row = format!("<td>{class}</td><td class=\"n\">{n}</td>");
        assert!(by_class.contains(&row), "{row} not in {by_class}");
    }
    // One row and one section with a timeline per report directory.
    let table = element(&dom, "table", "reports-table");
    let mut reports = 0;
    for kind in ["findings", "anomalies", "unconfirmed"] {
        let Ok(entries) = std::fs::read_dir(run.join(kind)) else {
            continue;
        };
        for e in entries {
            let dir = e.unwrap().path();
            let id = format!("r-{kind}-{}", dir.file_name().unwrap().to_string_lossy());
            assert!(table.contains(&format!("href=\"#{id}\"")), "{id}");
            check_timeline(&dom, &dir, &id);
            reports += 1;
        }
    }
    assert!(reports as u64 >= anomalies);
    assert_eq!(table.matches("<tr data-kind=").count(), reports);
    assert_eq!(
        table.matches("<tr data-kind=\"anomaly\"").count() as u64,
        anomalies
    );
}
