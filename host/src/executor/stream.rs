//! The stream executor: N sessions run generated transactions back to back,
//! truly concurrently, for a duration or a number of cases (IsoRel's and
//! Elle's way), and report every transaction as it ends.
//!
//! Each session is a thread with its own runtime and connection. It takes
//! the run's next case index from a [`Dealer`] (a case's transactions
//! depend only on the seed and its index, whichever session runs it),
//! waits there while the case's key generation is too far ahead of the
//! slowest session's, renders it with the dialect and runs its transactions
//! one after another: the transaction's level set-up
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
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use txlab_loader::{DialectHandle, GeneratorHandle};
use txlab_plugin_api::ir::*;

/// How many sessions a stream may run at most.
pub const MAX_SESSIONS: usize = 64;

/// How many key generations a session's case may be ahead of the lowest
/// generation a live session is in.
pub const MAX_LAG_GENERATIONS: u64 = 2;

/// How often a session waiting at the [`Dealer`] looks at the stop
/// conditions (Ctrl-C, the end of the duration) when nothing else wakes it.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Hands out case indices and bounds how far the sessions drift apart.
///
/// The sessions take indices from one counter, so a slower session simply
/// runs fewer cases instead of falling behind on indices of its own; each
/// case's content is a function of the seed and its index only. The counter
/// alone does not bound the lag: a session held up in one case (a long lock
/// wait, a slow connection) keeps its key generation open while the others
/// run on, and the checker must keep every transaction from that generation
/// up. So a session that took a case whose key generation is more than
/// `max_lag` above the lowest generation of a live session's case waits
/// until it no longer is. The session in the lowest generation never waits,
/// so the stream cannot stall; a session that ended leaves the count; a
/// waiting session wakes when another one moves on or leaves, or when the
/// stream is stopped.
#[derive(Debug)]
pub struct Dealer {
    max_lag: Option<u64>,
    state: Mutex<DealerState>,
    moved: Condvar,
}

#[derive(Debug)]
struct DealerState {
    next: u64,
    /// Per session: the key generation of its current case; `None` once it
    /// ended.
    current: Vec<Option<u64>>,
    /// Sessions waiting in [`Dealer::enter`].
    waiting: usize,
}

impl Dealer {
    /// For `sessions` sessions that have not started yet and count as being
    /// in `first_generation` (that of case 0) until they do; no bound with
    /// `max_lag` `None`.
    pub fn new(sessions: usize, first_generation: u64, max_lag: Option<u64>) -> Dealer {
        Dealer {
            max_lag,
            state: Mutex::new(DealerState {
                next: 0,
                current: vec![Some(first_generation); sessions],
                waiting: 0,
            }),
            moved: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, DealerState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next case index of the run.
    pub fn deal(&self) -> u64 {
        let mut state = self.lock();
        let index = state.next;
        state.next += 1;
        index
    }

    /// Session `session` is about to run a case of key generation
    /// `generation` (`None`: unknown, it does not wait). Returns `true` once
    /// the case is within the lag, `false` if `stop` said the stream ends
    /// first.
    pub fn enter(&self, session: usize, generation: Option<u64>, stop: impl Fn() -> bool) -> bool {
        let mut state = self.lock();
        if let Some(g) = generation {
            state.current[session] = Some(g);
            self.moved.notify_all();
        }
        let (Some(lag), Some(g)) = (self.max_lag, generation) else {
            return true;
        };
        loop {
            let lowest = state.current.iter().flatten().min().copied().unwrap_or(g);
            if g <= lowest.saturating_add(lag) {
                return true;
            }
            if stop() {
                return false;
            }
            state.waiting += 1;
            self.moved.notify_all();
            state = self
                .moved
                .wait_timeout(state, STOP_POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            state.waiting -= 1;
        }
    }

    /// Session `session` runs no more cases.
    pub fn leave(&self, session: usize) {
        self.lock().current[session] = None;
        self.moved.notify_all();
    }

    /// Blocks until every session but `session` is waiting in
    /// [`Dealer::enter`] or has left: a test's stand-in for a session much
    /// slower than the others.
    #[cfg(test)]
    pub(crate) fn until_the_others_wait(&self, session: usize) {
        let mut state = self.lock();
        loop {
            let others = state.current.len() - 1;
            let left = (state.current.iter().enumerate())
                .filter(|(s, c)| *s != session && c.is_none())
                .count();
            if state.waiting + left >= others {
                return;
            }
            state = self
                .moved
                .wait_timeout(state, STOP_POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// Leaves the dealer however the session ends.
struct Leave<'a>(&'a Dealer, usize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.leave(self.1);
    }
}

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
    /// Session `session` took case `index`; its transactions come next,
    /// unless the stream ends while the session waits for the others to
    /// catch up (a case counts as run with its first transaction).
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
    /// The case indices, and the bound on the sessions' lag.
    pub dealer: &'a Dealer,
    /// A case's key generation (`None` where it has none).
    pub generation: &'a (dyn Fn(&TestCase) -> Option<u64> + Sync),
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
        // On a cluster, session k runs its transactions on node k mod n.
        let mut conn = Connection {
            session: None,
            setup: None,
            node: session % self.driver.nodes(),
        };
        let _leave = Leave(self.dealer, session);
        loop {
            let index = self.dealer.deal();
            if !self.more(index) {
                break;
            }
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
            let generation = (self.generation)(&case);
            // The checker learns the case's keys before the session waits,
            // so that the generation it left can close meanwhile.
            events
                .send(StreamEvent::Case {
                    session,
                    index,
                    case: Box::new(case),
                })
                .map_err(|_| SessionError::Gone)?;
            if !self.dealer.enter(session, generation, || !self.more(index)) {
                break;
            }
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
    /// The node of a cluster target it connects to (0 for one server).
    node: usize,
}

impl Connection {
    async fn ready(
        &mut self,
        driver: &dyn Driver,
        setup: &SessionSetup,
    ) -> Result<&mut Box<dyn Session>, SessionError> {
        if self.session.is_none() {
            let session = driver
                .connect_to(self.node)
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

#[cfg(test)]
mod tests {
    use super::Dealer;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn every_index_is_dealt_once() {
        let dealer = Dealer::new(4, 0, Some(1));
        let mut dealt: Vec<u64> = std::thread::scope(|s| {
            let takers: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..100).map(|_| dealer.deal()).collect::<Vec<_>>()))
                .collect();
            takers.into_iter().flat_map(|t| t.join().unwrap()).collect()
        });
        dealt.sort_unstable();
        assert_eq!(dealt, (0..400).collect::<Vec<_>>());
    }

    #[test]
    fn only_a_session_more_than_the_lag_ahead_waits() {
        // `stop` says yes: a case that would wait is not run.
        let dealer = Dealer::new(2, 0, Some(1));
        assert!(dealer.enter(1, Some(1), || true));
        assert!(dealer.enter(0, Some(1), || true));
        assert!(dealer.enter(0, Some(2), || true));
        assert!(dealer.enter(1, Some(3), || true));
        assert!(!dealer.enter(0, Some(5), || true));
        // Once session 0 left, session 1 is alone and never waits.
        dealer.leave(0);
        assert!(dealer.enter(1, Some(9), || true));
    }

    #[test]
    fn a_session_that_leaves_releases_the_ones_waiting_for_it() {
        let dealer = Dealer::new(2, 0, Some(1));
        assert!(dealer.enter(0, Some(0), || false));
        std::thread::scope(|s| {
            let waiting = s.spawn(|| dealer.enter(1, Some(5), || false));
            dealer.until_the_others_wait(0);
            dealer.leave(0);
            assert!(waiting.join().unwrap());
        });
    }

    #[test]
    fn a_session_that_moves_on_releases_the_ones_waiting_for_it() {
        let dealer = Dealer::new(2, 0, Some(1));
        std::thread::scope(|s| {
            let waiting = s.spawn(|| dealer.enter(1, Some(5), || false));
            dealer.until_the_others_wait(0);
            assert!(dealer.enter(0, Some(4), || false));
            assert!(waiting.join().unwrap());
        });
    }

    #[test]
    fn a_stop_ends_the_wait() {
        let dealer = Dealer::new(2, 0, Some(1));
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let waiting = s.spawn(|| dealer.enter(1, Some(5), || stop.load(Ordering::SeqCst)));
            dealer.until_the_others_wait(0);
            stop.store(true, Ordering::SeqCst);
            assert!(!waiting.join().unwrap());
        });
    }
}
