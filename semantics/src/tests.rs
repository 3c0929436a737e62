use super::*;
use txlab_plugin_api::ir::*;
use txlab_testkit::concurrent_history;

fn level(snapshot: SnapshotPoint) -> LevelSemantics {
    LevelSemantics {
        level: IsolationLevel::RepeatableRead,
        snapshot,
        write_reads: WriteReads::LatestCommitted,
        write_conflict: WriteConflict::BlockThenProceed,
        semi_consistent_writes: false,
        predicate_conflicts: true,
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        mixed_levels: MixedLevels::default(),
        after_wait: AfterWait::LatestRows,
        notes: vec![],
        references: vec![],
    }
}

fn declared<'a>(level: &'a LevelSemantics, engine: &'a EngineSemantics) -> Declared<'a> {
    Declared { level, engine }
}

fn int_rows(v: i64) -> Outcome {
    Outcome::Rows {
        columns: vec!["v".into()],
        rows: vec![vec![Value::Int(v)]],
    }
}

fn state(rows: &[(i64, i64)]) -> DbState {
    DbState {
        tables: vec![TableState {
            table: "t".into(),
            columns: vec!["id".into(), "v".into()],
            rows: rows
                .iter()
                .map(|(id, v)| vec![Value::Int(*id), Value::Int(*v)])
                .collect(),
        }],
    }
}

#[test]
fn every_experiment_reads_as_a_valid_case_at_every_level() {
    for e in EXPERIMENTS {
        for level in [
            IsolationLevel::ReadUncommitted,
            IsolationLevel::ReadCommitted,
            IsolationLevel::RepeatableRead,
            IsolationLevel::Serializable,
        ] {
            let case = e
                .case(level)
                .unwrap_or_else(|err| panic!("{}: {err}", e.name));
            case.validate().unwrap();
            assert!(case.transactions.iter().all(|t| t.isolation == level));
            assert!(!e.about().is_empty(), "{}", e.name);
        }
    }
    let names: Vec<&str> = EXPERIMENTS.iter().map(|e| e.name).collect();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(names, unique);
}

/// InnoDB's REPEATABLE READ: T1's reads return 12 and 12, the value
/// committed before its first read. A profile that says "at the first read"
/// agrees; one flipped to "at the first statement" is contradicted.
#[test]
fn the_snapshot_point_is_read_off_the_values_and_a_flipped_one_is_contradicted() {
    let e = experiment("snapshot-point").unwrap();
    let case = e.case(IsolationLevel::RepeatableRead).unwrap();
    // T1.1, T2 (3), T1.2, T3 (3), T1.3, T4 (3), T1.4, T1.5
    let history = concurrent_history(&case, &[0, 1, 1, 1, 0, 2, 2, 2, 0, 3, 3, 3, 0, 0])
        .outcomes([
            (StatementRef::new(1, 1), Outcome::Affected { rows: 1 }),
            (StatementRef::new(0, 1), Outcome::Affected { rows: 1 }),
            (StatementRef::new(2, 1), Outcome::Affected { rows: 1 }),
            (StatementRef::new(0, 2), int_rows(12)),
            (StatementRef::new(3, 1), Outcome::Affected { rows: 1 }),
            (StatementRef::new(0, 3), int_rows(12)),
        ])
        .build();
    let run = Run::new(&history);
    let engine = EngineSemantics::default();
    let first_read = level(SnapshotPoint::FirstRead);
    assert!(matches!(
        e.judge(declared(&first_read, &engine), &run),
        Judgement::Agrees { .. }
    ));
    let flipped = level(SnapshotPoint::FirstStatement);
    let j = e.judge(declared(&flipped, &engine), &run);
    assert!(j.is_contradiction(), "{j:?}");
    let per_statement = level(SnapshotPoint::PerStatement);
    assert!(e
        .judge(declared(&per_statement, &engine), &run)
        .is_contradiction());
}

/// A second writer that waited and then failed: first updater wins.
#[test]
fn a_second_writer_that_fails_after_its_wait_is_block_then_abort() {
    let e = experiment("write-write").unwrap();
    let case = e.case(IsolationLevel::RepeatableRead).unwrap();
    let failure = Outcome::Error(DbError {
        class: ErrorClass::SerializationFailure,
        scope: ErrorScope::Transaction,
        code: None,
        sqlstate: Some("40001".into()),
        message: "could not serialize access due to concurrent update".into(),
    });
    // T1.1, T1.2, T2.1, T2.2, T1.3 (COMMIT), T2.3 (resumed, fails)
    let history = concurrent_history(&case, &[0, 0, 1, 1, 0, 1])
        .outcomes([
            (StatementRef::new(0, 1), Outcome::Affected { rows: 1 }),
            (StatementRef::new(1, 1), int_rows(20)),
            (StatementRef::new(1, 2), failure),
        ])
        .blocked(StatementRef::new(1, 2), 4)
        .ends(vec![
            TxnEnd::Committed,
            TxnEnd::Aborted {
                by: StatementRef::new(1, 2),
                class: ErrorClass::SerializationFailure,
            },
        ])
        .final_state(state(&[(1, 11), (2, 20)]))
        .build();
    let run = Run::new(&history);
    let engine = EngineSemantics::default();
    let mut abort = level(SnapshotPoint::FirstStatement);
    abort.write_conflict = WriteConflict::BlockThenAbort;
    assert!(matches!(
        e.judge(declared(&abort, &engine), &run),
        Judgement::Agrees { .. }
    ));
    let proceed = level(SnapshotPoint::FirstStatement);
    let j = e.judge(declared(&proceed, &engine), &run);
    assert_eq!(
        j,
        Judgement::Contradicts {
            expected: "waits, then writes the first writer's committed row (v = 21)".into(),
            observed: "waits, then fails as the second writer".into(),
        }
    );
}

/// A run the executor did not fully observe is never judged.
#[test]
fn an_unobserved_run_is_not_judged() {
    let e = experiment("failed-statement").unwrap();
    let case = e.case(IsolationLevel::Serializable).unwrap();
    let history = concurrent_history(&case, &[0, 0, 0, 0, 0])
        .outcomes((1..4).map(|s| (StatementRef::new(0, s), Outcome::Affected { rows: 1 })))
        .unobserved("a statement's wait could not be confirmed")
        .build();
    let l = level(SnapshotPoint::FirstRead);
    let engine = EngineSemantics::default();
    assert!(matches!(
        e.judge(declared(&l, &engine), &Run::new(&history)),
        Judgement::NotObservable { .. }
    ));
}
