//! Properties of `check` on generated histories:
//!
//! - transactions run one after another never show an anomaly or a
//!   violation, whatever the options;
//! - on small random interleavings whose every write is observed, the
//!   checker finds a cycle (or an intermediate read, G1b) exactly when no
//!   serial order of the committed transactions explains every read and
//!   every row's version order (brute force over all orders).

use proptest::prelude::*;
use txlab_history::*;

/// An operation of a generated transaction.
#[derive(Clone, Debug)]
enum Op {
    Read { row: u64, locking: bool },
    Write { row: u64 },
    Delete { row: u64 },
}

fn op(rows: u64, deletes: bool) -> impl Strategy<Value = Op> {
    let delete_weight = if deletes { 1 } else { 0 };
    prop_oneof![
        4 => (1..=rows, any::<bool>()).prop_map(|(row, locking)| Op::Read { row, locking }),
        3 => (1..=rows).prop_map(|row| Op::Write { row }),
        delete_weight => (1..=rows).prop_map(|row| Op::Delete { row }),
    ]
}

/// A transaction: its operations, whether it rolls back, its session.
fn txn(rows: u64) -> impl Strategy<Value = (Vec<Op>, bool, u64)> {
    (
        prop::collection::vec(op(rows, true), 1..=5),
        prop::bool::weighted(0.2),
        0..3u64,
    )
}

fn observe(h: &mut History, txn: TxnId, index: u32, kind: ReadKind, row: u64, versions: &[TxnId]) {
    h.observe_ref(ObservationRef {
        statement: &StatementId::new(txn, index),
        kind,
        table: "t",
        row,
        versions,
        values: "",
        at: None,
    })
    .unwrap();
}

/// Runs the transactions one after another against rows whose version
/// lists grow as a DBMS grows them; a rolled-back transaction's writes
/// vanish. A last transaction reads every row.
fn serial_history(rows: u64, txns: &[(Vec<Op>, bool, u64)]) -> History {
    let mut h = History::new();
    let mut state: Vec<Option<Vec<TxnId>>> = vec![Some(vec![0]); rows as usize + 1];
    let mut clock = 0u64;
    for (i, (ops, abort, session)) in txns.iter().enumerate() {
        let id = i as TxnId + 1;
        let outcome = if *abort {
            TxnOutcome::Aborted
        } else {
            TxnOutcome::Committed
        };
        h.add_transaction(Transaction::new(id, outcome).in_session(*session).timed(
            Interval::new(clock, clock + 1),
            Interval::new(clock + 2, clock + 3),
        ))
        .unwrap();
        clock += 10;
        let mut work = state.clone();
        for (k, op) in ops.iter().enumerate() {
            let index = k as u32 + 1;
            match *op {
                Op::Read { row, locking } => {
                    if let Some(list) = &work[row as usize] {
                        let kind = if locking {
                            ReadKind::Locking
                        } else {
                            ReadKind::Plain
                        };
                        observe(&mut h, id, index, kind, row, list);
                    }
                }
                Op::Write { row } => {
                    if let Some(list) = &mut work[row as usize] {
                        list.push(id);
                    }
                }
                Op::Delete { row } => {
                    if let Some(list) = work[row as usize].take() {
                        observe(&mut h, id, index, ReadKind::BeforeDelete, row, &list);
                    }
                }
            }
        }
        if !abort {
            state = work;
        }
    }
    let reader = txns.len() as TxnId + 1;
    h.add_transaction(Transaction::committed(reader).timed(
        Interval::new(clock, clock + 1),
        Interval::new(clock + 2, clock + 3),
    ))
    .unwrap();
    for row in 1..=rows {
        if let Some(list) = &state[row as usize] {
            observe(&mut h, reader, row as u32, ReadKind::Plain, row, list);
        }
    }
    h
}

fn all_options() -> Vec<Options> {
    let mut out = Vec::new();
    for bits in 0..8u8 {
        out.push(Options {
            exempt_locking_reads: bits & 1 != 0,
            session_order: bits & 2 != 0,
            start_order: bits & 4 != 0,
            list_edges: true,
            intermediate_reads_in_cycles: false,
        });
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn serial_runs_show_no_anomaly(
        rows in 1..=4u64,
        txns in prop::collection::vec(txn(4), 1..=8),
    ) {
        let txns: Vec<_> = txns
            .into_iter()
            .map(|(ops, abort, s)| {
                let ops = ops
                    .into_iter()
                    .map(|op| match op {
                        Op::Read { row, locking } => Op::Read { row: (row - 1) % rows + 1, locking },
                        Op::Write { row } => Op::Write { row: (row - 1) % rows + 1 },
                        Op::Delete { row } => Op::Delete { row: (row - 1) % rows + 1 },
                    })
                    .collect();
                (ops, abort, s)
            })
            .collect();
        let h = serial_history(rows, &txns);
        for options in all_options() {
            let r = check(&h, &options);
            let stream = check(&h, &Options { list_edges: false, ..options.clone() });
            prop_assert_eq!(&stream.anomalies, &r.anomalies);
            prop_assert!(
                r.is_clean(),
                "{options:?}: {:?}\n{:?}",
                r.anomalies.iter().map(|a| a.describe(&h)).collect::<Vec<_>>(),
                r.violations.iter().map(|v| v.describe(&h)).collect::<Vec<_>>()
            );
        }
    }
}

/// An operation of an interleaved transaction, with what its read saw.
#[derive(Clone, Debug)]
enum Step {
    Read { row: u64, saw: Vec<TxnId> },
    Write { row: u64 },
}

/// A random interleaving of committed transactions. Writes install their
/// version when they run (the version order is the order of the writes);
/// a read returns some version installed so far, never one older than the
/// reader's own last write of the row. A last transaction reads every row.
#[derive(Clone, Debug)]
struct Interleaved {
    rows: u64,
    programs: Vec<Vec<Step>>,
    finals: Vec<Vec<TxnId>>,
    history: History,
}

fn interleaved() -> impl Strategy<Value = Interleaved> {
    (1..=4u64, 1..=6usize)
        .prop_flat_map(|(rows, n)| {
            (
                Just(rows),
                prop::collection::vec(prop::collection::vec((any::<bool>(), 1..=rows), 1..=4), n),
                prop::collection::vec(any::<u16>(), 40),
            )
        })
        .prop_map(|(rows, shapes, choices)| {
            let n = shapes.len();
            let mut history = History::new();
            for id in 1..=n as TxnId + 1 {
                history.add_transaction(Transaction::committed(id)).unwrap();
            }
            let mut cur: Vec<Vec<TxnId>> = vec![vec![0]; rows as usize + 1];
            let mut next = vec![0usize; n];
            let mut programs: Vec<Vec<Step>> = vec![Vec::new(); n];
            let mut choice = choices.into_iter().cycle();
            loop {
                let live: Vec<usize> = (0..n).filter(|&t| next[t] < shapes[t].len()).collect();
                if live.is_empty() {
                    break;
                }
                let t = live[choice.next().unwrap() as usize % live.len()];
                let (is_write, row) = shapes[t][next[t]];
                next[t] += 1;
                let id = t as TxnId + 1;
                let list = &mut cur[row as usize];
                if is_write {
                    list.push(id);
                    programs[t].push(Step::Write { row });
                } else {
                    let own = list.iter().rposition(|&w| w == id).map_or(1, |p| p + 1);
                    let len = own + choice.next().unwrap() as usize % (list.len() - own + 1);
                    let saw = list[..len].to_vec();
                    observe(&mut history, id, next[t] as u32, ReadKind::Plain, row, &saw);
                    programs[t].push(Step::Read { row, saw });
                }
            }
            let reader = n as TxnId + 1;
            for row in 1..=rows {
                observe(
                    &mut history,
                    reader,
                    row as u32,
                    ReadKind::Plain,
                    row,
                    &cur[row as usize],
                );
            }
            Interleaved {
                rows,
                programs,
                finals: cur,
                history,
            }
        })
}

/// Whether some serial order of the transactions explains every read and
/// every row's final version list.
fn serializable(x: &Interleaved) -> bool {
    let n = x.programs.len();
    let mut order: Vec<usize> = (0..n).collect();
    permutations(&mut order, 0, &mut |order| explains(x, order))
}

fn permutations(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    if k == v.len() {
        return f(v);
    }
    for i in k..v.len() {
        v.swap(k, i);
        if permutations(v, k + 1, f) {
            v.swap(k, i);
            return true;
        }
        v.swap(k, i);
    }
    false
}

fn explains(x: &Interleaved, order: &[usize]) -> bool {
    let mut lists: Vec<Vec<TxnId>> = vec![vec![0]; x.rows as usize + 1];
    for &t in order {
        for step in &x.programs[t] {
            match step {
                Step::Read { row, saw } => {
                    if &lists[*row as usize] != saw {
                        return false;
                    }
                }
                Step::Write { row } => lists[*row as usize].push(t as TxnId + 1),
            }
        }
    }
    lists == x.finals
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn a_cycle_is_found_exactly_when_no_serial_order_exists(x in interleaved()) {
        let options = Options { exempt_locking_reads: false, ..Options::default() };
        let r = check(&x.history, &options);
        prop_assert!(r.violations.is_empty(), "{:?}", r.violations);
        let cyclic = r.anomalies.iter().any(|a| a.phenomenon.is_cycle());
        let g1b = r.of(Phenomenon::G1b).next().is_some();
        let serial = serializable(&x);
        prop_assert_eq!(
            cyclic || g1b,
            !serial,
            "{:?}\n{:?}",
            r.anomalies.iter().map(|a| a.describe(&x.history)).collect::<Vec<_>>(),
            x.programs
        );
        // Without an intermediate read, the cycle alone decides.
        if !g1b {
            prop_assert_eq!(cyclic, !serial);
        }
        // The stream mode (edges not listed) finds the same.
        let stream = check(&x.history, &Options { list_edges: false, ..options.clone() });
        prop_assert_eq!(&stream.anomalies, &r.anomalies);
        prop_assert_eq!(&stream.violations, &r.violations);
        // Only cycle classes and G1b can appear: everyone committed, no timing.
        prop_assert!(r.anomalies.iter().all(|a| a.phenomenon.is_cycle() || a.phenomenon == Phenomenon::G1b));
    }
}

/// The interleavings are not all serializable nor all anomalous, and they
/// reach every cycle class, so the property above is not vacuous.
#[test]
fn the_interleavings_cover_both_sides_and_every_cycle_class() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = interleaved();
    let (mut serial, mut not) = (0, 0);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..600 {
        let x = strategy.new_tree(&mut runner).unwrap().current();
        if serializable(&x) {
            serial += 1;
        } else {
            not += 1;
        }
        let r = check(&x.history, &Options::default());
        seen.extend(r.anomalies.iter().map(|a| a.phenomenon));
    }
    assert!(serial > 60 && not > 60, "serializable {serial}, not {not}");
    for p in [
        Phenomenon::G0,
        Phenomenon::G1b,
        Phenomenon::G1c,
        Phenomenon::GSingle,
        Phenomenon::G2Item,
    ] {
        assert!(seen.contains(&p), "{p} never generated: {seen:?}");
    }
}
