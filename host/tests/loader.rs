//! Loads the real plugin libraries with dlopen, including broken fixtures.

mod common;

use txlab_plugin_api::host::{probe, LoadError, PluginLibrary};
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::{ErrorKind, HostDb, PluginError};
use txlab_plugin_api::{PluginKind, ABI_VERSION};

fn sqlite_info() -> DialectInfo {
    let lib = PluginLibrary::load(&common::library("txlab-dialect-sqlite")).unwrap();
    lib.new_dialect("sqlite", "{}").unwrap().info().unwrap()
}

#[test]
fn the_three_shipping_plugins_load_and_describe_themselves() {
    let expect = [
        ("txlab-dialect-sqlite", PluginKind::DIALECT, "sqlite"),
        ("txlab-generator-random", PluginKind::GENERATOR, "random"),
        ("txlab-oracle-wss", PluginKind::ORACLE, "wss"),
    ];
    for (krate, kind, name) in expect {
        let lib = PluginLibrary::load(&common::library(krate)).unwrap();
        assert_eq!(lib.manifest.library_name, krate);
        assert_eq!(lib.manifest.abi, ABI_VERSION);
        assert_eq!(lib.manifest.abi_stable_version, "0.11.3");
        let entry = lib.entries.iter().find(|e| e.name == name).unwrap();
        assert_eq!(entry.kind, kind);
        assert!(!entry.description.is_empty());
    }
}

#[test]
fn two_libraries_with_generators_load_side_by_side_in_one_process() {
    // abi_stable's `load_from_*` would hand back the first library's module for
    // the second one; each library must keep its own entries.
    let random = PluginLibrary::load(&common::library("txlab-generator-random")).unwrap();
    let panicky = PluginLibrary::load(&common::library("txlab-fixture-panicky")).unwrap();
    let names = |l: &PluginLibrary| l.entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&random), ["random"]);
    assert_eq!(names(&panicky), ["panicky", "panicky", "accuse", "blocked"]);
    let ctx = GeneratorContext {
        dialect: sqlite_info(),
        levels: vec![IsolationLevel::Serializable],
    };
    let mut g1 = random.new_generator("random", "{}", &ctx).unwrap();
    let mut g2 = panicky.new_generator("panicky", "{}", &ctx).unwrap();
    let case = g1.next_case(CaseRequest::new(1, 0)).unwrap();
    case.validate().unwrap();
    let e = g2.next_case(CaseRequest::new(1, 0)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::PANICKED);
    // And the first one is still itself afterwards.
    assert_eq!(g1.next_case(CaseRequest::new(1, 0)).unwrap(), case);
}

#[test]
fn a_library_without_manifest_is_refused_in_one_line() {
    let path = common::library("txlab-fixture-not-a-plugin");
    let e = PluginLibrary::load(&path).unwrap_err();
    assert!(matches!(e, LoadError::NotAPlugin { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.ends_with("is not a txlab plugin: it exports no TXLAB_PLUGIN_MANIFEST"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn a_library_for_another_abi_is_refused_in_one_line_naming_both_versions() {
    let path = common::library("txlab-fixture-wrong-abi");
    let manifest = probe(&path).unwrap();
    assert_eq!(manifest.abi.major, 99);
    let e = PluginLibrary::load(&path).unwrap_err();
    assert!(matches!(e, LoadError::AbiMismatch { .. }), "{e}");
    let text = e.to_string();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("built for txlab plugin ABI 99.0.0"), "{text}");
    assert!(
        text.contains(&format!("this txlab speaks ABI {ABI_VERSION}")),
        "{text}"
    );
}

#[test]
fn an_unknown_entry_name_is_an_error_not_a_crash() {
    let lib = PluginLibrary::load(&common::library("txlab-dialect-sqlite")).unwrap();
    let e = lib.new_dialect("postgres", "{}").err().unwrap();
    assert_eq!(e.kind, ErrorKind::UNKNOWN_ENTRY);
    assert!(e.to_string().contains("no dialect named `postgres`"), "{e}");
}

#[test]
fn a_bad_plugin_config_comes_back_as_a_config_error_naming_the_key() {
    let lib = PluginLibrary::load(&common::library("txlab-generator-random")).unwrap();
    let ctx = GeneratorContext {
        dialect: sqlite_info(),
        levels: vec![IsolationLevel::Serializable],
    };
    let e = lib
        .new_generator("random", r#"{"transactionz": [1, 2]}"#, &ctx)
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    assert!(e.message.contains("transactionz"), "{e}");
}

struct NoDb;

impl HostDb for NoDb {
    fn call(&mut self, _request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        Err(PluginError::host("no database in this test"))
    }
}

#[test]
fn a_panic_inside_a_plugin_is_an_error_naming_it_and_the_process_goes_on() {
    let lib = PluginLibrary::load(&common::library("txlab-fixture-panicky")).unwrap();
    let ctx = OracleContext {
        dialect: sqlite_info(),
    };
    let mut oracle = lib.new_oracle("panicky", r#"{"every": 2}"#, &ctx).unwrap();
    let case = TestCase {
        seed: 0,
        generator: String::new(),
        schema: Schema::default(),
        initial_rows: vec![],
        transactions: vec![],
        submitted_order: vec![],
    };
    let input = CheckInput {
        case,
        history: History::default(),
    };
    assert_eq!(oracle.check(&input, &mut NoDb).unwrap(), Verdict::Pass);
    let e = oracle.check(&input, &mut NoDb).unwrap_err();
    assert_eq!(e.kind, ErrorKind::PANICKED);
    let text = e.to_string();
    assert!(
        text.starts_with(
            "oracle `panicky` panicked in `check`: injected panic in check call 2 at "
        ),
        "{text}"
    );
    assert!(text.contains("lib.rs"), "{text}");
    // The plugin still answers after its panic.
    assert_eq!(oracle.check(&input, &mut NoDb).unwrap(), Verdict::Pass);
    // A panic while being built is reported the same way.
    let e = lib
        .new_oracle("panicky", r#"{"panic_in_new": true}"#, &ctx)
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .starts_with("oracle `panicky` panicked in `new`"),
        "{e}"
    );
}
