//! `txlab check`: runs one case, a bug script or a case JSON, on a
//! pipeline's target through its oracles, prints each verdict and keeps
//! everything on disk whatever the verdicts.

use super::finding::open_runner;
use super::import::{read_case, ScriptArgs};
use super::setup::{PipelineSetup, ServerArgs};
use super::{out, Cli, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TOOL_ERRORS};
use crate::io::{write_finding, FindingInput, FindingOrigin, ReportKind};
use crate::run::{CaseRunner, Evaluated, OracleVerdict};
use crate::setup::Environment;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use txlab_plugin_api::ir::*;
use txlab_script::repro::{observed, repro_sql, ReproHeader};

#[derive(clap::Args)]
pub(super) struct CheckArgs {
    /// A script (.spec, repro.sql, `-- T1:` marked SQL) or a case JSON.
    file: PathBuf,
    /// The pipeline whose target and oracles judge the case.
    #[arg(long)]
    pipeline: PathBuf,
    #[command(flatten)]
    server: ServerArgs,
    /// Where to write the case, history and report; by default a new
    /// directory txlab-check-<file stem>-<n> in the current directory.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    script: ScriptArgs,
}

fn default_out(file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "case".into());
    (1..)
        .map(|n| PathBuf::from(format!("txlab-check-{stem}-{n}")))
        .find(|p| !p.exists())
        .expect("some number is free")
}

/// One verdict in a line.
fn verdict_line(v: &OracleVerdict) -> String {
    match &v.verdict {
        Err(e) => format!("oracle error: {e}"),
        Ok(Verdict::Finding(f)) => format!("finding: {}", f.title),
        Ok(Verdict::VendorPermitted(f)) => format!("vendor-permitted anomaly: {}", f.title),
        Ok(Verdict::Undecided { reason }) => format!("undecided: {reason}"),
        Ok(Verdict::Allowed { anomalies }) => {
            format!(
                "pass, with anomalies both models allow: {}",
                anomalies.join(", ")
            )
        }
        Ok(Verdict::Pass) => "pass".to_string(),
    }
}

pub(super) fn run(cli: &Cli, args: &CheckArgs) -> anyhow::Result<u8> {
    let setup = PipelineSetup::load(cli, &args.pipeline)?;
    let access = args.server.access();
    let resolved = setup.resolve_for_server(&access)?;
    let dialect = args
        .script
        .dialect
        .clone()
        .unwrap_or_else(|| resolved.info.name.clone());
    let case = read_case(&args.file, &args.script, Some(&dialect))?;
    for (i, t) in case.transactions.iter().enumerate() {
        if !resolved.info.levels.iter().any(|l| l.level == t.isolation) {
            anyhow::bail!(
                "{} runs at {}, which dialect `{}` does not offer",
                txn_label(i),
                t.isolation,
                resolved.info.name
            );
        }
    }
    let dir = args.out.clone().unwrap_or_else(|| default_out(&args.file));
    let env = Environment::with_access(&resolved, &access)?;
    let mut runner = open_runner(&resolved, &env)?;
    out!(
        "checking {} ({} transactions, {} statements) on `{}`",
        args.file.display(),
        case.transactions.len(),
        case.statement_count(),
        resolved.info.name
    );
    let evaluated = match runner.evaluate(&case, None) {
        Ok(e) => e,
        Err(e) => {
            std::fs::create_dir_all(&dir)?;
            std::fs::write(
                dir.join("generated.json"),
                serde_json::to_string_pretty(&case)?,
            )?;
            eprintln!(
                "error: the case could not run: {e} (the case is in {})",
                dir.display()
            );
            return Ok(EXIT_TOOL_ERRORS);
        }
    };
    let mut code = EXIT_CLEAN;
    for v in &evaluated.verdicts {
        out!("  {}: {}", v.oracle, verdict_line(v));
        code = code.max(match &v.verdict {
            Ok(Verdict::Finding(_)) => EXIT_FINDINGS,
            Err(_) => EXIT_TOOL_ERRORS,
            _ => EXIT_CLEAN,
        });
    }
    // A finding outranks a failed oracle, as in `run`.
    if evaluated
        .verdicts
        .iter()
        .any(|v| matches!(v.verdict, Ok(Verdict::Finding(_))))
    {
        code = EXIT_FINDINGS;
    }
    write_check(&dir, args, &runner, &case, &evaluated)?;
    out!("  output: {}", dir.display());
    Ok(code)
}

/// The case, what ran, the verdicts and a report; each finding or anomaly in
/// a finding directory below, as `run` writes them.
fn write_check(
    dir: &Path,
    args: &CheckArgs,
    runner: &CaseRunner<'_>,
    case: &TestCase,
    e: &Evaluated,
) -> anyhow::Result<()> {
    let info = runner.dialect_info();
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("generated.json"),
        serde_json::to_string_pretty(case)?,
    )?;
    std::fs::write(
        dir.join("case.json"),
        serde_json::to_string_pretty(&e.prepared)?,
    )?;
    std::fs::write(
        dir.join("history.json"),
        serde_json::to_string_pretty(&e.history)?,
    )?;
    let verdicts: Vec<serde_json::Value> = e
        .verdicts
        .iter()
        .map(|v| {
            serde_json::json!({
                "oracle": v.oracle,
                "verdict": match &v.verdict {
                    Ok(verdict) => serde_json::to_value(verdict).unwrap_or_default(),
                    Err(err) => serde_json::json!({"error": err.to_string()}),
                },
            })
        })
        .collect();
    std::fs::write(
        dir.join("verdicts.json"),
        serde_json::to_string_pretty(&verdicts)?,
    )?;
    let request = CaseRequest {
        run_seed: 0,
        index: 0,
        seed: case.seed,
    };
    let lead = format!("txlab check of {}", args.file.display());
    let versions = [format!(
        "server {}, txlab {}",
        runner.server_version().unwrap_or("version not recorded"),
        env!("CARGO_PKG_VERSION")
    )];
    let header = ReproHeader {
        lead: &lead,
        oracle: "all",
        dialect: &info.name,
        generator: &case.generator,
        request,
        notes: &versions,
    };
    std::fs::write(
        dir.join("repro.sql"),
        repro_sql(&header, &e.prepared, &e.rendered, &e.history),
    )?;
    let repro = runner.repro_case(case, &e.prepared);
    for v in &e.verdicts {
        let (kind, finding) = match &v.verdict {
            Ok(Verdict::Finding(f)) => (ReportKind::Finding, f),
            Ok(Verdict::VendorPermitted(f)) => (ReportKind::VendorPermitted, f),
            _ => continue,
        };
        write_finding(
            dir,
            &FindingInput {
                origin: FindingOrigin {
                    kind,
                    oracle: &v.oracle,
                    dialect: info,
                    generator: &case.generator,
                    pipeline: &args.pipeline,
                    request,
                    server_version: runner.server_version(),
                },
                generated: case,
                case: &e.prepared,
                rendered: &e.rendered,
                history: &e.history,
                finding,
                repro: repro.as_ref(),
            },
        )?;
    }
    std::fs::write(dir.join("report.md"), report(args, info, e))?;
    Ok(())
}

fn report(args: &CheckArgs, info: &DialectInfo, e: &Evaluated) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# txlab check of `{}`\n", args.file.display());
    let _ = writeln!(
        s,
        "Pipeline `{}`, dialect `{}`.\n\n## Verdicts\n",
        args.pipeline.display(),
        info.name
    );
    for v in &e.verdicts {
        let _ = writeln!(s, "- `{}`: {}", v.oracle, verdict_line(v));
    }
    let _ = writeln!(
        s,
        "\nFindings and vendor-permitted anomalies have directories of their own under `findings/` and `anomalies/`.\n\n## Observed schedule\n\nStatements in the order their replies arrived:\n"
    );
    for at in &e.history.completion_order {
        if let Some(r) = e.history.record(*at) {
            let _ = writeln!(s, "- `{at}` `{}` — {}", r.sql.trim(), observed(r));
        }
    }
    let _ = writeln!(s);
    for (i, t) in e.history.transactions.iter().enumerate() {
        let end = match &t.end {
            TxnEnd::Committed => "committed".to_string(),
            TxnEnd::RolledBack => "rolled back".to_string(),
            TxnEnd::Aborted { by, class } => format!("aborted by {by} ({class})"),
            TxnEnd::Unfinished => "unfinished".to_string(),
        };
        let _ = writeln!(s, "- {} ({}): {end}", txn_label(i), t.isolation);
    }
    let _ = writeln!(
        s,
        "\n`generated.json` is the case as read, `case.json` as the oracles instrumented it, `history.json` what the executor recorded, `verdicts.json` every oracle's verdict, `repro.sql` the statements as they ran."
    );
    s
}
