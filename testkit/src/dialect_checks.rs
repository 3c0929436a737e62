//! Assertions every dialect suite makes, with the dialect as a parameter, so that
//! a rule the dialects share is checked the same way for each of them.
//!
//! The schema-dependent checks expect the `accounts` table of
//! [`every_type_schema`](crate::render_samples::every_type_schema).

use crate::build::*;
use crate::dialect::{render_at, session_setup, LIMITS};
use txlab_loader::DialectHandle;
use txlab_plugin_api::prelude::*;

/// Statements without a projection, rows or assignments, and tables with a
/// missing key column, an empty unique key or no columns, are invalid input.
pub fn assert_malformed_ir_refused(dialect: &dyn Dialect, schema: &Schema, level: IsolationLevel) {
    let empty_projection = Statement::Select(Select {
        table: "accounts".into(),
        projection: Projection::Exprs(vec![]),
        filter: None,
        order_by: vec![],
        lock: RowLock::None,
    });
    let no_rows = insert("accounts", &["id"], vec![], OnConflict::Error);
    let no_assignment = update("accounts", vec![], None);
    for s in [empty_projection, no_rows, no_assignment] {
        assert_eq!(
            render_at(dialect, schema, level, &s).unwrap_err().kind,
            ErrorKind::INVALID_INPUT,
            "{s:?}"
        );
    }
    let mut bad_key = table("t", vec![col("a", ColumnType::Int)], &["b"]);
    assert_eq!(
        dialect.create_table(&bad_key).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    bad_key.primary_key.clear();
    bad_key.unique = vec![vec![]];
    assert_eq!(
        dialect.create_table(&bad_key).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    let no_columns = table("t", vec![], &[]);
    assert_eq!(
        dialect.create_table(&no_columns).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
}

/// Non-finite floats have no literal (unsupported), and decimals that are not
/// plain decimal numbers are invalid input.
pub fn assert_unrenderable_literals_refused(
    dialect: &dyn Dialect,
    schema: &Schema,
    level: IsolationLevel,
) {
    for (v, kind) in [
        (Value::Float(f64::NAN), ErrorKind::UNSUPPORTED),
        (Value::Float(f64::INFINITY), ErrorKind::UNSUPPORTED),
        (Value::Float(f64::NEG_INFINITY), ErrorKind::UNSUPPORTED),
        (Value::Decimal("1e5".into()), ErrorKind::INVALID_INPUT),
        (
            Value::Decimal("1; DROP TABLE accounts".into()),
            ErrorKind::INVALID_INPUT,
        ),
    ] {
        let s = delete("accounts", Some(eq(c("ratio"), Expr::lit(v.clone()))));
        assert_eq!(
            render_at(dialect, schema, level, &s).unwrap_err().kind,
            kind,
            "{v:?}"
        );
    }
}

/// A bare column the table lacks is refused, also as a value to insert, since the
/// DBMS could read it as something else; a table outside the schema is left to
/// the DBMS to report, and its DELETE renders as `elsewhere_sql`.
pub fn assert_unknown_bare_columns_refused(
    dialect: &dyn Dialect,
    schema: &Schema,
    level: IsolationLevel,
    elsewhere_sql: &str,
) {
    let s = delete("accounts", Some(eq(c("nope"), int(1))));
    let e = render_at(dialect, schema, level, &s).unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
    assert!(e.message.contains("nope"), "{e}");
    let s = Statement::Insert(Insert {
        table: "accounts".into(),
        columns: strings(&["id"]),
        rows: vec![vec![c("id")]],
        on_conflict: OnConflict::Error,
    });
    assert_eq!(
        render_at(dialect, schema, level, &s).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    let s = delete("elsewhere", Some(eq(c("x"), int(1))));
    assert_eq!(
        render_at(dialect, schema, level, &s).unwrap(),
        elsewhere_sql
    );
}

/// Checks that BEGIN and the session set-up refuse every level the dialect's info
/// does not offer, naming the level, and that a BEGIN taking the snapshot at
/// once renders exactly at the levels the features list; returns what BEGIN
/// and the set-up give at the offered levels, in the order of
/// [`IsolationLevel::ALL`].
pub fn offered_levels(
    dialect: &dyn Dialect,
    schema: &Schema,
) -> Vec<(IsolationLevel, String, SessionSetup)> {
    let info = dialect.info();
    let mut offered = Vec::new();
    for level in IsolationLevel::ALL {
        let begin = render_at(dialect, schema, level, &Statement::BeginSnapshot);
        assert_eq!(
            begin.is_ok(),
            info.features.snapshot_begin_levels.contains(&level),
            "{} {level}: BEGIN WITH CONSISTENT SNAPSHOT gave {begin:?}",
            info.name
        );
        let begin = render_at(dialect, schema, level, &Statement::Begin);
        let setup = session_setup(dialect, level, LIMITS);
        if info.supports(level) {
            let label = format!("{} {level}", info.name);
            offered.push((
                level,
                begin.unwrap_or_else(|e| panic!("{label}: {e}")),
                setup.unwrap_or_else(|e| panic!("{label}: {e}")),
            ));
        } else {
            for e in [begin.unwrap_err(), setup.unwrap_err()] {
                assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{} {level}", info.name);
                assert!(e.message.contains(level.name()), "{e}");
            }
        }
    }
    offered
}

/// Every column type the dialect declares can be created.
pub fn assert_declared_column_types_render(dialect: &dyn Dialect) {
    for &ty in &dialect.info().features.column_types {
        let t = table("t", vec![col("c", ty)], &[]);
        dialect
            .create_table(&t)
            .unwrap_or_else(|e| panic!("{} {ty:?}: {e}", dialect.info().name));
    }
}

/// The plugin behind `handle` renders `case` and describes itself as `dialect`
/// does when called directly: the ABI loses nothing.
pub fn assert_handle_matches(handle: &DialectHandle, dialect: &dyn Dialect, case: &TestCase) {
    assert_eq!(
        handle.render_case(case, &LIMITS).unwrap(),
        dialect.render_case(case, &LIMITS).unwrap()
    );
    assert_eq!(handle.info().unwrap(), dialect.info());
}
