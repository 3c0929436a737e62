//! `--strict` (or `[run] strict = true`): vendor-permitted anomalies count as
//! findings, for testing a DBMS against the standard models rather than its
//! own documentation. The `permitted` fixture oracle reports a
//! vendor-permitted anomaly for every case of two or more transactions.

mod common;

use common::cli_env::*;

fn check_strict_run(env: &Env, args: &[&str], out: &std::path::Path) {
    let o = env.txlab(args);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let run = run_dir(out);
    let s = summary(&run);
    let findings = s["findings"].as_u64().unwrap();
    assert!(findings > 0, "{s}");
    assert_eq!(s["anomalies"], 0, "{s}");
    assert_eq!(
        s["finding_kinds"]["permitted: permitted: lost update"], findings,
        "{s}"
    );
    assert!(!run.join("anomalies").exists());
    let first = std::fs::read_dir(run.join("findings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    // Reduced as a finding: the reduced case shows it again.
    let reduction: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("reduction.json")).unwrap())
            .unwrap();
    assert_eq!(reduction["outcome"], "reduced", "{reduction}");
}

#[test]
fn strict_makes_vendor_permitted_anomalies_findings() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"permitted\""]));
    let out = env.work.path().join("flag");
    check_strict_run(
        &env,
        &[
            "run",
            p.to_str().unwrap(),
            "--strict",
            "--out",
            out.to_str().unwrap(),
        ],
        &out,
    );
    let keyed = env.pipeline(
        "strict.toml",
        &pipeline("random", &["plugin = \"permitted\""])
            .replace("[run]\n", "[run]\nstrict = true\n"),
    );
    let out = env.work.path().join("key");
    check_strict_run(
        &env,
        &[
            "run",
            keyed.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &out,
    );
}

/// Without `--strict` the same anomalies are written under `anomalies/`,
/// exit 0, and their repro script says what they are.
#[test]
fn without_strict_anomalies_are_named_as_such() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"permitted\""]));
    let out = env.out();
    let o = env.txlab(&[
        "run",
        p.to_str().unwrap(),
        "--cases",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
    let run = run_dir(&out);
    let first = std::fs::read_dir(run.join("anomalies"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    let repro = std::fs::read_to_string(first.join("repro.sql")).unwrap();
    assert!(
        repro.starts_with("-- txlab vendor-permitted anomaly: "),
        "{repro}"
    );
}
