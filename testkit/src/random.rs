//! Small random test cases for property tests: few rows, few transactions, and
//! values from a tiny domain so that transactions touch the same rows.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use txlab_plugin_api::prelude::*;

/// Primary keys are drawn from `0..KEY_DOMAIN`.
const KEY_DOMAIN: i64 = 5;
/// Other integer values are drawn from `0..VALUE_DOMAIN` (or NULL).
const VALUE_DOMAIN: i64 = 3;
const TEXT_DOMAIN: [&str; 2] = ["a", "b"];

/// A deterministic random case: 1–2 tables with an INT primary key `id` and one
/// or two more columns, up to three rows each, and 2–3 explicit transactions of
/// 1–4 reads and writes ending in COMMIT or ROLLBACK, submitted in a random
/// interleaving. The same seed gives the same case.
pub fn random_case(seed: u64) -> TestCase {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let schema = Schema {
        tables: (0..rng.gen_range(1..=2))
            .map(|i| random_table(&mut rng, i))
            .collect(),
    };
    let initial_rows = schema
        .tables
        .iter()
        .map(|t| random_rows(&mut rng, t))
        .collect();
    let isolation = *IsolationLevel::ALL
        .choose(&mut rng)
        .expect("there are isolation levels");
    let transactions: Vec<Transaction> = (0..rng.gen_range(2..=3))
        .map(|_| {
            let mut statements = vec![Statement::Begin];
            for _ in 0..rng.gen_range(1..=4) {
                statements.push(random_statement(&mut rng, &schema));
            }
            statements.push(if rng.gen_bool(0.75) {
                Statement::Commit
            } else {
                Statement::Rollback
            });
            Transaction {
                isolation,
                kind: TxnKind::Explicit,
                statements,
            }
        })
        .collect();
    let submitted_order = random_interleaving(&mut rng, &transactions);
    TestCase {
        seed,
        generator: "testkit".into(),
        schema,
        initial_rows,
        transactions,
        submitted_order,
        intent: None,
        pace_ms: None,
    }
}

fn random_table(rng: &mut ChaCha8Rng, index: usize) -> Table {
    let mut columns = vec![
        Column {
            name: "id".into(),
            ty: ColumnType::Int,
            not_null: true,
        },
        Column {
            name: "v".into(),
            ty: ColumnType::Int,
            not_null: rng.gen_bool(0.2),
        },
    ];
    if rng.gen_bool(0.5) {
        columns.push(Column {
            name: "w".into(),
            ty: ColumnType::Varchar { len: 4 },
            not_null: false,
        });
    }
    Table {
        name: format!("t{index}"),
        columns,
        primary_key: vec!["id".into()],
        unique: if rng.gen_bool(0.3) {
            vec![vec!["v".into()]]
        } else {
            Vec::new()
        },
        indexes: Vec::new(),
    }
}

fn random_rows(rng: &mut ChaCha8Rng, table: &Table) -> TableRows {
    let mut ids: Vec<i64> = (0..KEY_DOMAIN).collect();
    ids.shuffle(rng);
    let v_unique = !table.unique.is_empty();
    let v_not_null = table.columns[1].not_null;
    let mut used_v = Vec::new();
    let mut rows = Vec::new();
    for &id in ids.iter().take(rng.gen_range(0..=3)) {
        let mut v = random_int(rng, v_not_null);
        if v_unique && used_v.contains(&v) {
            if v_not_null {
                continue;
            }
            v = Value::Null;
        }
        if !v.is_null() {
            used_v.push(v.clone());
        }
        let mut row = vec![Value::Int(id), v];
        if table.columns.len() > 2 {
            row.push(random_text(rng));
        }
        rows.push(row);
    }
    TableRows {
        table: table.name.clone(),
        columns: table.column_names(),
        rows,
    }
}

fn random_int(rng: &mut ChaCha8Rng, not_null: bool) -> Value {
    if !not_null && rng.gen_bool(0.2) {
        Value::Null
    } else {
        Value::Int(rng.gen_range(0..VALUE_DOMAIN))
    }
}

fn random_text(rng: &mut ChaCha8Rng) -> Value {
    if rng.gen_bool(0.2) {
        Value::Null
    } else {
        Value::Text(TEXT_DOMAIN.choose(rng).expect("non-empty").to_string())
    }
}

fn key(rng: &mut ChaCha8Rng) -> Expr {
    Expr::lit(Value::Int(rng.gen_range(0..KEY_DOMAIN)))
}

fn value(rng: &mut ChaCha8Rng) -> Expr {
    Expr::lit(Value::Int(rng.gen_range(0..VALUE_DOMAIN)))
}

fn random_statement(rng: &mut ChaCha8Rng, schema: &Schema) -> Statement {
    let table = schema.tables.choose(rng).expect("at least one table");
    let name = table.name.clone();
    match rng.gen_range(0..100) {
        0..=29 => {
            let mut row = vec![key(rng), Expr::lit(random_int(rng, false))];
            if table.columns.len() > 2 {
                row.push(Expr::lit(random_text(rng)));
            }
            Statement::Insert(Insert {
                table: name,
                columns: table.column_names(),
                rows: vec![row],
                on_conflict: *[
                    OnConflict::Error,
                    OnConflict::Error,
                    OnConflict::Replace,
                    OnConflict::Ignore,
                ]
                .choose(rng)
                .expect("non-empty"),
            })
        }
        30..=59 => {
            let assignment = match rng.gen_range(0..4) {
                0 => Assignment {
                    column: "v".into(),
                    value: Expr::binary(BinaryOp::Add, Expr::column("v"), value(rng)),
                },
                1 => Assignment {
                    column: "v".into(),
                    value: Expr::lit(random_int(rng, false)),
                },
                2 => Assignment {
                    column: "id".into(),
                    value: key(rng),
                },
                _ if table.columns.len() > 2 => Assignment {
                    column: "w".into(),
                    value: Expr::lit(random_text(rng)),
                },
                _ => Assignment {
                    column: "v".into(),
                    value: value(rng),
                },
            };
            Statement::Update(Update {
                table: name,
                assignments: vec![assignment],
                filter: random_filter(rng),
            })
        }
        60..=74 => Statement::Delete(Delete {
            table: name,
            filter: random_filter(rng),
        }),
        _ => Statement::Select(Select {
            table: name,
            projection: Projection::All,
            filter: random_filter(rng),
            order_by: vec![Expr::column("id")],
            lock: *[RowLock::None, RowLock::ForShare, RowLock::ForUpdate]
                .choose(rng)
                .expect("non-empty"),
        }),
    }
}

fn random_filter(rng: &mut ChaCha8Rng) -> Option<Expr> {
    let filter = match rng.gen_range(0..8) {
        0 => return None,
        1 => Expr::eq(Expr::column("id"), key(rng)),
        2 => Expr::binary(BinaryOp::Lt, Expr::column("v"), value(rng)),
        3 => Expr::IsNull {
            operand: Box::new(Expr::column("v")),
            negated: rng.gen_bool(0.5),
        },
        4 => {
            let low = rng.gen_range(0..KEY_DOMAIN);
            Expr::Between {
                operand: Box::new(Expr::column("id")),
                low: Box::new(Expr::lit(Value::Int(low))),
                high: Box::new(Expr::lit(Value::Int(low + rng.gen_range(0..3)))),
                negated: false,
            }
        }
        5 => Expr::InList {
            operand: Box::new(Expr::column("v")),
            list: vec![value(rng), value(rng)],
            negated: rng.gen_bool(0.3),
        },
        6 => Expr::Unary {
            op: UnaryOp::Not,
            operand: Box::new(Expr::eq(Expr::column("v"), value(rng))),
        },
        _ => Expr::binary(
            BinaryOp::Or,
            Expr::eq(Expr::column("id"), key(rng)),
            Expr::eq(Expr::column("v"), value(rng)),
        ),
    };
    Some(filter)
}

/// A uniformly random interleaving: shuffle one label per statement, then number
/// each transaction's labels in turn, which keeps its own order.
fn random_interleaving(rng: &mut ChaCha8Rng, transactions: &[Transaction]) -> Vec<StatementRef> {
    let mut pending: Vec<usize> = transactions
        .iter()
        .enumerate()
        .flat_map(|(t, txn)| std::iter::repeat_n(t, txn.statements.len()))
        .collect();
    pending.shuffle(rng);
    let mut next = vec![0usize; transactions.len()];
    pending
        .into_iter()
        .map(|t| {
            next[t] += 1;
            StatementRef::new(t, next[t] - 1)
        })
        .collect()
}
