//! `summary.json` of real runs (SQLite, fixture and shipped oracles) is
//! valid against the JSON Schema shipped in docs/summary.schema.json, its
//! counts add up, and `errors.log` and `undecided.log` are JSON Lines with
//! the fields docs/findings.md documents.

mod common;

use common::cli_env::*;
use serde_json::Value;
use std::path::Path;

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(common::repo_root().join("docs/summary.schema.json"))
        .expect("docs/summary.schema.json");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a JSON Schema")
}

/// Runs `oracles` for `cases` on SQLite and returns the run directory.
fn run(env: &Env, name: &str, oracles: &[&str], cases: u32, exit: i32) -> std::path::PathBuf {
    let p = env.pipeline(&format!("{name}.toml"), &pipeline("random", oracles));
    let out = env.work.path().join(name);
    let o = env.txlab(&[
        "run",
        p.to_str().unwrap(),
        "--cases",
        &cases.to_string(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(exit), "{name}: {}", stderr(&o));
    run_dir(&out)
}

/// The lines of a JSON Lines log, each an object.
fn json_lines(path: &Path) -> Vec<serde_json::Map<String, Value>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| match serde_json::from_str(line) {
            Ok(Value::Object(o)) => o,
            other => panic!("{}: not a JSON object: {line} ({other:?})", path.display()),
        })
        .collect()
}

fn count(s: &Value, key: &str) -> u64 {
    s[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing: {s}"))
}

/// The summary validates and adds up; returns it.
fn check_summary(validator: &jsonschema::Validator, run: &Path) -> Value {
    let s = summary(run);
    let errors: Vec<String> = validator.iter_errors(&s).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{}: {errors:#?}\n{s:#}", run.display());
    // Every case once.
    assert_eq!(
        count(&s, "cases"),
        [
            "passed",
            "cases_with_findings",
            "cases_with_anomalies",
            "cases_unconfirmed",
            "undecided",
            "errors"
        ]
        .iter()
        .map(|k| count(&s, k))
        .sum::<u64>(),
        "{s:#}"
    );
    // Reasons: one per oracle that could not decide a case.
    let reasons: u64 = s["undecided_reasons"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(reasons, count(&s, "undecided_reasons_total"), "{s:#}");
    assert!(reasons >= count(&s, "undecided"), "{s:#}");
    assert_eq!(
        json_lines(&run.join("undecided.log")).len() as u64,
        reasons,
        "{s:#}"
    );
    // One directory per finding, anomaly and unconfirmed finding, each there.
    for (dirs, n) in [
        ("finding_dirs", "findings"),
        ("anomaly_dirs", "anomalies"),
        ("unconfirmed_dirs", "unconfirmed"),
    ] {
        let listed = s[dirs].as_array().unwrap();
        assert_eq!(listed.len() as u64, count(&s, n), "{dirs}: {s:#}");
        for d in listed {
            let dir = run.join(d.as_str().unwrap());
            assert!(dir.join("report.md").is_file(), "{}", dir.display());
        }
    }
    assert_eq!(s["format_version"], 1);
    assert_eq!(s["txlab_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(s["dialect"], "sqlite");
    assert!(
        s["server_version"]
            .as_str()
            .unwrap()
            .starts_with("SQLite 3."),
        "{s:#}"
    );
    assert!(Path::new(s["pipeline"].as_str().unwrap()).is_absolute());
    s
}

#[test]
fn real_summaries_validate_against_the_shipped_schema_and_add_up() {
    let validator = schema();
    let env = Env::new(&["txlab-fixture-panicky"]);
    let runs = [
        run(&env, "accuse", &["plugin = \"accuse\""], 2, 1),
        run(&env, "flaky", &["plugin = \"flaky\""], 3, 0),
        run(&env, "permitted", &["plugin = \"permitted\""], 4, 0),
        run(
            &env,
            "shipped",
            &[
                "plugin = \"wss\"",
                "plugin = \"troc\"",
                "plugin = \"isorel\"",
            ],
            6,
            0,
        ),
    ];
    let summaries: Vec<Value> = runs.iter().map(|r| check_summary(&validator, r)).collect();
    // The runs showed what the lists hold.
    assert_eq!(summaries[0]["finding_dirs"].as_array().unwrap().len(), 2);
    assert_eq!(
        summaries[1]["unconfirmed_dirs"][0],
        "unconfirmed/case-000000-flaky"
    );
    assert!(count(&summaries[2], "anomalies") > 0, "{:#}", summaries[2]);
    // A summary with a field the schema does not know is refused: the
    // schema documents every field.
    let mut extra = summaries[0].clone();
    extra["surprise"] = Value::Bool(true);
    assert!(!validator.is_valid(&extra));
    let mut wrong = summaries[0].clone();
    wrong["finding_dirs"] = serde_json::json!(["/abs/findings/case-000001-x"]);
    assert!(!validator.is_valid(&wrong));
}

/// Two `unsure` oracles: one undecided on every case, one on every other
/// case; a panicking oracle on every third. Each reason is a line of
/// undecided.log, each failure a line of errors.log.
#[test]
fn the_logs_are_json_lines_and_the_undecided_counts_add_up() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let run = run(
        &env,
        "logs",
        &[
            "plugin = \"unsure\"\nconfig = { reason = \"always\" }",
            "plugin = \"unsure\"\nconfig = { reason = \"sometimes\", every = 2 }",
            "plugin = \"panicky\"\nconfig = { every = 3 }",
        ],
        5,
        // An oracle failed: a tool error's exit code.
        3,
    );
    let s = check_summary(&schema(), &run);
    // Five undecided cases, with 5 + 3 reasons.
    assert_eq!(
        (count(&s, "undecided"), count(&s, "undecided_reasons_total")),
        (5, 8),
        "{s:#}"
    );
    assert_eq!(s["undecided_reasons"]["unsure: always"], 5, "{s:#}");
    assert_eq!(s["undecided_reasons"]["unsure: sometimes"], 3, "{s:#}");
    let undecided = json_lines(&run.join("undecided.log"));
    for line in &undecided {
        let mut keys: Vec<&str> = line.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "case_index",
                "case_seed",
                "group",
                "kind",
                "oracle",
                "reason",
                "run_seed"
            ],
            "{line:?}"
        );
        assert_eq!(line["kind"], "undecided");
        assert_eq!(line["oracle"], "unsure");
        assert_eq!(line["run_seed"], 7);
        assert!(line["case_seed"].is_u64(), "{line:?}");
        assert!(
            line["reason"].as_str().unwrap().contains(" transactions"),
            "{line:?}"
        );
    }
    let case_zero: Vec<&str> = undecided
        .iter()
        .filter(|l| l["case_index"] == 0)
        .map(|l| l["group"].as_str().unwrap())
        .collect();
    assert_eq!(case_zero, ["unsure: always", "unsure: sometimes"]);
    // The panicking oracle failed on its third check (case 2): one line,
    // naming it, as summary.json counts it.
    let errors = json_lines(&run.join("errors.log"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(s["oracle_errors"]["panicky"], 1, "{s:#}");
    for line in &errors {
        let mut keys: Vec<&str> = line.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "case_index",
                "case_seed",
                "error",
                "kind",
                "oracle",
                "run_seed"
            ],
            "{line:?}"
        );
        assert_eq!(line["kind"], "oracle");
        assert_eq!(line["oracle"], "panicky");
        assert_eq!(line["case_index"], 2);
        assert!(
            line["error"].as_str().unwrap().contains("injected panic"),
            "{line:?}"
        );
    }
}
