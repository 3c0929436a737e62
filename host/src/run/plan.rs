//! Which cases a run takes: a number, until a time, or one chosen case; and
//! of those, the slice a shard takes.

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

/// The `index`-th of `count` disjoint slices of a run's case indices
/// (`--shard INDEX/COUNT`, INDEX from 0 as a Kubernetes Indexed Job counts):
/// the cases whose index is `index` modulo `count`. Every shard of a run
/// with the same seed runs the cases the unsharded run would, each once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// The whole run.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// The case index of this shard's `taken`-th case.
    fn case_index(self, taken: u64) -> Option<u64> {
        taken.checked_mul(self.count)?.checked_add(self.index)
    }

    /// How many of the case indices below `n` are this shard's.
    fn cases_below(self, n: u64) -> u64 {
        n.saturating_sub(self.index).div_ceil(self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Most shards of one run: more would leave each a few cases.
pub const MAX_SHARDS: u64 = 100_000;

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let usage = || format!("`{s}`: expected INDEX/COUNT, e.g. 0/8 (INDEX from 0 to COUNT-1)");
        let (index, count) = s.split_once('/').ok_or_else(usage)?;
        let index: u64 = index.trim().parse().map_err(|_| usage())?;
        let count: u64 = count.trim().parse().map_err(|_| usage())?;
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("`{s}`: COUNT must be between 1 and {MAX_SHARDS}"));
        }
        if index >= count {
            return Err(format!(
                "`{s}`: INDEX must be below COUNT (shards are numbered from 0)"
            ));
        }
        Ok(Shard { index, count })
    }
}

pub(super) enum Extent {
    Cases(u64),
    Until(Instant),
    Single(u64),
}

pub(super) struct Plan {
    pub(super) extent: Extent,
    pub(super) shard: Shard,
}

impl Plan {
    /// Whether the `taken`-th case (from 0) is part of the run.
    pub(super) fn allows(&self, taken: u64) -> bool {
        match self.extent {
            Extent::Cases(n) => self.shard.case_index(taken).is_some_and(|i| i < n),
            Extent::Until(t) => Instant::now() < t,
            Extent::Single(_) => taken == 0,
        }
    }

    /// The case index of the `taken`-th case.
    pub(super) fn index(&self, taken: u64) -> u64 {
        match self.extent {
            Extent::Single(i) => i,
            _ => self.shard.case_index(taken).unwrap_or(u64::MAX),
        }
    }

    /// How many cases the run takes, where that is known in advance.
    pub(super) fn len(&self) -> Option<u64> {
        match self.extent {
            Extent::Cases(n) => Some(self.shard.cases_below(n)),
            Extent::Single(_) => Some(1),
            Extent::Until(_) => None,
        }
    }

    pub(super) fn ends(&self) -> Option<Instant> {
        match self.extent {
            Extent::Until(end) => Some(end),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(plan: &Plan) -> Vec<u64> {
        (0..)
            .take_while(|&t| plan.allows(t))
            .map(|t| plan.index(t))
            .collect()
    }

    #[test]
    fn the_shards_of_a_run_take_its_cases_once_each() {
        for n in [0, 1, 7, 100, 101] {
            for count in [1, 2, 3, 8, 150] {
                let mut all: Vec<u64> = Vec::new();
                for index in 0..count {
                    let plan = Plan {
                        extent: Extent::Cases(n),
                        shard: Shard { index, count },
                    };
                    let mine = taken(&plan);
                    assert_eq!(
                        plan.len(),
                        Some(mine.len() as u64),
                        "{index}/{count} of {n}"
                    );
                    assert!(mine.iter().all(|i| i % count == index));
                    all.extend(mine);
                }
                all.sort();
                assert_eq!(all, (0..n).collect::<Vec<_>>(), "{count} shards of {n}");
            }
        }
    }

    #[test]
    fn shards_are_written_index_slash_count() {
        assert_eq!("3/8".parse(), Ok(Shard { index: 3, count: 8 }));
        assert_eq!("0/1".parse(), Ok(Shard::ALL));
        for bad in ["8/8", "1/0", "3", "a/b", "-1/4", "1/100001"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert!("8/8"
            .parse::<Shard>()
            .unwrap_err()
            .contains("INDEX must be below COUNT"));
    }
}
