//! Dialect descriptions and the validity checks shared by the integration tests.

#![allow(dead_code)] // each test binary uses its own part of this module

use txlab_generator_random::{Config, RandomGenerator};
use txlab_plugin_api::prelude::*;

pub const ALL_TYPES: [ColumnType; 7] = [
    ColumnType::Int,
    ColumnType::BigInt,
    ColumnType::Double,
    ColumnType::Decimal {
        precision: 10,
        scale: 2,
    },
    ColumnType::Varchar { len: 16 },
    ColumnType::Text,
    ColumnType::Bool,
];

/// SQLite-like: no row locks in SELECT, REPLACE and INSERT OR IGNORE.
pub fn sqlite_features() -> Features {
    Features {
        select_for_update: false,
        select_for_share: false,
        replace: true,
        insert_ignore: true,
        snapshot_begin_levels: Vec::new(),
        column_types: ALL_TYPES.to_vec(),
    }
}

/// PostgreSQL-like: row locks, neither REPLACE nor INSERT IGNORE.
pub fn locking_features() -> Features {
    Features {
        select_for_update: true,
        select_for_share: true,
        replace: false,
        insert_ignore: false,
        snapshot_begin_levels: Vec::new(),
        column_types: ALL_TYPES.to_vec(),
    }
}

pub fn everything_features() -> Features {
    Features {
        select_for_update: true,
        select_for_share: true,
        replace: true,
        insert_ignore: true,
        snapshot_begin_levels: Vec::new(),
        column_types: ALL_TYPES.to_vec(),
    }
}

pub fn semantics(level: IsolationLevel) -> LevelSemantics {
    LevelSemantics {
        level,
        snapshot: SnapshotPoint::FirstRead,
        write_reads: WriteReads::Snapshot,
        write_conflict: WriteConflict::SingleWriter,
        semi_consistent_writes: false,
        predicate_conflicts: true,
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: Vec::new(),
        references: Vec::new(),
    }
}

pub fn context(features: Features, levels: &[IsolationLevel]) -> GeneratorContext {
    GeneratorContext {
        dialect: DialectInfo {
            name: "test".into(),
            driver: "sqlite".into(),
            levels: levels.iter().map(|&l| semantics(l)).collect(),
            features,
            lock_probe: LockProbe::Driver,
            session_control: SessionControl::default(),
            engine: EngineSemantics::default(),
            server_query: None,
            server: None,
        },
        levels: levels.to_vec(),
    }
}

pub fn generator(config: Config, features: Features, levels: &[IsolationLevel]) -> RandomGenerator {
    <RandomGenerator as GeneratorPlugin>::new(config, context(features, levels)).unwrap()
}

pub fn case(generator: &mut RandomGenerator, request: CaseRequest) -> TestCase {
    generator.next_case(request).unwrap()
}

pub fn json(case: &TestCase) -> String {
    serde_json::to_string(case).unwrap()
}

fn within(what: &str, n: usize, [min, max]: [u32; 2]) -> Result<(), String> {
    if (min as usize..=max as usize).contains(&n) {
        Ok(())
    } else {
        Err(format!("{what}: {n} outside [{min}, {max}]"))
    }
}

/// Whether `value` is a value the generator may store in a column of type `ty`.
pub fn fits(ty: ColumnType, value: &Value) -> bool {
    match (ty, value) {
        (_, Value::Null) => true,
        (ColumnType::Int | ColumnType::BigInt, Value::Int(_)) => true,
        (ColumnType::Double, Value::Float(f)) => f.is_finite(),
        (ColumnType::Decimal { scale, .. }, Value::Decimal(d)) => {
            d.split_once('.').map_or(0, |(_, f)| f.len()) == usize::from(scale)
        }
        (ColumnType::Varchar { len }, Value::Text(s)) => s.chars().count() <= usize::from(len),
        (ColumnType::Text, Value::Text(_)) => true,
        (ColumnType::Bool, Value::Bool(_)) => true,
        _ => false,
    }
}

fn check_expr(expr: &Expr, table: &Table) -> Result<(), String> {
    let mut problems = Vec::new();
    expr.visit(&mut |e| match e {
        Expr::Column(c) if c.table.is_some() || table.column(&c.column).is_none() => {
            problems.push(format!("{} has no column {c:?}", table.name));
        }
        Expr::Literal(Value::Float(f)) if !f.is_finite() => {
            problems.push(format!("non-finite literal {f}"));
        }
        _ => {}
    });
    // A literal next to a column must fit that column's type.
    expr.visit(&mut |e| {
        if let Expr::Binary { left, right, .. } = e {
            if let (Expr::Column(c), Expr::Literal(v)) = (left.as_ref(), right.as_ref()) {
                if let Some(col) = table.column(&c.column) {
                    if !fits(col.ty, v) {
                        problems.push(format!("{v:?} compared with {}", c.column));
                    }
                }
            }
        }
    });
    match problems.into_iter().next() {
        Some(p) => Err(p),
        None => Ok(()),
    }
}

fn check_statement(stmt: &Statement, case: &TestCase, features: &Features) -> Result<(), String> {
    let name = stmt
        .table()
        .ok_or("a control statement inside a transaction")?;
    let table = case
        .schema
        .table(name)
        .ok_or_else(|| format!("unknown table {name}"))?;
    match stmt {
        Statement::Select(s) => {
            let allowed = match s.lock {
                RowLock::None => true,
                RowLock::ForUpdate => features.select_for_update,
                RowLock::ForShare => features.select_for_share,
            };
            if !allowed {
                return Err(format!("lock {:?} not offered", s.lock));
            }
            if let Projection::Exprs(exprs) = &s.projection {
                if exprs.is_empty() {
                    return Err("empty projection".into());
                }
                for e in exprs {
                    check_expr(e, table)?;
                }
            }
            s.filter.iter().try_for_each(|f| check_expr(f, table))?;
            s.order_by.iter().try_for_each(|e| check_expr(e, table))?;
        }
        Statement::Insert(i) => {
            let allowed = match i.on_conflict {
                OnConflict::Error => true,
                OnConflict::Replace => features.replace,
                OnConflict::Ignore => features.insert_ignore,
            };
            if !allowed {
                return Err(format!("on conflict {:?} not offered", i.on_conflict));
            }
            if i.rows.is_empty() || i.columns.is_empty() {
                return Err("INSERT without rows or columns".into());
            }
            let columns: Vec<&Column> = i
                .columns
                .iter()
                .map(|c| table.column(c).ok_or_else(|| format!("no column {c}")))
                .collect::<Result<_, _>>()?;
            for row in &i.rows {
                if row.len() != columns.len() {
                    return Err("INSERT row length differs from its column list".into());
                }
                for (column, e) in columns.iter().zip(row) {
                    match e {
                        Expr::Literal(v) if fits(column.ty, v) => {}
                        other => return Err(format!("{other:?} inserted into {}", column.name)),
                    }
                }
            }
            for column in &table.columns {
                if column.not_null && !i.columns.contains(&column.name) {
                    return Err(format!("NOT NULL column {} left out", column.name));
                }
            }
        }
        Statement::Update(u) => {
            if u.assignments.is_empty() {
                return Err("UPDATE without assignments".into());
            }
            for a in &u.assignments {
                let column = table
                    .column(&a.column)
                    .ok_or_else(|| format!("no column {}", a.column))?;
                check_expr(&a.value, table)?;
                if let Expr::Literal(v) = &a.value {
                    if !fits(column.ty, v) {
                        return Err(format!("{v:?} assigned to {}", a.column));
                    }
                }
            }
            u.filter.iter().try_for_each(|f| check_expr(f, table))?;
        }
        Statement::Delete(d) => d.filter.iter().try_for_each(|f| check_expr(f, table))?,
        other => return Err(format!("unexpected statement {other:?}")),
    }
    Ok(())
}

fn check_rows(table: &Table, rows: &TableRows, config: &Config) -> Result<(), String> {
    if rows.columns != table.column_names() {
        return Err(format!(
            "{}: initial rows name columns {:?}",
            table.name, rows.columns
        ));
    }
    within(
        &format!("{} rows", table.name),
        rows.rows.len(),
        config.rows,
    )?;
    for row in &rows.rows {
        if row.len() != table.columns.len() {
            return Err(format!("{}: row {row:?} has the wrong length", table.name));
        }
        for (column, v) in table.columns.iter().zip(row) {
            if column.not_null && v.is_null() {
                return Err(format!(
                    "{}.{} is NOT NULL but holds NULL",
                    table.name, column.name
                ));
            }
            if !fits(column.ty, v) {
                return Err(format!("{}.{} holds {v:?}", table.name, column.name));
            }
        }
    }
    let mut keys: Vec<&Vec<String>> = Vec::new();
    if !table.primary_key.is_empty() {
        keys.push(&table.primary_key);
    }
    keys.extend(&table.unique);
    keys.extend(
        table
            .indexes
            .iter()
            .filter(|i| i.unique)
            .map(|i| &i.columns),
    );
    for key in keys {
        let positions: Vec<usize> = key
            .iter()
            .map(|k| table.columns.iter().position(|c| &c.name == k))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("{}: key {key:?} names a missing column", table.name))?;
        for (i, a) in rows.rows.iter().enumerate() {
            for b in &rows.rows[..i] {
                // NULLs never collide in a UNIQUE key.
                if positions.iter().all(|&p| !a[p].is_null() && a[p] == b[p]) {
                    return Err(format!(
                        "{}: rows {a:?} and {b:?} share key {key:?}",
                        table.name
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_schema(case: &TestCase, config: &Config, features: &Features) -> Result<(), String> {
    let tables = &case.schema.tables;
    within("tables", tables.len(), config.tables)?;
    for (i, table) in tables.iter().enumerate() {
        if table.name != format!("t{i}") {
            return Err(format!("table {i} is named {}", table.name));
        }
        within(
            &format!("{} columns", table.name),
            table.columns.len(),
            config.columns,
        )?;
        for (j, column) in table.columns.iter().enumerate() {
            if column.name != format!("c{j}") {
                return Err(format!(
                    "{} column {j} is named {}",
                    table.name, column.name
                ));
            }
            if !features.column_types.contains(&column.ty) {
                return Err(format!(
                    "{}.{} has type {:?}",
                    table.name, column.name, column.ty
                ));
            }
        }
        for pk in &table.primary_key {
            match table.column(pk) {
                Some(c) if c.not_null => {}
                _ => {
                    return Err(format!(
                        "{}: primary key column {pk} missing or nullable",
                        table.name
                    ))
                }
            }
        }
        let named = table
            .unique
            .iter()
            .chain(table.indexes.iter().map(|i| &i.columns));
        for columns in named {
            if columns.is_empty() || columns.iter().any(|c| table.column(c).is_none()) {
                return Err(format!("{}: bad key or index {columns:?}", table.name));
            }
        }
    }
    let mut index_names: Vec<&str> = tables
        .iter()
        .flat_map(|t| t.indexes.iter().map(|i| i.name.as_str()))
        .collect();
    let count = index_names.len();
    index_names.sort_unstable();
    index_names.dedup();
    if index_names.len() != count {
        return Err("index names repeat".into());
    }
    if case.initial_rows.len() != tables.len() {
        return Err("initial rows do not cover every table".into());
    }
    for (table, rows) in tables.iter().zip(&case.initial_rows) {
        if rows.table != table.name {
            return Err(format!(
                "initial rows of {} come as {}",
                table.name, rows.table
            ));
        }
        check_rows(table, rows, config)?;
    }
    Ok(())
}

/// Every property a generated case must have for `config`, `features` and `levels`.
pub fn check_case(
    case: &TestCase,
    request: CaseRequest,
    config: &Config,
    features: &Features,
    levels: &[IsolationLevel],
) -> Result<(), String> {
    case.validate().map_err(|e| e.to_string())?;
    if case.seed != request.seed || case.generator != "random" {
        return Err(format!("seed {} / generator {}", case.seed, case.generator));
    }
    check_schema(case, config, features)?;
    within("transactions", case.transactions.len(), config.transactions)?;
    for (i, txn) in case.transactions.iter().enumerate() {
        if txn.kind != TxnKind::Explicit {
            return Err(format!("T{} is not explicit", i + 1));
        }
        if !levels.contains(&txn.isolation) {
            return Err(format!("T{} runs at {}", i + 1, txn.isolation));
        }
        if !config.mixed_isolation && txn.isolation != case.transactions[0].isolation {
            return Err("isolation levels differ without mixed_isolation".into());
        }
        let stmts = &txn.statements;
        if stmts.first() != Some(&Statement::Begin) || !stmts.last().is_some_and(Statement::is_end)
        {
            return Err(format!("T{} is not BEGIN … COMMIT/ROLLBACK", i + 1));
        }
        let body = &stmts[1..stmts.len() - 1];
        within(
            &format!("T{} statements", i + 1),
            body.len(),
            config.statements,
        )?;
        for stmt in body {
            check_statement(stmt, case, features).map_err(|e| format!("T{}: {e}", i + 1))?;
        }
    }
    Ok(())
}

/// A value during predicate evaluation: numbers of every type compare numerically.
#[derive(Clone, Debug, PartialEq)]
enum Eval {
    Null,
    Number(f64),
    Text(String),
    Bool(bool),
}

fn eval_value(v: &Value) -> Eval {
    match v {
        Value::Null => Eval::Null,
        Value::Int(i) => Eval::Number(*i as f64),
        Value::Float(f) => Eval::Number(*f),
        Value::Decimal(d) => Eval::Number(d.parse().expect("decimal text")),
        Value::Text(s) => Eval::Text(s.clone()),
        Value::Bool(b) => Eval::Bool(*b),
        Value::Bytes(_) => panic!("the generator writes no bytes"),
    }
}

fn eval_cmp(a: &Eval, b: &Eval) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Eval::Number(x), Eval::Number(y)) => x.partial_cmp(y),
        (Eval::Text(x), Eval::Text(y)) => Some(x.cmp(y)),
        (Eval::Bool(x), Eval::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn truth(b: Option<bool>) -> Eval {
    b.map_or(Eval::Null, Eval::Bool)
}

fn as_truth(e: &Eval) -> Option<bool> {
    match e {
        Eval::Bool(b) => Some(*b),
        _ => None,
    }
}

/// SQL's three-valued evaluation of `expr` on one row of `table`.
fn eval(expr: &Expr, table: &Table, row: &[Value]) -> Eval {
    use std::cmp::Ordering::*;
    match expr {
        Expr::Column(c) => {
            let p = table
                .columns
                .iter()
                .position(|col| col.name == c.column)
                .unwrap();
            eval_value(&row[p])
        }
        Expr::Literal(v) => eval_value(v),
        Expr::Unary {
            op: UnaryOp::Not,
            operand,
        } => truth(as_truth(&eval(operand, table, row)).map(|b| !b)),
        Expr::Binary { op, left, right } => {
            let (l, r) = (eval(left, table, row), eval(right, table, row));
            match op {
                BinaryOp::And => match (as_truth(&l), as_truth(&r)) {
                    (Some(false), _) | (_, Some(false)) => Eval::Bool(false),
                    (Some(true), Some(true)) => Eval::Bool(true),
                    _ => Eval::Null,
                },
                BinaryOp::Or => match (as_truth(&l), as_truth(&r)) {
                    (Some(true), _) | (_, Some(true)) => Eval::Bool(true),
                    (Some(false), Some(false)) => Eval::Bool(false),
                    _ => Eval::Null,
                },
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => match (l, r) {
                    (Eval::Number(x), Eval::Number(y)) => Eval::Number(match op {
                        BinaryOp::Add => x + y,
                        BinaryOp::Sub => x - y,
                        _ => x * y,
                    }),
                    _ => Eval::Null,
                },
                _ => truth(eval_cmp(&l, &r).map(|o| match op {
                    BinaryOp::Eq => o == Equal,
                    BinaryOp::NotEq => o != Equal,
                    BinaryOp::Lt => o == Less,
                    BinaryOp::LtEq => o != Greater,
                    BinaryOp::Gt => o == Greater,
                    _ => o != Less,
                })),
            }
        }
        Expr::IsNull { operand, negated } => {
            Eval::Bool((eval(operand, table, row) == Eval::Null) != *negated)
        }
        Expr::InList {
            operand,
            list,
            negated,
        } => {
            let v = eval(operand, table, row);
            let mut result = Some(false);
            for item in list {
                match eval_cmp(&v, &eval(item, table, row)) {
                    Some(std::cmp::Ordering::Equal) => {
                        result = Some(true);
                        break;
                    }
                    None => result = None,
                    Some(_) => {}
                }
            }
            truth(result.map(|b| b != *negated))
        }
        Expr::Between {
            operand,
            low,
            high,
            negated,
        } => {
            let v = eval(operand, table, row);
            let above = eval_cmp(&v, &eval(low, table, row)).map(|o| o != Less);
            let below = eval_cmp(&v, &eval(high, table, row)).map(|o| o != Greater);
            let inside = match (above, below) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
            truth(inside.map(|b| b != *negated))
        }
        other => panic!("the generator writes no {other:?}"),
    }
}

/// Whether a WHERE clause (or its absence) selects `row`.
pub fn selects(filter: Option<&Expr>, table: &Table, row: &[Value]) -> bool {
    filter.is_none_or(|f| eval(f, table, row) == Eval::Bool(true))
}

/// Whether two transactions of `case` touch a common initial row and at least one of
/// them writes it: predicates evaluated on the initial rows, INSERTs by primary key.
pub fn has_row_conflict(case: &TestCase) -> bool {
    // Per transaction: (table, row index, written) for every initial row it touches.
    let touched: Vec<Vec<(usize, usize, bool)>> = case
        .transactions
        .iter()
        .map(|txn| {
            let mut out = Vec::new();
            for stmt in &txn.statements {
                let Some(name) = stmt.table() else { continue };
                let t = case
                    .schema
                    .tables
                    .iter()
                    .position(|t| t.name == name)
                    .unwrap();
                let table = &case.schema.tables[t];
                for (r, row) in case.initial_rows[t].rows.iter().enumerate() {
                    let hit = match stmt {
                        Statement::Select(s) => selects(s.filter.as_ref(), table, row),
                        Statement::Update(u) => selects(u.filter.as_ref(), table, row),
                        Statement::Delete(d) => selects(d.filter.as_ref(), table, row),
                        Statement::Insert(i) => {
                            !table.primary_key.is_empty()
                                && i.rows.iter().any(|values| {
                                    table.primary_key.iter().all(|k| {
                                        let p = i.columns.iter().position(|c| c == k).unwrap();
                                        let q = table
                                            .columns
                                            .iter()
                                            .position(|c| &c.name == k)
                                            .unwrap();
                                        values[p] == Expr::Literal(row[q].clone())
                                    })
                                })
                        }
                        _ => false,
                    };
                    if hit {
                        out.push((t, r, stmt.is_write()));
                    }
                }
            }
            out
        })
        .collect();
    (0..touched.len()).any(|i| {
        (0..i).any(|j| {
            touched[i].iter().any(|&(t, r, w)| {
                touched[j]
                    .iter()
                    .any(|&(u, s, v)| (t, r) == (u, s) && (w || v))
            })
        })
    })
}
