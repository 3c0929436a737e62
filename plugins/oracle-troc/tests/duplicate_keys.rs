//! A view with two rows of one key: T2's snapshot keeps row 1, which T1
//! deleted and committed, and T2's own INSERT of key 1 went through (its key
//! check reads the latest rows). For a nullable UNIQUE key T2's next read
//! returns both rows, on InnoDB as on PostgreSQL: Troc loads such a view into
//! a copy of the table without its UNIQUE keys and judges the read; a write
//! on it is no model. For the key a clustered index stores rows by (the
//! PRIMARY KEY, else a NOT NULL UNIQUE key) InnoDB shows only the own row and
//! PostgreSQL both: undecided. (Checked by hand on MariaDB 10.11; the
//! PRIMARY KEY case came from a MariaDB campaign, where loading it keyless
//! expected both rows.)

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

/// `t(c1, c2)` with c1 its PRIMARY KEY (`primary`) or a nullable UNIQUE key.
fn keyed(primary: bool) -> Table {
    let mut t = t2(primary);
    if !primary {
        t.unique = vec![vec!["c1".into()]];
    }
    t
}

/// T2 reads row 1; T1 deletes it and commits; T2 inserts key 1 again and
/// then runs `last`, which returned `last_outcome`.
fn reinsert_under_a_snapshot(
    primary: bool,
    last: Statement,
    last_outcome: impl FnOnce(&TestCase) -> Outcome,
) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = keyed(primary);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    delete(Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
            txn(
                RR,
                vec![
                    Statement::Begin,
                    select_all(),
                    insert(&[1, 9]),
                    last,
                    Statement::Commit,
                ],
            ),
        ],
        &[1, 1, 0, 0, 0, 1, 1, 1],
    );
    let outcome = last_outcome(&case);
    let history = history(
        &case,
        &[1, 1, 0, 0, 0, 1, 1, 1],
        vec![
            (at(1, 1), result(&case, vec![r(&[1, 1], 1)])),
            (at(0, 1), affected(1)),
            (at(1, 2), affected(1)),
            (at(1, 3), outcome),
        ],
        vec![],
        committed(),
        vec![r(&[1, 9], 2)],
    );
    (case, history)
}

#[test]
fn a_read_of_a_view_with_a_key_twice_is_judged() {
    let both = |case: &TestCase| result(case, vec![r(&[1, 1], 1), r(&[1, 9], 2)]);
    let (case, history) = reinsert_under_a_snapshot(false, select_all(), both);
    assert_eq!(check(&mut oracle(innodb()), &case, &history), Verdict::Pass);
    // A read that misses the snapshot's row is still a finding.
    let own_only = |case: &TestCase| result(case, vec![r(&[1, 9], 2)]);
    let (case, history) = reinsert_under_a_snapshot(false, select_all(), own_only);
    let finding = expect_finding(check(&mut oracle(innodb()), &case, &history));
    assert!(finding.title.contains("query result"), "{}", finding.title);
}

#[test]
fn a_view_with_its_primary_key_twice_is_undecided() {
    // What MariaDB 10.11 shows: only the transaction's own row.
    let own_only = |case: &TestCase| result(case, vec![r(&[1, 9], 2)]);
    let (case, history) = reinsert_under_a_snapshot(true, select_all(), own_only);
    let reason = expect_undecided(check(&mut oracle(innodb()), &case, &history));
    assert!(reason.contains("cluster"), "{reason}");
}

#[test]
fn a_write_on_a_view_with_a_key_twice_is_undecided() {
    let (case, history) = reinsert_under_a_snapshot(
        false,
        update(vec![("c2", lit(5))], Some(eq("c1", 1))),
        |_| affected(2),
    );
    // Where writes read the snapshot (which keeps the deleted row), the view
    // of the UPDATE holds key 1 twice: no model.
    let mut snapshot_writes = innodb();
    for l in &mut snapshot_writes.levels {
        if l.level == RR {
            l.write_reads = WriteReads::Snapshot;
        }
    }
    let reason = expect_undecided(check(&mut oracle(snapshot_writes), &case, &history));
    assert!(reason.contains("two rows with one key"), "{reason}");
}
