//! Property: serial runs of the random generator's cases with subqueries,
//! joins, aggregates and INSERT … SELECT never give TxCheck a finding, on every dialect whose
//! levels forbid dirty reads. Generator and oracle are the real plugin
//! libraries, loaded with dlopen; the runs are the testkit interpreter's.

mod common;

use txlab_loader::PluginLibrary;
use txlab_plugin_api::ir::*;
use txlab_testkit::serial_history;

const GENERATOR_CONFIG: &str = r#"{
    "subquery_probability": 0.3,
    "rows": [2, 6],
    "weights": {"query": 3, "insert_select": 2}
}"#;

#[test]
fn serial_runs_of_queries_never_give_a_finding() {
    let random = PluginLibrary::load(&common::library("txlab-generator-random")).unwrap();
    let txcheck = PluginLibrary::load(&common::library("txlab-oracle-txcheck")).unwrap();
    let dialects = [
        ("txlab-dialect-sqlite", "sqlite"),
        ("txlab-dialect-mysql", "mariadb"),
        ("txlab-dialect-postgres", "postgres"),
    ];
    let (mut passed, mut autocommit, mut unnumbered) = (0, 0, 0);
    for (krate, name) in dialects {
        let lib = PluginLibrary::load(&common::library(krate)).unwrap();
        let dialect = lib.new_dialect(name, "{}").unwrap().info().unwrap();
        let levels: Vec<IsolationLevel> = dialect
            .levels
            .iter()
            .filter(|l| l.snapshot != SnapshotPoint::None)
            .map(|l| l.level)
            .collect();
        let mut generator = random
            .new_generator(
                "random",
                GENERATOR_CONFIG,
                &GeneratorContext {
                    dialect: dialect.clone(),
                    levels,
                },
            )
            .unwrap();
        let mut oracle = txcheck
            .new_oracle(
                "txcheck",
                "{}",
                &OracleContext {
                    dialect: dialect.clone(),
                },
            )
            .unwrap();
        let (mut aggregates, mut insert_selects) = (0, 0);
        for index in 0..100u64 {
            let raw = generator.next_case(CaseRequest::new(5, index)).unwrap();
            aggregates += raw
                .transactions
                .iter()
                .flat_map(|t| &t.statements)
                .filter(|s| match s {
                    Statement::Query(q) => q.projection.iter().any(Expr::has_aggregate),
                    _ => false,
                })
                .count();
            insert_selects += raw
                .transactions
                .iter()
                .flat_map(|t| &t.statements)
                .filter(|s| matches!(s, Statement::InsertSelect(_)))
                .count();
            let case = oracle.prepare(&raw).unwrap();
            let n = case.transactions.len();
            for order in [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()] {
                let history = serial_history(&case, &order);
                let mut db = txlab_testkit::MemoryDb::new();
                let input = CheckInput {
                    case: case.clone(),
                    history,
                };
                match oracle.check(&input, &mut db).unwrap() {
                    Verdict::Pass => passed += 1,
                    // Its added reads would be transactions of their own.
                    Verdict::Undecided { reason } if reason.contains("autocommit") => {
                        autocommit += 1
                    }
                    // Rows TxCheck's keys cannot number.
                    Verdict::Undecided { reason }
                        if reason.contains("no item keys of their own") =>
                    {
                        unnumbered += 1
                    }
                    other => panic!("{name}, case {index}, order {order:?}: {other:?}"),
                }
            }
        }
        assert!(aggregates > 10, "{name}: only {aggregates} aggregates");
        assert!(
            insert_selects > 10,
            "{name}: only {insert_selects} INSERT … SELECT"
        );
    }
    eprintln!(
        "{passed} passed, undecided: {autocommit} (autocommit statements), {unnumbered} (INSERT … SELECT rows without keys)"
    );
    assert!(
        unnumbered * 4 < passed,
        "{unnumbered} cases with rows TxCheck cannot number"
    );
    assert!(passed >= 3 * 100, "only {passed} serial runs passed");
}
