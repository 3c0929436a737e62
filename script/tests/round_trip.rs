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

/// A run of `case` in which the statement at submitted position `k`
/// blocked: sent at its turn, its transaction's later statements held,
/// resumed after two statements of other transactions completed (or when
/// nothing else could run), as the schedule executor records it.
fn blocked_run(case: &TestCase, k: usize) -> History {
    let b = case.submitted_order[k];
    let mut statements: Vec<Vec<StatementRecord>> = case
        .transactions
        .iter()
        .enumerate()
        .map(|(t, txn)| {
            (0..txn.statements.len())
                .map(|s| StatementRecord {
                    at: StatementRef::new(t, s),
                    sql: String::new(),
                    submitted_us: None,
                    completed_us: None,
                    blocked: None,
                    outcome: Outcome::Done,
                })
                .collect()
        })
        .collect();
    let mut pending: Vec<StatementRef> = case.submitted_order.clone();
    let (mut now, mut completion): (u64, Vec<StatementRef>) = (0, Vec::new());
    // While `b` waits: how many statements completed since.
    let mut waiting: Option<u32> = None;
    loop {
        let next = pending
            .iter()
            .position(|at| waiting.is_none() || at.txn != b.txn);
        let resume = match next {
            None if waiting.is_none() => break,
            None => true,
            Some(i) => {
                let at = pending.remove(i);
                now += 10;
                let r = &mut statements[at.txn()][at.stmt()];
                r.submitted_us = Some(now);
                if at == b {
                    r.blocked = Some(Blocking {
                        detected_us: now + 1,
                        evidence: BlockEvidence::Probe,
                        resumed_after: None,
                    });
                    waiting = Some(0);
                    continue;
                }
                r.completed_us = Some(now + 5);
                completion.push(at);
                waiting.as_mut().is_some_and(|n| {
                    *n += 1;
                    *n == 2
                })
            }
        };
        if resume {
            now += 10;
            let after = completion.last().copied();
            let r = &mut statements[b.txn()][b.stmt()];
            r.completed_us = Some(now);
            if let Some(blocking) = &mut r.blocked {
                blocking.resumed_after = after;
            }
            completion.push(b);
            waiting = None;
        }
    }
    History {
        statements,
        transactions: case
            .transactions
            .iter()
            .map(|t| TransactionRecord {
                isolation: t.isolation,
                end: TxnEnd::Committed,
                ended_us: None,
            })
            .collect(),
        completion_order: completion,
        ..History::default()
    }
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
fn round_trip<D: Dialect>(dialect: &D, family: Family) -> (u64, usize, u64) {
    let info = dialect.info();
    let gen = generator(info.clone());
    let limits = SessionLimits {
        statement_timeout_ms: 5000,
        lock_wait_timeout_ms: 8000,
    };
    let (mut statements, mut reordered) = (0, 0);
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
            notes: &[],
        };
        // Every third case as if a statement had blocked: the script lists
        // the statements as they ran and keeps the submitted order in its
        // header.
        let history = match index % 3 {
            1 => blocked_run(&case, (index as usize) % case.submitted_order.len()),
            _ => History::default(),
        };
        let sql = repro_sql(&header, &case, &rendered, &history);
        reordered += u64::from(sql.contains("\n-- submitted order: "));
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
    (CASES_PER_DIALECT, statements, reordered)
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
    let (mut cases, mut statements, mut reordered) = (0, 0, 0);
    for (name, (c, s, r)) in runs {
        println!("{name}: {c} cases, {s} statements compared, {r} written in another order than submitted");
        cases += c;
        statements += s;
        reordered += r;
    }
    println!("round trip: {cases} cases, {statements} statements compared, {reordered} reordered");
    assert!(cases >= 1000, "{cases}");
    // The blocked runs exercise the submitted order in the header.
    assert!(reordered >= 100, "{reordered}");
}
