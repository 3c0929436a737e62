//! Builders shared by the oracle tests: cases, hand-made histories, dialects.
#![allow(dead_code, unused_imports)]

use txlab_oracle_wss::{WssConfig, WssOracle};
use txlab_plugin_api::prelude::*;
use txlab_testkit::concurrent_history;
pub use txlab_testkit::oracle::{check, expect_finding, expect_undecided, expect_vendor_permitted};
pub use txlab_testkit::schedule as refs;

pub fn int(i: i64) -> Value {
    Value::Int(i)
}

pub fn text(s: &str) -> Value {
    Value::Text(s.into())
}

pub fn col(name: &str) -> Expr {
    Expr::column(name)
}

pub fn lit(v: Value) -> Expr {
    Expr::lit(v)
}

pub fn table(name: &str, columns: &[(&str, ColumnType)], primary_key: &[&str]) -> Table {
    Table {
        name: name.into(),
        columns: columns
            .iter()
            .map(|(n, ty)| Column {
                name: n.to_string(),
                ty: *ty,
                not_null: false,
            })
            .collect(),
        primary_key: primary_key.iter().map(|c| c.to_string()).collect(),
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

pub fn insert(
    table: &str,
    columns: &[&str],
    values: Vec<Value>,
    on_conflict: OnConflict,
) -> Statement {
    Statement::Insert(Insert {
        table: table.into(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows: vec![values.into_iter().map(Expr::Literal).collect()],
        on_conflict,
    })
}

pub fn update(table: &str, assignments: Vec<(&str, Expr)>, filter: Option<Expr>) -> Statement {
    Statement::Update(Update {
        table: table.into(),
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

pub fn delete(table: &str, filter: Option<Expr>) -> Statement {
    Statement::Delete(Delete {
        table: table.into(),
        filter,
    })
}

pub fn select(table: &str) -> Statement {
    Statement::Select(Select {
        table: table.into(),
        projection: Projection::All,
        filter: None,
        order_by: vec![],
        lock: RowLock::None,
    })
}

/// BEGIN, `body`, then COMMIT or ROLLBACK.
pub fn explicit(isolation: IsolationLevel, body: Vec<Statement>, commit: bool) -> Transaction {
    let mut statements = vec![Statement::Begin];
    statements.extend(body);
    statements.push(if commit {
        Statement::Commit
    } else {
        Statement::Rollback
    });
    Transaction {
        isolation,
        kind: TxnKind::Explicit,
        statements,
    }
}

pub fn autocommit(isolation: IsolationLevel, statement: Statement) -> Transaction {
    Transaction {
        isolation,
        kind: TxnKind::Autocommit,
        statements: vec![statement],
    }
}

pub fn case(
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
    case
}

pub fn state(table: &Table, rows: Vec<Vec<Value>>) -> DbState {
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

/// A hand-made history of a concurrent run: statements completed in `completion`
/// order (given as transaction indexes, as in [`refs`]). Control statements
/// succeed and reads return nothing unless `outcomes` says otherwise; every
/// write completed needs an outcome. Statements not completed were not sent.
pub fn history(
    case: &TestCase,
    completion: &[usize],
    outcomes: Vec<(StatementRef, Outcome)>,
    ends: Vec<TxnEnd>,
    final_state: DbState,
) -> History {
    concurrent_history(case, completion)
        .outcomes(outcomes)
        .ends(ends)
        .final_state(final_state)
        .build()
}

pub fn semantics(
    level: IsolationLevel,
    semi_consistent_writes: bool,
    predicate_conflicts: bool,
) -> LevelSemantics {
    LevelSemantics {
        level,
        snapshot: SnapshotPoint::FirstRead,
        write_reads: WriteReads::LatestCommitted,
        write_conflict: WriteConflict::BlockThenProceed,
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

pub fn dialect(levels: Vec<LevelSemantics>) -> DialectInfo {
    DialectInfo {
        name: "testdb".into(),
        driver: "sqlite".into(),
        levels,
        features: Features::default(),
        lock_probe: LockProbe::Driver,
        session_control: SessionControl::default(),
        engine: EngineSemantics::default(),
        server_query: None,
        server: None,
    }
}

/// A dialect whose every level checks every write conflict (Assumption 1 holds).
pub fn strict_dialect() -> DialectInfo {
    dialect(
        IsolationLevel::ALL
            .iter()
            .map(|&l| semantics(l, false, true))
            .collect(),
    )
}

pub fn oracle_with(config_json: &str, dialect: DialectInfo) -> WssOracle {
    let config: WssConfig = parse_config(config_json).unwrap();
    WssOracle::new(config, OracleContext { dialect }).unwrap()
}

pub fn oracle() -> WssOracle {
    oracle_with("", strict_dialect())
}
