//! The rendered SQL run on a real PostgreSQL server: the schema, the initial rows,
//! every statement kind, and values that must come back exactly.

mod common;

use common::*;
use postgres::Client;
use txlab_plugin_api::prelude::*;
use txlab_postgres::PostgresDialect;
use txlab_testkit::build::*;
use txlab_testkit::cases::{large_population_case, rollback_case};
use txlab_testkit::dialect::{render_at, LIMITS};
use txlab_testkit::replay::{self, set_up_sql, Rows};
use txlab_testkit::round_trip::{doubles_table, finite_doubles, select_row, values_case, DECIMAL};
use txlab_testkit::statement_effects::{
    self, delete_rows_3_and_4, insert_rows, row, select_with_constant_sort_key, update_rows_1_and_2,
};

fn dialect() -> PostgresDialect {
    PostgresDialect::default()
}

/// A session of the dialect, the way the host sets one up.
fn session(db: &LiveDb) -> Client {
    db.session_at(&dialect(), IsolationLevel::ReadCommitted, LIMITS)
}

/// Creates and fills the case's tables.
fn set_up(client: &mut Client, rendered: &RenderedCase) {
    for sql in set_up_sql(rendered) {
        run_ok(client, sql);
    }
}

fn read_state(client: &mut Client, rendered: &RenderedCase) -> Vec<(String, Rows)> {
    replay::read_state(rendered, |sql| run_ok(client, sql))
}

/// Values are the same, floats bit for bit (so -0.0 differs from 0.0 and NaN
/// equals NaN).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => {
            x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan()
        }
        _ => a == b,
    }
}

fn assert_rows(got: &[Vec<Value>], expected: &[Vec<Value>], what: &str) {
    let equal = got.len() == expected.len()
        && got
            .iter()
            .zip(expected)
            .all(|(g, e)| g.len() == e.len() && g.iter().zip(e).all(|(x, y)| same(x, y)));
    assert!(equal, "{what}:\n got {got:?}\n expected {expected:?}");
}

#[test]
fn values_round_trip() {
    let Some(db) = live_db("values") else { return };
    let text = |s: &str| Value::Text(s.into());
    let dec = |s: &str| Value::Decimal(s.into());
    // Each row: what is inserted, and the decimal as NUMERIC(30,10) prints it.
    let rows: Vec<(Vec<Value>, &str)> = vec![
        (
            vec![
                Value::Int(1),
                Value::Int(i64::MIN),
                Value::Float(0.1),
                dec("12.5"),
                text("it's \"quoted\" \\ back\\slash \\' \\x41"),
                text("a"),
                Value::Bool(true),
            ],
            "12.5000000000",
        ),
        (
            vec![
                Value::Int(2),
                Value::Int(i64::MAX),
                Value::Float(1e300),
                dec("-3"),
                text(""),
                text("b"),
                Value::Bool(false),
            ],
            "-3.0000000000",
        ),
        (
            vec![
                Value::Int(3),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
            ],
            "",
        ),
        (
            vec![
                Value::Int(4),
                Value::Int(0),
                Value::Float(-0.0),
                dec("0.0000000001"),
                text("ünïcödé -- /* */ $$ E'x' \n\t"),
                text("c"),
                Value::Bool(true),
            ],
            "0.0000000001",
        ),
        (
            vec![
                Value::Int(5),
                Value::Int(-1),
                Value::Float(5e-324),
                dec("12345678901234567890.1234567891"),
                text("'"),
                text("''"),
                Value::Bool(false),
            ],
            "12345678901234567890.1234567891",
        ),
        (
            vec![
                Value::Int(6),
                Value::Int(1),
                Value::Float(f64::MAX),
                dec("+7."),
                text("\\"),
                text("d"),
                Value::Bool(true),
            ],
            "7.0000000000",
        ),
        (
            vec![
                Value::Int(7),
                Value::Int(2),
                Value::Float(f64::NAN),
                dec(".25"),
                text("nan"),
                text("e"),
                Value::Bool(false),
            ],
            "0.2500000000",
        ),
        (
            vec![
                Value::Int(8),
                Value::Int(3),
                Value::Float(f64::NEG_INFINITY),
                dec("-0.5"),
                text("-inf"),
                text("f"),
                Value::Bool(true),
            ],
            "-0.5000000000",
        ),
    ];
    let stored: Vec<Vec<Value>> = rows
        .iter()
        .map(|(row, printed)| {
            row.iter()
                .map(|v| match v {
                    Value::Decimal(_) => dec(printed),
                    other => other.clone(),
                })
                .collect()
        })
        .collect();
    let numeric = ColumnType::Decimal {
        precision: 30,
        scale: 10,
    };
    let case = values_case(numeric, rows.iter().map(|(r, _)| r.clone()).collect());
    let t = &case.schema.tables[0];
    let rendered = dialect().render_case(&case, &LIMITS).unwrap();
    let mut client = session(&db);
    set_up(&mut client, &rendered);
    let state = read_state(&mut client, &rendered);
    assert_eq!(state.len(), 1);
    assert_rows(&state[0].1, &stored, "read_state");
    assert_eq!(rendered.read_state[0].columns, t.column_names());

    // The same values as literals in predicates find exactly their own rows.
    for (row, expected) in case.initial_rows[0].rows.iter().zip(&stored) {
        let found = run_ok(&mut client, &render_ok(&case.schema, &select_row(t, row)));
        assert_rows(&found, std::slice::from_ref(expected), &format!("{row:?}"));
    }

    // Clear and drop leave nothing behind.
    for sql in &rendered.clear {
        run_ok(&mut client, sql);
    }
    assert!(read_state(&mut client, &rendered)[0].1.is_empty());
    for sql in &rendered.drop {
        run_ok(&mut client, sql);
    }
    let tables = first_text(
        &mut client,
        "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace",
    );
    assert_eq!(tables, "0", "tables or indexes were left behind");
}

/// Literals that are not column values: bytes and text in a projection.
#[test]
fn projected_literals_come_back_unchanged() {
    let Some(db) = live_db("projection") else {
        return;
    };
    let t = table("one", vec![col("id", ColumnType::Int)], &["id"]);
    let schema = Schema {
        tables: vec![t.clone()],
    };
    let mut client = session(&db);
    let fill = insert("one", &["id"], vec![vec![Value::Int(1)]], OnConflict::Error);
    create_and_run(&mut client, &schema, &[fill]);
    let literals = vec![
        Value::Bytes(vec![0x00, 0xab, 0xff, b'\\', b'\'']),
        Value::Bytes(vec![]),
        Value::Text("a\\b\\\\c'd".into()),
        Value::Bool(false),
        Value::Int(i64::MIN),
        Value::Decimal("-12.340".into()),
        Value::Float(f64::INFINITY),
    ];
    let statement = Statement::Select(Select {
        table: "one".into(),
        projection: Projection::Exprs(literals.iter().cloned().map(Expr::lit).collect()),
        filter: None,
        order_by: vec![],
        lock: RowLock::None,
    });
    let got = run_ok(&mut client, &render_ok(&schema, &statement));
    assert_rows(&got, &[literals], "projection");
}

/// Every finite double survives rendering and PostgreSQL's parser bit for bit, and
/// its literal finds its row.
#[test]
fn floats_round_trip_exactly() {
    let Some(db) = live_db("floats") else { return };
    // Signed zeros, too: -0.0 must not come back as 0.0.
    let mut samples = finite_doubles();
    samples.push(-0.0);
    let (schema, fill) = doubles_table(ColumnType::Int, &samples);
    let mut client = session(&db);
    create_and_run(&mut client, &schema, &[fill]);
    let back = run_ok(
        &mut client,
        &render_ok(&schema, &select("floats", None, vec![c("id")])),
    );
    assert_eq!(back.len(), samples.len());
    for (row, &f) in back.iter().zip(&samples) {
        match row[1] {
            Value::Float(g) => assert_eq!(g.to_bits(), f.to_bits(), "{f:?} came back as {g:?}"),
            ref other => panic!("{f:?} came back as {other:?}"),
        }
    }
    for (i, &f) in samples.iter().enumerate() {
        let filter = bin(
            BinaryOp::And,
            bin(BinaryOp::Eq, c("id"), int(i as i64)),
            bin(BinaryOp::Eq, c("f"), float(f)),
        );
        let found = run_ok(
            &mut client,
            &render_ok(&schema, &select("floats", Some(filter), vec![])),
        );
        assert_eq!(found.len(), 1, "the literal of {f:?} does not find its row");
    }
}

#[test]
fn statements_change_rows_as_rendered() {
    let Some(db) = live_db("statements") else {
        return;
    };
    let t = statement_effects::table(ColumnType::Text);
    let statements = vec![
        Statement::Begin,
        update_rows_1_and_2(),
        // Row 1 collides on the key and row 7 on `k`: both are skipped; row 6 goes in.
        insert_rows(
            vec![
                row(1, 99, "ignored", 9.0),
                row(6, 60, "it's", 6.0),
                row(7, 20, "ignored", 7.0),
            ],
            OnConflict::Ignore,
        ),
        insert_rows(vec![row(8, 80, "eight", -8.0)], OnConflict::Error),
        delete_rows_3_and_4(),
        locking_select("t", Some(eq(c("id"), int(1))), RowLock::ForUpdate),
        locking_select("t", Some(eq(c("id"), int(2))), RowLock::ForShare),
        select_with_constant_sort_key(3.5, 2),
        Statement::Commit,
    ];
    let case = statement_effects::case(&t, IsolationLevel::ReadCommitted, statements);
    let rendered = dialect().render_case(&case, &LIMITS).unwrap();
    let mut client = session(&db);
    set_up(&mut client, &rendered);
    let sql = &rendered.transactions[0].statements;
    run_ok(&mut client, &sql[0]);
    let changed: Vec<u64> = sql[1..5]
        .iter()
        .map(|s| execute_ok(&mut client, s))
        .collect();
    assert_eq!(changed, [2, 1, 1, 2]);
    assert_eq!(run_ok(&mut client, &sql[5]), vec![row(1, 10, "new", 2.0)]);
    assert_eq!(run_ok(&mut client, &sql[6]), vec![row(2, 20, "new", 4.0)]);
    assert_eq!(
        run_ok(&mut client, &sql[7]),
        vec![
            vec![Value::Int(6), Value::Int(61)],
            vec![Value::Int(2), Value::Int(21)],
        ]
    );
    run_ok(&mut client, &sql[8]);
    assert_eq!(
        read_state(&mut client, &rendered),
        vec![(
            "t".to_string(),
            vec![
                row(1, 10, "new", 2.0),
                row(2, 20, "new", 4.0),
                row(6, 60, "it's", 6.0),
                row(8, 80, "eight", -8.0),
            ]
        )]
    );
}

#[test]
fn rollback_undoes_the_transaction() {
    let Some(db) = live_db("rollback") else {
        return;
    };
    let case = rollback_case(IsolationLevel::ReadCommitted);
    let rendered = dialect().render_case(&case, &LIMITS).unwrap();
    let mut client = session(&db);
    set_up(&mut client, &rendered);
    for s in &rendered.transactions[0].statements {
        run_ok(&mut client, s);
    }
    assert_eq!(
        read_state(&mut client, &rendered)[0].1,
        vec![vec![Value::Int(1)]]
    );
}

/// A literal of a column's own type compares with it; arithmetic keeps the
/// literal's type; a literal of another type is an error the IR asked for.
#[test]
fn literals_compare_with_columns_of_their_type() {
    let Some(db) = live_db("typed") else { return };
    // id, i BIGINT, f, d NUMERIC(10,2), t TEXT, v VARCHAR, b.
    let row = vec![
        Value::Int(5),
        Value::Int(5_000_000_000),
        Value::Float(2.5),
        Value::Decimal("1.50".into()),
        Value::Text("t".into()),
        Value::Text("v".into()),
        Value::Bool(true),
    ];
    let case = values_case(DECIMAL, vec![row.clone()]);
    let (schema, t) = (&case.schema, &case.schema.tables[0]);
    let mut client = session(&db);
    let rendered = dialect().render_case(&case, &LIMITS).unwrap();
    set_up(&mut client, &rendered);
    for (column, v) in t.columns.iter().zip(&row) {
        for op in [BinaryOp::Eq, BinaryOp::LtEq, BinaryOp::GtEq] {
            let filter = bin(op, c(&column.name), Expr::lit(v.clone()));
            let found = run_ok(
                &mut client,
                &render_ok(schema, &select("vals", Some(filter), vec![])),
            );
            assert_eq!(found.len(), 1, "{} {op:?} {v:?}", column.name);
        }
    }
    // Double and NUMERIC literals keep their arithmetic.
    let product = |factor: Value| {
        Statement::Select(Select {
            table: "vals".into(),
            projection: Projection::Exprs(vec![bin(BinaryOp::Mul, c("id"), Expr::lit(factor))]),
            filter: None,
            order_by: vec![],
            lock: RowLock::None,
        })
    };
    assert_eq!(
        run_ok(&mut client, &render_ok(schema, &product(Value::Float(0.1)))),
        vec![vec![Value::Float(5.0 * 0.1)]]
    );
    assert_eq!(
        run_ok(
            &mut client,
            &render_ok(schema, &product(Value::Decimal("0.1".into())))
        ),
        vec![vec![Value::Decimal("0.5".into())]]
    );
    // BOOLEAN = integer is rendered as written and fails in PostgreSQL.
    let e = classify_failure(
        &mut client,
        &render_ok(
            schema,
            &select("vals", Some(bin(BinaryOp::Eq, c("b"), int(1))), vec![]),
        ),
    );
    assert_eq!(e.class, ErrorClass::Syntax, "{e}");
    assert_eq!(e.sqlstate.as_deref(), Some("42883"), "{e}");
}

/// `x IN ()` is false and `x NOT IN ()` true, also for NULL.
#[test]
fn empty_in_lists_follow_set_semantics() {
    let Some(db) = live_db("empty_in") else {
        return;
    };
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Text)],
        &["id"],
    );
    let schema = Schema {
        tables: vec![t.clone()],
    };
    let mut client = session(&db);
    let fill = insert(
        "t",
        &["id", "v"],
        vec![
            vec![Value::Int(1), Value::Text("a".into())],
            vec![Value::Int(2), Value::Null],
        ],
        OnConflict::Error,
    );
    create_and_run(&mut client, &schema, &[fill]);
    let count = |client: &mut Client, negated: bool| {
        run_ok(
            client,
            &render_ok(
                &schema,
                &select("t", Some(in_list(c("v"), vec![], negated)), vec![]),
            ),
        )
        .len()
    };
    assert_eq!(count(&mut client, false), 0);
    assert_eq!(count(&mut client, true), 2);
}

/// Constant sort keys sort nothing instead of naming a column or failing.
#[test]
fn constant_sort_keys_sort_nothing() {
    let Some(db) = live_db("sort_keys") else {
        return;
    };
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Int)],
        &["id"],
    );
    let schema = Schema {
        tables: vec![t.clone()],
    };
    let mut client = session(&db);
    let fill = insert(
        "t",
        &["id", "v"],
        vec![
            vec![Value::Int(1), Value::Int(20)],
            vec![Value::Int(2), Value::Int(10)],
        ],
        OnConflict::Error,
    );
    create_and_run(&mut client, &schema, &[fill]);
    let sorted = run_ok(
        &mut client,
        &render_ok(
            &schema,
            &select(
                "t",
                None,
                vec![
                    int(2),
                    neg(int(1)),
                    text("x"),
                    Expr::lit(Value::Bool(true)),
                    Expr::lit(Value::Null),
                    float(0.5),
                    Expr::lit(Value::Decimal("3".into())),
                    c("v"),
                ],
            ),
        ),
    );
    assert_eq!(
        sorted,
        vec![
            vec![Value::Int(2), Value::Int(10)],
            vec![Value::Int(1), Value::Int(20)],
        ]
    );
}

/// A PRIMARY KEY column refuses NULL, as in standard SQL.
#[test]
fn primary_keys_refuse_null() {
    let Some(db) = live_db("null_key") else {
        return;
    };
    let mut client = session(&db);
    for (i, ty) in [ColumnType::Int, ColumnType::BigInt, ColumnType::Text]
        .into_iter()
        .enumerate()
    {
        let name = format!("t{i}");
        let t = table(
            &name,
            vec![col("id", ty), col("v", ColumnType::Int)],
            &["id"],
        );
        let schema = Schema {
            tables: vec![t.clone()],
        };
        create_and_run(&mut client, &schema, &[]);
        let sql = render_ok(
            &schema,
            &insert(
                &name,
                &["id", "v"],
                vec![vec![Value::Null, Value::Int(1)]],
                OnConflict::Error,
            ),
        );
        let e = classify_failure(&mut client, &sql);
        assert_eq!(e.class, ErrorClass::Constraint, "{ty:?}: {e}");
        assert_eq!(e.sqlstate.as_deref(), Some("23502"), "{ty:?}: {e}");
    }
}

/// Names up to PostgreSQL's 63-byte limit work as written.
#[test]
fn the_longest_names_work() {
    let Some(db) = live_db("long_names") else {
        return;
    };
    let table_name = format!("t{}", "é".repeat(31));
    let column_name = format!("\"{}", "c".repeat(62));
    assert_eq!(table_name.len(), 63);
    assert_eq!(column_name.len(), 63);
    let t = table(
        &table_name,
        vec![col(&column_name, ColumnType::Int)],
        &[&column_name],
    );
    let schema = Schema {
        tables: vec![t.clone()],
    };
    let mut client = session(&db);
    let fill = insert(
        &table_name,
        &[&column_name],
        vec![vec![Value::Int(1)]],
        OnConflict::Error,
    );
    create_and_run(&mut client, &schema, &[fill]);
    let got = run_ok(
        &mut client,
        &render_ok(
            &schema,
            &select(
                &table_name,
                Some(bin(BinaryOp::Eq, c(&column_name), int(1))),
                vec![],
            ),
        ),
    );
    assert_eq!(got, vec![vec![Value::Int(1)]]);
}

#[test]
fn a_large_population_fits_one_insert() {
    let Some(db) = live_db("large") else { return };
    let case = large_population_case();
    let rows = &case.initial_rows[0].rows;
    let rendered = dialect().render_case(&case, &LIMITS).unwrap();
    assert_eq!(rendered.populate.len(), 1);
    let mut client = session(&db);
    set_up(&mut client, &rendered);
    assert_eq!(&read_state(&mut client, &rendered)[0].1, rows);
}

/// The set-up runs and its checks hold at every level, and a transaction begun
/// with the rendered BEGIN, or an autocommit statement, runs at that level.
#[test]
fn session_setup_takes_effect_at_every_level() {
    let Some(db) = live_db("setup") else { return };
    let with_deadlock_timeout = PostgresDialect::new(txlab_postgres::PostgresConfig {
        deadlock_timeout_ms: Some(250),
    })
    .unwrap();
    let schema = Schema::default();
    for d in [dialect(), with_deadlock_timeout] {
        for level in d.info().levels.iter().map(|l| l.level) {
            let mut client = db.session_at(&d, level, LIMITS);
            let name = level.sql().to_lowercase();
            assert_eq!(first_text(&mut client, "SHOW transaction_isolation"), name);
            run_ok(
                &mut client,
                &render_at(&d, &schema, level, &Statement::Begin).unwrap(),
            );
            assert_eq!(first_text(&mut client, "SHOW transaction_isolation"), name);
            run_ok(&mut client, "COMMIT");
            assert_eq!(first_text(&mut client, "SHOW statement_timeout"), "5s");
            assert_eq!(first_text(&mut client, "SHOW lock_timeout"), "8s");
            assert_eq!(
                first_text(&mut client, "SHOW standard_conforming_strings"),
                "on"
            );
            assert_eq!(first_text(&mut client, "SHOW TimeZone"), "UTC");
        }
    }
}

/// PostgreSQL runs every query form of IR 1.1 as rendered.
#[test]
fn query_forms_run() {
    let Some(db) = live_db("query_forms") else {
        return;
    };
    let schema = txlab_testkit::render_samples::every_type_schema('"');
    let mut statements = txlab_testkit::render_samples::query_forms_fill('"');
    statements.extend(
        txlab_testkit::render_samples::query_forms('"')
            .into_iter()
            .map(|(_, s)| s),
    );
    let mut client = session(&db);
    create_and_run(&mut client, &schema, &statements);
}
