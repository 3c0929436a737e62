//! The [`Dealer`] bounds what waits for its window: sessions take cases the
//! way the stream executor does (an index from the dealer, the case to the
//! checker, then the dealer's brake, then its transactions), one of them
//! much slower than the others, and the checker's side retires closed
//! groups after every event as [`Windows`] does in a run.

use super::record;
use super::window::Windows;
use crate::executor::stream::{Dealer, StatementRun, StreamEvent, TxnEnd, TxnRun};
use std::sync::mpsc;
use txlab_history::formats::sql_list::{self, SqlMop};
use txlab_plugin_api::ir::*;

const TABLE: &str = "elle_list";
const SESSIONS: usize = 4;
const CASES_PER_GENERATION: u64 = 4;
const KEYS: i64 = 3;
/// Explicit transactions per case (besides the creation of its keys).
const TRANSACTIONS: usize = 3;
const CASES: u64 = 160;
const LAG: u64 = 2;

/// Case `index`: the creation of its generation's keys, then
/// `TRANSACTIONS` transactions that append to one of them and read it.
fn case(index: u64) -> TestCase {
    let first = (index / CASES_PER_GENERATION) as i64 * KEYS + 1;
    let keys: Vec<i64> = (first..first + KEYS).collect();
    let mut transactions = vec![Transaction {
        isolation: IsolationLevel::Serializable,
        kind: TxnKind::Autocommit,
        statements: vec![sql_list::statement(TABLE, &SqlMop::Ensure { keys })],
    }];
    for t in 0..TRANSACTIONS {
        let key = first + (index as i64 + t as i64) % KEYS;
        let value = (index * TRANSACTIONS as u64 + t as u64) as i64 + 1;
        transactions.push(Transaction {
            isolation: IsolationLevel::Serializable,
            kind: TxnKind::Explicit,
            statements: vec![
                Statement::Begin,
                sql_list::statement(TABLE, &SqlMop::Append { key, value }),
                sql_list::statement(TABLE, &SqlMop::Read { key }),
                Statement::Commit,
            ],
        });
    }
    TestCase {
        seed: 1,
        generator: "test".into(),
        schema: Schema {
            tables: vec![sql_list::table(TABLE, ColumnType::Text)],
        },
        initial_rows: vec![],
        transactions,
        submitted_order: vec![],
        intent: None,
        pace_ms: None,
    }
}

/// A transaction as a session would report it: every statement succeeded
/// (the lists read are not what the checker of this test looks at).
fn ran(session: usize, case_index: u64, txn: usize, t: &Transaction) -> TxnRun {
    let statements = t
        .statements
        .iter()
        .map(|s| StatementRun {
            statement: s.clone(),
            submitted_us: 1,
            replied_us: 2,
            outcome: match sql_list::decode(TABLE, s) {
                Some(SqlMop::Read { .. }) => Outcome::Rows {
                    columns: vec!["v".into()],
                    rows: vec![vec![Value::Text(String::new())]],
                },
                Some(_) => Outcome::Affected { rows: 1 },
                None => Outcome::Done,
            },
        })
        .collect();
    TxnRun {
        session,
        case_index,
        txn,
        isolation: t.isolation,
        kind: t.kind,
        statements,
        end: TxnEnd::Committed,
    }
}

/// One session's loop, in the stream executor's order. The session dealt
/// case 0 is the slow one: each of its cases waits, before its first
/// transaction, until every other session is held by the dealer or has
/// ended. (Whichever thread starts first is dealt case 0; a slow session
/// fixed in advance could start late and hold a later generation, letting
/// the first generation's windows close, which is not the case tested.)
fn session(s: usize, dealer: &Dealer, events: mpsc::Sender<StreamEvent>) {
    let mut slow = false;
    loop {
        let index = dealer.deal();
        if index >= CASES {
            break;
        }
        let case = case(index);
        let generation = record::generation(&case, TABLE);
        let transactions = case.transactions.clone();
        events
            .send(StreamEvent::Case {
                session: s,
                index,
                case: Box::new(case),
            })
            .unwrap();
        assert!(dealer.enter(s, generation, || false));
        slow |= index == 0;
        if slow {
            dealer.until_the_others_wait(s);
        }
        for (t, txn) in transactions.iter().enumerate() {
            let run = ran(s, index, t, txn);
            events.send(StreamEvent::Done(Box::new(run))).unwrap();
        }
    }
    dealer.leave(s);
    events
        .send(StreamEvent::Ended {
            session: s,
            error: None,
        })
        .unwrap();
}

/// The most transactions waiting for their window during a stream whose
/// dealer allows `max_lag` generations, and how many there were in all.
fn most_waiting(max_lag: Option<u64>) -> (usize, usize) {
    let dealer = Dealer::new(SESSIONS, 0, max_lag);
    let (sender, events) = mpsc::channel();
    let mut windows = Windows::new(SESSIONS);
    let (mut most, mut all, mut next_id) = (0, 0, 1);
    std::thread::scope(|scope| {
        for s in 0..SESSIONS {
            let (dealer, sender) = (&dealer, sender.clone());
            scope.spawn(move || session(s, dealer, sender));
        }
        drop(sender);
        for event in events {
            match event {
                StreamEvent::Case { session, case, .. } => {
                    windows.set_floor(session, record::floor(&case, TABLE));
                }
                StreamEvent::Done(run) => {
                    if let Some(txn) = record::list_txn(next_id, &run, TABLE).unwrap() {
                        next_id += 1;
                        windows.add(txn);
                        most = most.max(windows.open());
                    }
                }
                StreamEvent::Ended { session, .. } => windows.set_floor(session, None),
            }
            all += windows.take_closed(false).len();
        }
    });
    all += windows.take_closed(true).len();
    assert_eq!(windows.late, 0);
    assert_eq!(all, CASES as usize * TRANSACTIONS);
    (most, all)
}

/// Every transaction the checker holds is in a generation from the lowest
/// one a session is in to `LAG` above it.
const BOUND: usize = (LAG as usize + 1) * CASES_PER_GENERATION as usize * TRANSACTIONS;

#[test]
fn a_slow_session_holds_back_the_others_by_at_most_the_lag() {
    let (most, all) = most_waiting(Some(LAG));
    eprintln!("with a lag of {LAG} generations: at most {most} of {all} transactions waited (bound {BOUND})");
    assert!(
        most <= BOUND,
        "{most} of {all} transactions waited for their window at once, more than {BOUND}"
    );
}

#[test]
fn without_the_bound_a_slow_session_keeps_everything_after_it_open() {
    // The case for the bound: the others run every other case while the
    // slow session is in its first one.
    let (most, all) = most_waiting(None);
    let others = (CASES as usize - 1) * TRANSACTIONS;
    assert!(most >= others, "{most} of {all}");
    assert!(most > BOUND);
}

#[test]
fn a_case_knows_its_generation() {
    for index in [0, 3, 4, 17] {
        assert_eq!(
            record::generation(&case(index), TABLE),
            Some(index / CASES_PER_GENERATION)
        );
    }
}
