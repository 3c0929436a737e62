//! The missing-abort check holds the profile's facts as the query-result
//! check does (the oracle-truth issue's false alarms with MariaDB's
//! `innodb_snapshot_isolation = ON`):
//!
//! - a same-value UPDATE of the other transaction changed nothing where the
//!   dialect says it makes no version (InnoDB), so no error 1020 was owed;
//! - a first read whose WHERE cannot match may take no snapshot where the
//!   dialect says a read takes it only when it touches the table (InnoDB),
//!   so the snapshot may be later than the other transaction's commit.
//!
//! Each with the same history on a dialect declaring the fact the other way,
//! where the missing abort stays a finding.

mod common;

use common::*;
use txlab_plugin_api::prelude::*;

/// InnoDB with `innodb_snapshot_isolation = ON` at REPEATABLE READ: writes
/// read the snapshot and a second writer fails, with `engine`'s facts.
fn snapshot_isolation(engine: EngineSemantics) -> DialectInfo {
    let mut dialect = innodb_with(engine);
    for l in &mut dialect.levels {
        if l.level == RR {
            l.write_reads = WriteReads::Snapshot;
            l.write_conflict = WriteConflict::BlockThenAbort;
        }
    }
    dialect
}

/// T2 reads with `first_read`, then T1 sets row 1's c2 to `t1_value` (it was
/// 1) and commits, then T2 updates row 1 and commits, with no error.
fn write_after_a_commit(
    first_read: Statement,
    seen: Vec<Vec<Value>>,
    t1_value: i64,
) -> (TestCase, History) {
    let mut o = oracle(innodb());
    let t = t2(true);
    let case = prepared(
        &mut o,
        vec![t.clone()],
        vec![rows(&t, vec![vec![int(1), int(1)]])],
        vec![
            txn(
                RR,
                vec![
                    Statement::Begin,
                    update(vec![("c2", lit(t1_value))], Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
            txn(
                RR,
                vec![
                    Statement::Begin,
                    first_read,
                    update(vec![("c2", lit(5))], Some(eq("c1", 1))),
                    Statement::Commit,
                ],
            ),
        ],
        &[1, 1, 0, 0, 0, 1, 1],
    );
    let history = history(
        &case,
        &[1, 1, 0, 0, 0, 1, 1],
        vec![
            (at(1, 1), result(&case, seen)),
            (at(0, 1), affected(1)),
            (at(1, 2), affected(1)),
        ],
        vec![],
        committed(),
        vec![r(&[1, 5], 1)],
    );
    (case, history)
}

fn missing_abort(verdict: Verdict) -> Finding {
    let finding = expect_finding(verdict);
    assert!(finding.title.contains("missing abort"), "{}", finding.title);
    finding
}

#[test]
fn a_same_value_update_owes_no_serialization_failure_where_it_makes_no_version() {
    // T1 writes the value row 1 already has.
    let (case, history) = write_after_a_commit(select_all(), vec![r(&[1, 1], 1)], 1);
    let innodb = snapshot_isolation(innodb_engine());
    assert_eq!(
        check(&mut oracle(innodb.clone()), &case, &history),
        Verdict::Pass
    );
    // A real change is owed its failure.
    let (changed, changed_history) = write_after_a_commit(select_all(), vec![r(&[1, 1], 1)], 7);
    missing_abort(check(&mut oracle(innodb), &changed, &changed_history));
    // Where every UPDATE makes a version, the same-value one is owed it too.
    let new_version = snapshot_isolation(EngineSemantics {
        same_value_update: SameValueUpdate::NewVersion,
        ..innodb_engine()
    });
    missing_abort(check(&mut oracle(new_version), &case, &history));
    // Where the dialect does not say, either reading: undecided.
    let unknown = snapshot_isolation(EngineSemantics {
        same_value_update: SameValueUpdate::Unknown,
        ..innodb_engine()
    });
    let reason = expect_undecided(check(&mut oracle(unknown), &case, &history));
    assert!(reason.contains("same-value UPDATE"), "{reason}");
}

#[test]
fn a_first_read_that_cannot_match_may_have_taken_no_snapshot() {
    let nothing = select_where(
        Expr::IsNull {
            operand: Box::new(Expr::column("c1")),
            negated: false,
        },
        RowLock::None,
    );
    let (case, history) = write_after_a_commit(nothing.clone(), vec![], 7);
    let innodb = snapshot_isolation(innodb_engine());
    let reason = expect_undecided(check(&mut oracle(innodb.clone()), &case, &history));
    assert!(reason.contains("touches the table"), "{reason}");
    // A first read that returned rows took the snapshot.
    let (read, read_history) = write_after_a_commit(select_all(), vec![r(&[1, 1], 1)], 7);
    missing_abort(check(&mut oracle(innodb), &read, &read_history));
    // Where every read takes the snapshot, the empty read took it too.
    let any_read = snapshot_isolation(EngineSemantics {
        first_read_snapshot_needs_table_access: false,
        ..innodb_engine()
    });
    missing_abort(check(&mut oracle(any_read), &case, &history));
}
