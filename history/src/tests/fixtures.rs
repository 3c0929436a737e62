//! The IsoRel digest's fixtures (§13) with their exact edges.

use super::*;

#[test]
fn f1_read_write_skew_with_session_order() {
    // T1 and T3 share session A, T2 is session B.
    let b = B::new()
        .add(Transaction::committed(1).in_session(1))
        .add(Transaction::committed(2).in_session(2))
        .add(Transaction::committed(3).in_session(1))
        .read_in(1, "t1", 1, &[0]) // s12
        .read_in(3, "t1", 1, &[0, 2]) // s32
        .read_in(3, "t1", 2, &[0])
        .read_in(3, "t1", 3, &[0])
        .read_in(3, "t2", 4, &[0]) // s33
        .read_in(3, "t2", 5, &[2, 1]);
    let r = b.check_with(&Options {
        session_order: true,
        ..Options::default()
    });
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 2, Some(1)),
            (WW, 2, 1, Some(5)),
            (WR, 0, 1, Some(1)),
            (WR, 0, 3, Some(2)),
            (WR, 0, 3, Some(3)),
            (WR, 0, 3, Some(4)),
            (WR, 1, 3, Some(5)),
            (WR, 2, 3, Some(1)),
            (RW, 1, 2, Some(1)),
            (SO, 1, 3, None),
        ]
    );
    assert_eq!(
        phenomena(&r),
        vec![(Phenomenon::GSingle, Some(SqlAnomaly::ReadWriteSkew))]
    );
    assert!(!r.anomalies[0].needs_session_order);
    let rw = r.edges_between(1, 2).next().unwrap();
    assert_eq!(rw.table.as_deref(), Some("t1"));
    assert_eq!(rw.read, Some(ReadKind::Plain));
    assert_eq!(
        rw.evidence,
        "T1.1 read t1 row 1 [T0]; T3.1 saw [T0,T2]: T2 wrote the next version"
    );
}

#[test]
fn f2_delete_inference_without_anomaly() {
    let b = B::new()
        .txns(&[1, 2])
        .read(1, 1, &[0, 1]) // s13
        .read(1, 2, &[0, 1])
        .before_delete(2, 1, &[0, 1]); // s22, then s23 DELETE
    let r = b.check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 1, Some(1)),
            (WW, 0, 1, Some(2)),
            (WW, 1, 2, Some(1)),
            (RW, 1, 2, Some(1)),
        ]
    );
    let ww = r.edges_between(1, 2).find(|e| e.kind == WW).unwrap();
    assert_eq!(ww.read, Some(ReadKind::BeforeDelete));
    assert_eq!(
        ww.evidence,
        "T2.1 (before its DELETE) saw t row 1 [T0,T1]: T2 deleted the version T1 wrote"
    );
    let rw = r.edges_between(1, 2).find(|e| e.kind == RW).unwrap();
    assert_eq!(
        rw.evidence,
        "T1.1 read t row 1 [T0,T1]; T2 deleted that version (T2.1)"
    );
    assert!(r.is_clean(), "{:?}", r.anomalies);
}

/// F3: T1's plain read sees the initial version, T2 updates the row, T1's
/// locking read sees T2's version.
fn f3() -> B {
    B::new()
        .txns(&[1, 2])
        .read(1, 1, &[0])
        .locking(1, 1, &[0, 2])
}

#[test]
fn f3_the_locking_read_exemption_on_and_off() {
    let on = f3().check();
    assert_eq!(
        edge_set(&on.edges),
        vec![
            (WW, 0, 2, Some(1)),
            (WR, 0, 1, Some(1)),
            (WR, 2, 1, Some(1)),
            (RW, 1, 2, Some(1))
        ]
    );
    assert_eq!(
        on.edges_between(2, 1).next().unwrap().read,
        Some(ReadKind::Locking)
    );
    assert!(on.anomalies.is_empty(), "{:?}", on.anomalies);
    assert_eq!(on.stats.exempted_cycles, 1);
    let off = f3().check_with(&Options {
        exempt_locking_reads: false,
        ..Options::default()
    });
    assert_eq!(off.edges, on.edges);
    assert_eq!(
        phenomena(&off),
        vec![(Phenomenon::GSingle, Some(SqlAnomaly::NonRepeatableRead))]
    );
    assert_eq!(off.stats.exempted_cycles, 0);
    // The exemption needs the plain read first: a locking read that saw
    // T2's version followed by a plain read that did not is reported.
    let reversed = B::new()
        .txns(&[1, 2, 3])
        .locking(1, 1, &[0, 2])
        .read(1, 2, &[0])
        .read(3, 2, &[0, 2]);
    assert_eq!(
        phenomena(&reversed.check()),
        vec![(Phenomenon::GSingle, Some(SqlAnomaly::ReadSkew))]
    );
}

#[test]
fn f5_lost_update() {
    let r = B::new()
        .txns(&[1, 2, 3])
        .read(1, 1, &[0])
        .read(3, 1, &[0, 2, 1])
        .check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 2, Some(1)),
            (WW, 2, 1, Some(1)),
            (WR, 0, 1, Some(1)),
            (WR, 1, 3, Some(1)),
            (RW, 1, 2, Some(1)),
        ]
    );
    assert_eq!(
        phenomena(&r),
        vec![(Phenomenon::GSingle, Some(SqlAnomaly::LostUpdate))]
    );
}

#[test]
fn f6_aborted_read() {
    let b = B::new().aborted(1).txns(&[2]).read(2, 1, &[0, 1]);
    let r = b.check();
    assert_eq!(
        edge_set(&r.edges),
        vec![(WW, 0, 1, Some(1)), (WR, 1, 2, Some(1))]
    );
    assert_eq!(
        phenomena(&r),
        vec![(Phenomenon::G1a, Some(SqlAnomaly::DirtyRead))]
    );
    assert_eq!(
        edge_set(&r.anomalies[0].evidence),
        vec![(WR, 1, 2, Some(1))]
    );
    assert!(r.anomalies[0].cycle.is_empty());
    assert!(r.violations.is_empty());
}

#[test]
fn f7_g0() {
    let r = B::new()
        .txns(&[1, 2, 3])
        .read(3, 1, &[0, 1, 2])
        .read(3, 2, &[0, 2, 1])
        .check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 1, Some(1)),
            (WW, 0, 2, Some(2)),
            (WW, 1, 2, Some(1)),
            (WW, 2, 1, Some(2)),
            (WR, 1, 3, Some(2)),
            (WR, 2, 3, Some(1)),
        ]
    );
    assert_eq!(
        phenomena(&r),
        vec![(Phenomenon::G0, Some(SqlAnomaly::DirtyWrite))]
    );
}

#[test]
fn f7_g1c() {
    let r = B::new()
        .txns(&[1, 2])
        .read(2, 1, &[0, 1])
        .read(1, 2, &[0, 2])
        .check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 1, Some(1)),
            (WW, 0, 2, Some(2)),
            (WR, 1, 2, Some(1)),
            (WR, 2, 1, Some(2)),
        ]
    );
    assert_eq!(phenomena(&r), vec![(Phenomenon::G1c, None)]);
}

#[test]
fn f7_a_duplicate_writer_makes_no_self_edge() {
    let r = B::new().txns(&[1, 2, 5]).read(5, 1, &[0, 1, 1, 2]).check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 1, Some(1)),
            (WW, 1, 2, Some(1)),
            (WR, 2, 5, Some(1))
        ]
    );
    assert!(r.is_clean());
}

#[test]
fn f7_intermediate_read() {
    let r = B::new()
        .txns(&[1, 3, 4])
        .read(3, 1, &[0, 1])
        .read(4, 1, &[0, 1, 1])
        .check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 1, Some(1)),
            (WR, 1, 3, Some(1)),
            (WR, 1, 4, Some(1)),
            (RW, 3, 1, Some(1)),
        ]
    );
    // Adya's G1b, not a cycle: the rw edge to T1 takes no part in cycles.
    assert_eq!(
        phenomena(&r),
        vec![(Phenomenon::G1b, Some(SqlAnomaly::IntermediateRead))]
    );
    assert_eq!(
        edge_set(&r.anomalies[0].evidence),
        vec![(WR, 1, 3, Some(1)), (RW, 3, 1, Some(1))]
    );
    // After T1's second write, T2 wrote: T3 anti-depends on T2 (the
    // version after T1's), which Algorithm 1 alone would miss.
    let r = B::new()
        .txns(&[1, 2, 3, 4])
        .read(3, 1, &[0, 1])
        .read(4, 1, &[0, 1, 1, 2])
        .check();
    assert!(r.edges.iter().any(|e| (e.kind, e.from, e.to) == (RW, 3, 2)));
    assert!(r
        .edges_between(3, 2)
        .any(|e| e.evidence.contains("an intermediate version of T1")));
}

#[test]
fn f7_string_prefix_trap() {
    let r = B::new()
        .txns(&[1, 5, 6, 12])
        .read(5, 1, &[0, 1])
        .read(6, 1, &[0, 12])
        .check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 1, Some(1)),
            (WW, 0, 12, Some(1)),
            (WR, 1, 5, Some(1)),
            (WR, 12, 6, Some(1)),
        ]
    );
    assert!(r.anomalies.is_empty());
    assert!(matches!(
        r.violations.as_slice(),
        [Violation::ForkedVersions { row: 1, .. }]
    ));
}

#[test]
fn f7_delete_rw() {
    let r = B::new()
        .txns(&[3, 4, 5])
        .read(4, 2, &[0, 3])
        .before_delete(5, 2, &[0, 3])
        .check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 3, Some(2)),
            (WW, 3, 5, Some(2)),
            (WR, 3, 4, Some(2)),
            (RW, 4, 5, Some(2)),
        ]
    );
    assert!(r.is_clean());
}

#[test]
fn f7_delete_rw_variant() {
    let r = B::new()
        .txns(&[3, 4, 5, 6])
        .read(4, 2, &[0, 3])
        .before_delete(5, 2, &[0, 3, 6])
        .check();
    assert_eq!(
        edge_set(&r.edges),
        vec![
            (WW, 0, 3, Some(2)),
            (WW, 3, 6, Some(2)),
            (WW, 6, 5, Some(2)),
            (WR, 3, 4, Some(2)),
            (RW, 4, 6, Some(2)),
        ]
    );
    assert!(r.is_clean());
}
