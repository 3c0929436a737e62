//! The SQL text the three entries render, reviewed as snapshots, the IR they refuse,
//! and the semantics they declare, checked as data (MySQL 8 and TiDB cannot run
//! here).

mod common;

use common::*;
use txlab_dialect_mysql::{
    MariadbConfig, MariadbDialect, MysqlConfig, MysqlDialect, TidbConfig, TidbDialect, TxnMode,
};
use txlab_plugin_api::host::DialectHandle;
use txlab_plugin_api::prelude::*;

/// Every entry and option combination, labelled as in the snapshots.
fn entries() -> Vec<(&'static str, Box<dyn Dialect>)> {
    vec![
        (
            "mysql",
            Box::new(MysqlDialect::new(MysqlConfig {}).unwrap()),
        ),
        ("mariadb", Box::new(mariadb(false))),
        ("mariadb snapshot_isolation", Box::new(mariadb(true))),
        (
            "tidb",
            Box::new(
                TidbDialect::new(TidbConfig {
                    txn_mode: TxnMode::Pessimistic,
                })
                .unwrap(),
            ),
        ),
        (
            "tidb optimistic",
            Box::new(
                TidbDialect::new(TidbConfig {
                    txn_mode: TxnMode::Optimistic,
                })
                .unwrap(),
            ),
        ),
    ]
}

/// One entry per flavor, for what the options do not change.
fn flavors() -> Vec<(&'static str, Box<dyn Dialect>)> {
    entries()
        .into_iter()
        .filter(|(label, _)| ["mysql", "mariadb", "tidb"].contains(label))
        .collect()
}

fn tidb(txn_mode: TxnMode) -> TidbDialect {
    TidbDialect::new(TidbConfig { txn_mode }).unwrap()
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
            name: "accounts_code_big".into(),
            columns: strings(&["code", "big"]),
            unique: true,
        },
    ];
    let mut odd = table(
        "it's `odd`",
        vec![
            col("a `b`", ColumnType::Int),
            col("line", ColumnType::Int),
            col("qty", ColumnType::BigInt),
        ],
        &["a `b`", "line"],
    );
    odd.indexes = vec![Index {
        name: "odd `idx`".into(),
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
    for (label, dialect) in flavors() {
        out.push(format!("{label}:"));
        for t in &schema().tables {
            for sql in dialect.create_table(t).unwrap() {
                out.push(format!("  {sql}"));
            }
            out.push(format!("  {}", dialect.drop_table(t).unwrap()));
        }
    }
    insta::assert_snapshot!(out.join("\n"));
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
                    cast(c("amount"), ColumnType::Double),
                    cast(c("ratio"), ColumnType::Int),
                    cast(
                        c("big"),
                        ColumnType::Decimal {
                            precision: 20,
                            scale: 0,
                        },
                    ),
                    cast(c("id"), ColumnType::Varchar { len: 4 }),
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
                        in_list(c("id"), vec![], true),
                    ),
                )),
                order_by: vec![
                    int(1),
                    neg(int(2)),
                    Expr::lit(Value::Bool(true)),
                    Expr::lit(Value::Decimal("3".into())),
                    c("code"),
                ],
                lock: RowLock::None,
            }),
        ),
        (
            "select for update",
            locking_select("accounts", Some(eq(c("id"), int(1))), RowLock::ForUpdate),
        ),
        (
            "select for share",
            locking_select("accounts", Some(eq(c("id"), int(1))), RowLock::ForShare),
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
                        Value::Text("back\\slash".into()),
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
            "replace",
            insert(
                "accounts",
                &["id", "big", "flag"],
                vec![vec![Value::Int(1), Value::Int(7), Value::Bool(true)]],
                OnConflict::Replace,
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
                "it's `odd`",
                vec![("qty", bin(Add, c("qty"), int(1)))],
                Some(eq(c("a `b`"), int(1))),
            ),
        ),
    ]
}

#[test]
fn statements_per_flavor() {
    let schema = schema();
    let mut out = Vec::new();
    // The options change only BEGIN (see begin_per_flavor).
    for (label, dialect) in flavors() {
        out.push(format!("{label}:"));
        for (what, statement) in statements() {
            // TiDB refuses the shared lock; the snapshot shows what it says.
            let sql = render_at(
                dialect.as_ref(),
                &schema,
                IsolationLevel::RepeatableRead,
                &statement,
            )
            .unwrap_or_else(|e| format!("refused: {e}"));
            out.push(format!("  {what}:\n    {sql}"));
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
                isolation: IsolationLevel::RepeatableRead,
                kind: TxnKind::Explicit,
                statements: vec![
                    Statement::Begin,
                    update("t", vec![("v", text("b"))], Some(eq(c("id"), int(1)))),
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
        let checks: Vec<String> = t
            .session
            .checks
            .iter()
            .map(|c| format!("{} returns {}", c.sql, c.expect))
            .collect();
        section(&format!("{} session checks", txn_label(i)), &checks);
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
    let mut out = String::new();
    // Optimistic TiDB has no READ COMMITTED; the other entries all render the case.
    for (label, dialect) in entries()
        .into_iter()
        .filter(|(l, _)| *l != "tidb optimistic")
    {
        out.push_str(&format!("=== {label}\n"));
        out.push_str(&describe(&dialect.render_case(&case, &LIMITS).unwrap()));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn session_setup_per_level_and_option() {
    let mut out = Vec::new();
    for (label, dialect) in entries() {
        for level in dialect.info().levels.iter().map(|l| l.level) {
            let setup = dialect
                .session_setup(&SessionRequest {
                    isolation: level,
                    limits: SessionLimits {
                        statement_timeout_ms: 2_500,
                        lock_wait_timeout_ms: 1_500,
                    },
                })
                .unwrap();
            out.push(format!("{label} {level}:"));
            out.extend(setup.statements.iter().map(|s| format!("  {s}")));
            out.extend(
                setup
                    .checks
                    .iter()
                    .map(|c| format!("  check {} returns {}", c.sql, c.expect)),
            );
        }
    }
    insta::assert_snapshot!(out.join("\n"));
}

#[test]
fn the_plugins_render_the_same_through_their_abi() {
    let case = two_transaction_case();
    let check = |handle: DialectHandle, dialect: &dyn Dialect| {
        assert_eq!(
            handle.render_case(&case, &LIMITS).unwrap(),
            dialect.render_case(&case, &LIMITS).unwrap()
        );
        assert_eq!(handle.info().unwrap(), dialect.info());
        let raw = RawDbError {
            code: Some(1020),
            message: "Record has changed since last read".into(),
            ..RawDbError::default()
        };
        assert_eq!(
            handle.classify_error(&raw).unwrap(),
            dialect.classify_error(&raw)
        );
    };
    check(
        DialectHandle::from_plugin::<MysqlDialect>("{}").unwrap(),
        &MysqlDialect::new(MysqlConfig {}).unwrap(),
    );
    check(
        DialectHandle::from_plugin::<MariadbDialect>(r#"{"snapshot_isolation":true}"#).unwrap(),
        &mariadb(true),
    );
    check(
        DialectHandle::from_plugin::<TidbDialect>(r#"{"txn_mode":"pessimistic"}"#).unwrap(),
        &tidb(TxnMode::Pessimistic),
    );
}

/// The default TOML of an entry, as the host hands it to the plugin.
fn default_config_json<D: DialectPlugin>() -> String {
    let table: toml::Table = toml::from_str(D::DEFAULT_CONFIG).unwrap();
    serde_json::to_string(&table).unwrap()
}

#[test]
fn default_configs_are_the_defaults() {
    let mysql = DialectHandle::from_plugin::<MysqlDialect>(&default_config_json::<MysqlDialect>());
    assert_eq!(
        mysql.unwrap().info().unwrap(),
        MysqlDialect::new(MysqlConfig::default()).unwrap().info()
    );
    let default = <MysqlDialect as DialectPlugin>::DEFAULT_CONFIG;
    assert!(
        default.lines().all(|l| l.trim_start().starts_with('#')),
        "{default}"
    );
    let mariadb_default =
        DialectHandle::from_plugin::<MariadbDialect>(&default_config_json::<MariadbDialect>())
            .unwrap();
    assert_eq!(
        mariadb_default.info().unwrap(),
        MariadbDialect::new(MariadbConfig::default())
            .unwrap()
            .info()
    );
    assert_eq!(mariadb_default.info().unwrap(), mariadb(false).info());
    let tidb_default =
        DialectHandle::from_plugin::<TidbDialect>(&default_config_json::<TidbDialect>()).unwrap();
    assert_eq!(
        tidb_default.info().unwrap(),
        tidb(TxnMode::Pessimistic).info()
    );
    // An empty configuration means the defaults too.
    assert_eq!(
        DialectHandle::from_plugin::<TidbDialect>("")
            .unwrap()
            .info()
            .unwrap(),
        tidb(TxnMode::Pessimistic).info()
    );
}

#[test]
fn configs_refuse_unknown_keys_and_values() {
    let refused = [
        DialectHandle::from_plugin::<MysqlDialect>(r#"{"snapshot_isolation":true}"#).err(),
        DialectHandle::from_plugin::<MariadbDialect>(r#"{"txn_mode":"optimistic"}"#).err(),
        DialectHandle::from_plugin::<MariadbDialect>(r#"{"snapshot_isolation":"yes"}"#).err(),
        DialectHandle::from_plugin::<TidbDialect>(r#"{"txn_mode":"relaxed"}"#).err(),
        DialectHandle::from_plugin::<TidbDialect>(r#"{"snapshot_isolation":true}"#).err(),
    ];
    for (i, e) in refused.into_iter().enumerate() {
        let e = e.unwrap_or_else(|| panic!("config {i} must be refused"));
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG, "{e}");
    }
    let optimistic = DialectHandle::from_plugin::<TidbDialect>(r#"{"txn_mode":"optimistic"}"#);
    assert_eq!(
        optimistic.unwrap().info().unwrap(),
        tidb(TxnMode::Optimistic).info()
    );
}

/// (level, snapshot, write reads, write conflict, semi-consistent, predicate
/// conflicts, serial order) per entry.
type Facts = (
    IsolationLevel,
    SnapshotPoint,
    WriteReads,
    WriteConflict,
    bool,
    bool,
    SerialOrder,
);

fn declared(dialect: &dyn Dialect) -> Vec<Facts> {
    dialect
        .info()
        .levels
        .iter()
        .map(|l| {
            (
                l.level,
                l.snapshot,
                l.write_reads,
                l.write_conflict,
                l.semi_consistent_writes,
                l.predicate_conflicts,
                l.serial_order,
            )
        })
        .collect()
}

#[test]
fn declared_semantics_per_entry() {
    use IsolationLevel::{ReadCommitted, ReadUncommitted, RepeatableRead, Serializable};
    use SerialOrder::{AnyOrder, CommitOrder};
    use SnapshotPoint as At;
    use WriteConflict::{AbortAtCommit, BlockThenAbort, BlockThenProceed};
    use WriteReads::{LatestCommitted, Snapshot as SnapshotRows};
    let innodb_classic = vec![
        (
            ReadUncommitted,
            At::None,
            LatestCommitted,
            BlockThenProceed,
            true,
            false,
            CommitOrder,
        ),
        (
            ReadCommitted,
            At::PerStatement,
            LatestCommitted,
            BlockThenProceed,
            true,
            false,
            CommitOrder,
        ),
        (
            RepeatableRead,
            At::FirstRead,
            LatestCommitted,
            BlockThenProceed,
            false,
            true,
            CommitOrder,
        ),
        (
            Serializable,
            At::PerStatement,
            LatestCommitted,
            BlockThenProceed,
            false,
            true,
            CommitOrder,
        ),
    ];
    assert_eq!(
        declared(&MysqlDialect::new(MysqlConfig {}).unwrap()),
        innodb_classic
    );
    assert_eq!(declared(&mariadb(false)), innodb_classic);
    assert_eq!(
        declared(&mariadb(true)),
        vec![
            (
                ReadUncommitted,
                At::None,
                LatestCommitted,
                BlockThenProceed,
                true,
                false,
                CommitOrder
            ),
            (
                ReadCommitted,
                At::PerStatement,
                LatestCommitted,
                BlockThenProceed,
                false,
                false,
                CommitOrder
            ),
            (
                RepeatableRead,
                At::FirstRead,
                SnapshotRows,
                BlockThenAbort,
                false,
                true,
                CommitOrder
            ),
            (
                Serializable,
                At::FirstStatement,
                SnapshotRows,
                BlockThenAbort,
                false,
                true,
                CommitOrder
            ),
        ]
    );
    assert_eq!(
        declared(&tidb(TxnMode::Pessimistic)),
        vec![
            (
                ReadCommitted,
                At::PerStatement,
                LatestCommitted,
                BlockThenProceed,
                false,
                false,
                CommitOrder
            ),
            (
                RepeatableRead,
                At::Begin,
                LatestCommitted,
                BlockThenProceed,
                false,
                false,
                CommitOrder
            ),
        ]
    );
    assert_eq!(
        declared(&tidb(TxnMode::Optimistic)),
        vec![(
            RepeatableRead,
            At::Begin,
            SnapshotRows,
            AbortAtCommit,
            false,
            false,
            AnyOrder
        )]
    );
    // WriteCheck's assumption holds exactly where writes lock ranges and keep
    // their locks: InnoDB's REPEATABLE READ and SERIALIZABLE.
    for (label, dialect) in entries() {
        for level in dialect.info().levels {
            let expected =
                matches!(level.level, RepeatableRead | Serializable) && label.starts_with("m");
            assert_eq!(
                level.writes_serialize_in_commit_order(),
                expected,
                "{label} {}",
                level.level
            );
        }
    }
}

/// Every URL a note cites is among the level's references.
#[test]
fn notes_cite_their_references() {
    for (label, dialect) in entries() {
        let info = dialect.info();
        assert_eq!(info.driver, "mysql");
        for level in &info.levels {
            assert!(!level.notes.is_empty(), "{label} {}", level.level);
            assert!(!level.references.is_empty(), "{label} {}", level.level);
            for r in &level.references {
                assert!(r.starts_with("https://"), "{label}: {r}");
            }
            for note in &level.notes {
                for word in note.split_whitespace() {
                    let Some(at) = word.find("https://") else {
                        continue;
                    };
                    let url = word[at..].trim_end_matches([')', ';', ',', '.']);
                    assert!(
                        level.references.iter().any(|r| r == url),
                        "{label} {}: `{url}` is cited but not referenced",
                        level.level
                    );
                }
            }
        }
    }
}

#[test]
fn levels_outside_each_flavor_are_unsupported() {
    let schema = schema();
    for (label, dialect) in entries() {
        let info = dialect.info();
        for level in IsolationLevel::ALL {
            let begin = render_at(dialect.as_ref(), &schema, level, &Statement::Begin);
            let setup = dialect.session_setup(&SessionRequest {
                isolation: level,
                limits: LIMITS,
            });
            if info.supports(level) {
                assert!(begin.is_ok() && setup.is_ok(), "{label} {level}");
            } else {
                for e in [begin.unwrap_err(), setup.unwrap_err()] {
                    assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{label} {level}");
                    assert!(e.message.contains(level.name()), "{e}");
                }
            }
        }
    }
    // Snapshot is nobody's level name; TiDB calls it REPEATABLE READ.
    let optimistic = tidb(TxnMode::Optimistic);
    let e = optimistic
        .session_setup(&SessionRequest {
            isolation: IsolationLevel::ReadCommitted,
            limits: LIMITS,
        })
        .unwrap_err();
    assert!(e.message.contains("optimistic"), "{e}");
}

#[test]
fn begin_per_flavor() {
    let schema = schema();
    let begin = |d: &dyn Dialect| render_ok(d, &schema, &Statement::Begin);
    assert_eq!(
        begin(&MysqlDialect::new(MysqlConfig {}).unwrap()),
        "START TRANSACTION"
    );
    assert_eq!(begin(&mariadb(true)), "START TRANSACTION");
    assert_eq!(begin(&tidb(TxnMode::Pessimistic)), "BEGIN PESSIMISTIC");
    assert_eq!(begin(&tidb(TxnMode::Optimistic)), "BEGIN OPTIMISTIC");
}

#[test]
fn shared_locks_per_flavor() {
    let schema = schema();
    let share = locking_select("accounts", None, RowLock::ForShare);
    let mysql = MysqlDialect::new(MysqlConfig {}).unwrap();
    assert!(render_ok(&mysql, &schema, &share).ends_with(" FOR SHARE"));
    assert!(render_ok(&mariadb(false), &schema, &share).ends_with(" LOCK IN SHARE MODE"));
    let e = render_at(
        &tidb(TxnMode::Pessimistic),
        &schema,
        IsolationLevel::RepeatableRead,
        &share,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
    assert!(e.message.contains("TiDB"), "{e}");
    for (label, dialect) in entries() {
        let f = dialect.info().features;
        assert!(
            f.select_for_update && f.replace && f.insert_ignore,
            "{label}"
        );
        assert_eq!(f.select_for_share, !label.starts_with("tidb"), "{label}");
        let update = locking_select("accounts", None, RowLock::ForUpdate);
        assert!(render_ok(dialect.as_ref(), &schema, &update).ends_with(" FOR UPDATE"));
    }
}

#[test]
fn lock_probes_per_flavor() {
    let probe = |d: &dyn Dialect| d.info().lock_probe;
    assert_eq!(probe(&mariadb(true)), LockProbe::InnodbStatus);
    let LockProbe::Query { sql } = probe(&MysqlDialect::new(MysqlConfig {}).unwrap()) else {
        panic!("MySQL probes with a query");
    };
    assert!(sql.contains("performance_schema.data_lock_waits"), "{sql}");
    assert!(sql.contains("PROCESSLIST_ID = {session}"), "{sql}");
    let LockProbe::Query { sql } = probe(&tidb(TxnMode::Optimistic)) else {
        panic!("TiDB probes with a query");
    };
    assert!(sql.contains("information_schema.tidb_trx"), "{sql}");
    assert!(sql.contains("SESSION_ID = {session}"), "{sql}");
    assert!(sql.contains("STATE = 'LockWaiting'"), "{sql}");
}

#[test]
fn every_declared_column_type_renders() {
    for (label, dialect) in flavors() {
        for &ty in &dialect.info().features.column_types {
            let t = table("t", vec![col("c", ty)], &[]);
            dialect
                .create_table(&t)
                .unwrap_or_else(|e| panic!("{label} {ty:?}: {e}"));
        }
    }
}

#[test]
fn text_columns_cannot_be_keyed() {
    let base = || {
        table(
            "t",
            vec![col("id", ColumnType::Int), col("note", ColumnType::Text)],
            &["id"],
        )
    };
    let mut keyed = base();
    keyed.primary_key = strings(&["note"]);
    let mut unique = base();
    unique.unique = vec![strings(&["id", "note"])];
    let mut indexed = base();
    indexed.indexes = vec![Index {
        name: "t_note".into(),
        columns: strings(&["note"]),
        unique: false,
    }];
    for (label, dialect) in flavors() {
        dialect.create_table(&base()).unwrap();
        for t in [&keyed, &unique, &indexed] {
            let e = dialect.create_table(t).unwrap_err();
            assert_eq!(e.kind, ErrorKind::INVALID_INPUT, "{label}: {t:?}");
            assert!(e.message.contains("note"), "{e}");
        }
    }
}

#[test]
fn unknown_bare_columns_are_refused() {
    let schema = schema();
    let dialect = mariadb(false);
    let s = delete("accounts", Some(eq(c("nope"), int(1))));
    let e = render_at(&dialect, &schema, IsolationLevel::RepeatableRead, &s).unwrap_err();
    assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
    assert!(e.message.contains("nope"), "{e}");
    let s = Statement::Insert(Insert {
        table: "accounts".into(),
        columns: strings(&["id"]),
        rows: vec![vec![c("id")]],
        on_conflict: OnConflict::Error,
    });
    assert_eq!(
        render_at(&dialect, &schema, IsolationLevel::RepeatableRead, &s)
            .unwrap_err()
            .kind,
        ErrorKind::INVALID_INPUT
    );
    // A table outside the schema is left to the server, which reports it.
    let s = delete("elsewhere", Some(eq(c("x"), int(1))));
    assert_eq!(
        render_ok(&dialect, &schema, &s),
        "DELETE FROM `elsewhere` WHERE (`x` = 1)"
    );
}

/// MySQL evaluates UPDATE assignments left to right; the IR evaluates them all on
/// the old row.
#[test]
fn assignments_reading_an_earlier_assignment_are_refused() {
    let schema = schema();
    let dialect = MysqlDialect::new(MysqlConfig {}).unwrap();
    let swap = update("accounts", vec![("big", c("id")), ("id", c("big"))], None);
    let e = render_at(&dialect, &schema, IsolationLevel::RepeatableRead, &swap).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
    assert!(e.message.contains("`id` from `big`"), "{e}");
    // Each reading only itself, or a column assigned later, is fine.
    let independent = update(
        "accounts",
        vec![
            ("big", bin(BinaryOp::Add, c("big"), int(1))),
            ("ratio", c("amount")),
            ("amount", c("amount")),
        ],
        None,
    );
    render_ok(&dialect, &schema, &independent);
}

#[test]
fn unrenderable_literals_are_errors() {
    let schema = schema();
    let dialect = mariadb(false);
    for (v, kind) in [
        (Value::Float(f64::NAN), ErrorKind::UNSUPPORTED),
        (Value::Float(f64::INFINITY), ErrorKind::UNSUPPORTED),
        (Value::Float(f64::NEG_INFINITY), ErrorKind::UNSUPPORTED),
        (Value::Decimal("1e5".into()), ErrorKind::INVALID_INPUT),
        (
            Value::Decimal("1; DROP TABLE accounts".into()),
            ErrorKind::INVALID_INPUT,
        ),
        (Value::Decimal("9".repeat(70)), ErrorKind::UNSUPPORTED),
    ] {
        let s = delete("accounts", Some(eq(c("ratio"), Expr::lit(v.clone()))));
        assert_eq!(
            render_at(&dialect, &schema, IsolationLevel::RepeatableRead, &s)
                .unwrap_err()
                .kind,
            kind,
            "{v:?}"
        );
    }
    let bool_cast = select("accounts", Some(cast(c("id"), ColumnType::Bool)), vec![]);
    assert_eq!(
        render_at(
            &dialect,
            &schema,
            IsolationLevel::RepeatableRead,
            &bool_cast
        )
        .unwrap_err()
        .kind,
        ErrorKind::UNSUPPORTED
    );
}

#[test]
fn malformed_ir_is_invalid_input() {
    let schema = schema();
    let dialect = MysqlDialect::new(MysqlConfig {}).unwrap();
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
            render_at(&dialect, &schema, IsolationLevel::RepeatableRead, &s)
                .unwrap_err()
                .kind,
            ErrorKind::INVALID_INPUT,
            "{s:?}"
        );
    }
    let mut bad_key = table("t", vec![col("a", ColumnType::Int)], &["b"]);
    assert_eq!(
        dialect.create_table(&bad_key).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    bad_key.primary_key.clear();
    bad_key.unique = vec![vec![]];
    assert_eq!(
        dialect.create_table(&bad_key).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    let no_columns = table("t", vec![], &[]);
    assert_eq!(
        dialect.create_table(&no_columns).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
    let bad_decimal = table(
        "t",
        vec![col(
            "d",
            ColumnType::Decimal {
                precision: 4,
                scale: 6,
            },
        )],
        &[],
    );
    assert_eq!(
        dialect.create_table(&bad_decimal).unwrap_err().kind,
        ErrorKind::INVALID_INPUT
    );
}
