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

/// The forms IR 1.1 added for queries, over [`every_type_schema`]'s tables
/// (`quote` as there), labelled; every dialect renders them for its
/// snapshots. The last UPDATE reads its own table in a subquery, which MySQL
/// and TiDB refuse.
pub fn query_forms(quote: char) -> Vec<(&'static str, Statement)> {
    use AggregateFunc::*;
    use BinaryOp::*;
    let odd = odd_table_name(quote);
    let key = format!("a {quote}b{quote}");
    let mut grouped = query(
        "accounts",
        Some("a"),
        vec![
            qc("a", "code"),
            count_star(),
            agg(Sum, qc("o", "qty")),
            agg(Min, qc("b", "ratio")),
            agg(Max, qc("a", "id")),
            agg(Count, qc("b", "note")),
        ],
        Some(bin(And, qc("a", "flag"), bin(Gt, qc("o", "qty"), int(0)))),
    );
    grouped.joins = vec![
        join(
            JoinKind::Inner,
            &odd,
            Some("o"),
            eq(qc("a", "id"), qc("o", "line")),
        ),
        join(
            JoinKind::Left,
            "accounts",
            Some("b"),
            eq(qc("b", "big"), qc("o", "qty")),
        ),
    ];
    grouped.group_by = vec![qc("a", "code")];
    grouped.order_by = vec![qc("a", "code")];
    let mut plain_join = query(&odd, None, vec![qc(&odd, "line"), qc("a", "note")], None);
    plain_join.joins = vec![join(
        JoinKind::Left,
        "accounts",
        Some("a"),
        eq(qc("a", "id"), qc(&odd, &key)),
    )];
    plain_join.order_by = vec![qc(&odd, "line"), qc("a", "note")];
    let correlated = query(
        &odd,
        Some("o"),
        vec![qc("o", "line")],
        Some(eq(qc("o", "line"), qc("accounts", "id"))),
    );
    vec![
        ("query over three tables, grouped", query_statement(grouped)),
        ("query over a left join", query_statement(plain_join)),
        (
            "select with subqueries",
            Statement::Select(Select {
                table: "accounts".into(),
                projection: Projection::Exprs(vec![
                    c("id"),
                    scalar(query(&odd, None, vec![count_star()], None)),
                ]),
                filter: Some(in_query(
                    c("id"),
                    query(
                        &odd,
                        Some("o"),
                        vec![qc("o", "line")],
                        Some(bin(Gt, c("qty"), int(0))),
                    ),
                    false,
                )),
                order_by: vec![c("id")],
                lock: RowLock::None,
            }),
        ),
        (
            "update from a scalar subquery, filtered by NOT IN",
            update(
                "accounts",
                vec![(
                    "big",
                    scalar(query(&odd, None, vec![agg(Max, c("qty"))], None)),
                )],
                Some(in_query(
                    c("id"),
                    query(&odd, None, vec![c("line")], None),
                    true,
                )),
            ),
        ),
        (
            "delete with a correlated NOT EXISTS",
            delete("accounts", Some(exists(correlated, true))),
        ),
        (
            "insert select",
            insert_select(
                &odd,
                &[&key, "line", "qty"],
                query(
                    "accounts",
                    Some("a"),
                    vec![qc("a", "id"), int(1), qc("a", "big")],
                    Some(qc("a", "flag")),
                ),
                OnConflict::Error,
            ),
        ),
        (
            "insert select of an aggregate",
            insert_select(
                "accounts",
                &["id", "big", "flag"],
                query(
                    &odd,
                    None,
                    vec![
                        agg(Max, c("line")),
                        agg(Sum, c("qty")),
                        Expr::lit(Value::Bool(true)),
                    ],
                    None,
                ),
                OnConflict::Ignore,
            ),
        ),
        (
            "update reading its own table in a subquery",
            update(
                "accounts",
                vec![("note", text("min"))],
                Some(eq(
                    c("id"),
                    scalar(query("accounts", None, vec![agg(Min, c("id"))], None)),
                )),
            ),
        ),
    ]
}

/// Rows to insert before [`query_forms`] when a suite runs them on a server:
/// account 1 and one row of the second table, so that every form finds rows
/// and none breaks a constraint (the aggregate INSERT … SELECT would insert a
/// NULL key into empty tables).
pub fn query_forms_fill(quote: char) -> Vec<Statement> {
    let key = format!("a {quote}b{quote}");
    vec![
        insert(
            "accounts",
            &["id", "big", "flag"],
            vec![vec![Value::Int(1), Value::Int(5), Value::Bool(true)]],
            OnConflict::Error,
        ),
        insert(
            &odd_table_name(quote),
            &[key.as_str(), "line", "qty"],
            vec![vec![Value::Int(2), Value::Int(2), Value::Int(7)]],
            OnConflict::Error,
        ),
    ]
}
