//! Shared builders for the Troc oracle tests: profiles, cases, hand-made histories.
#![allow(dead_code, unused_imports)]

pub mod recorded;

use txlab_oracle_troc::{TrocConfig, TrocOracle};
use txlab_plugin_api::prelude::*;
use txlab_testkit::concurrent_history;
pub use txlab_testkit::oracle::{check, expect_finding, expect_undecided};
pub use txlab_testkit::schedule as refs;

pub const RU: IsolationLevel = IsolationLevel::ReadUncommitted;
pub const RC: IsolationLevel = IsolationLevel::ReadCommitted;
pub const RR: IsolationLevel = IsolationLevel::RepeatableRead;
pub const SER: IsolationLevel = IsolationLevel::Serializable;

pub fn int(i: i64) -> Value {
    Value::Int(i)
}

pub fn level(
    level: IsolationLevel,
    snapshot: SnapshotPoint,
    write_reads: WriteReads,
    write_conflict: WriteConflict,
    semi_consistent_writes: bool,
    predicate_conflicts: bool,
) -> LevelSemantics {
    LevelSemantics {
        level,
        snapshot,
        write_reads,
        write_conflict,
        semi_consistent_writes,
        predicate_conflicts,
        serial_order: SerialOrder::CommitOrder,
        serializable: false,
        after_wait: AfterWait::Unknown,
        mixed_levels: MixedLevels::SameLevelOnly,
        notes: vec![format!("test profile of {level}")],
        references: vec![],
    }
}

fn dialect(name: &str, levels: Vec<LevelSemantics>, engine: EngineSemantics) -> DialectInfo {
    DialectInfo {
        name: name.into(),
        driver: "sqlite".into(),
        levels,
        features: Features::default(),
        lock_probe: LockProbe::Driver,
        session_control: SessionControl::default(),
        engine,
        server_query: None,
        server: None,
    }
}

/// InnoDB's engine facts, as the MySQL dialect declares them.
pub fn innodb_engine() -> EngineSemantics {
    EngineSemantics {
        same_value_update: SameValueUpdate::NoVersion,
        replace_may_update_in_place: true,
        shared_reads_may_lock_only_a_covering_index: true,
        first_read_snapshot_needs_table_access: true,
        dirty_reads_see_partial_writes: true,
        unique_checked_per_row: true,
        failed_statement_keeps_transaction: true,
        notes: vec!["test engine facts of InnoDB".into()],
    }
}

/// Engine facts under which none of InnoDB's behaviours excuses a result:
/// a new version for every UPDATE, REPLACE as a delete and an insert, FOR
/// SHARE locking rows, snapshots at any read, no partial writes seen.
pub fn strict_engine() -> EngineSemantics {
    EngineSemantics {
        same_value_update: SameValueUpdate::NewVersion,
        replace_may_update_in_place: false,
        shared_reads_may_lock_only_a_covering_index: false,
        first_read_snapshot_needs_table_access: false,
        dirty_reads_see_partial_writes: false,
        unique_checked_per_row: false,
        failed_statement_keeps_transaction: false,
        notes: vec![],
    }
}

/// InnoDB as the MySQL dialect declares it (innodb_snapshot_isolation off).
pub fn innodb() -> DialectInfo {
    innodb_with(innodb_engine())
}

/// A level with its rule for the rows a statement that waited acts on.
pub fn after_wait(mut level: LevelSemantics, rule: AfterWait) -> LevelSemantics {
    level.after_wait = rule;
    level
}

/// InnoDB's levels with other engine facts.
pub fn innodb_with(engine: EngineSemantics) -> DialectInfo {
    use SnapshotPoint::*;
    use WriteConflict::BlockThenProceed as Btp;
    use WriteReads::LatestCommitted as Lc;
    let latest = |l| after_wait(l, AfterWait::LatestRows);
    dialect(
        "innodb-like",
        vec![
            latest(level(RU, None, Lc, Btp, true, false)),
            latest(level(RC, PerStatement, Lc, Btp, true, false)),
            latest(level(RR, FirstRead, Lc, Btp, false, true)),
            latest(level(SER, PerStatement, Lc, Btp, false, true)),
        ],
        engine,
    )
}

/// A profile that declares no rule for the rows a statement that waited
/// acts on, with `dialect`'s levels otherwise.
pub fn without_after_wait(mut dialect: DialectInfo) -> DialectInfo {
    for l in &mut dialect.levels {
        l.after_wait = AfterWait::Unknown;
    }
    dialect
}

/// PostgreSQL as its dialect declares it.
pub fn postgres() -> DialectInfo {
    use SnapshotPoint::*;
    use WriteConflict::*;
    use WriteReads::*;
    dialect(
        "postgres-like",
        vec![
            after_wait(
                level(
                    RC,
                    PerStatement,
                    LatestCommitted,
                    BlockThenProceed,
                    false,
                    false,
                ),
                AfterWait::RecheckChanged,
            ),
            level(RR, FirstStatement, Snapshot, BlockThenAbort, false, false),
        ],
        strict_engine(),
    )
}

/// SQLite in WAL mode.
pub fn sqlite() -> DialectInfo {
    dialect(
        "sqlite-like",
        vec![level(
            SER,
            SnapshotPoint::FirstRead,
            WriteReads::Snapshot,
            WriteConflict::SingleWriter,
            false,
            true,
        )],
        strict_engine(),
    )
}

pub fn oracle_with(config_json: &str, dialect: DialectInfo) -> TrocOracle {
    let config: TrocConfig = parse_config(config_json).unwrap();
    TrocOracle::new(config, OracleContext { dialect }).unwrap()
}

pub fn oracle(dialect: DialectInfo) -> TrocOracle {
    oracle_with("", dialect)
}

/// Table `t(c1 INT, c2 INT)` (a primary key on c1 when `pk`).
pub fn t2(pk: bool) -> Table {
    Table {
        name: "t".into(),
        columns: ["c1", "c2"]
            .iter()
            .map(|n| Column {
                name: n.to_string(),
                ty: ColumnType::Int,
                not_null: false,
            })
            .collect(),
        primary_key: if pk { vec!["c1".into()] } else { vec![] },
        unique: vec![],
        indexes: vec![],
    }
}

pub fn rows(table: &Table, rows: Vec<Vec<Value>>) -> TableRows {
    TableRows {
        table: table.name.clone(),
        columns: table.column_names(),
        rows,
    }
}

pub fn txn(isolation: IsolationLevel, statements: Vec<Statement>) -> Transaction {
    Transaction {
        isolation,
        kind: TxnKind::Explicit,
        statements,
    }
}

/// A case submitted in `submitted` order, instrumented by the oracle's `prepare`.
pub fn prepared(
    oracle: &mut TrocOracle,
    tables: Vec<Table>,
    initial_rows: Vec<TableRows>,
    transactions: Vec<Transaction>,
    submitted: &[usize],
) -> TestCase {
    let submitted_order = refs(&transactions, submitted);
    let case = TestCase {
        seed: 0,
        generator: "test".into(),
        schema: Schema { tables },
        initial_rows,
        transactions,
        submitted_order,
        intent: None,
        pace_ms: None,
    };
    case.validate().unwrap();
    let case = oracle.prepare(case).unwrap();
    case.validate().unwrap();
    case
}

/// Rows as the prepared table holds them: the values, then the row id.
pub fn r(values: &[i64], rid: i64) -> Vec<Value> {
    let mut row: Vec<Value> = values.iter().map(|&v| int(v)).collect();
    row.push(int(rid));
    row
}

pub fn rn(values: &[Option<i64>], rid: i64) -> Vec<Value> {
    let mut row: Vec<Value> = values.iter().map(|v| v.map_or(Value::Null, int)).collect();
    row.push(int(rid));
    row
}

pub fn result(case: &TestCase, rows: Vec<Vec<Value>>) -> Outcome {
    Outcome::Rows {
        columns: case.schema.tables[0].column_names(),
        rows,
    }
}

pub fn affected(rows: u64) -> Outcome {
    Outcome::Affected { rows }
}

pub fn error(class: ErrorClass, scope: ErrorScope) -> Outcome {
    Outcome::Error(DbError {
        class,
        scope,
        code: None,
        sqlstate: None,
        message: format!("injected {class}"),
    })
}

pub fn final_state(case: &TestCase, rows: Vec<Vec<Value>>) -> DbState {
    let table = &case.schema.tables[0];
    let mut state = DbState {
        tables: vec![TableState {
            table: table.name.clone(),
            columns: table.column_names(),
            rows,
        }],
    };
    state.canonicalize();
    state
}

/// A hand-made history: statements completed in `completion` order (transaction
/// indexes); control statements succeed unless `outcomes` says otherwise, every
/// data statement needs an outcome. `blocked` lists statements that waited:
/// each was sent right after the completion-order position given with it.
pub fn history(
    case: &TestCase,
    completion: &[usize],
    outcomes: Vec<(StatementRef, Outcome)>,
    blocked: Vec<(StatementRef, usize)>,
    ends: Vec<TxnEnd>,
    final_rows: Vec<Vec<Value>>,
) -> History {
    blocked
        .into_iter()
        .fold(
            concurrent_history(case, completion).outcomes(outcomes),
            |h, (at, after)| h.blocked(at, after),
        )
        .ends(ends)
        .final_state(final_state(case, final_rows))
        .build()
}

pub fn committed() -> Vec<TxnEnd> {
    vec![TxnEnd::Committed, TxnEnd::Committed]
}

pub fn at(t: usize, s: usize) -> StatementRef {
    StatementRef::new(t, s)
}

pub fn eq(column: &str, v: i64) -> Expr {
    Expr::eq(Expr::column(column), Expr::lit(int(v)))
}

pub fn select_all() -> Statement {
    Statement::Select(Select {
        table: "t".into(),
        projection: Projection::All,
        filter: None,
        order_by: vec![],
        lock: RowLock::None,
    })
}

pub fn select_where(filter: Expr, lock: RowLock) -> Statement {
    Statement::Select(Select {
        table: "t".into(),
        projection: Projection::All,
        filter: Some(filter),
        order_by: vec![],
        lock,
    })
}

pub fn update(assignments: Vec<(&str, Expr)>, filter: Option<Expr>) -> Statement {
    Statement::Update(Update {
        table: "t".into(),
        assignments: assignments
            .into_iter()
            .map(|(c, value)| Assignment {
                column: c.into(),
                value,
            })
            .collect(),
        filter,
    })
}

pub fn delete(filter: Option<Expr>) -> Statement {
    Statement::Delete(Delete {
        table: "t".into(),
        filter,
    })
}

pub fn insert(values: &[i64]) -> Statement {
    Statement::Insert(Insert {
        table: "t".into(),
        columns: vec!["c1".into(), "c2".into()],
        rows: vec![values.iter().map(|&v| Expr::lit(int(v))).collect()],
        on_conflict: OnConflict::Error,
    })
}

pub fn lit(v: i64) -> Expr {
    Expr::lit(int(v))
}
