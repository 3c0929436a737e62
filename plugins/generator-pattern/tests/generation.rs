//! Determinism, selection, levels, coverage of the statement forms, and the
//! exported entry.

mod common;

use common::*;
use std::collections::BTreeSet;
use txlab_generator_pattern::{distinct_patterns, Config, PatternGenerator, CATALOGUE};
use txlab_loader::GeneratorHandle;
use txlab_plugin_api::prelude::*;

fn mariadb() -> DialectInfo {
    dialects()
        .into_iter()
        .find(|(n, _)| *n == "mariadb")
        .unwrap()
        .1
        .info()
}

fn json(case: &TestCase) -> String {
    serde_json::to_string(case).unwrap()
}

#[test]
fn the_same_request_gives_the_same_case() {
    let ctx = context_for(&mariadb());
    let mut first = generator(Config::default(), ctx.clone());
    let mut second = generator(Config::default(), ctx.clone());
    for index in 0..50 {
        let request = CaseRequest::new(7, index);
        assert_eq!(
            json(&first.next_case(request).unwrap()),
            json(&second.next_case(request).unwrap())
        );
    }
    // Earlier requests leave no trace.
    let mut fresh = generator(Config::default(), ctx);
    let request = CaseRequest::new(7, 9);
    assert_eq!(
        json(&fresh.next_case(request).unwrap()),
        json(&first.next_case(request).unwrap())
    );
}

#[test]
fn other_seeds_give_other_cases() {
    let ctx = context_for(&mariadb());
    // Also for one fixed pattern: the schema, rows and statements vary.
    for config in [Config::default(), named(&["lost-update"])] {
        let mut g = generator(config, ctx.clone());
        let cases: BTreeSet<String> = (0..100)
            .map(|i| json(&g.next_case(CaseRequest::new(1, i)).unwrap()))
            .collect();
        assert_eq!(cases.len(), 100);
        let a = g.next_case(CaseRequest::new(1, 0)).unwrap();
        let b = g.next_case(CaseRequest::new(2, 0)).unwrap();
        assert_ne!(json(&a), json(&b));
    }
}

/// By default a case's pattern is one its level forbids, and over many
/// cases every such pattern comes up.
#[test]
fn forbidden_patterns_of_each_level_all_come_up() {
    let info = mariadb();
    for level in [
        IsolationLevel::ReadUncommitted,
        IsolationLevel::ReadCommitted,
        IsolationLevel::RepeatableRead,
        IsolationLevel::Serializable,
    ] {
        let ctx = GeneratorContext {
            dialect: info.clone(),
            levels: vec![level],
        };
        let g = generator(Config::default(), ctx);
        let mut seen = BTreeSet::new();
        for index in 0..1500 {
            let inst = g.instance(CaseRequest::new(3, index));
            let intent = inst.case.intent.clone().unwrap();
            assert!(
                intent.forbidden_at.contains(&level),
                "{intent:?} at {level}"
            );
            assert!(inst.case.transactions.iter().all(|t| t.isolation == level));
            seen.insert(intent.pattern);
        }
        let expected: BTreeSet<String> = distinct_patterns()
            .iter()
            .filter(|p| p.forbidden_at(level))
            .map(|p| p.spec.name.to_string())
            .collect();
        assert_eq!(seen, expected, "{level}");
        assert!(expected.len() >= 15, "{level}: {expected:?}");
    }
}

#[test]
fn mixed_levels_draw_per_transaction_and_stay_forbidden() {
    let info = mariadb();
    let config = Config {
        mixed_isolation: true,
        ..Config::default()
    };
    let ctx = context_for(&info);
    let g = generator(config, ctx.clone());
    let mut seen = Seen::default();
    for index in 0..300 {
        let inst = g.instance(CaseRequest::new(5, index));
        let intent = inst.case.intent.clone().unwrap();
        for t in &inst.case.transactions {
            assert!(intent.forbidden_at.contains(&t.isolation), "{intent:?}");
        }
        check_realises(&inst, &info.features, &ctx.levels).unwrap();
        seen.record(&inst);
    }
    assert!(seen.mixed > 100, "{seen:?}");
    assert_eq!(seen.levels.len(), ctx.levels.len());
}

/// The settings' variants all occur: inserts, deletes, predicates, locking
/// reads of both kinds, filler statements of every kind, items in two tables.
#[test]
fn every_statement_form_comes_up() {
    let info = mariadb();
    let ctx = context_for(&info);
    let g = generator(varied(&["all"]), ctx.clone());
    let mut seen = Seen::default();
    for index in 0..400 {
        let inst = g.instance(CaseRequest::new(9, index));
        check_realises(&inst, &info.features, &ctx.levels).unwrap();
        seen.record(&inst);
    }
    for kind in [
        "SELECT",
        "SELECT FOR UPDATE",
        "SELECT FOR SHARE",
        "INSERT",
        "UPDATE",
        "DELETE",
        "COMMIT",
        "ROLLBACK",
    ] {
        assert!(seen.kinds.contains_key(kind), "{kind}: {seen:?}");
    }
    assert_eq!(
        seen.filler_kinds,
        [
            "DELETE",
            "INSERT",
            "SELECT",
            "SELECT FOR SHARE",
            "SELECT FOR UPDATE",
            "UPDATE"
        ]
        .into_iter()
        .collect()
    );
    assert!(seen.predicates > 200 && seen.by_key > 100, "{seen:?}");
    assert!(seen.items_apart > 50, "{seen:?}");
    assert_eq!(
        seen.patterns.len(),
        CATALOGUE.len() - 1,
        "aptrans-38 repeats write-skew"
    );

    // The defaults: by key mostly, a few filler statements, one or two tables.
    let g = generator(Config::default(), ctx.clone());
    let mut seen = Seen::default();
    for index in 0..300 {
        seen.record(&g.instance(CaseRequest::new(9, index)));
    }
    assert!(seen.by_key > 2 * seen.predicates, "{seen:?}");
    assert!(seen.two_tables > 50 && seen.two_tables < 250, "{seen:?}");
}

/// SQLite has no locking reads, CockroachDB and TiDB no FOR SHARE: the
/// generator uses what each has.
#[test]
fn locking_reads_follow_the_dialect() {
    for (name, dialect) in dialects() {
        let info = dialect.info();
        let ctx = context_for(&info);
        let g = generator(varied(&["all"]), ctx.clone());
        let mut locks = BTreeSet::new();
        for index in 0..200 {
            let inst = g.instance(CaseRequest::new(2, index));
            check_realises(&inst, &info.features, &ctx.levels).unwrap();
            for t in &inst.case.transactions {
                for s in &t.statements {
                    if let Statement::Select(s) = s {
                        locks.insert(format!("{:?}", s.lock));
                    }
                }
            }
        }
        let expected: BTreeSet<String> = [
            Some("None"),
            info.features.select_for_update.then_some("ForUpdate"),
            info.features.select_for_share.then_some("ForShare"),
        ]
        .into_iter()
        .flatten()
        .map(String::from)
        .collect();
        assert_eq!(locks, expected, "{name}");
    }
}

#[test]
fn named_patterns_anomalies_and_phenomena_select() {
    let ctx = context_for(&mariadb());
    let cases = |patterns: &[&str]| -> BTreeSet<String> {
        let g = generator(named(patterns), ctx.clone());
        (0..200)
            .map(|i| {
                g.instance(CaseRequest::new(4, i))
                    .case
                    .intent
                    .unwrap()
                    .pattern
            })
            .collect()
    };
    assert_eq!(cases(&["aptrans-36"]), ["aptrans-36".to_string()].into());
    assert_eq!(
        cases(&["write skew"]),
        ["write-skew", "aptrans-37", "aptrans-39", "aptrans-40"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        cases(&["G1b", "dirty-read"]),
        ["dirty-read", "aptrans-3"].map(String::from).into()
    );
}

#[test]
fn new_rejects_unusable_contexts() {
    let info = mariadb();
    let new = |config: Config, ctx: GeneratorContext| {
        <PatternGenerator as GeneratorPlugin>::new(config, ctx)
            .err()
            .unwrap()
    };
    let e = new(
        Config::default(),
        GeneratorContext {
            dialect: info.clone(),
            levels: Vec::new(),
        },
    );
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    assert!(e.message.contains("no isolation level"), "{e}");

    let mut no_integers = info.clone();
    no_integers.features.column_types = vec![ColumnType::Text];
    let e = new(Config::default(), context_for(&no_integers));
    assert!(e.message.contains("neither INT nor BIGINT"), "{e}");

    let e = new(named(&["lost-updates"]), context_for(&info));
    assert!(e.message.starts_with("patterns: \"lost-updates\""), "{e}");

    let bad = Config {
        filler_rows: [4, 1],
        ..Config::default()
    };
    let e = new(bad, context_for(&info));
    assert!(e.message.starts_with("filler_rows:"), "{e}");
}

#[test]
fn a_dialect_with_only_integers_gets_no_filler_columns() {
    let mut info = mariadb();
    info.features.column_types = vec![ColumnType::BigInt];
    let ctx = context_for(&info);
    let g = generator(Config::default(), ctx.clone());
    for index in 0..50 {
        let inst = g.instance(CaseRequest::new(1, index));
        check_realises(&inst, &info.features, &ctx.levels).unwrap();
        for t in &inst.case.schema.tables {
            assert!(t.columns.iter().all(|c| c.ty == ColumnType::BigInt));
        }
    }
}

#[test]
fn the_exported_entry_builds_a_working_generator() {
    let entry = &txlab_generator_pattern::TXLAB_EXPORTED_LIBRARY.generators[0];
    assert_eq!(entry.name, "pattern");
    assert!(entry.default_config.contains("patterns = [\"forbidden\"]"));
    assert!(entry.default_config.contains("aptrans-40"));

    let ctx = context_for(&mariadb());
    let mut handle = GeneratorHandle::from_plugin::<PatternGenerator>(
        r#"{"patterns":["lost-update"],"tables":[1,1]}"#,
        ctx.clone(),
    )
    .unwrap();
    let request = CaseRequest::new(4, 2);
    let through_abi = handle.next_case(request).unwrap();
    let config = Config {
        tables: [1, 1],
        ..named(&["lost-update"])
    };
    let direct = generator(config, ctx.clone()).next_case(request).unwrap();
    assert_eq!(through_abi, direct);
    assert_eq!(through_abi.intent.unwrap().pattern, "lost-update");

    let e = GeneratorHandle::from_plugin::<PatternGenerator>(r#"{"tables":[3,3]}"#, ctx)
        .err()
        .unwrap();
    assert!(e.message.starts_with("tables:"), "{e}");
}

#[test]
fn consistent_snapshot_start_begins_so_where_the_dialect_has_it() {
    for (name, dialect) in dialects() {
        let info = dialect.info();
        let ctx = context_for(&info);
        let config = Config {
            consistent_snapshot_start: true,
            mixed_isolation: true,
            ..varied(&["all"])
        };
        let g = generator(config, ctx.clone());
        let mut at_once = 0;
        for index in 0..200 {
            let inst = g.instance(CaseRequest::new(4, index));
            check_realises(&inst, &info.features, &ctx.levels).unwrap();
            for t in &inst.case.transactions {
                let expected = if info.features.snapshot_begin_levels.contains(&t.isolation) {
                    at_once += 1;
                    Statement::BeginSnapshot
                } else {
                    Statement::Begin
                };
                assert_eq!(t.statements[0], expected, "{name} {}", t.isolation);
            }
            dialect
                .render_case(&inst.case, &txlab_testkit::dialect::LIMITS)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(
            at_once > 0,
            !info.features.snapshot_begin_levels.is_empty(),
            "{name}"
        );
    }
}
