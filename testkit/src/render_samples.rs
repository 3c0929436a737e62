//! The sample IR the dialect suites render for their snapshots: one schema and a
//! set of statements every dialect renders, so that the snapshots of different
//! dialects can be read side by side.

use crate::build::*;
use txlab_plugin_api::prelude::*;

/// `accounts`, a table with every column type, keys and indexes, and a second
/// table whose table, column and index names hold an apostrophe and the
/// dialect's identifier quote `quote`.
pub fn every_type_schema(quote: char) -> Schema {
    let mut accounts = table(
        "accounts",
        vec![
            col("id", ColumnType::Int),
            not_null("big", ColumnType::BigInt),
            col("ratio", ColumnType::Double),
            col(
                "amount",
                ColumnType::Decimal {
                    precision: 10,
                    scale: 2,
                },
            ),
            col("code", ColumnType::Varchar { len: 8 }),
            col("note", ColumnType::Text),
            not_null("flag", ColumnType::Bool),
        ],
        &["id"],
    );
    accounts.unique = vec![strings(&["code"]), strings(&["big", "flag"])];
    accounts.indexes = vec![
        Index {
            name: "accounts_ratio".into(),
            columns: strings(&["ratio", "amount"]),
            unique: false,
        },
        Index {
            name: "accounts_note".into(),
            columns: strings(&["note"]),
            unique: true,
        },
    ];
    let key = format!("a {quote}b{quote}");
    let mut odd = table(
        &odd_table_name(quote),
        vec![
            col(&key, ColumnType::Int),
            col("line", ColumnType::Int),
            col("qty", ColumnType::BigInt),
        ],
        &[&key, "line"],
    );
    odd.indexes = vec![Index {
        name: format!("odd {quote}idx{quote}"),
        columns: strings(&["qty"]),
        unique: false,
    }];
    Schema {
        tables: vec![accounts, odd],
    }
}

fn odd_table_name(quote: char) -> String {
    format!("it's {quote}odd{quote}")
}

/// A SELECT of `accounts` whose filter nests AND, OR, NOT, IS NULL, IN and NOT
/// BETWEEN, ordered by two columns.
pub fn select_with_nested_predicate() -> Statement {
    use BinaryOp::*;
    select(
        "accounts",
        Some(bin(
            Or,
            bin(
                And,
                bin(Gt, c("id"), int(1)),
                not(is_null(c("ratio"), false)),
            ),
            bin(
                And,
                in_list(c("code"), vec![text("a"), text("it's")], false),
                between(c("big"), int(-5), neg(int(-5)), true),
            ),
        )),
        vec![c("id"), c("big")],
    )
}

/// A SELECT of `accounts` projecting a column, arithmetic, casts (of `amount`
/// to DOUBLE, then `more_casts`), a negation and a table-qualified column,
/// filtered by IS NOT NULL, an empty IN list and a NOT IN list of `not_in`, in
/// `order_by` order.
pub fn select_expressions(
    more_casts: Vec<Expr>,
    not_in: Vec<Expr>,
    order_by: Vec<Expr>,
) -> Statement {
    use BinaryOp::*;
    let mut projection = vec![
        c("id"),
        bin(Mul, bin(Add, c("big"), int(1)), int(-2)),
        cast(c("amount"), ColumnType::Double),
    ];
    projection.extend(more_casts);
    projection.push(neg(c("ratio")));
    projection.push(Expr::Column(ColumnRef {
        table: Some("accounts".into()),
        column: "note".into(),
    }));
    Statement::Select(Select {
        table: "accounts".into(),
        projection: Projection::Exprs(projection),
        filter: Some(bin(
            And,
            is_null(c("note"), true),
            bin(
                Or,
                in_list(c("id"), vec![], false),
                in_list(c("id"), not_in, true),
            ),
        )),
        order_by,
        lock: RowLock::None,
    })
}

/// An INSERT into every column of `accounts`: a row of the largest and awkward
/// values, `note` among them, and a row of the other extremes with NULL and
/// bytes; then `more_rows`.
pub fn insert_every_literal(note: &str, more_rows: Vec<Vec<Value>>) -> Statement {
    let mut rows = vec![
        vec![
            Value::Int(1),
            Value::Int(i64::MIN),
            Value::Float(0.1),
            Value::Decimal("-12.50".into()),
            Value::Text("it's".into()),
            Value::Text(note.into()),
            Value::Bool(true),
        ],
        vec![
            Value::Int(2),
            Value::Int(i64::MAX),
            Value::Float(1e300),
            Value::Decimal("3".into()),
            Value::Null,
            Value::Bytes(vec![0x00, 0xab, 0xff]),
            Value::Bool(false),
        ],
    ];
    rows.extend(more_rows);
    insert(
        "accounts",
        &["id", "big", "ratio", "amount", "code", "note", "flag"],
        rows,
        OnConflict::Error,
    )
}

/// An INSERT of account 1 with only its NOT NULL columns, resolving a conflict
/// with `on_conflict`.
pub fn insert_account(on_conflict: OnConflict, flag: bool) -> Statement {
    insert(
        "accounts",
        &["id", "big", "flag"],
        vec![vec![Value::Int(1), Value::Int(7), Value::Bool(flag)]],
        on_conflict,
    )
}

/// An UPDATE of two columns of `accounts`, with arithmetic in an assignment and
/// a filter of NOT, OR and comparisons.
pub fn update_with_compound_filter() -> Statement {
    use BinaryOp::*;
    update(
        "accounts",
        vec![
            ("ratio", bin(Mul, c("ratio"), float(2.0))),
            ("note", text("n")),
        ],
        Some(bin(
            And,
            not(bin(
                Or,
                bin(Eq, c("code"), text("x")),
                bin(NotEq, c("big"), int(0)),
            )),
            bin(LtEq, bin(Sub, c("big"), int(-1)), int(10)),
        )),
    )
}

/// An UPDATE that appends to a text column, as IsoRel's instrumentation keeps
/// a row's list of writers: `note = note || ',T7'`.
pub fn update_appending_text() -> Statement {
    update(
        "accounts",
        vec![("note", Expr::Concat(vec![c("note"), text(",T7")]))],
        Some(eq(c("id"), int(1))),
    )
}

/// A DELETE from `accounts` with an OR of an integer and a float comparison.
pub fn delete_with_filter() -> Statement {
    use BinaryOp::*;
    delete(
        "accounts",
        Some(bin(
            Or,
            bin(Lt, c("id"), int(3)),
            bin(GtEq, c("ratio"), float(-2.5)),
        )),
    )
}

/// An UPDATE of the table of [`every_type_schema`] whose names need quoting.
pub fn update_with_quoted_names(quote: char) -> Statement {
    update(
        &odd_table_name(quote),
        vec![("qty", bin(BinaryOp::Add, c("qty"), int(1)))],
        Some(eq(c(&format!("a {quote}b{quote}")), int(1))),
    )
}
