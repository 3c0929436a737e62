//! Whole sample cases that more than one dialect suite renders or runs.

use crate::build::*;
use txlab_plugin_api::prelude::*;

/// A case of two transactions, at `first` and `second`, on `t (id, v)`: the
/// first updates a row and commits, the second reads and deletes and rolls
/// back, their statements interleaved.
pub fn two_transaction_case(first: IsolationLevel, second: IsolationLevel) -> TestCase {
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Text)],
        &["id"],
    );
    TestCase {
        seed: 7,
        generator: "hand-written".into(),
        initial_rows: vec![rows_of(
            &t,
            vec![
                vec![Value::Int(1), Value::Text("a".into())],
                vec![Value::Int(2), Value::Null],
            ],
        )],
        schema: Schema { tables: vec![t] },
        transactions: vec![
            explicit(
                first,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", text("b"))], Some(eq(c("id"), int(1)))),
                    Statement::Commit,
                ],
            ),
            explicit(
                second,
                vec![
                    Statement::Begin,
                    select("t", Some(is_null(c("v"), false)), vec![]),
                    delete("t", Some(bin(BinaryOp::Gt, c("id"), int(1)))),
                    Statement::Rollback,
                ],
            ),
        ],
        submitted_order: vec![
            StatementRef::new(0, 0),
            StatementRef::new(1, 0),
            StatementRef::new(0, 1),
            StatementRef::new(1, 1),
            StatementRef::new(1, 2),
            StatementRef::new(0, 2),
            StatementRef::new(1, 3),
        ],
        intent: None,
        pace_ms: None,
    }
}

/// `t (id)` holding 1, and one transaction at `level` that deletes every row
/// and rolls back: afterwards the row must still be there.
pub fn rollback_case(level: IsolationLevel) -> TestCase {
    let t = table("t", vec![col("id", ColumnType::Int)], &["id"]);
    case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1)]])],
        vec![explicit(
            level,
            vec![Statement::Begin, delete("t", None), Statement::Rollback],
        )],
    )
}

/// `t (id, v TEXT)` with 5000 initial rows and no transactions: more rows than a
/// dialect may split its population into several INSERTs for.
pub fn large_population_case() -> TestCase {
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Text)],
        &["id"],
    );
    let rows = (0..5000)
        .map(|i| vec![Value::Int(i), Value::Text(format!("row {i}"))])
        .collect();
    case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, rows)],
        vec![],
    )
}
