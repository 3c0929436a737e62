//! What no isolation level allows, and the builder's refusals.

use super::*;

#[test]
fn forked_version_lists_are_a_violation() {
    let b = B::new()
        .txns(&[1, 2, 3, 4])
        .read(3, 1, &[0, 1])
        .read(4, 1, &[0, 2]);
    let r = b.check();
    let [Violation::ForkedVersions {
        table,
        row,
        first,
        second,
    }] = r.violations.as_slice()
    else {
        panic!("{:?}", r.violations)
    };
    assert_eq!((table.as_str(), *row), ("t", 1));
    assert_eq!(
        (first.versions.clone(), second.versions.clone()),
        (vec![0, 1], vec![0, 2])
    );
    assert!(r.violations[0]
        .describe(&b.h)
        .starts_with("forked version order of t row 1: T3.1 saw [T0,T1]; T4.1 saw [T0,T2]"));
}

#[test]
fn lists_that_end_with_an_aborted_writer_do_not_fork() {
    // T5 reads its own write and aborts; T6's write comes instead.
    let r = B::new()
        .aborted(5)
        .txns(&[6, 7])
        .read(5, 1, &[0, 5])
        .read(7, 1, &[0, 6])
        .check();
    assert!(r.is_clean(), "{:?} {:?}", r.violations, r.anomalies);
}

#[test]
fn a_write_on_a_deleted_version_forks() {
    // T2 deleted the version T1 wrote; T3 then wrote on top of it.
    let r = B::new()
        .txns(&[1, 2, 3, 4])
        .before_delete(2, 1, &[0, 1])
        .read(4, 1, &[0, 1, 3])
        .check();
    let [Violation::ForkedVersions { first, second, .. }] = r.violations.as_slice() else {
        panic!("{:?}", r.violations)
    };
    assert_eq!(first.deleted_by.or(second.deleted_by), Some(2));
}

#[test]
fn an_aborted_writer_followed_by_another_survived() {
    let b = B::new().aborted(5).txns(&[6, 7]).read(7, 1, &[0, 5, 6]);
    let r = b.check();
    let [Violation::AbortedWriteSurvived {
        txn: 5,
        row: 1,
        how,
        ..
    }] = r.violations.as_slice()
    else {
        panic!("{:?}", r.violations)
    };
    assert!(matches!(how, Survival::FollowedBy { writer: 6, .. }));
    assert!(r.violations[0]
        .describe(&b.h)
        .contains("T5 aborted, yet T6 wrote t row 1"));
    // the read of T6's version is not G1a
    assert!(r.anomalies.is_empty());
}

#[test]
fn an_aborted_write_seen_after_the_rollback_survived() {
    let obs = |at| {
        B::new()
            .add(Transaction::aborted(5).timed(Interval::new(0, 10), Interval::new(100, 110)))
            .txns(&[6])
            .obs(6, ReadKind::Plain, "t", 1, &[0, 5], Some(at))
            .check()
    };
    let after = obs(Interval::new(200, 210));
    assert_eq!(
        phenomena(&after),
        vec![(Phenomenon::G1a, Some(SqlAnomaly::DirtyRead))]
    );
    let [Violation::AbortedWriteSurvived { txn: 5, how, .. }] = after.violations.as_slice() else {
        panic!("{:?}", after.violations)
    };
    assert!(matches!(
        how,
        Survival::SeenAfterRollback {
            rolled_back_by: 110,
            read_from: 200,
            ..
        }
    ));
    // A read that may have run before the rollback ended is only G1a.
    let during = obs(Interval::new(105, 210));
    assert_eq!(phenomena(&during), phenomena(&after));
    assert!(during.violations.is_empty());
}

#[test]
fn a_transaction_that_loses_its_own_write() {
    let b = B::new().txns(&[1]).read(1, 1, &[0, 1]).read(1, 1, &[0]);
    let r = b.check();
    let [Violation::OwnWriteLost {
        txn: 1,
        earlier,
        later,
        ..
    }] = r.violations.as_slice()
    else {
        panic!("{:?}", r.violations)
    };
    assert_eq!(
        (earlier.versions.clone(), later.versions.clone()),
        (vec![0, 1], vec![0])
    );
    // Two rows of one statement do not constrain each other, and a later
    // read that keeps the write is fine.
    let ok = B::new()
        .txns(&[1, 2])
        .read(1, 1, &[0, 1])
        .read(1, 1, &[0, 1, 1])
        .read(2, 1, &[0, 1, 1])
        .check();
    assert!(ok.is_clean(), "{:?}", ok.violations);
}

#[test]
fn an_unknown_writer_is_reported_and_left_out_of_cycles() {
    // 99 is not in the history: the lost update through it is not claimed.
    let r = B::new()
        .txns(&[1, 3])
        .read(1, 1, &[0])
        .read(3, 1, &[0, 99, 1])
        .check();
    assert!(matches!(
        r.violations.as_slice(),
        [Violation::UnknownWriter {
            txn: 99,
            row: 1,
            ..
        }]
    ));
    assert!(r.anomalies.is_empty());
    assert_eq!(r.stats.unknown, 1);
}

#[test]
fn a_row_id_in_two_tables() {
    let r = B::new()
        .txns(&[1])
        .read_in(1, "a", 7, &[0])
        .read_in(1, "b", 7, &[0])
        .check();
    assert!(matches!(
        r.violations.as_slice(),
        [Violation::RowInTwoTables { row: 7, first_table, second_table, .. }]
            if first_table == "a" && second_table == "b"
    ));
}

#[test]
fn the_builder_refuses_what_it_cannot_use() {
    let mut h = History::new();
    assert_eq!(
        h.add_transaction(Transaction::committed(0)),
        Err(HistoryError::ReservedTransactionId)
    );
    h.add_transaction(Transaction::committed(1)).unwrap();
    assert_eq!(
        h.add_transaction(Transaction::committed(1)),
        Err(HistoryError::DuplicateTransaction(1))
    );
    let obs = |txn, versions: Vec<TxnId>| Observation {
        statement: StatementId::new(txn, 1),
        kind: ReadKind::Plain,
        table: "t".into(),
        row: 1,
        versions,
        values: "(1)".into(),
        at: None,
    };
    assert_eq!(
        h.observe(obs(2, vec![0])),
        Err(HistoryError::UnknownTransaction(2))
    );
    assert_eq!(
        h.observe(obs(1, vec![])),
        Err(HistoryError::EmptyVersionList {
            statement: "T1.1".into(),
            row: 1
        })
    );
    h.observe(obs(1, vec![0])).unwrap();
    assert_eq!(h.observation_count(), 1);
    assert_eq!(
        h.set_outcome(3, TxnOutcome::Aborted),
        Err(HistoryError::UnknownTransaction(3))
    );
}

#[test]
fn statement_and_transaction_labels_come_through() {
    let mut h = History::new();
    h.add_transaction(Transaction::committed(1).with_label("A"))
        .unwrap();
    h.add_transaction(Transaction::committed(2).with_label("B"))
        .unwrap();
    for (txn, label, versions) in [(1, "A.read", vec![0]), (2, "", vec![0, 1])] {
        h.observe(Observation {
            statement: StatementId::labelled(txn, 4, label),
            kind: ReadKind::Plain,
            table: "t".into(),
            row: 1,
            versions,
            values: "(5, 7)".into(),
            at: None,
        })
        .unwrap();
    }
    let r = check(&h, &Options::default());
    let wr = r.edges_between(1, 2).next().unwrap();
    assert_eq!(
        wr.evidence,
        "B.4 read t row 1 = (5, 7) [T0,A], written by A"
    );
    let rw = r.edges_between(1, 1).next();
    assert!(rw.is_none());
    let e = r.edges.iter().find(|e| e.kind == WR && e.to == 1).unwrap();
    assert_eq!(
        e.evidence,
        "A.read read t row 1 = (5, 7) [T0], written by T0"
    );
}
