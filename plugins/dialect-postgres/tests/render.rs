//! The SQL text both entries render, reviewed as snapshots, and the IR they refuse.

mod common;

use common::*;
use txlab_dialect_postgres::{CockroachDialect, PostgresDialect};
use txlab_plugin_api::host::DialectHandle;
use txlab_plugin_api::prelude::*;

fn flavors() -> [(&'static str, Box<dyn Dialect>); 2] {
    [
        ("postgres", Box::new(PostgresDialect::default())),
        ("cockroachdb", Box::new(CockroachDialect)),
    ]
}

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
    for (name, dialect) in flavors() {
        let mut out = Vec::new();
        for t in &schema().tables {
            out.extend(dialect.create_table(t).unwrap());
            out.push(dialect.drop_table(t).unwrap());
        }
        insta::assert_snapshot!(format!("schema_ddl_{name}"), out.join("\n"));
    }
}

fn statements() -> Vec<(&'static str, Statement)> {
    use BinaryOp::*;
    vec![
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
                    Expr::Cast {
                        operand: Box::new(c("big")),
                        to: ColumnType::Int,
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
                // Constants: a position, an error and a folded minus if left bare.
                order_by: vec![
                    int(1),
                    neg(int(2)),
                    text("k"),
                    Expr::lit(Value::Bool(true)),
                    Expr::lit(Value::Null),
                    float(1.5),
                    c("code"),
                ],
                lock: RowLock::None,
            }),
        ),
        (
            "select for update",
            Statement::Select(Select {
                table: "accounts".into(),
                projection: Projection::All,
                filter: Some(bin(Eq, c("id"), int(1))),
                order_by: vec![c("id")],
                lock: RowLock::ForUpdate,
            }),
        ),
        (
            "select for share",
            locking_select(
                "accounts",
                Some(in_list(c("id"), vec![], true)),
                RowLock::ForShare,
            ),
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
                        Value::Text("back\\slash \\' $$ -- /*".into()),
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
                    vec![
                        Value::Int(3),
                        Value::Int(0),
                        Value::Float(-0.0),
                        Value::Decimal(".25".into()),
                        Value::Text(String::new()),
                        Value::Null,
                        Value::Bool(false),
                    ],
                    vec![
                        Value::Int(4),
                        Value::Int(-1),
                        Value::Float(f64::NAN),
                        Value::Decimal("+7.".into()),
                        Value::Text("ünï".into()),
                        Value::Null,
                        Value::Bool(true),
                    ],
                ],
                OnConflict::Error,
            ),
        ),
        (
            "insert ignore",
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
            ),
        ),
        (
            "delete with filter",
            delete(
                "accounts",
                Some(bin(
                    Or,
                    bin(Lt, c("id"), int(3)),
                    bin(GtEq, c("ratio"), float(-2.5)),
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
    ]
}

#[test]
fn statements_of_each_flavor() {
    let schema = schema();
    for (name, dialect) in flavors() {
        let rendered: Vec<String> = statements()
            .iter()
            .map(|(label, s)| {
                let sql = render_at(dialect.as_ref(), &schema, IsolationLevel::Serializable, s)
                    .unwrap_or_else(|e| panic!("{name} cannot render {label}: {e}"));
                format!("{label}:\n  {sql}")
            })
            .collect();
        insta::assert_snapshot!(format!("statements_{name}"), rendered.join("\n"));
    }
}

/// BEGIN names the level, in each DBMS's spelling.
#[test]
fn begin_names_every_offered_level() {
    let schema = schema();
    let mut out = Vec::new();
    for (name, dialect) in flavors() {
        for level in dialect.info().levels.iter().map(|l| l.level) {
            let sql = render_at(dialect.as_ref(), &schema, level, &Statement::Begin).unwrap();
            out.push(format!("{name} {level}: {sql}"));
        }
    }
    insta::assert_snapshot!(out.join("\n"));
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
                isolation: IsolationLevel::ReadCommitted,
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
        section(&format!("T{} session setup", i + 1), &t.session.statements);
        let checks: Vec<String> = t
            .session
            .checks
            .iter()
            .map(|c| format!("{} = {:?}", c.sql, c.expect))
            .collect();
        section(&format!("T{} session checks", i + 1), &checks);
        section(&format!("T{} statements", i + 1), &t.statements);
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
    for (name, dialect) in flavors() {
        insta::assert_snapshot!(
            format!("render_case_{name}"),
            describe(&dialect.render_case(&case, &LIMITS).unwrap())
        );
    }
}

/// Session set-up at every offered level, and with the postgres option.
#[test]
fn session_setup_per_level_and_option() {
    let with_deadlock_timeout =
        DialectHandle::from_plugin::<PostgresDialect>(r#"{"deadlock_timeout_ms": 150}"#).unwrap();
    let mut out = Vec::new();
    for (name, dialect) in flavors() {
        for level in dialect.info().levels.iter().map(|l| l.level) {
            let setup = dialect
                .session_setup(&SessionRequest {
                    isolation: level,
                    limits: LIMITS,
                })
                .unwrap();
            out.push(format!("{name} {level}:"));
            out.extend(setup.statements.iter().map(|s| format!("  {s}")));
            out.extend(
                setup
                    .checks
                    .iter()
                    .map(|c| format!("  check {} = {:?} else: {}", c.sql, c.expect, c.explain)),
            );
        }
    }
    let setup = with_deadlock_timeout
        .session_setup(&SessionRequest {
            isolation: IsolationLevel::RepeatableRead,
            limits: LIMITS,
        })
        .unwrap();
    out.push("postgres repeatable-read, deadlock_timeout_ms = 150:".to_string());
    out.extend(setup.statements.iter().map(|s| format!("  {s}")));
    out.extend(
        setup
            .checks
            .iter()
            .map(|c| format!("  check {} = {:?} else: {}", c.sql, c.expect, c.explain)),
    );
    insta::assert_snapshot!(out.join("\n"));
}

#[test]
fn the_plugin_renders_the_same_through_its_abi() {
    let case = two_transaction_case();
    let pg = DialectHandle::from_plugin::<PostgresDialect>("{}").unwrap();
    assert_eq!(
        pg.render_case(&case, &LIMITS).unwrap(),
        PostgresDialect::default()
            .render_case(&case, &LIMITS)
            .unwrap()
    );
    assert_eq!(pg.info().unwrap(), PostgresDialect::default().info());
    let crdb = DialectHandle::from_plugin::<CockroachDialect>("").unwrap();
    assert_eq!(
        crdb.render_case(&case, &LIMITS).unwrap(),
        CockroachDialect.render_case(&case, &LIMITS).unwrap()
    );
    assert_eq!(crdb.info().unwrap(), CockroachDialect.info());
}

#[test]
fn entry_names_match_the_info() {
    assert_eq!(
        PostgresDialect::default().info().name,
        <PostgresDialect as DialectPlugin>::NAME
    );
    assert_eq!(
        CockroachDialect.info().name,
        <CockroachDialect as DialectPlugin>::NAME
    );
    for (_, dialect) in flavors() {
        assert_eq!(dialect.info().driver, "postgres");
    }
}

/// The commented default configuration parses, and its commented option means
/// what it says once uncommented.
#[test]
fn default_configs_are_comments_and_parse() {
    fn json_of(toml_text: &str) -> String {
        let value: toml::Value = toml::from_str(toml_text).unwrap();
        serde_json::to_string(&value).unwrap()
    }
    for default in [
        <PostgresDialect as DialectPlugin>::DEFAULT_CONFIG,
        <CockroachDialect as DialectPlugin>::DEFAULT_CONFIG,
    ] {
        assert!(
            default.lines().all(|l| l.is_empty() || l.starts_with('#')),
            "{default}"
        );
        assert_eq!(json_of(default), "{}");
    }
    let uncommented: String = <PostgresDialect as DialectPlugin>::DEFAULT_CONFIG
        .lines()
        .map(|l| {
            l.strip_prefix("# ")
                .filter(|l| l.contains(" = "))
                .unwrap_or("")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let handle = DialectHandle::from_plugin::<PostgresDialect>(&json_of(&uncommented)).unwrap();
    let setup = handle
        .session_setup(&SessionRequest {
            isolation: IsolationLevel::ReadCommitted,
            limits: LIMITS,
        })
        .unwrap();
    assert!(
        setup
            .statements
            .contains(&"SET deadlock_timeout = '1000ms'".to_string()),
        "{setup:?}"
    );
}

#[test]
fn configs_refuse_unknown_and_out_of_range_options() {
    let e = DialectHandle::from_plugin::<PostgresDialect>(r#"{"deadlock_timeout":5}"#)
        .err()
        .expect("an unknown option must be refused");
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    assert!(e.message.contains("deadlock_timeout"), "{e}");
    for bad in ["0", "2147483648"] {
        let e = DialectHandle::from_plugin::<PostgresDialect>(&format!(
            r#"{{"deadlock_timeout_ms":{bad}}}"#
        ))
        .err()
        .expect("an out-of-range timeout must be refused");
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG, "{bad}");
        assert!(e.message.contains("deadlock_timeout_ms"), "{e}");
    }
    let e = DialectHandle::from_plugin::<CockroachDialect>(r#"{"deadlock_timeout_ms":100}"#)
        .err()
        .expect("cockroachdb has no options");
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
}

#[test]
fn session_limits_must_be_in_range() {
    for (name, dialect) in flavors() {
        for limits in [
            SessionLimits {
                statement_timeout_ms: 0,
                lock_wait_timeout_ms: 100,
            },
            SessionLimits {
                statement_timeout_ms: 100,
                lock_wait_timeout_ms: 0,
            },
            SessionLimits {
                statement_timeout_ms: u64::from(u32::MAX),
                lock_wait_timeout_ms: 100,
            },
        ] {
            let e = dialect
                .session_setup(&SessionRequest {
                    isolation: IsolationLevel::Serializable,
                    limits,
                })
                .unwrap_err();
            assert_eq!(e.kind, ErrorKind::INVALID_INPUT, "{name} {limits:?}");
        }
    }
}

#[test]
fn only_offered_levels_render_or_set_up() {
    let schema = schema();
    let offered = [
        (
            "postgres",
            vec![
                IsolationLevel::ReadUncommitted,
                IsolationLevel::ReadCommitted,
                IsolationLevel::RepeatableRead,
                IsolationLevel::Serializable,
            ],
        ),
        (
            "cockroachdb",
            vec![IsolationLevel::ReadCommitted, IsolationLevel::Serializable],
        ),
    ];
    for ((name, dialect), (offered_name, levels)) in flavors().into_iter().zip(offered) {
        assert_eq!(name, offered_name);
        for level in IsolationLevel::ALL {
            let begin = render_at(dialect.as_ref(), &schema, level, &Statement::Begin);
            let setup = dialect.session_setup(&SessionRequest {
                isolation: level,
                limits: LIMITS,
            });
            assert_eq!(dialect.info().supports(level), levels.contains(&level));
            if levels.contains(&level) {
                assert!(begin.unwrap().contains(level.sql()));
                setup.unwrap();
            } else {
                for e in [begin.unwrap_err(), setup.unwrap_err()] {
                    assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{name} {level}");
                    assert!(e.message.contains(level.name()), "{e}");
                }
            }
        }
    }
}

#[test]
fn replace_is_unsupported() {
    let schema = schema();
    for (name, dialect) in flavors() {
        assert!(!dialect.info().features.replace);
        let s = insert(
            "accounts",
            &["id", "big", "flag"],
            vec![vec![Value::Int(1), Value::Int(7), Value::Bool(true)]],
            OnConflict::Replace,
        );
        let e = render_at(dialect.as_ref(), &schema, IsolationLevel::Serializable, &s).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{name}");
        assert!(e.message.contains("REPLACE"), "{e}");
    }
}

#[test]
fn names_the_schema_lacks_are_refused() {
    let schema = schema();
    let bad = [
        select(
            "accounts",
            Some(bin(BinaryOp::Eq, c("nope"), int(1))),
            vec![],
        ),
        update("accounts", vec![("nope", int(1))], None),
        insert(
            "accounts",
            &["id", "nope"],
            vec![vec![Value::Int(1), Value::Int(2)]],
            OnConflict::Error,
        ),
        Statement::Insert(Insert {
            table: "accounts".into(),
            columns: strings(&["id"]),
            rows: vec![vec![c("id")]],
            on_conflict: OnConflict::Error,
        }),
    ];
    for s in &bad {
        let e = render_at(
            &PostgresDialect::default(),
            &schema,
            IsolationLevel::ReadCommitted,
            s,
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT, "{s:?}");
    }
    // A table outside the schema is left for the DBMS to report.
    assert_eq!(
        render_ok(
            &schema,
            &delete("elsewhere", Some(bin(BinaryOp::Eq, c("x"), int(1))))
        ),
        "DELETE FROM \"elsewhere\" WHERE (\"x\" = 1)"
    );
}

#[test]
fn malformed_inserts_are_refused() {
    let schema = schema();
    let ragged = insert(
        "accounts",
        &["id", "big", "flag"],
        vec![vec![Value::Int(1), Value::Int(2)]],
        OnConflict::Error,
    );
    let e = render_at(
        &PostgresDialect::default(),
        &schema,
        IsolationLevel::ReadCommitted,
        &ragged,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
    assert!(e.message.contains("3 columns"), "{e}");
    let empty = insert("accounts", &[], vec![], OnConflict::Error);
    assert_eq!(
        render_at(
            &PostgresDialect::default(),
            &schema,
            IsolationLevel::ReadCommitted,
            &empty
        )
        .unwrap_err()
        .kind,
        ErrorKind::INVALID_INPUT
    );
}

#[test]
fn ddl_refuses_what_the_dbms_would_mangle() {
    let long = "c".repeat(64);
    let t = table("t", vec![col(&long, ColumnType::Int)], &[]);
    let e = PostgresDialect::default().create_table(&t).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
    // CockroachDB does not truncate names.
    assert!(CockroachDialect.create_table(&t).is_ok());
    let missing_key = table("t", vec![col("a", ColumnType::Int)], &["b"]);
    for (_, dialect) in flavors() {
        let e = dialect.create_table(&missing_key).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        assert!(e.message.contains("`b`"), "{e}");
    }
}
