//! The order a case's statements ran in, as a person at one client per
//! session would type them: each statement where it was sent, a statement
//! that blocked where it was sent (the statements after it ran meanwhile),
//! and its reply where it came.

use txlab_plugin_api::ir::*;

/// One step of a run, in the order they happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Sent, and its reply came before anything else was sent.
    Run(StatementRef),
    /// Sent, and it waited for a lock (or never replied): the steps after it
    /// ran while it waited.
    Blocks(StatementRef),
    /// The reply of a statement that blocked.
    Returns(StatementRef),
    /// Never sent: its transaction was already over.
    NotSent(StatementRef),
}

impl Step {
    pub fn at(self) -> StatementRef {
        match self {
            Step::Run(at) | Step::Blocks(at) | Step::Returns(at) | Step::NotSent(at) => at,
        }
    }
}

/// The steps of `case` as `history` recorded them: sends by their send
/// time, a blocked statement's reply in the completion order. Statements
/// never sent come right after the last step of their transaction. Without
/// a history (no send times), or when the times do not give an order that
/// keeps each transaction's own, the submitted order.
pub fn execution_steps(case: &TestCase, history: &History) -> Vec<Step> {
    let submitted = || {
        case.submitted_order
            .iter()
            .map(|&at| Step::Run(at))
            .collect()
    };
    let sent_at = |at: StatementRef| {
        history
            .record(at)
            .filter(|r| r.outcome != Outcome::NotSubmitted)
            .and_then(|r| r.submitted_us)
    };
    if case.submitted_order.iter().all(|&at| sent_at(at).is_none()) {
        return submitted();
    }
    let completed: Vec<StatementRef> = history
        .completion_order
        .iter()
        .copied()
        .filter(|&at| sent_at(at).is_some())
        .collect();
    let blocked = |at: StatementRef| history.record(at).is_some_and(|r| r.blocked.is_some());
    // Sent, and its send is a step of its own: it blocked, or never replied.
    let mut waiting: Vec<(u64, StatementRef)> = case
        .submitted_order
        .iter()
        .filter_map(|&at| Some((sent_at(at)?, at)))
        .filter(|&(_, at)| blocked(at) || !completed.contains(&at))
        .collect();
    waiting.sort_by_key(|&(t, at)| (t, position(case, at)));
    let mut waiting = waiting.into_iter().peekable();
    let mut steps = Vec::new();
    let mut emitted_blocks: Vec<StatementRef> = Vec::new();
    for &at in &completed {
        let record = history.record(at).expect("sent statements have records");
        let key = if record.blocked.is_some() {
            record.completed_us.or(record.submitted_us)
        } else {
            record.submitted_us
        }
        .unwrap_or(0);
        while let Some(&(t, w)) = waiting.peek() {
            if t > key && w != at {
                break;
            }
            waiting.next();
            steps.push(Step::Blocks(w));
            emitted_blocks.push(w);
            if w == at {
                break;
            }
        }
        if record.blocked.is_some() {
            if !emitted_blocks.contains(&at) {
                steps.push(Step::Blocks(at));
            }
            steps.push(Step::Returns(at));
        } else {
            steps.push(Step::Run(at));
        }
    }
    steps.extend(waiting.map(|(_, at)| Step::Blocks(at)));
    // Never sent: after the last step of their transaction.
    for &at in &case.submitted_order {
        if sent_at(at).is_some() {
            continue;
        }
        let after = steps
            .iter()
            .rposition(|s| s.at().txn == at.txn)
            .map_or(steps.len(), |i| i + 1);
        steps.insert(after, Step::NotSent(at));
    }
    if keeps_each_transaction_order(case, &steps) {
        steps
    } else {
        submitted()
    }
}

fn position(case: &TestCase, at: StatementRef) -> usize {
    case.submitted_order
        .iter()
        .position(|&s| s == at)
        .unwrap_or(usize::MAX)
}

/// Every statement once (a reply aside), each transaction's in its order.
fn keeps_each_transaction_order(case: &TestCase, steps: &[Step]) -> bool {
    let order = statement_order(steps);
    let mut next = vec![0usize; case.transactions.len()];
    for at in &order {
        match next.get_mut(at.txn()) {
            Some(n) if *n == at.stmt() => *n += 1,
            _ => return false,
        }
    }
    next.iter()
        .zip(&case.transactions)
        .all(|(n, t)| *n == t.statements.len())
}

/// The statements in the order the steps write them (a reply is not a
/// statement of its own).
pub fn statement_order(steps: &[Step]) -> Vec<StatementRef> {
    steps
        .iter()
        .filter(|s| !matches!(s, Step::Returns(_)))
        .map(|s| s.at())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(lengths: &[usize], submitted: &[(usize, usize)]) -> TestCase {
        TestCase {
            seed: 0,
            generator: "test".into(),
            schema: Schema::default(),
            initial_rows: vec![],
            transactions: lengths
                .iter()
                .map(|&n| Transaction {
                    isolation: IsolationLevel::RepeatableRead,
                    kind: TxnKind::Explicit,
                    statements: vec![Statement::Commit; n],
                })
                .collect(),
            submitted_order: submitted
                .iter()
                .map(|&(t, s)| StatementRef::new(t, s))
                .collect(),
            intent: None,
            pace_ms: None,
        }
    }

    /// `times`: per statement (txn, stmt, sent, replied, blocked); the
    /// completion order is by reply time.
    fn history(case: &TestCase, times: &[(usize, usize, u64, Option<u64>, bool)]) -> History {
        let mut statements: Vec<Vec<StatementRecord>> = case
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
            .collect();
        let mut replies = Vec::new();
        for &(t, s, sent, replied, blocked) in times {
            let r = &mut statements[t][s];
            r.submitted_us = Some(sent);
            r.completed_us = replied;
            r.outcome = if replied.is_some() {
                Outcome::Done
            } else {
                Outcome::NoReply
            };
            r.blocked = blocked.then_some(Blocking {
                detected_us: sent + 1,
                evidence: BlockEvidence::Probe,
                resumed_after: None,
            });
            if let Some(at) = replied {
                replies.push((at, r.at));
            }
        }
        replies.sort();
        History {
            statements,
            completion_order: replies.into_iter().map(|(_, at)| at).collect(),
            ..History::default()
        }
    }

    #[test]
    fn a_blocked_statement_is_where_it_was_sent_and_its_reply_where_it_came() {
        let at = StatementRef::new;
        // T2.2 waits for T1; T2.3 is submitted before T1.3 but runs after
        // T2.2's reply. T3 aborts at T3.2, so T3.3 is never sent.
        let c = case(
            &[3, 4, 3],
            &[
                (0, 0),
                (1, 0),
                (2, 0),
                (0, 1),
                (1, 1),
                (1, 2),
                (2, 1),
                (2, 2),
                (0, 2),
                (1, 3),
            ],
        );
        let h = history(
            &c,
            &[
                (0, 0, 10, Some(11), false),
                (1, 0, 20, Some(21), false),
                (2, 0, 30, Some(31), false),
                (0, 1, 40, Some(41), false),
                (1, 1, 50, Some(91), true),
                (2, 1, 60, Some(61), false),
                (0, 2, 80, Some(90), false),
                (1, 2, 100, Some(101), false),
                (1, 3, 110, Some(111), false),
            ],
        );
        let steps = execution_steps(&c, &h);
        assert_eq!(
            steps,
            vec![
                Step::Run(at(0, 0)),
                Step::Run(at(1, 0)),
                Step::Run(at(2, 0)),
                Step::Run(at(0, 1)),
                Step::Blocks(at(1, 1)),
                Step::Run(at(2, 1)),
                Step::NotSent(at(2, 2)),
                Step::Run(at(0, 2)),
                Step::Returns(at(1, 1)),
                Step::Run(at(1, 2)),
                Step::Run(at(1, 3)),
            ]
        );
        // Without a history: the submitted order.
        let plain = execution_steps(&c, &History::default());
        assert_eq!(statement_order(&plain), c.submitted_order);
    }

    #[test]
    fn a_statement_that_never_replied_stays_where_it_was_sent() {
        let at = StatementRef::new;
        let c = case(&[2, 2], &[(0, 0), (1, 0), (0, 1), (1, 1)]);
        let h = history(
            &c,
            &[
                (0, 0, 10, Some(11), false),
                (1, 0, 20, Some(21), false),
                (0, 1, 30, None, true),
                (1, 1, 40, Some(41), false),
            ],
        );
        assert_eq!(
            execution_steps(&c, &h),
            vec![
                Step::Run(at(0, 0)),
                Step::Run(at(1, 0)),
                Step::Blocks(at(0, 1)),
                Step::Run(at(1, 1)),
            ]
        );
    }
}
