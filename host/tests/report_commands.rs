//! Every command a finding's report prints runs as printed, from the run
//! directory, and exits as the report says; `txlab replay --pipeline` on
//! another target records what it did there in the finding's directory and
//! report. On SQLite, with the `accuse` fixture oracle (a finding for every
//! case) and `flaky` (a finding once, never again: unconfirmed).

mod common;

use common::cli_env::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `txlab ARGS` run from `dir`, as a user who copied the command would.
fn txlab_in(env: &Env, dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_txlab"))
        .args(args)
        .env("TXLAB_PLUGIN_PATH", env.plugins.path())
        .env_remove("RUST_LOG")
        .current_dir(dir)
        .output()
        .expect("txlab runs")
}

/// The `txlab …` commands of a report's Reproduce section, each with the
/// exit code the report gives it (the first "exits with N").
fn commands(report: &str) -> Vec<(String, i32)> {
    let section = report
        .split_once("## Reproduce")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("no Reproduce section:\n{report}"));
    let section = section.split("\n## ").next().unwrap();
    let mut out = Vec::new();
    for line in section.lines() {
        let Some(start) = line.find("`txlab ") else {
            continue;
        };
        let command = &line[start + 1..];
        let command = &command[..command.find('`').expect("closing backtick")];
        let exit = line
            .split_once("exits with ")
            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no exit code given for `{command}`:\n{line}"));
        out.push((command.to_string(), exit));
    }
    out
}

fn run_accuse(env: &Env, pipeline_text: &str) -> PathBuf {
    let p = env.pipeline("p.toml", pipeline_text);
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
    run_dir(&out)
}

#[test]
fn every_command_a_report_prints_runs_and_exits_as_documented() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let run = run_accuse(&env, &pipeline("random", &["plugin = \"accuse\""]));
    let finding = run.join("findings").join("case-000000-accuse");
    let mut ran = 0;
    for report in [finding.join("report.md"), finding.join("reduced/report.md")] {
        let text = std::fs::read_to_string(&report).unwrap();
        assert!(!text.contains(".new"), "{text}");
        assert!(
            !text.contains(&env.work.path().display().to_string()),
            "absolute path in {}:\n{text}",
            report.display()
        );
        let commands = commands(&text);
        assert_eq!(commands.len(), 3, "{text}");
        for (command, exit) in commands {
            let args: Vec<&str> = command.split_whitespace().skip(1).collect();
            let o = txlab_in(&env, &run, &args);
            assert_eq!(
                o.status.code(),
                Some(exit),
                "`{command}` in {} exited otherwise\n{}\n{}",
                report.display(),
                stdout(&o),
                stderr(&o)
            );
            ran += 1;
        }
    }
    assert_eq!(ran, 6);
}

#[test]
fn a_replay_on_another_target_is_recorded_beside_the_finding() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let text = pipeline("random", &["plugin = \"accuse\""]);
    let run = run_accuse(&env, &text);
    let finding = run.join("findings").join("case-000000-accuse");
    // Another pipeline file: another target, even on the same DBMS.
    let other = env.pipeline("other.toml", &text);
    let o = txlab_in(
        &env,
        &run,
        &[
            "replay",
            "findings/case-000000-accuse",
            "--pipeline",
            other.to_str().unwrap(),
            "--times",
            "2",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(finding.join("other-targets.json")).unwrap())
            .unwrap();
    let t = &recorded[0];
    assert_eq!(
        (t["dialect"].as_str(), t["runs"].as_u64()),
        (Some("sqlite"), Some(2))
    );
    assert_eq!(t["reproduced"], 2, "{recorded}");
    assert!(
        t["server_version"]
            .as_str()
            .unwrap()
            .starts_with("SQLite 3."),
        "{recorded}"
    );
    let report = std::fs::read_to_string(finding.join("report.md")).unwrap();
    let section = report.split_once("## On other targets").unwrap().1;
    assert!(
        section.contains("`sqlite`, SQLite 3.")
            && section.contains("(pipeline `../../other.toml`): the finding shows in 2 of 2 runs."),
        "{section}"
    );
    // Replaying there again replaces the record; the original pipeline is
    // no other target and adds none.
    let again = txlab_in(
        &env,
        &run,
        &[
            "replay",
            "findings/case-000000-accuse",
            "--pipeline",
            "../../other.toml",
        ],
    );
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    let home = txlab_in(&env, &run, &["replay", "findings/case-000000-accuse"]);
    assert_eq!(home.status.code(), Some(1), "{}", stderr(&home));
    let recorded: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(finding.join("other-targets.json")).unwrap())
            .unwrap();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["runs"], 1);
    let report = std::fs::read_to_string(finding.join("report.md")).unwrap();
    assert_eq!(report.matches("## On other targets").count(), 1, "{report}");
    assert!(
        report.contains("the finding shows in 1 of 1 runs"),
        "{report}"
    );
    // The Reproduce section is still whole, and its commands still run.
    assert_eq!(commands(&report).len(), 3);
}

#[test]
fn an_unconfirmed_findings_report_names_its_new_place() {
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"flaky\""]));
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let run = run_dir(&out);
    let report =
        std::fs::read_to_string(run.join("unconfirmed/case-000000-flaky/report.md")).unwrap();
    assert!(
        report.contains("`txlab replay unconfirmed/case-000000-flaky`")
            && report.contains("`txlab import unconfirmed/case-000000-flaky/repro.sql "),
        "{report}"
    );
    assert!(!report.contains("findings/case-000000-flaky"), "{report}");
    // Its replay and import commands run from the run directory (a new
    // process's `flaky` reports the first case it checks again: exit 1).
    for (command, exit) in commands(&report) {
        if command.starts_with("txlab run ") {
            continue;
        }
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let o = txlab_in(&env, &run, &args);
        assert_eq!(o.status.code(), Some(exit), "`{command}`\n{}", stderr(&o));
    }
}
