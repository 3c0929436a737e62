//! A finding its case never shows again is unconfirmed: written whole under
//! `unconfirmed/`, listed in the summary, and not counted as a finding nor in
//! the exit code. The `flaky` fixture oracle reports the first case it checks
//! and never again, as a finding that depends on timing may.

mod common;

use common::cli_env::*;

#[test]
fn a_finding_that_never_shows_again_is_unconfirmed_and_the_exit_code_is_0() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"flaky\""]));
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let printed = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{printed}\n{}", stderr(&o));
    let run = run_dir(&out);
    let s = summary(&run);
    assert_eq!(s["findings"], 0, "{s}");
    assert_eq!(s["cases_with_findings"], 0, "{s}");
    assert_eq!(s["unconfirmed"], 1, "{s}");
    assert_eq!(s["cases_unconfirmed"], 1, "{s}");
    assert_eq!(s["unconfirmed_kinds"]["flaky: once"], 1, "{s}");
    // Every case counts once: the unconfirmed one, and four passes.
    assert_eq!(s["passed"], 4, "{s}");
    assert!(!run.join("findings").join("case-000000-flaky").exists());
    let dir = run.join("unconfirmed").join("case-000000-flaky");
    for f in [
        "report.md",
        "repro.sql",
        "case.json",
        "history.json",
        "reduction.json",
    ] {
        assert!(dir.join(f).exists(), "{f} missing in {}", dir.display());
    }
    let reduction: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reduction.json")).unwrap())
            .unwrap();
    assert_eq!(reduction["outcome"], "original_did_not_reproduce");
    assert!(printed.contains("unconfirmed 1 (in 1 cases)"), "{printed}");
    assert!(printed.contains("findings 0"), "{printed}");
}

#[test]
fn a_finding_that_shows_again_stays_a_finding() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"accuse\""]));
    let out = env.out();
    let o = env.txlab(&[
        "run",
        p.to_str().unwrap(),
        "--cases",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let run = run_dir(&out);
    let s = summary(&run);
    assert_eq!(
        (s["findings"].as_u64(), s["unconfirmed"].as_u64()),
        (Some(1), Some(0))
    );
    assert!(run.join("findings").join("case-000000-accuse").exists());
    assert!(!run.join("unconfirmed").exists());
}

/// The `paced` fixture oracle reports its first case and then only runs that
/// sent two statements 150 ms apart: the confirmation finds it again with the
/// second pace of the ladder (200 ms), keeps that pace for the reduction,
/// records it, and `txlab replay` runs with it.
#[test]
fn a_finding_that_shows_only_at_a_slower_pace_is_confirmed_paced() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"paced\""]));
    let out = env.out();
    let o = env.txlab(&[
        "run",
        p.to_str().unwrap(),
        "--cases",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let run = run_dir(&out);
    let s = summary(&run);
    assert_eq!(
        (s["findings"].as_u64(), s["unconfirmed"].as_u64()),
        (Some(1), Some(0))
    );
    let dir = run.join("findings").join("case-000000-paced");
    let reduction: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reduction.json")).unwrap())
            .unwrap();
    assert_eq!(reduction["outcome"], "reduced", "{reduction}");
    assert_eq!(reduction["pace_ms"], 200, "{reduction}");
    // The reduced case carries the pace, and its repro script says it.
    let reduced = dir.join("reduced");
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reduced.join("generated.json")).unwrap())
            .unwrap();
    assert_eq!(case["pace_ms"], 200, "{case}");
    // The reduced report's commands name the reduced directory, which exists.
    let report = std::fs::read_to_string(reduced.join("report.md")).unwrap();
    assert!(
        report.contains("`txlab replay findings/case-000000-paced/reduced`"),
        "{report}"
    );
    assert!(!report.contains("reduced.new"), "{report}");
    let repro = std::fs::read_to_string(reduced.join("repro.sql")).unwrap();
    assert!(
        repro.contains("-- pace: 200 ms after each statement that blocked"),
        "{repro}"
    );
    for replayed in [&dir, &reduced] {
        let o = env.txlab(&["replay", replayed.to_str().unwrap(), "--times", "2"]);
        let printed = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{printed}\n{}", stderr(&o));
        assert!(printed.contains("a 200 ms pause"), "{printed}");
        assert!(printed.contains("reproduced 2/2"), "{printed}");
    }
    // Imported back, the script keeps the pace.
    let o = env.txlab(&["import", reduced.join("repro.sql").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let imported: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(imported["pace_ms"], 200, "{imported}");
}
