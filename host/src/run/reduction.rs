//! Reduces a finding's case on the DBMS that showed it.
//!
//! The judge of [`txlab_reduce`] runs each smaller candidate through the same
//! runner as the original case and asks the oracle that reported the finding;
//! a candidate reproduces when that oracle reports a finding with the same
//! signature (the kind of finding, without statement positions, which change
//! as statements go). A candidate that could not run for a reason outside
//! it (the server went away or did not answer, the run was interrupted)
//! stops the reduction: the outcome is `could_not_run` with that reason,
//! never "did not reproduce"; one that failed in its own right (its
//! rendering, say) does not reproduce. The
//! reduced case is then run `confirm` more times, and the report says how
//! often it reproduced, because concurrency findings can depend on timing.
//!
//! Some findings show only some of the time, or only at a person's pace
//! (a blocked statement settled into its wait before the other transaction
//! goes on; tables created afresh rather than reset): the original case runs
//! again `attempts` (at least `confirm`) times at the run's pace, and when
//! it does not show the finding every time, with longer and longer pauses
//! after each confirmed block and each transaction end ([`PACES`]), until a
//! pace shows it in every run. The reduction and its confirmation keep that
//! pause (`reduction.json`: `pace_ms`); when no pace shows it every time,
//! they keep the pace that showed it most often and run each candidate more
//! often ([`attempts_for`]).

use super::case_runner::{CaseRunner, Evaluated};
use crate::config::ReduceSettings;
use crate::io::{
    write_reduction, FindingInput, FindingOrigin, PaceRuns, ReductionOutcome, ReductionReport,
};
use std::cell::Cell;
use std::path::Path;
use std::time::{Duration, Instant};
use txlab_plugin_api::ir::{Finding, TestCase};
use txlab_reduce::{reduce, CaseSize, Limits};

/// The pauses the original case runs again with, after its runs at the
/// run's own pace did not show the finding every time: at each, up to as
/// many runs as at the run's pace, until one does not show it.
pub const PACES: [Duration; 3] = [
    Duration::from_millis(50),
    Duration::from_millis(200),
    Duration::from_millis(600),
];

/// The most runs of a candidate [`attempts_for`] asks for.
pub const MAX_ATTEMPTS: u32 = 5;

/// Runs of each candidate for a finding its original case showed in
/// `shown` of `runs` runs: enough that a candidate which shows it as often
/// misses all its runs with a chance under 10% (at most [`MAX_ATTEMPTS`]);
/// 1 when it showed it every time.
pub fn attempts_for(shown: u32, runs: u32) -> u32 {
    if runs == 0 || shown >= runs {
        return 1;
    }
    if shown == 0 {
        return MAX_ATTEMPTS;
    }
    let miss = 1.0 - f64::from(shown) / f64::from(runs);
    let needed = (0.1f64.ln() / miss.ln()).ceil();
    (needed as u32).clamp(2, MAX_ATTEMPTS)
}

/// The reduced case and its last run that showed the finding.
pub struct Reduced {
    /// The case as a generator would have made it, before `prepare`.
    pub generated: TestCase,
    pub run: Evaluated,
}

/// Reduces `generated` (the case as the generator made it) while `oracle`
/// keeps reporting a finding like `finding` (same signature). No trial starts
/// after `not_after`, when given, nor after the settings' time budget.
/// Returns the report and, when the reduced case reproduced, the case with
/// its last reproducing run.
pub fn reduce_finding(
    runner: &mut CaseRunner<'_>,
    generated: &TestCase,
    oracle: &str,
    finding: &Finding,
    settings: &ReduceSettings,
    not_after: Option<Instant>,
) -> (ReductionReport, Option<Reduced>) {
    let started = Instant::now();
    let signature = finding.signature();
    // Set when a trial could not run: from then on no trial runs, and the
    // reduction says so instead of calling the candidates non-reproducing.
    let could_not_run: Cell<Option<String>> = Cell::new(None);
    // Trials that ran, up to the one that could not.
    let ran = Cell::new(0usize);
    let judge = |runner: &mut CaseRunner<'_>, case: &TestCase| -> Option<Evaluated> {
        if let Some(reason) = could_not_run.take() {
            could_not_run.set(Some(reason));
            return None;
        }
        ran.set(ran.get() + 1);
        let e = match runner.evaluate(case, Some(oracle)) {
            Ok(e) => e,
            Err(e) if e.outside_the_case() => {
                could_not_run.set(Some(e.to_string()));
                return None;
            }
            Err(e) => {
                tracing::debug!(target: "txlab::reduce", "a candidate failed with a tool error: {e}");
                return None;
            }
        };
        let shown = e
            .finding_of(oracle)
            .is_some_and(|f| f.signature() == signature);
        if let Some(loss) = e.cut_short(shown) {
            could_not_run.set(Some(loss.to_string()));
            return None;
        }
        shown.then_some(e)
    };
    let mut report = ReductionReport {
        oracle: oracle.to_string(),
        title: finding.title.clone(),
        signature: signature.to_string(),
        outcome: ReductionOutcome::OriginalDidNotReproduce,
        before: CaseSize::of(generated),
        after: CaseSize::of(generated),
        trials: 0,
        elapsed_secs: 0.0,
        stopped: String::new(),
        steps: Vec::new(),
        confirm_runs: 0,
        reproduced: 0,
        pace_ms: 0,
        confirmation: Vec::new(),
        attempts: settings.attempts.max(1),
        unconfirmed: None,
    };
    // A finding that depends on timing may not show every time, or only
    // at a slower pace: how often it shows at each decides the pace kept
    // and the runs per candidate.
    let runs = settings.attempts.max(settings.confirm).max(1);
    let run_pace = runner.pace();
    let original = |runner: &mut CaseRunner<'_>, pace: Duration, stop_at_miss: bool| {
        runner.set_pace(pace);
        let mut tally = PaceRuns {
            pace_ms: pace.as_millis() as u64,
            runs: 0,
            shown: 0,
        };
        while tally.runs < runs {
            tally.runs += 1;
            if judge(runner, generated).is_some() {
                tally.shown += 1;
            } else if stop_at_miss {
                break;
            }
        }
        tally
    };
    let mut kept: Option<(Duration, PaceRuns)> = None;
    for pace in std::iter::once(run_pace).chain(PACES.into_iter().filter(|p| *p > run_pace)) {
        // At the run's own pace every run counts; a slower pace is given up
        // at its first miss.
        let tally = original(runner, pace, pace != run_pace);
        report.confirmation.push(tally);
        report.trials += tally.runs as usize;
        let rate = |t: &PaceRuns| f64::from(t.shown) / f64::from(t.runs);
        if tally.shown > 0 && kept.as_ref().is_none_or(|(_, k)| rate(&tally) > rate(k)) {
            kept = Some((pace, tally));
        }
        if tally.shown == tally.runs {
            break;
        }
    }
    let Some((pace, tally)) = kept else {
        runner.set_pace(run_pace);
        if let Some(reason) = could_not_run.take() {
            report.outcome = ReductionOutcome::CouldNotRun;
            report.trials = ran.get();
            report.stopped = reason;
        }
        report.elapsed_secs = started.elapsed().as_secs_f64();
        return (report, None);
    };
    runner.set_pace(pace);
    if pace > run_pace {
        report.pace_ms = pace.as_millis() as u64;
    }
    report.attempts = settings.attempts.max(attempts_for(tally.shown, tally.runs));
    // The case carries the pace that showed the finding, so that its
    // reduction, replays and repro script keep it.
    let mut generated = generated.clone();
    if report.pace_ms > 0 {
        generated.pace_ms = Some(report.pace_ms);
    }
    let reduction = reduce(
        generated,
        Limits {
            max_trials: settings.max_trials,
            deadline: Some(match not_after {
                Some(end) => end.min(started + settings.max_time),
                None => started + settings.max_time,
            }),
            attempts: report.attempts,
        },
        |case| judge(runner, case).is_some(),
    );
    let mut last = None;
    for _ in 0..settings.confirm.max(1) {
        report.confirm_runs += 1;
        if let Some(e) = judge(runner, &reduction.case) {
            report.reproduced += 1;
            last = Some(Reduced {
                generated: reduction.case.clone(),
                run: e,
            });
        }
    }
    runner.set_pace(run_pace);
    if let Some(reason) = could_not_run.take() {
        report.outcome = ReductionOutcome::CouldNotRun;
        report.trials = ran.get();
        report.stopped = reason;
        report.elapsed_secs = started.elapsed().as_secs_f64();
        return (report, None);
    }
    report.outcome = if last.is_some() {
        ReductionOutcome::Reduced
    } else {
        report.unconfirmed = Some(reduction.case.clone());
        ReductionOutcome::ReducedDidNotReproduce
    };
    report.after = CaseSize::of(&reduction.case);
    report.trials += reduction.trials;
    report.stopped = reduction.stopped.describe().to_string();
    report.steps = reduction.steps;
    report.elapsed_secs = started.elapsed().as_secs_f64();
    (report, last)
}

/// Reduces a written finding and writes the outcome next to it; returns the
/// reduction's report.
pub fn reduce_and_write(
    runner: &mut CaseRunner<'_>,
    dir: &Path,
    origin: FindingOrigin<'_>,
    generated: &TestCase,
    finding: &Finding,
    settings: &ReduceSettings,
    not_after: Option<Instant>,
) -> std::io::Result<ReductionReport> {
    let (report, reduced) = reduce_finding(
        runner,
        generated,
        origin.oracle,
        finding,
        settings,
        not_after,
    );
    let finding = reduced
        .as_ref()
        .and_then(|r| r.run.finding_of(origin.oracle));
    let repro = reduced
        .as_ref()
        .and_then(|r| runner.repro_case(&r.generated, &r.run.prepared));
    let input = reduced
        .as_ref()
        .zip(finding)
        .map(|(r, finding)| FindingInput {
            origin,
            generated: &r.generated,
            case: &r.run.prepared,
            rendered: &r.run.rendered,
            history: &r.run.history,
            finding,
            repro: repro.as_ref(),
        });
    write_reduction(dir, &report, input.as_ref())?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::attempts_for;

    #[test]
    fn a_finding_that_shows_less_often_gets_more_runs_per_candidate() {
        assert_eq!(attempts_for(3, 3), 1);
        assert_eq!(attempts_for(0, 0), 1);
        // A candidate that shows it as often as the original case then
        // misses all its runs with a chance under 10%.
        assert_eq!(attempts_for(9, 10), 2);
        assert_eq!(attempts_for(2, 3), 3);
        assert_eq!(attempts_for(1, 2), 4);
        // At most MAX_ATTEMPTS.
        assert_eq!(attempts_for(1, 3), 5);
        assert_eq!(attempts_for(0, 3), 5);
    }
}
