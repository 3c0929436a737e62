//! `t (id PRIMARY KEY, k UNIQUE, v NOT NULL, f DOUBLE)` with four rows, and the
//! statements the dialect suites run on it to see each statement kind change
//! exactly the rows the IR says.

use crate::build::*;
use txlab_plugin_api::prelude::*;

/// The table, its `v` column of type `v`.
pub fn table(v: ColumnType) -> Table {
    let mut t = crate::build::table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("k", ColumnType::Int),
            not_null("v", v),
            col("f", ColumnType::Double),
        ],
        &["id"],
    );
    t.unique = vec![strings(&["k"])];
    t
}

/// A row of the table.
pub fn row(id: i64, k: i64, v: &str, f: f64) -> Vec<Value> {
    vec![
        Value::Int(id),
        Value::Int(k),
        Value::Text(v.into()),
        Value::Float(f),
    ]
}

/// A case of one transaction at `level` running `statements` on `table` filled
/// with rows 1 to 4: (n, 10n, "one"…"four", n).
pub fn case(table: &Table, level: IsolationLevel, statements: Vec<Statement>) -> TestCase {
    case_of(
        Schema {
            tables: vec![table.clone()],
        },
        vec![rows_of(
            table,
            vec![
                row(1, 10, "one", 1.0),
                row(2, 20, "two", 2.0),
                row(3, 30, "three", 3.0),
                row(4, 40, "four", 4.0),
            ],
        )],
        vec![explicit(level, statements)],
    )
}

/// Sets `v` to 'new' and doubles `f` in rows 1 and 2.
pub fn update_rows_1_and_2() -> Statement {
    use BinaryOp::*;
    update(
        "t",
        vec![("v", text("new")), ("f", bin(Mul, c("f"), float(2.0)))],
        Some(bin(
            And,
            in_list(c("id"), vec![int(1), int(2)], false),
            not(is_null(c("k"), false)),
        )),
    )
}

/// An INSERT of whole rows.
pub fn insert_rows(rows: Vec<Vec<Value>>, on_conflict: OnConflict) -> Statement {
    insert("t", &["id", "k", "v", "f"], rows, on_conflict)
}

/// Deletes rows 3 and 4 (`id BETWEEN 3 AND -(-4)`).
pub fn delete_rows_3_and_4() -> Statement {
    delete("t", Some(between(c("id"), int(3), neg(int(-4)), false)))
}

/// `SELECT id, k + 1` of the rows with `f` above `f_above` or `v` = 'it's', in
/// descending `id` order after an integer constant sort key, which must not be
/// taken for a column position.
pub fn select_with_constant_sort_key(f_above: f64, constant: i64) -> Statement {
    use BinaryOp::*;
    Statement::Select(Select {
        table: "t".into(),
        projection: Projection::Exprs(vec![c("id"), bin(Add, c("k"), int(1))]),
        filter: Some(bin(
            Or,
            bin(Gt, c("f"), float(f_above)),
            eq(c("v"), text("it's")),
        )),
        order_by: vec![int(constant), neg(c("id"))],
        lock: RowLock::None,
    })
}
