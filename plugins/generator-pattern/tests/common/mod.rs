//! The shipped dialects, generators built for them, and the checks that an
//! instantiated case realises its pattern.

#![allow(dead_code)] // each test binary uses its own part of this module

use std::collections::{BTreeMap, BTreeSet};
use txlab_generator_pattern::catalogue::OpKind;
use txlab_generator_pattern::{Config, Instance, PatternGenerator, Role};
use txlab_mysql::{MariadbDialect, MysqlDialect, TidbDialect};
use txlab_plugin_api::prelude::*;
use txlab_postgres::{CockroachDialect, PostgresDialect};
use txlab_sqlite::SqliteDialect;
use txlab_testkit::MemoryDb;

/// Every shipped dialect, by name.
pub fn dialects() -> Vec<(&'static str, Box<dyn Dialect>)> {
    vec![
        (
            "sqlite",
            Box::new(<SqliteDialect as DialectPlugin>::new(Default::default()).unwrap()),
        ),
        (
            "mysql",
            Box::new(<MysqlDialect as DialectPlugin>::new(Default::default()).unwrap()),
        ),
        (
            "mariadb",
            Box::new(<MariadbDialect as DialectPlugin>::new(Default::default()).unwrap()),
        ),
        (
            "tidb",
            Box::new(<TidbDialect as DialectPlugin>::new(Default::default()).unwrap()),
        ),
        (
            "postgres",
            Box::new(<PostgresDialect as DialectPlugin>::new(Default::default()).unwrap()),
        ),
        (
            "cockroachdb",
            Box::new(<CockroachDialect as DialectPlugin>::new(Default::default()).unwrap()),
        ),
    ]
}

/// A context with every level the dialect offers.
pub fn context_for(info: &DialectInfo) -> GeneratorContext {
    GeneratorContext {
        dialect: info.clone(),
        levels: info.levels.iter().map(|l| l.level).collect(),
    }
}

pub fn generator(config: Config, ctx: GeneratorContext) -> PatternGenerator {
    <PatternGenerator as GeneratorPlugin>::new(config, ctx).unwrap()
}

/// Settings that use every variant often: two tables, predicates, inserts,
/// deletes, locking reads and filler statements.
pub fn varied(patterns: &[&str]) -> Config {
    Config {
        patterns: patterns.iter().map(|p| p.to_string()).collect(),
        tables: [2, 2],
        filler_statements: [1, 3],
        predicate_probability: 0.7,
        locking_read_probability: 0.4,
        insert_probability: 0.7,
        delete_probability: 0.7,
        ..Config::default()
    }
}

pub fn named(patterns: &[&str]) -> Config {
    Config {
        patterns: patterns.iter().map(|p| p.to_string()).collect(),
        ..Config::default()
    }
}

pub const LIMITS: SessionLimits = SessionLimits {
    statement_timeout_ms: 5000,
    lock_wait_timeout_ms: 8000,
};

fn kind_matches(op: OpKind, statement: &Statement) -> bool {
    match op {
        OpKind::Read => matches!(statement, Statement::Select(_)),
        OpKind::Write => statement.is_write(),
        OpKind::Commit => *statement == Statement::Commit,
        OpKind::Abort => *statement == Statement::Rollback,
    }
}

/// Every row the case may ever hold, per table: the initial rows, the items
/// an INSERT adds and the rows filler statements insert.
fn universe(case: &TestCase) -> Vec<TableRows> {
    let mut tables = case.initial_rows.clone();
    for txn in &case.transactions {
        for statement in &txn.statements {
            if let Statement::Insert(i) = statement {
                let rows = tables.iter_mut().find(|t| t.table == i.table).unwrap();
                assert_eq!(i.columns, rows.columns);
                for row in &i.rows {
                    rows.rows.push(
                        row.iter()
                            .map(|e| match e {
                                Expr::Literal(v) => v.clone(),
                                other => panic!("INSERT of {other:?}"),
                            })
                            .collect(),
                    );
                }
            }
        }
    }
    tables
}

/// The keys of the rows `statement`'s predicate selects among every row the
/// case may hold, evaluated by the in-memory database (for an INSERT, the key
/// it inserts).
fn touched(db: &mut MemoryDb, session: u32, statement: &Statement) -> (String, BTreeSet<i64>) {
    let (table, filter) = match statement {
        Statement::Select(s) => (&s.table, s.filter.clone()),
        Statement::Update(u) => (&u.table, u.filter.clone()),
        Statement::Delete(d) => (&d.table, d.filter.clone()),
        Statement::Insert(i) => {
            let p = i.columns.iter().position(|c| c == "id").unwrap();
            let keys = i
                .rows
                .iter()
                .map(|r| match &r[p] {
                    Expr::Literal(Value::Int(k)) => *k,
                    other => panic!("key {other:?}"),
                })
                .collect();
            return (i.table.clone(), keys);
        }
        other => panic!("no rows for {other:?}"),
    };
    let probe = Statement::Select(Select {
        table: table.clone(),
        projection: Projection::Exprs(vec![Expr::column("id")]),
        filter,
        order_by: Vec::new(),
        lock: RowLock::None,
    });
    match db.execute(session, &probe).unwrap() {
        Outcome::Rows { rows, .. } => (
            table.clone(),
            rows.iter()
                .map(|r| match r[0] {
                    Value::Int(k) => k,
                    ref other => panic!("key {other:?}"),
                })
                .collect(),
        ),
        other => panic!("{probe:?}: {other:?}"),
    }
}

/// Checks that `inst`'s case realises its pattern: statement kinds per
/// transaction, the rows each statement touches, the interleaving, fresh
/// values, and only what `features` and `levels` allow.
pub fn check_realises(
    inst: &Instance,
    features: &Features,
    levels: &[IsolationLevel],
) -> Result<(), String> {
    let case = &inst.case;
    let pattern = &inst.pattern;
    let name = pattern.spec.name;
    case.validate().map_err(|e| e.to_string())?;
    if case.generator != "pattern" {
        return Err(format!("generator {}", case.generator));
    }
    if case.intent.as_ref() != Some(&pattern.intent()) {
        return Err(format!("intent {:?}", case.intent));
    }
    let intent = case.intent.as_ref().unwrap();
    if intent.pattern != name || intent.forbidden_at != pattern.spec.forbidden_at {
        return Err(format!("intent {intent:?}"));
    }
    if case.transactions.len() != pattern.txns {
        return Err(format!("{} transactions", case.transactions.len()));
    }
    let fillers: BTreeSet<StatementRef> = inst.fillers.iter().copied().collect();

    // Statement kinds per transaction.
    let types = pattern.type_constraints();
    for (t, txn) in case.transactions.iter().enumerate() {
        if !levels.contains(&txn.isolation) {
            return Err(format!("T{} at {}", t + 1, txn.isolation));
        }
        if txn.kind != TxnKind::Explicit || !txn.statements.first().is_some_and(Statement::is_begin)
        {
            return Err(format!("T{} does not begin with BEGIN", t + 1));
        }
        let ops: Vec<OpKind> = pattern
            .ops
            .iter()
            .filter(|o| o.txn == t)
            .map(|o| o.kind)
            .collect();
        let realised: Vec<&Statement> = txn
            .statements
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(s, _)| !fillers.contains(&StatementRef::new(t, *s)))
            .map(|(_, st)| st)
            .collect();
        if realised.len() != ops.len()
            || !ops.iter().zip(&realised).all(|(&o, s)| kind_matches(o, s))
        {
            return Err(format!("T{}: {realised:?} for {ops:?}", t + 1));
        }
        let reads = realised
            .iter()
            .filter(|s| matches!(s, Statement::Select(_)))
            .count();
        let writes = realised.iter().filter(|s| s.is_write()).count();
        if (reads, writes) != (types[t].reads, types[t].writes) {
            return Err(format!("T{}: {reads} reads, {writes} writes", t + 1));
        }
        if !txn.statements.last().is_some_and(Statement::is_end) {
            return Err(format!("T{} does not end", t + 1));
        }
        for s in 0..txn.statements.len() {
            let at = StatementRef::new(t, s);
            let statement = case.statement(at).unwrap();
            if fillers.contains(&at) && statement.is_control() {
                return Err(format!("filler {at} is {statement:?}"));
            }
        }
    }
    for (op, &at) in pattern.ops.iter().zip(&inst.sites) {
        if at.txn() != op.txn || !kind_matches(op.kind, case.statement(at).unwrap()) {
            return Err(format!("{op} realised by {at}"));
        }
    }

    // The interleaving: both BEGINs first, then the pattern's order.
    let n = pattern.txns;
    let begins: Vec<StatementRef> = (0..n).map(|t| StatementRef::new(t, 0)).collect();
    if case.submitted_order[..n] != begins[..] {
        return Err(format!("order starts {:?}", &case.submitted_order[..n]));
    }
    let pattern_order: Vec<StatementRef> = case.submitted_order[n..]
        .iter()
        .copied()
        .filter(|at| !fillers.contains(at))
        .collect();
    if pattern_order != inst.sites {
        return Err(format!("order {pattern_order:?}, sites {:?}", inst.sites));
    }
    let schedule: Vec<usize> = pattern_order.iter().map(|at| at.txn() + 1).collect();
    if schedule != pattern.schedule() {
        return Err(format!("schedule {schedule:?}"));
    }

    // The rows each statement touches.
    let rows = universe(case);
    let mut db = MemoryDb::with_rows(&case.schema, &rows).map_err(|e| e.to_string())?;
    let session = db.open_session(IsolationLevel::Serializable).unwrap();
    let item_key = |item: char| {
        let r = inst.item_row(item);
        (case.schema.tables[r.table].name.clone(), r.key)
    };
    let items: BTreeSet<(String, i64)> = pattern.items.iter().map(|&i| item_key(i)).collect();
    if items.len() != pattern.items.len() {
        return Err(format!("items share rows: {items:?}"));
    }
    for (op, &at) in pattern.ops.iter().zip(&inst.sites) {
        let Some(item) = op.item else { continue };
        let statement = case.statement(at).unwrap();
        let (table, keys) = touched(&mut db, session, statement);
        let expected: BTreeSet<(String, i64)> =
            if pattern.spec.predicate_read && op.kind == OpKind::Read {
                items.clone()
            } else {
                [item_key(item)].into()
            };
        let got: BTreeSet<(String, i64)> = keys.iter().map(|&k| (table.clone(), k)).collect();
        if got != expected {
            return Err(format!("{op} ({at}) touches {got:?}, not {expected:?}"));
        }
        if let Statement::Insert(_) = statement {
            let row = inst.item_row(item);
            if op.version != 1 || row.initial {
                return Err(format!("{op} inserts an item that exists"));
            }
        }
        if let Statement::Delete(_) = statement {
            let later = pattern.ops.iter().any(|o| {
                o.item == Some(item)
                    && ((o.kind == OpKind::Write && o.version > op.version)
                        || (o.kind == OpKind::Read && o.version == op.version))
            });
            if later {
                return Err(format!("{op} deletes a version used later"));
            }
        }
    }
    // Items a write inserts are absent initially; the others present.
    for &item in &pattern.items {
        let (table, key) = item_key(item);
        let initial = case
            .initial_rows
            .iter()
            .find(|r| r.table == table)
            .unwrap()
            .rows
            .iter()
            .any(|r| r[0] == Value::Int(key));
        if initial != inst.item_row(item).initial {
            return Err(format!("item {item}: initially present {initial}"));
        }
    }
    // Filler statements touch only rows of their own transaction.
    let owned = |t: usize, table: &str, key: i64| {
        inst.rows.iter().any(|r| {
            r.key == key
                && case.schema.tables[r.table].name == table
                && r.role == Role::Filler(Some(t))
        }) || inst
            .inserted
            .iter()
            .any(|&(tb, k, by)| case.schema.tables[tb].name == table && k == key && by == t)
    };
    for &at in &inst.fillers {
        let (table, keys) = touched(&mut db, session, case.statement(at).unwrap());
        for k in keys {
            if !owned(at.txn(), &table, k) {
                return Err(format!("filler {at} touches {table} {k}"));
            }
        }
    }

    // Every written value is fresh.
    let mut vals: Vec<Value> = Vec::new();
    for rows in &case.initial_rows {
        let p = rows.columns.iter().position(|c| c == "val").unwrap();
        vals.extend(rows.rows.iter().map(|r| r[p].clone()));
    }
    for txn in &case.transactions {
        for statement in &txn.statements {
            match statement {
                Statement::Update(u) => {
                    let a = u.assignments.iter().find(|a| a.column == "val");
                    match a.map(|a| &a.value) {
                        Some(Expr::Literal(v)) => vals.push(v.clone()),
                        other => return Err(format!("UPDATE sets val to {other:?}")),
                    }
                }
                Statement::Insert(i) => {
                    let p = i.columns.iter().position(|c| c == "val").unwrap();
                    for row in &i.rows {
                        match &row[p] {
                            Expr::Literal(v) => vals.push(v.clone()),
                            other => return Err(format!("INSERT of val {other:?}")),
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let distinct: BTreeSet<String> = vals.iter().map(|v| format!("{v:?}")).collect();
    if distinct.len() != vals.len() {
        return Err(format!("values repeat: {vals:?}"));
    }

    // Only what the dialect has.
    for table in &case.schema.tables {
        for column in &table.columns {
            if !features.column_types.contains(&column.ty) {
                return Err(format!("{}.{}: {:?}", table.name, column.name, column.ty));
            }
        }
    }
    for txn in &case.transactions {
        for statement in &txn.statements {
            if let Statement::Select(s) = statement {
                let ok = match s.lock {
                    RowLock::None => true,
                    RowLock::ForUpdate => features.select_for_update,
                    RowLock::ForShare => features.select_for_share,
                };
                if !ok {
                    return Err(format!("{:?} on a dialect without it", s.lock));
                }
            }
            if let Statement::Insert(i) = statement {
                if i.on_conflict != OnConflict::Error {
                    return Err("INSERT with a conflict clause".into());
                }
            }
        }
    }
    Ok(())
}

/// Runs the case's transactions one after another, in both orders, on the
/// in-memory database: no statement may fail.
pub fn check_serial_runs(case: &TestCase) -> Result<(), String> {
    let orders: Vec<Vec<usize>> = vec![
        (0..case.transactions.len()).collect(),
        (0..case.transactions.len()).rev().collect(),
    ];
    for order in orders {
        let history = txlab_testkit::serial_history(case, &order);
        for record in history.statements.iter().flatten() {
            if let Outcome::Error(e) = &record.outcome {
                return Err(format!("serial {order:?}: {} failed: {e}", record.at));
            }
        }
    }
    Ok(())
}

/// What a set of instances used, for coverage checks.
#[derive(Debug, Default)]
pub struct Seen {
    pub patterns: BTreeSet<String>,
    pub kinds: BTreeMap<&'static str, usize>,
    pub filler_kinds: BTreeSet<&'static str>,
    pub predicates: usize,
    pub by_key: usize,
    pub two_tables: usize,
    pub items_apart: usize,
    pub levels: BTreeSet<IsolationLevel>,
    pub mixed: usize,
}

fn by_key(filter: Option<&Expr>) -> bool {
    matches!(filter, Some(Expr::Binary { op: BinaryOp::Eq, left, .. })
        if matches!(left.as_ref(), Expr::Column(c) if c.column == "id"))
}

impl Seen {
    pub fn record(&mut self, inst: &Instance) {
        let case = &inst.case;
        self.patterns.insert(inst.pattern.spec.name.to_string());
        for &at in &inst.sites {
            let statement = case.statement(at).unwrap();
            *self.kinds.entry(statement.kind_name()).or_default() += 1;
            let filter = match statement {
                Statement::Select(s) => Some(s.filter.as_ref()),
                Statement::Update(u) => Some(u.filter.as_ref()),
                Statement::Delete(d) => Some(d.filter.as_ref()),
                _ => None,
            };
            if let Some(f) = filter {
                if by_key(f) {
                    self.by_key += 1;
                } else {
                    self.predicates += 1;
                }
            }
        }
        for &at in &inst.fillers {
            self.filler_kinds
                .insert(case.statement(at).unwrap().kind_name());
        }
        if case.schema.tables.len() == 2 {
            self.two_tables += 1;
        }
        let tables: BTreeSet<usize> = inst
            .pattern
            .items
            .iter()
            .map(|&i| inst.item_row(i).table)
            .collect();
        if tables.len() > 1 {
            self.items_apart += 1;
        }
        for t in &case.transactions {
            self.levels.insert(t.isolation);
        }
        if case.transactions[0].isolation != case.transactions[1].isolation {
            self.mixed += 1;
        }
    }
}
