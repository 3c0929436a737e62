//! Transactions, their isolation levels, and the order their statements are submitted in.

use crate::config::Config;
use crate::schema::Database;
use crate::statements::StatementGenerator;
use rand::seq::SliceRandom;
use rand::Rng;
use txlab_plugin_api::prelude::*;

/// Explicit transactions over `db`: BEGIN, random statements, then COMMIT or ROLLBACK.
pub fn transactions(
    db: &Database,
    config: &Config,
    features: &Features,
    levels: &[IsolationLevel],
    rng: &mut impl Rng,
) -> Vec<Transaction> {
    let mut statements = StatementGenerator::new(db, config, features, rng);
    let pick_level = |rng: &mut _| *levels.choose(rng).expect("validated: levels exist");
    let case_level = pick_level(rng);
    let count = rng.gen_range(config.transactions[0]..=config.transactions[1]);
    (0..count)
        .map(|_| {
            let isolation = if config.mixed_isolation {
                pick_level(rng)
            } else {
                case_level
            };
            let body = rng.gen_range(config.statements[0]..=config.statements[1]);
            let mut txn = Vec::with_capacity(body as usize + 2);
            txn.push(Statement::Begin);
            txn.extend((0..body).map(|_| statements.statement(rng)));
            txn.push(if rng.gen_bool(config.commit_probability) {
                Statement::Commit
            } else {
                Statement::Rollback
            });
            Transaction {
                isolation,
                kind: TxnKind::Explicit,
                statements: txn,
            }
        })
        .collect()
}

/// A random interleaving that keeps each transaction's own order: repeatedly take the
/// next statement of a random transaction that has statements left.
pub fn submitted_order(transactions: &[Transaction], rng: &mut impl Rng) -> Vec<StatementRef> {
    let mut next = vec![0usize; transactions.len()];
    let mut open: Vec<usize> = (0..transactions.len())
        .filter(|&t| !transactions[t].statements.is_empty())
        .collect();
    let mut order = Vec::with_capacity(transactions.iter().map(|t| t.statements.len()).sum());
    while !open.is_empty() {
        let slot = rng.gen_range(0..open.len());
        let t = open[slot];
        order.push(StatementRef::new(t, next[t]));
        next[t] += 1;
        if next[t] == transactions[t].statements.len() {
            open.remove(slot);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn txn(len: usize) -> Transaction {
        Transaction {
            isolation: IsolationLevel::Serializable,
            kind: TxnKind::Explicit,
            statements: vec![Statement::Begin; len],
        }
    }

    #[test]
    fn orders_are_complete_interleavings() {
        let transactions = vec![txn(3), txn(1), txn(5)];
        let mut seen = std::collections::HashSet::new();
        for seed in 0..200 {
            let order = submitted_order(&transactions, &mut ChaCha8Rng::seed_from_u64(seed));
            assert_eq!(order.len(), 9);
            let mut next = [0u32; 3];
            for at in &order {
                assert_eq!(at.stmt, next[at.txn()], "seed {seed}: {order:?}");
                next[at.txn()] += 1;
            }
            seen.insert(order);
        }
        // 9!/(3!·1!·5!) = 504 interleavings: 200 draws must not collapse to a few.
        assert!(seen.len() > 100, "only {} distinct orders", seen.len());
    }
}
