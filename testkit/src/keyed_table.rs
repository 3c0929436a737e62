//! `t (id INT PRIMARY KEY, k INT UNIQUE, v NOT NULL)`, the table the error
//! classification tests break every constraint of, and the statements they run
//! on it.

use crate::build::*;
use txlab_plugin_api::prelude::*;

/// The schema of `t`, its `v` column of type `v`.
pub fn schema(v: ColumnType) -> Schema {
    let mut t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("k", ColumnType::Int),
            not_null("v", v),
        ],
        &["id"],
    );
    t.unique = vec![strings(&["k"])];
    Schema { tables: vec![t] }
}

/// The INSERT of the rows every test starts from: (1, 10, 'a') and (2, 20, 'b').
pub fn fill() -> Statement {
    insert(
        "t",
        &["id", "k", "v"],
        vec![
            vec![Value::Int(1), Value::Int(10), Value::Text("a".into())],
            vec![Value::Int(2), Value::Int(20), Value::Text("b".into())],
        ],
        OnConflict::Error,
    )
}

/// An INSERT of one row, of any values, to provoke each constraint.
pub fn insert_row(id: Value, k: Value, v: Value) -> Statement {
    insert(
        "t",
        &["id", "k", "v"],
        vec![vec![id, k, v]],
        OnConflict::Error,
    )
}

/// `UPDATE t SET v = 'v' WHERE id = id`: a write to one row, for lock conflicts.
/// It fits any table `t` with columns `id` and `v`.
pub fn set_v(id: i64, v: &str) -> Statement {
    update("t", vec![("v", text(v))], Some(eq(c("id"), int(id))))
}
