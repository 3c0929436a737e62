//! A fake DBMS with row locks, for testing the executor's bookkeeping without a
//! server. Statements are tiny commands: `BEGIN`, `COMMIT`, `ROLLBACK`,
//! `W <key>` (write: exclusive lock on key), `WD <key>` (a write that, once it
//! had to wait for the key, fails as a duplicate key, like an INSERT whose key
//! the holder committed), `R` (read, returns one row),
//! `FAIL <code>` (an error with that vendor code), `FREEZE` (the server stops
//! answering anything, as a process under SIGSTOP), `SHOWN_WAITING <ms>` (a
//! statement the monitor shows waiting for a lock for that long, which then
//! succeeds without any release: a lock-wait probe that names the wrong
//! session, as MySQL's data_lock_waits can). Lock grants happen under one
//! mutex when the holder releases, so the monitor's answers are always current.

use crate::driver::{DriverError, Monitor, QueryResult, Session, SessionKey};
use crate::executor::ErrorClassifier;
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;
use txlab_loader::CallError;
use txlab_plugin_api::ir::*;

#[derive(Default)]
struct State {
    /// key → holder session
    locks: HashMap<String, u64>,
    /// session → key it waits for
    waiting: HashMap<u64, String>,
    cancelled: Vec<u64>,
    /// Sessions whose connection "breaks" at their next statement.
    broken: Vec<u64>,
    /// Deadlock victims whose error is still to be sent.
    victims: Vec<u64>,
}

/// Deadlocks found in the background, as MySQL 8.0.18 and later find them:
/// the request that closes a wait cycle waits like any other; `detect_after`
/// later the transaction it waits for is the victim, whose locks are released
/// at once (so the waiting request is granted and replies), and whose own
/// statement gets its deadlock error `error_after` after that.
#[derive(Clone, Copy, Debug)]
pub struct BackgroundDeadlocks {
    pub detect_after: std::time::Duration,
    pub error_after: std::time::Duration,
}

#[derive(Clone)]
pub struct FakeDb {
    state: Arc<Mutex<State>>,
    notify: Arc<Notify>,
    /// Report deadlocks (like InnoDB) or let them hang (to test stalls).
    pub detect_deadlocks: bool,
    /// Find them in the background, with a late error for the victim; else
    /// the request that closes the cycle fails at once (MariaDB, MySQL
    /// before 8.0.18).
    pub background_deadlocks: Option<BackgroundDeadlocks>,
    /// Whether the monitor can tell lock waits at all.
    pub probe_works: bool,
    /// How long COMMIT and ROLLBACK take to reply after releasing their locks,
    /// so that a resumed statement's reply can overtake them (as on real servers).
    pub end_reply_delay: std::time::Duration,
    /// Set by `FREEZE`: nothing answers any more.
    frozen: Arc<AtomicBool>,
}

impl FakeDb {
    pub fn new() -> Self {
        FakeDb {
            state: Arc::default(),
            notify: Arc::new(Notify::new()),
            detect_deadlocks: true,
            background_deadlocks: None,
            probe_works: true,
            end_reply_delay: std::time::Duration::ZERO,
            frozen: Arc::default(),
        }
    }

    /// Sessions the monitor was asked to cancel.
    pub fn cancelled(&self) -> Vec<u64> {
        self.state.lock().unwrap().cancelled.clone()
    }

    /// Never returns once the server is frozen.
    async fn answer(&self) {
        if self.frozen.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
    }

    pub fn sessions(&self, n: usize) -> Vec<Box<dyn Session>> {
        (0..n)
            .map(|i| {
                Box::new(FakeSession {
                    id: i as u64 + 1,
                    db: self.clone(),
                }) as Box<dyn Session>
            })
            .collect()
    }

    pub fn break_session(&self, id: u64) {
        self.state.lock().unwrap().broken.push(id);
    }

    pub fn monitor(&self) -> FakeMonitor {
        FakeMonitor { db: self.clone() }
    }

    fn release(&self, session: u64) {
        let mut st = self.state.lock().unwrap();
        Self::release_locked(&mut st, session);
        drop(st);
        self.notify.notify_waiters();
    }

    /// Releases `session`'s locks and grants them to waiters; the caller
    /// notifies them.
    fn release_locked(st: &mut State, session: u64) {
        st.locks.retain(|_, holder| *holder != session);
        // Grant freed keys to waiters right away, in session order.
        let mut waiters: Vec<(u64, String)> =
            st.waiting.iter().map(|(s, k)| (*s, k.clone())).collect();
        waiters.sort();
        for (s, k) in waiters {
            if let std::collections::hash_map::Entry::Vacant(e) = st.locks.entry(k) {
                e.insert(s);
                st.waiting.remove(&s);
            }
        }
    }

    /// The background deadlock search: when `session` still waits for a lock
    /// whose holder waits for one of `session`'s, the holder is the victim.
    fn find_deadlock(&self, session: u64) {
        let mut st = self.state.lock().unwrap();
        let holder = st
            .waiting
            .get(&session)
            .and_then(|k| st.locks.get(k))
            .copied();
        let Some(holder) = holder else {
            return;
        };
        let cycle = st
            .waiting
            .get(&holder)
            .and_then(|k| st.locks.get(k))
            .is_some_and(|h| *h == session);
        if !cycle {
            return;
        }
        st.waiting.remove(&holder);
        st.victims.push(holder);
        Self::release_locked(&mut st, holder);
        drop(st);
        self.notify.notify_waiters();
    }
}

pub struct FakeSession {
    id: u64,
    db: FakeDb,
}

fn error(code: i64, message: &str) -> RawDbError {
    RawDbError {
        code: Some(code),
        message: message.into(),
        connection_lost: code == 2013,
        ..RawDbError::default()
    }
}

#[async_trait]
impl Session for FakeSession {
    fn key(&self) -> SessionKey {
        SessionKey::server(self.id.to_string())
    }

    async fn execute(&mut self, sql: &str) -> Result<QueryResult, RawDbError> {
        self.db.answer().await;
        if sql == "FREEZE" {
            self.db.frozen.store(true, Ordering::SeqCst);
            self.db.answer().await;
        }
        if self.db.state.lock().unwrap().broken.contains(&self.id) {
            return Err(error(2013, "Lost connection to server during query"));
        }
        let mut words = sql.split_whitespace();
        match (words.next(), words.next()) {
            (Some("BEGIN"), _) => Ok(QueryResult::default()),
            (Some("COMMIT" | "ROLLBACK"), _) => {
                self.db.release(self.id);
                tokio::time::sleep(self.db.end_reply_delay).await;
                Ok(QueryResult::default())
            }
            (Some("R"), _) => Ok(QueryResult {
                returns_rows: true,
                columns: vec!["v".into()],
                rows: vec![vec![Value::Int(1)]],
                affected: 0,
            }),
            (Some("FAIL"), Some(code)) => Err(error(code.parse().unwrap(), "injected")),
            (Some("SHOWN_WAITING"), Some(ms)) => {
                let shown = std::time::Duration::from_millis(ms.parse().unwrap());
                let pseudo_key = format!("shown-waiting-{}", self.id);
                self.db
                    .state
                    .lock()
                    .unwrap()
                    .waiting
                    .insert(self.id, pseudo_key);
                tokio::time::sleep(shown).await;
                self.db.state.lock().unwrap().waiting.remove(&self.id);
                Ok(QueryResult {
                    affected: 1,
                    ..QueryResult::default()
                })
            }
            (Some(command @ ("W" | "WD")), Some(key)) => {
                let detect_later = {
                    let mut st = self.db.state.lock().unwrap();
                    st.cancelled.retain(|s| *s != self.id);
                    match st.locks.get(key).copied() {
                        None => {
                            st.locks.insert(key.to_string(), self.id);
                            return Ok(QueryResult {
                                affected: 1,
                                ..QueryResult::default()
                            });
                        }
                        Some(holder) if holder == self.id => {
                            return Ok(QueryResult {
                                affected: 1,
                                ..QueryResult::default()
                            })
                        }
                        Some(holder) => {
                            let cycle = st
                                .waiting
                                .get(&holder)
                                .and_then(|k| st.locks.get(k))
                                .is_some_and(|h| *h == self.id)
                                && self.db.detect_deadlocks;
                            let late = self.db.background_deadlocks.filter(|_| cycle);
                            if cycle && late.is_none() {
                                return Err(error(1213, "Deadlock found when trying to get lock"));
                            }
                            st.waiting.insert(self.id, key.to_string());
                            late
                        }
                    }
                };
                if let Some(late) = detect_later {
                    tokio::time::sleep(late.detect_after).await;
                    self.db.find_deadlock(self.id);
                }
                loop {
                    let notified = self.db.notify.notified();
                    let victim = {
                        let mut st = self.db.state.lock().unwrap();
                        let victim = st.victims.iter().position(|v| *v == self.id);
                        if let Some(i) = victim {
                            st.victims.remove(i);
                        }
                        victim.is_some()
                    };
                    if victim {
                        // Rolled back already; the error comes later.
                        let late = self.db.background_deadlocks.expect("a late victim");
                        tokio::time::sleep(late.error_after).await;
                        return Err(error(1213, "Deadlock found when trying to get lock"));
                    }
                    {
                        let mut st = self.db.state.lock().unwrap();
                        if st.locks.get(key) == Some(&self.id) {
                            if command == "WD" {
                                return Err(error(1062, "Duplicate entry for key 'PRIMARY'"));
                            }
                            return Ok(QueryResult {
                                affected: 1,
                                ..QueryResult::default()
                            });
                        }
                        if st.cancelled.contains(&self.id) {
                            st.waiting.remove(&self.id);
                            return Err(error(1317, "Query execution was interrupted"));
                        }
                    }
                    notified.await;
                }
            }
            _ => Err(error(1064, "syntax error")),
        }
    }
}

fn fake_id(session: &SessionKey) -> u64 {
    session.id.parse().expect("fake session ids are numbers")
}

pub struct FakeMonitor {
    db: FakeDb,
}

#[async_trait]
impl Monitor for FakeMonitor {
    async fn is_waiting(&self, session: &SessionKey) -> Result<Option<bool>, DriverError> {
        self.db.answer().await;
        if !self.db.probe_works {
            return Ok(None);
        }
        Ok(Some(
            self.db
                .state
                .lock()
                .unwrap()
                .waiting
                .contains_key(&fake_id(session)),
        ))
    }

    async fn cancel(&self, session: &SessionKey) -> Result<(), DriverError> {
        self.db.answer().await;
        self.db
            .state
            .lock()
            .unwrap()
            .cancelled
            .push(fake_id(session));
        self.db.notify.notify_waiters();
        Ok(())
    }
}

/// MySQL-like classification of the fake's codes.
pub struct FakeClassifier;

impl ErrorClassifier for FakeClassifier {
    fn classify(&self, raw: &RawDbError) -> Result<DbError, CallError> {
        let (class, scope) = match raw.code {
            Some(1213) => (ErrorClass::Deadlock, ErrorScope::Transaction),
            Some(1062) => (ErrorClass::Constraint, ErrorScope::Statement),
            Some(1317) => (ErrorClass::StatementTimeout, ErrorScope::Statement),
            Some(2013) => (ErrorClass::ConnectionLost, ErrorScope::Connection),
            _ => (ErrorClass::Other, ErrorScope::Statement),
        };
        Ok(DbError {
            class,
            scope,
            code: raw.code,
            sqlstate: None,
            message: raw.message.clone(),
        })
    }
}
