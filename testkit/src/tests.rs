use super::*;
use txlab_plugin_api::prelude::*;

fn int(i: i64) -> Value {
    Value::Int(i)
}

fn col(name: &str) -> Expr {
    Expr::column(name)
}

fn lit(v: Value) -> Expr {
    Expr::lit(v)
}

/// t(id INT PRIMARY KEY, v INT UNIQUE, w VARCHAR(4) NOT NULL)
fn schema() -> Schema {
    Schema {
        tables: vec![Table {
            name: "t".into(),
            columns: vec![
                Column {
                    name: "id".into(),
                    ty: ColumnType::Int,
                    not_null: true,
                },
                Column {
                    name: "v".into(),
                    ty: ColumnType::Int,
                    not_null: false,
                },
                Column {
                    name: "w".into(),
                    ty: ColumnType::Varchar { len: 4 },
                    not_null: true,
                },
            ],
            primary_key: vec!["id".into()],
            unique: vec![vec!["v".into()]],
            indexes: vec![],
        }],
    }
}

fn initial() -> Vec<TableRows> {
    vec![TableRows {
        table: "t".into(),
        columns: vec!["id".into(), "v".into(), "w".into()],
        rows: vec![
            vec![int(1), int(10), Value::Text("a".into())],
            vec![int(2), Value::Null, Value::Text("b".into())],
        ],
    }]
}

fn db() -> (MemoryDb, u32) {
    let mut db = MemoryDb::with_rows(&schema(), &initial()).unwrap();
    let session = db.open_session(IsolationLevel::Serializable).unwrap();
    (db, session)
}

fn insert(rows: Vec<Vec<Value>>, on_conflict: OnConflict) -> Statement {
    Statement::Insert(Insert {
        table: "t".into(),
        columns: vec!["id".into(), "v".into(), "w".into()],
        rows: rows
            .into_iter()
            .map(|r| r.into_iter().map(Expr::Literal).collect())
            .collect(),
        on_conflict,
    })
}

fn row(id: i64, v: Option<i64>, w: &str) -> Vec<Value> {
    vec![int(id), v.map_or(Value::Null, int), Value::Text(w.into())]
}

fn update(column: &str, value: Expr, filter: Option<Expr>) -> Statement {
    Statement::Update(Update {
        table: "t".into(),
        assignments: vec![Assignment {
            column: column.into(),
            value,
        }],
        filter,
    })
}

fn delete(filter: Option<Expr>) -> Statement {
    Statement::Delete(Delete {
        table: "t".into(),
        filter,
    })
}

fn select(filter: Option<Expr>) -> Statement {
    Statement::Select(Select {
        table: "t".into(),
        projection: Projection::Exprs(vec![col("id")]),
        filter,
        order_by: vec![col("id")],
        lock: RowLock::None,
    })
}

fn rows(db: &MemoryDb) -> Vec<Vec<Value>> {
    db.state().tables[0].rows.clone()
}

fn error_class(outcome: &Outcome) -> ErrorClass {
    match outcome {
        Outcome::Error(e) => {
            assert_eq!(e.scope, ErrorScope::Statement, "{e}");
            e.class
        }
        other => panic!("expected an error, got {other:?}"),
    }
}

fn selected_ids(outcome: Outcome) -> Vec<i64> {
    match outcome {
        Outcome::Rows { columns, rows } => {
            assert_eq!(columns, vec!["id".to_string()]);
            rows.into_iter()
                .map(|r| match r[0] {
                    Value::Int(i) => i,
                    ref other => panic!("{other:?}"),
                })
                .collect()
        }
        other => panic!("expected rows, got {other:?}"),
    }
}

#[test]
fn insert_checks_primary_key_unique_and_not_null_without_changing_anything() {
    let (mut db, s) = db();
    let before = rows(&db);
    let dup_pk = db
        .execute(s, &insert(vec![row(1, Some(99), "x")], OnConflict::Error))
        .unwrap();
    assert_eq!(error_class(&dup_pk), ErrorClass::Constraint);
    let dup_unique = db
        .execute(s, &insert(vec![row(3, Some(10), "x")], OnConflict::Error))
        .unwrap();
    assert_eq!(error_class(&dup_unique), ErrorClass::Constraint);
    let null_pk = insert(
        vec![vec![Value::Null, int(5), Value::Text("x".into())]],
        OnConflict::Error,
    );
    assert_eq!(
        error_class(&db.execute(s, &null_pk).unwrap()),
        ErrorClass::Constraint
    );
    let null_w = insert(vec![vec![int(7), int(5), Value::Null]], OnConflict::Error);
    assert_eq!(
        error_class(&db.execute(s, &null_w).unwrap()),
        ErrorClass::Constraint
    );
    // The first row is fine, the second collides with it: the statement fails whole.
    let multi = insert(
        vec![row(3, None, "x"), row(3, None, "y")],
        OnConflict::Error,
    );
    assert_eq!(
        error_class(&db.execute(s, &multi).unwrap()),
        ErrorClass::Constraint
    );
    assert_eq!(rows(&db), before);
}

#[test]
fn nulls_never_collide_in_unique_keys() {
    let (mut db, s) = db();
    let outcome = db
        .execute(
            s,
            &insert(
                vec![row(3, None, "c"), row(4, None, "d")],
                OnConflict::Error,
            ),
        )
        .unwrap();
    assert_eq!(outcome, Outcome::Affected { rows: 2 });
    assert_eq!(rows(&db).len(), 4);
}

#[test]
fn replace_deletes_every_colliding_row_first() {
    let (mut db, s) = db();
    // Collides with row 1 on v and with row 2 on id.
    let outcome = db
        .execute(s, &insert(vec![row(2, Some(10), "z")], OnConflict::Replace))
        .unwrap();
    assert_eq!(outcome, Outcome::Affected { rows: 3 });
    assert_eq!(rows(&db), vec![row(2, Some(10), "z")]);
}

#[test]
fn insert_ignore_skips_colliding_rows_only() {
    let (mut db, s) = db();
    let outcome = db
        .execute(
            s,
            &insert(
                vec![row(1, Some(5), "z"), row(3, Some(5), "c")],
                OnConflict::Ignore,
            ),
        )
        .unwrap();
    assert_eq!(outcome, Outcome::Affected { rows: 1 });
    assert_eq!(
        rows(&db),
        vec![
            row(1, Some(10), "a"),
            row(2, None, "b"),
            row(3, Some(5), "c")
        ]
    );
}

#[test]
fn null_comparisons_are_unknown_and_where_keeps_only_true() {
    let (mut db, s) = db();
    let ids = |db: &mut MemoryDb, filter: Expr| {
        selected_ids(db.execute(s, &select(Some(filter))).unwrap())
    };
    assert_eq!(ids(&mut db, Expr::eq(col("v"), lit(int(10)))), vec![1]);
    // v = NULL is unknown even for the NULL row.
    assert_eq!(
        ids(&mut db, Expr::eq(col("v"), lit(Value::Null))),
        Vec::<i64>::new()
    );
    // NOT (v = 10) is unknown for the NULL row, so only rows with other values pass.
    let not_ten = Expr::Unary {
        op: UnaryOp::Not,
        operand: Box::new(Expr::eq(col("v"), lit(int(10)))),
    };
    assert_eq!(ids(&mut db, not_ten), Vec::<i64>::new());
    let is_null = Expr::IsNull {
        operand: Box::new(col("v")),
        negated: false,
    };
    assert_eq!(ids(&mut db, is_null), vec![2]);
    // unknown OR true is true; unknown AND true is unknown.
    let or = Expr::binary(
        BinaryOp::Or,
        Expr::eq(col("v"), lit(int(3))),
        Expr::eq(col("id"), lit(int(2))),
    );
    assert_eq!(ids(&mut db, or), vec![2]);
    let and = Expr::and(
        Expr::binary(BinaryOp::Lt, col("v"), lit(int(99))),
        Expr::eq(col("id"), lit(int(2))),
    );
    assert_eq!(ids(&mut db, and), Vec::<i64>::new());
    // x NOT IN (…, NULL) is never true.
    let not_in = Expr::InList {
        operand: Box::new(col("id")),
        list: vec![lit(int(1)), lit(Value::Null)],
        negated: true,
    };
    assert_eq!(ids(&mut db, not_in), Vec::<i64>::new());
    let between = Expr::Between {
        operand: Box::new(col("id")),
        low: Box::new(lit(Value::Float(1.5))),
        high: Box::new(lit(int(2))),
        negated: false,
    };
    assert_eq!(ids(&mut db, between), vec![2]);
}

#[test]
fn ints_and_floats_compare_numerically_and_text_with_text() {
    let (mut db, s) = db();
    let float_eq = Expr::eq(col("v"), lit(Value::Float(10.0)));
    assert_eq!(
        selected_ids(db.execute(s, &select(Some(float_eq))).unwrap()),
        vec![1]
    );
    let text_lt = Expr::binary(BinaryOp::Lt, col("w"), lit(Value::Text("b".into())));
    assert_eq!(
        selected_ids(db.execute(s, &select(Some(text_lt))).unwrap()),
        vec![1]
    );
    let mixed = Expr::eq(col("w"), lit(int(1)));
    assert_eq!(
        error_class(&db.execute(s, &select(Some(mixed))).unwrap()),
        ErrorClass::Data
    );
}

#[test]
fn select_orders_nulls_first_and_projects_all_columns() {
    let (mut db, s) = db();
    let outcome = db
        .execute(
            s,
            &Statement::Select(Select {
                table: "t".into(),
                projection: Projection::All,
                filter: None,
                order_by: vec![col("v")],
                lock: RowLock::ForUpdate,
            }),
        )
        .unwrap();
    assert_eq!(
        outcome,
        Outcome::Rows {
            columns: vec!["id".into(), "v".into(), "w".into()],
            rows: vec![row(2, None, "b"), row(1, Some(10), "a")],
        }
    );
}

#[test]
fn update_sees_the_old_row_and_fails_atomically() {
    let (mut db, s) = db();
    // Swap-like assignments read the old values.
    let swap = Statement::Update(Update {
        table: "t".into(),
        assignments: vec![
            Assignment {
                column: "id".into(),
                value: Expr::binary(BinaryOp::Add, col("id"), lit(int(10))),
            },
            Assignment {
                column: "v".into(),
                value: col("id"),
            },
        ],
        filter: None,
    });
    assert_eq!(db.execute(s, &swap).unwrap(), Outcome::Affected { rows: 2 });
    assert_eq!(
        rows(&db),
        vec![row(11, Some(1), "a"), row(12, Some(2), "b")]
    );
    // Both rows would get id 5: the second collides, so neither changes.
    let before = rows(&db);
    let collide = update("id", lit(int(5)), None);
    assert_eq!(
        error_class(&db.execute(s, &collide).unwrap()),
        ErrorClass::Constraint
    );
    assert_eq!(rows(&db), before);
    // Only the matched row changes; the resulting table has no collision.
    let one = update("v", lit(int(2)), Some(Expr::eq(col("id"), lit(int(11)))));
    assert_eq!(
        error_class(&db.execute(s, &one).unwrap()),
        ErrorClass::Constraint
    );
    let ok = update("v", lit(int(7)), Some(Expr::eq(col("id"), lit(int(11)))));
    assert_eq!(db.execute(s, &ok).unwrap(), Outcome::Affected { rows: 1 });
    let to_null = update("w", lit(Value::Null), None);
    assert_eq!(
        error_class(&db.execute(s, &to_null).unwrap()),
        ErrorClass::Constraint
    );
}

#[test]
fn overflow_and_bad_conversions_are_data_errors() {
    let (mut db, s) = db();
    let overflow = update(
        "v",
        Expr::binary(BinaryOp::Mul, lit(int(i64::MAX)), lit(int(2))),
        None,
    );
    assert_eq!(
        error_class(&db.execute(s, &overflow).unwrap()),
        ErrorClass::Data
    );
    let out_of_int = update("v", lit(int(i64::from(i32::MAX) + 1)), None);
    assert_eq!(
        error_class(&db.execute(s, &out_of_int).unwrap()),
        ErrorClass::Data
    );
    let too_long = update("w", lit(Value::Text("abcde".into())), None);
    assert_eq!(
        error_class(&db.execute(s, &too_long).unwrap()),
        ErrorClass::Data
    );
    // NULL arithmetic is NULL, not an error.
    let null_add = update(
        "v",
        Expr::binary(BinaryOp::Add, col("v"), lit(int(1))),
        None,
    );
    assert_eq!(
        db.execute(s, &null_add).unwrap(),
        Outcome::Affected { rows: 2 }
    );
    assert_eq!(rows(&db), vec![row(1, Some(11), "a"), row(2, None, "b")]);
    // A float stored into an INT column becomes an integer.
    let float = update(
        "v",
        lit(Value::Float(3.0)),
        Some(Expr::eq(col("id"), lit(int(2)))),
    );
    assert_eq!(
        db.execute(s, &float).unwrap(),
        Outcome::Affected { rows: 1 }
    );
    assert_eq!(rows(&db)[1], row(2, Some(3), "b"));
}

#[test]
fn unknown_tables_and_columns_are_syntax_errors() {
    let (mut db, s) = db();
    let no_table = Statement::Delete(Delete {
        table: "nope".into(),
        filter: None,
    });
    assert_eq!(
        error_class(&db.execute(s, &no_table).unwrap()),
        ErrorClass::Syntax
    );
    let no_column = delete(Some(Expr::eq(col("nope"), lit(int(1)))));
    assert_eq!(
        error_class(&db.execute(s, &no_column).unwrap()),
        ErrorClass::Syntax
    );
    // Checked even when no row is visited.
    db.execute(s, &delete(None)).unwrap();
    assert_eq!(
        error_class(&db.execute(s, &no_column).unwrap()),
        ErrorClass::Syntax
    );
    let bad_insert = Statement::Insert(Insert {
        table: "t".into(),
        columns: vec!["id".into(), "nope".into()],
        rows: vec![vec![lit(int(1)), lit(int(2))]],
        on_conflict: OnConflict::Error,
    });
    assert_eq!(
        error_class(&db.execute(s, &bad_insert).unwrap()),
        ErrorClass::Syntax
    );
}

#[test]
fn delete_removes_matching_rows() {
    let (mut db, s) = db();
    let outcome = db
        .execute(
            s,
            &delete(Some(Expr::IsNull {
                operand: Box::new(col("v")),
                negated: true,
            })),
        )
        .unwrap();
    assert_eq!(outcome, Outcome::Affected { rows: 1 });
    assert_eq!(rows(&db), vec![row(2, None, "b")]);
}

#[test]
fn rollback_discards_and_commit_installs_the_transaction() {
    let (mut db, s) = db();
    let before = rows(&db);
    assert_eq!(db.execute(s, &Statement::Begin).unwrap(), Outcome::Done);
    db.execute(s, &delete(None)).unwrap();
    // Not visible outside the transaction before COMMIT.
    assert_eq!(rows(&db), before);
    assert_eq!(db.execute(s, &Statement::Rollback).unwrap(), Outcome::Done);
    assert_eq!(rows(&db), before);

    db.execute(s, &Statement::Begin).unwrap();
    db.execute(s, &delete(Some(Expr::eq(col("id"), lit(int(1))))))
        .unwrap();
    // A failing statement inside the transaction undoes only itself.
    let failing = insert(vec![row(2, None, "x")], OnConflict::Error);
    assert_eq!(
        error_class(&db.execute(s, &failing).unwrap()),
        ErrorClass::Constraint
    );
    assert_eq!(db.execute(s, &Statement::Commit).unwrap(), Outcome::Done);
    assert_eq!(rows(&db), vec![row(2, None, "b")]);
}

#[test]
fn close_session_discards_an_open_transaction() {
    let (mut db, s) = db();
    let before = rows(&db);
    db.execute(s, &Statement::Begin).unwrap();
    db.execute(s, &delete(None)).unwrap();
    db.close_session(s).unwrap();
    assert_eq!(db.open_sessions(), 0);
    assert_eq!(rows(&db), before);
    assert!(db.execute(s, &delete(None)).is_err(), "the session is gone");
}

#[test]
fn autocommit_statements_apply_at_once() {
    let (mut db, s) = db();
    db.execute(s, &delete(Some(Expr::eq(col("id"), lit(int(1))))))
        .unwrap();
    let other = db.open_session(IsolationLevel::ReadCommitted).unwrap();
    let seen = selected_ids(db.execute(other, &select(None)).unwrap());
    assert_eq!(seen, vec![2]);
    // COMMIT and ROLLBACK outside a transaction do nothing.
    assert_eq!(db.execute(s, &Statement::Commit).unwrap(), Outcome::Done);
    assert_eq!(db.execute(s, &Statement::Rollback).unwrap(), Outcome::Done);
    assert_eq!(rows(&db), vec![row(2, None, "b")]);
}

#[test]
fn overlapping_transactions_cannot_overwrite_each_other() {
    let (mut db, a) = db();
    let b = db.open_session(IsolationLevel::Serializable).unwrap();
    db.execute(a, &Statement::Begin).unwrap();
    db.execute(b, &Statement::Begin).unwrap();
    db.execute(a, &delete(Some(Expr::eq(col("id"), lit(int(1))))))
        .unwrap();
    db.execute(b, &delete(Some(Expr::eq(col("id"), lit(int(2))))))
        .unwrap();
    assert_eq!(db.execute(a, &Statement::Commit).unwrap(), Outcome::Done);
    match db.execute(b, &Statement::Commit).unwrap() {
        Outcome::Error(e) => assert_eq!(e.class, ErrorClass::SerializationFailure),
        other => panic!("expected a serialization failure, got {other:?}"),
    }
    assert_eq!(rows(&db), vec![row(2, None, "b")]);
}

#[test]
fn reset_rejects_rows_that_break_constraints() {
    let mut rows = initial();
    rows[0].rows.push(row(1, Some(3), "c"));
    assert!(MemoryDb::with_rows(&schema(), &rows).is_err());
    let mut db = MemoryDb::new();
    assert!(db.reset(&schema(), &initial()).is_ok());
    assert_eq!(db.state().tables[0].columns, vec!["id", "v", "w"]);
}

#[test]
fn read_state_is_canonical() {
    let (mut db, s) = db();
    db.execute(s, &insert(vec![row(0, Some(1), "z")], OnConflict::Error))
        .unwrap();
    let state = db.read_state().unwrap();
    let mut canonical = state.clone();
    canonical.canonicalize();
    assert_eq!(state, canonical);
    assert_eq!(state.tables[0].rows[0], row(0, Some(1), "z"));
}

fn two_txn_case() -> TestCase {
    let t = |statements| Transaction {
        isolation: IsolationLevel::RepeatableRead,
        kind: TxnKind::Explicit,
        statements,
    };
    TestCase {
        seed: 0,
        generator: String::new(),
        schema: schema(),
        initial_rows: initial(),
        transactions: vec![
            t(vec![
                Statement::Begin,
                update("v", lit(int(1)), Some(Expr::eq(col("id"), lit(int(1))))),
                Statement::Commit,
            ]),
            t(vec![
                Statement::Begin,
                update("v", lit(int(2)), Some(Expr::eq(col("id"), lit(int(1))))),
                insert(vec![row(2, None, "x")], OnConflict::Error),
                Statement::Rollback,
            ]),
            Transaction {
                isolation: IsolationLevel::ReadCommitted,
                kind: TxnKind::Autocommit,
                statements: vec![insert(vec![row(1, None, "y")], OnConflict::Error)],
            },
        ],
        submitted_order: vec![],
        intent: None,
        pace_ms: None,
    }
}

#[test]
fn serial_history_records_the_run_like_the_executor() {
    let case = two_txn_case();
    let history = serial_history(&case, &[1, 0, 2]);
    let order: Vec<String> = history
        .completion_order
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(
        order,
        ["T2.1", "T2.2", "T2.3", "T2.4", "T1.1", "T1.2", "T1.3", "T3.1"]
    );
    assert_eq!(history.transactions[0].end, TxnEnd::Committed);
    assert_eq!(history.transactions[1].end, TxnEnd::RolledBack);
    assert_eq!(
        history.transactions[2].end,
        TxnEnd::Aborted {
            by: StatementRef::new(2, 0),
            class: ErrorClass::Constraint
        }
    );
    assert_eq!(history.end_order(), vec![1, 0, 2]);
    // The failed INSERT of T2 is statement-scoped: T2 goes on to its ROLLBACK.
    assert_eq!(
        error_class(&history.statements[1][2].outcome),
        ErrorClass::Constraint
    );
    let stamps: Vec<u64> = history
        .completion_order
        .iter()
        .flat_map(|&at| {
            let r = history.record(at).unwrap();
            [r.submitted_us.unwrap(), r.completed_us.unwrap()]
        })
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "{stamps:?}");
    assert_eq!(
        history.statements[0][1].sql,
        "UPDATE t SET v = 1 WHERE (id = 1)"
    );
    assert_eq!(
        history.final_state.unwrap().tables[0].rows,
        vec![row(1, Some(1), "a"), row(2, None, "b")]
    );
}

#[test]
fn serial_history_leaves_unlisted_transactions_unfinished() {
    let case = two_txn_case();
    let history = serial_history(&case, &[0]);
    assert_eq!(history.transactions[1].end, TxnEnd::Unfinished);
    assert_eq!(history.statements[1][0].outcome, Outcome::NotSubmitted);
    assert_eq!(history.completion_order.len(), 3);
}

#[test]
fn schedules_number_each_transactions_statements_in_turn() {
    let case = two_txn_case();
    let refs: Vec<String> = schedule(&case.transactions, &[0, 1, 1, 0, 2])
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(refs, ["T1.1", "T2.1", "T2.2", "T1.2", "T3.1"]);
}

#[test]
fn a_concurrent_history_records_what_the_test_says() {
    let case = two_txn_case();
    let at = StatementRef::new;
    // T1 updates row 1; T2's update of it waits until T1 commits.
    let history = concurrent_history(&case, &[0, 0, 1, 0, 1, 1, 1])
        .outcome(at(0, 1), Outcome::Affected { rows: 1 })
        .outcomes([
            (at(1, 1), Outcome::Affected { rows: 1 }),
            (at(1, 2), Outcome::Affected { rows: 1 }),
        ])
        .blocked(at(1, 1), 3)
        .unobserved("a note")
        .final_state(DbState::default())
        .build();
    history.check_shape(&case).unwrap();
    let order: Vec<String> = history
        .completion_order
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        order,
        ["T1.1", "T1.2", "T2.1", "T1.3", "T2.2", "T2.3", "T2.4"]
    );
    // Default ends: COMMIT and ROLLBACK as the last statements, T3 never sent.
    assert_eq!(history.transactions[0].end, TxnEnd::Committed);
    assert_eq!(history.transactions[1].end, TxnEnd::RolledBack);
    assert_eq!(history.transactions[2].end, TxnEnd::Unfinished);
    assert_eq!(history.statements[2][0].outcome, Outcome::NotSubmitted);
    assert_eq!(history.statements[1][0].outcome, Outcome::Done);
    assert_eq!(history.transactions[0].ended_us, Some(35));
    assert_eq!(history.transactions[2].ended_us, None);
    // The waiting UPDATE was sent after T2.1 replied and before T1.3 was sent,
    // and replied after T1.3.
    let waited = &history.statements[1][1];
    let (sent, done) = (waited.submitted_us.unwrap(), waited.completed_us.unwrap());
    assert!(history.statements[1][0].completed_us.unwrap() < sent);
    assert!(sent < history.statements[0][2].submitted_us.unwrap());
    assert!(history.statements[0][2].completed_us.unwrap() < done);
    assert_eq!(
        waited.blocked.as_ref().unwrap().evidence,
        BlockEvidence::Probe
    );
    assert_eq!(history.unobserved, vec!["a note"]);
    assert_eq!(history.final_state, Some(DbState::default()));
    let explicit = concurrent_history(&case, &[0])
        .ends(vec![
            TxnEnd::Committed,
            TxnEnd::Unfinished,
            TxnEnd::Unfinished,
        ])
        .build();
    assert_eq!(explicit.transactions[0].end, TxnEnd::Committed);
    assert_eq!(explicit.final_state, None);
}

#[test]
#[should_panic(expected = "the history needs an outcome for T1.2")]
fn a_write_without_an_outcome_is_a_mistake_in_the_test() {
    let case = two_txn_case();
    concurrent_history(&case, &[0, 0]).build();
}

#[test]
fn random_cases_are_valid_and_deterministic() {
    let mut shapes = std::collections::BTreeSet::new();
    for seed in 0..300 {
        let case = random_case(seed);
        case.validate()
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(case, random_case(seed));
        assert!((1..=2).contains(&case.schema.tables.len()));
        assert!((2..=3).contains(&case.transactions.len()));
        for txn in &case.transactions {
            assert!((3..=6).contains(&txn.statements.len()));
            assert_eq!(txn.statements[0], Statement::Begin);
            assert!(txn.statements.last().unwrap().is_end());
        }
        MemoryDb::with_rows(&case.schema, &case.initial_rows)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        shapes.insert((case.schema.tables.len(), case.transactions.len()));
    }
    assert_eq!(shapes.len(), 4, "every table and transaction count occurs");
}

#[test]
fn random_cases_collide() {
    // The tiny domains must make some serial orders disagree, or the cases would
    // not exercise an oracle.
    let differing = (0..100)
        .filter(|&seed| {
            let case = random_case(seed);
            let forward: Vec<usize> = (0..case.transactions.len()).collect();
            let backward: Vec<usize> = forward.iter().rev().copied().collect();
            serial_history(&case, &forward).final_state
                != serial_history(&case, &backward).final_state
        })
        .count();
    assert!(
        differing >= 10,
        "only {differing} of 100 cases depend on the order"
    );
}
