//! Which cases a run takes: a number, until a time, or one chosen case.

use std::time::Instant;

pub(super) enum Plan {
    Cases(u64),
    Until(Instant),
    Single(u64),
}

impl Plan {
    /// Whether the `taken`-th case (from 0) is part of the run.
    pub(super) fn allows(&self, taken: u64) -> bool {
        match self {
            Plan::Cases(n) => taken < *n,
            Plan::Until(t) => Instant::now() < *t,
            Plan::Single(_) => taken == 0,
        }
    }

    /// The case index of the `taken`-th case.
    pub(super) fn index(&self, taken: u64) -> u64 {
        match self {
            Plan::Single(i) => *i,
            _ => taken,
        }
    }

    pub(super) fn ends(&self) -> Option<Instant> {
        match self {
            Plan::Until(end) => Some(*end),
            _ => None,
        }
    }
}
