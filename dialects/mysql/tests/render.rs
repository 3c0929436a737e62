//! The SQL text the three entries render, reviewed as snapshots, the IR they refuse,
//! and the semantics they declare, checked as data (MySQL 8 and TiDB cannot run
//! here).

mod common;

use common::*;
use txlab_loader::DialectHandle;
use txlab_mysql::{
    MariadbConfig, MariadbDialect, MysqlConfig, MysqlDialect, TidbConfig, TidbDialect, TxnMode,
};
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::cases::two_transaction_case;
use txlab_testkit::describe;
use txlab_testkit::dialect::{render_at, session_setup, LIMITS};
use txlab_testkit::dialect_checks::{
    assert_declared_column_types_render, assert_handle_matches, assert_malformed_ir_refused,
    assert_unknown_bare_columns_refused, assert_unrenderable_literals_refused, offered_levels,
};
use txlab_testkit::render_samples::*;

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

/// A table with every column type, keys and indexes, and one whose names need
/// quoting. MySQL cannot key a TEXT column, so the unique index is on two others.
fn schema() -> Schema {
    let mut schema = every_type_schema('`');
    schema.tables[0].indexes[1] = Index {
        name: "accounts_code_big".into(),
        columns: strings(&["code", "big"]),
        unique: true,
    };
    schema
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
    vec![
        ("begin", Statement::Begin),
        ("commit", Statement::Commit),
        ("rollback", Statement::Rollback),
        (
            "select with nested predicate",
            select_with_nested_predicate(),
        ),
        (
            "select expressions",
            select_expressions(
                vec![
                    cast(c("ratio"), ColumnType::Int),
                    cast(
                        c("big"),
                        ColumnType::Decimal {
                            precision: 20,
                            scale: 0,
                        },
                    ),
                    cast(c("id"), ColumnType::Varchar { len: 4 }),
                ],
                vec![],
                vec![
                    int(1),
                    neg(int(2)),
                    Expr::lit(Value::Bool(true)),
                    Expr::lit(Value::Decimal("3".into())),
                    c("code"),
                ],
            ),
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
            insert_every_literal("back\\slash", vec![]),
        ),
        ("replace", insert_account(OnConflict::Replace, true)),
        ("insert ignore", insert_account(OnConflict::Ignore, false)),
        ("update", update_with_compound_filter()),
        ("append text", update_appending_text()),
        ("delete with filter", delete_with_filter()),
        ("delete all", delete("accounts", None)),
        ("quoted names", update_with_quoted_names('`')),
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

/// The sample case at REPEATABLE READ and READ COMMITTED.
fn two_level_case() -> TestCase {
    two_transaction_case(
        IsolationLevel::RepeatableRead,
        IsolationLevel::ReadCommitted,
    )
}

#[test]
fn render_case_of_two_transactions() {
    let case = two_level_case();
    case.validate().unwrap();
    let mut out = String::new();
    // Optimistic TiDB has no READ COMMITTED; the other entries all render the case.
    for (label, dialect) in entries()
        .into_iter()
        .filter(|(l, _)| *l != "tidb optimistic")
    {
        out.push_str(&format!("=== {label}\n"));
        out.push_str(&describe::rendered_case_with_checks(
            &dialect.render_case(&case, &LIMITS).unwrap(),
            |c| format!("{} returns {}", c.sql, c.expect),
        ));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn session_setup_per_level_and_option() {
    let mut out = Vec::new();
    for (label, dialect) in entries() {
        for level in dialect.info().levels.iter().map(|l| l.level) {
            let limits = SessionLimits {
                statement_timeout_ms: 2_500,
                lock_wait_timeout_ms: 1_500,
            };
            let setup = session_setup(dialect.as_ref(), level, limits).unwrap();
            out.push(format!("{label} {level}:"));
            out.extend(describe::session_setup_lines(&setup, |c| {
                format!("check {} returns {}", c.sql, c.expect)
            }));
        }
    }
    insta::assert_snapshot!(out.join("\n"));
}

#[test]
fn the_plugins_render_the_same_through_their_abi() {
    let case = two_level_case();
    let check = |handle: DialectHandle, dialect: &dyn Dialect| {
        assert_handle_matches(&handle, dialect, &case);
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
    // Left open, the setting follows the server; without one the facts are
    // those of OFF, the older servers' default, and the notes say so.
    let facts = |info: DialectInfo| -> Vec<LevelSemantics> {
        info.levels
            .into_iter()
            .map(|l| LevelSemantics {
                notes: Vec::new(),
                ..l
            })
            .collect()
    };
    let open = mariadb_default.info().unwrap();
    assert!(open.levels[0]
        .notes
        .iter()
        .any(|n| n.contains("assumed: no server was read")));
    assert_eq!(facts(open), facts(mariadb(false).info()));
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
                At::PerStatement,
                LatestCommitted,
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
    for (_, dialect) in entries() {
        offered_levels(dialect.as_ref(), &schema);
    }
    // Snapshot is nobody's level name; TiDB calls it REPEATABLE READ.
    let optimistic = tidb(TxnMode::Optimistic);
    let e = session_setup(&optimistic, IsolationLevel::ReadCommitted, LIMITS).unwrap_err();
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
    let rr = IsolationLevel::RepeatableRead;
    assert_eq!(
        render_at(&mariadb(true), &schema, rr, &Statement::BeginSnapshot).unwrap(),
        "START TRANSACTION WITH CONSISTENT SNAPSHOT"
    );
    let e = render_at(
        &mariadb(true),
        &schema,
        IsolationLevel::ReadCommitted,
        &Statement::BeginSnapshot,
    )
    .unwrap_err();
    assert!(e.message.contains("REPEATABLE READ"), "{e}");
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
    assert_eq!(
        probe(&mariadb(true)),
        LockProbe::Query {
            sql: "SHOW ENGINE INNODB STATUS".into()
        }
    );
    let LockProbe::Query { sql } = probe(&MysqlDialect::new(MysqlConfig {}).unwrap()) else {
        panic!("MySQL probes with a query");
    };
    assert!(sql.contains("performance_schema.data_lock_waits"), "{sql}");
    // The waiting transaction, found by the table locks its own thread took:
    // data_lock_waits.REQUESTING_THREAD_ID can name the blocker.
    assert!(
        sql.contains("w.REQUESTING_ENGINE_TRANSACTION_ID IN (SELECT l.ENGINE_TRANSACTION_ID"),
        "{sql}"
    );
    assert!(sql.contains("LOCK_TYPE = 'TABLE'"), "{sql}");
    assert!(!sql.contains("REQUESTING_THREAD_ID"), "{sql}");
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
    for (_, dialect) in flavors() {
        assert_declared_column_types_render(dialect.as_ref());
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
    assert_unknown_bare_columns_refused(
        &mariadb(false),
        &schema(),
        IsolationLevel::RepeatableRead,
        "DELETE FROM `elsewhere` WHERE (`x` = 1)",
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
    let level = IsolationLevel::RepeatableRead;
    assert_unrenderable_literals_refused(&dialect, &schema, level);
    let too_precise = Value::Decimal("9".repeat(70));
    let s = delete("accounts", Some(eq(c("ratio"), Expr::lit(too_precise))));
    assert_eq!(
        render_at(&dialect, &schema, level, &s).unwrap_err().kind,
        ErrorKind::UNSUPPORTED
    );
    let bool_cast = select("accounts", Some(cast(c("id"), ColumnType::Bool)), vec![]);
    assert_eq!(
        render_at(&dialect, &schema, level, &bool_cast)
            .unwrap_err()
            .kind,
        ErrorKind::UNSUPPORTED
    );
}

#[test]
fn malformed_ir_is_invalid_input() {
    let dialect = MysqlDialect::new(MysqlConfig {}).unwrap();
    assert_malformed_ir_refused(&dialect, &schema(), IsolationLevel::RepeatableRead);
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

/// IR 1.1's queries: joins, aggregates, subqueries, INSERT … SELECT. MySQL
/// and TiDB refuse an UPDATE that reads its own table in a subquery (error
/// 1093); MariaDB runs it.
#[test]
fn query_forms_per_flavor() {
    let schema = schema();
    let mut out = Vec::new();
    for (label, dialect) in flavors() {
        out.push(format!("{label}:"));
        for (what, statement) in query_forms('`') {
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
