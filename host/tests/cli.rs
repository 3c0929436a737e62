//! The `txlab` binary end to end: plugin listing, the quickstart, bad input, plugin
//! panics, findings on disk and determinism.

mod common;

use common::cli_env::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use txlab_plugin_api::{ABI_LINE, IR_VERSION};

#[test]
fn plugins_list_shows_every_shipped_plugin() {
    let env = Env::new(&[]);
    let out = plugins_list(&env, false);
    for (kind, name) in [
        ("dialect", "sqlite"),
        ("dialect", "mariadb"),
        ("dialect", "mysql"),
        ("dialect", "tidb"),
        ("dialect", "postgres"),
        ("dialect", "cockroachdb"),
        ("generator", "random"),
        ("oracle", "wss"),
        ("oracle", "troc"),
    ] {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().take(2).eq([kind, name]))
            .unwrap_or_else(|| panic!("no {kind} {name} in:\n{out}"));
        assert!(row.contains(env!("CARGO_PKG_VERSION")), "{row}");
        assert!(
            row.contains(&format!("{ABI_LINE} (IR {IR_VERSION})")),
            "{row}"
        );
    }
    assert!(
        out.contains(&format!(
            "this txlab loads plugin ABI {ABI_LINE}, IR up to {IR_VERSION}"
        )),
        "{out}"
    );
}

/// A library built for IR 1.0 (as txlab-plugin-api 0.1 built them) is listed
/// with its versions, and its generator and oracle run in a pipeline; a library
/// built for a newer IR is refused in one line that says what to do.
#[test]
fn an_ir_1_0_generator_and_oracle_run_in_a_pipeline() {
    let env = Env::new(&["txlab-fixture-ir-1-0", "txlab-fixture-ir-newer"]);
    let out = plugins_list(&env, true);
    for kind in ["dialect", "generator", "oracle"] {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().take(2).eq([kind, "legacy"]))
            .unwrap_or_else(|| panic!("no {kind} legacy in:\n{out}"));
        assert!(row.contains(&format!("{ABI_LINE} (IR 1.0)")), "{row}");
    }
    let refused = out
        .lines()
        .find(|l| l.contains("libtxlab_fixture_ir_newer"))
        .unwrap_or_else(|| panic!("the newer library is not listed:\n{out}"));
    assert!(
        refused.starts_with("not loadable: ") && refused.contains("upgrade txlab or rebuild"),
        "{refused}"
    );

    let p = env.pipeline(
        "legacy.toml",
        &pipeline("legacy", &["plugin = \"legacy\"", "plugin = \"wss\""]),
    );
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    let s = summary(&run_dir(&out));
    assert_eq!(s["cases"], 5);
    // Both oracles passed every case: the IR 1.0 one had a record for each
    // transaction of the IR 1.0 case.
    assert_eq!(s["passed"], 5, "{s}");
    assert_eq!(s["exercised"]["transactions"], 10, "{s}");
}

#[test]
fn a_library_that_cannot_load_is_listed_and_named_by_its_kind() {
    let env = Env::new(&[]);
    // Where a built oracle `mystery` would be, a file that is not a library.
    let broken = env.plugins.path().join(format!(
        "{}txlab_oracle_mystery{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    std::fs::write(&broken, b"not an ELF file").unwrap();
    let o = env.txlab(&["plugins", "list"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("not loadable: cannot open"),
        "{}",
        stderr(&o)
    );
    // The shipped plugins are still listed.
    assert!(stdout(&o).contains("random"), "{}", stdout(&o));
    let o = env.txlab(&["plugins", "list", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mystery = format!("txlab_oracle_mystery{}", std::env::consts::DLL_SUFFIX);
    let broken: Vec<&serde_json::Value> = doc["not_loadable"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["file"].as_str().unwrap().ends_with(&mystery))
        .collect();
    assert_eq!(broken.len(), 1, "{doc}");
    assert!(
        broken[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("cannot open"),
        "{doc}"
    );
    let o = env.txlab(&["plugins", "show", "mystery"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("the oracle `mystery` is in ") && e.contains("which could not be loaded"),
        "{e}"
    );
}

/// `plugins list` prints only its table on stdout, one plugin a line with
/// the kind and name first (for `awk`), and with `--json` one document
/// that lists the same plugins (for `jq`); what was searched goes to stderr.
#[test]
fn plugins_list_is_a_table_on_stdout_or_json() {
    let env = Env::new(&[]);
    let o = env.txlab(&["plugins", "list"]);
    // The broken test fixtures beside txlab make the exit code 2.
    common::plugin_listing(&o);
    let table = stdout(&o);
    let mut lines = table.lines();
    assert!(lines.next().unwrap().starts_with("KIND"), "{table}");
    let rows: Vec<(String, String)> = lines
        .map(|l| {
            let mut cells = l.split_whitespace();
            let kind = cells.next().unwrap().to_string();
            let name = cells.next().unwrap().to_string();
            assert!(
                ["dialect", "generator", "oracle"].contains(&kind.as_str()),
                "a line that is not a plugin on stdout: {l}"
            );
            (kind, name)
        })
        .collect();
    assert!(rows.contains(&("oracle".into(), "wss".into())), "{table}");
    assert!(stderr(&o).contains("searched:"), "{}", stderr(&o));
    assert!(!table.contains("searched:"), "{table}");

    let o = env.txlab(&["plugins", "list", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let listed: Vec<(String, String)> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_string(),
                p["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(listed, rows);
    assert!(doc["searched"].as_array().is_some_and(|s| !s.is_empty()));
}

#[test]
fn plugins_show_prints_the_default_config() {
    let env = Env::new(&[]);
    let o = env.txlab(&["plugins", "show", "random"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("transactions = [2, 4]"),
        "{}",
        stdout(&o)
    );
    let o = env.txlab(&["plugins", "show", "randm"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `random`?"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_quickstart_runs_and_finds_nothing_on_sqlite() {
    let env = Env::new(&[]);
    let out = env.out();
    let o = env.txlab(&[
        "run",
        "configs/quickstart.toml",
        "--cases",
        "60",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    assert!(stdout(&o).contains("txlab: 60 cases"), "{}", stdout(&o));
    let s = summary(&run_dir(&out));
    assert_eq!(s["cases"], 60);
    assert_eq!(s["findings"], 0);
    assert_eq!(s["errors"], 0);
    assert_eq!(s["seed"], 42);
    // The quickstart must exercise concurrency control, not just run statements.
    let x = &s["exercised"];
    assert!(x["blocked_statements"].as_u64().unwrap() > 0, "{x}");
    assert!(
        x["aborted"]["serialization failure"].as_u64().unwrap() > 0,
        "{x}"
    );
    assert!(
        stdout(&o).contains("blocked statements in"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn check_config_accepts_every_shipped_pipeline() {
    let env = Env::new(&[]);
    let mut checked = 0;
    for entry in std::fs::read_dir(common::repo_root().join("configs")).unwrap() {
        let path = entry.unwrap().path();
        let o = env.txlab(&["check-config", path.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", path.display(), stderr(&o));
        assert!(stdout(&o).contains(": ok"), "{}", stdout(&o));
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} pipelines in configs/");
}

/// IsoRel's instrumentation, Troc's row ids and WSS's replays on the same runs:
/// isorel finds its columns by name, troc finds its own last.
#[test]
fn isorel_troc_and_wss_judge_the_same_runs() {
    let env = Env::new(&[]);
    let text = pipeline(
        "random",
        &[
            "plugin = \"isorel\"",
            "plugin = \"troc\"",
            "plugin = \"wss\"",
        ],
    )
    .replace("cases = 5", "cases = 60")
    .replace(
        "plugin = \"random\"\n",
        "plugin = \"random\"\n[generator.config]\ntables = [1, 1]\ntransactions = [2, 2]\n",
    );
    let p = env.pipeline("p.toml", &text);
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
    let s = summary(&run_dir(&out));
    assert_eq!(s["passed"], 60, "{s}");
}

/// The shipped TxCheck pipeline on SQLite: every case judged, nothing found
/// (SQLite serializes its writers), few left undecided.
#[test]
fn the_txcheck_pipeline_runs_on_sqlite() {
    let env = Env::new(&[]);
    let out = env.out();
    let o = env.txlab(&[
        "run",
        "configs/txcheck-sqlite.toml",
        "--cases",
        "100",
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
    let s = summary(&run_dir(&out));
    assert_eq!(s["errors"], 0, "{s}");
    assert!(s["passed"].as_u64().unwrap() >= 80, "{s}");
}

/// `txlab generate`: the same seed prints byte-identical cases, another seed
/// others; `--sql` renders them per session; nothing runs.
#[test]
fn generate_prints_the_cases_a_seed_makes() {
    let env = Env::new(&[]);
    let generate = |extra: &[&str]| {
        let mut args = vec!["generate", "configs/quickstart.toml", "--cases", "5"];
        args.extend_from_slice(extra);
        let o = env.txlab(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let a = generate(&["--seed", "9"]);
    assert_eq!(a, generate(&["--seed", "9"]));
    assert_ne!(a, generate(&["--seed", "10"]));
    let lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines.len(), 5, "{a}");
    for line in &lines {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(case["transactions"]
            .as_array()
            .is_some_and(|t| !t.is_empty()));
    }
    // The very case a run with that seed makes (the fixture oracle writes
    // every case it sees as a finding, with the generated case).
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"accuse\""]));
    let o = env.txlab(&[
        "generate",
        p.to_str().unwrap(),
        "--cases",
        "4",
        "--seed",
        "9",
    ]);
    // Compared as cases: generated.json also labels each statement
    // reference (`"label": "T1.2"`).
    let printed: txlab_plugin_api::ir::TestCase =
        serde_json::from_str(stdout(&o).lines().nth(3).unwrap()).unwrap();
    let out = env.out();
    let o = env.txlab(&[
        "run",
        p.to_str().unwrap(),
        "--seed",
        "9",
        "--case",
        "3",
        "--no-reduce",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let ran: txlab_plugin_api::ir::TestCase = serde_json::from_str(
        &std::fs::read_to_string(run_dir(&out).join("findings/case-000003-accuse/generated.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(printed, ran);
    let sql = generate(&["--seed", "9", "--sql", "--prepared"]);
    assert_eq!(sql.matches("-- case ").count(), 5, "{sql}");
    assert!(
        sql.contains("CREATE TABLE") && sql.contains("/* T1.1 */ BEGIN"),
        "{sql}"
    );
}

#[test]
fn malformed_toml_is_reported_with_file_line_and_key() {
    let env = Env::new(&[]);
    let p = env.pipeline(
        "bad.toml",
        &pipeline("random", &["plugin = \"wss\""]).replace("cases = 5", "cases = \"five\""),
    );
    let o = env.txlab(&["check-config", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("bad.toml:2:9: `run.cases`: invalid type: string \"five\""),
        "{e}"
    );
}

/// `check-config --json`: one document on stdout, `ok` and the pipeline's
/// parts, or `ok: false` with the located error and exit 2.
#[test]
fn check_config_json_says_ok_or_the_error() {
    let env = Env::new(&[]);
    let good = env.pipeline("good.toml", &pipeline("random", &["plugin = \"wss\""]));
    let o = env.txlab(&["check-config", good.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["dialect"], "sqlite");
    assert_eq!(doc["generator"], "random");
    assert_eq!(doc["oracles"], serde_json::json!(["wss"]));
    let bad = env.pipeline(
        "bad.toml",
        &pipeline("random", &["plugin = \"wss\""]).replace("cases = 5", "cases = \"five\""),
    );
    let o = env.txlab(&["check-config", bad.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["ok"], false);
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("bad.toml:2:9: `run.cases`"),
        "{doc}"
    );
}

#[test]
fn an_unknown_key_in_a_plugin_table_is_located_and_named() {
    let env = Env::new(&[]);
    let text = format!(
        "{}\n[generator.config]\nstatementz = [1, 2]\n",
        pipeline("random", &["plugin = \"wss\""])
    );
    let p = env.pipeline("p.toml", &text);
    let o = env.txlab(&["check-config", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("p.toml:14:1: `generator.config`: generator `random`"),
        "{e}"
    );
    assert!(e.contains("statementz"), "{e}");
}

#[test]
fn an_unknown_plugin_lists_what_was_searched_and_what_exists() {
    let env = Env::new(&[]);
    let p = env.pipeline("p.toml", &pipeline("randm", &["plugin = \"wss\""]));
    let o = env.txlab(&["run", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("p.toml:9:10: `generator.plugin`: no generator plugin named `randm` (did you mean `random`?)"), "{e}");
    // Other generators may sit next to a local build of txlab; `random` is listed.
    assert!(
        e.contains("available generators: ") && e.contains("random (libtxlab_generator_random"),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "{} (TXLAB_PLUGIN_PATH)",
            env.plugins.path().display()
        )),
        "{e}"
    );
}

#[test]
fn an_unwritable_output_directory_fails_before_any_case_runs() {
    let env = Env::new(&[]);
    let blocker = env.work.path().join("not-a-dir");
    std::fs::write(&blocker, "a file where the output directory should be").unwrap();
    let o = env.txlab(&[
        "run",
        "configs/quickstart.toml",
        "--out",
        blocker.join("out").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("cannot write findings to"), "{e}");
    assert!(
        !stdout(&o).contains("cases in"),
        "a case ran: {}",
        stdout(&o)
    );
}

#[test]
fn an_oracle_panic_costs_only_its_verdict_and_the_run_goes_on() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let mut text = pipeline(
        "random",
        &[
            "plugin = \"wss\"",
            "plugin = \"panicky\"\nconfig = { every = 3 }",
        ],
    );
    text = text.replace("cases = 5", "cases = 9");
    let p = env.pipeline("p.toml", &text);
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}\n{}", stdout(&o), stderr(&o));
    let dir = run_dir(&out);
    let s = summary(&dir);
    assert_eq!(s["cases"], 9);
    // WSS judged every case; the three panics are the fixture's own errors.
    assert_eq!(s["errors"], 0, "{s}");
    assert_eq!(s["oracle_errors"]["panicky"], 3, "{s}");
    assert_eq!(
        s["passed"].as_u64().unwrap() + s["undecided"].as_u64().unwrap(),
        9,
        "{s}"
    );
    let log = std::fs::read_to_string(dir.join("errors.log")).unwrap();
    assert_eq!(log.lines().count(), 3, "{log}");
    assert!(
        log.lines()
            .all(|l| l.contains("oracle `panicky` panicked in `check`")),
        "{log}"
    );
}

#[test]
fn a_run_where_every_case_fails_stops_cleanly() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let text = pipeline("random", &["plugin = \"panicky\"\nconfig = { every = 1 }"])
        .replace("cases = 5", "cases = 500\nmax_consecutive_errors = 4");
    let p = env.pipeline("p.toml", &text);
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stdout(&o).contains("stopped early: 4 cases in a row failed"),
        "{}",
        stdout(&o)
    );
    assert_eq!(summary(&run_dir(&out))["cases"], 4);
}

#[test]
fn a_panic_while_building_a_plugin_is_a_setup_error() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline(
        "p.toml",
        &pipeline(
            "random",
            &["plugin = \"panicky\"\nconfig = { panic_in_new = true }"],
        ),
    );
    let o = env.txlab(&[
        "run",
        p.to_str().unwrap(),
        "--out",
        env.out().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("oracle `panicky` panicked in `new`: injected panic in new"),
        "{}",
        stderr(&o)
    );
}

/// A vendor-permitted anomaly is written under anomalies/ with the oracle's
/// files, counted by class, is not a finding (exit 0), and replays.
#[test]
fn vendor_permitted_anomalies_are_written_counted_and_replayed() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline(
        "p.toml",
        &pipeline("random", &["plugin = \"permitted\"", "plugin = \"wss\""]),
    );
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("vendor-permitted anomaly: "),
        "{}",
        stdout(&o)
    );
    let dir = run_dir(&out);
    let s = summary(&dir);
    let anomalies = s["anomalies"].as_u64().unwrap();
    assert!(anomalies > 0, "{s}");
    assert_eq!(
        s["anomaly_kinds"]["permitted: permitted: lost update"],
        anomalies
    );
    assert_eq!(s["findings"], 0, "{s}");
    // Every case is counted once.
    let counted: u64 = [
        "passed",
        "cases_with_findings",
        "cases_with_anomalies",
        "undecided",
        "errors",
    ]
    .iter()
    .map(|k| s[k].as_u64().unwrap())
    .sum();
    assert_eq!(counted, s["cases"].as_u64().unwrap(), "{s}");
    assert!(!dir.join("findings").exists());
    let first = std::fs::read_dir(dir.join("anomalies"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    let report = std::fs::read_to_string(first.join("report.md")).unwrap();
    assert!(
        report.contains("A **vendor-permitted anomaly**"),
        "{report}"
    );
    assert!(
        report.contains("## Standard model violated\n\nAdya PL-2.99"),
        "{report}"
    );
    assert!(report.contains("`cycle.dot`"), "{report}");
    let dot = std::fs::read_to_string(first.join("cycle.dot")).unwrap();
    assert!(dot.starts_with("digraph"), "{dot}");
    let o = env.txlab(&["replay", first.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("the same vendor-permitted anomaly"),
        "{}",
        stdout(&o)
    );
    let o = env.txlab(&["reduce", first.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("anomalies are not reduced"),
        "{}",
        stderr(&o)
    );
}

fn case_json(run: &Path, index: u64) -> String {
    std::fs::read_to_string(run.join(format!("findings/case-{index:06}-accuse/case.json"))).unwrap()
}

#[test]
fn findings_are_written_whole_and_the_same_seed_gives_the_same_cases() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"accuse\""]));
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec!["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = env.txlab(&args);
        assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
        run_dir(out)
    };
    let first = run(&env.work.path().join("a"), &[]);
    let finding = first.join("findings/case-000002-accuse");
    for f in [
        "case.json",
        "history.json",
        "finding.json",
        "provenance.json",
        "repro.sql",
        "report.md",
    ] {
        assert!(finding.join(f).is_file(), "{f} missing");
    }
    let repro = std::fs::read_to_string(finding.join("repro.sql")).unwrap();
    assert!(repro.contains("CREATE TABLE"), "{repro}");
    assert!(repro.contains("/* T1 */ BEGIN;"), "{repro}");
    let report = std::fs::read_to_string(finding.join("report.md")).unwrap();
    assert!(
        report.starts_with("# accused: every case is reported"),
        "{report}"
    );
    assert!(
        report.contains("## Model violated") && report.contains("run seed 7, case 2"),
        "{report}"
    );
    let provenance: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(finding.join("provenance.json")).unwrap())
            .unwrap();
    assert_eq!(provenance["run_seed"], 7);
    assert_eq!(provenance["case_index"], 2);

    let second = run(&env.work.path().join("b"), &[]);
    for i in 0..5 {
        assert_eq!(
            case_json(&first, i),
            case_json(&second, i),
            "case {i} differs between runs"
        );
    }
    let other_seed = run(&env.work.path().join("c"), &["--seed", "8"]);
    assert_ne!(case_json(&first, 0), case_json(&other_seed, 0));
    let single = run(&env.work.path().join("d"), &["--case", "3"]);
    assert_eq!(case_json(&first, 3), case_json(&single, 3));
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(
        &std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap()
}

fn blocked_statements(history: &serde_json::Value) -> usize {
    history["statements"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t.as_array().unwrap())
        .filter(|r| !r["blocked"].is_null())
        .count()
}

#[test]
fn a_finding_is_reduced_to_the_statements_that_matter_and_replays() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline(
        "p.toml",
        "[run]\ncases = 40\nseed = 11\n\n[target]\ndialect = \"sqlite\"\n\n\
         [generator]\nplugin = \"random\"\n[generator.config]\ntransactions = [3, 4]\nstatements = [3, 6]\n\n\
         [reduce]\nmax_per_kind = 1\n\n[[oracle]]\nplugin = \"blocked\"\n",
    );
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("reproduced"), "{}", stdout(&o));
    // Every finding is of one kind, and the summary counts them so.
    let s = summary(&run_dir(&out));
    assert_eq!(
        s["finding_kinds"]["blocked: a statement blocked"], s["findings"],
        "{s:#}"
    );
    assert!(stdout(&o).contains("finding "), "{}", stdout(&o));
    let findings: Vec<PathBuf> = std::fs::read_dir(run_dir(&out).join("findings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let reduced: Vec<&PathBuf> = findings
        .iter()
        .filter(|d| d.join("reduction.json").exists())
        .collect();
    assert_eq!(reduced.len(), 1, "max_per_kind = 1: {findings:?}");
    let finding = reduced[0];
    let reduction = read_json(&finding.join("reduction.json"));
    assert_eq!(reduction["outcome"], "reduced", "{reduction:#}");
    assert_eq!(
        reduction["reproduced"], reduction["confirm_runs"],
        "{reduction:#}"
    );
    let (before, after) = (&reduction["before"], &reduction["after"]);
    assert!(
        after["statements"].as_u64() < before["statements"].as_u64(),
        "{reduction:#}"
    );
    // A block needs two transactions, each at least BEGIN and one statement.
    assert_eq!(after["transactions"], 2, "{reduction:#}");
    assert!(after["statements"].as_u64().unwrap() <= 6, "{reduction:#}");
    let reduced_dir = finding.join("reduced");
    for f in [
        "generated.json",
        "case.json",
        "history.json",
        "finding.json",
        "repro.sql",
        "report.md",
        "provenance.json",
    ] {
        assert!(reduced_dir.join(f).is_file(), "reduced/{f} missing");
    }
    assert!(blocked_statements(&read_json(&reduced_dir.join("history.json"))) > 0);
    let report = std::fs::read_to_string(finding.join("report.md")).unwrap();
    assert!(
        report.contains("## Reduction") && report.contains("reduced/"),
        "{report}"
    );
    let reduced_report = std::fs::read_to_string(reduced_dir.join("report.md")).unwrap();
    assert!(
        reduced_report.contains("> The reduced case of the finding"),
        "{reduced_report}"
    );
    let steps = reduction["steps"].as_array().unwrap();
    assert!(!steps.is_empty(), "{reduction:#}");

    // The reduced case shows the finding again.
    let o = env.txlab(&["replay", reduced_dir.to_str().unwrap(), "--times", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("reproduced 2/2"), "{}", stdout(&o));

    // Reducing again with a budget of one trial keeps the original case, which
    // does not replace the smaller one: the attempt is written beside it.
    let o = env.txlab(&[
        "reduce",
        finding.to_str().unwrap(),
        "--max-trials",
        "1",
        "--confirm",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let again = read_json(&finding.join("reduction-attempt.json"));
    assert_eq!(again["stopped"], "the trial budget ran out", "{again:#}");
    assert_eq!(again["after"], again["before"], "{again:#}");
    assert_eq!(read_json(&finding.join("reduction.json")), reduction);
    // The run's page is written again and links the attempt.
    let page = run_dir(&out).join("index.html");
    assert!(
        stdout(&o).contains(&format!("page updated: {}", page.display())),
        "{}",
        stdout(&o)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("/reduction-attempt.json\""), "{html}");
    assert_eq!(
        read_json(&reduced_dir.join("generated.json"))["transactions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert!(
        stdout(&o).contains("could not be reduced")
            && stdout(&o).contains("the trial budget ran out"),
        "{}",
        stdout(&o)
    );
    // A reduced case is not reduced on its own.
    let o = env.txlab(&["reduce", reduced_dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a reduced case"), "{}", stderr(&o));
}

#[test]
fn replay_says_what_is_missing_when_the_directory_is_not_a_finding() {
    let env = Env::new(&[]);
    let o = env.txlab(&["replay", env.work.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a finding directory"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn ctrl_c_stops_a_run_cleanly_with_its_summary() {
    stops_cleanly_on("INT");
}

/// A service manager's stop (SIGTERM) and a closed terminal (SIGHUP) stop a
/// run as Ctrl-C does: summary written, databases dropped, exit 130.
#[test]
fn sigterm_and_sighup_stop_a_run_cleanly_with_its_summary() {
    stops_cleanly_on("TERM");
    stops_cleanly_on("HUP");
}

fn stops_cleanly_on(signal: &str) {
    let env = Env::new(&[]);
    let out = env.out();
    let mut child = Command::new(env!("CARGO_BIN_EXE_txlab"))
        .args([
            "run",
            "configs/quickstart.toml",
            "--duration",
            "2m",
            "--out",
        ])
        .arg(&out)
        .env("TXLAB_PLUGIN_PATH", env.plugins.path())
        .env_remove("RUST_LOG")
        .current_dir(common::repo_root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Let it run some cases, then interrupt it as a terminal would.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
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
            "txlab did not stop after SIG{signal}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let o = child.wait_with_output().unwrap();
    assert_eq!(status.code(), Some(130), "{}\n{}", stdout(&o), stderr(&o));
    let s = summary(&run_dir(&out));
    assert_eq!(s["interrupted"], true, "{s:#}");
    assert!(s["cases"].as_u64().unwrap() > 0, "{s:#}");
    assert!(
        s["stopped_early"].as_str().unwrap().contains("interrupted"),
        "{s:#}"
    );
    assert!(
        stdout(&o).contains("stopped early: interrupted"),
        "{}",
        stdout(&o)
    );
}

/// `txlab semantics` on the embedded SQLite: every experiment judged at the
/// one level SQLite offers, none contradicted, the report also as JSON.
#[test]
fn semantics_checks_the_sqlite_profile_and_exits_0() {
    let env = Env::new(&[]);
    let file = env.pipeline("semantics.toml", &pipeline("random", &["plugin = \"wss\""]));
    let json = file.with_file_name("semantics.json");
    let o = env.txlab(&[
        "semantics",
        file.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(
        text.starts_with("semantics of dialect `sqlite` on SQLite"),
        "{text}"
    );
    assert!(text.contains("0 contradict"), "{text}");
    assert!(text.contains("agrees      write_conflict"), "{text}");
    assert!(text.contains("not probed:\n  serial_order"), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), txlab_semantics::EXPERIMENTS.len());
    assert!(results
        .iter()
        .all(|r| r["level"] == "serializable" && r["judgement"] != "contradicts"));
}
