//! A worker: takes the next case of the plan, runs it, writes and reduces its
//! findings, and records the result.

use super::case_runner::CaseRunner;
use super::plan::Plan;
use super::reduction::reduce_and_write;
use super::shared::Shared;
use super::throughput::Measured;
use super::CaseError;
use crate::config::ReduceSettings;
use crate::io::{write_finding, FindingInput, FindingOrigin, ReductionOutcome, ReportKind};
use crate::phases::{self, Phase};
use crate::setup::Resolved;
use std::path::PathBuf;
use std::time::Instant;
use txlab_loader::{CallError, GeneratorHandle};
use txlab_plugin_api::ir::*;

/// Why a run that was asked to stop stopped.
const INTERRUPTED: &str =
    "interrupted: the statements in flight were cancelled, and the cases they belonged to not counted";

pub(super) struct Worker<'a> {
    pub(super) resolved: &'a Resolved<'a>,
    pub(super) generator: GeneratorHandle,
    pub(super) runner: CaseRunner<'a>,
    pub(super) reduce: Option<ReduceSettings>,
    /// When a `--duration` run ends: no reduction runs past it.
    pub(super) run_ends: Option<Instant>,
    /// Vendor-permitted anomalies are findings (`--strict`).
    pub(super) strict: bool,
    /// The DBMS's version, as the runner read it when it opened.
    pub(super) server_version: Option<String>,
    /// Where the time goes and what ran, when the run measures it
    /// (`txlab bench --throughput`).
    pub(super) measured: Option<Measured>,
}

/// What one case came to.
pub(super) struct CaseResult {
    pub(super) findings: Vec<WrittenFinding>,
    /// Findings whose case never showed them again when it ran again, moved
    /// to `unconfirmed/`: reported, not counted as findings.
    pub(super) unconfirmed: Vec<WrittenFinding>,
    /// Vendor-permitted anomalies, written under `anomalies/`.
    pub(super) anomalies: Vec<WrittenFinding>,
    /// Anomalies both models allow ("oracle: kind").
    pub(super) allowed: Vec<String>,
    /// What the generator set the case up to show.
    pub(super) intent: Option<CaseIntent>,
    /// (oracle, reason) for each oracle that could not decide the case.
    pub(super) undecided: Vec<(String, String)>,
    /// Oracles that failed on this case, with their errors.
    pub(super) oracle_errors: Vec<(String, CallError)>,
    /// Oracles that gave a verdict.
    pub(super) judged: usize,
    pub(super) history: History,
}

pub(super) struct WrittenFinding {
    pub(super) dir: PathBuf,
    /// "oracle: signature", to count findings by kind.
    pub(super) kind: String,
    /// The reduction's one-line summary, when the finding was reduced.
    pub(super) reduction: Option<String>,
    /// Its case did not show it again in any run of the confirmation.
    pub(super) unconfirmed: bool,
}

impl Worker<'_> {
    pub(super) fn work(&mut self, seed: u64, plan: &Plan, shared: &Shared) {
        if self.measured.is_some() {
            phases::install();
        }
        self.work_cases(seed, plan, shared);
        if let (Some(measured), Some(totals)) = (&mut self.measured, phases::finish()) {
            measured.phases = totals;
        }
    }

    fn work_cases(&mut self, seed: u64, plan: &Plan, shared: &Shared) {
        loop {
            if shared.interrupted() {
                shared.stop(INTERRUPTED.into());
            }
            if shared.stopped() {
                break;
            }
            let taken = shared
                .taken
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if !plan.allows(taken) {
                break;
            }
            let request = CaseRequest::new(seed, plan.index(taken));
            let result = self.run_case(request, shared);
            match &result {
                // Cut short by the stop: not a result of the DBMS, not counted.
                Err(e) if e.is_interrupted() => {
                    shared.stop(INTERRUPTED.into());
                    break;
                }
                Err(e @ CaseError::ServerSilent { .. }) => {
                    shared.stop(format!("case {}: {e}", request.index));
                }
                Err(CaseError::WriteFinding(e)) => {
                    shared.output_failed(format!(
                        "case {}: cannot write a finding: {e}",
                        request.index
                    ));
                }
                _ => {}
            }
            if let (Some(measured), Ok(result)) = (&mut self.measured, &result) {
                measured.count(result);
            }
            shared.record(seed, request, &result);
            shared.progress.inc(1);
            shared.refresh();
        }
    }

    fn run_case(&mut self, request: CaseRequest, shared: &Shared) -> Result<CaseResult, CaseError> {
        let r = self.resolved;
        let generating = phases::enter(Phase::Generate);
        let case = self
            .generator
            .next_case(request)
            .map_err(CaseError::Generator)?;
        drop(generating);
        case.validate()
            .map_err(|error| CaseError::GeneratedInvalid {
                generator: self.generator.label().to_string(),
                error,
            })?;
        let run = self.runner.evaluate(&case, None)?;
        let mut result = CaseResult {
            findings: Vec::new(),
            unconfirmed: Vec::new(),
            anomalies: Vec::new(),
            allowed: Vec::new(),
            intent: case.intent.clone(),
            undecided: Vec::new(),
            oracle_errors: Vec::new(),
            judged: 0,
            history: History::default(),
        };
        // Every finding is on disk before any reduction starts: whatever
        // happens to a reduction, the findings are kept and counted.
        let mut to_reduce = Vec::new();
        // Computed once, for the first report that needs it.
        let mut repro_case = None;
        for v in &run.verdicts {
            let name = v.oracle.as_str();
            let verdict = match &v.verdict {
                Ok(verdict) => verdict,
                Err(e) => {
                    result.oracle_errors.push((name.to_string(), e.clone()));
                    continue;
                }
            };
            result.judged += 1;
            match verdict {
                Verdict::Pass => {}
                Verdict::Allowed { anomalies } => result
                    .allowed
                    .extend(anomalies.iter().map(|a| format!("{name}: {a}"))),
                Verdict::Undecided { reason } => {
                    result.undecided.push((name.to_string(), reason.clone()))
                }
                Verdict::Finding(finding) | Verdict::VendorPermitted(finding) => {
                    let kind = match verdict {
                        Verdict::VendorPermitted(_) if !self.strict => ReportKind::VendorPermitted,
                        _ => ReportKind::Finding,
                    };
                    let origin = FindingOrigin {
                        kind,
                        oracle: name,
                        dialect: &r.info,
                        generator: r.generator_name(),
                        pipeline: &r.pipeline.path,
                        request,
                        server_version: self.server_version.as_deref(),
                    };
                    let _writing = phases::enter(Phase::Findings);
                    let repro = repro_case
                        .get_or_insert_with(|| self.runner.repro_case(&case, &run.prepared));
                    let dir = write_finding(
                        &shared.run_dir,
                        &FindingInput {
                            origin,
                            generated: &case,
                            case: &run.prepared,
                            rendered: &run.rendered,
                            history: &run.history,
                            finding,
                            repro: repro.as_ref(),
                        },
                    )
                    .map_err(CaseError::WriteFinding)?;
                    let written = WrittenFinding {
                        dir,
                        kind: format!("{name}: {}", finding.signature()),
                        reduction: None,
                        unconfirmed: false,
                    };
                    if kind == ReportKind::VendorPermitted {
                        result.anomalies.push(written);
                        continue;
                    }
                    if shared.may_reduce(name, finding.signature()) {
                        to_reduce.push((result.findings.len(), origin, finding));
                    }
                    result.findings.push(written);
                }
            }
        }
        // A server that did not come back ends the run: the findings are on
        // disk, and a reduction would only wait for it again.
        let server_gone = run
            .history
            .server_lost
            .as_ref()
            .filter(|loss| loss.back_after_ms.is_none());
        if let Some(loss) = server_gone {
            shared.stop(format!(
                "case {}: {loss}; the run stopped with its findings on disk",
                request.index
            ));
            for (i, _, _) in &to_reduce {
                result.findings[*i].reduction =
                    Some("not reduced: the server did not come back".into());
            }
            to_reduce.clear();
        }
        if let Some(settings) = self.reduce {
            for (i, origin, finding) in to_reduce {
                if shared.interrupted() {
                    result.findings[i].reduction =
                        Some("not reduced: the run was interrupted".into());
                    continue;
                }
                if shared.stopped() {
                    result.findings[i].reduction = Some("not reduced: the run stopped".into());
                    continue;
                }
                let dir = result.findings[i].dir.clone();
                let _reducing = phases::enter(Phase::Reduce);
                let report = reduce_and_write(
                    &mut self.runner,
                    &dir,
                    origin,
                    &case,
                    finding,
                    &settings,
                    self.run_ends,
                );
                let summary = match &report {
                    Ok(report) => report.summary(),
                    Err(e) => {
                        shared.output_failed(format!(
                            "cannot write the reduction of {}: {e}",
                            dir.display()
                        ));
                        format!("the reduction could not be written: {e}")
                    }
                };
                result.findings[i].reduction = Some(summary);
                let never_again =
                    report.is_ok_and(|r| r.outcome == ReductionOutcome::OriginalDidNotReproduce);
                if never_again {
                    match move_to_unconfirmed(&shared.run_dir, &dir) {
                        Ok(moved) => {
                            result.findings[i].dir = moved;
                            result.findings[i].unconfirmed = true;
                        }
                        Err(e) => {
                            tracing::warn!(target: "txlab::run", "could not move {} to unconfirmed/: {e}; it stays a finding", dir.display())
                        }
                    }
                }
            }
        }
        let (unconfirmed, confirmed) = std::mem::take(&mut result.findings)
            .into_iter()
            .partition(|f| f.unconfirmed);
        result.findings = confirmed;
        result.unconfirmed = unconfirmed;
        result.history = run.history;
        Ok(result)
    }
}

/// Moves a finding's directory from `findings/` to `unconfirmed/`, whole
/// (report, repro, history): a finding its case never showed again is kept
/// for a look, not counted.
fn move_to_unconfirmed(
    run_dir: &std::path::Path,
    dir: &std::path::Path,
) -> std::io::Result<PathBuf> {
    let target = run_dir.join("unconfirmed");
    std::fs::create_dir_all(&target)?;
    let name = dir.file_name().unwrap_or_default();
    let moved = target.join(name);
    std::fs::rename(dir, &moved)?;
    let name = name.to_string_lossy();
    crate::io::note_move(
        &moved,
        &format!("findings/{name}"),
        &format!("unconfirmed/{name}"),
    )?;
    Ok(moved)
}
