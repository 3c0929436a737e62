//! The state machine of one schedule run: submit, wait or confirm blocked,
//! record replies in arrival order, settle after a transaction ends.

use super::{fine_timer, success_outcome, ExecError, ReturnedSessions, ScheduleExecutor};
use crate::driver::{within, QueryResult, Session, SessionKey};
use crate::phases;
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::time::timeout;
use txlab_plugin_api::ir::*;

mod wind_down;

enum Tag {
    Statement(StatementRef),
    /// The ROLLBACK the executor sends after an abort or a stall.
    Cleanup,
}

struct Job {
    tag: Tag,
    sql: String,
}

struct Reply {
    txn: usize,
    tag: Tag,
    result: Result<QueryResult, RawDbError>,
    at: Instant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Running(StatementRef),
    Blocked(StatementRef),
    Finished,
}

struct TxnState {
    /// Index of the next statement to submit.
    next: usize,
    phase: Phase,
    /// BEGIN succeeded and no end yet: a transaction is open on the session.
    open: bool,
}

impl<'a> ScheduleExecutor<'a> {
    /// Runs `case` with one session per transaction and returns its history
    /// (without the final state, which the caller reads) and the sessions.
    pub async fn run(
        &self,
        case: &TestCase,
        rendered: &RenderedCase,
        sessions: Vec<Box<dyn Session>>,
    ) -> (Result<History, ExecError>, ReturnedSessions) {
        let n = case.transactions.len();
        if sessions.len() < n {
            let given = sessions.len();
            return (
                Err(ExecError::NotEnoughSessions { needed: n, given }),
                sessions.into_iter().map(Some).collect(),
            );
        }
        if let Err(e) = check_rendering(case, rendered) {
            return (Err(e), sessions.into_iter().map(Some).collect());
        }
        let (events_tx, events) = mpsc::unbounded_channel();
        let mut jobs = Vec::new();
        let mut tasks = Vec::new();
        let mut keys = Vec::new();
        for (txn, mut session) in sessions.into_iter().enumerate() {
            let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
            let events = events_tx.clone();
            keys.push(session.key());
            jobs.push(tx);
            tasks.push(tokio::spawn(async move {
                while let Some(job) = rx.recv().await {
                    let result = session.execute(&job.sql).await;
                    let _ = events.send(Reply {
                        txn,
                        tag: job.tag,
                        result,
                        at: Instant::now(),
                    });
                }
                session
            }));
        }
        drop(events_tx);
        let mut run = Run {
            exec: self,
            case,
            rendered,
            start: Instant::now(),
            jobs,
            events,
            keys,
            txns: (0..n)
                .map(|_| TxnState {
                    next: 0,
                    phase: Phase::Idle,
                    open: false,
                })
                .collect(),
            history: empty_history(case, rendered),
            queue: VecDeque::new(),
            held: Vec::new(),
            last_release: None,
            abandoned: Vec::new(),
        };
        let result = tokio::select! {
            r = run.execute() => r,
            () = self.interrupt.wait() => Err(ExecError::Interrupted),
        };
        let mut abandoned = std::mem::take(&mut run.abandoned);
        if result.is_err() {
            // A case that failed leaves its sessions in no known state: a
            // statement may still run, a transaction may be open.
            abandoned.extend(run.txns.iter().enumerate().filter_map(|(i, t)| {
                matches!(t.phase, Phase::Running(_) | Phase::Blocked(_)).then_some(i)
            }));
        }
        let keys = std::mem::take(&mut run.keys);
        let history = run.history;
        drop(run.jobs);
        // Statements that never returned are cancelled with the dialect's
        // cancel on the monitor connection, then their connections dropped;
        // the caller opens new ones for the next case. A server that does not
        // answer the cancel is not asked again.
        let silent = matches!(result, Err(ExecError::NoAnswer(_)));
        let stopping = matches!(result, Err(ExecError::Interrupted));
        let cancel_within = if stopping {
            self.settings.deadlines.monitor.min(CANCEL_ON_STOP)
        } else {
            self.settings.deadlines.monitor
        };
        let mut answering = !silent;
        for &i in &abandoned {
            if !answering {
                break;
            }
            let cancel = self.monitor.cancel(&keys[i]);
            answering = within(cancel_within, String::new, cancel).await.is_ok();
        }
        let wait_for_cancelled = if answering {
            Duration::from_secs(1)
        } else {
            Duration::ZERO
        };
        let deadline = tokio::time::Instant::now() + wait_for_cancelled;
        let failed = result.is_err();
        let mut returned = Vec::new();
        for (i, mut task) in tasks.into_iter().enumerate() {
            if failed || abandoned.contains(&i) {
                if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
                    // Dropping the session closes its connection.
                    task.abort();
                }
                returned.push(None);
            } else {
                returned.push(task.await.ok());
            }
        }
        (result.map(|()| history), returned)
    }
}

/// Errors with which the DBMS ends a lock wait on its own, whatever the other
/// sessions do: a deadlock victim (chosen when a wait cycle forms) and a
/// lock-wait timeout. A serialization failure is not one: PostgreSQL's
/// second writer fails when the first one's COMMIT releases the row.
fn ends_wait_by_itself(class: ErrorClass) -> bool {
    matches!(class, ErrorClass::Deadlock | ErrorClass::LockWaitTimeout)
}

/// How long cancelling a statement may take when the run stops: a person
/// pressed Ctrl-C and waits.
const CANCEL_ON_STOP: Duration = Duration::from_secs(1);

fn check_rendering(case: &TestCase, rendered: &RenderedCase) -> Result<(), ExecError> {
    if rendered.transactions.len() != case.transactions.len() {
        return Err(ExecError::RenderMismatch(format!(
            "{} rendered transactions for {} transactions",
            rendered.transactions.len(),
            case.transactions.len()
        )));
    }
    for (i, (t, r)) in case
        .transactions
        .iter()
        .zip(&rendered.transactions)
        .enumerate()
    {
        if t.statements.len() != r.statements.len() {
            return Err(ExecError::RenderMismatch(format!(
                "{} has {} statements but {} were rendered",
                txn_label(i),
                t.statements.len(),
                r.statements.len()
            )));
        }
    }
    Ok(())
}

/// A history in which nothing ran yet: every statement unsent, every
/// transaction unfinished.
pub fn empty_history(case: &TestCase, rendered: &RenderedCase) -> History {
    History {
        statements: case
            .transactions
            .iter()
            .zip(&rendered.transactions)
            .enumerate()
            .map(|(t, (_, r))| {
                r.statements
                    .iter()
                    .enumerate()
                    .map(|(s, sql)| StatementRecord {
                        at: StatementRef::new(t, s),
                        sql: sql.clone(),
                        submitted_us: None,
                        completed_us: None,
                        blocked: None,
                        outcome: Outcome::NotSubmitted,
                    })
                    .collect()
            })
            .collect(),
        transactions: case
            .transactions
            .iter()
            .map(|t| TransactionRecord {
                isolation: t.isolation,
                end: TxnEnd::Unfinished,
                ended_us: None,
            })
            .collect(),
        completion_order: Vec::new(),
        final_state: None,
        unobserved: Vec::new(),
        server_lost: None,
        cluster: None,
    }
}

struct Run<'r, 'a> {
    exec: &'r ScheduleExecutor<'a>,
    case: &'r TestCase,
    rendered: &'r RenderedCase,
    start: Instant,
    jobs: Vec<mpsc::UnboundedSender<Job>>,
    events: mpsc::UnboundedReceiver<Reply>,
    keys: Vec<SessionKey>,
    txns: Vec<TxnState>,
    history: History,
    /// Replies received but not yet recorded, in arrival order.
    queue: VecDeque<Reply>,
    /// Resumed statements' replies that arrived while the current statement,
    /// which may be what resumed them, was still in flight (not a deadlock
    /// victim's or a lock-wait timeout's, nor one that arrived before the
    /// current statement was sent).
    held: Vec<Reply>,
    /// The last statement that ended a transaction and so released its locks.
    last_release: Option<StatementRef>,
    /// Sessions whose statement never returned.
    abandoned: Vec<usize>,
}

/// What recording a reply set in motion.
#[derive(Default)]
struct Effect {
    /// A transaction ended: blocked statements may resume.
    released: bool,
    /// This transaction aborted with a transaction still open: roll it back.
    cleanup: Option<usize>,
}

impl Run<'_, '_> {
    fn micros(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.start).as_micros() as u64
    }

    fn note(&mut self, text: String) {
        tracing::debug!(target: "txlab::executor", "{text}");
        self.history.unobserved.push(text);
    }

    /// Asks the lock-wait probe whether `at` waits. A probe that fails (its
    /// connection broke with the server's) cannot tell: the failure is noted
    /// once and the case goes on, so that what the sessions saw is kept. A
    /// probe the server does not answer in time ends the case: the server
    /// is frozen or unreachable, and nothing more can be observed.
    async fn probe(&mut self, at: StatementRef) -> Result<Option<bool>, ExecError> {
        let asked = within(
            self.exec.settings.deadlines.monitor,
            || "the lock-wait probe".into(),
            self.exec.monitor.is_waiting(&self.keys[at.txn()]),
        )
        .await?;
        Ok(match asked {
            Ok(answer) => answer,
            Err(e) => {
                let text = format!("the lock-wait probe failed: {e}");
                if !self.history.unobserved.contains(&text) {
                    self.note(text);
                }
                None
            }
        })
    }

    async fn execute(&mut self) -> Result<(), ExecError> {
        loop {
            if let Some(at) = self.pick() {
                self.submit(at)?;
                self.await_statement(at).await?;
                self.pause_after(at).await?;
                continue;
            }
            let waiting = self
                .txns
                .iter()
                .any(|t| matches!(t.phase, Phase::Blocked(_) | Phase::Running(_)));
            if !waiting {
                break;
            }
            // Every unfinished transaction is blocked: only the DBMS can move now
            // (a deadlock victim, a lock-wait timeout).
            let waited = timeout(self.exec.settings.stall_timeout, self.events.recv()).await;
            phases::charge(phases::Phase::Statements, phases::Phase::BlockWaits);
            match waited {
                Ok(Some(reply)) => {
                    self.queue.push_back(reply);
                    self.process_queue().await?;
                }
                Ok(None) => return Err(ExecError::SessionGone),
                Err(_) => {
                    let blocked: Vec<String> = self
                        .txns
                        .iter()
                        .filter_map(|t| match t.phase {
                            Phase::Blocked(at) | Phase::Running(at) => Some(at.to_string()),
                            _ => None,
                        })
                        .collect();
                    self.note(format!(
                        "stall: {} stayed blocked for {} and the DBMS resolved nothing",
                        blocked.join(", "),
                        humantime::format_duration(self.exec.settings.stall_timeout)
                    ));
                    self.wind_down().await?;
                    break;
                }
            }
        }
        self.close_open_transactions().await
    }

    /// The configured pause after a statement that is now blocked or that
    /// ended its transaction; what replies arrived meanwhile are recorded.
    async fn pause_after(&mut self, at: StatementRef) -> Result<(), ExecError> {
        let pace = self.exec.settings.pace;
        let ended = self.case.statement(at).is_some_and(Statement::is_end);
        if pace.is_zero() || !(ended || self.phase(at) == Phase::Blocked(at)) {
            return Ok(());
        }
        tokio::time::sleep(pace).await;
        phases::charge(phases::Phase::Statements, phases::Phase::Idle);
        while let Ok(reply) = self.events.try_recv() {
            self.queue.push_back(reply);
        }
        self.process_queue().await
    }

    /// The first statement in submitted order whose transaction can take it.
    fn pick(&self) -> Option<StatementRef> {
        self.case.submitted_order.iter().copied().find(|at| {
            let t = &self.txns[at.txn()];
            t.phase == Phase::Idle && t.next == at.stmt()
        })
    }

    fn send(&self, txn: usize, tag: Tag, sql: String) -> Result<(), ExecError> {
        self.jobs[txn]
            .send(Job { tag, sql })
            .map_err(|_| ExecError::SessionGone)
    }

    fn submit(&mut self, at: StatementRef) -> Result<(), ExecError> {
        let now = self.micros(Instant::now());
        let sql = self.rendered.transactions[at.txn()].statements[at.stmt()].clone();
        self.history.statements[at.txn()][at.stmt()].submitted_us = Some(now);
        self.history.statements[at.txn()][at.stmt()].outcome = Outcome::NoReply;
        tracing::trace!(target: "txlab::executor", "submit {at}: {sql}");
        let t = &mut self.txns[at.txn()];
        t.next += 1;
        t.phase = Phase::Running(at);
        self.send(at.txn(), Tag::Statement(at), sql)
    }

    fn phase(&self, at: StatementRef) -> Phase {
        self.txns[at.txn()].phase
    }

    /// Waits until the submitted statement completes or is known to be blocked.
    async fn await_statement(&mut self, at: StatementRef) -> Result<(), ExecError> {
        let submitted = Instant::now();
        let result = self.await_statement_inner(at, submitted).await;
        // The wait just ended goes to what the statement turned out to be.
        let spent = if self.phase(at) == Phase::Blocked(at) {
            phases::Phase::BlockWaits
        } else if self.case.statement(at).is_some_and(Statement::is_end) {
            phases::Phase::Commits
        } else {
            phases::Phase::Statements
        };
        phases::charge(phases::Phase::Statements, spent);
        // Whatever ended the wait, resumptions still held are recorded now.
        self.release_held(None);
        if result.is_ok() {
            self.process_queue().await?;
        }
        result
    }

    async fn await_statement_inner(
        &mut self,
        at: StatementRef,
        submitted: Instant,
    ) -> Result<(), ExecError> {
        // The first probe comes when a lock wait would have shown on the
        // server; the next ones every `probe_interval`.
        let mut wait = self.exec.settings.probe_after;
        loop {
            if self.phase(at) != Phase::Running(at) {
                return Ok(());
            }
            let got = fine_timer::timeout(wait, self.events.recv()).await;
            wait = self.exec.settings.probe_interval;
            match got {
                Some(Some(reply)) => self.reply_while_waiting(at, reply).await?,
                Some(None) => return Err(ExecError::SessionGone),
                None => {
                    // The probe may take a moment; a reply that arrives meanwhile
                    // wins over its answer.
                    let waiting = self.probe(at).await?;
                    if let Ok(reply) = self.events.try_recv() {
                        self.reply_while_waiting(at, reply).await?;
                        continue;
                    }
                    let elapsed = submitted.elapsed();
                    match waiting {
                        Some(true) => {
                            self.mark_blocked(at, BlockEvidence::Probe);
                            return Ok(());
                        }
                        Some(false) if elapsed < self.exec.settings.reply_timeout => {}
                        None if elapsed < self.exec.settings.block_timeout => {}
                        None => {
                            self.note(format!(
                                "{at} gave no reply within {} and the lock-wait probe could not tell whether it waited for a lock",
                                humantime::format_duration(self.exec.settings.block_timeout)
                            ));
                            self.mark_blocked(at, BlockEvidence::Timeout);
                            return Ok(());
                        }
                        Some(false) => {
                            self.note(format!(
                                "{at} was running without a reply after {}",
                                humantime::format_duration(elapsed)
                            ));
                            self.give_up(at);
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// A reply that arrives while `current` is in flight. A blocked statement
    /// that replies now resumed because some transaction released its locks,
    /// or was chosen as a deadlock victim; when `current` is what released
    /// them (a COMMIT or ROLLBACK, or an error that ends its transaction), the
    /// server may still send the resumed reply first, whether the resumed
    /// statement then succeeded or failed (an INSERT whose key the holder
    /// committed). Such replies are held until `current` replies and then
    /// recorded on the right side of it. A reply `current` cannot have
    /// released is recorded in arrival order ([`Run::may_be_released_by`]).
    async fn reply_while_waiting(
        &mut self,
        current: StatementRef,
        reply: Reply,
    ) -> Result<(), ExecError> {
        let is_current = matches!(reply.tag, Tag::Statement(x) if x == current);
        if is_current {
            let releases = self.releases(current, &reply.result)?;
            self.release_held(Some((reply, releases)));
            return self.process_queue().await;
        }
        let resumed = matches!(reply.tag, Tag::Statement(x) if self.phase(x) == Phase::Blocked(x));
        if resumed && self.may_be_released_by(current, &reply)? {
            self.held.push(reply);
            return Ok(());
        }
        self.queue.push_back(reply);
        self.process_queue().await
    }

    /// Whether `current` may be what let the blocked statement of `reply` go
    /// on. Not when the reply arrived before `current` was sent (it waited in
    /// the channel while the executor was busy), nor when the statement ended
    /// its wait by itself: a deadlock victim is chosen when a wait cycle
    /// forms, never because a lock was released (MySQL 8.0.18 and later find
    /// deadlocks in a background thread, and the victim's error often
    /// arrives after the survivor's reply and while its next statement is in
    /// flight), and a lock-wait timeout fires on the server's clock.
    fn may_be_released_by(&self, current: StatementRef, reply: &Reply) -> Result<bool, ExecError> {
        let Tag::Statement(at) = reply.tag else {
            return Ok(false);
        };
        let sent = self.history.statements[current.txn()][current.stmt()].submitted_us;
        if sent.is_some_and(|sent| self.micros(reply.at) < sent) {
            return Ok(false);
        }
        Ok(match &reply.result {
            Ok(_) => true,
            Err(raw) => !ends_wait_by_itself(self.classify(at, raw)?.class),
        })
    }

    /// Queues the held resumptions around the current statement's reply: after
    /// it when it released locks, before it otherwise (they were released by
    /// something else that happened first).
    fn release_held(&mut self, current: Option<(Reply, bool)>) {
        let held = std::mem::take(&mut self.held);
        match current {
            Some((reply, true)) => {
                self.queue.push_back(reply);
                self.queue.extend(held);
            }
            Some((reply, false)) => {
                self.queue.extend(held);
                self.queue.push_back(reply);
            }
            None => self.queue.extend(held),
        }
    }

    /// Whether this reply to `at` ends `at`'s transaction and so releases its locks.
    fn releases(
        &self,
        at: StatementRef,
        result: &Result<QueryResult, RawDbError>,
    ) -> Result<bool, ExecError> {
        let stmt = self
            .case
            .statement(at)
            .expect("replies only come for submitted statements");
        if stmt.is_end() || self.case.transactions[at.txn()].kind == TxnKind::Autocommit {
            return Ok(true);
        }
        Ok(match result {
            Ok(_) => false,
            Err(raw) => self.classify(at, raw)?.scope != ErrorScope::Statement,
        })
    }

    /// Classifies the error a statement of `at`'s transaction got. An error
    /// the dialect calls statement-only still ends the transaction when the
    /// DBMS rolled the transaction back on its own (SQLite does on some
    /// errors): whatever the class, the transaction is gone.
    fn classify(&self, at: StatementRef, raw: &RawDbError) -> Result<DbError, ExecError> {
        let mut e = self.exec.classifier.classify(raw)?;
        if e.scope == ErrorScope::Statement
            && self.txns[at.txn()].open
            && raw.in_transaction == Some(false)
        {
            e.scope = ErrorScope::Transaction;
        }
        Ok(e)
    }

    fn mark_blocked(&mut self, at: StatementRef, evidence: BlockEvidence) {
        tracing::trace!(target: "txlab::executor", "blocked {at} ({evidence:?})");
        let now = self.micros(Instant::now());
        self.txns[at.txn()].phase = Phase::Blocked(at);
        self.history.statements[at.txn()][at.stmt()].blocked = Some(Blocking {
            detected_us: now,
            evidence,
            resumed_after: None,
        });
    }

    /// A statement that never returned: its session is abandoned and its
    /// transaction cannot be observed any more.
    fn give_up(&mut self, at: StatementRef) {
        self.txns[at.txn()].phase = Phase::Finished;
        self.txns[at.txn()].open = false;
        self.abandoned.push(at.txn());
    }

    /// Records queued replies; each one may end a transaction, which triggers a
    /// clean-up rollback and a settling of the blocked statements, whose replies
    /// join the queue in arrival order.
    async fn process_queue(&mut self) -> Result<(), ExecError> {
        while let Some(reply) = self.queue.pop_front() {
            let effect = self.record(reply)?;
            let mut released = effect.released;
            if let Some(txn) = effect.cleanup {
                self.rollback(txn).await?;
                released = true;
            }
            if released {
                self.settle().await?;
            }
        }
        Ok(())
    }

    fn record(&mut self, reply: Reply) -> Result<Effect, ExecError> {
        let at = match reply.tag {
            Tag::Statement(at) => at,
            Tag::Cleanup => return Ok(Effect::default()),
        };
        tracing::trace!(
            target: "txlab::executor",
            "reply {at}: {}",
            match &reply.result {
                Ok(r) => format!("ok, {} rows, {} affected", r.rows.len(), r.affected),
                Err(e) => format!("error {:?} {}", e.code, e.message),
            }
        );
        let completed = self.micros(reply.at);
        let stmt = self
            .case
            .statement(at)
            .expect("replies only come for submitted statements");
        let txn = &self.case.transactions[at.txn()];
        let was_blocked = self.phase(at) == Phase::Blocked(at);
        let mut effect = Effect::default();
        let outcome = match reply.result {
            Ok(r) => success_outcome(r, stmt),
            Err(raw) => Outcome::Error(self.classify(at, &raw)?),
        };
        let t = &mut self.txns[at.txn()];
        t.phase = Phase::Idle;
        let mut end = None;
        match &outcome {
            Outcome::Error(e) => {
                if e.scope == ErrorScope::Connection {
                    t.phase = Phase::Finished;
                    t.open = false;
                    // The session is gone: do not hand it back for reuse.
                    self.abandoned.push(at.txn());
                    let message = format!("{at} lost its connection: {}", e.message);
                    self.history.statements[at.txn()][at.stmt()].completed_us = Some(completed);
                    self.history.statements[at.txn()][at.stmt()].outcome = outcome;
                    self.history.completion_order.push(at);
                    self.note(message);
                    return Ok(effect);
                }
                let aborts = stmt.is_end()
                    || e.scope == ErrorScope::Transaction
                    || txn.kind == TxnKind::Autocommit;
                if aborts {
                    // A failed COMMIT does not commit; roll back to be sure the
                    // session holds nothing.
                    if t.open {
                        effect.cleanup = Some(at.txn());
                    }
                    end = Some(TxnEnd::Aborted {
                        by: at,
                        class: e.class,
                    });
                }
            }
            _ => match stmt {
                Statement::Begin | Statement::BeginSnapshot => t.open = true,
                Statement::Commit => end = Some(TxnEnd::Committed),
                Statement::Rollback => end = Some(TxnEnd::RolledBack),
                _ if txn.kind == TxnKind::Autocommit => end = Some(TxnEnd::Committed),
                _ => {}
            },
        }
        if let Some(end) = end {
            if effect.cleanup.is_none() {
                t.open = false;
            }
            t.phase = Phase::Finished;
            self.history.transactions[at.txn()].end = end;
            self.history.transactions[at.txn()].ended_us = Some(completed);
            effect.released = true;
        }
        // A deadlock victim or a lock-wait timeout was not let go on by a
        // release: it resumed after nothing.
        let resumed_after = match &outcome {
            Outcome::Error(e) if ends_wait_by_itself(e.class) => None,
            _ => self.last_release,
        };
        let record = &mut self.history.statements[at.txn()][at.stmt()];
        record.completed_us = Some(completed);
        record.outcome = outcome;
        if was_blocked {
            if let Some(b) = &mut record.blocked {
                b.resumed_after = resumed_after;
            }
        }
        self.history.completion_order.push(at);
        if effect.released {
            self.last_release = Some(at);
        }
        Ok(effect)
    }

    /// Rolls back `txn`'s open transaction, keeping other replies in the queue.
    async fn rollback(&mut self, txn: usize) -> Result<(), ExecError> {
        // Until now: the statement whose error aborted the transaction.
        phases::charge(phases::Phase::Statements, phases::Phase::Statements);
        self.send(txn, Tag::Cleanup, self.rendered.control.rollback.clone())?;
        let reply = self.wait_cleanup_reply(txn).await?;
        phases::charge(phases::Phase::Statements, phases::Phase::Commits);
        match reply {
            Some(Ok(_)) => {}
            Some(Err(e)) => self.note(format!(
                "the ROLLBACK after {}'s abort failed: {}",
                txn_label(txn),
                e.message
            )),
            None => {
                self.note(format!(
                    "the ROLLBACK after {}'s abort gave no reply",
                    txn_label(txn)
                ));
                self.abandoned.push(txn);
            }
        }
        self.txns[txn].open = false;
        Ok(())
    }

    /// Waits for the reply to an executor-sent statement on `txn`'s session,
    /// queueing any statement replies that arrive first.
    async fn wait_cleanup_reply(
        &mut self,
        txn: usize,
    ) -> Result<Option<Result<QueryResult, RawDbError>>, ExecError> {
        let deadline = Instant::now() + self.exec.settings.reply_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match timeout(left, self.events.recv()).await {
                Ok(Some(r)) if r.txn == txn && matches!(r.tag, Tag::Cleanup) => {
                    return Ok(Some(r.result))
                }
                Ok(Some(r)) => self.queue.push_back(r),
                Ok(None) => return Err(ExecError::SessionGone),
                Err(_) => return Ok(None),
            }
        }
    }

    /// After a transaction ended: wait until each blocked statement has resumed
    /// (its reply is queued) or is confirmed still waiting.
    async fn settle(&mut self) -> Result<(), ExecError> {
        let blocked: Vec<StatementRef> = self
            .txns
            .iter()
            .filter_map(|t| match t.phase {
                Phase::Blocked(at) => Some(at),
                _ => None,
            })
            .collect();
        if blocked.is_empty() {
            return Ok(());
        }
        // Until now: the reply of the statement that released the locks.
        let releasing = self
            .last_release
            .and_then(|at| self.case.statement(at))
            .is_some_and(Statement::is_end);
        phases::charge(
            phases::Phase::Statements,
            if releasing {
                phases::Phase::Commits
            } else {
                phases::Phase::Statements
            },
        );
        for at in blocked {
            let started = Instant::now();
            loop {
                while let Ok(r) = self.events.try_recv() {
                    self.queue.push_back(r);
                }
                if self.has_queued_reply(at) {
                    break;
                }
                let waiting = self.probe(at).await?;
                while let Ok(r) = self.events.try_recv() {
                    self.queue.push_back(r);
                }
                if self.has_queued_reply(at) {
                    break;
                }
                let elapsed = started.elapsed();
                match waiting {
                    Some(true) => break,
                    // Granted and running: its reply is coming.
                    Some(false) if elapsed < self.exec.settings.reply_timeout => {}
                    None if elapsed < self.exec.settings.settle_timeout => {}
                    _ => {
                        self.note(format!(
                            "after a transaction ended, {at} neither resumed nor showed as waiting within {}",
                            humantime::format_duration(elapsed)
                        ));
                        break;
                    }
                }
                if let Some(Some(r)) =
                    fine_timer::timeout(self.exec.settings.probe_interval, self.events.recv()).await
                {
                    self.queue.push_back(r);
                }
            }
        }
        phases::charge(phases::Phase::Statements, phases::Phase::BlockWaits);
        Ok(())
    }

    /// Whether a reply for `at` has arrived and waits to be recorded (in the
    /// queue, or held until the statement in flight replies).
    fn has_queued_reply(&self, at: StatementRef) -> bool {
        self.queue
            .iter()
            .chain(&self.held)
            .any(|r| matches!(r.tag, Tag::Statement(x) if x == at))
    }
}
