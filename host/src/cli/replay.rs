//! `txlab replay`: runs a finding's case again and says whether the finding
//! shows.

use super::finding::{open_runner, FindingSetup, FindingTarget};
use super::{out, Cli, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TOOL_ERRORS};
use crate::io::{read_json, statement_differences, write_other_target, OtherTarget, ReportKind};
use crate::setup::Environment;
use std::path::PathBuf;
use txlab_plugin_api::ir::{DialectInfo, History, TestCase, Verdict};

#[derive(clap::Args)]
pub(super) struct ReplayArgs {
    /// A finding directory, or the reduced/ directory inside one.
    finding: PathBuf,
    /// How many times to run it, 1 to 10000.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    times: u32,
    #[command(flatten)]
    target: FindingTarget,
}

pub(super) fn run(cli: &Cli, args: &ReplayArgs) -> anyhow::Result<u8> {
    let dir = &args.finding;
    let setup = FindingSetup::load(cli, dir, &args.target)?;
    let access = args.target.server.access();
    let resolved = setup.resolve(&access)?;
    let env = Environment::with_access(&resolved, &access)?;
    let mut runner = open_runner(&resolved, &env)?;
    let saved_pace = setup
        .saved
        .generated
        .pace_ms
        .filter(|ms| *ms > 0)
        .map(std::time::Duration::from_millis);
    if let Some(pace) = recorded_pace(dir).or(saved_pace) {
        out!(
            "pacing as its confirmation needed: a {} ms pause after each confirmed block and each transaction end",
            pace.as_millis()
        );
        runner.set_pace(pace);
    }
    let oracle = &setup.saved.provenance.oracle;
    let title = &setup.saved.finding.title;
    let signature = setup.saved.finding.signature();
    let kind = setup.saved.provenance.kind;
    out!("replaying {} ({oracle}: {title})", dir.display());
    let shows = |run: &crate::run::Evaluated| {
        run.finding_of(oracle)
            .is_some_and(|f| f.signature() == signature)
    };
    let times = args.times.max(1);
    let (mut same, mut errors, mut ran) = (0, 0, 0);
    let mut lines = Vec::new();
    let mut last_run = None;
    for i in 1..=times {
        ran = i;
        let line = match runner.evaluate(&setup.saved.generated, Some(oracle)) {
            Err(e) => {
                errors += 1;
                if e.outside_the_case() {
                    // The server went away or did not answer: no verdict,
                    // and the runs after this one would fare no better.
                    out!("  run {i}: could not run: {e}");
                    break;
                }
                format!("tool error: {e}")
            }
            Ok(run) if run.cut_short(shows(&run)).is_some() => {
                errors += 1;
                let loss = run.cut_short(shows(&run)).expect("checked");
                out!("  run {i}: could not run: {loss}");
                if loss.back_after_ms.is_none() {
                    break;
                }
                continue;
            }
            Ok(mut run) => {
                let verdict = std::mem::take(&mut run.verdicts)
                    .into_iter()
                    .next()
                    .map(|v| v.verdict);
                last_run = Some((run.prepared, run.history));
                match verdict {
                    Some(Err(e)) => {
                        errors += 1;
                        format!("the oracle failed: {e}")
                    }
                    Some(Ok(Verdict::Finding(f)))
                        if kind == ReportKind::Finding && f.signature() == signature =>
                    {
                        same += 1;
                        "the same finding".to_string()
                    }
                    Some(Ok(Verdict::VendorPermitted(f)))
                        if kind == ReportKind::VendorPermitted && f.signature() == signature =>
                    {
                        same += 1;
                        "the same vendor-permitted anomaly".to_string()
                    }
                    Some(Ok(Verdict::Finding(f))) => format!("a finding: {}", f.title),
                    Some(Ok(Verdict::VendorPermitted(f))) => {
                        format!("a vendor-permitted anomaly: {}", f.title)
                    }
                    Some(Ok(Verdict::Undecided { reason })) => format!("undecided: {reason}"),
                    Some(Ok(Verdict::Allowed { anomalies })) => {
                        format!(
                            "pass, with anomalies both models allow: {}",
                            anomalies.join(", ")
                        )
                    }
                    Some(Ok(Verdict::Pass)) | None => "pass".to_string(),
                }
            }
        };
        out!("  run {i}: {line}");
        lines.push(line);
    }
    if errors > 0 {
        out!(
            "reproduced {same}/{ran}; {errors} of the runs could not run or failed, which says nothing about the finding"
        );
    } else {
        out!("reproduced {same}/{times}");
    }
    if let Some(elsewhere) = other_target(&setup, &resolved.info, runner.server_version()) {
        let saved_case: Option<TestCase> = read_json(&dir.join("case.json")).ok();
        let saved_history: Option<History> = read_json(&dir.join("history.json")).ok();
        let differences = match (&saved_case, &saved_history, &last_run) {
            (Some(case), Some(history), Some((there_case, there))) => {
                statement_differences(case, history, there_case, there)
            }
            _ => Vec::new(),
        };
        let record = OtherTarget {
            dialect: resolved.info.name.clone(),
            server_version: runner.server_version().map(str::to_string),
            pipeline: elsewhere,
            txlab_version: env!("CARGO_PKG_VERSION").to_string(),
            runs: times,
            reproduced: same,
            verdicts: lines,
            differences,
        };
        match write_other_target(dir, record) {
            Ok(()) => out!(
                "another target than the finding's: its runs are in {} and report.md",
                dir.join("other-targets.json").display()
            ),
            Err(e) => eprintln!(
                "warning: could not record the runs in {}: {e}",
                dir.display()
            ),
        }
    }
    Ok(if same > 0 {
        EXIT_FINDINGS
    } else if errors > 0 {
        EXIT_TOOL_ERRORS
    } else {
        EXIT_CLEAN
    })
}

/// The pipeline the case ran with, when it is another target than the
/// finding's: another pipeline file, another dialect, or a server of
/// another version.
fn other_target(
    setup: &FindingSetup,
    info: &DialectInfo,
    server_version: Option<&str>,
) -> Option<PathBuf> {
    let p = &setup.saved.provenance;
    let canonical =
        |path: &std::path::Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let pipeline = canonical(&setup.pipeline.loaded.path);
    let other = pipeline != canonical(&p.pipeline)
        || info.name != p.dialect
        || (p.server_version.is_some() && p.server_version.as_deref() != server_version);
    other.then_some(pipeline)
}

/// The pause a finding's confirmation needed (`reduction.json`'s `pace_ms`,
/// also saved in the reduced case's `pace_ms`,
/// next to the finding or, for its `reduced/` or `unconfirmed/` case, one
/// directory up), when it needed one.
fn recorded_pace(dir: &std::path::Path) -> Option<std::time::Duration> {
    let candidates = [dir.join("reduction.json"), dir.join("../reduction.json")];
    let text = candidates
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    match value.get("pace_ms").and_then(serde_json::Value::as_u64) {
        Some(ms) if ms > 0 => Some(std::time::Duration::from_millis(ms)),
        _ => None,
    }
}
