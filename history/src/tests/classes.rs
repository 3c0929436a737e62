//! A history of every class, classified as that class and no other; the
//! shortest cycle; session order; a long chain.

use super::*;

/// One hand-built history per class and SQL subtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Case {
    G0,
    G1a,
    G1b,
    G1c,
    LostUpdate,
    ReadWriteSkew,
    NonRepeatableRead,
    ReadSkew,
    WriteSkew,
    GSIa,
    GSIb,
}

impl Case {
    pub const ALL: [Case; 11] = [
        Case::G0,
        Case::G1a,
        Case::G1b,
        Case::G1c,
        Case::LostUpdate,
        Case::ReadWriteSkew,
        Case::NonRepeatableRead,
        Case::ReadSkew,
        Case::WriteSkew,
        Case::GSIa,
        Case::GSIb,
    ];

    pub fn build(self) -> B {
        self.build_timed(true)
    }

    /// The history, with the transactions' timing or without.
    pub fn build_timed(self, timed: bool) -> B {
        let t = |id, s: (u64, u64), e: (u64, u64)| {
            let txn = Transaction::committed(id);
            if timed {
                txn.timed(Interval::new(s.0, s.1), Interval::new(e.0, e.1))
            } else {
                txn
            }
        };
        match self {
            // F7 G0: r1 [T0,T1,T2], r2 [T0,T2,T1].
            Case::G0 => B::new()
                .txns(&[1, 2, 3])
                .read(3, 1, &[0, 1, 2])
                .read(3, 2, &[0, 2, 1]),
            // F6: T2 reads T1's write, T1 rolls back.
            Case::G1a => B::new().aborted(1).txns(&[2]).read(2, 1, &[0, 1]),
            // T3 reads T1's first write of r1; T1 writes r1 again.
            Case::G1b => B::new()
                .txns(&[1, 3, 4])
                .read(3, 1, &[0, 1])
                .read(4, 1, &[0, 1, 1]),
            // F7 G1c: each reads the other's write.
            Case::G1c => B::new()
                .txns(&[1, 2])
                .read(2, 1, &[0, 1])
                .read(1, 2, &[0, 2]),
            // F5: T1 reads r1, T2 updates it, T1 updates it.
            Case::LostUpdate => B::new()
                .txns(&[1, 2, 3])
                .read(1, 1, &[0])
                .read(3, 1, &[0, 2, 1]),
            // F1: T1 reads r1; T2 updates r1 and inserts r5; T1 updates r5.
            Case::ReadWriteSkew => B::new()
                .txns(&[1, 2, 3])
                .read_in(1, "t1", 1, &[0])
                .read_in(3, "t1", 1, &[0, 2])
                .read_in(3, "t2", 5, &[2, 1]),
            // T1 reads r1 twice, T2's update in between.
            Case::NonRepeatableRead => B::new().txns(&[1, 2]).read(1, 1, &[0]).read(1, 1, &[0, 2]),
            // T1 reads r1, T2 updates r1 and r2, T1 reads r2.
            Case::ReadSkew => B::new()
                .txns(&[1, 2, 3])
                .read(1, 1, &[0])
                .read(1, 2, &[0, 2])
                .read(3, 1, &[0, 2]),
            // F4: T1 reads r1 and writes r3, T2 reads r3 and writes r1.
            Case::WriteSkew => B::new()
                .txns(&[1, 2, 3])
                .read(1, 1, &[0])
                .read(2, 3, &[0])
                .read(3, 1, &[0, 2])
                .read(3, 3, &[0, 1]),
            // T2 started before T1 committed, yet read T1's write.
            Case::GSIa => B::new()
                .add(t(1, (0, 10), (100, 110)))
                .add(t(2, (50, 60), (200, 210)))
                .read(2, 1, &[0, 1]),
            // T2 committed before T1 started, yet T1 missed T2's write.
            Case::GSIb => B::new()
                .add(t(2, (0, 5), (10, 20)))
                .add(t(1, (30, 40), (50, 60)))
                .txns(&[3])
                .read(1, 1, &[0])
                .read(3, 1, &[0, 2]),
        }
    }

    pub fn expected(self) -> (Phenomenon, Option<SqlAnomaly>) {
        use Phenomenon as P;
        use SqlAnomaly as S;
        match self {
            Case::G0 => (P::G0, Some(S::DirtyWrite)),
            Case::G1a => (P::G1a, Some(S::DirtyRead)),
            Case::G1b => (P::G1b, Some(S::IntermediateRead)),
            Case::G1c => (P::G1c, None),
            Case::LostUpdate => (P::GSingle, Some(S::LostUpdate)),
            Case::ReadWriteSkew => (P::GSingle, Some(S::ReadWriteSkew)),
            Case::NonRepeatableRead => (P::GSingle, Some(S::NonRepeatableRead)),
            Case::ReadSkew => (P::GSingle, Some(S::ReadSkew)),
            Case::WriteSkew => (P::G2Item, Some(S::WriteSkew)),
            Case::GSIa => (P::GSIa, None),
            Case::GSIb => (P::GSIb, None),
        }
    }
}

#[test]
fn every_class_is_that_class_and_no_other() {
    for case in Case::ALL {
        let r = case.build().check();
        assert_eq!(phenomena(&r), vec![case.expected()], "{case:?}");
        assert!(r.violations.is_empty(), "{case:?}: {:?}", r.violations);
    }
}

#[test]
fn cycles_are_the_expected_edges() {
    let cycle = |case: Case| cycle_of(&case.build().check().anomalies[0]);
    assert_eq!(
        cycle(Case::G0),
        vec![(WW, 1, 2, Some(1)), (WW, 2, 1, Some(2))]
    );
    assert_eq!(
        cycle(Case::G1c),
        vec![(WR, 1, 2, Some(1)), (WR, 2, 1, Some(2))]
    );
    assert_eq!(
        cycle(Case::LostUpdate),
        vec![(RW, 1, 2, Some(1)), (WW, 2, 1, Some(1))]
    );
    assert_eq!(
        cycle(Case::ReadWriteSkew),
        vec![(RW, 1, 2, Some(1)), (WW, 2, 1, Some(5))]
    );
    assert_eq!(
        cycle(Case::NonRepeatableRead),
        vec![(RW, 1, 2, Some(1)), (WR, 2, 1, Some(1))]
    );
    assert_eq!(
        cycle(Case::ReadSkew),
        vec![(RW, 1, 2, Some(1)), (WR, 2, 1, Some(2))]
    );
    assert_eq!(
        cycle(Case::WriteSkew),
        vec![(RW, 1, 2, Some(1)), (RW, 2, 1, Some(3))]
    );
    assert_eq!(
        cycle(Case::GSIb),
        vec![(RW, 1, 2, Some(1)), (DepKind::Start, 2, 1, None)]
    );
    let r = Case::GSIa.build().check();
    assert_eq!(
        edge_set(&r.anomalies[0].evidence),
        vec![(WR, 1, 2, Some(1))]
    );
    assert!(r.anomalies[0].evidence[0]
        .evidence
        .contains("T2 started by 60 µs, before T1 committed"));
}

#[test]
fn without_timing_no_g_si_is_claimed() {
    for case in [Case::GSIa, Case::GSIb] {
        let r = case.build_timed(false).check();
        assert_eq!(r.stats.start_order, StartOrder::NoTiming, "{case:?}");
        assert!(r.anomalies.is_empty(), "{case:?}");
        let off = case.build().check_with(&Options {
            start_order: false,
            ..Options::default()
        });
        assert_eq!(off.stats.start_order, StartOrder::Off);
        assert!(off.anomalies.is_empty(), "{case:?}");
    }
    assert_eq!(
        Case::GSIa.build().check().stats.start_order,
        StartOrder::Full { timed: 2 }
    );
    assert_eq!(
        Case::GSIb.build().check().stats.start_order,
        StartOrder::Partial {
            timed: 2,
            untimed: 1
        }
    );
    // Overlapping intervals decide nothing.
    let overlap = B::new()
        .add(Transaction::committed(1).timed(Interval::new(0, 10), Interval::new(50, 110)))
        .add(Transaction::committed(2).timed(Interval::new(40, 60), Interval::new(200, 210)))
        .read(2, 1, &[0, 1]);
    assert!(overlap.check().anomalies.is_empty());
}

/// Rows: T1 reads r1 before T2's write (rw T1→T2), ww T2→T3→T4→T1 on
/// r2..r4: a four-edge cycle with one rw edge. With `short`, T3's locking
/// reads add rw T3→T4 and wr T4→T3: a two-edge one in the same component.
fn long_and_short(short: bool) -> B {
    let b = B::new()
        .txns(&[1, 2, 3, 4, 9])
        .read(1, 1, &[0])
        .read(9, 1, &[0, 2])
        .read(9, 2, &[0, 2, 3])
        .read(9, 3, &[0, 3, 4])
        .read(9, 4, &[0, 4, 1]);
    if short {
        b.locking(3, 5, &[0])
            .read(9, 5, &[0, 4])
            .locking(3, 6, &[0, 4])
    } else {
        b
    }
}

#[test]
fn the_reported_cycle_is_a_shortest_one() {
    let g_single = |r: &Report| r.of(Phenomenon::GSingle).cloned().collect::<Vec<_>>();
    let long = long_and_short(false).check();
    let l = g_single(&long);
    assert_eq!(l.len(), 1);
    assert_eq!(
        cycle_of(&l[0]),
        vec![
            (RW, 1, 2, Some(1)),
            (WW, 2, 3, Some(2)),
            (WW, 3, 4, Some(3)),
            (WW, 4, 1, Some(4))
        ]
    );
    let short = long_and_short(true).check();
    assert_eq!(short.stats.components, 1);
    let s = g_single(&short);
    assert_eq!(s.len(), 1, "{:?}", short.anomalies);
    assert_eq!(
        cycle_of(&s[0]),
        vec![(RW, 3, 4, Some(5)), (WR, 4, 3, Some(6))]
    );
    assert_eq!(s[0].transactions, vec![3, 4]);
}

/// T1 writes r1; T2, next on the same session, reads r1 without T1's write.
fn stale_session_read() -> B {
    B::new()
        .add(Transaction::committed(1).in_session(7))
        .add(Transaction::committed(2).in_session(7))
        .txns(&[3])
        .read(2, 1, &[0])
        .read(3, 1, &[0, 1])
}

#[test]
fn session_order_cycles_are_reported_apart() {
    assert!(stale_session_read().check().anomalies.is_empty());
    let r = stale_session_read().check_with(&Options {
        session_order: true,
        ..Options::default()
    });
    assert_eq!(r.anomalies.len(), 1);
    let a = &r.anomalies[0];
    assert_eq!(a.phenomenon, Phenomenon::GSingle);
    assert!(a.needs_session_order);
    assert_eq!(cycle_of(a), vec![(RW, 2, 1, Some(1)), (SO, 1, 2, None)]);
    assert!(a
        .describe(&stale_session_read().h)
        .contains("through session order"));
    // A cycle without session order is reported as usual, without the mark.
    let r = Case::LostUpdate.build().check_with(&Options {
        session_order: true,
        ..Options::default()
    });
    assert_eq!(phenomena(&r), vec![Case::LostUpdate.expected()]);
    assert!(!r.anomalies[0].needs_session_order);
}

#[test]
fn a_cycle_of_two_hundred_thousand_transactions_needs_no_deep_stack() {
    // ww T_n → … → T1 on row 1, and T1 read row 2 before T_n wrote it.
    const N: u64 = 200_000;
    let run = || {
        let mut b = B::new();
        for id in 1..=N + 1 {
            b.h.add_transaction(Transaction::committed(id)).unwrap();
        }
        let chain: Vec<TxnId> = std::iter::once(0).chain((1..=N).rev()).collect();
        let b = b
            .read(N + 1, 1, &chain)
            .read(1, 2, &[0])
            .read(N + 1, 2, &[0, N]);
        let r = b.check_with(&Options {
            list_edges: false,
            ..Options::default()
        });
        assert_eq!(r.stats.largest_component, N as usize);
        let a = r.of(Phenomenon::GSingle).next().expect("the long cycle");
        assert_eq!(a.cycle.len(), N as usize);
        assert_eq!(a.subtype, Some(SqlAnomaly::ReadWriteSkew));
    };
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn reports_are_deterministic_and_sorted() {
    let b = long_and_short(true);
    let (a, c) = (b.check(), b.check());
    assert_eq!(a, c);
    let mut sorted = a.anomalies.clone();
    sorted.sort_by_key(|x| (x.phenomenon, x.transactions.clone()));
    assert_eq!(
        a.anomalies.iter().map(|x| x.phenomenon).collect::<Vec<_>>(),
        sorted.iter().map(|x| x.phenomenon).collect::<Vec<_>>()
    );
    let keys: Vec<_> = a
        .edges
        .iter()
        .map(|e| (e.from, e.to, e.kind, e.row))
        .collect();
    let mut s = keys.clone();
    s.sort();
    assert_eq!(keys, s);
}

#[test]
fn unknown_and_aborted_transactions_take_no_part_in_cycles() {
    // The lost update, with T2's outcome unknown, then aborted.
    for outcome in [TxnOutcome::Unknown, TxnOutcome::Aborted] {
        let mut b = Case::LostUpdate.build();
        b.h.set_outcome(2, outcome).unwrap();
        let r = b.check();
        assert!(r.of(Phenomenon::GSingle).next().is_none(), "{outcome:?}");
        assert_eq!(
            (r.stats.unknown, r.stats.aborted),
            if outcome == TxnOutcome::Unknown {
                (1, 0)
            } else {
                (0, 1)
            }
        );
        // the edges are still listed
        assert!(r.edges_between(1, 2).any(|e| e.kind == RW));
    }
}

#[test]
fn the_dot_drawing_labels_edges_by_kind_table_and_row() {
    let b = Case::ReadWriteSkew.build();
    let r = b.check();
    let dot = to_dot(&r.anomalies[0], &b.h);
    assert!(dot.starts_with("digraph anomaly {"), "{dot}");
    assert!(
        dot.contains("label=\"G-single (read-write skew)\""),
        "{dot}"
    );
    assert!(dot.contains("t1 -> t2 [label=\"rw t1 row 1\""), "{dot}");
    assert!(dot.contains("t2 -> t1 [label=\"ww t2 row 5\""), "{dot}");
    assert!(dot.contains("t1 [label=\"T1\\ncommitted\"]"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
}

#[test]
fn a_g_si_b_cycle_through_a_read_and_a_start_edge() {
    // T2's commit may come before or after T1's start; T3 read T2's write
    // and committed before T1 started; T1 missed T2's write.
    let t = |id, s: (u64, u64), e: (u64, u64)| {
        Transaction::committed(id).timed(Interval::new(s.0, s.1), Interval::new(e.0, e.1))
    };
    let r = B::new()
        .add(t(1, (30, 40), (100, 110)))
        .add(t(2, (0, 5), (35, 45)))
        .add(t(3, (10, 15), (20, 25)))
        .txns(&[4])
        .read(1, 1, &[0])
        .read(4, 1, &[0, 2])
        .read(3, 2, &[0, 2])
        .check();
    assert_eq!(
        phenomena(&r),
        vec![
            (Phenomenon::GSIa, None),
            (Phenomenon::GSIb, Some(SqlAnomaly::ReadSkew))
        ]
    );
    let g = r.of(Phenomenon::GSIb).next().unwrap();
    assert_eq!(
        cycle_of(g),
        vec![
            (RW, 1, 2, Some(1)),
            (WR, 2, 3, Some(2)),
            (DepKind::Start, 3, 1, None)
        ]
    );
    assert_eq!(
        g.cycle[2].evidence,
        "T3 committed by 25 µs; T1 started at 30 µs or later"
    );
}
