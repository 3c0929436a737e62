//! Values that must survive rendering, the server's parser and the driver
//! unchanged: the ones a quoting, escaping or formatting mistake would alter.

use crate::build::{c, case_of, col, eq, insert, is_null, rows_of, select, strings, table};
use txlab_plugin_api::prelude::*;

/// Text that an escaping mistake would change: quotes, backslashes, NUL, comment
/// markers, LIKE wildcards and non-ASCII characters. PostgreSQL text cannot hold
/// NUL, so its tests bring their own.
pub const AWKWARD_TEXTS: [&str; 7] = [
    "it's \"quoted\"",
    "back\\slash \\' \\\\",
    "nul\0inside",
    "-- /* */ # ;",
    "100% _x_ ünïcödé 😀",
    "'",
    "''",
];

/// DECIMAL(10,2), a type the decimals of [`value_rows`] fit.
pub const DECIMAL: ColumnType = ColumnType::Decimal {
    precision: 10,
    scale: 2,
};

/// `vals`: a column of every type, keys and an index, with the DECIMAL column of
/// the given type. Columns: id, i, f, d, t, v (unique) and b.
pub fn values_table(decimal: ColumnType) -> Table {
    let mut t = table(
        "vals",
        vec![
            col("id", ColumnType::Int),
            col("i", ColumnType::BigInt),
            col("f", ColumnType::Double),
            col("d", decimal),
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

/// A case that only loads `rows` into [`values_table`] with `decimal` as the
/// DECIMAL type.
pub fn values_case(decimal: ColumnType, rows: Vec<Vec<Value>>) -> TestCase {
    let t = values_table(decimal);
    case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, rows)],
        vec![],
    )
}

/// `row` as a server without a BOOLEAN type returns it: booleans as the integers
/// 1 and 0, decimals as `decimal` turns their text into, the rest unchanged.
pub fn stored_without_booleans(row: &[Value], decimal: impl Fn(&str) -> Value) -> Vec<Value> {
    row.iter()
        .map(|v| match v {
            Value::Decimal(d) => decimal(d),
            Value::Bool(b) => Value::Int(i64::from(*b)),
            other => other.clone(),
        })
        .collect()
}

/// Rows of [`values_table`]: the integer extremes, floats, decimals in the
/// spellings the IR allows, a row of NULLs, and one row per [`AWKWARD_TEXTS`]
/// entry. The decimals fit [`DECIMAL`].
pub fn value_rows() -> Vec<Vec<Value>> {
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
            // A unique text column must keep case apart: 'C' does not collide with 'c'.
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
    rows
}

/// 3000 finite, non-zero doubles: the edge cases of the format, then a fixed
/// pseudo-random walk over bit patterns that covers every exponent. The same on
/// every call.
pub fn finite_doubles() -> Vec<f64> {
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
    samples
}

/// `t (id, "true" INT, flag BOOL)`, a column named like the literal TRUE, and the
/// INSERT of (1, 0, TRUE) and (2, 1, FALSE): a filter on `flag = TRUE` must find
/// row 1, not compare with the column.
pub fn true_named_column() -> (Schema, Statement) {
    let t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("true", ColumnType::Int),
            col("flag", ColumnType::Bool),
        ],
        &["id"],
    );
    let rows = vec![
        vec![Value::Int(1), Value::Int(0), Value::Bool(true)],
        vec![Value::Int(2), Value::Int(1), Value::Bool(false)],
    ];
    let fill = insert("t", &["id", "true", "flag"], rows, OnConflict::Error);
    (Schema { tables: vec![t] }, fill)
}

/// A SELECT of the rows of `table` equal to `row` in every column, NULL matching
/// NULL: the values as literals must find the row they were stored in.
pub fn select_row(table: &Table, row: &[Value]) -> Statement {
    let filter = table
        .columns
        .iter()
        .zip(row)
        .map(|(column, v)| match v {
            Value::Null => is_null(c(&column.name), false),
            v => eq(c(&column.name), Expr::lit(v.clone())),
        })
        .reduce(Expr::and)
        .expect("a table has columns");
    select(&table.name, Some(filter), vec![])
}

/// `floats (id, f DOUBLE)`, its key of type `id`, and the INSERT of the rows
/// `(i, samples[i])`.
pub fn doubles_table(id: ColumnType, samples: &[f64]) -> (Schema, Statement) {
    let t = table(
        "floats",
        vec![col("id", id), col("f", ColumnType::Double)],
        &["id"],
    );
    let rows = samples
        .iter()
        .enumerate()
        .map(|(i, &f)| vec![Value::Int(i as i64), Value::Float(f)])
        .collect();
    let fill = insert("floats", &["id", "f"], rows, OnConflict::Error);
    (Schema { tables: vec![t] }, fill)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_rows_fit_the_values_table() {
        let t = values_table(DECIMAL);
        let rows = value_rows();
        let unique_v: std::collections::BTreeSet<String> = rows
            .iter()
            .filter_map(|r| match &r[5] {
                Value::Text(v) => Some(v.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(unique_v.len(), rows.len() - 1, "one row of NULLs");
        assert!(rows.iter().all(|r| r.len() == t.columns.len()));
        crate::build::case_of(
            Schema {
                tables: vec![t.clone()],
            },
            vec![crate::build::rows_of(&t, rows)],
            vec![],
        );
    }

    #[test]
    fn finite_doubles_are_fixed_finite_and_non_zero() {
        let samples = finite_doubles();
        assert_eq!(samples.len(), 3000);
        assert!(samples.iter().all(|f| f.is_finite() && *f != 0.0));
        assert_eq!(
            samples.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            finite_doubles()
                .iter()
                .map(|f| f.to_bits())
                .collect::<Vec<_>>()
        );
    }
}
