//! `txlab replay`: runs a finding's case again and says whether the finding
//! shows.

use super::finding::{open_runner, FindingSetup, FindingTarget};
use super::{out, Cli, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TOOL_ERRORS};
use crate::io::ReportKind;
use crate::setup::Environment;
use std::path::PathBuf;
use txlab_plugin_api::ir::Verdict;

#[derive(clap::Args)]
pub(super) struct ReplayArgs {
    /// A finding directory, or the reduced/ directory inside one.
    finding: PathBuf,
    /// How many times to run it.
    #[arg(long, default_value_t = 1)]
    times: u32,
    #[command(flatten)]
    target: FindingTarget,
}

pub(super) fn run(cli: &Cli, args: &ReplayArgs) -> anyhow::Result<u8> {
    let dir = &args.finding;
    let setup = FindingSetup::load(cli, dir, &args.target)?;
    let resolved = setup.resolve()?;
    let env = Environment::new(&resolved, args.target.url.as_deref())?;
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
            Ok(run) => match run.verdicts.into_iter().next().map(|v| v.verdict) {
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
            },
        };
        out!("  run {i}: {line}");
    }
    if errors > 0 {
        out!(
            "reproduced {same}/{ran}; {errors} of the runs could not run or failed, which says nothing about the finding"
        );
    } else {
        out!("reproduced {same}/{times}");
    }
    Ok(if same > 0 {
        EXIT_FINDINGS
    } else if errors > 0 {
        EXIT_TOOL_ERRORS
    } else {
        EXIT_CLEAN
    })
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
