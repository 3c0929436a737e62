//! The stream executor: N sessions run generated transactions back to back,
//! truly concurrently, for a duration or a number of cases (IsoRel's and
//! Elle's way), and report every transaction as it ends.
//!
//! Each session is a thread with its own runtime and connection. It takes
//! the cases `s`, `s + N`, `s + 2N`, … of the run (so the same seed gives
//! every session the same transactions), renders each with the dialect and
//! runs its transactions one after another: the transaction's level set-up
//! when it differs from the session's, then its statements, each with its
//! submit and reply time (microseconds since the run's start) and what it
//! returned. A statement that fails ends its transaction: the session rolls
//! back and the transaction counts as aborted by the error's class
//! (deadlock, serialization failure, …); a connection lost during COMMIT
//! leaves the outcome unknown. The caller receives [`StreamEvent`]s on a
//! channel and does the checking.

use super::success_outcome;
use crate::driver::{Driver, Interrupt, Session};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};
use txlab_loader::{DialectHandle, GeneratorHandle};
use txlab_plugin_api::ir::*;

/// How many sessions a stream may run at most.
pub const MAX_SESSIONS: usize = 64;

/// What the stream runs and for how long.
#[derive(Clone, Debug)]
pub struct StreamSettings {
    pub sessions: usize,
    pub run_seed: u64,
    /// Stop after the cases below this index.
    pub cases: Option<u64>,
    /// Stop taking cases at this moment.
    pub until: Option<Instant>,
    /// A statement without a reply this long counts as lost (the server
    /// limits every statement well below it).
    pub reply_timeout: Duration,
    /// The moment times count from.
    pub epoch: Instant,
}

/// One statement as it ran.
#[derive(Clone, Debug)]
pub struct StatementRun {
    pub statement: Statement,
    pub submitted_us: u64,
    pub replied_us: u64,
    pub outcome: Outcome,
}

/// How a transaction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnEnd {
    Committed,
    /// A statement failed (or COMMIT did), by the error's class; the
    /// session rolled it back.
    Aborted(ErrorClass),
    /// The connection broke during COMMIT: it may or may not have committed.
    Unknown,
}

/// One transaction as it ran.
#[derive(Clone, Debug)]
pub struct TxnRun {
    pub session: usize,
    pub case_index: u64,
    /// Its index in the case.
    pub txn: usize,
    pub isolation: IsolationLevel,
    pub kind: TxnKind,
    pub statements: Vec<StatementRun>,
    pub end: TxnEnd,
}

/// What the sessions report, in the order each session did it.
#[derive(Debug)]
pub enum StreamEvent {
    /// Session `session` took case `index`; its transactions come next.
    Case {
        session: usize,
        index: u64,
        case: Box<TestCase>,
    },
    /// A transaction ended.
    Done(Box<TxnRun>),
    /// The session stopped: its cases are done, or it failed (`error`).
    Ended {
        session: usize,
        error: Option<String>,
    },
}

/// Runs the stream.
pub struct StreamExecutor<'a> {
    pub driver: &'a dyn Driver,
    pub dialect: &'a DialectHandle,
    pub limits: SessionLimits,
    pub settings: StreamSettings,
    pub interrupt: Interrupt,
}

/// Why a session stopped early.
#[derive(Debug, thiserror::Error)]
enum SessionError {
    #[error("cannot start the session's runtime: {0}")]
    Runtime(std::io::Error),
    #[error("{0}")]
    Connect(String),
    #[error("the generator failed on case {index}: {error}")]
    Generator { index: u64, error: String },
    #[error("the dialect cannot render case {index}: {error}")]
    Render { index: u64, error: String },
    #[error("the dialect cannot classify an error: {0}")]
    Classify(String),
    #[error("the checker stopped listening")]
    Gone,
}

impl StreamExecutor<'_> {
    /// Runs every session to its end, each with its own generator; returns
    /// when all have stopped (each sends [`StreamEvent::Ended`] last).
    pub fn run(&self, generators: Vec<GeneratorHandle>, events: Sender<StreamEvent>) {
        std::thread::scope(|scope| {
            for (session, generator) in generators.into_iter().enumerate() {
                let events = events.clone();
                scope.spawn(move || {
                    let error = self.session(session, generator, &events).err();
                    if let Some(e) = &error {
                        tracing::warn!(target: "txlab::stream", "session {session} stopped: {e}");
                    }
                    let _ = events.send(StreamEvent::Ended {
                        session,
                        error: error.map(|e| e.to_string()),
                    });
                });
            }
        });
    }

    fn now(&self) -> u64 {
        self.settings.epoch.elapsed().as_micros() as u64
    }

    fn more(&self, index: u64) -> bool {
        !self.interrupt.is_set()
            && self.settings.cases.is_none_or(|n| index < n)
            && self.settings.until.is_none_or(|t| Instant::now() < t)
    }

    fn session(
        &self,
        session: usize,
        mut generator: GeneratorHandle,
        events: &Sender<StreamEvent>,
    ) -> Result<(), SessionError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(SessionError::Runtime)?;
        let mut conn = Connection {
            session: None,
            setup: None,
        };
        let step = self.settings.sessions as u64;
        let mut index = session as u64;
        while self.more(index) {
            let case = generator
                .next_case(CaseRequest::new(self.settings.run_seed, index))
                .map_err(|e| SessionError::Generator {
                    index,
                    error: e.to_string(),
                })?;
            let rendered = self.dialect.render_case(&case, &self.limits).map_err(|e| {
                SessionError::Render {
                    index,
                    error: e.to_string(),
                }
            })?;
            let transactions = case.transactions.clone();
            events
                .send(StreamEvent::Case {
                    session,
                    index,
                    case: Box::new(case),
                })
                .map_err(|_| SessionError::Gone)?;
            for (t, txn) in transactions.into_iter().enumerate() {
                let run = runtime.block_on(self.transaction(
                    &mut conn,
                    &rendered,
                    &rendered.transactions[t],
                    txn,
                ))?;
                let run = TxnRun {
                    session,
                    case_index: index,
                    txn: t,
                    ..run
                };
                events
                    .send(StreamEvent::Done(Box::new(run)))
                    .map_err(|_| SessionError::Gone)?;
                if self.interrupt.is_set() {
                    break;
                }
            }
            index += step;
        }
        Ok(())
    }

    /// Runs one transaction on `conn`, connecting and setting the session up
    /// first where needed.
    async fn transaction(
        &self,
        conn: &mut Connection,
        rendered: &RenderedCase,
        sql: &RenderedTransaction,
        txn: Transaction,
    ) -> Result<TxnRun, SessionError> {
        let mut run = TxnRun {
            session: 0,
            case_index: 0,
            txn: 0,
            isolation: txn.isolation,
            kind: txn.kind,
            statements: Vec::with_capacity(txn.statements.len()),
            end: TxnEnd::Committed,
        };
        let session = conn.ready(self.driver, &sql.session).await?;
        let mut end = TxnEnd::Committed;
        for (statement, text) in txn.statements.into_iter().zip(&sql.statements) {
            let submitted_us = self.now();
            let reply = tokio::time::timeout(self.settings.reply_timeout, session.execute(text));
            let outcome = match self.interrupt.or_stop(reply).await {
                None => Outcome::NoReply,
                Some(Err(_)) => Outcome::NoReply,
                Some(Ok(Ok(result))) => success_outcome(result, &statement),
                Some(Ok(Err(raw))) => Outcome::Error(
                    self.dialect
                        .classify_error(&raw)
                        .map_err(|e| SessionError::Classify(e.to_string()))?,
                ),
            };
            let replied_us = self.now();
            let is_commit = matches!(statement, Statement::Commit)
                || (txn.kind == TxnKind::Autocommit && statement.is_write());
            let failed = match &outcome {
                Outcome::NoReply => Some(ErrorClass::ConnectionLost),
                Outcome::Error(e) => Some(e.class),
                _ => None,
            };
            run.statements.push(StatementRun {
                statement,
                submitted_us,
                replied_us,
                outcome,
            });
            if let Some(class) = failed {
                end = if class == ErrorClass::ConnectionLost && is_commit {
                    TxnEnd::Unknown
                } else {
                    TxnEnd::Aborted(class)
                };
                break;
            }
        }
        match end {
            TxnEnd::Committed => {}
            TxnEnd::Aborted(ErrorClass::ConnectionLost) | TxnEnd::Unknown => conn.drop_session(),
            TxnEnd::Aborted(_) if txn.kind == TxnKind::Autocommit => {}
            TxnEnd::Aborted(_) => {
                // Whatever the error undid, the rest of the transaction goes.
                let rollback = session.execute(&rendered.control.rollback);
                let rolled_back = matches!(
                    tokio::time::timeout(self.settings.reply_timeout, rollback).await,
                    Ok(Ok(_))
                );
                if !rolled_back {
                    conn.drop_session();
                }
            }
        }
        run.end = end;
        Ok(run)
    }
}

/// A session's connection, made on first use and again after it broke, and
/// the level set-up it has.
struct Connection {
    session: Option<Box<dyn Session>>,
    setup: Option<SessionSetup>,
}

impl Connection {
    async fn ready(
        &mut self,
        driver: &dyn Driver,
        setup: &SessionSetup,
    ) -> Result<&mut Box<dyn Session>, SessionError> {
        if self.session.is_none() {
            let session = driver
                .connect()
                .await
                .map_err(|e| SessionError::Connect(e.to_string()))?;
            self.session = Some(session);
            self.setup = None;
        }
        let session = self.session.as_mut().expect("connected above");
        if self.setup.as_ref() != Some(setup) {
            for sql in &setup.statements {
                session.execute(sql).await.map_err(|e| {
                    SessionError::Connect(format!("setting the session up with `{sql}`: {e:?}"))
                })?;
            }
            self.setup = Some(setup.clone());
        }
        Ok(session)
    }

    fn drop_session(&mut self) {
        self.session = None;
        self.setup = None;
    }
}
