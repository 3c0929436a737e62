//! `txlab semantics`: does the server do what the dialect declares? Runs the
//! semantics experiments on the pipeline's target at every level it tests
//! and prints, fact by fact, whether the server agreed.

use super::setup::{PipelineSetup, ServerArgs};
use super::{out, Cli, EXIT_CLEAN, EXIT_FINDINGS};
use crate::semantics::{report, run_experiments, ExperimentResult, SemanticsReport};
use crate::setup::Environment;
use std::path::PathBuf;
use txlab_semantics::Judgement;

#[derive(clap::Args)]
pub(super) struct SemanticsArgs {
    pipeline: PathBuf,
    #[command(flatten)]
    server: ServerArgs,
    /// How many more times a contradicted experiment runs; it counts only
    /// when every run contradicts (0 to 10).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(0..=10))]
    confirm: u64,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub(super) fn run(cli: &Cli, args: &SemanticsArgs) -> anyhow::Result<u8> {
    let setup = PipelineSetup::load(cli, &args.pipeline)?;
    let access = args.server.access();
    let resolved = setup.resolve_for_server(&access)?;
    let env = Environment::with_access(&resolved, &access)?;
    let (runs, version) = run_experiments(&resolved, &env, args.confirm as usize)?;
    let report = report(&resolved, &runs, version);
    out!("{}", render(&report));
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    Ok(if report.contradictions() > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    })
}

fn line(r: &ExperimentResult) -> String {
    let (word, text) = match &r.judgement {
        Judgement::Agrees { observed } => ("agrees", observed.clone()),
        Judgement::Contradicts { expected, observed } => (
            if r.steady() {
                "CONTRADICTS"
            } else {
                "unsteady"
            },
            format!("expected: {expected}; observed: {observed}"),
        ),
        Judgement::NotObservable { reason } => ("not judged", reason.clone()),
    };
    let runs = match r.contradicted_runs {
        Some((bad, all)) => format!(" ({bad} of {all} runs)"),
        None => String::new(),
    };
    format!(
        "  {word:<11} {:<46} {}: {text}{runs}",
        r.fact.name(),
        r.experiment
    )
}

/// The report as `txlab semantics` prints it.
pub(crate) fn render(report: &SemanticsReport) -> String {
    let mut s = format!(
        "semantics of dialect `{}` on {}",
        report.dialect,
        report
            .server_version
            .as_deref()
            .unwrap_or("a server of unknown version")
    );
    if let Some(server) = &report.server {
        if !server.settings.is_empty() {
            let settings: Vec<String> = server
                .settings
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            s.push_str(&format!(
                " (the server's settings: {})",
                settings.join(", ")
            ));
        }
    }
    s.push('\n');
    let mut level = None;
    for r in &report.results {
        if level != Some(r.level) {
            level = Some(r.level);
            s.push_str(&format!("{}\n", r.level));
        }
        s.push_str(&line(r));
        s.push('\n');
    }
    let count =
        |f: fn(&Judgement) -> bool| report.results.iter().filter(|r| f(&r.judgement)).count();
    s.push_str(&format!(
        "{} experiments: {} agree, {} contradict, {} unsteady, {} not judged\n",
        report.results.len(),
        count(|j| matches!(j, Judgement::Agrees { .. })),
        report.contradictions(),
        report.unsteady(),
        count(|j| matches!(j, Judgement::NotObservable { .. })),
    ));
    s.push_str("not probed:");
    for (fact, why) in &report.not_probed {
        s.push_str(&format!("\n  {fact}: {why}"));
    }
    s
}
