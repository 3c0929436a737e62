//! Rendered SQL run against the live MariaDB: the schema is created, values
//! round-trip, every statement kind does what the IR says, and the session set-up
//! runs at every level.

mod common;

use common::*;
use mysql::Conn;
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::cases::{large_population_case, rollback_case};
use txlab_testkit::dialect::LIMITS;
use txlab_testkit::replay::{self, set_up_sql, Rows};
use txlab_testkit::round_trip::{
    doubles_table, finite_doubles, select_row, stored_without_booleans, true_named_column,
    value_rows, values_case, DECIMAL,
};
use txlab_testkit::statement_effects::{
    self, delete_rows_3_and_4, insert_rows, row, select_with_constant_sort_key, update_rows_1_and_2,
};

/// Creates and fills the case's tables.
fn set_up(conn: &mut Conn, rendered: &RenderedCase) {
    for sql in set_up_sql(rendered) {
        run_ok(conn, sql);
    }
}

fn read_state(conn: &mut Conn, rendered: &RenderedCase) -> Vec<(String, Rows)> {
    replay::read_state(rendered, |sql| run_ok(conn, sql))
}

#[test]
fn values_round_trip() {
    let Some(db) = live_db("values") else { return };
    let rows = value_rows();
    // DECIMAL comes back at the column's scale, BOOLEAN as the integers 1 and 0.
    let stored = |row: &[Value]| {
        stored_without_booleans(row, |d| {
            let f: f64 = d.parse().unwrap();
            Value::Decimal(format!("{f:.2}"))
        })
    };
    let expected: Vec<Vec<Value>> = rows.iter().map(|r| stored(r)).collect();
    let case = values_case(DECIMAL, rows);
    let t = &case.schema.tables[0];
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
        let sql = render_ok(&dialect, schema, &select_row(t, row));
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
    let samples = finite_doubles();
    let (schema, fill) = doubles_table(ColumnType::BigInt, &samples);
    let dialect = mariadb(false);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    create_and_run(&mut conn, &dialect, &schema, &[fill]);
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
    let Some(db) = live_db("statements") else {
        return;
    };
    let t = statement_effects::table(ColumnType::Varchar { len: 16 });
    let level = IsolationLevel::RepeatableRead;
    let statements = vec![
        Statement::Begin,
        update_rows_1_and_2(),
        // Row 1 again with its current values: with CLIENT_FOUND_ROWS a matched
        // row counts although nothing changes.
        update("t", vec![("v", text("new"))], Some(eq(c("id"), int(1)))),
        // Collides with row 2 on `k`: REPLACE deletes row 2, then inserts.
        insert_rows(vec![row(5, 20, "replaced", 0.5)], OnConflict::Replace),
        // Row 1 collides on the key and is skipped; row 6 goes in.
        insert_rows(
            vec![row(1, 99, "ignored", 9.0), row(6, 60, "it's", 6.0)],
            OnConflict::Ignore,
        ),
        insert_rows(vec![row(7, 70, "seven", -7.0)], OnConflict::Error),
        delete_rows_3_and_4(),
        locking_select("t", Some(eq(c("id"), int(6))), RowLock::ForUpdate),
        locking_select("t", Some(eq(c("id"), int(7))), RowLock::ForShare),
        select_with_constant_sort_key(1.5, 5),
        Statement::Commit,
    ];
    let case = statement_effects::case(&t, level, statements);
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
    let rows = insert(
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
    );
    create_and_run(&mut conn, &dialect, &schema, &[rows]);
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
    let level = IsolationLevel::ReadCommitted;
    let case = rollback_case(level);
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
    let (schema, fill) = true_named_column();
    let dialect = mariadb(false);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    create_and_run(&mut conn, &dialect, &schema, &[fill]);
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
        create_and_run(&mut conn, &dialect, &schema, &[]);
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
    let case = large_population_case();
    let rows = &case.initial_rows[0].rows;
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

/// MariaDB runs every query form of IR 1.1 as rendered (the UPDATE that reads
/// its own table in a subquery too, which MySQL would refuse).
#[test]
fn query_forms_run() {
    let Some(db) = live_db("query_forms") else {
        return;
    };
    let mut schema = txlab_testkit::render_samples::every_type_schema('`');
    // MySQL keys no TEXT column: the unique index goes on two others.
    schema.tables[0].indexes[1] = Index {
        name: "accounts_code_big".into(),
        columns: strings(&["code", "big"]),
        unique: true,
    };
    let mut statements = txlab_testkit::render_samples::query_forms_fill('`');
    statements.extend(
        txlab_testkit::render_samples::query_forms('`')
            .into_iter()
            .map(|(_, s)| s),
    );
    let dialect = mariadb(false);
    let mut conn = db.session(&dialect, IsolationLevel::RepeatableRead);
    create_and_run(&mut conn, &dialect, &schema, &statements);
}
