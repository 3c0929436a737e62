//! The elle generator: deterministic per seed, unique elements per key,
//! keys in generations, and every case renders on every shipped dialect in
//! the shape the stream executor reads back.

use std::collections::{BTreeSet, HashSet};
use txlab_generator_elle::{Config, ElleGenerator};
use txlab_history::formats::sql_list::{decode, SqlMop};
use txlab_mysql::{MariadbDialect, MysqlDialect};
use txlab_plugin_api::prelude::*;
use txlab_postgres::PostgresDialect;
use txlab_sqlite::SqliteDialect;

fn dialects() -> Vec<(&'static str, Box<dyn Dialect>)> {
    fn made<D: DialectPlugin + 'static>() -> Box<dyn Dialect>
    where
        D::Config: Default,
    {
        Box::new(<D as DialectPlugin>::new(Default::default()).unwrap())
    }
    vec![
        ("sqlite", made::<SqliteDialect>()),
        ("mysql", made::<MysqlDialect>()),
        ("mariadb", made::<MariadbDialect>()),
        ("postgres", made::<PostgresDialect>()),
    ]
}

fn generator(dialect: &dyn Dialect, config: Config) -> ElleGenerator {
    let info = dialect.info();
    let levels = info.levels.iter().map(|l| l.level).collect();
    <ElleGenerator as GeneratorPlugin>::new(
        config,
        GeneratorContext {
            dialect: info,
            levels,
        },
    )
    .unwrap()
}

fn render(name: &str, dialect: &dyn Dialect, case: &TestCase) -> RenderedCase {
    dialect
        .render_case(
            case,
            &SessionLimits {
                statement_timeout_ms: 5000,
                lock_wait_timeout_ms: 8000,
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn mops(case: &TestCase) -> Vec<SqlMop> {
    case.transactions
        .iter()
        .flat_map(|t| &t.statements)
        .filter_map(|s| decode("elle_list", s))
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_case_and_another_seed_another() {
    let (_, d) = dialects().remove(0);
    let mut g = generator(d.as_ref(), Config::default());
    let mut h = generator(d.as_ref(), Config::default());
    let mut differ = 0;
    for index in 0..50 {
        let a = g.next_case(CaseRequest::new(7, index)).unwrap();
        let b = h.next_case(CaseRequest::new(7, index)).unwrap();
        assert_eq!(a, b, "case {index}");
        let c = h.next_case(CaseRequest::new(8, index)).unwrap();
        differ += usize::from(a != c);
    }
    assert!(
        differ > 40,
        "only {differ} of 50 cases differ between seeds"
    );
}

#[test]
fn elements_are_unique_and_keys_change_with_the_generation() {
    let (_, d) = dialects().remove(2);
    let config = Config::default();
    let mut g = generator(d.as_ref(), config.clone());
    let mut elements = HashSet::new();
    let mut keys_by_generation: Vec<BTreeSet<i64>> = Vec::new();
    let mut levels = BTreeSet::new();
    let mut reads = 0;
    for index in 0..(3 * config.cases_per_generation) {
        let case = g.next_case(CaseRequest::new(3, index)).unwrap();
        let generation = (index / config.cases_per_generation) as usize;
        keys_by_generation.resize(generation + 1, BTreeSet::new());
        levels.extend(case.transactions.iter().map(|t| t.isolation));
        let mut ensured = BTreeSet::new();
        for mop in mops(&case) {
            match mop {
                SqlMop::Append { key, value } => {
                    assert!(elements.insert(value), "element {value} appended twice");
                    assert!(
                        ensured.contains(&key),
                        "key {key} appended before it was ensured"
                    );
                    keys_by_generation[generation].insert(key);
                }
                SqlMop::Read { key } => {
                    reads += 1;
                    assert!(
                        ensured.contains(&key),
                        "key {key} read outside its generation"
                    );
                    keys_by_generation[generation].insert(key);
                }
                SqlMop::Write { .. } => panic!("a register write in a list-append workload"),
                SqlMop::Ensure { keys } => {
                    // The whole generation, ascending: its first key is the
                    // session's floor.
                    assert_eq!(keys.len(), config.keys as usize);
                    assert!(keys.windows(2).all(|w| w[0] + 1 == w[1]), "{keys:?}");
                    keys_by_generation[generation].extend(keys.iter().copied());
                    ensured.extend(keys);
                }
            }
        }
    }
    assert!(reads > 0);
    for (g, keys) in keys_by_generation.iter().enumerate() {
        assert!(keys.len() <= config.keys as usize, "{keys:?}");
        for later in &keys_by_generation[g + 1..] {
            assert!(keys.is_disjoint(later), "generations share keys");
        }
    }
    // MariaDB offers four levels; mixed levels use them all.
    assert_eq!(levels.len(), 4, "{levels:?}");
}

#[test]
fn cases_render_on_every_dialect_as_the_stream_executor_reads_them() {
    for (name, d) in dialects() {
        let mut g = generator(d.as_ref(), Config::default());
        let case = g.next_case(CaseRequest::new(11, 0)).unwrap();
        let rendered = render(name, d.as_ref(), &case);
        let sql: Vec<&String> = rendered
            .transactions
            .iter()
            .flat_map(|t| &t.statements)
            .collect();
        let update = sql
            .iter()
            .find(|s| s.starts_with("UPDATE"))
            .expect("an append");
        match name {
            "mysql" | "mariadb" => assert!(update.contains("CONCAT("), "{name}: {update}"),
            _ => assert!(update.contains("||"), "{name}: {update}"),
        }
        let insert = sql
            .iter()
            .find(|s| s.starts_with("INSERT"))
            .expect("an ensure");
        match name {
            "postgres" => assert!(insert.contains("ON CONFLICT DO NOTHING"), "{insert}"),
            "sqlite" => assert!(insert.contains("OR IGNORE"), "{insert}"),
            _ => assert!(insert.contains("INSERT IGNORE"), "{insert}"),
        }
        assert!(
            rendered.create.iter().any(|c| c.contains("PRIMARY KEY")),
            "{name}"
        );
    }
}

#[test]
fn registers_write_unique_values_and_render_as_plain_updates() {
    let config: Config = toml::from_str("workload = \"rw-register\"").unwrap();
    for (name, d) in dialects() {
        let mut g = generator(d.as_ref(), config.clone());
        let mut values = HashSet::new();
        let (mut writes, mut reads) = (0, 0);
        for index in 0..40 {
            let case = g.next_case(CaseRequest::new(5, index)).unwrap();
            assert_eq!(case.schema.tables[0].name, "elle_register");
            for mop in case
                .transactions
                .iter()
                .flat_map(|t| &t.statements)
                .filter_map(|s| decode("elle_register", s))
            {
                match mop {
                    SqlMop::Write { key, value } => {
                        writes += 1;
                        assert!(values.insert((key, value)), "{key} = {value} twice");
                    }
                    SqlMop::Read { .. } => reads += 1,
                    SqlMop::Ensure { .. } => {}
                    SqlMop::Append { .. } => panic!("an append in a register workload"),
                }
            }
            if index == 0 {
                let rendered = render(name, d.as_ref(), &case);
                for s in rendered.transactions.iter().flat_map(|t| &t.statements) {
                    assert!(!s.contains("CONCAT(") && !s.contains("||"), "{name}: {s}");
                }
            }
        }
        assert!(
            writes > 20 && reads > 20,
            "{name}: {writes} writes, {reads} reads"
        );
    }
}
