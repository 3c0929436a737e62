//! Rendered SQL run against the live MariaDB: the schema is created, values
//! round-trip, every statement kind does what the IR says, and the session set-up
//! runs at every level.

mod common;

use common::*;
use mysql::Conn;
use txlab_plugin_api::prelude::*;

fn values_table() -> Table {
    let mut t = table(
        "vals",
        vec![
            col("id", ColumnType::Int),
            col("i", ColumnType::BigInt),
            col("f", ColumnType::Double),
            col(
                "d",
                ColumnType::Decimal {
                    precision: 10,
                    scale: 2,
                },
            ),
            col("t", ColumnType::Text),
            col("v", ColumnType::Varchar { len: 16 }),
            col("b", ColumnType::Bool),
        ],
        &["id"],
    );
    t.unique = vec![strings(&["v"])];
    t.indexes = vec![Index {
        name: "vals_f".into(),
        columns: strings(&["f", "d"]),
        unique: false,
    }];
    t
}

fn case_of(
    schema: Schema,
    initial_rows: Vec<TableRows>,
    transactions: Vec<Transaction>,
) -> TestCase {
    let submitted_order = transactions
        .iter()
        .enumerate()
        .flat_map(|(t, txn)| (0..txn.statements.len()).map(move |s| StatementRef::new(t, s)))
        .collect();
    let case = TestCase {
        seed: 0,
        generator: "hand-written".into(),
        schema,
        initial_rows,
        transactions,
        submitted_order,
    };
    case.validate().unwrap();
    case
}

fn explicit(level: IsolationLevel, statements: Vec<Statement>) -> Transaction {
    Transaction {
        isolation: level,
        kind: TxnKind::Explicit,
        statements,
    }
}

/// Creates and fills the case's tables.
fn set_up(conn: &mut Conn, rendered: &RenderedCase) {
    for sql in rendered.create.iter().chain(&rendered.populate) {
        run_ok(conn, sql);
    }
}

fn read_state(conn: &mut Conn, rendered: &RenderedCase) -> Vec<(String, Vec<Vec<Value>>)> {
    rendered
        .read_state
        .iter()
        .map(|q| (q.table.clone(), run_ok(conn, &q.sql)))
        .collect()
}

/// Text that an escaping mistake would change: quotes, backslashes, NUL, comment
/// markers, LIKE wildcards and non-ASCII characters.
const AWKWARD_TEXTS: [&str; 6] = [
    "it's \"quoted\"",
    "back\\slash \\' \\\\",
    "nul\0inside",
    "-- /* */ # ;",
    "100% _x_ ünïcödé 😀",
    "''",
];

#[test]
fn values_round_trip() {
    let Some(db) = live_db("values") else { return };
    let text = |s: &str| Value::Text(s.into());
    let mut rows = vec![
        vec![
            Value::Int(1),
            Value::Int(i64::MIN),
            Value::Float(0.1),
            Value::Decimal("12.50".into()),
            text(""),
            text("a"),
            Value::Bool(true),
        ],
        vec![
            Value::Int(2),
            Value::Int(i64::MAX),
            Value::Float(1e300),
            Value::Decimal("-3".into()),
            text("x"),
            text("b"),
            Value::Bool(false),
        ],
        vec![
            Value::Int(3),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ],
        vec![
            Value::Int(4),
            Value::Int(0),
            Value::Float(-2.5),
            Value::Decimal(".25".into()),
            text("y"),
            text("c"),
            Value::Bool(true),
        ],
        vec![
            Value::Int(5),
            Value::Int(-1),
            Value::Float(1.0),
            Value::Decimal("7.".into()),
            text("z"),
            // The binary collation keeps case apart: 'C' does not collide with 'c'.
            text("C"),
            Value::Bool(false),
        ],
    ];
    for (k, awkward) in AWKWARD_TEXTS.iter().enumerate() {
        let id = 10 + k as i64;
        rows.push(vec![
            Value::Int(id),
            Value::Int(id),
            Value::Float(id as f64 / 3.0),
            Value::Decimal("+0.5".into()),
            text(awkward),
            text(&format!("k{k}")),
            Value::Bool(true),
        ]);
    }
    // DECIMAL comes back at the column's scale, BOOLEAN as the integers 1 and 0.
    let stored = |row: &[Value]| -> Vec<Value> {
        row.iter()
            .map(|v| match v {
                Value::Decimal(d) => {
                    let f: f64 = d.parse().unwrap();
                    Value::Decimal(format!("{f:.2}"))
                }
                Value::Bool(b) => Value::Int(i64::from(*b)),
                other => other.clone(),
            })
            .collect()
    };
    let expected: Vec<Vec<Value>> = rows.iter().map(|r| stored(r)).collect();
    let t = values_table();
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![TableRows {
            table: "vals".into(),
            columns: t.column_names(),
            rows: rows.clone(),
        }],
        vec![],
    );
    let dialect = mariadb(false);
    let rendered = dialect.render_case(&case, &LIMITS).unwrap();
    // The case is loaded on a connection with the server's default sql_mode
    // (backslashes escape) and read on one set up by the dialect
    // (NO_BACKSLASH_ESCAPES): the literals must mean the same in both.
    let mut loader = db.connect();
    let mode = first_value_text(&mut loader, "SELECT @@sql_mode");
    assert!(!mode.contains("NO_BACKSLASH_ESCAPES"), "{mode}");
    set_up(&mut loader, &rendered);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    assert_eq!(
        read_state(&mut conn, &rendered),
        vec![("vals".to_string(), expected.clone())]
    );
    assert_eq!(rendered.read_state[0].columns, t.column_names());

    // The same values as literals in predicates find their own rows, in both modes.
    let schema = &case.schema;
    for row in &case.initial_rows[0].rows {
        let filter = t
            .columns
            .iter()
            .zip(row)
            .map(|(column, v)| match v {
                Value::Null => is_null(c(&column.name), false),
                v => eq(c(&column.name), Expr::lit(v.clone())),
            })
            .reduce(Expr::and)
            .unwrap();
        let sql = render_ok(&dialect, schema, &select("vals", Some(filter), vec![]));
        assert_eq!(run_ok(&mut conn, &sql), vec![stored(row)], "{sql}");
        assert_eq!(run_ok(&mut loader, &sql), vec![stored(row)], "{sql}");
    }

    // Clear and drop leave nothing behind.
    for sql in &rendered.clear {
        run_ok(&mut conn, sql);
    }
    assert_eq!(
        read_state(&mut conn, &rendered)[0].1,
        Vec::<Vec<Value>>::new()
    );
    for sql in &rendered.drop {
        run_ok(&mut conn, sql);
    }
    let tables = run_ok(
        &mut conn,
        &format!(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '{}'",
            db.name
        ),
    );
    assert_eq!(tables, vec![vec![Value::Int(0)]]);
}

/// Every finite double survives rendering and the server's parser bit for bit.
#[test]
fn floats_round_trip_exactly() {
    let Some(db) = live_db("floats") else { return };
    let t = table(
        "floats",
        vec![col("id", ColumnType::BigInt), col("f", ColumnType::Double)],
        &["id"],
    );
    let schema = Schema {
        tables: vec![t.clone()],
    };
    let mut samples = vec![
        0.1,
        0.30000000000000004,
        1e300,
        -1e-300,
        5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        1e16,
        9007199254740993.0,
        123456.789,
        2.0f64.powi(63),
    ];
    // A fixed pseudo-random walk over bit patterns covers every exponent.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    while samples.len() < 3000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = f64::from_bits(state);
        if v.is_finite() && v != 0.0 {
            samples.push(v);
        }
    }
    let dialect = mariadb(false);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    for sql in dialect.create_table(&t).unwrap() {
        run_ok(&mut conn, &sql);
    }
    let rows = samples
        .iter()
        .enumerate()
        .map(|(i, &f)| vec![Value::Int(i as i64), Value::Float(f)])
        .collect();
    run_ok(
        &mut conn,
        &render_ok(
            &dialect,
            &schema,
            &insert("floats", &["id", "f"], rows, OnConflict::Error),
        ),
    );
    let back = doubles(
        &mut conn,
        &render_ok(&dialect, &schema, &select("floats", None, vec![c("id")])),
    );
    assert_eq!(back.len(), samples.len());
    for ((id, g), (i, &f)) in back.iter().zip(samples.iter().enumerate()) {
        assert_eq!(*id, i as i64);
        assert_eq!(g.to_bits(), f.to_bits(), "{f:?} came back as {g:?}");
    }
    // A literal in a predicate compares equal to the stored value.
    for &f in samples.iter().step_by(97) {
        let sql = render_ok(
            &dialect,
            &schema,
            &select(
                "floats",
                Some(eq(c("f"), Expr::lit(Value::Float(f)))),
                vec![],
            ),
        );
        assert_eq!(run_ok(&mut conn, &sql).len(), 1, "{sql}");
    }
}

#[test]
fn statements_change_rows_as_rendered() {
    use BinaryOp::*;
    let Some(db) = live_db("statements") else {
        return;
    };
    let mut t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("k", ColumnType::Int),
            not_null("v", ColumnType::Varchar { len: 16 }),
            col("f", ColumnType::Double),
        ],
        &["id"],
    );
    t.unique = vec![strings(&["k"])];
    let row = |id: i64, k: i64, v: &str, f: f64| {
        vec![
            Value::Int(id),
            Value::Int(k),
            Value::Text(v.into()),
            Value::Float(f),
        ]
    };
    let level = IsolationLevel::RepeatableRead;
    let statements = vec![
        Statement::Begin,
        update(
            "t",
            vec![
                ("v", text("new")),
                ("f", bin(Mul, c("f"), Expr::lit(Value::Float(2.0)))),
            ],
            Some(bin(
                And,
                in_list(c("id"), vec![int(1), int(2)], false),
                not(is_null(c("k"), false)),
            )),
        ),
        // Row 1 again with its current values: with CLIENT_FOUND_ROWS a matched
        // row counts although nothing changes.
        update("t", vec![("v", text("new"))], Some(eq(c("id"), int(1)))),
        // Collides with row 2 on `k`: REPLACE deletes row 2, then inserts.
        insert(
            "t",
            &["id", "k", "v", "f"],
            vec![row(5, 20, "replaced", 0.5)],
            OnConflict::Replace,
        ),
        // Row 1 collides on the key and is skipped; row 6 goes in.
        insert(
            "t",
            &["id", "k", "v", "f"],
            vec![row(1, 99, "ignored", 9.0), row(6, 60, "it's", 6.0)],
            OnConflict::Ignore,
        ),
        insert(
            "t",
            &["id", "k", "v", "f"],
            vec![row(7, 70, "seven", -7.0)],
            OnConflict::Error,
        ),
        delete("t", Some(between(c("id"), int(3), neg(int(-4)), false))),
        locking_select("t", Some(eq(c("id"), int(6))), RowLock::ForUpdate),
        locking_select("t", Some(eq(c("id"), int(7))), RowLock::ForShare),
        Statement::Select(Select {
            table: "t".into(),
            projection: Projection::Exprs(vec![c("id"), bin(Add, c("k"), int(1))]),
            filter: Some(bin(
                Or,
                bin(Gt, c("f"), Expr::lit(Value::Float(1.5))),
                eq(c("v"), text("it's")),
            )),
            // The integer constant must not become a column position.
            order_by: vec![int(5), neg(c("id"))],
            lock: RowLock::None,
        }),
        Statement::Commit,
    ];
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![TableRows {
            table: "t".into(),
            columns: t.column_names(),
            rows: vec![
                row(1, 10, "one", 1.0),
                row(2, 20, "two", 2.0),
                row(3, 30, "three", 3.0),
                row(4, 40, "four", 4.0),
            ],
        }],
        vec![explicit(level, statements)],
    );
    let dialect = mariadb(false);
    let rendered = dialect.render_case(&case, &LIMITS).unwrap();
    let mut conn = db.session(&dialect, level);
    set_up(&mut conn, &rendered);
    let mut outcomes = Vec::new();
    for sql in &rendered.transactions[0].statements {
        let done = exec(&mut conn, sql).unwrap_or_else(|e| panic!("`{sql}` failed: {e}"));
        outcomes.push((done.affected, done.rows));
    }
    let affected: Vec<u64> = outcomes[1..7].iter().map(|(a, _)| *a).collect();
    // REPLACE counts the deleted row and the inserted one.
    assert_eq!(affected, [2, 1, 2, 1, 1, 2]);
    assert_eq!(
        outcomes[7].1,
        vec![row(6, 60, "it's", 6.0)],
        "SELECT … FOR UPDATE"
    );
    assert_eq!(
        outcomes[8].1,
        vec![row(7, 70, "seven", -7.0)],
        "SELECT … LOCK IN SHARE MODE"
    );
    assert_eq!(
        outcomes[9].1,
        vec![
            vec![Value::Int(6), Value::Int(61)],
            vec![Value::Int(1), Value::Int(11)],
        ]
    );
    assert_eq!(
        read_state(&mut conn, &rendered),
        vec![(
            "t".to_string(),
            vec![
                row(1, 10, "new", 2.0),
                row(5, 20, "replaced", 0.5),
                row(6, 60, "it's", 6.0),
                row(7, 70, "seven", -7.0),
            ]
        )]
    );
}

/// Expressions MySQL spells its own way: the empty IN list and CAST targets.
#[test]
fn expressions_mean_what_the_ir_says() {
    let Some(db) = live_db("exprs") else { return };
    let t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("n", ColumnType::Int),
            col("f", ColumnType::Double),
            col("s", ColumnType::Varchar { len: 8 }),
        ],
        &["id"],
    );
    let schema = Schema {
        tables: vec![t.clone()],
    };
    let dialect = mariadb(false);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    for sql in dialect.create_table(&t).unwrap() {
        run_ok(&mut conn, &sql);
    }
    run_ok(
        &mut conn,
        &render_ok(
            &dialect,
            &schema,
            &insert(
                "t",
                &["id", "n", "f", "s"],
                vec![
                    vec![
                        Value::Int(1),
                        Value::Int(7),
                        Value::Float(2.5),
                        Value::Text("seven".into()),
                    ],
                    vec![Value::Int(2), Value::Null, Value::Null, Value::Null],
                ],
                OnConflict::Error,
            ),
        ),
    );
    let mut project = |exprs: Vec<Expr>| {
        let sql = render_ok(
            &dialect,
            &schema,
            &Statement::Select(Select {
                table: "t".into(),
                projection: Projection::Exprs(exprs),
                filter: None,
                order_by: vec![c("id")],
                lock: RowLock::None,
            }),
        );
        run_ok(&mut conn, &sql)
    };
    // `n IN ()` is false, `n NOT IN ()` true, both NULL for a NULL operand.
    let truth = |v: Option<bool>| v.map_or(Value::Null, |b| Value::Int(i64::from(b)));
    assert_eq!(
        project(vec![
            in_list(c("n"), vec![], false),
            in_list(c("n"), vec![], true)
        ]),
        vec![
            vec![truth(Some(false)), truth(Some(true))],
            vec![truth(None), truth(None)],
        ]
    );
    assert_eq!(
        project(vec![
            cast(c("f"), ColumnType::Int),
            cast(c("n"), ColumnType::Double),
            cast(
                c("f"),
                ColumnType::Decimal {
                    precision: 6,
                    scale: 3
                }
            ),
            cast(c("s"), ColumnType::Varchar { len: 3 }),
            cast(c("n"), ColumnType::Text),
        ]),
        vec![
            vec![
                // MariaDB converts a DOUBLE to an integer with rint(), which
                // rounds half to even: 2.5 becomes 2.
                Value::Int(2),
                Value::Float(7.0),
                Value::Decimal("2.500".into()),
                Value::Text("sev".into()),
                Value::Text("7".into()),
            ],
            vec![Value::Null; 5],
        ]
    );
}

#[test]
fn rollback_undoes_the_transaction() {
    let Some(db) = live_db("rollback") else {
        return;
    };
    let t = table("t", vec![col("id", ColumnType::Int)], &["id"]);
    let level = IsolationLevel::ReadCommitted;
    let case = case_of(
        Schema { tables: vec![t] },
        vec![TableRows {
            table: "t".into(),
            columns: strings(&["id"]),
            rows: vec![vec![Value::Int(1)]],
        }],
        vec![explicit(
            level,
            vec![Statement::Begin, delete("t", None), Statement::Rollback],
        )],
    );
    let dialect = mariadb(false);
    let rendered = dialect.render_case(&case, &LIMITS).unwrap();
    let mut conn = db.session(&dialect, level);
    set_up(&mut conn, &rendered);
    for s in &rendered.transactions[0].statements {
        run_ok(&mut conn, s);
    }
    assert!(!in_transaction(&mut conn));
    assert_eq!(
        read_state(&mut conn, &rendered)[0].1,
        vec![vec![Value::Int(1)]]
    );
}

/// TRUE is a reserved word: even with a column named `true` it means true.
#[test]
fn bool_literals_are_not_column_names() {
    let Some(db) = live_db("bools") else { return };
    let t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("true", ColumnType::Int),
            col("flag", ColumnType::Bool),
        ],
        &["id"],
    );
    let schema = Schema {
        tables: vec![t.clone()],
    };
    let dialect = mariadb(false);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    for sql in dialect.create_table(&t).unwrap() {
        run_ok(&mut conn, &sql);
    }
    let rows = vec![
        vec![Value::Int(1), Value::Int(0), Value::Bool(true)],
        vec![Value::Int(2), Value::Int(1), Value::Bool(false)],
    ];
    run_ok(
        &mut conn,
        &render_ok(
            &dialect,
            &schema,
            &insert("t", &["id", "true", "flag"], rows, OnConflict::Error),
        ),
    );
    let filter = eq(c("flag"), Expr::lit(Value::Bool(true)));
    let found = run_ok(
        &mut conn,
        &render_ok(&dialect, &schema, &select("t", Some(filter), vec![])),
    );
    assert_eq!(
        found,
        vec![vec![Value::Int(1), Value::Int(0), Value::Int(1)]]
    );
}

/// A PRIMARY KEY column refuses NULL, and the error is a constraint violation.
#[test]
fn primary_keys_refuse_null() {
    let Some(db) = live_db("nullkey") else { return };
    let dialect = mariadb(false);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    for (n, ty) in [
        ColumnType::Int,
        ColumnType::BigInt,
        ColumnType::Varchar { len: 8 },
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("t{n}");
        let t = table(
            &name,
            vec![col("id", ty), col("v", ColumnType::Int)],
            &["id"],
        );
        let schema = Schema {
            tables: vec![t.clone()],
        };
        for sql in dialect.create_table(&t).unwrap() {
            run_ok(&mut conn, &sql);
        }
        let sql = render_ok(
            &dialect,
            &schema,
            &insert(
                &name,
                &["id", "v"],
                vec![vec![Value::Null, Value::Int(1)]],
                OnConflict::Error,
            ),
        );
        let e = classify_failure(&mut conn, &sql);
        assert_eq!(
            (e.class, e.code),
            (ErrorClass::Constraint, Some(1048)),
            "{ty:?}: {e}"
        );
    }
}

#[test]
fn a_large_population_fits_one_insert() {
    let Some(db) = live_db("large") else { return };
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Text)],
        &["id"],
    );
    let rows: Vec<Vec<Value>> = (0..5000)
        .map(|i| vec![Value::Int(i), Value::Text(format!("row {i}"))])
        .collect();
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![TableRows {
            table: "t".into(),
            columns: t.column_names(),
            rows: rows.clone(),
        }],
        vec![],
    );
    let dialect = mariadb(false);
    let rendered = dialect.render_case(&case, &LIMITS).unwrap();
    assert_eq!(rendered.populate.len(), 1);
    let mut conn = db.connect();
    set_up(&mut conn, &rendered);
    assert_eq!(read_state(&mut conn, &rendered)[0].1.len(), rows.len());
}

/// The set-up runs at every level with both snapshot options, its checks pass, and
/// the session then has what it asked for.
#[test]
fn session_setup_runs_at_every_level() {
    let Some(db) = live_db("setup") else { return };
    let limits = SessionLimits {
        statement_timeout_ms: 1_500,
        lock_wait_timeout_ms: 2_500,
    };
    for snapshot_isolation in [false, true] {
        let dialect = mariadb(snapshot_isolation);
        for level in dialect.info().levels.iter().map(|l| l.level) {
            let mut conn = db.session_with(&dialect, level, limits);
            let expected = level.sql().replace(' ', "-");
            assert_eq!(
                first_value_text(&mut conn, "SELECT @@tx_isolation"),
                expected
            );
            assert_eq!(
                first_value_text(&mut conn, "SELECT @@innodb_snapshot_isolation"),
                if snapshot_isolation { "1" } else { "0" }
            );
            assert_eq!(
                first_value_text(&mut conn, "SELECT @@innodb_lock_wait_timeout"),
                "3"
            );
            assert_eq!(
                first_value_text(&mut conn, "SELECT @@max_statement_time"),
                "1.5"
            );
            let mode = first_value_text(&mut conn, "SELECT @@sql_mode");
            for flag in ["STRICT_ALL_TABLES", "NO_BACKSLASH_ESCAPES"] {
                assert!(mode.contains(flag), "{mode}");
            }
            assert_eq!(first_value_text(&mut conn, "SELECT @@autocommit"), "1");
            assert_eq!(
                first_value_text(&mut conn, "SELECT @@character_set_connection"),
                "utf8mb4"
            );
        }
    }
}
