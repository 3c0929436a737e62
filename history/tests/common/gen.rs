//! Generated list-append-shaped histories for the round-trip tests and the
//! formats benchmark: sessions run transactions of reads and appends over
//! rows, most against the latest versions, some against stale ones (so the
//! histories hold anomalies), some aborted or unfinished, every detail a
//! history can carry used somewhere (labels, levels, times, read kinds,
//! tables, values, recorded writes, inserted rows), and a last
//! transaction that reads every row.

#![allow(dead_code)]

use txlab_history::{
    History, Interval, Observation, ReadKind, StatementId, Transaction, TxnId, TxnOutcome, Write,
    T0,
};
use txlab_plugin_api::ir::IsolationLevel;

/// A small deterministic generator (xorshift).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A history of `n` transactions (plus the final read).
pub fn history(n: usize, seed: u64) -> History {
    let mut rng = Rng::new(seed);
    let rows = (n / 4).max(4);
    let hot = (rows / 100).max(2);
    let mut lists: Vec<Vec<TxnId>> = (0..rows)
        .map(|r| if r % 20 == 7 { Vec::new() } else { vec![T0] })
        .collect();
    let table = |r: usize| format!("t{}", r % 3);
    let mut h = History::new();
    let mut clock = 1_000u64;
    for i in 0..n {
        let id = 10 + 2 * i as TxnId;
        let outcome = match rng.below(100) {
            0..=2 => TxnOutcome::Aborted,
            3 => TxnOutcome::Unknown,
            _ => TxnOutcome::Committed,
        };
        let mut t = Transaction::new(id, outcome).in_session(i as u64 % 8);
        if rng.chance(10) {
            t = t.with_label(format!("txn {id}"));
        }
        if rng.chance(80) {
            t = t.at_level(IsolationLevel::ALL[rng.below(5) as usize]);
        }
        let start = clock;
        clock += 1 + rng.below(20);
        if rng.chance(95) {
            t.started = Some(Interval::new(start, start + rng.below(5)));
            t.ended = Some(Interval::new(clock, clock + 3));
        }
        h.add_transaction(t).unwrap();
        let ops = 2 + rng.below(5) as u32;
        let mut own: Vec<(usize, Vec<TxnId>)> = Vec::new();
        for index in 0..ops {
            let r = if rng.chance(10) {
                rng.below(hot as u64) as usize
            } else {
                rng.below(rows as u64) as usize
            };
            let mine = own.iter().position(|(row, _)| *row == r);
            if rng.chance(55) {
                // A read: own pending writes, else the latest list, or a
                // stale prefix of it.
                let mut list = match mine {
                    Some(k) => own[k].1.clone(),
                    None => lists[r].clone(),
                };
                if mine.is_none() && list.len() > 1 && rng.chance(5) {
                    list.truncate(list.len() - 1);
                }
                if list.is_empty() {
                    continue;
                }
                let kind = match rng.below(20) {
                    0 => ReadKind::Locking,
                    1 => ReadKind::BeforeDelete,
                    _ => ReadKind::Plain,
                };
                let at = rng
                    .chance(30)
                    .then(|| Interval::new(start + index as u64, start + index as u64 + 1));
                let label = if rng.chance(5) {
                    format!("stmt {id}/{index}")
                } else {
                    String::new()
                };
                h.observe(Observation {
                    statement: StatementId::labelled(id, index, label),
                    kind,
                    table: table(r),
                    row: r as u64 + 1,
                    versions: list,
                    values: if rng.chance(50) {
                        format!("({r}, {})", rng.below(100))
                    } else {
                        String::new()
                    },
                    at,
                })
                .unwrap();
            } else {
                // An append.
                let base = match mine {
                    Some(k) => own[k].1.clone(),
                    None => lists[r].clone(),
                };
                let mut next = base;
                next.push(id);
                match mine {
                    Some(k) => own[k].1 = next,
                    None => own.push((r, next)),
                }
                if rng.chance(50) {
                    h.write(Write {
                        statement: StatementId::new(id, index),
                        table: table(r),
                        row: r as u64 + 1,
                    })
                    .unwrap();
                }
            }
        }
        if outcome == TxnOutcome::Committed {
            for (r, list) in own {
                // Installed on top of the latest version (a stale base is
                // a lost update).
                let mut latest = lists[r].clone();
                let added = list.iter().filter(|&&w| w == id).count();
                latest.extend(std::iter::repeat_n(id, added));
                lists[r] = latest;
            }
        }
    }
    let last = 10 + 2 * n as TxnId;
    h.add_transaction(Transaction::committed(last).with_label("the final read"))
        .unwrap();
    for (r, list) in lists.iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        h.observe(Observation {
            statement: StatementId::new(last, 0),
            kind: ReadKind::Plain,
            table: table(r),
            row: r as u64 + 1,
            versions: list.clone(),
            values: String::new(),
            at: None,
        })
        .unwrap();
    }
    h
}
