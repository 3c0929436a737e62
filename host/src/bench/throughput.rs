//! `txlab bench --throughput`: runs a pipeline for a fixed time, as `txlab
//! run` would, with every worker's phase clock on, and reports the rates and
//! where the wall time went per case.

use crate::phases::{Phase, PhaseTotals, ScratchWork};
use crate::run::throughput::Measured;
use crate::run::{Reporting, RunOptions};
use crate::setup::{Resolved, ServerAccess, SetupError};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, serde::Serialize)]
pub struct PhaseRow {
    pub phase: String,
    /// Summed over the workers.
    pub total_ms: f64,
    pub us_per_case: f64,
    /// Share of the workers' summed wall time, percent.
    pub share: f64,
}

#[derive(Debug, serde::Serialize)]
pub struct ThroughputReport {
    pub machine: String,
    /// `/proc/loadavg`'s 1-minute figure before and after the run.
    pub load_before: Option<f64>,
    pub load_after: Option<f64>,
    pub dialect: String,
    pub server_version: Option<String>,
    pub pipeline: PathBuf,
    pub seed: u64,
    pub workers: usize,
    pub elapsed_secs: f64,
    pub cases: u64,
    /// Cases that failed with a tool error (not in the rates).
    pub errors: u64,
    pub cases_per_sec: f64,
    pub txns_executed_per_sec: f64,
    pub txns_checked_per_sec: f64,
    pub txns_checked_per_hour: f64,
    /// The workers' wall time, summed, and what the phases add up to.
    pub worker_wall_ms: f64,
    pub phases_sum_ms: f64,
    pub phases: Vec<PhaseRow>,
    pub block_samples: usize,
    pub block_detect_median_us: u64,
    pub block_detect_p90_us: u64,
    pub blocks_by_timeout: u64,
}

/// What a phase is called in the report; oracle phases by the oracle's name.
pub fn phase_name(phase: Phase, oracles: &[String]) -> String {
    let oracle = |i: u8| {
        oracles
            .get(i as usize)
            .cloned()
            .unwrap_or_else(|| format!("oracle {i}"))
    };
    match phase {
        Phase::Generate => "generate, instrument, render".into(),
        Phase::Reset => "table reset".into(),
        Phase::Setup => "session set-up".into(),
        Phase::Statements => "statements".into(),
        Phase::BlockWaits => "waits for blocked statements".into(),
        Phase::Commits => "commits and rollbacks".into(),
        Phase::FinalState => "final-state read".into(),
        Phase::Check(i) => format!("{} check", oracle(i)),
        Phase::Replay(i, work) => {
            let work = match work {
                ScratchWork::Reset => "table resets",
                ScratchWork::Sessions => "sessions",
                ScratchWork::Statements => "statements",
                ScratchWork::State => "state reads",
                ScratchWork::Case => "concurrent runs",
            };
            format!("{} replays: {work}", oracle(i))
        }
        Phase::Findings => "findings on disk".into(),
        Phase::Reduce => "reduction".into(),
        Phase::Idle => "idle (next case, tallies)".into(),
    }
}

/// The per-phase rows of `phases` over `cases` cases.
pub fn rows(phases: &PhaseTotals, cases: u64, oracles: &[String]) -> Vec<PhaseRow> {
    let wall = phases.wall.as_secs_f64().max(f64::MIN_POSITIVE);
    phases
        .totals
        .iter()
        .map(|(phase, d)| PhaseRow {
            phase: phase_name(*phase, oracles),
            total_ms: d.as_secs_f64() * 1e3,
            us_per_case: d.as_secs_f64() * 1e6 / cases.max(1) as f64,
            share: 100.0 * d.as_secs_f64() / wall,
        })
        .collect()
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Builds the report from the workers' measurements.
pub fn report(
    resolved: &Resolved<'_>,
    summary: &crate::run::RunSummary,
    load_before: Option<f64>,
    load_after: Option<f64>,
) -> ThroughputReport {
    let mut all = Measured::default();
    for m in &summary.measured {
        all.merge(m);
    }
    all.block_detect_us.sort_unstable();
    let oracles: Vec<String> = resolved
        .pipeline
        .pipeline
        .oracles
        .iter()
        .map(|o| o.plugin.get_ref().clone())
        .collect();
    let secs = summary.elapsed_secs.max(f64::MIN_POSITIVE);
    ThroughputReport {
        machine: super::machine(),
        load_before,
        load_after,
        dialect: resolved.info.name.clone(),
        server_version: summary.server_version.clone(),
        pipeline: resolved.pipeline.path.clone(),
        seed: summary.seed,
        workers: summary.measured.len(),
        elapsed_secs: summary.elapsed_secs,
        cases: all.cases,
        errors: summary.errors,
        cases_per_sec: all.cases as f64 / secs,
        txns_executed_per_sec: all.txns_executed as f64 / secs,
        txns_checked_per_sec: all.txns_checked as f64 / secs,
        txns_checked_per_hour: all.txns_checked as f64 / secs * 3600.0,
        worker_wall_ms: all.phases.wall.as_secs_f64() * 1e3,
        phases_sum_ms: all.phases.sum().as_secs_f64() * 1e3,
        phases: rows(&all.phases, all.cases, &oracles),
        block_samples: all.block_detect_us.len(),
        block_detect_median_us: percentile(&all.block_detect_us, 0.5),
        block_detect_p90_us: percentile(&all.block_detect_us, 0.9),
        blocks_by_timeout: all.blocks_by_timeout,
    }
}

/// Runs the pipeline for `duration` with the phase clocks on; its run
/// directory goes to `out` (a temporary directory, removed after, when
/// `None`).
pub fn run(
    resolved: &Resolved<'_>,
    duration: Duration,
    seed: Option<u64>,
    out: Option<PathBuf>,
    server: &ServerAccess,
) -> Result<ThroughputReport, SetupError> {
    let temp =
        match out {
            Some(_) => None,
            None => Some(tempfile::tempdir().map_err(|e| {
                SetupError::Bench(format!("cannot create a temporary directory: {e}"))
            })?),
        };
    let out = out.or_else(|| temp.as_ref().map(|t| t.path().to_path_buf()));
    let options = RunOptions {
        duration: Some(duration),
        seed,
        out,
        server: server.clone(),
        reporting: Reporting {
            quiet: true,
            ..Reporting::default()
        },
        measure: true,
        ..RunOptions::default()
    };
    let load_before = load_average();
    let summary = crate::run::run(resolved, &options)?;
    let load_after = load_average();
    Ok(report(resolved, &summary, load_before, load_after))
}

impl ThroughputReport {
    pub fn render(&self) -> String {
        let load = |l: Option<f64>| l.map_or("?".into(), |l| format!("{l:.2}"));
        let mut s = format!(
            "machine: {}\nload average (1 min): {} before, {} after\n\
             target: {} ({}), pipeline {}, seed {}, {} worker(s), {:.1} s\n\
             cases: {} ({} tool errors not counted), {:.1} cases/s\n\
             transactions: {:.1}/s executed, {:.1}/s checked ({:.2}M checked per hour)\n\
             block detection ({} blocks in the run's cases): median {:.2} ms, p90 {:.2} ms{}\n\n",
            self.machine,
            load(self.load_before),
            load(self.load_after),
            self.dialect,
            self.server_version.as_deref().unwrap_or("version unknown"),
            self.pipeline.display(),
            self.seed,
            self.workers,
            self.elapsed_secs,
            self.cases,
            self.errors,
            self.cases_per_sec,
            self.txns_executed_per_sec,
            self.txns_checked_per_sec,
            self.txns_checked_per_hour / 1e6,
            self.block_samples,
            self.block_detect_median_us as f64 / 1000.0,
            self.block_detect_p90_us as f64 / 1000.0,
            if self.blocks_by_timeout > 0 {
                format!(
                    " ({} more only by the fallback timeout)",
                    self.blocks_by_timeout
                )
            } else {
                String::new()
            },
        );
        s.push_str(&format!(
            "{:<34} {:>10} {:>10} {:>7}\n",
            "where the workers' time went", "µs/case", "total ms", "share"
        ));
        for row in &self.phases {
            s.push_str(&format!(
                "{:<34} {:>10.1} {:>10.1} {:>6.1}%\n",
                row.phase, row.us_per_case, row.total_ms, row.share
            ));
        }
        s.push_str(&format!(
            "{:<34} {:>10} {:>10.1} (phases sum to {:.1} ms)",
            "workers' wall time", "", self.worker_wall_ms, self.phases_sum_ms
        ));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_share_the_wall_time_and_name_oracles() {
        let phases = PhaseTotals {
            totals: [
                (Phase::Reset, Duration::from_micros(300)),
                (Phase::Check(0), Duration::from_micros(100)),
                (
                    Phase::Replay(0, ScratchWork::Statements),
                    Duration::from_micros(600),
                ),
            ]
            .into(),
            wall: Duration::from_micros(1000),
            switches: 3,
        };
        let rows = rows(&phases, 4, &["wss".into()]);
        let names: Vec<&str> = rows.iter().map(|r| r.phase.as_str()).collect();
        assert_eq!(
            names,
            ["table reset", "wss check", "wss replays: statements"]
        );
        assert_eq!(rows[0].us_per_case, 75.0);
        let share: f64 = rows.iter().map(|r| r.share).sum();
        assert!((share - 100.0).abs() < 1e-9, "{share}");
    }
}
