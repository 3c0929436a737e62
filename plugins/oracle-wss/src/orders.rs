//! Serializability beyond commit order.
//!
//! Serializable snapshot isolation (PostgreSQL's SERIALIZABLE, CockroachDB's)
//! promises that the committed transactions have the effect of *some* serial
//! order, not necessarily the commit order, so a WSS difference there is not a
//! bug by itself (WriteCheck leaves PostgreSQL SERIALIZABLE out for this
//! reason). When every transaction of a case runs at such a level, the oracle
//! replays the committed transactions in every order instead: if one order
//! gives the run's final state and write outcomes, the run is explained; if
//! none does, the run violates serializability, which the vendor promises.
//! Rolled-back and aborted transactions take no part: the promise covers the
//! transactions that commit.

use crate::compare::{compare_outcomes, compare_states, Differences};
use crate::config::{Variant, WssConfig};
use crate::replay::replay;
use crate::schedule::serial_schedule;
use txlab_plugin_api::prelude::*;

/// Whether the search applies: every transaction runs at a level the dialect
/// declares serializable in some order other than the commit order.
pub fn applies(dialect: &DialectInfo, case: &TestCase) -> bool {
    case.transactions.iter().all(|t| {
        dialect
            .level(t.isolation)
            .is_some_and(|s| s.serializable && s.serial_order == SerialOrder::AnyOrder)
    })
}

/// What replaying the committed transactions in every order showed.
#[derive(Clone, Debug)]
pub enum Search {
    /// This serial order reproduces the run.
    Explained { order: Vec<usize> },
    /// No order does; one entry per order tried, with what differed.
    Unexplained {
        tried: Vec<(Vec<usize>, Differences)>,
    },
    /// The search could not decide, and why.
    Undecided(String),
}

/// Tries every order of the committed transactions, at most
/// `config.max_serial_orders`, comparing what `config` says to compare.
pub fn search(
    db: &mut dyn HostDb,
    case: &TestCase,
    history: &History,
    concurrent_state: &DbState,
    config: &WssConfig,
) -> Result<Search, PluginError> {
    let max_orders = config.max_serial_orders;
    let committed: Vec<usize> = (0..case.transactions.len())
        .filter(|&t| history.transactions[t].end == TxnEnd::Committed)
        .collect();
    let orders = factorial(committed.len());
    if orders.is_none_or(|n| n > max_orders) {
        return Ok(Search::Undecided(format!(
            "{} committed transactions have more serial orders than max_serial_orders = {max_orders}",
            committed.len()
        )));
    }
    let mut tried = Vec::new();
    for order in permutations(&committed) {
        let schedule = serial_schedule(Variant::Tx, case, history, &order);
        let run = replay(db, case, &schedule)?;
        if let Some(problem) = run.conflict_description(case) {
            return Ok(Search::Undecided(format!(
                "the serial run in order {} could not run as a model: {problem}",
                order_label(&order)
            )));
        }
        let differences = Differences {
            tables: compare_states(concurrent_state, &run.state)?,
            outcomes: if config.compare_write_outcomes {
                compare_outcomes(case, history, &schedule, &run, config.compare_affected_rows)
            } else {
                Vec::new()
            },
        };
        if differences.is_empty() {
            return Ok(Search::Explained { order });
        }
        tried.push((order, differences));
    }
    Ok(Search::Unexplained { tried })
}

pub fn order_label(order: &[usize]) -> String {
    if order.is_empty() {
        return "(none)".into();
    }
    order
        .iter()
        .map(|&t| txn_label(t))
        .collect::<Vec<_>>()
        .join(" → ")
}

fn factorial(n: usize) -> Option<usize> {
    (1..=n).try_fold(1usize, |acc, k| acc.checked_mul(k))
}

/// Every ordering of `items`, in lexicographic order of positions (the given
/// order first), so that the search is deterministic.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_complete_distinct_and_start_with_the_given_order() {
        let p = permutations(&[2, 0, 1]);
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], [2, 0, 1]);
        let mut sorted = p.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 6);
        assert_eq!(permutations(&[]), [Vec::<usize>::new()]);
        assert_eq!(factorial(4), Some(24));
        assert_eq!(factorial(0), Some(1));
        assert_eq!(factorial(100), None);
    }
}
