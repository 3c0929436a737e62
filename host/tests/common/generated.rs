//! Running generated cases through the `txlab` binary on the live servers and
//! reading every statement's outcome back: for the tests that check how
//! often generated SQL fails by the generator's fault.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use txlab_plugin_api::ir::{ErrorClass, History, Outcome};

/// Runs `txlab run CONFIG` with `args`; checks that it ran every case
/// without a tool error and returns the run directory and its summary.
pub fn run(
    config: &Path,
    cases: u64,
    url: Option<&str>,
    plugins: &Path,
    out: &Path,
) -> (PathBuf, serde_json::Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_txlab"));
    command
        .arg("run")
        .arg(config)
        .args(["--cases", &cases.to_string(), "--seed", "3", "--no-reduce"])
        .arg("--out")
        .arg(out)
        .env("TXLAB_PLUGIN_PATH", plugins)
        .env_remove("RUST_LOG")
        .current_dir(super::repo_root());
    if let Some(url) = url {
        command.args(["--url", url]);
    }
    let o = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    // 0: nothing found, 1: findings (every case, with `accuse`); 2 and 3 are
    // tool errors.
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}: exit {:?}\n{stdout}\n{stderr}",
        config.display(),
        o.status.code()
    );
    let run_dir = std::fs::read_dir(out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cases"], cases, "{summary}");
    assert_eq!(summary["errors"], 0, "{summary}");
    (run_dir, summary)
}

/// Errors the generator is to blame for: the DBMS refused the SQL text or a
/// value, or gave an error no class explains.
pub fn generator_caused(class: ErrorClass) -> bool {
    matches!(
        class,
        ErrorClass::Syntax | ErrorClass::Data | ErrorClass::Other
    )
}

#[derive(Debug, Default)]
pub struct Tally {
    pub cases: usize,
    pub statements: usize,
    pub by_class: BTreeMap<String, usize>,
    pub generator_caused: Vec<String>,
    /// Cases per pattern, for cases that carry one (the pattern generator's).
    pub patterns: BTreeMap<String, usize>,
}

/// Reads every case's history under `run_dir/findings`.
pub fn tally(run_dir: &Path) -> Tally {
    let mut t = Tally::default();
    for entry in std::fs::read_dir(run_dir.join("findings")).unwrap() {
        let dir = entry.unwrap().path();
        if !dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .ends_with("-accuse")
        {
            continue;
        }
        t.cases += 1;
        let history: History =
            serde_json::from_str(&std::fs::read_to_string(dir.join("history.json")).unwrap())
                .unwrap();
        let case: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        if let Some(pattern) = case["intent"]["pattern"].as_str() {
            *t.patterns.entry(pattern.to_string()).or_default() += 1;
        }
        for record in history.statements.iter().flatten() {
            match &record.outcome {
                Outcome::NotSubmitted => continue,
                Outcome::Error(e) => {
                    *t.by_class.entry(e.class.to_string()).or_default() += 1;
                    if generator_caused(e.class) {
                        t.generator_caused.push(format!(
                            "{}: {}: {e}",
                            dir.file_name().unwrap().to_string_lossy(),
                            record.sql
                        ));
                    }
                }
                _ => {}
            }
            t.statements += 1;
        }
    }
    t
}
