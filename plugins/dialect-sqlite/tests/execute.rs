//! Rendered SQL run against real SQLite: the schema is created, values round-trip,
//! and every statement kind does what the IR says.

mod common;

use common::*;
use rusqlite::Connection;
use txlab_dialect_sqlite::SqliteDialect;
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

fn explicit(statements: Vec<Statement>) -> Transaction {
    Transaction {
        isolation: IsolationLevel::Serializable,
        kind: TxnKind::Explicit,
        statements,
    }
}

/// Creates and fills the case's tables.
fn set_up(conn: &Connection, rendered: &RenderedCase) {
    for sql in rendered.create.iter().chain(&rendered.populate) {
        run_ok(conn, sql);
    }
}

fn read_state(conn: &Connection, rendered: &RenderedCase) -> Vec<(String, Vec<Vec<Value>>)> {
    rendered
        .read_state
        .iter()
        .map(|q| (q.table.clone(), run_ok(conn, &q.sql)))
        .collect()
}

#[test]
fn values_round_trip() {
    let rows = vec![
        vec![
            Value::Int(1),
            Value::Int(i64::MIN),
            Value::Float(0.1),
            Value::Decimal("12.50".into()),
            Value::Text("it's \"quoted\"".into()),
            Value::Text("a".into()),
            Value::Bool(true),
        ],
        vec![
            Value::Int(2),
            Value::Int(i64::MAX),
            Value::Float(1e300),
            Value::Decimal("-3".into()),
            Value::Text(String::new()),
            Value::Text("b".into()),
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
            Value::Decimal("0.25".into()),
            Value::Text("nul\0inside, ünïcödé -- /* */".into()),
            Value::Text("c".into()),
            Value::Bool(true),
        ],
        vec![
            Value::Int(5),
            Value::Int(-1),
            Value::Float(1.0),
            Value::Decimal("7.".into()),
            Value::Text("'".into()),
            Value::Text("''".into()),
            Value::Bool(false),
        ],
    ];
    // SQLite keeps NUMERIC values as INTEGER when they are whole and as REAL
    // otherwise, and BOOLEAN as the integers 1 and 0.
    let stored = |row: &[Value]| -> Vec<Value> {
        row.iter()
            .map(|v| match v {
                Value::Decimal(d) => {
                    let f: f64 = d.parse().unwrap();
                    if f.fract() == 0.0 {
                        Value::Int(f as i64)
                    } else {
                        Value::Float(f)
                    }
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
            rows,
        }],
        vec![],
    );
    let rendered = SqliteDialect.render_case(&case, &LIMITS).unwrap();
    let db = TempDb::new("values");
    let conn = db.connect();
    set_up(&conn, &rendered);
    let state = read_state(&conn, &rendered);
    assert_eq!(state, vec![("vals".to_string(), expected.clone())]);
    assert_eq!(rendered.read_state[0].columns, t.column_names());

    // The same values as literals in predicates find their own rows.
    let schema = &case.schema;
    for row in &case.initial_rows[0].rows {
        let filter = t
            .columns
            .iter()
            .zip(row)
            .map(|(column, v)| match v {
                Value::Null => is_null(c(&column.name), false),
                v => bin(BinaryOp::Eq, c(&column.name), Expr::lit(v.clone())),
            })
            .reduce(Expr::and)
            .unwrap();
        let found = run_ok(
            &conn,
            &render_ok(schema, &select("vals", Some(filter), vec![])),
        );
        assert_eq!(found, vec![stored(row)], "{row:?}");
    }

    // Clear and drop leave nothing behind.
    for sql in &rendered.clear {
        run_ok(&conn, sql);
    }
    assert_eq!(read_state(&conn, &rendered)[0].1, Vec::<Vec<Value>>::new());
    for sql in &rendered.drop {
        run_ok(&conn, sql);
    }
    let tables = run_ok(&conn, "SELECT count(*) FROM sqlite_schema");
    assert_eq!(tables, vec![vec![Value::Int(0)]]);
}

/// Every finite double survives rendering and SQLite's parser bit for bit.
#[test]
fn floats_round_trip_exactly() {
    let t = table(
        "floats",
        vec![col("id", ColumnType::Int), col("f", ColumnType::Double)],
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
    let db = TempDb::new("floats");
    let conn = db.connect();
    for sql in SqliteDialect.create_table(&t).unwrap() {
        run_ok(&conn, &sql);
    }
    let rows = samples
        .iter()
        .enumerate()
        .map(|(i, &f)| vec![Value::Int(i as i64), Value::Float(f)])
        .collect();
    run_ok(
        &conn,
        &render_ok(
            &schema,
            &insert("floats", &["id", "f"], rows, OnConflict::Error),
        ),
    );
    let back = run_ok(
        &conn,
        &render_ok(&schema, &select("floats", None, vec![c("id")])),
    );
    assert_eq!(back.len(), samples.len());
    for (row, &f) in back.iter().zip(&samples) {
        match row[1] {
            Value::Float(g) => assert_eq!(g.to_bits(), f.to_bits(), "{f:?} came back as {g:?}"),
            ref other => panic!("{f:?} came back as {other:?}"),
        }
    }
}

#[test]
fn statements_change_rows_as_rendered() {
    use BinaryOp::*;
    let mut t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("k", ColumnType::Int),
            not_null("v", ColumnType::Text),
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
        Statement::Select(Select {
            table: "t".into(),
            projection: Projection::Exprs(vec![c("id"), bin(Add, c("k"), int(1))]),
            filter: Some(bin(
                Or,
                bin(Gt, c("f"), Expr::lit(Value::Float(1.5))),
                bin(Eq, c("v"), text("it's")),
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
        vec![explicit(statements)],
    );
    let rendered = SqliteDialect.render_case(&case, &LIMITS).unwrap();
    let db = TempDb::new("statements");
    let conn = db.connect();
    set_up(&conn, &rendered);
    let sql = &rendered.transactions[0].statements;
    let mut changes = Vec::new();
    let mut selected = Vec::new();
    for s in sql {
        let rows = run_ok(&conn, s);
        if s.starts_with("SELECT") {
            selected = rows;
        } else {
            changes.push(conn.changes());
        }
    }
    // BEGIN and COMMIT leave the count of the previous write.
    assert_eq!(changes[1..6], [2, 1, 1, 1, 2]);
    assert_eq!(
        selected,
        vec![
            vec![Value::Int(6), Value::Int(61)],
            vec![Value::Int(1), Value::Int(11)],
        ]
    );
    assert_eq!(
        read_state(&conn, &rendered),
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

#[test]
fn rollback_undoes_the_transaction() {
    let t = table("t", vec![col("id", ColumnType::Int)], &["id"]);
    let case = case_of(
        Schema { tables: vec![t] },
        vec![TableRows {
            table: "t".into(),
            columns: strings(&["id"]),
            rows: vec![vec![Value::Int(1)]],
        }],
        vec![explicit(vec![
            Statement::Begin,
            delete("t", None),
            Statement::Rollback,
        ])],
    );
    let rendered = SqliteDialect.render_case(&case, &LIMITS).unwrap();
    let db = TempDb::new("rollback");
    let conn = db.connect();
    set_up(&conn, &rendered);
    for s in &rendered.transactions[0].statements {
        run_ok(&conn, s);
    }
    assert!(conn.is_autocommit());
    assert_eq!(read_state(&conn, &rendered)[0].1, vec![vec![Value::Int(1)]]);
}

/// SQLite would resolve TRUE to a column named "true"; the rendered literal must
/// still mean true.
#[test]
fn bool_literals_are_not_column_names() {
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
    let db = TempDb::new("bools");
    let conn = db.connect();
    for sql in SqliteDialect.create_table(&t).unwrap() {
        run_ok(&conn, &sql);
    }
    let rows = vec![
        vec![Value::Int(1), Value::Int(0), Value::Bool(true)],
        vec![Value::Int(2), Value::Int(1), Value::Bool(false)],
    ];
    run_ok(
        &conn,
        &render_ok(
            &schema,
            &insert("t", &["id", "true", "flag"], rows, OnConflict::Error),
        ),
    );
    let filter = bin(BinaryOp::Eq, c("flag"), Expr::lit(Value::Bool(true)));
    let found = run_ok(
        &conn,
        &render_ok(&schema, &select("t", Some(filter), vec![])),
    );
    assert_eq!(
        found,
        vec![vec![Value::Int(1), Value::Int(0), Value::Int(1)]]
    );
}

/// A PRIMARY KEY column refuses NULL, as in standard SQL, instead of SQLite's
/// legacy NULL keys or a rowid alias picking the next id.
#[test]
fn primary_keys_refuse_null() {
    for ty in [ColumnType::Int, ColumnType::BigInt, ColumnType::Text] {
        let t = table("t", vec![col("id", ty), col("v", ColumnType::Int)], &["id"]);
        let schema = Schema {
            tables: vec![t.clone()],
        };
        let db = TempDb::new("null-key");
        let conn = db.connect();
        for sql in SqliteDialect.create_table(&t).unwrap() {
            run_ok(&conn, &sql);
        }
        let sql = render_ok(
            &schema,
            &insert(
                "t",
                &["id", "v"],
                vec![vec![Value::Null, Value::Int(1)]],
                OnConflict::Error,
            ),
        );
        let e = classify_failure(&conn, &sql);
        assert_eq!(e.class, ErrorClass::Constraint, "{ty:?}: {e}");
        assert_eq!(e.code, Some(1299), "{ty:?}: {e}");
    }
}

#[test]
fn a_large_population_fits_one_insert() {
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
    let rendered = SqliteDialect.render_case(&case, &LIMITS).unwrap();
    assert_eq!(rendered.populate.len(), 1);
    let db = TempDb::new("large");
    let conn = db.connect();
    set_up(&conn, &rendered);
    assert_eq!(read_state(&conn, &rendered)[0].1.len(), rows.len());
}
