//! Where a worker's wall time goes: a per-thread clock that charges every
//! moment between [`install`] and [`finish`] to exactly one phase of the
//! case loop. Off unless installed (`txlab bench --throughput`); then each
//! switch costs one `Instant::now()` and a map update.
//!
//! The clock always has a *current* phase. [`enter`] charges the time since
//! the last switch to the current phase and makes another current until its
//! guard drops; [`charge`] gives the time since the last switch to a phase
//! chosen after the fact (a statement's wait turns out to be a block, a
//! COMMIT's reply a commit) while the current phase stays. So the phases sum
//! to the time between `install` and `finish`, by construction.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A phase of the case loop. `Check` and `Replay` carry the oracle's index
/// in the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// The generator making the case, the oracles instrumenting it, the
    /// dialect rendering it.
    Generate,
    /// Emptying and refilling (or creating) the case's tables.
    Reset,
    /// Taking the case's sessions and applying their set-up.
    Setup,
    /// Statements other than COMMIT/ROLLBACK, from submission to reply, and
    /// the executor's own work between them.
    Statements,
    /// From submitting a statement that blocks until the probe confirms the
    /// wait; settling blocked statements after a transaction ends; waiting
    /// while every transaction is blocked.
    BlockWaits,
    /// COMMIT and ROLLBACK, from submission to reply.
    Commits,
    /// Reading the tables after the case, for the oracles.
    FinalState,
    /// Oracle `i`'s check, without its replays.
    Check(u8),
    /// Oracle `i`'s requests to the scratch database, by what they do.
    Replay(u8, ScratchWork),
    /// Writing findings (and anomalies) to disk.
    Findings,
    /// Reducing findings.
    Reduce,
    /// Everything else: taking the next case, recording results, pauses.
    Idle,
}

/// What an oracle's request to the scratch database does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScratchWork {
    /// Putting the case's tables and rows in place.
    Reset,
    /// Opening and closing sessions.
    Sessions,
    /// Running statements.
    Statements,
    /// Reading the tables.
    State,
    /// Running a whole case concurrently.
    Case,
}

/// What one worker's clock measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseTotals {
    pub totals: BTreeMap<Phase, Duration>,
    /// From `install` to `finish`.
    pub wall: Duration,
    /// How many times time was charged.
    pub switches: u64,
}

impl PhaseTotals {
    pub fn sum(&self) -> Duration {
        self.totals.values().sum()
    }

    /// Adds another worker's totals (their walls add up too).
    pub fn merge(&mut self, other: &PhaseTotals) {
        for (phase, d) in &other.totals {
            *self.totals.entry(*phase).or_default() += *d;
        }
        self.wall += other.wall;
        self.switches += other.switches;
    }
}

struct Clock {
    started: Instant,
    current: Phase,
    since: Instant,
    totals: BTreeMap<Phase, Duration>,
    switches: u64,
}

impl Clock {
    fn charge_to(&mut self, phase: Phase, now: Instant) {
        let d = now.saturating_duration_since(self.since);
        *self.totals.entry(phase).or_default() += d;
        self.since = now;
        self.switches += 1;
    }
}

thread_local! {
    static CLOCK: RefCell<Option<Clock>> = const { RefCell::new(None) };
}

/// Starts this thread's clock, in [`Phase::Idle`].
pub fn install() {
    let now = Instant::now();
    CLOCK.with(|c| {
        *c.borrow_mut() = Some(Clock {
            started: now,
            current: Phase::Idle,
            since: now,
            totals: BTreeMap::new(),
            switches: 0,
        })
    });
}

/// Stops this thread's clock and returns what it measured; `None` when none
/// was installed.
pub fn finish() -> Option<PhaseTotals> {
    let now = Instant::now();
    CLOCK.with(|c| {
        let mut clock = c.borrow_mut().take()?;
        let current = clock.current;
        clock.charge_to(current, now);
        Some(PhaseTotals {
            wall: now.saturating_duration_since(clock.started),
            totals: clock.totals,
            switches: clock.switches,
        })
    })
}

/// Whether this thread's clock runs.
pub fn active() -> bool {
    CLOCK.with(|c| c.borrow().is_some())
}

/// The current phase, when the clock runs.
pub fn current() -> Option<Phase> {
    CLOCK.with(|c| c.borrow().as_ref().map(|c| c.current))
}

/// Makes `phase` current until the guard drops; the time until now goes to
/// the phase that was current. Inside [`Phase::Reduce`] nothing changes.
#[must_use = "the phase ends when the guard drops"]
pub fn enter(phase: Phase) -> Guard {
    let previous = CLOCK.with(|c| {
        let mut c = c.borrow_mut();
        // A reduction runs cases of its own: all of it counts as reducing.
        let clock = c.as_mut().filter(|c| c.current != Phase::Reduce)?;
        let now = Instant::now();
        let was = clock.current;
        clock.charge_to(was, now);
        clock.current = phase;
        Some(was)
    });
    Guard { previous }
}

/// Enters the replay phase of the oracle whose check is current, for
/// `work`; nothing changes when no check is current.
#[must_use = "the phase ends when the guard drops"]
pub fn enter_replay(work: ScratchWork) -> Guard {
    match current() {
        Some(Phase::Check(i)) => enter(Phase::Replay(i, work)),
        _ => Guard { previous: None },
    }
}

/// Gives the time since the last switch to `phase`, if `within` is current
/// (the executor charges its waits only while it runs a case's own
/// statements, not a replay).
pub fn charge(within: Phase, phase: Phase) {
    CLOCK.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(clock) = c.as_mut().filter(|c| c.current == within) {
            clock.charge_to(phase, Instant::now());
        }
    })
}

/// Restores the phase that was current before [`enter`].
pub struct Guard {
    previous: Option<Phase>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let Some(previous) = self.previous else {
            return;
        };
        CLOCK.with(|c| {
            let mut c = c.borrow_mut();
            if let Some(clock) = c.as_mut() {
                let now = Instant::now();
                let phase = clock.current;
                clock.charge_to(phase, now);
                clock.current = previous;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(n: u64) -> u64 {
        (0..n).fold(0u64, |a, i| a.wrapping_mul(31).wrapping_add(i)) % 1_000_003
    }

    #[test]
    fn phases_sum_to_the_wall_time_through_nesting_and_charges() {
        let outer_start = Instant::now();
        install();
        let mut sink = 0;
        for round in 0..50u64 {
            let _g = enter(Phase::Generate);
            sink += spin(100 + round);
            {
                let _s = enter(Phase::Statements);
                sink += spin(200);
                charge(Phase::Statements, Phase::BlockWaits);
                sink += spin(50);
                // Not current: charges nothing.
                charge(Phase::Reset, Phase::Commits);
                {
                    let _c = enter(Phase::Check(1));
                    sink += spin(30);
                    let _r = enter_replay(ScratchWork::State);
                    sink += spin(30);
                }
            }
            sink += spin(10);
        }
        let totals = finish().expect("installed");
        let outer = outer_start.elapsed();
        assert!(sink > 0);
        // Duration sums are exact: every nanosecond is charged once.
        assert_eq!(totals.sum(), totals.wall, "{totals:?}");
        assert!(totals.wall <= outer);
        assert!(totals
            .totals
            .contains_key(&Phase::Replay(1, ScratchWork::State)));
        assert!(totals.totals.contains_key(&Phase::BlockWaits));
        assert!(!totals.totals.contains_key(&Phase::Commits));
        // 50 rounds × (enter, enter, charge, enter, enter, 4 drops) + finish.
        assert_eq!(totals.switches, 50 * 9 + 1);
        assert!(!active());
    }

    #[test]
    fn without_a_clock_nothing_is_measured() {
        let _g = enter(Phase::Reset);
        charge(Phase::Reset, Phase::Commits);
        assert_eq!(current(), None);
        assert_eq!(finish(), None);
    }

    #[test]
    fn merged_totals_add_phases_and_walls() {
        let mut a = PhaseTotals {
            totals: [(Phase::Reset, Duration::from_micros(3))].into(),
            wall: Duration::from_micros(3),
            switches: 1,
        };
        let b = PhaseTotals {
            totals: [
                (Phase::Reset, Duration::from_micros(2)),
                (Phase::Idle, Duration::from_micros(5)),
            ]
            .into(),
            wall: Duration::from_micros(7),
            switches: 2,
        };
        a.merge(&b);
        assert_eq!(a.sum(), a.wall);
        assert_eq!(a.totals[&Phase::Reset], Duration::from_micros(5));
        assert_eq!(a.switches, 3);
    }
}
