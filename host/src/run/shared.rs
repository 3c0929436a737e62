//! What the workers of a run share: the case counter, the stop flag, the
//! tallies, the logs and the progress bar. Each case's result is recorded
//! here, once, under one lock.

use super::summary::{error_key, reason_key, RunSummary};
use super::worker::CaseResult;
use super::CaseError;
use indicatif::ProgressBar;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use txlab_plugin_api::ir::CaseRequest;

pub(super) struct Shared {
    pub(super) taken: AtomicU64,
    pub(super) interrupt: Option<Arc<AtomicBool>>,
    pub(super) stop: AtomicBool,
    pub(super) stop_reason: Mutex<Option<String>>,
    pub(super) summary: Mutex<RunSummary>,
    pub(super) consecutive_errors: AtomicU64,
    pub(super) max_consecutive_errors: u64,
    pub(super) errors_log: Mutex<std::fs::File>,
    pub(super) undecided_log: Mutex<std::fs::File>,
    pub(super) run_dir: PathBuf,
    pub(super) progress: ProgressBar,
    /// Reductions started per oracle and finding signature.
    pub(super) reductions: Mutex<BTreeMap<(String, String), u32>>,
    pub(super) max_reductions_per_kind: u32,
    pub(super) reporting: super::Reporting,
    /// What of the run's output could not be written (a full disk).
    pub(super) output_errors: Mutex<Vec<String>>,
}

impl Shared {
    pub(super) fn stop(&self, reason: String) {
        let mut r = self.stop_reason.lock().expect("lock");
        if r.is_none() {
            *r = Some(reason);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Part of the run's output could not be written: the run stops, since
    /// what it finds next could not be kept either, and the summary and the
    /// exit code say so.
    pub(super) fn output_failed(&self, what: String) {
        tracing::error!(target: "txlab::run", "{what}");
        self.stop(format!("the run's output cannot be written: {what}"));
        self.output_errors.lock().expect("lock").push(what);
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Whether a finding of `oracle` with `signature` gets reduced: the first
    /// few of each kind do, so that a DBMS with one frequent bug does not
    /// spend the run reducing it again and again.
    pub(super) fn may_reduce(&self, oracle: &str, signature: &str) -> bool {
        let mut started = self.reductions.lock().expect("lock");
        let n = started
            .entry((oracle.to_string(), signature.to_string()))
            .or_default();
        *n += 1;
        *n <= self.max_reductions_per_kind
    }

    /// A directory under the run directory, as the summary lists it.
    fn relative(&self, dir: &std::path::Path) -> String {
        dir.strip_prefix(&self.run_dir)
            .unwrap_or(dir)
            .to_string_lossy()
            .into_owned()
    }

    pub(super) fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// A line above the progress bar, or on stdout when there is no bar
    /// (not a terminal), where indicatif would drop it; on stderr when stdout
    /// is for the caller's JSON; nowhere when the run is quiet.
    fn say(&self, line: String) {
        if self.reporting.quiet {
            return;
        }
        if self.reporting.lines_to_stderr {
            eprintln!("{line}");
        } else if self.progress.is_hidden() {
            // Not println!: a closed stdout must not panic a worker.
            let _ = writeln!(std::io::stdout(), "{line}");
        } else {
            self.progress.println(line);
        }
    }

    /// Where there is no progress bar (stderr is not a terminal), a line on
    /// stderr every `progress_every` until `done`: cases, rate, counts, and
    /// the time to the end where it is known.
    pub(super) fn print_progress_lines(
        &self,
        plan: &super::plan::Plan,
        started: std::time::Instant,
        done: &AtomicBool,
    ) {
        let every = self.reporting.progress_every;
        let mut next = started + every;
        while !done.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let now = std::time::Instant::now();
            if now < next {
                continue;
            }
            next = now + every;
            let line = {
                let s = self.summary.lock().expect("lock");
                let elapsed = now.duration_since(started).as_secs_f64();
                let rate = s.cases as f64 / elapsed.max(1e-9);
                let end = match (plan.ends(), plan.len()) {
                    (Some(end), _) => format!(
                        ", {} left",
                        humantime::format_duration(std::time::Duration::from_secs(
                            end.saturating_duration_since(now).as_secs()
                        ))
                    ),
                    (None, Some(n)) if rate > 0.0 && n > s.cases => format!(
                        ", about {} to go",
                        humantime::format_duration(std::time::Duration::from_secs(
                            ((n - s.cases) as f64 / rate) as u64
                        ))
                    ),
                    _ => String::new(),
                };
                let of = plan.len().map(|n| format!("/{n}")).unwrap_or_default();
                format!(
                    "txlab: {}{of} cases, {rate:.1} cases/s, findings {}, vendor-permitted anomalies {}, undecided {}, tool errors {}{end}",
                    s.cases, s.findings, s.anomalies, s.undecided, s.errors
                )
            };
            eprintln!("{line}");
        }
    }

    pub(super) fn refresh(&self) {
        let s = self.summary.lock().expect("lock");
        self.progress.set_message(format!(
            "findings {} | undecided {} | errors {}",
            s.findings, s.undecided, s.errors
        ));
    }

    /// One line of `errors.log`: a case that failed (`oracle` none) or an
    /// oracle that failed on a case.
    fn log_error(&self, seed: u64, request: CaseRequest, oracle: Option<&str>, error: &str) {
        match oracle {
            Some(o) => {
                tracing::warn!(target: "txlab::run", "case {} (run seed {seed}, case seed {}): oracle `{o}` failed: {error}", request.index, request.seed)
            }
            None => {
                tracing::warn!(target: "txlab::run", "case {} (run seed {seed}, case seed {}): {error}", request.index, request.seed)
            }
        }
        let line = LogLine {
            run_seed: seed,
            case_index: request.index,
            case_seed: request.seed,
            kind: if oracle.is_some() { "oracle" } else { "case" },
            oracle,
            text: LogText::Error { error },
        };
        let written = self
            .errors_log
            .lock()
            .expect("lock")
            .write_all(line.to_json().as_bytes());
        if let Err(e) = written {
            let path = self.run_dir.join("errors.log");
            self.output_failed(format!("cannot write {}: {e}", path.display()));
        }
    }

    /// Counts one case, writes its log lines, and stops the run after too
    /// many cases in a row could not be judged at all.
    pub(super) fn record(
        &self,
        seed: u64,
        request: CaseRequest,
        result: &Result<CaseResult, CaseError>,
    ) {
        let mut s = self.summary.lock().expect("lock");
        s.cases += 1;
        let failed = match result {
            Ok(r) => {
                s.exercised.add(&r.history);
                for (oracle, e) in &r.oracle_errors {
                    *s.oracle_errors.entry(oracle.clone()).or_default() += 1;
                    self.log_error(seed, request, Some(oracle), &e.to_string());
                }
                for kind in &r.allowed {
                    *s.allowed_kinds.entry(kind.clone()).or_default() += 1;
                }
                if let Some(intent) = &r.intent {
                    let reported: Vec<&str> = r
                        .findings
                        .iter()
                        .chain(&r.anomalies)
                        .map(|f| f.kind.as_str())
                        .chain(r.allowed.iter().map(String::as_str))
                        .collect();
                    s.patterns.entry(intent.pattern.clone()).or_default().add(
                        intent,
                        &reported,
                        !r.findings.is_empty(),
                        &r.history,
                    );
                }
                s.anomalies += r.anomalies.len() as u64;
                s.unconfirmed += r.unconfirmed.len() as u64;
                for f in &r.unconfirmed {
                    s.unconfirmed_dirs.push(self.relative(&f.dir));
                    *s.unconfirmed_kinds.entry(f.kind.clone()).or_default() += 1;
                    self.say(format!(
                        "unconfirmed: {} (not counted: {})",
                        f.dir.display(),
                        f.reduction.as_deref().unwrap_or("it did not show again")
                    ));
                }
                for a in &r.anomalies {
                    s.anomaly_dirs.push(self.relative(&a.dir));
                    *s.anomaly_kinds.entry(a.kind.clone()).or_default() += 1;
                    self.say(format!("vendor-permitted anomaly: {}", a.dir.display()));
                }
                if r.judged == 0 {
                    // Every oracle failed: the case could not be judged.
                    s.errors += 1;
                    if let Some((oracle, e)) = r.oracle_errors.last() {
                        let key = error_key(&format!("oracle `{oracle}` failed: {e}"));
                        *s.error_reasons.entry(key).or_default() += 1;
                    }
                } else if !r.findings.is_empty() {
                    s.cases_with_findings += 1;
                    s.findings += r.findings.len() as u64;
                    for f in &r.findings {
                        s.finding_dirs.push(self.relative(&f.dir));
                        *s.finding_kinds.entry(f.kind.clone()).or_default() += 1;
                        let line = match &f.reduction {
                            Some(r) => format!("finding: {} ({r})", f.dir.display()),
                            None => format!("finding: {}", f.dir.display()),
                        };
                        self.say(line);
                    }
                } else if !r.anomalies.is_empty() {
                    s.cases_with_anomalies += 1;
                } else if !r.unconfirmed.is_empty() {
                    s.cases_unconfirmed += 1;
                } else if !r.undecided.is_empty() {
                    s.undecided += 1;
                    let mut log = self.undecided_log.lock().expect("lock");
                    let mut failed = None;
                    for (oracle, reason) in &r.undecided {
                        let group = reason_key(&format!("{oracle}: {reason}"));
                        *s.undecided_reasons.entry(group.clone()).or_default() += 1;
                        s.undecided_reasons_total += 1;
                        let line = LogLine {
                            run_seed: seed,
                            case_index: request.index,
                            case_seed: request.seed,
                            kind: "undecided",
                            oracle: Some(oracle),
                            text: LogText::Reason { reason, group },
                        };
                        if let Err(e) = log.write_all(line.to_json().as_bytes()) {
                            failed = Some(e);
                        }
                    }
                    drop(log);
                    if let Some(e) = failed {
                        let path = self.run_dir.join("undecided.log");
                        self.output_failed(format!("cannot write {}: {e}", path.display()));
                    }
                } else {
                    s.passed += 1;
                }
                // Nothing judged the case: as bad as a case that failed.
                r.judged == 0
            }
            Err(e) => {
                s.errors += 1;
                let text = e.to_string();
                *s.error_reasons.entry(error_key(&text)).or_default() += 1;
                self.log_error(seed, request, None, &text);
                true
            }
        };
        drop(s);
        if failed {
            let n = self.consecutive_errors.fetch_add(1, Ordering::SeqCst) + 1;
            if n >= self.max_consecutive_errors {
                let last = match result {
                    Err(e) => e.to_string(),
                    Ok(r) => r
                        .oracle_errors
                        .last()
                        .map(|(o, e)| format!("oracle `{o}` failed: {e}"))
                        .unwrap_or_default(),
                };
                self.stop(format!("{n} cases in a row failed; the last error: {last}"));
            }
        } else {
            self.consecutive_errors.store(0, Ordering::SeqCst);
        }
    }
}

/// One line of `errors.log` or `undecided.log` (JSON Lines; the fields are
/// documented in docs/findings.md).
#[derive(serde::Serialize)]
pub(super) struct LogLine<'a> {
    pub(super) run_seed: u64,
    pub(super) case_index: u64,
    pub(super) case_seed: u64,
    /// `case` (the case failed), `oracle` (an oracle failed on it) or
    /// `undecided`.
    pub(super) kind: &'static str,
    pub(super) oracle: Option<&'a str>,
    #[serde(flatten)]
    pub(super) text: LogText<'a>,
}

#[derive(serde::Serialize)]
#[serde(untagged)]
pub(super) enum LogText<'a> {
    Error {
        error: &'a str,
    },
    Reason {
        reason: &'a str,
        /// The group `summary.json`'s `undecided_reasons` counts it in.
        group: String,
    },
}

impl LogLine<'_> {
    pub(super) fn to_json(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}
