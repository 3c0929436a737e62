//! `run.workers`: a number of workers, or `"auto"` for as many as keep the
//! machine's cores and a local server busy.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// How many workers a run starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workers {
    Count(usize),
    /// Two per logical CPU: a worker spends most of a case waiting for
    /// round trips, so one per CPU leaves them idle (measured in
    /// docs/benchmarks.md).
    Auto,
}

/// Workers per logical CPU under `"auto"`.
pub const AUTO_PER_CPU: usize = 2;

impl Workers {
    /// The number of workers, for `cpus` logical CPUs.
    pub fn count(self, cpus: usize) -> usize {
        match self {
            Workers::Count(n) => n,
            Workers::Auto => cpus.max(1) * AUTO_PER_CPU,
        }
    }

    /// The number of workers on this machine, at most `max`.
    pub fn resolve(self, max: usize) -> usize {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        match self {
            Workers::Count(n) => n,
            Workers::Auto => self.count(cpus).min(max),
        }
    }
}

impl Default for Workers {
    fn default() -> Self {
        Workers::Count(1)
    }
}

impl fmt::Display for Workers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Workers::Count(n) => write!(f, "{n}"),
            Workers::Auto => f.write_str("\"auto\""),
        }
    }
}

impl<'de> Deserialize<'de> for Workers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Workers;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of workers or \"auto\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Workers, E> {
                usize::try_from(v)
                    .map(Workers::Count)
                    .map_err(|_| E::custom(format!("`run.workers` must be at least 1, not {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Workers, E> {
                usize::try_from(v)
                    .map(Workers::Count)
                    .map_err(|_| E::custom(format!("`run.workers` is too large: {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Workers, E> {
                if v == "auto" {
                    Ok(Workers::Auto)
                } else {
                    Err(E::custom(format!(
                        "`run.workers` must be a number or \"auto\", not \"{v}\""
                    )))
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Run {
        workers: Workers,
    }

    fn parse(text: &str) -> Result<Workers, String> {
        toml::from_str::<Run>(text)
            .map(|r| r.workers)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn numbers_and_auto() {
        assert_eq!(parse("workers = 3"), Ok(Workers::Count(3)));
        assert_eq!(parse("workers = \"auto\""), Ok(Workers::Auto));
        assert_eq!(Workers::Auto.count(2), 4);
        assert_eq!(Workers::Auto.count(0), 2);
        assert_eq!(Workers::Count(5).count(2), 5);
        assert!(Workers::Auto.resolve(3) <= 3);
    }

    #[test]
    fn bad_inputs_say_what_is_accepted() {
        for bad in [
            "workers = \"Auto\"",
            "workers = \"auto \"",
            "workers = \"\"",
            "workers = \"4\"",
            "workers = -1",
            "workers = 2.5",
            "workers = true",
            "workers = [2]",
        ] {
            let e = parse(bad).expect_err(bad);
            assert!(
                e.contains("\"auto\"") || e.contains("at least 1"),
                "{bad}: {e}"
            );
        }
    }
}
