//! Reading scripts in each format, and the errors that name their line.

use txlab_plugin_api::ir::*;
use txlab_script::{import, Family, Format, ImportOptions};

fn data(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn options(family: Family) -> ImportOptions {
    ImportOptions {
        family,
        ..ImportOptions::default()
    }
}

fn error(file: &str, text: &str) -> String {
    import(file, text, &options(Family::Generic))
        .map(|i| format!("imported: {:?}", i.case))
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn a_postgres_isolation_spec_imports_in_the_testers_first_order() {
    let imported = import(
        "simple-write-skew.spec",
        &data("simple-write-skew.spec"),
        &options(Family::Postgres),
    )
    .unwrap();
    assert_eq!(imported.format, Format::Spec);
    let case = imported.case;
    let table = case.schema.table("test").unwrap();
    assert_eq!(table.primary_key, ["i"]);
    assert_eq!(table.column("t").unwrap().ty, ColumnType::Text);
    assert_eq!(case.initial_rows[0].rows.len(), 3);
    assert_eq!(
        case.initial_rows[0].rows[0],
        [Value::Int(5), Value::Text("apple".into())]
    );
    assert_eq!(case.transactions.len(), 2);
    for t in &case.transactions {
        assert_eq!(t.isolation, IsolationLevel::Serializable);
        assert_eq!(t.statements.len(), 3);
        assert_eq!(t.statements[0], Statement::Begin);
        assert!(matches!(t.statements[1], Statement::Update(_)));
    }
    // No permutation: the first interleaving runs s1's steps, then s2's;
    // each session's set-up (BEGIN) comes first.
    let order: Vec<String> = case.submitted_order.iter().map(|s| s.to_string()).collect();
    assert_eq!(order, ["T1.1", "T2.1", "T1.2", "T1.3", "T2.2", "T2.3"]);
    let second = import(
        "x.spec",
        &data("simple-write-skew.spec"),
        &ImportOptions {
            permutation: Some(2),
            ..options(Family::Postgres)
        },
    )
    .unwrap();
    let order: Vec<String> = second
        .case
        .submitted_order
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(order, ["T1.1", "T2.1", "T1.2", "T2.2", "T1.3", "T2.3"]);
}

#[test]
fn a_marked_script_imports_with_autocommit_and_the_default_level() {
    let imported = import(
        "lost-update.sql",
        &data("lost-update.sql"),
        &ImportOptions {
            default_level: Some(IsolationLevel::RepeatableRead),
            ..options(Family::Mysql)
        },
    )
    .unwrap();
    assert_eq!(imported.format, Format::Marked);
    let case = imported.case;
    // T2's last SELECT runs after its COMMIT: a transaction of its own.
    assert_eq!(case.transactions.len(), 3);
    assert_eq!(case.transactions[2].kind, TxnKind::Autocommit);
    assert!(case
        .transactions
        .iter()
        .all(|t| t.isolation == IsolationLevel::RepeatableRead));
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("states no isolation level; using repeatable-read")),
        "{:?}",
        imported.notes
    );
    let Statement::Update(u) = &case.transactions[0].statements[2] else {
        panic!("{:?}", case.transactions[0]);
    };
    assert_eq!(u.assignments[0].column, "bal");
    let order: Vec<String> = case.submitted_order.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        order,
        ["T1.1", "T2.1", "T1.2", "T2.2", "T1.3", "T1.4", "T2.3", "T2.4", "T3.1"]
    );
}

#[test]
fn levels_come_from_begin_then_set_then_the_header() {
    let text = "-- isolation: T1 read-committed, T2 serializable\nCREATE TABLE t (a INT);\n/* T1 */ BEGIN;\n/* T2 */ SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;\n/* T2 */ START TRANSACTION;\n/* T3 */ BEGIN ISOLATION LEVEL REPEATABLE READ;\n/* T1 */ COMMIT;\n/* T2 */ SELECT * FROM t LOCK IN SHARE MODE;\n/* T2 */ COMMIT;\n/* T3 */ ROLLBACK;\n";
    let case = import("x.sql", text, &options(Family::Mysql)).unwrap().case;
    let levels: Vec<IsolationLevel> = case.transactions.iter().map(|t| t.isolation).collect();
    assert_eq!(
        levels,
        [
            IsolationLevel::ReadCommitted,
            IsolationLevel::ReadUncommitted,
            IsolationLevel::RepeatableRead
        ]
    );
    assert!(case.transactions[1].statements[1].is_locking_read());
}

#[test]
fn errors_name_the_file_the_line_and_the_session() {
    let setup = "CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 2);\n";
    for (script, expected) in [
        (
            format!("{setup}-- T1: BEGIN;\n-- T2: BEGIN;\n-- T2: SAVEPOINT a;\n-- T1: COMMIT;\n"),
            "case.sql:5: T2: SAVEPOINT is not supported by txlab's case format",
        ),
        (
            format!("{setup}-- T1: BEGIN;\n-- T1: UPDATE nope SET v = 1;\n-- T1: COMMIT;\n"),
            "case.sql:4: T1: unknown table `nope`",
        ),
        (
            format!("{setup}-- T1: BEGIN;\n-- T1: SELECT w FROM t;\n-- T1: COMMIT;\n"),
            "case.sql:4: T1: unknown column `w` in `t`",
        ),
        (
            format!("{setup}-- T1: BEGIN;\n-- T1: UPDATE t SET w = 1;\n-- T1: COMMIT;\n"),
            "case.sql:4: T1: unknown column `w` in table `t`",
        ),
        (
            format!("{setup}BEGIN;\nUPDATE t SET v = 1;\nCOMMIT;\n"),
            "case.sql:3: `BEGIN` has no session marker",
        ),
        (
            format!("{setup}-- T1: BEGIN;\nUPDATE t SET v = 1;\n-- T1: COMMIT;\n"),
            "case.sql:4: statement without a session marker after the session statements began",
        ),
        (
            format!("{setup}-- T1: BEGIN;\n-- T1: UPDATE t SET v = 1;\n"),
            "case.sql:3: T1: the transaction begun here never ends",
        ),
        (
            format!("{setup}-- T1: COMMIT;\n"),
            "case.sql:3: T1: COMMIT outside a transaction",
        ),
        (setup.to_string(), "case.sql: no session statements"),
        (
            format!(
                "{setup}-- T1: BEGIN;\n-- T1: SELECT v FROM t WHERE v ~ 'x';\n-- T1: COMMIT;\n"
            ),
            "case.sql:4: T1: the operator",
        ),
    ] {
        let got = error("case.sql", &script);
        assert!(
            got.starts_with(expected),
            "expected `{expected}…`, got `{got}`"
        );
    }
}

#[test]
fn a_malformed_spec_names_its_line() {
    let good = data("simple-write-skew.spec");
    for (spec, expected) in [
        (
            good.replace("step c1 { COMMIT; }", "step c1 { COMMIT; "),
            "x.spec:",
        ),
        (
            format!("{good}\npermutation rwx1 c1 nosuch c2\n"),
            "x.spec:35: permutation 1 names step `nosuch`, which no session has",
        ),
        (
            good.replace("session s2", "sesion s2"),
            "x.spec:30: unexpected `sesion`",
        ),
        (
            good.replace("step rwx1 {", "step rwx1 ")
                .replace("WHERE t = 'pear'; }", "WHERE t = 'pear';"),
            "x.spec:",
        ),
    ] {
        let got = import("x.spec", &spec, &options(Family::Postgres))
            .map(|_| "imported".to_string())
            .unwrap_or_else(|e| e.to_string());
        assert!(
            got.starts_with(expected),
            "expected `{expected}…`, got `{got}`"
        );
        assert_ne!(got, "imported");
    }
    let unclosed = good.replace("step c1 { COMMIT; }", "step c1 { COMMIT; ");
    let got = import("x.spec", &unclosed, &options(Family::Postgres)).unwrap_err();
    assert!(got.line > 0, "{got}");
}

#[test]
fn a_spec_with_permutations_takes_the_one_asked_for() {
    let spec = data("insert-conflict-do-nothing.spec");
    let case = |n| {
        import(
            "insert-conflict-do-nothing.spec",
            &spec,
            &ImportOptions {
                permutation: n,
                ..options(Family::Postgres)
            },
        )
        .map(|i| i.case)
    };
    let first = case(None).unwrap();
    assert!(first.initial_rows.is_empty());
    let Statement::Insert(insert) = &first.transactions[0].statements[1] else {
        panic!("{:?}", first.transactions[0]);
    };
    assert_eq!(insert.on_conflict, OnConflict::Ignore);
    assert_eq!(
        insert.rows[0][1],
        Expr::Literal(Value::Text("donothing1".into()))
    );
    let ends = |c: &TestCase| -> Vec<Statement> {
        c.transactions
            .iter()
            .map(|t| t.statements.last().unwrap().clone())
            .collect()
    };
    assert_eq!(ends(&first), [Statement::Commit, Statement::Commit]);
    let order: Vec<String> = first
        .submitted_order
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        order,
        ["T1.1", "T2.1", "T1.2", "T2.2", "T1.3", "T2.3", "T2.4"]
    );
    // The second aborts s1 (PostgreSQL's ABORT is ROLLBACK).
    assert_eq!(
        ends(&case(Some(2)).unwrap()),
        [Statement::Rollback, Statement::Commit]
    );
    let third = case(Some(3)).unwrap_err().to_string();
    assert_eq!(
        third,
        "insert-conflict-do-nothing.spec: the spec has 2 permutations; there is no permutation 3"
    );
}

#[test]
fn tables_keys_indexes_and_typed_rows() {
    let text = "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(16) UNIQUE, price DECIMAL(10,2), \
                ratio DOUBLE PRECISION, ok BOOLEAN, note TEXT, PRIMARY KEY (id), UNIQUE (price, ratio));\n\
                CREATE UNIQUE INDEX by_note ON t (ok, note);\n\
                INSERT INTO t VALUES (1, 'a', 2.50, 0.5, TRUE, NULL), (-2, 'b', 3, 1, FALSE, 'x');\n\
                -- T1: UPDATE t SET price = 7, ratio = 2 WHERE id IN (1, -2);\n";
    let case = import("ddl.sql", text, &options(Family::Postgres))
        .unwrap()
        .case;
    let t = case.schema.table("t").unwrap();
    assert_eq!(t.primary_key, ["id"]);
    assert_eq!(
        t.unique,
        [
            vec!["name".to_string()],
            vec!["price".into(), "ratio".into()]
        ]
    );
    assert_eq!(t.indexes[0].name, "by_note");
    assert!(t.indexes[0].unique);
    let types: Vec<ColumnType> = t.columns.iter().map(|c| c.ty).collect();
    assert_eq!(
        types,
        [
            ColumnType::BigInt,
            ColumnType::Varchar { len: 16 },
            ColumnType::Decimal {
                precision: 10,
                scale: 2
            },
            ColumnType::Double,
            ColumnType::Bool,
            ColumnType::Text
        ]
    );
    assert!(t.columns[0].not_null && !t.columns[1].not_null);
    assert_eq!(
        case.initial_rows[0].rows[1],
        [
            Value::Int(-2),
            Value::Text("b".into()),
            Value::Decimal("3".into()),
            Value::Float(1.0),
            Value::Bool(false),
            Value::Text("x".into())
        ]
    );
    // An autocommit UPDATE; its constants typed by the columns they meet.
    assert_eq!(case.transactions[0].kind, TxnKind::Autocommit);
    let Statement::Update(u) = &case.transactions[0].statements[0] else {
        panic!()
    };
    assert_eq!(
        u.assignments[0].value,
        Expr::Literal(Value::Decimal("7".into()))
    );
    assert_eq!(u.assignments[1].value, Expr::Literal(Value::Float(2.0)));
}

#[test]
fn the_pace_header_sets_the_cases_pace() {
    let script = "-- pace: 200 ms after each statement that blocked\nCREATE TABLE t (id INT PRIMARY KEY);\n-- T1: BEGIN;\n-- T1: COMMIT;\n";
    let imported = import("case.sql", script, &options(Family::Generic)).unwrap();
    assert_eq!(imported.case.pace_ms, Some(200));
    let without = script.replacen("-- pace: 200 ms after each statement that blocked\n", "", 1);
    let imported = import("case.sql", &without, &options(Family::Generic)).unwrap();
    assert_eq!(imported.case.pace_ms, None);
    let got = error("case.sql", &script.replacen("200 ms", "slowly", 1));
    assert!(
        got.starts_with("case.sql:1: `pace:` needs a number of milliseconds"),
        "{got}"
    );
}
