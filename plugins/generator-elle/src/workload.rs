//! One case of the workload: which keys a generation uses, which micro-ops
//! each transaction does, and the element every append appends (the value
//! every register write writes).

use crate::config::{Config, Workload};
use rand::seq::SliceRandom;
use rand::Rng;
use txlab_history::formats::sql_list::SqlMop;
use txlab_plugin_api::prelude::*;

/// The keys of case `index`'s generation: `keys` consecutive numbers from
/// `generation * keys + 1`, the first `hot_keys` of them hot.
pub struct Keys {
    first: i64,
    count: u32,
    hot: u32,
}

impl Keys {
    pub fn of_case(config: &Config, index: u64) -> Keys {
        let generation = index / config.cases_per_generation;
        Keys {
            first: (generation * u64::from(config.keys)) as i64 + 1,
            count: config.keys,
            hot: config.hot_keys,
        }
    }

    /// Every key of the generation, ascending.
    pub fn all(&self) -> Vec<i64> {
        (0..i64::from(self.count)).map(|k| self.first + k).collect()
    }

    pub fn draw(&self, config: &Config, rng: &mut impl Rng) -> i64 {
        let k = if self.hot > 0 && rng.gen_bool(config.hot_probability) {
            rng.gen_range(0..self.hot)
        } else {
            rng.gen_range(0..self.count)
        };
        self.first + i64::from(k)
    }
}

/// One transaction's micro-ops and level.
pub struct TxnPlan {
    pub isolation: IsolationLevel,
    pub mops: Vec<SqlMop>,
}

/// The transactions of case `index`. Element numbers are
/// `index * elements_per_case + n` for the case's `n`-th append (from 1), so
/// no two appends of a run append the same element.
pub fn plan(
    config: &Config,
    levels: &[IsolationLevel],
    index: u64,
    rng: &mut impl Rng,
) -> Vec<TxnPlan> {
    let keys = Keys::of_case(config, index);
    let case_level = *levels.choose(rng).expect("validated: levels exist");
    let mut next_element = (index * config.elements_per_case()) as i64;
    (0..config.transactions)
        .map(|_| {
            let isolation = if config.mixed_isolation {
                *levels.choose(rng).expect("validated: levels exist")
            } else {
                case_level
            };
            let n = rng.gen_range(config.ops[0]..=config.ops[1]);
            let mops = (0..n)
                .map(|_| {
                    let key = keys.draw(config, rng);
                    if rng.gen_bool(config.read_probability) {
                        SqlMop::Read { key }
                    } else {
                        next_element += 1;
                        let value = next_element;
                        match config.workload {
                            Workload::ListAppend => SqlMop::Append { key, value },
                            Workload::RwRegister => SqlMop::Write { key, value },
                        }
                    }
                })
                .collect();
            TxnPlan { isolation, mops }
        })
        .collect()
}
