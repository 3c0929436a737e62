//! Loads the real plugin libraries with dlopen, including broken fixtures and a
//! library built the way txlab-plugin-api 0.1 built them (IR 1.0).

mod common;

use txlab_loader::{probe, LoadError, PluginLibrary};
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::{ErrorKind, HostDb, PluginError};
use txlab_plugin_api::{IrVersion, PluginKind, ABI_LINE, IR_VERSION, PLUGIN_API_VERSION};

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
        assert_eq!(lib.manifest.manifest_version, 2);
        assert_eq!(lib.manifest.abi_line, ABI_LINE);
        assert_eq!(lib.manifest.ir, IR_VERSION);
        assert_eq!(lib.manifest.plugin_api_version, PLUGIN_API_VERSION);
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
    assert_eq!(
        names(&panicky),
        [
            "panicky",
            "panicky",
            "accuse",
            "blocked",
            "permitted",
            "flaky",
            "paced",
            "slow",
            "unsure"
        ]
    );
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

/// The one-line message of a library the version rule refuses, after checking
/// that the refusal came before abi_stable looked at the library.
fn refusal(krate: &str) -> (LoadError, String) {
    let e = PluginLibrary::load(&common::library(krate)).unwrap_err();
    let text = e.to_string();
    assert!(!text.contains('\n'), "{text}");
    assert!(
        text.starts_with(&format!("{} ({krate} ", e.path().display())),
        "{text}"
    );
    (e, text)
}

#[test]
fn a_library_for_another_abi_line_is_refused_in_one_line() {
    let manifest = probe(&common::library("txlab-fixture-wrong-abi")).unwrap();
    assert_eq!(manifest.abi_line.to_string(), "99.0");
    let (e, text) = refusal("txlab-fixture-wrong-abi");
    assert!(matches!(e, LoadError::AbiLineMismatch { .. }), "{e}");
    assert!(
        text.contains(&format!(
            "was built for txlab plugin ABI 99.0 (txlab-plugin-api {PLUGIN_API_VERSION}), this txlab loads ABI {ABI_LINE} only"
        )),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            ": upgrade txlab or rebuild the plugin against txlab-plugin-api {PLUGIN_API_VERSION}"
        )),
        "{text}"
    );
}

#[test]
fn a_library_for_another_ir_major_is_refused_in_one_line() {
    let (e, text) = refusal("txlab-fixture-ir-major");
    assert!(matches!(e, LoadError::IrMajorMismatch { .. }), "{e}");
    let next = IR_VERSION.major + 1;
    assert!(
        text.contains(&format!(
            "was built for txlab IR {next}.0, this txlab reads IR {}.0 to {IR_VERSION}: upgrade txlab or rebuild the plugin against txlab-plugin-api {PLUGIN_API_VERSION}",
            IR_VERSION.major
        )),
        "{text}"
    );
}

#[test]
fn a_library_for_a_newer_ir_minor_is_refused_in_one_line() {
    let (e, text) = refusal("txlab-fixture-ir-newer");
    assert!(matches!(e, LoadError::IrTooNew { .. }), "{e}");
    let newer = IrVersion {
        major: IR_VERSION.major,
        minor: IR_VERSION.minor + 1,
    };
    assert!(
        text.ends_with(&format!(
            "was built for txlab IR {newer}, this txlab reads IR up to {IR_VERSION}: upgrade txlab or rebuild the plugin against txlab-plugin-api {PLUGIN_API_VERSION}"
        )),
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
        intent: None,
        pace_ms: None,
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

const IR_1_0: &str = "txlab-fixture-ir-1-0";

#[test]
fn a_library_built_for_ir_1_0_loads_with_its_versions() {
    let lib = PluginLibrary::load(&common::library(IR_1_0)).unwrap();
    let m = &lib.manifest;
    assert_eq!(m.manifest_version, 1);
    assert_eq!(m.abi_line, ABI_LINE);
    assert_eq!(m.ir, IrVersion { major: 1, minor: 0 });
    assert_eq!(m.plugin_api_version, "0.1.0");
    assert_eq!(m.versions(), "0.1 (IR 1.0)");
    let kinds: Vec<(PluginKind, &str)> = lib
        .entries
        .iter()
        .map(|e| (e.kind, e.name.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (PluginKind::DIALECT, "legacy"),
            (PluginKind::GENERATOR, "legacy"),
            (PluginKind::ORACLE, "legacy")
        ]
    );
}

#[test]
fn a_library_built_for_ir_1_0_runs_and_its_ir_1_0_answers_read() {
    let lib = PluginLibrary::load(&common::library(IR_1_0)).unwrap();
    // Its dialect describes itself without the fields IR 1.0 lacked.
    let dialect = lib.new_dialect("legacy", "{}").unwrap();
    let info = dialect.info().unwrap();
    assert_eq!(info.name, "legacy");
    assert_eq!(info.session_control, SessionControl::default());
    assert!(info.supports(IsolationLevel::Serializable));
    let error = dialect
        .classify_error(&RawDbError {
            message: "boom".into(),
            ..RawDbError::default()
        })
        .unwrap();
    assert_eq!(
        (error.class, error.message.as_str()),
        (ErrorClass::Other, "boom")
    );
    // Its generator's case and its oracle's verdicts read as they are.
    let ctx = GeneratorContext {
        dialect: sqlite_info(),
        levels: vec![IsolationLevel::Serializable],
    };
    let mut generator = lib.new_generator("legacy", "{}", &ctx).unwrap();
    let case = generator.next_case(CaseRequest::new(5, 3)).unwrap();
    case.validate().unwrap();
    assert_eq!(case.seed, CaseRequest::new(5, 3).seed);
    assert_eq!(case.transactions.len(), 2);
    let mut oracle = lib
        .new_oracle(
            "legacy",
            "{}",
            &OracleContext {
                dialect: sqlite_info(),
            },
        )
        .unwrap();
    assert_eq!(
        oracle.requirements().unwrap(),
        OracleRequirements::default()
    );
    assert_eq!(oracle.prepare(&case).unwrap(), case);
    let input = CheckInput {
        case,
        history: History::default(),
    };
    assert_eq!(
        oracle.check(&input, &mut NoDb).unwrap(),
        Verdict::Undecided {
            reason: "0 transaction records for 2 transactions".into()
        }
    );
}

fn reading(rows: Vec<Vec<Value>>) -> LockProbeReading {
    LockProbeReading {
        session: "7".into(),
        columns: vec!["waits".into()],
        rows,
    }
}

/// The IR 1.0 dialect's vtable has no `read_lock_probe`: the trait object runs
/// the method's default, and the handle answers what IR 1.0 meant.
#[test]
fn a_dialect_built_for_ir_1_0_has_its_lock_probe_read_as_ir_1_0_did() {
    let lib = PluginLibrary::load(&common::library(IR_1_0)).unwrap();
    let query = lib.new_dialect("legacy", r#"{"probe": "query"}"#).unwrap();
    assert!(matches!(
        query.info().unwrap().lock_probe,
        LockProbe::Query { .. }
    ));
    let read = |rows| query.read_lock_probe(&reading(rows)).unwrap();
    assert_eq!(read(vec![vec![Value::Int(1)]]), Some(true));
    assert_eq!(read(vec![vec![Value::Int(0)]]), Some(false));
    assert_eq!(read(vec![]), None);
    // Its host parsed InnoDB's status itself; this one cannot tell.
    let innodb = lib
        .new_dialect("legacy", r#"{"probe": "innodb_status"}"#)
        .unwrap();
    assert_eq!(innodb.info().unwrap().lock_probe, LockProbe::InnodbStatus);
    assert_eq!(
        innodb
            .read_lock_probe(&reading(vec![vec![Value::Int(1)]]))
            .unwrap(),
        None
    );
}

/// `SHOW ENGINE INNODB STATUS` as the monitor connection receives it.
fn innodb_status(session: &str, status: &str) -> LockProbeReading {
    LockProbeReading {
        session: session.into(),
        columns: vec!["Type".into(), "Name".into(), "Status".into()],
        rows: vec![vec![
            Value::Text("InnoDB".into()),
            Value::Text(String::new()),
            Value::Text(status.into()),
        ]],
    }
}

/// The MariaDB dialect reads its own probe, with the parser it ships; the
/// status text was captured from MariaDB 10.11.19 (connection 141 holds a row
/// lock, 142 waits for it).
#[test]
fn the_loaded_mariadb_dialect_reads_innodb_status_itself() {
    let status = std::fs::read_to_string(
        common::repo_root().join("dialects/mysql/tests/data/innodb-status-lock-wait.txt"),
    )
    .unwrap();
    let lib = PluginLibrary::load(&common::library("txlab-dialect-mysql")).unwrap();
    let mariadb = lib.new_dialect("mariadb", "{}").unwrap();
    assert_eq!(
        mariadb.info().unwrap().lock_probe.statement(),
        Some("SHOW ENGINE INNODB STATUS")
    );
    assert_eq!(
        mariadb
            .read_lock_probe(&innodb_status("142", &status))
            .unwrap(),
        Some(true)
    );
    assert_eq!(
        mariadb
            .read_lock_probe(&innodb_status("141", &status))
            .unwrap(),
        Some(false)
    );
    // MySQL's probe counts waits: the generic reading, done by the dialect.
    let mysql = lib.new_dialect("mysql", "{}").unwrap();
    assert_eq!(
        mysql
            .read_lock_probe(&reading(vec![vec![Value::Int(1)]]))
            .unwrap(),
        Some(true)
    );
    assert_eq!(
        mysql
            .read_lock_probe(&innodb_status("142", &status))
            .unwrap(),
        Some(true),
        "the status text's first value is \"InnoDB\""
    );
}

/// The host's monitor path: the probe's statement for a session, and its
/// result handed to the dialect that declared it. On MariaDB that is the
/// dialect's own `SHOW ENGINE INNODB STATUS` parser, applied to a status text
/// captured from MariaDB 10.11.19 (connection 141 holds a row lock, 142 waits).
#[test]
fn the_host_reads_a_lock_probe_through_the_dialect() {
    use std::sync::Arc;
    use txlab_host::driver::{LockProbeSpec, SessionKey};
    let status = std::fs::read_to_string(
        common::repo_root().join("dialects/mysql/tests/data/innodb-status-lock-wait.txt"),
    )
    .unwrap();
    let lib = PluginLibrary::load(&common::library("txlab-dialect-mysql")).unwrap();
    let mariadb = Arc::new(lib.new_dialect("mariadb", "{}").unwrap());
    let spec = LockProbeSpec {
        probe: mariadb.info().unwrap().lock_probe,
        reader: mariadb,
    };
    let session = |id: &str| SessionKey::server(id.to_string());
    assert_eq!(
        spec.statement(&session("142")).as_deref(),
        Some("SHOW ENGINE INNODB STATUS")
    );
    let answer = |id: &str| {
        let r = innodb_status(id, &status);
        spec.answer(&session(id), r.columns, r.rows).unwrap()
    };
    assert_eq!(answer("142"), Some(true));
    assert_eq!(answer("141"), Some(false));
    assert_eq!(answer("7"), Some(false));
}

fn server(version: &str, settings: &[(&str, &str)]) -> ServerFacts {
    ServerFacts {
        version: version.into(),
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn repeatable_read(info: &DialectInfo) -> &LevelSemantics {
    info.level(IsolationLevel::RepeatableRead).unwrap()
}

/// IR 1.2: a dialect is built again for the server the host read. The
/// `mariadb` entry left open by the pipeline takes the server's own
/// `innodb_snapshot_isolation`; set by the pipeline, it keeps that.
#[test]
fn the_mariadb_dialect_follows_the_servers_snapshot_isolation_unless_the_pipeline_sets_it() {
    let lib = PluginLibrary::load(&common::library("txlab-dialect-mysql")).unwrap();
    let open = lib.new_dialect("mariadb", "{}").unwrap().info().unwrap();
    assert!(open
        .server_query
        .as_deref()
        .unwrap()
        .contains("innodb_snapshot_isolation"));
    assert_eq!(open.server, None);
    let m11 = server("11.8.9-MariaDB", &[("innodb_snapshot_isolation", "ON")]);
    let built = lib
        .new_dialect_for_server("mariadb", "{}", &m11)
        .unwrap()
        .expect("an IR 1.2 library builds dialects for a server");
    let info = built.info().unwrap();
    assert_eq!(info.server.as_ref(), Some(&m11));
    assert_eq!(repeatable_read(&info).write_reads, WriteReads::Snapshot);
    assert_eq!(
        repeatable_read(&info).write_conflict,
        WriteConflict::BlockThenAbort
    );
    let setup = built
        .session_setup(&SessionRequest {
            isolation: IsolationLevel::RepeatableRead,
            limits: SessionLimits {
                statement_timeout_ms: 1000,
                lock_wait_timeout_ms: 1000,
            },
        })
        .unwrap();
    assert!(setup
        .statements
        .contains(&"SET SESSION innodb_snapshot_isolation = ON".to_string()));

    let pinned = lib
        .new_dialect_for_server("mariadb", r#"{"snapshot_isolation": false}"#, &m11)
        .unwrap()
        .unwrap()
        .info()
        .unwrap();
    assert_eq!(
        repeatable_read(&pinned).write_reads,
        WriteReads::LatestCommitted
    );

    // MariaDB 10.11 before 10.11.8 has no such variable: OFF, and the
    // pipeline cannot ask for ON.
    let old = server("10.11.6-MariaDB", &[]);
    let info = lib
        .new_dialect_for_server("mariadb", "{}", &old)
        .unwrap()
        .unwrap()
        .info()
        .unwrap();
    assert_eq!(
        repeatable_read(&info).write_reads,
        WriteReads::LatestCommitted
    );
    let Err(e) = lib.new_dialect_for_server("mariadb", r#"{"snapshot_isolation": true}"#, &old)
    else {
        panic!("ON on a server without the variable must be refused");
    };
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    assert!(e.message.contains("10.11.8"), "{e}");
}

const IR_1_1: &str = "txlab-fixture-ir-1-1";

/// A library built for IR 1.1 loads, and has no dialect for a server: the
/// host keeps the one it built.
#[test]
fn a_library_built_for_ir_1_1_loads_and_builds_no_dialect_for_a_server() {
    let lib = PluginLibrary::load(&common::library(IR_1_1)).unwrap();
    assert_eq!(lib.manifest.ir, IrVersion { major: 1, minor: 1 });
    let dialect = lib.new_dialect("sqlite-ir-1-1", "{}").unwrap();
    assert_eq!(dialect.info().unwrap().name, "sqlite");
    assert!(lib
        .new_dialect_for_server("sqlite-ir-1-1", "{}", &server("3.46", &[]))
        .unwrap()
        .is_none());
}

/// A dialect built for a server of another flavor is refused, naming the
/// entry that fits; the `galera` entry refuses a server that is no Galera
/// node.
#[test]
fn a_dialect_refuses_a_server_of_another_flavor() {
    let lib = PluginLibrary::load(&common::library("txlab-dialect-mysql")).unwrap();
    let mariadb = server("11.8.9-MariaDB-0+deb13u1", &[("wsrep_on", "OFF")]);
    let mysql = server("9.7.4-2", &[]);
    for (entry, on, fits) in [
        ("mysql", &mariadb, "`mariadb`"),
        ("mariadb", &mysql, "`mysql`"),
        ("galera", &mariadb, "not a node of a Galera cluster"),
    ] {
        let Err(e) = lib.new_dialect_for_server(entry, "{}", on) else {
            panic!("{entry} on {} must be refused", on.version);
        };
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG, "{entry}");
        assert!(e.message.contains(fits), "{entry}: {e}");
    }
    assert!(lib
        .new_dialect_for_server("mysql", "{}", &mysql)
        .unwrap()
        .is_some());
}
