//! The SQL text both entries render, reviewed as snapshots, and the IR they refuse.

use txlab_loader::DialectHandle;
use txlab_plugin_api::prelude::*;
use txlab_postgres::{CockroachDialect, PostgresDialect};
use txlab_testkit::build::*;
use txlab_testkit::cases::two_transaction_case;
use txlab_testkit::describe;
use txlab_testkit::dialect::{render_at, session_setup, LIMITS};
use txlab_testkit::dialect_checks::{
    assert_handle_matches, assert_unknown_bare_columns_refused, offered_levels,
};
use txlab_testkit::render_samples::*;

fn flavors() -> [(&'static str, Box<dyn Dialect>); 2] {
    [
        ("postgres", Box::new(PostgresDialect::default())),
        ("cockroachdb", Box::new(CockroachDialect)),
    ]
}

/// A table with every column type, keys and indexes, and one whose names need quoting.
fn schema() -> Schema {
    every_type_schema('"')
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
                vec![cast(c("big"), ColumnType::Int)],
                vec![int(1), int(2)],
                // Constants: a position, an error and a folded minus if left bare.
                vec![
                    int(1),
                    neg(int(2)),
                    text("k"),
                    Expr::lit(Value::Bool(true)),
                    Expr::lit(Value::Null),
                    float(1.5),
                    c("code"),
                ],
            ),
        ),
        (
            "select for update",
            Statement::Select(Select {
                table: "accounts".into(),
                projection: Projection::All,
                filter: Some(eq(c("id"), int(1))),
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
            insert_every_literal(
                "back\\slash \\' $$ -- /*",
                vec![
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
            ),
        ),
        ("insert ignore", insert_account(OnConflict::Ignore, false)),
        ("update", update_with_compound_filter()),
        ("append text", update_appending_text()),
        ("delete with filter", delete_with_filter()),
        ("delete all", delete("accounts", None)),
        ("quoted names", update_with_quoted_names('"')),
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

/// The sample case at SERIALIZABLE and READ COMMITTED, the levels both flavors offer.
fn two_level_case() -> TestCase {
    two_transaction_case(IsolationLevel::Serializable, IsolationLevel::ReadCommitted)
}

#[test]
fn render_case_of_two_transactions() {
    let case = two_level_case();
    case.validate().unwrap();
    for (name, dialect) in flavors() {
        insta::assert_snapshot!(
            format!("render_case_{name}"),
            describe::rendered_case_with_checks(
                &dialect.render_case(&case, &LIMITS).unwrap(),
                |c| format!("{} = {:?}", c.sql, c.expect)
            )
        );
    }
}

/// Session set-up at every offered level, and with the postgres option.
#[test]
fn session_setup_per_level_and_option() {
    let check_line =
        |c: &SessionCheck| format!("check {} = {:?} else: {}", c.sql, c.expect, c.explain);
    let with_deadlock_timeout =
        DialectHandle::from_plugin::<PostgresDialect>(r#"{"deadlock_timeout_ms": 150}"#).unwrap();
    let mut out = Vec::new();
    for (name, dialect) in flavors() {
        for level in dialect.info().levels.iter().map(|l| l.level) {
            let setup = session_setup(dialect.as_ref(), level, LIMITS).unwrap();
            out.push(format!("{name} {level}:"));
            out.extend(describe::session_setup_lines(&setup, check_line));
        }
    }
    let setup = with_deadlock_timeout
        .session_setup(&SessionRequest {
            isolation: IsolationLevel::RepeatableRead,
            limits: LIMITS,
        })
        .unwrap();
    out.push("postgres repeatable-read, deadlock_timeout_ms = 150:".to_string());
    out.extend(describe::session_setup_lines(&setup, check_line));
    insta::assert_snapshot!(out.join("\n"));
}

#[test]
fn the_plugin_renders_the_same_through_its_abi() {
    let case = two_level_case();
    let pg = DialectHandle::from_plugin::<PostgresDialect>("{}").unwrap();
    assert_handle_matches(&pg, &PostgresDialect::default(), &case);
    let crdb = DialectHandle::from_plugin::<CockroachDialect>("").unwrap();
    assert_handle_matches(&crdb, &CockroachDialect, &case);
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
            let e =
                session_setup(dialect.as_ref(), IsolationLevel::Serializable, limits).unwrap_err();
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
        let rendered = offered_levels(dialect.as_ref(), &schema);
        let offered: Vec<IsolationLevel> = rendered.iter().map(|(level, _, _)| *level).collect();
        assert_eq!(offered, levels, "{name}");
        for (level, begin, _) in rendered {
            assert!(begin.contains(level.sql()), "{name} {level}: {begin}");
        }
    }
}

#[test]
fn replace_is_unsupported() {
    let schema = schema();
    for (name, dialect) in flavors() {
        assert!(!dialect.info().features.replace);
        let s = insert_account(OnConflict::Replace, true);
        let e = render_at(dialect.as_ref(), &schema, IsolationLevel::Serializable, &s).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{name}");
        assert!(e.message.contains("REPLACE"), "{e}");
    }
}

#[test]
fn names_the_schema_lacks_are_refused() {
    let schema = schema();
    let dialect = PostgresDialect::default();
    let level = IsolationLevel::ReadCommitted;
    assert_unknown_bare_columns_refused(
        &dialect,
        &schema,
        level,
        "DELETE FROM \"elsewhere\" WHERE (\"x\" = 1)",
    );
    let bad = [
        select("accounts", Some(eq(c("nope"), int(1))), vec![]),
        update("accounts", vec![("nope", int(1))], None),
        insert(
            "accounts",
            &["id", "nope"],
            vec![vec![Value::Int(1), Value::Int(2)]],
            OnConflict::Error,
        ),
    ];
    for s in &bad {
        let e = render_at(&dialect, &schema, level, s).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT, "{s:?}");
    }
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

/// IR 1.1's queries: joins, aggregates, subqueries, INSERT … SELECT.
#[test]
fn query_forms_of_each_flavor() {
    let schema = schema();
    let mut out = Vec::new();
    for (name, dialect) in flavors() {
        out.push(format!("{name}:"));
        for (label, s) in query_forms('"') {
            let sql = render_at(dialect.as_ref(), &schema, IsolationLevel::Serializable, &s)
                .unwrap_or_else(|e| format!("refused: {e}"));
            out.push(format!("  {label}:\n    {sql}"));
        }
    }
    insta::assert_snapshot!(out.join("\n"));
}
