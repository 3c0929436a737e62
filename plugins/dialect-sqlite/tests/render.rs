//! The SQL text the dialect renders, reviewed as snapshots, and the IR it refuses.

mod common;

use common::*;
use txlab_dialect_sqlite::SqliteDialect;
use txlab_plugin_api::host::DialectHandle;
use txlab_plugin_api::prelude::*;

/// A table with every column type, keys and indexes, and one whose names need quoting.
fn schema() -> Schema {
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
    let mut odd = table(
        "it's \"odd\"",
        vec![
            col("a \"b\"", ColumnType::Int),
            col("line", ColumnType::Int),
            col("qty", ColumnType::BigInt),
        ],
        &["a \"b\"", "line"],
    );
    odd.indexes = vec![Index {
        name: "odd \"idx\"".into(),
        columns: strings(&["qty"]),
        unique: false,
    }];
    Schema {
        tables: vec![accounts, odd],
    }
}

#[test]
fn schema_ddl() {
    let mut out = Vec::new();
    for t in &schema().tables {
        out.extend(SqliteDialect.create_table(t).unwrap());
        out.push(SqliteDialect.drop_table(t).unwrap());
    }
    insta::assert_snapshot!(out.join("\n"));
}

#[test]
fn statements() {
    use BinaryOp::*;
    let schema = schema();
    let statements = vec![
        ("begin", Statement::Begin),
        ("commit", Statement::Commit),
        ("rollback", Statement::Rollback),
        (
            "select with nested predicate",
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
            ),
        ),
        (
            "select expressions",
            Statement::Select(Select {
                table: "accounts".into(),
                projection: Projection::Exprs(vec![
                    c("id"),
                    bin(Mul, bin(Add, c("big"), int(1)), int(-2)),
                    Expr::Cast {
                        operand: Box::new(c("amount")),
                        to: ColumnType::Double,
                    },
                    neg(c("ratio")),
                    Expr::Column(ColumnRef {
                        table: Some("accounts".into()),
                        column: "note".into(),
                    }),
                ]),
                filter: Some(bin(
                    And,
                    is_null(c("note"), true),
                    bin(
                        Or,
                        in_list(c("id"), vec![], false),
                        in_list(c("id"), vec![int(1), int(2)], true),
                    ),
                )),
                order_by: vec![int(1), neg(int(2)), c("code")],
                lock: RowLock::None,
            }),
        ),
        (
            "insert every literal",
            insert(
                "accounts",
                &["id", "big", "ratio", "amount", "code", "note", "flag"],
                vec![
                    vec![
                        Value::Int(1),
                        Value::Int(i64::MIN),
                        Value::Float(0.1),
                        Value::Decimal("-12.50".into()),
                        Value::Text("it's".into()),
                        Value::Text("nul\0byte".into()),
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
                ],
                OnConflict::Error,
            ),
        ),
        (
            "insert or replace",
            insert(
                "accounts",
                &["id", "big", "flag"],
                vec![vec![Value::Int(1), Value::Int(7), Value::Bool(true)]],
                OnConflict::Replace,
            ),
        ),
        (
            "insert or ignore",
            insert(
                "accounts",
                &["id", "big", "flag"],
                vec![vec![Value::Int(1), Value::Int(7), Value::Bool(false)]],
                OnConflict::Ignore,
            ),
        ),
        (
            "update",
            update(
                "accounts",
                vec![
                    ("ratio", bin(Mul, c("ratio"), Expr::lit(Value::Float(2.0)))),
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
            ),
        ),
        (
            "delete with filter",
            delete(
                "accounts",
                Some(bin(
                    Or,
                    bin(Lt, c("id"), int(3)),
                    bin(GtEq, c("ratio"), Expr::lit(Value::Float(-2.5))),
                )),
            ),
        ),
        ("delete all", delete("accounts", None)),
        (
            "quoted names",
            update(
                "it's \"odd\"",
                vec![("qty", bin(Add, c("qty"), int(1)))],
                Some(bin(Eq, c("a \"b\""), int(1))),
            ),
        ),
    ];
    let rendered: Vec<String> = statements
        .iter()
        .map(|(label, s)| format!("{label}:\n  {}", render_ok(&schema, s)))
        .collect();
    insta::assert_snapshot!(rendered.join("\n"));
}

fn two_transaction_case() -> TestCase {
    let t = table(
        "t",
        vec![col("id", ColumnType::Int), col("v", ColumnType::Text)],
        &["id"],
    );
    TestCase {
        seed: 7,
        generator: "hand-written".into(),
        schema: Schema { tables: vec![t] },
        initial_rows: vec![TableRows {
            table: "t".into(),
            columns: strings(&["id", "v"]),
            rows: vec![
                vec![Value::Int(1), Value::Text("a".into())],
                vec![Value::Int(2), Value::Null],
            ],
        }],
        transactions: vec![
            Transaction {
                isolation: IsolationLevel::Serializable,
                kind: TxnKind::Explicit,
                statements: vec![
                    Statement::Begin,
                    update(
                        "t",
                        vec![("v", text("b"))],
                        Some(bin(BinaryOp::Eq, c("id"), int(1))),
                    ),
                    Statement::Commit,
                ],
            },
            Transaction {
                isolation: IsolationLevel::Serializable,
                kind: TxnKind::Explicit,
                statements: vec![
                    Statement::Begin,
                    select("t", Some(is_null(c("v"), false)), vec![]),
                    delete("t", Some(bin(BinaryOp::Gt, c("id"), int(1)))),
                    Statement::Rollback,
                ],
            },
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
    }
}

/// A readable form of a rendered case, one section per field.
fn describe(r: &RenderedCase) -> String {
    let mut out = String::new();
    let mut section = |name: &str, lines: &[String]| {
        out.push_str(name);
        out.push_str(":\n");
        for l in lines {
            out.push_str("  ");
            out.push_str(l);
            out.push('\n');
        }
    };
    section("create", &r.create);
    section("populate", &r.populate);
    section("clear", &r.clear);
    section("drop", &r.drop);
    for (i, t) in r.transactions.iter().enumerate() {
        section(
            &format!("{} session setup", txn_label(i)),
            &t.session.statements,
        );
        section(&format!("{} statements", txn_label(i)), &t.statements);
    }
    let reads: Vec<String> = r
        .read_state
        .iter()
        .map(|q| format!("{} {:?}: {}", q.table, q.columns, q.sql))
        .collect();
    section("read state", &reads);
    out
}

#[test]
fn render_case_of_two_transactions() {
    let case = two_transaction_case();
    case.validate().unwrap();
    insta::assert_snapshot!(describe(
        &SqliteDialect.render_case(&case, &LIMITS).unwrap()
    ));
}

#[test]
fn the_plugin_renders_the_same_through_its_abi() {
    let handle = DialectHandle::from_plugin::<SqliteDialect>("{}").unwrap();
    let case = two_transaction_case();
    assert_eq!(
        handle.render_case(&case, &LIMITS).unwrap(),
        SqliteDialect.render_case(&case, &LIMITS).unwrap()
    );
    assert_eq!(handle.info().unwrap(), SqliteDialect.info());
}

#[test]
fn the_config_has_no_options() {
    assert!(DialectHandle::from_plugin::<SqliteDialect>("").is_ok());
    let e = DialectHandle::from_plugin::<SqliteDialect>(r#"{"journal_mode":"wal"}"#)
        .err()
        .expect("an unknown option must be refused");
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    assert!(e.message.contains("journal_mode"), "{e}");
    // With no options, the default TOML is comments only.
    let default = <SqliteDialect as DialectPlugin>::DEFAULT_CONFIG;
    assert!(default.contains("no options"), "{default}");
    assert!(
        default.lines().all(|l| l.trim_start().starts_with('#')),
        "{default}"
    );
}

#[test]
fn info_declares_the_serializable_semantics() {
    let info = SqliteDialect.info();
    assert_eq!(
        (info.name.as_str(), info.driver.as_str()),
        ("sqlite", "sqlite")
    );
    assert_eq!(info.lock_probe, LockProbe::Driver);
    assert_eq!(info.levels.len(), 1);
    let level = info.level(IsolationLevel::Serializable).unwrap();
    assert_eq!(level.snapshot, SnapshotPoint::FirstRead);
    assert_eq!(level.write_reads, WriteReads::Snapshot);
    assert_eq!(level.write_conflict, WriteConflict::SingleWriter);
    assert!(level.writes_serialize_in_commit_order());
    for page in [
        "https://www.sqlite.org/isolation.html",
        "https://www.sqlite.org/wal.html",
        "https://www.sqlite.org/lang_transaction.html",
        "https://www.sqlite.org/rescode.html#busy_snapshot",
    ] {
        assert!(level.references.iter().any(|r| r == page), "{page}");
    }
    assert!(!level.notes.is_empty());
    let f = &info.features;
    assert!(!f.select_for_update && !f.select_for_share);
    assert!(f.replace && f.insert_ignore);
    // Every declared column type must render.
    for &ty in &f.column_types {
        let t = table("t", vec![col("c", ty)], &[]);
        SqliteDialect.create_table(&t).unwrap();
    }
}

#[test]
fn locking_reads_are_unsupported() {
    let schema = schema();
    for lock in [RowLock::ForUpdate, RowLock::ForShare] {
        let s = Statement::Select(Select {
            table: "accounts".into(),
            projection: Projection::All,
            filter: None,
            order_by: vec![],
            lock,
        });
        let e = render(&schema, &s).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{lock:?}");
        assert!(e.message.contains("FOR"), "{e}");
    }
}

#[test]
fn only_serializable_is_offered() {
    let schema = schema();
    for level in IsolationLevel::ALL {
        let ctx = RenderContext {
            schema: &schema,
            isolation: level,
        };
        let begin = SqliteDialect.render(&Statement::Begin, &ctx);
        let setup = SqliteDialect.session_setup(&SessionRequest {
            isolation: level,
            limits: LIMITS,
        });
        if level == IsolationLevel::Serializable {
            assert_eq!(begin.unwrap(), "BEGIN");
            assert_eq!(setup.unwrap(), SessionSetup::default());
        } else {
            for e in [begin.unwrap_err(), setup.unwrap_err()] {
                assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{level}");
                assert!(e.message.contains(level.name()), "{e}");
            }
        }
    }
}

#[test]
fn unrenderable_literals_are_errors() {
    let schema = schema();
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
        let s = delete(
            "accounts",
            Some(bin(BinaryOp::Eq, c("ratio"), Expr::lit(v.clone()))),
        );
        assert_eq!(render(&schema, &s).unwrap_err().kind, kind, "{v:?}");
    }
}

#[test]
fn unknown_bare_columns_are_refused() {
    let schema = schema();
    // SQLite would read "nope" as the string 'nope'.
    let s = delete("accounts", Some(bin(BinaryOp::Eq, c("nope"), int(1))));
    let e = render(&schema, &s).unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
    assert!(e.message.contains("nope"), "{e}");
    let s = Statement::Insert(Insert {
        table: "accounts".into(),
        columns: strings(&["id"]),
        rows: vec![vec![c("id")]],
        on_conflict: OnConflict::Error,
    });
    assert_eq!(
        render(&schema, &s).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    // A table outside the schema is left to SQLite, which reports it.
    let s = delete("elsewhere", Some(bin(BinaryOp::Eq, c("x"), int(1))));
    assert_eq!(
        render_ok(&schema, &s),
        r#"DELETE FROM "elsewhere" WHERE ("x" = 1)"#
    );
}

#[test]
fn malformed_ir_is_invalid_input() {
    let schema = schema();
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
            render(&schema, &s).unwrap_err().kind,
            ErrorKind::INVALID_INPUT,
            "{s:?}"
        );
    }
    let mut bad_key = table("t", vec![col("a", ColumnType::Int)], &["b"]);
    assert_eq!(
        SqliteDialect.create_table(&bad_key).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    bad_key.primary_key.clear();
    bad_key.unique = vec![vec![]];
    assert_eq!(
        SqliteDialect.create_table(&bad_key).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    let no_columns = table("t", vec![], &[]);
    assert_eq!(
        SqliteDialect.create_table(&no_columns).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
}
