//! Generated cases → repro.sql (rendered by each dialect family's library,
//! written by the writer the host uses) → import → the same case.
//!
//! Compared after one normalisation on both sides, for what SQL cannot tell
//! apart (docs/import.md): a primary-key column is NOT NULL (the renderer
//! declares it so); a top-level query over one table without alias, join,
//! GROUP BY or aggregate is the SELECT it renders as; a table's initial rows
//! without rows are not rendered. The seed and the generator come back from
//! the header; the random generator sets no intent.

use txlab_generator_random::RandomGenerator;
use txlab_plugin_api::prelude::*;
use txlab_script::repro::{repro_sql, ReproHeader};
use txlab_script::{import, Family, ImportOptions};

const CASES_PER_DIALECT: u64 = 334;

fn normalise(mut case: TestCase) -> TestCase {
    for t in &mut case.schema.tables {
        let pk = t.primary_key.clone();
        for c in &mut t.columns {
            c.not_null |= pk.contains(&c.name);
        }
    }
    case.initial_rows.retain(|r| !r.rows.is_empty());
    for t in &mut case.transactions {
        for s in &mut t.statements {
            if let Statement::Query(q) = s {
                let plain = q.alias.is_none()
                    && q.joins.is_empty()
                    && q.group_by.is_empty()
                    && !q
                        .projection
                        .iter()
                        .chain(&q.order_by)
                        .any(Expr::has_aggregate);
                if plain {
                    *s = Statement::Select(Select {
                        table: q.table.clone(),
                        projection: Projection::Exprs(q.projection.clone()),
                        filter: q.filter.clone(),
                        order_by: q.order_by.clone(),
                        lock: RowLock::None,
                    });
                }
            }
        }
    }
    case
}

fn generator(info: DialectInfo) -> RandomGenerator {
    let config = serde_json::from_value(serde_json::json!({
        "transactions": [2, 4],
        "statements": [1, 6],
        "mixed_isolation": true,
        "subquery_probability": 0.3,
        "weights": {"select": 4, "insert": 2, "update": 3, "delete": 1, "query": 2, "insert_select": 1}
    }))
    .unwrap();
    let levels = info.levels.iter().map(|l| l.level).collect();
    RandomGenerator::new(
        config,
        GeneratorContext {
            dialect: info,
            levels,
        },
    )
    .unwrap()
}

/// Round-trips `CASES_PER_DIALECT` cases through `dialect`; returns the
/// cases and statements compared.
fn round_trip<D: Dialect>(dialect: &D, family: Family) -> (u64, usize) {
    let info = dialect.info();
    let gen = generator(info.clone());
    let limits = SessionLimits {
        statement_timeout_ms: 5000,
        lock_wait_timeout_ms: 8000,
    };
    let mut statements = 0;
    for index in 0..CASES_PER_DIALECT {
        let request = CaseRequest {
            run_seed: 11,
            index,
            seed: 1000 + index,
        };
        let mut case = gen.generate(request);
        // Some cases carry the pace a finding needed, as a reduction saves it.
        if index % 5 == 0 {
            case.pace_ms = Some(50 + 50 * (index % 4));
        }
        let rendered = dialect.render_case(&case, &limits).unwrap();
        let header = ReproHeader {
            lead: "txlab finding: round trip",
            oracle: "none",
            dialect: &info.name,
            generator: &case.generator,
            request,
        };
        let sql = repro_sql(&header, &case, &rendered, &History::default());
        let options = ImportOptions {
            family,
            ..ImportOptions::default()
        };
        let imported = import("repro.sql", &sql, &options)
            .unwrap_or_else(|e| panic!("{} case {index}: {e}\n{sql}", info.name));
        let (want, got) = (normalise(case), normalise(imported.case));
        if want != got {
            let w = serde_json::to_string_pretty(&want).unwrap();
            let g = serde_json::to_string_pretty(&got).unwrap();
            let line = w
                .lines()
                .zip(g.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let context = |t: &str| {
                t.lines()
                    .skip(line.saturating_sub(12))
                    .take(20)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "{} case {index} differs after the round trip at JSON line {line}:\nwanted\n{}\ngot\n{}\n{sql}",
                info.name,
                context(&w),
                context(&g)
            );
        }
        statements += want.statement_count();
    }
    (CASES_PER_DIALECT, statements)
}

#[test]
fn generated_cases_come_back_from_their_repro_sql() {
    let mariadb =
        <txlab_mysql::MariadbDialect as DialectPlugin>::new(serde_json::from_str("{}").unwrap())
            .unwrap();
    let postgres = <txlab_postgres::PostgresDialect as DialectPlugin>::new(
        serde_json::from_str("{}").unwrap(),
    )
    .unwrap();
    let runs = [
        (
            "sqlite",
            round_trip(&txlab_sqlite::SqliteDialect, Family::Sqlite),
        ),
        ("mariadb", round_trip(&mariadb, Family::Mysql)),
        ("postgres", round_trip(&postgres, Family::Postgres)),
    ];
    let (mut cases, mut statements) = (0, 0);
    for (name, (c, s)) in runs {
        println!("{name}: {c} cases, {s} statements compared");
        cases += c;
        statements += s;
    }
    println!("round trip: {cases} cases, {statements} statements compared");
    assert!(cases >= 1000, "{cases}");
}
