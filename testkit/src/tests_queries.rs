//! The interpreter on IR 1.1's queries: joins, aggregates with GROUP BY,
//! subqueries (correlated too), INSERT … SELECT.

use crate::build::*;
use crate::MemoryDb;
use txlab_plugin_api::prelude::*;
use AggregateFunc::*;
use BinaryOp::*;

fn v(i: i64) -> Value {
    Value::Int(i)
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

const NULL: Value = Value::Null;

/// t(id PK, v UNIQUE, w NOT NULL) = (1, 10, 'a'), (2, NULL, 'b');
/// u(k PK, tid, n) = (1, 1, 5), (2, 1, 7), (3, 2, NULL), (4, 9, 1).
fn db() -> (MemoryDb, u32) {
    let mut tt = table(
        "t",
        vec![
            not_null("id", ColumnType::Int),
            col("v", ColumnType::Int),
            not_null("w", ColumnType::Varchar { len: 4 }),
        ],
        &["id"],
    );
    tt.unique = vec![strings(&["v"])];
    let u = table(
        "u",
        vec![
            not_null("k", ColumnType::Int),
            col("tid", ColumnType::Int),
            col("n", ColumnType::Int),
        ],
        &["k"],
    );
    let rows = vec![
        rows_of(
            &tt,
            vec![vec![v(1), v(10), t("a")], vec![v(2), NULL, t("b")]],
        ),
        rows_of(
            &u,
            vec![
                vec![v(1), v(1), v(5)],
                vec![v(2), v(1), v(7)],
                vec![v(3), v(2), NULL],
                vec![v(4), v(9), v(1)],
            ],
        ),
    ];
    let schema = Schema {
        tables: vec![tt, u],
    };
    let mut db = MemoryDb::with_rows(&schema, &rows).unwrap();
    let session = db.open_session(IsolationLevel::Serializable).unwrap();
    (db, session)
}

fn rows(outcome: Outcome) -> Vec<Vec<Value>> {
    match outcome {
        Outcome::Rows { rows, .. } => rows,
        other => panic!("expected rows, got {other:?}"),
    }
}

fn run(db: &mut MemoryDb, s: u32, statement: Statement) -> Outcome {
    db.execute(s, &statement).unwrap()
}

fn error_class(outcome: &Outcome) -> ErrorClass {
    match outcome {
        Outcome::Error(e) => e.class,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn table_rows(db: &MemoryDb, name: &str) -> Vec<Vec<Value>> {
    let state = db.state();
    state
        .tables
        .iter()
        .find(|t| t.table == name)
        .unwrap()
        .rows
        .clone()
}

#[test]
fn aggregates_follow_sqls_null_rules() {
    let (mut db, s) = db();
    let all = || {
        vec![
            count_star(),
            agg(Count, c("v")),
            agg(Sum, c("v")),
            agg(Min, c("v")),
            agg(Max, c("w")),
        ]
    };
    let q = query("t", None, all(), None);
    assert_eq!(
        rows(run(&mut db, s, query_statement(q))),
        [[v(2), v(1), v(10), v(10), t("b")]]
    );
    // Over no rows: COUNT is 0, the others NULL, and there is still one row.
    let none = query("t", None, all(), Some(bin(Gt, c("id"), int(5))));
    assert_eq!(
        rows(run(&mut db, s, query_statement(none.clone()))),
        [[v(0), v(0), NULL, NULL, NULL]]
    );
    // With GROUP BY, no rows make no groups.
    let mut grouped = none;
    grouped.group_by = vec![c("w")];
    assert!(rows(run(&mut db, s, query_statement(grouped))).is_empty());
    // An aggregate outside a query's projection is refused.
    let bad = Statement::Delete(Delete {
        table: "t".into(),
        filter: Some(bin(Gt, count_star(), int(0))),
    });
    assert_eq!(error_class(&run(&mut db, s, bad)), ErrorClass::Syntax);
}

#[test]
fn group_by_groups_null_keys_together_and_orders() {
    let (mut db, s) = db();
    let mut q = query(
        "u",
        None,
        vec![c("tid"), count_star(), agg(Sum, c("n"))],
        None,
    );
    q.group_by = vec![c("tid")];
    q.order_by = vec![c("tid")];
    assert_eq!(
        rows(run(&mut db, s, query_statement(q))),
        [[v(1), v(2), v(12)], [v(2), v(1), NULL], [v(9), v(1), v(1)]]
    );
    let mut by_n = query("u", None, vec![c("n"), count_star()], None);
    by_n.group_by = vec![bin(Gt, c("n"), int(4))];
    by_n.projection = vec![bin(Gt, c("n"), int(4)), count_star()];
    by_n.order_by = vec![bin(Gt, c("n"), int(4))];
    assert_eq!(
        rows(run(&mut db, s, query_statement(by_n))),
        [
            [NULL, v(1)],
            [Value::Bool(false), v(1)],
            [Value::Bool(true), v(2)]
        ]
    );
}

#[test]
fn joins_are_nested_loops_and_left_joins_keep_unmatched_rows() {
    let (mut db, s) = db();
    let mut inner = query("t", None, vec![qc("t", "id"), qc("u", "k")], None);
    inner.joins = vec![join(
        JoinKind::Inner,
        "u",
        None,
        eq(qc("u", "tid"), qc("t", "id")),
    )];
    inner.order_by = vec![qc("u", "k")];
    assert_eq!(
        rows(run(&mut db, s, query_statement(inner))),
        [[v(1), v(1)], [v(1), v(2)], [v(2), v(3)]]
    );
    let mut left = query("u", Some("x"), vec![qc("x", "k"), qc("y", "w")], None);
    left.joins = vec![join(
        JoinKind::Left,
        "t",
        Some("y"),
        eq(qc("y", "id"), qc("x", "tid")),
    )];
    left.order_by = vec![qc("x", "k")];
    assert_eq!(
        rows(run(&mut db, s, query_statement(left.clone()))),
        [[v(1), t("a")], [v(2), t("a")], [v(3), t("b")], [v(4), NULL]]
    );
    // Three tables, the same one twice under two aliases, grouped.
    left.joins.push(join(
        JoinKind::Inner,
        "u",
        Some("z"),
        eq(qc("z", "tid"), qc("x", "tid")),
    ));
    left.projection = vec![qc("x", "k"), count_star(), agg(Max, qc("z", "n"))];
    left.group_by = vec![qc("x", "k")];
    assert_eq!(
        rows(run(&mut db, s, query_statement(left))),
        [
            [v(1), v(2), v(7)],
            [v(2), v(2), v(7)],
            [v(3), v(1), NULL],
            [v(4), v(1), v(1)]
        ]
    );
    // A bare column two joined tables have is ambiguous; an unknown alias fails.
    let mut ambiguous = query("u", Some("a"), vec![c("k")], None);
    ambiguous.joins = vec![join(JoinKind::Inner, "u", Some("b"), int(1))];
    let outcome = run(&mut db, s, query_statement(ambiguous));
    assert_eq!(error_class(&outcome), ErrorClass::Syntax);
    let unknown = query("u", Some("a"), vec![qc("u", "k")], None);
    assert_eq!(
        error_class(&run(&mut db, s, query_statement(unknown))),
        ErrorClass::Syntax
    );
}

#[test]
fn subqueries_see_the_outer_row_and_the_tables_before_the_statement() {
    let (mut db, s) = db();
    // Correlated scalar subquery in an assignment: the largest n of each t row's u rows.
    let largest = query(
        "u",
        None,
        vec![agg(Max, c("n"))],
        Some(eq(c("tid"), qc("t", "id"))),
    );
    run(&mut db, s, update("t", vec![("v", scalar(largest))], None));
    assert_eq!(
        table_rows(&db, "t"),
        [[v(1), v(7), t("a")], [v(2), NULL, t("b")]]
    );
    // EXISTS, correlated.
    let big = query(
        "u",
        None,
        vec![c("k")],
        Some(bin(
            And,
            eq(c("tid"), qc("t", "id")),
            bin(Gt, c("n"), int(6)),
        )),
    );
    let sel = Statement::Select(Select {
        table: "t".into(),
        projection: Projection::Exprs(vec![c("id")]),
        filter: Some(exists(big, false)),
        order_by: vec![],
        lock: RowLock::None,
    });
    assert_eq!(rows(run(&mut db, s, sel)), [[v(1)]]);
    // NOT IN over a list with NULL is never true.
    let with_null = query("u", None, vec![c("n")], None);
    let none = Statement::Select(Select {
        table: "t".into(),
        projection: Projection::Exprs(vec![c("id")]),
        filter: Some(in_query(c("id"), with_null, true)),
        order_by: vec![],
        lock: RowLock::None,
    });
    assert!(rows(run(&mut db, s, none)).is_empty());
    // A scalar subquery of more than one row is a data error.
    let many = query("u", None, vec![c("k")], None);
    let outcome = run(&mut db, s, update("t", vec![("v", scalar(many))], None));
    assert_eq!(error_class(&outcome), ErrorClass::Data);
    // DELETE … WHERE id NOT IN (SELECT tid … ): only t row 2 has no u row with n.
    let with_n = query("u", None, vec![c("tid")], Some(is_null(c("n"), true)));
    run(
        &mut db,
        s,
        delete("t", Some(in_query(c("id"), with_n, true))),
    );
    assert_eq!(table_rows(&db, "t"), [[v(1), v(7), t("a")]]);
    // A DELETE whose subquery reads its own table sees it as it was.
    let ids = query("t", None, vec![agg(Max, c("id"))], None);
    run(&mut db, s, delete("t", Some(eq(c("id"), scalar(ids)))));
    assert!(table_rows(&db, "t").is_empty());
}

#[test]
fn insert_select_inserts_the_querys_rows_or_nothing() {
    let (mut db, s) = db();
    let source = |offset: i64| {
        query(
            "u",
            None,
            vec![bin(Add, c("k"), int(offset)), c("n"), text("x")],
            Some(is_null(c("n"), true)),
        )
    };
    // Row k = 1 collides with t's id 1: the statement fails and changes nothing.
    let outcome = run(
        &mut db,
        s,
        insert_select("t", &["id", "v", "w"], source(0), OnConflict::Error),
    );
    assert_eq!(error_class(&outcome), ErrorClass::Constraint);
    assert_eq!(table_rows(&db, "t").len(), 2);
    // IGNORE skips only the colliding rows (ids 1 and 2): id 4 goes in.
    let outcome = run(
        &mut db,
        s,
        insert_select("t", &["id", "v", "w"], source(0), OnConflict::Ignore),
    );
    assert_eq!(outcome, Outcome::Affected { rows: 1 });
    let outcome = run(
        &mut db,
        s,
        insert_select("t", &["id", "v", "w"], source(10), OnConflict::Ignore),
    );
    // 11 and 12 fit; 14 collides on v = 1 with the row id 4 just inserted.
    assert_eq!(outcome, Outcome::Affected { rows: 2 });
    // An INSERT … SELECT of the target's own rows reads them before inserting.
    let copy = query(
        "t",
        None,
        vec![bin(Add, c("id"), int(100)), Expr::lit(Value::Null), c("w")],
        None,
    );
    let before = table_rows(&db, "t").len() as u64;
    let outcome = run(
        &mut db,
        s,
        insert_select("t", &["id", "v", "w"], copy, OnConflict::Error),
    );
    assert_eq!(outcome, Outcome::Affected { rows: before });
}

/// The sample query forms every dialect renders also run here, on one row
/// per table: none is refused as a statement the interpreter cannot read.
#[test]
fn the_render_samples_run() {
    let schema = crate::render_samples::every_type_schema('"');
    let accounts = &schema.tables[0];
    let odd = &schema.tables[1];
    let rows = vec![
        rows_of(
            accounts,
            vec![vec![
                v(1),
                v(5),
                Value::Float(0.5),
                Value::Decimal("1.00".into()),
                t("a"),
                t("n"),
                Value::Bool(true),
            ]],
        ),
        rows_of(odd, vec![vec![v(1), v(1), v(3)]]),
    ];
    for (label, statement) in crate::render_samples::query_forms('"') {
        let mut db = MemoryDb::with_rows(&schema, &rows).unwrap();
        let s = db.open_session(IsolationLevel::Serializable).unwrap();
        let outcome = db.execute(s, &statement).unwrap();
        if let Outcome::Error(e) = &outcome {
            assert_ne!(e.class, ErrorClass::Syntax, "{label}: {e}");
        }
    }
}
