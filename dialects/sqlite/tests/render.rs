//! The SQL text the dialect renders, reviewed as snapshots, and the IR it refuses.

mod common;

use common::*;
use txlab_loader::DialectHandle;
use txlab_plugin_api::prelude::*;
use txlab_sqlite::SqliteDialect;
use txlab_testkit::build::*;
use txlab_testkit::cases::two_transaction_case;
use txlab_testkit::describe;
use txlab_testkit::dialect::LIMITS;
use txlab_testkit::dialect_checks::{
    assert_declared_column_types_render, assert_handle_matches, assert_malformed_ir_refused,
    assert_unknown_bare_columns_refused, assert_unrenderable_literals_refused, offered_levels,
};
use txlab_testkit::render_samples::*;

/// A table with every column type, keys and indexes, and one whose names need quoting.
fn schema() -> Schema {
    every_type_schema('"')
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
    let schema = schema();
    let statements = vec![
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
                vec![],
                vec![int(1), int(2)],
                vec![int(1), neg(int(2)), c("code")],
            ),
        ),
        (
            "insert every literal",
            insert_every_literal("nul\0byte", vec![]),
        ),
        (
            "insert or replace",
            insert_account(OnConflict::Replace, true),
        ),
        (
            "insert or ignore",
            insert_account(OnConflict::Ignore, false),
        ),
        ("update", update_with_compound_filter()),
        ("append text", update_appending_text()),
        ("delete with filter", delete_with_filter()),
        ("delete all", delete("accounts", None)),
        ("quoted names", update_with_quoted_names('"')),
    ];
    let rendered: Vec<String> = statements
        .iter()
        .map(|(label, s)| format!("{label}:\n  {}", render_ok(&schema, s)))
        .collect();
    insta::assert_snapshot!(rendered.join("\n"));
}

/// The sample case at the only level SQLite offers.
fn serializable_case() -> TestCase {
    use IsolationLevel::Serializable;
    two_transaction_case(Serializable, Serializable)
}

#[test]
fn render_case_of_two_transactions() {
    let case = serializable_case();
    case.validate().unwrap();
    insta::assert_snapshot!(describe::rendered_case(
        &SqliteDialect.render_case(&case, &LIMITS).unwrap()
    ));
}

#[test]
fn the_plugin_renders_the_same_through_its_abi() {
    let handle = DialectHandle::from_plugin::<SqliteDialect>("{}").unwrap();
    assert_handle_matches(&handle, &SqliteDialect, &serializable_case());
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
    assert_declared_column_types_render(&SqliteDialect);
}

#[test]
fn locking_reads_are_unsupported() {
    let schema = schema();
    for lock in [RowLock::ForUpdate, RowLock::ForShare] {
        let e = render(&schema, &locking_select("accounts", None, lock)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNSUPPORTED, "{lock:?}");
        assert!(e.message.contains("FOR"), "{e}");
    }
}

#[test]
fn only_serializable_is_offered() {
    assert_eq!(
        offered_levels(&SqliteDialect, &schema()),
        vec![(
            IsolationLevel::Serializable,
            "BEGIN".to_string(),
            SessionSetup::default()
        )]
    );
}

#[test]
fn unrenderable_literals_are_errors() {
    assert_unrenderable_literals_refused(&SqliteDialect, &schema(), IsolationLevel::Serializable);
}

#[test]
fn unknown_bare_columns_are_refused() {
    // SQLite would read an unknown "nope" as the string 'nope'.
    assert_unknown_bare_columns_refused(
        &SqliteDialect,
        &schema(),
        IsolationLevel::Serializable,
        r#"DELETE FROM "elsewhere" WHERE ("x" = 1)"#,
    );
}

#[test]
fn malformed_ir_is_invalid_input() {
    assert_malformed_ir_refused(&SqliteDialect, &schema(), IsolationLevel::Serializable);
}

/// IR 1.1's queries: joins, aggregates, subqueries, INSERT … SELECT.
#[test]
fn queries_joins_aggregates_and_subqueries() {
    let schema = schema();
    let rendered: Vec<String> = query_forms('"')
        .iter()
        .map(|(label, s)| format!("{label}:\n  {}", render_ok(&schema, s)))
        .collect();
    insta::assert_snapshot!(rendered.join("\n"));
}
