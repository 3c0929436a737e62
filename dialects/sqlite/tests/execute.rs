//! Rendered SQL run against real SQLite: the schema is created, values round-trip,
//! and every statement kind does what the IR says.

mod common;

use common::*;
use rusqlite::Connection;
use txlab_plugin_api::prelude::*;
use txlab_sqlite::SqliteDialect;
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
fn set_up(conn: &Connection, rendered: &RenderedCase) {
    for sql in set_up_sql(rendered) {
        run_ok(conn, sql);
    }
}

fn read_state(conn: &Connection, rendered: &RenderedCase) -> Vec<(String, Rows)> {
    replay::read_state(rendered, |sql| run_ok(conn, sql))
}

#[test]
fn values_round_trip() {
    let rows = value_rows();
    // SQLite keeps NUMERIC values as INTEGER when they are whole and as REAL
    // otherwise, and BOOLEAN as the integers 1 and 0.
    let stored = |row: &[Value]| {
        stored_without_booleans(row, |d| {
            let f: f64 = d.parse().unwrap();
            if f.fract() == 0.0 {
                Value::Int(f as i64)
            } else {
                Value::Float(f)
            }
        })
    };
    let expected: Vec<Vec<Value>> = rows.iter().map(|r| stored(r)).collect();
    let case = values_case(DECIMAL, rows);
    let t = &case.schema.tables[0];
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
        let found = run_ok(&conn, &render_ok(schema, &select_row(t, row)));
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
    let samples = finite_doubles();
    let (schema, fill) = doubles_table(ColumnType::Int, &samples);
    let db = TempDb::new("floats");
    let conn = db.connect();
    create_and_run(&conn, &schema, &[fill]);
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
    let t = statement_effects::table(ColumnType::Text);
    let statements = vec![
        Statement::Begin,
        update_rows_1_and_2(),
        // Collides with row 2 on `k`: REPLACE deletes row 2, then inserts.
        insert_rows(vec![row(5, 20, "replaced", 0.5)], OnConflict::Replace),
        // Row 1 collides on the key and is skipped; row 6 goes in.
        insert_rows(
            vec![row(1, 99, "ignored", 9.0), row(6, 60, "it's", 6.0)],
            OnConflict::Ignore,
        ),
        insert_rows(vec![row(7, 70, "seven", -7.0)], OnConflict::Error),
        delete_rows_3_and_4(),
        select_with_constant_sort_key(1.5, 5),
        Statement::Commit,
    ];
    let case = statement_effects::case(&t, IsolationLevel::Serializable, statements);
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
    let case = rollback_case(IsolationLevel::Serializable);
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
    let (schema, fill) = true_named_column();
    let db = TempDb::new("bools");
    let conn = db.connect();
    create_and_run(&conn, &schema, &[fill]);
    let filter = eq(c("flag"), Expr::lit(Value::Bool(true)));
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
        create_and_run(&conn, &schema, &[]);
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
    let case = large_population_case();
    let rows = &case.initial_rows[0].rows;
    let rendered = SqliteDialect.render_case(&case, &LIMITS).unwrap();
    assert_eq!(rendered.populate.len(), 1);
    let db = TempDb::new("large");
    let conn = db.connect();
    set_up(&conn, &rendered);
    assert_eq!(read_state(&conn, &rendered)[0].1.len(), rows.len());
}

/// SQLite reads every query form of IR 1.1 as rendered (on empty tables: the
/// point is that the text parses and resolves).
#[test]
fn query_forms_run() {
    let conn = Connection::open_in_memory().unwrap();
    let schema = txlab_testkit::render_samples::every_type_schema('"');
    let statements: Vec<Statement> = txlab_testkit::render_samples::query_forms('"')
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    create_and_run(&conn, &schema, &statements);
}
