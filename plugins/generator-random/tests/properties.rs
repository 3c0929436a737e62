//! Determinism, validity and coverage of generated cases.

mod common;

use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;
use txlab_generator_random::{Config, RandomGenerator, Weights};
use txlab_loader::GeneratorHandle;
use txlab_plugin_api::prelude::*;

const SER: &[IsolationLevel] = &[IsolationLevel::Serializable];
const THREE_LEVELS: &[IsolationLevel] = &[
    IsolationLevel::ReadCommitted,
    IsolationLevel::RepeatableRead,
    IsolationLevel::Serializable,
];

#[test]
fn the_same_request_gives_the_same_case() {
    let mut first = generator(Config::default(), everything_features(), THREE_LEVELS);
    let mut second = generator(Config::default(), everything_features(), THREE_LEVELS);
    for index in 0..50 {
        let request = CaseRequest::new(7, index);
        assert_eq!(
            json(&case(&mut first, request)),
            json(&case(&mut second, request))
        );
    }
    // Earlier requests leave no trace: case 9 alone equals case 9 after 0..=8.
    let mut fresh = generator(Config::default(), everything_features(), THREE_LEVELS);
    let request = CaseRequest::new(7, 9);
    assert_eq!(
        json(&case(&mut fresh, request)),
        json(&case(&mut first, request))
    );
}

#[test]
fn different_seeds_give_different_cases() {
    let mut g = generator(Config::default(), sqlite_features(), SER);
    let cases: BTreeSet<String> = (0..100)
        .map(|i| json(&case(&mut g, CaseRequest::new(1, i))))
        .collect();
    assert_eq!(cases.len(), 100);
    let a = case(&mut g, CaseRequest::new(1, 0));
    let b = case(&mut g, CaseRequest::new(2, 0));
    assert_ne!(a.schema, b.schema);
}

#[test]
fn cases_of_a_group_share_schema_and_rows() {
    let config = Config {
        cases_per_schema: 3,
        ..Config::default()
    };
    let mut g = generator(config, sqlite_features(), SER);
    let cases: Vec<TestCase> = (0..9)
        .map(|i| case(&mut g, CaseRequest::new(11, i)))
        .collect();
    let database = |c: &TestCase| json_of(&(c.schema.clone(), c.initial_rows.clone()));
    for group in cases.chunks(3) {
        assert_eq!(database(&group[0]), database(&group[1]));
        assert_eq!(database(&group[0]), database(&group[2]));
        // The transactions still come from each case's own seed.
        assert_ne!(group[0].transactions, group[1].transactions);
    }
    assert_ne!(database(&cases[0]), database(&cases[3]));
    assert_ne!(database(&cases[3]), database(&cases[6]));
    // Another run seed gives other databases for the same indexes.
    let other = case(&mut g, CaseRequest::new(12, 0));
    assert_ne!(database(&cases[0]), database(&other));
}

#[test]
fn without_groups_each_case_has_its_own_database() {
    let mut g = generator(Config::default(), sqlite_features(), SER);
    let a = case(&mut g, CaseRequest::new(11, 0));
    let b = case(&mut g, CaseRequest::new(11, 1));
    assert_ne!(
        json_of(&(&a.schema, &a.initial_rows)),
        json_of(&(&b.schema, &b.initial_rows))
    );
}

fn json_of<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

/// What a batch of cases used, to show that every feature is reachable.
#[derive(Default)]
struct Seen {
    kinds: BTreeSet<&'static str>,
    exprs: BTreeSet<&'static str>,
    tables: BTreeSet<&'static str>,
    types: BTreeSet<String>,
    levels: BTreeSet<IsolationLevel>,
    mixed_case: bool,
}

impl Seen {
    fn record(&mut self, case: &TestCase) {
        for table in &case.schema.tables {
            for column in &table.columns {
                self.types.insert(format!("{:?}", column.ty));
            }
            let pk: Vec<_> = table
                .primary_key
                .iter()
                .map(|c| table.column(c).unwrap().ty)
                .collect();
            self.tables.insert(match pk.as_slice() {
                [] => "no primary key",
                [ColumnType::Int] => "INT primary key",
                [_] => "other primary key",
                _ => "composite primary key",
            });
            if !table.unique.is_empty() {
                self.tables.insert("unique constraint");
            }
            if table
                .columns
                .iter()
                .any(|c| c.not_null && !table.primary_key.contains(&c.name))
            {
                self.tables.insert("not null");
            }
            for index in &table.indexes {
                self.tables.insert(if index.unique {
                    "unique index"
                } else {
                    "index"
                });
            }
        }
        let first = case.transactions[0].isolation;
        self.mixed_case |= case.transactions.iter().any(|t| t.isolation != first);
        for txn in &case.transactions {
            self.levels.insert(txn.isolation);
            for stmt in &txn.statements {
                self.kinds.insert(stmt.kind_name());
                let exprs: Vec<&Expr> = match stmt {
                    Statement::Select(s) => s.filter.iter().collect(),
                    Statement::Update(u) => {
                        if u.filter.is_none() {
                            self.exprs.insert("UPDATE without WHERE");
                        }
                        u.filter
                            .iter()
                            .chain(u.assignments.iter().map(|a| &a.value))
                            .collect()
                    }
                    Statement::Delete(d) => d.filter.iter().collect(),
                    _ => Vec::new(),
                };
                for e in exprs {
                    e.visit(&mut |node| {
                        self.exprs.insert(match node {
                            Expr::Binary {
                                op: BinaryOp::And, ..
                            } => "AND",
                            Expr::Binary {
                                op: BinaryOp::Or, ..
                            } => "OR",
                            Expr::Binary {
                                op: BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul,
                                ..
                            } => "arithmetic",
                            Expr::Binary {
                                op: BinaryOp::Lt | BinaryOp::Gt | BinaryOp::LtEq | BinaryOp::GtEq,
                                ..
                            } => "order comparison",
                            Expr::Unary {
                                op: UnaryOp::Not, ..
                            } => "NOT",
                            Expr::IsNull { .. } => "IS NULL",
                            Expr::InList { .. } => "IN",
                            Expr::Between { .. } => "BETWEEN",
                            Expr::Literal(Value::Null) => "NULL literal",
                            _ => "other",
                        });
                    });
                }
            }
        }
    }
}

fn check_many(config: Config, features: Features, levels: &[IsolationLevel], seeds: u64) -> Seen {
    let mut g = generator(config.clone(), features.clone(), levels);
    let mut seen = Seen::default();
    for index in 0..seeds {
        let request = CaseRequest::new(0xC0FFEE, index);
        let c = case(&mut g, request);
        if let Err(e) = check_case(&c, request, &config, &features, levels) {
            panic!(
                "{request:?}: {e}\n{}",
                serde_json::to_string_pretty(&c).unwrap()
            );
        }
        seen.record(&c);
    }
    seen
}

fn assert_seen(set: &BTreeSet<&'static str>, expected: &[&str]) {
    for e in expected {
        assert!(set.contains(e), "never generated {e}; saw {set:?}");
    }
}

#[test]
fn cases_for_a_dialect_without_row_locks_are_valid() {
    let seen = check_many(Config::default(), sqlite_features(), SER, 500);
    assert_seen(
        &seen.kinds,
        &[
            "BEGIN",
            "COMMIT",
            "ROLLBACK",
            "SELECT",
            "INSERT",
            "REPLACE",
            "INSERT IGNORE",
            "UPDATE",
            "DELETE",
        ],
    );
    assert!(!seen.kinds.contains("SELECT FOR UPDATE") && !seen.kinds.contains("SELECT FOR SHARE"));
    assert_seen(
        &seen.exprs,
        &[
            "AND",
            "OR",
            "NOT",
            "IS NULL",
            "IN",
            "BETWEEN",
            "arithmetic",
            "order comparison",
            "NULL literal",
            "UPDATE without WHERE",
        ],
    );
    assert_seen(
        &seen.tables,
        &[
            "no primary key",
            "INT primary key",
            "other primary key",
            "composite primary key",
            "unique constraint",
            "not null",
            "index",
            "unique index",
        ],
    );
    assert_eq!(seen.types.len(), ALL_TYPES.len(), "{:?}", seen.types);
}

#[test]
fn cases_for_a_locking_dialect_are_valid() {
    let seen = check_many(Config::default(), locking_features(), SER, 500);
    assert_seen(
        &seen.kinds,
        &["SELECT", "SELECT FOR UPDATE", "SELECT FOR SHARE", "INSERT"],
    );
    assert!(!seen.kinds.contains("REPLACE") && !seen.kinds.contains("INSERT IGNORE"));
}

#[test]
fn only_offered_column_types_are_used() {
    let features = Features {
        // Too short for the generator's strings, and a DECIMAL without room: both unusable.
        column_types: vec![
            ColumnType::Varchar { len: 2 },
            ColumnType::Decimal {
                precision: 3,
                scale: 2,
            },
            ColumnType::BigInt,
            ColumnType::Bool,
        ],
        ..sqlite_features()
    };
    let seen = check_many(Config::default(), features, SER, 200);
    assert_eq!(
        seen.types,
        BTreeSet::from(["BigInt".to_string(), "Bool".to_string()])
    );
    // Without INT, primary keys use another key type.
    assert!(!seen.tables.contains("INT primary key"));
    assert!(seen.tables.contains("other primary key"));
}

#[test]
fn configured_ranges_and_levels_are_honoured() {
    let config = Config {
        tables: [2, 2],
        columns: [1, 7],
        rows: [0, 3],
        transactions: [1, 6],
        statements: [3, 3],
        commit_probability: 1.0,
        mixed_isolation: true,
        ..Config::default()
    };
    let seen = check_many(config, everything_features(), THREE_LEVELS, 300);
    assert!(seen.mixed_case, "mixed_isolation never mixed levels");
    assert_eq!(seen.levels.len(), 3);
    assert!(!seen.kinds.contains("ROLLBACK"));

    let seen = check_many(Config::default(), everything_features(), THREE_LEVELS, 300);
    assert!(!seen.mixed_case);
    assert_eq!(seen.levels.len(), 3, "the case level varies between cases");
}

#[test]
fn weights_select_statement_kinds() {
    let config = Config {
        weights: Weights {
            select: 0,
            insert: 0,
            update: 0,
            delete: 1,
            ..Weights::default()
        },
        commit_probability: 0.0,
        ..Config::default()
    };
    let seen = check_many(config, everything_features(), SER, 50);
    assert_eq!(seen.kinds, BTreeSet::from(["BEGIN", "DELETE", "ROLLBACK"]));
}

/// Literals come mostly from values in the table, so transactions touch the same rows.
#[test]
fn filters_mostly_hit_existing_values() {
    let mut g = generator(Config::default(), sqlite_features(), SER);
    let (mut hits, mut total) = (0, 0);
    for index in 0..200 {
        let c = case(&mut g, CaseRequest::new(3, index));
        for txn in &c.transactions {
            for stmt in &txn.statements {
                let (Statement::Update(Update {
                    filter: Some(f),
                    table,
                    ..
                })
                | Statement::Delete(Delete {
                    filter: Some(f),
                    table,
                })) = stmt
                else {
                    continue;
                };
                let rows = c.initial_rows.iter().find(|r| &r.table == table).unwrap();
                if let Expr::Binary {
                    op: BinaryOp::Eq,
                    left,
                    right,
                } = f
                {
                    if let (Expr::Column(col), Expr::Literal(v)) = (left.as_ref(), right.as_ref()) {
                        let p = rows.columns.iter().position(|n| n == &col.column).unwrap();
                        total += 1;
                        hits += usize::from(rows.rows.iter().any(|r| &r[p] == v));
                    }
                }
            }
        }
    }
    assert!(total > 50, "too few single equality filters: {total}");
    assert!(
        hits * 10 >= total * 6,
        "{hits} of {total} equality filters hit an initial row"
    );
}

#[test]
fn transactions_conflict_on_initial_rows() {
    let mut g = generator(Config::default(), sqlite_features(), SER);
    let cases = 300;
    let conflicting = (0..cases)
        .filter(|&index| has_row_conflict(&case(&mut g, CaseRequest::new(5, index))))
        .count() as u64;
    assert!(
        conflicting * 10 >= cases * 7,
        "only {conflicting} of {cases} cases have a row conflict"
    );
}

/// The primary key values an UPDATE or DELETE pins with `pk = v [AND …]`, if it does.
fn point_write(stmt: &Statement, schema: &Schema) -> Option<(String, Vec<Value>)> {
    let (Statement::Update(Update {
        filter: Some(f),
        table,
        ..
    })
    | Statement::Delete(Delete {
        filter: Some(f),
        table,
    })) = stmt
    else {
        return None;
    };
    let pk = &schema.table(table)?.primary_key;
    let mut equalities = Vec::new();
    let mut conjunction = vec![f];
    while let Some(e) = conjunction.pop() {
        match e {
            Expr::Binary {
                op: BinaryOp::And,
                left,
                right,
            } => {
                conjunction.push(right);
                conjunction.push(left);
            }
            Expr::Binary {
                op: BinaryOp::Eq,
                left,
                right,
            } => match (left.as_ref(), right.as_ref()) {
                (Expr::Column(c), Expr::Literal(v)) => {
                    equalities.push((c.column.clone(), v.clone()))
                }
                _ => return None,
            },
            _ => return None,
        }
    }
    let names: Vec<&String> = equalities.iter().map(|(c, _)| c).collect();
    (!pk.is_empty() && names == pk.iter().collect::<Vec<_>>()).then(|| {
        (
            table.clone(),
            equalities.into_iter().map(|(_, v)| v).collect(),
        )
    })
}

/// When two transactions update or delete single rows of one table by primary key,
/// they pick the same row far more often than among ~12 rows by chance.
#[test]
fn point_writes_of_different_transactions_meet() {
    let mut g = generator(Config::default(), sqlite_features(), SER);
    let (mut pairs, mut same_row) = (0u32, 0u32);
    for index in 0..1000 {
        let c = case(&mut g, CaseRequest::new(8, index));
        let writes: Vec<Vec<(String, Vec<Value>)>> = c
            .transactions
            .iter()
            .map(|t| {
                t.statements
                    .iter()
                    .filter_map(|s| point_write(s, &c.schema))
                    .collect()
            })
            .collect();
        for i in 0..writes.len() {
            for j in 0..i {
                for (table, key) in &writes[i] {
                    for (other_table, other_key) in &writes[j] {
                        if table == other_table {
                            pairs += 1;
                            same_row += u32::from(key == other_key);
                        }
                    }
                }
            }
        }
    }
    assert!(pairs > 100, "too few point-write pairs: {pairs}");
    assert!(
        same_row * 100 >= pairs * 15,
        "{same_row} of {pairs} point-write pairs share a row"
    );
}

/// Cross-checks the evaluator behind the conflict test on hand-made predicates.
#[test]
fn predicate_evaluation_follows_sql() {
    let table = Table {
        name: "t0".into(),
        columns: ["c0", "c1"]
            .map(|n| Column {
                name: n.into(),
                ty: ColumnType::Int,
                not_null: false,
            })
            .to_vec(),
        primary_key: vec![],
        unique: vec![],
        indexes: vec![],
    };
    let row = [Value::Int(3), Value::Null];
    let c0 = || Expr::column("c0");
    let c1 = || Expr::column("c1");
    let lit = |i| Expr::lit(Value::Int(i));
    let cases = [
        (Expr::eq(c0(), lit(3)), true),
        (Expr::eq(c1(), lit(3)), false),
        (
            Expr::Unary {
                op: UnaryOp::Not,
                operand: Box::new(Expr::eq(c1(), lit(3))),
            },
            false,
        ),
        (
            Expr::binary(BinaryOp::Or, Expr::eq(c1(), lit(3)), Expr::eq(c0(), lit(3))),
            true,
        ),
        (
            Expr::IsNull {
                operand: Box::new(c1()),
                negated: false,
            },
            true,
        ),
        (
            Expr::InList {
                operand: Box::new(c0()),
                list: vec![lit(1), lit(3)],
                negated: true,
            },
            false,
        ),
        (
            Expr::Between {
                operand: Box::new(c0()),
                low: Box::new(lit(3)),
                high: Box::new(lit(4)),
                negated: false,
            },
            true,
        ),
        (
            Expr::binary(
                BinaryOp::Gt,
                Expr::binary(BinaryOp::Mul, c0(), lit(2)),
                lit(5),
            ),
            true,
        ),
    ];
    for (expr, expected) in cases {
        assert_eq!(selects(Some(&expr), &table, &row), expected, "{expr:?}");
    }
}

#[test]
fn new_rejects_unusable_contexts() {
    let new = |config: Config, features: Features, levels: &[IsolationLevel]| {
        <RandomGenerator as GeneratorPlugin>::new(config, context(features, levels))
    };
    let e = new(Config::default(), sqlite_features(), &[])
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    assert!(e.message.contains("no isolation level"), "{e}");

    let features = Features {
        column_types: vec![ColumnType::Varchar { len: 1 }],
        ..sqlite_features()
    };
    let e = new(Config::default(), features, SER).err().unwrap();
    assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    assert!(e.message.contains("no column type"), "{e}");

    let bad = Config {
        statements: [0, 2],
        ..Config::default()
    };
    let e = new(bad, sqlite_features(), SER).err().unwrap();
    assert!(e.message.starts_with("statements:"), "{e}");
}

#[test]
fn the_exported_entry_builds_a_working_generator() {
    let entry = &txlab_generator_random::TXLAB_EXPORTED_LIBRARY.generators[0];
    assert_eq!(entry.name, "random");
    assert!(entry.default_config.contains("cases_per_schema = 1"));

    // Through the ABI adapter: config as JSON, the case back as JSON.
    let ctx = context(sqlite_features(), SER);
    let mut handle =
        GeneratorHandle::from_plugin::<RandomGenerator>(r#"{"transactions":[3,3]}"#, ctx).unwrap();
    let request = CaseRequest::new(4, 2);
    let through_abi = handle.next_case(request).unwrap();
    let config = Config {
        transactions: [3, 3],
        ..Config::default()
    };
    let direct = case(&mut generator(config, sqlite_features(), SER), request);
    assert_eq!(through_abi, direct);

    let ctx = context(sqlite_features(), SER);
    let e = GeneratorHandle::from_plugin::<RandomGenerator>(r#"{"rows":[9,1]}"#, ctx)
        .err()
        .unwrap();
    assert!(e.message.starts_with("rows:"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_request_gives_a_valid_case(
        run_seed in any::<u64>(),
        index in any::<u64>(),
        cases_per_schema in 1u64..5,
        locking in any::<bool>(),
        mixed in any::<bool>(),
    ) {
        let config = Config { cases_per_schema, mixed_isolation: mixed, ..Config::default() };
        let features = if locking { locking_features() } else { sqlite_features() };
        let mut g = generator(config.clone(), features.clone(), THREE_LEVELS);
        let request = CaseRequest::new(run_seed, index);
        let c = case(&mut g, request);
        prop_assert!(check_case(&c, request, &config, &features, THREE_LEVELS).is_ok(),
            "{:?}", check_case(&c, request, &config, &features, THREE_LEVELS));
        prop_assert_eq!(json(&c), json(&case(&mut g, request)));
    }
}
