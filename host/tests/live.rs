//! The executor against the real MariaDB and PostgreSQL servers: fixed
//! two-transaction schedules with their expected histories.
//!
//! Servers come from `TXLAB_MYSQL_URL` / `TXLAB_PG_URL` (defaults: the local
//! servers on 127.0.0.1). With `TXLAB_REQUIRE_LIVE=1` (as in CI) an unreachable
//! server fails the test; otherwise the test says that it skipped and why.

mod common;

use std::sync::Arc;
use std::time::Duration;
use txlab_host::driver::{ServerKind, Timeouts};
use txlab_host::executor::{ExecutorSettings, ScheduleExecutor};
use txlab_host::target::{open_driver, CaseDb, ServerDatabases, TargetLocation};
use txlab_loader::{DialectHandle, PluginLibrary};
use txlab_plugin_api::ir::*;

const RR: IsolationLevel = IsolationLevel::RepeatableRead;
const RC: IsolationLevel = IsolationLevel::ReadCommitted;

const LIMITS: SessionLimits = SessionLimits {
    statement_timeout_ms: 10_000,
    lock_wait_timeout_ms: 10_000,
};

struct Live {
    dialect: Arc<DialectHandle>,
    info: DialectInfo,
    server: Arc<ServerDatabases>,
    db: CaseDb,
}

/// Drops the test's databases even when an assertion fails.
impl Drop for Live {
    fn drop(&mut self) {
        let server = self.server.clone();
        let problems = tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current().block_on(server.drop_created())
        });
        assert!(problems.is_empty(), "{problems:?}");
    }
}

impl Live {
    async fn start(kind: ServerKind, library: &str, entry: &str, config: &str) -> Option<Live> {
        let default = match kind {
            ServerKind::Mysql => "mysql://root@127.0.0.1:3306",
            ServerKind::Postgres => "postgres://postgres@127.0.0.1:5432/postgres",
        };
        let url = std::env::var(kind.url_env()).unwrap_or_else(|_| default.to_string());
        let lib = PluginLibrary::load(&common::library(library)).expect("the dialect loads");
        let dialect = Arc::new(lib.new_dialect(entry, config).expect("the dialect builds"));
        let info = dialect.info().unwrap();
        let server = Arc::new(ServerDatabases::new(kind, &url));
        let timeouts = Timeouts {
            statement: Duration::from_secs(10),
            lock_wait: Duration::from_secs(10),
        };
        let location = TargetLocation::Server(server.clone());
        let admin_setup = dialect
            .session_setup(&SessionRequest {
                isolation: info.levels[0].level,
                limits: LIMITS,
            })
            .unwrap();
        let db = match open_driver(&dialect, &info, &location, "live", timeouts).await {
            Ok(driver) => CaseDb::open(
                driver,
                &admin_setup,
                timeouts.deadlines(),
                Default::default(),
            )
            .await
            .expect("the case database opens"),
            Err(e) => {
                let why = format!("{entry} at {} is unreachable: {e}", server.redacted_url());
                if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
                    panic!("{why}");
                }
                eprintln!("skipped: {why}");
                return None;
            }
        };
        Some(Live {
            dialect,
            info,
            server,
            db,
        })
    }

    async fn mariadb(config: &str) -> Option<Live> {
        Self::start(ServerKind::Mysql, "txlab-dialect-mysql", "mariadb", config).await
    }

    async fn postgres(config: &str) -> Option<Live> {
        Self::start(
            ServerKind::Postgres,
            "txlab-dialect-postgres",
            "postgres",
            config,
        )
        .await
    }

    async fn run(&mut self, case: &TestCase) -> History {
        case.validate().unwrap();
        assert!(
            case.transactions
                .iter()
                .all(|t| self.info.supports(t.isolation)),
            "the dialect offers the case's levels"
        );
        let rendered = self.dialect.render_case(case, &LIMITS).unwrap();
        self.db
            .prepare(&self.dialect, case, &rendered)
            .await
            .unwrap();
        let setups: Vec<SessionSetup> = rendered
            .transactions
            .iter()
            .map(|t| t.session.clone())
            .collect();
        let sessions = self.db.sessions(&setups).await.unwrap();
        let executor = ScheduleExecutor {
            settings: ExecutorSettings {
                stall_timeout: Duration::from_secs(20),
                ..ExecutorSettings::default()
            },
            monitor: self.db.monitor.as_ref(),
            classifier: self.dialect.as_ref(),
            interrupt: Default::default(),
        };
        let (history, sessions) = executor.run(case, &rendered, sessions).await;
        self.db.give_back(sessions, &setups);
        let mut history = history.unwrap();
        history.final_state = Some(self.db.read_state(&rendered).await.unwrap());
        history
    }
}

fn table() -> Table {
    let col = |name: &str, not_null| Column {
        name: name.into(),
        ty: ColumnType::Int,
        not_null,
    };
    Table {
        name: "t".into(),
        columns: vec![col("k", true), col("v", false)],
        primary_key: vec!["k".into()],
        unique: vec![],
        indexes: vec![],
    }
}

fn key(k: i64) -> Option<Expr> {
    Some(Expr::eq(Expr::column("k"), Expr::lit(Value::Int(k))))
}

fn set(k: i64, v: i64) -> Statement {
    Statement::Update(Update {
        table: "t".into(),
        assignments: vec![Assignment {
            column: "v".into(),
            value: Expr::lit(Value::Int(v)),
        }],
        filter: key(k),
    })
}

fn read(k: i64) -> Statement {
    Statement::Select(Select {
        table: "t".into(),
        projection: Projection::All,
        filter: key(k),
        order_by: vec![],
        lock: RowLock::None,
    })
}

/// Rows (1, 0) and (2, 0); transactions as statement lists; `order` lists
/// 1-based transaction numbers, each taking that transaction's next statement.
fn case(level: IsolationLevel, txns: Vec<Vec<Statement>>, order: &[usize]) -> TestCase {
    let mut next = vec![0usize; txns.len()];
    TestCase {
        seed: 0,
        generator: "live".into(),
        schema: Schema {
            tables: vec![table()],
        },
        initial_rows: vec![TableRows {
            table: "t".into(),
            columns: vec!["k".into(), "v".into()],
            rows: vec![
                vec![Value::Int(1), Value::Int(0)],
                vec![Value::Int(2), Value::Int(0)],
            ],
        }],
        transactions: txns
            .into_iter()
            .map(|statements| Transaction {
                isolation: level,
                kind: TxnKind::Explicit,
                statements,
            })
            .collect(),
        submitted_order: order
            .iter()
            .map(|&t| {
                next[t - 1] += 1;
                StatementRef::new(t - 1, next[t - 1] - 1)
            })
            .collect(),
        intent: None,
        pace_ms: None,
    }
}

fn at(txn: usize, stmt: usize) -> StatementRef {
    StatementRef::new(txn - 1, stmt - 1)
}

fn order(h: &History) -> Vec<String> {
    h.completion_order.iter().map(ToString::to_string).collect()
}

fn v_of(h: &History, k: i64) -> Value {
    let t = h.final_state.as_ref().unwrap().table("t").unwrap();
    t.rows
        .iter()
        .find(|r| r[0] == Value::Int(k) || r[0] == Value::Decimal(k.to_string()))
        .unwrap()[1]
        .clone()
}

/// T1 and T2 update row 1; T2's UPDATE is sent while T1 holds the row.
fn dirty_write(level: IsolationLevel) -> TestCase {
    case(
        level,
        vec![
            vec![Statement::Begin, set(1, 1), Statement::Commit],
            vec![Statement::Begin, set(1, 2), Statement::Commit],
        ],
        &[1, 1, 2, 2, 1, 2],
    )
}

fn assert_dirty_write_blocked_and_resumed(h: &History) {
    assert_eq!(
        order(h),
        ["T1.1", "T1.2", "T2.1", "T1.3", "T2.2", "T2.3"],
        "{h:#?}"
    );
    let b = h
        .record(at(2, 2))
        .unwrap()
        .blocked
        .clone()
        .expect("T2.2 blocked");
    assert_eq!(
        b.evidence,
        BlockEvidence::Probe,
        "the probe confirmed the wait"
    );
    assert_eq!(b.resumed_after, Some(at(1, 3)));
    assert!(h.unobserved.is_empty(), "{:?}", h.unobserved);
}

/// T1 locks 1 then 2, T2 locks 2 then 1.
fn deadlock(level: IsolationLevel) -> TestCase {
    case(
        level,
        vec![
            vec![Statement::Begin, set(1, 1), set(2, 1), Statement::Commit],
            vec![Statement::Begin, set(2, 2), set(1, 2), Statement::Commit],
        ],
        &[1, 2, 1, 2, 1, 2, 1, 2],
    )
}

fn assert_one_deadlock_victim(h: &History) {
    let victims: Vec<usize> = h
        .transactions
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            matches!(
                t.end,
                TxnEnd::Aborted {
                    class: ErrorClass::Deadlock,
                    ..
                }
            )
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(victims.len(), 1, "{h:#?}");
    let survivor = 1 - victims[0];
    assert_eq!(h.transactions[survivor].end, TxnEnd::Committed, "{h:#?}");
    let expected = Value::Int(survivor as i64 + 1);
    assert_eq!(v_of(h, 1), expected);
    assert_eq!(v_of(h, 2), expected);
    assert!(h.unobserved.is_empty(), "{:?}", h.unobserved);
}

/// Both read row 1, then both write it; T2's write waits for T1's.
fn lost_update(level: IsolationLevel) -> TestCase {
    case(
        level,
        vec![
            vec![Statement::Begin, read(1), set(1, 11), Statement::Commit],
            vec![Statement::Begin, read(1), set(1, 12), Statement::Commit],
        ],
        &[1, 1, 2, 2, 1, 2, 1, 2],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_dirty_write_blocks_and_resumes_after_commit() {
    let Some(mut live) = Live::mariadb("{}").await else {
        return;
    };
    for level in [RC, RR, IsolationLevel::Serializable] {
        let h = live.run(&dirty_write(level)).await;
        assert_dirty_write_blocked_and_resumed(&h);
        assert_eq!(h.transactions[1].end, TxnEnd::Committed, "{level}");
        assert_eq!(v_of(&h, 1), Value::Int(2), "{level}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_deadlock_makes_exactly_one_victim() {
    let Some(mut live) = Live::mariadb("{}").await else {
        return;
    };
    let h = live.run(&deadlock(RR)).await;
    assert_one_deadlock_victim(&h);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_repeatable_read_lets_the_second_updater_overwrite() {
    let Some(mut live) = Live::mariadb("{}").await else {
        return;
    };
    let h = live.run(&lost_update(RR)).await;
    let b = h.record(at(2, 3)).unwrap();
    assert!(b.blocked.is_some(), "{h:#?}");
    assert_eq!(b.outcome, Outcome::Affected { rows: 1 });
    assert_eq!(h.transactions[0].end, TxnEnd::Committed);
    assert_eq!(h.transactions[1].end, TxnEnd::Committed);
    // T1's write is lost: T2 overwrote a row it read before T1 changed it.
    assert_eq!(v_of(&h, 1), Value::Int(12));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_snapshot_isolation_fails_the_second_updater_with_1020() {
    let Some(mut live) = Live::mariadb(r#"{"snapshot_isolation": true}"#).await else {
        return;
    };
    let h = live.run(&lost_update(RR)).await;
    let b = h.record(at(2, 3)).unwrap();
    let e = b.outcome.error().expect("T2's UPDATE fails");
    assert_eq!(e.code, Some(1020), "{e}");
    assert_eq!(e.class, ErrorClass::SerializationFailure);
    assert_eq!(h.transactions[0].end, TxnEnd::Committed);
    assert!(
        matches!(h.transactions[1].end, TxnEnd::Aborted { by, .. } if by == at(2, 3))
            || e.scope == ErrorScope::Statement,
        "{h:#?}"
    );
    assert_eq!(v_of(&h, 1), Value::Int(11));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_dirty_write_blocks_and_resumes_after_commit() {
    let Some(mut live) = Live::postgres("{}").await else {
        return;
    };
    let h = live.run(&dirty_write(RC)).await;
    assert_dirty_write_blocked_and_resumed(&h);
    assert_eq!(h.transactions[1].end, TxnEnd::Committed);
    assert_eq!(v_of(&h, 1), Value::Int(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_deadlock_makes_exactly_one_victim() {
    let Some(mut live) = Live::postgres(r#"{"deadlock_timeout_ms": 100}"#).await else {
        return;
    };
    let h = live.run(&deadlock(RC)).await;
    assert_one_deadlock_victim(&h);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_repeatable_read_aborts_the_second_updater_with_40001() {
    let Some(mut live) = Live::postgres("{}").await else {
        return;
    };
    let h = live.run(&lost_update(RR)).await;
    let b = h.record(at(2, 3)).unwrap();
    assert!(b.blocked.is_some(), "{h:#?}");
    let e = b.outcome.error().expect("T2's UPDATE fails");
    assert_eq!(e.sqlstate.as_deref(), Some("40001"), "{e}");
    assert_eq!(e.class, ErrorClass::SerializationFailure);
    assert_eq!(
        h.transactions[1].end,
        TxnEnd::Aborted {
            by: at(2, 3),
            class: ErrorClass::SerializationFailure
        }
    );
    assert_eq!(h.record(at(2, 4)).unwrap().outcome, Outcome::NotSubmitted);
    assert_eq!(v_of(&h, 1), Value::Int(11));
}
