//! `txlab replay` of a hand-written case on a live server, with a shipped
//! pipeline whose oracle gets extra configuration: what the fixture tests
//! check verdicts with.

use super::servers::url;
use std::process::Command;
use txlab_host::driver::ServerKind;
use txlab_plugin_api::ir::TestCase;

/// What `txlab replay --times 3` says of `case` on `kind`'s server with the
/// shipped pipeline `config` (a path from the repository root), whose oracle
/// `oracle` gets `oracle_config` (TOML lines) as its configuration; `None`
/// when the server is unreachable and the test may skip.
pub fn replay_case(
    kind: ServerKind,
    config: &str,
    oracle: &str,
    oracle_config: &str,
    case: &TestCase,
) -> Option<String> {
    let shipped = std::fs::read_to_string(super::repo_root().join(config)).unwrap();
    let entry = format!("plugin = \"{oracle}\"\n");
    assert!(
        shipped.contains(&entry),
        "{config} has no oracle `{oracle}`"
    );
    let text = shipped.replacen(
        &entry,
        &format!("{entry}\n[oracle.config]\n{oracle_config}\n"),
        1,
    );
    replay_pipeline(kind, &text, oracle, case)
}

/// [`replay_case`] with the whole pipeline text given.
pub fn replay_pipeline(
    kind: ServerKind,
    pipeline_text: &str,
    oracle: &str,
    case: &TestCase,
) -> Option<String> {
    let dialect = match kind {
        ServerKind::Mysql => "mariadb",
        ServerKind::Postgres => "postgres",
    };
    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("pipeline.toml");
    std::fs::write(&pipeline, pipeline_text).unwrap();
    let write = |name: &str, value: serde_json::Value| {
        std::fs::write(dir.path().join(name), value.to_string()).unwrap();
    };
    write("generated.json", serde_json::to_value(case).unwrap());
    write(
        "provenance.json",
        serde_json::json!({
            "kind": "finding", "oracle": oracle, "dialect": dialect,
            "generator": "random", "pipeline": pipeline,
            "run_seed": 0, "case_index": 0, "case_seed": 1, "txlab_version": "fixture"
        }),
    );
    write(
        "finding.json",
        serde_json::json!({
            "title": "fixture", "signature": "fixture", "model": "",
            "assumed_semantics": "", "explanation": "", "evidence": null
        }),
    );
    let plugins = super::plugin_dir(&[
        "txlab-dialect-mysql",
        "txlab-dialect-postgres",
        "txlab-generator-random",
        "txlab-oracle-wss",
        "txlab-oracle-troc",
        "txlab-oracle-txcheck",
        "txlab-oracle-errors",
    ]);
    let o = Command::new(env!("CARGO_BIN_EXE_txlab"))
        .arg("replay")
        .arg(dir.path())
        .args(["--url", &url(kind), "--times", "3"])
        .env("TXLAB_PLUGIN_PATH", plugins.path())
        .current_dir(super::repo_root())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    if o.status.code() == Some(2) && text.contains("connect") {
        assert!(
            std::env::var("TXLAB_REQUIRE_LIVE").as_deref() != Ok("1"),
            "{text}"
        );
        eprintln!("skipped: {text}");
        return None;
    }
    assert!(matches!(o.status.code(), Some(0)), "{text}");
    Some(text)
}

/// The verdict lines of the three runs.
pub fn verdicts(text: &str) -> Vec<String> {
    let lines: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("run ").map(str::to_string))
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    eprintln!("{}", lines.join("\n"));
    lines
}
