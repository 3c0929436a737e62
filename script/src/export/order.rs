//! The order a case's statements ran in, from its history.
//!
//! The executor sends statements in submitted order, but holds a
//! transaction's later statements while one of its statements is blocked,
//! so the order they were sent in can differ from the submitted order:
//! submitted `T2.2 T2.3 T1.3` with `T2.2` blocked until `T1.3` commits runs
//! as `T2.2 T1.3 T2.3`. That is the order a person types them in and the
//! order mysql-test and the isolation tester need. Statements that were never
//! sent (their transaction had already ended) go right after the statement
//! before them in submitted order and their own transaction's previous one.

use txlab_plugin_api::ir::*;

/// Whether the executor sent statement `at`.
pub fn was_sent(history: &History, at: StatementRef) -> bool {
    history
        .record(at)
        .is_some_and(|r| r.submitted_us.is_some() && !matches!(r.outcome, Outcome::NotSubmitted))
}

/// The statements of `case` in the order they ran (see the module's
/// documentation); the submitted order when the history has no times.
pub fn execution_order(case: &TestCase, history: &History) -> Vec<StatementRef> {
    let submitted = &case.submitted_order;
    let position = |at: &StatementRef| submitted.iter().position(|x| x == at).unwrap_or(0);
    let mut placed: Vec<StatementRef> = submitted
        .iter()
        .copied()
        .filter(|&at| was_sent(history, at))
        .collect();
    placed.sort_by_key(|at| {
        (
            history.record(*at).and_then(|r| r.submitted_us),
            position(at),
        )
    });
    for (i, &at) in submitted.iter().enumerate() {
        if was_sent(history, at) {
            continue;
        }
        let index_of = |x: StatementRef| placed.iter().position(|&p| p == x);
        let after_submitted = i
            .checked_sub(1)
            .and_then(|j| index_of(submitted[j]))
            .map_or(0, |p| p + 1);
        let after_own = at
            .stmt()
            .checked_sub(1)
            .and_then(|s| index_of(StatementRef::new(at.txn(), s)))
            .map_or(0, |p| p + 1);
        placed.insert(after_submitted.max(after_own), at);
    }
    if keeps_each_transactions_order(&placed) && placed.len() == submitted.len() {
        placed
    } else {
        // A history whose times contradict the case (a hand-made one): the
        // case's own order is the safe choice.
        submitted.clone()
    }
}

fn keeps_each_transactions_order(order: &[StatementRef]) -> bool {
    let mut next = std::collections::BTreeMap::new();
    order.iter().all(|at| {
        let n = next.entry(at.txn()).or_insert(0);
        let ok = *n == at.stmt();
        *n += 1;
        ok
    })
}

/// The statement after which blocked statement `at` resumed, when it
/// blocked and resumed.
pub fn resumed_after(history: &History, at: StatementRef) -> Option<StatementRef> {
    history
        .record(at)
        .and_then(|r| r.blocked.as_ref())
        .and_then(|b| b.resumed_after)
}

/// Whether statement `at` blocked.
pub fn blocked(history: &History, at: StatementRef) -> bool {
    history.record(at).is_some_and(|r| r.blocked.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(order: &[(usize, usize)], sizes: &[usize]) -> TestCase {
        TestCase {
            seed: 0,
            generator: String::new(),
            schema: Schema::default(),
            initial_rows: Vec::new(),
            transactions: sizes
                .iter()
                .map(|&n| Transaction {
                    isolation: IsolationLevel::Serializable,
                    kind: TxnKind::Explicit,
                    statements: vec![Statement::Commit; n],
                })
                .collect(),
            submitted_order: order
                .iter()
                .map(|&(t, s)| StatementRef::new(t, s))
                .collect(),
            intent: None,
            pace_ms: None,
        }
    }

    fn history(case: &TestCase, sent: &[((usize, usize), u64)]) -> History {
        let mut h = History {
            statements: case
                .transactions
                .iter()
                .enumerate()
                .map(|(t, txn)| {
                    (0..txn.statements.len())
                        .map(|s| StatementRecord {
                            at: StatementRef::new(t, s),
                            sql: String::new(),
                            submitted_us: None,
                            completed_us: None,
                            blocked: None,
                            outcome: Outcome::NotSubmitted,
                        })
                        .collect()
                })
                .collect(),
            ..History::default()
        };
        for &((t, s), us) in sent {
            h.statements[t][s].submitted_us = Some(us);
            h.statements[t][s].outcome = Outcome::Done;
        }
        h
    }

    fn refs(order: &[StatementRef]) -> Vec<String> {
        order.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_blocked_statement_holds_its_transaction_back() {
        // T2.2 blocks until T1.2 commits: T2.3, submitted before T1.2, runs after it.
        let c = case(&[(0, 0), (1, 0), (1, 1), (1, 2), (0, 1)], &[2, 3]);
        let h = history(
            &c,
            &[
                ((0, 0), 1),
                ((1, 0), 2),
                ((1, 1), 3),
                ((0, 1), 4),
                ((1, 2), 5),
            ],
        );
        assert_eq!(
            refs(&execution_order(&c, &h)),
            ["T1.1", "T2.1", "T2.2", "T1.2", "T2.3"]
        );
    }

    #[test]
    fn statements_never_sent_stay_after_their_transactions_last_one() {
        // T2.2 failed (never mind how); T2.3 was not sent. T1.2 was sent after T2.2.
        let c = case(&[(0, 0), (1, 0), (1, 1), (1, 2), (0, 1)], &[2, 3]);
        let h = history(&c, &[((0, 0), 1), ((1, 0), 2), ((1, 1), 3), ((0, 1), 4)]);
        assert_eq!(
            refs(&execution_order(&c, &h)),
            ["T1.1", "T2.1", "T2.2", "T2.3", "T1.2"]
        );
        // Without any times: the submitted order.
        let none = history(&c, &[]);
        assert_eq!(execution_order(&c, &none), c.submitted_order);
    }
}
