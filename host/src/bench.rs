//! `txlab bench`: measurements of the executor on the pipeline's target.
//!
//! - Block detection: two transactions update the same row; the second one's
//!   UPDATE waits. The time from submitting it to the executor knowing it is
//!   blocked (confirmed by the lock-wait probe) is read off the history.
//! - Executor overhead: one transaction of single-row statements, run through
//!   the executor and as a plain loop over the same session; the ratio of the
//!   two per-statement times is the executor's own cost.

pub mod throughput;

use crate::executor::ScheduleExecutor;
use crate::setup::{Environment, Resolved, ServerAccess, SetupError};
use crate::target::{open_driver, CaseDb};
use std::time::Instant;
use txlab_plugin_api::ir::*;

#[derive(Debug, serde::Serialize)]
pub struct BenchReport {
    pub machine: String,
    pub dialect: String,
    pub server: String,
    pub isolation: IsolationLevel,
    pub samples: usize,
    /// Submission of the blocked UPDATE to the executor knowing it waits, µs.
    pub block_detect_median_us: u64,
    pub block_detect_p90_us: u64,
    pub block_detect_p99_us: u64,
    /// Cases where the block was only assumed after the fallback timeout.
    pub block_by_timeout: usize,
    pub statements_per_sample: usize,
    pub executor_us_per_statement: f64,
    pub raw_us_per_statement: f64,
}

impl BenchReport {
    pub fn render(&self) -> String {
        let ratio =
            self.executor_us_per_statement / self.raw_us_per_statement.max(f64::MIN_POSITIVE);
        format!(
            "machine: {}\ntarget: {} ({}), isolation {}\n\
             block detection ({} samples): median {:.2} ms, p90 {:.2} ms, p99 {:.2} ms{}\n\
             executor overhead ({} statements per transaction, median of rounds): {:.1} µs/statement \
             through the executor, {:.1} µs/statement in a raw driver loop, ratio {:.2}×",
            self.machine,
            self.dialect,
            self.server,
            self.isolation,
            self.samples,
            self.block_detect_median_us as f64 / 1000.0,
            self.block_detect_p90_us as f64 / 1000.0,
            self.block_detect_p99_us as f64 / 1000.0,
            if self.block_by_timeout > 0 {
                format!(" ({} only by the fallback timeout)", self.block_by_timeout)
            } else {
                String::new()
            },
            self.statements_per_sample,
            self.executor_us_per_statement,
            self.raw_us_per_statement,
            ratio,
        )
    }
}

/// A line describing this machine: CPU model, logical CPUs, kernel.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| std::env::consts::OS.to_string());
    format!("{cpu}, {cpus} logical CPUs, kernel {kernel}")
}

fn table() -> Table {
    Table {
        name: "bench".into(),
        columns: vec![
            Column {
                name: "k".into(),
                ty: ColumnType::Int,
                not_null: true,
            },
            Column {
                name: "v".into(),
                ty: ColumnType::Int,
                not_null: false,
            },
        ],
        primary_key: vec!["k".into()],
        unique: vec![],
        indexes: vec![],
    }
}

fn update(k: i64, v: i64) -> Statement {
    Statement::Update(Update {
        table: "bench".into(),
        assignments: vec![Assignment {
            column: "v".into(),
            value: Expr::lit(Value::Int(v)),
        }],
        filter: Some(Expr::eq(Expr::column("k"), Expr::lit(Value::Int(k)))),
    })
}

fn select(k: i64) -> Statement {
    Statement::Select(Select {
        table: "bench".into(),
        projection: Projection::All,
        filter: Some(Expr::eq(Expr::column("k"), Expr::lit(Value::Int(k)))),
        order_by: vec![],
        lock: RowLock::None,
    })
}

fn case(isolation: IsolationLevel, transactions: Vec<Vec<Statement>>, order: &[usize]) -> TestCase {
    let mut next = vec![0usize; transactions.len()];
    let submitted_order = order
        .iter()
        .map(|&t| {
            next[t] += 1;
            StatementRef::new(t, next[t] - 1)
        })
        .collect();
    TestCase {
        seed: 0,
        generator: "bench".into(),
        schema: Schema {
            tables: vec![table()],
        },
        initial_rows: vec![TableRows {
            table: "bench".into(),
            columns: vec!["k".into(), "v".into()],
            rows: (1..=20)
                .map(|k| vec![Value::Int(k), Value::Int(0)])
                .collect(),
        }],
        transactions: transactions
            .into_iter()
            .map(|statements| Transaction {
                isolation,
                kind: TxnKind::Explicit,
                statements,
            })
            .collect(),
        submitted_order,
        intent: None,
        pace_ms: None,
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub fn run(
    resolved: &Resolved<'_>,
    samples: usize,
    server: &ServerAccess,
) -> Result<BenchReport, SetupError> {
    let env = Environment::with_access(resolved, server)?;
    // The strongest level the dialect offers: its writers conflict on one row.
    let isolation = *resolved.levels.iter().max().expect("at least one level");
    let dialect = resolved.dialect.clone();
    let other = SetupError::Bench;
    env.runtime.block_on(async {
        let driver = open_driver(
            &dialect,
            &resolved.info,
            &env.location,
            "bench",
            env.timeouts,
        )
        .await?;
        let server = driver.target();
        let admin_setup = dialect.session_setup(&SessionRequest {
            isolation,
            limits: env.limits,
        })?;
        let mut db = CaseDb::open(
            driver,
            &admin_setup,
            env.settings.deadlines,
            env.interrupt.clone(),
        )
        .await?;
        // On a cluster, lock waits are one node's: both writers on the first.
        db.keep_to_first_node();

        // Block detection.
        let blocking = case(
            isolation,
            vec![
                vec![Statement::Begin, update(1, 1), Statement::Commit],
                vec![Statement::Begin, update(1, 2), Statement::Commit],
            ],
            &[0, 0, 1, 1, 0, 1],
        );
        let rendered = dialect.render_case(&blocking, &env.limits)?;
        let setups: Vec<SessionSetup> = rendered
            .transactions
            .iter()
            .map(|t| t.session.clone())
            .collect();
        let mut detect = Vec::with_capacity(samples);
        let mut by_timeout = 0;
        for _ in 0..samples {
            db.prepare(&dialect, &blocking, &rendered).await?;
            let sessions = db.sessions(&setups).await?;
            let executor = ScheduleExecutor {
                settings: env.settings,
                monitor: db.monitor.as_ref(),
                classifier: dialect.as_ref(),
                interrupt: Default::default(),
            };
            let (history, sessions) = executor.run(&blocking, &rendered, sessions).await;
            db.give_back(sessions, &setups);
            let history = history.map_err(|e| other(e.to_string()))?;
            let record = history
                .record(StatementRef::new(1, 1))
                .expect("the second UPDATE is recorded");
            let blocked = record.blocked.as_ref().ok_or_else(|| {
                other("the second UPDATE did not block: the target does not lock rows".into())
            })?;
            if blocked.evidence == BlockEvidence::Timeout {
                by_timeout += 1;
            }
            detect.push(
                blocked
                    .detected_us
                    .saturating_sub(record.submitted_us.unwrap_or(0)),
            );
        }
        detect.sort_unstable();

        // Executor overhead against a raw loop, on the same statements.
        let mut statements = vec![Statement::Begin];
        for k in 1..=20 {
            statements.push(select(k));
            statements.push(update(k, k));
        }
        statements.push(Statement::Commit);
        let n = statements.len();
        let single = case(isolation, vec![statements], &vec![0; n]);
        let rendered = dialect.render_case(&single, &env.limits)?;
        let setups = vec![rendered.transactions[0].session.clone()];
        // Per round, alternating, and the median of each: this machine's idle
        // CPUs make single rounds noisy.
        let (mut executor_rounds, mut raw_rounds) = (Vec::new(), Vec::new());
        let rounds = samples.clamp(11, 101);
        for _ in 0..rounds {
            db.prepare(&dialect, &single, &rendered).await?;
            let sessions = db.sessions(&setups).await?;
            let started = Instant::now();
            let executor = ScheduleExecutor {
                settings: env.settings,
                monitor: db.monitor.as_ref(),
                classifier: dialect.as_ref(),
                interrupt: Default::default(),
            };
            let (history, sessions) = executor.run(&single, &rendered, sessions).await;
            executor_rounds.push(started.elapsed().as_nanos() as u64);
            db.give_back(sessions, &setups);
            history.map_err(|e| other(e.to_string()))?;

            db.prepare(&dialect, &single, &rendered).await?;
            let mut sessions = db.sessions(&setups).await?;
            let mut session = sessions.pop().expect("one session");
            let statements = rendered.transactions[0].statements.clone();
            // On a task of its own, as the executor runs each session.
            let (session, elapsed) = tokio::spawn(async move {
                let started = Instant::now();
                for sql in &statements {
                    if let Err(e) = session.execute(sql).await {
                        return Err(format!("`{sql}` failed: {}", e.message));
                    }
                }
                Ok((session, started.elapsed()))
            })
            .await
            .map_err(|e| other(e.to_string()))?
            .map_err(other)?;
            raw_rounds.push(elapsed.as_nanos() as u64);
            db.give_back(vec![Some(session)], &setups);
        }
        executor_rounds.sort_unstable();
        raw_rounds.sort_unstable();
        let per = |rounds: &[u64]| percentile(rounds, 0.5) as f64 / 1000.0 / n as f64;
        Ok(BenchReport {
            machine: machine(),
            dialect: resolved.info.name.clone(),
            server,
            isolation,
            samples,
            block_detect_median_us: percentile(&detect, 0.5),
            block_detect_p90_us: percentile(&detect, 0.9),
            block_detect_p99_us: percentile(&detect, 0.99),
            block_by_timeout: by_timeout,
            statements_per_sample: n,
            executor_us_per_statement: per(&executor_rounds),
            raw_us_per_statement: per(&raw_rounds),
        })
    })
}
