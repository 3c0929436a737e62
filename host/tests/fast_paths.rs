//! The case loop's fast paths (table resets and session set-ups sent as one
//! request, stmt-WSS's serial run read off tx-WSS's) change how fast a case
//! runs, not what it tests: the same seeds give the same verdicts with them
//! on and off.
//!
//! Three hundred random cases on the embedded SQLite, judged by WSS (serial
//! replays on the scratch database, which also resets in one request) and
//! Troc (statements run one by one on the scratch database), once with the
//! pipeline's defaults and once with `fewer_round_trips = false` and WSS's
//! `share_serial_runs = false`, the lock-wait probes timed alike. Each case's
//! fingerprint — every statement's outcome and whether it blocked, every
//! transaction's end, the final state, every oracle's verdict — is taken;
//! the verdicts must be the same in both.

mod common;

use std::path::Path;
use txlab_host::config::LoadedPipeline;
use txlab_host::run::{CaseRunner, Evaluated};
use txlab_host::setup::{Environment, Resolved};
use txlab_loader::registry::{search_dirs, Registry};
use txlab_plugin_api::ir::*;

const CASES: u64 = 300;
const SEED: u64 = 20261127;

fn pipeline(executor: &str, wss: &str) -> String {
    format!(
        r#"
[run]
seed = {SEED}

[target]
dialect = "sqlite"

[executor]
statement_timeout = "5s"
{executor}

[generator]
plugin = "random"

[generator.config]
transactions = [2, 4]
statements = [1, 6]
cases_per_schema = 10

[[oracle]]
plugin = "wss"

[oracle.config]
{wss}

[[oracle]]
plugin = "troc"
"#
    )
}

/// What a case came to, as text: equal fingerprints, equal cases.
fn fingerprint(e: &Evaluated) -> String {
    let h = &e.history;
    let mut out = String::new();
    for record in h.statements.iter().flatten() {
        out.push_str(&format!(
            "{} {:?} blocked={}\n",
            record.at,
            record.outcome,
            record.blocked.is_some()
        ));
    }
    for (i, t) in h.transactions.iter().enumerate() {
        out.push_str(&format!("T{} {:?}\n", i + 1, t.end));
    }
    out.push_str(&format!("completion {:?}\n", h.completion_order));
    out.push_str(&format!("final {:?}\n", h.final_state));
    for v in &e.verdicts {
        let verdict = match &v.verdict {
            Ok(Verdict::Pass) => "pass".to_string(),
            Ok(Verdict::Finding(f)) => format!("finding {}", f.signature()),
            Ok(Verdict::VendorPermitted(f)) => format!("vendor-permitted {}", f.signature()),
            Ok(Verdict::Allowed { anomalies }) => format!("allowed {anomalies:?}"),
            Ok(Verdict::Undecided { reason }) => format!("undecided {reason}"),
            Err(e) => format!("error {e}"),
        };
        out.push_str(&format!("{}: {verdict}\n", v.oracle));
    }
    out
}

fn run(plugins: &Path, work: &Path, name: &str, executor: &str, wss: &str) -> Vec<String> {
    let file = work.join(format!("{name}.toml"));
    std::fs::write(&file, pipeline(executor, wss)).unwrap();
    let loaded = LoadedPipeline::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let registry = Registry::discover(search_dirs(&[plugins.to_path_buf()], &loaded.plugin_dirs()));
    let resolved = Resolved::resolve(&loaded, &registry).unwrap_or_else(|e| panic!("{e}"));
    let env = Environment::new(&resolved, None).unwrap_or_else(|e| panic!("{e}"));
    let setups = env.level_setups(&resolved).unwrap();
    let mut generator = resolved.new_generator().unwrap();
    let oracles = resolved.new_oracles().unwrap();
    let mut runner = CaseRunner::open(&resolved, &env, 0, &setups, oracles)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (0..CASES)
        .map(|i| {
            let case = generator
                .next_case(CaseRequest::new(SEED, i))
                .unwrap_or_else(|e| panic!("case {i}: {e}"));
            let evaluated = runner
                .evaluate(&case, None)
                .unwrap_or_else(|e| panic!("{name}, case {i}: {e}"));
            fingerprint(&evaluated)
        })
        .collect()
}

#[test]
fn the_same_seeds_give_the_same_verdicts_with_the_fast_paths_on_and_off() {
    let plugins = common::plugin_dir(&[
        "txlab-dialect-sqlite",
        "txlab-generator-random",
        "txlab-oracle-wss",
        "txlab-oracle-troc",
    ]);
    let work = tempfile::tempdir().unwrap();
    let fast = run(plugins.path(), work.path(), "fast", "", "");
    // The same probe timing on both sides: which of two writers SQLite
    // lets through after a wait is a race the probe timing takes part in.
    let slow = run(
        plugins.path(),
        work.path(),
        "slow",
        "fewer_round_trips = false",
        "share_serial_runs = false",
    );
    // The cases exercise what the fast paths touch: waits, aborts, findings
    // or passes judged on the scratch database.
    let all = fast.join("");
    assert!(all.contains("blocked=true"), "no case blocked");
    assert!(all.contains("Aborted"), "no transaction aborted");
    assert!(all.contains("troc: pass") && all.contains("wss: pass"));
    // SQLite lets one of two waiting writers through by a race, so the
    // histories of the same case may differ from run to run even with the
    // same settings; the verdicts must not.
    let verdicts = |runs: &[String]| -> Vec<String> {
        runs.iter()
            .map(|f| {
                f.lines()
                    .filter(|l| l.starts_with("wss: ") || l.starts_with("troc: "))
                    .map(|l| format!("{l}\n"))
                    .collect()
            })
            .collect()
    };
    let (fast, slow) = (verdicts(&fast), verdicts(&slow));
    let differing: Vec<String> = fast
        .iter()
        .zip(&slow)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| format!("case {i}:\n--- fast\n{a}--- slow\n{b}"))
        .collect();
    assert!(
        differing.is_empty(),
        "{} of {CASES} cases differ; the first:\n{}",
        differing.len(),
        differing[0]
    );
}
