//! The scratch database oracles replay on, lent to them as `HostDb`.

use super::case_db::Pooled;
use super::install::{apply_setup, install, read_tables, relax_commits};
use super::{bounded, to_outcome, Database, InstalledTables, TargetError};
use crate::driver::{Driver, Interrupt, Monitor, Session};
use crate::executor::{ExecError, ExecutorSettings, ScheduleExecutor};
use crate::phases::ScratchWork;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use tokio::runtime::Runtime;
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::{execute_one_at_a_time, HostDb, PluginError};

/// The scratch database oracles replay on. Its methods block on the worker's
/// runtime, so it is used from the worker thread, never from async code.
/// Every request runs within the run's deadline and gives up when the run is
/// asked to stop; then every connection is dropped, and the failure is kept
/// for the case runner ([`ScratchDb::take_cut_off`]): the oracle sees an
/// error, the case becomes a tool error.
pub struct ScratchDb {
    runtime: Arc<Runtime>,
    driver: Arc<dyn Driver>,
    dialect: Arc<DialectHandle>,
    limits: SessionLimits,
    admin_setup: SessionSetup,
    admin: Option<Box<dyn Session>>,
    sessions: HashMap<u32, Lent>,
    idle: Vec<Pooled>,
    next_id: u32,
    /// Shared with the case database when it is the same database.
    tables: InstalledTables,
    rendered: Option<RenderedCase>,
    /// The dialect's ROLLBACK, for sessions an oracle leaves open.
    control: TransactionControl,
    /// How `RunCase` runs a case: as the worker runs its cases.
    settings: ExecutorSettings,
    /// The lock-wait probe of `RunCase`, opened at its first use.
    monitor: Option<Box<dyn Monitor>>,
    interrupt: Interrupt,
    /// The request the server did not answer in time, or the stop.
    cut_off: Option<TargetError>,
}

/// How many idle scratch sessions are kept, each set up for one isolation
/// level, before a session is set up again for another.
const KEPT_SCRATCH_SESSIONS: usize = 6;

/// A session an oracle opened.
struct Lent {
    pooled: Pooled,
    isolation: IsolationLevel,
    /// No transaction can be open: nothing ran since it was lent, or the
    /// last statement was a COMMIT or ROLLBACK that succeeded. Closing it
    /// then needs no ROLLBACK (which would be a no-op on the server).
    clean: bool,
}

/// A case with only a schema and rows: what a reset renders.
fn tables_only(schema: Schema, rows: Vec<TableRows>) -> TestCase {
    TestCase {
        seed: 0,
        generator: String::new(),
        schema,
        initial_rows: rows,
        transactions: Vec::new(),
        submitted_order: Vec::new(),
        intent: None,
        pace_ms: None,
    }
}

impl ScratchDb {
    /// A scratch database on `database`: one of its own, or the case
    /// database's.
    pub fn new(
        runtime: Arc<Runtime>,
        database: Database,
        dialect: Arc<DialectHandle>,
        limits: SessionLimits,
        admin_setup: SessionSetup,
        settings: ExecutorSettings,
        interrupt: Interrupt,
    ) -> Result<Self, TargetError> {
        let control = dialect
            .render_case(&tables_only(Schema::default(), Vec::new()), &limits)?
            .control;
        Ok(ScratchDb {
            runtime,
            driver: database.driver,
            dialect,
            limits,
            admin_setup,
            admin: None,
            sessions: HashMap::new(),
            idle: Vec::new(),
            next_id: 1,
            tables: database.tables,
            rendered: None,
            control,
            settings,
            monitor: None,
            interrupt,
            cut_off: None,
        })
    }

    /// What cut a request off since the last call: the server did not
    /// answer in time, or the run is stopping.
    pub fn take_cut_off(&mut self) -> Option<TargetError> {
        self.cut_off.take()
    }

    pub fn is_cut_off(&self) -> bool {
        self.cut_off.is_some()
    }

    /// How to wait for the server, copied out so that the work may borrow
    /// the database's fields.
    fn waiter(&self) -> Waiter {
        Waiter {
            runtime: self.runtime.clone(),
            deadline: self.settings.deadlines.statement,
            interrupt: self.interrupt.clone(),
        }
    }

    /// The error an oracle sees; a request cut off forgets every connection
    /// and is remembered for the case runner.
    fn settle<T>(&mut self, result: Result<T, TargetError>) -> Result<T, PluginError> {
        result.map_err(|e| {
            let text = PluginError::host(format!("scratch database: {e}"));
            if e.left_connection_unusable() {
                self.reopen();
                self.cut_off = Some(e);
            }
            text
        })
    }

    /// Forgets every connection after the server went away; the next
    /// request connects again and installs its tables afresh.
    pub fn reopen(&mut self) {
        self.admin = None;
        self.sessions.clear();
        self.idle.clear();
        self.tables.forget();
        self.rendered = None;
        self.monitor = None;
    }

    /// Closes what an oracle left open, so the next check starts clean.
    pub fn end_check(&mut self) {
        let ids: Vec<u32> = self.sessions.keys().copied().collect();
        for id in ids {
            let _ = self.close(id);
        }
    }

    fn admin(&mut self) -> Result<&mut Box<dyn Session>, PluginError> {
        if self.admin.is_none() {
            let setup = &self.admin_setup;
            let driver = &self.driver;
            let relax = self.settings.fewer_round_trips;
            let connected = self.waiter().block("setting up a session", async {
                let mut s = driver.connect().await?;
                if relax {
                    relax_commits(s.as_mut(), driver.relaxed_commits()).await;
                }
                apply_setup(s.as_mut(), setup, false).await?;
                Ok(s)
            });
            self.admin = Some(self.settle(connected)?);
        }
        Ok(self.admin.as_mut().expect("just connected"))
    }

    fn reset(&mut self, schema: Schema, rows: Vec<TableRows>) -> Result<(), PluginError> {
        let case = tables_only(schema.clone(), rows);
        let rendered = self
            .dialect
            .render_case(&case, &self.limits)
            .map_err(|e| PluginError::host(e.to_string()))?;
        let dialect = self.dialect.clone();
        let mut previous = self.tables.take();
        let waiter = self.waiter();
        let batch = self.settings.fewer_round_trips;
        let admin = self.admin()?;
        let result = waiter.block(
            "resetting the scratch tables",
            install(
                admin.as_mut(),
                &dialect,
                &mut previous,
                &schema,
                &rendered,
                batch,
            ),
        );
        self.tables.set(previous);
        self.settle(result)?;
        self.rendered = Some(rendered);
        Ok(())
    }

    /// A kept session set up as `setup`, or a new one.
    fn session(&mut self, setup: &SessionSetup) -> Result<Pooled, PluginError> {
        let waiter = self.waiter();
        let batch = self.settings.fewer_round_trips;
        // With fewer round trips: a kept session already set up this way,
        // else a new one while few are kept (a connection is made once, a
        // set-up would be paid again at every change of level), else any
        // kept one, set up again.
        let matching = self
            .idle
            .iter()
            .position(|p| p.setup.as_ref() == Some(setup));
        let idle = match matching {
            Some(i) if batch => Some(self.idle.swap_remove(i)),
            None if batch && self.idle.len() < KEPT_SCRATCH_SESSIONS => None,
            _ => self.idle.pop(),
        };
        let driver = &self.driver;
        let result = waiter.block("setting up a session", async {
            let mut pooled = match idle {
                Some(p) => p,
                None => {
                    let mut session = driver.connect().await?;
                    if batch {
                        relax_commits(session.as_mut(), driver.relaxed_commits()).await;
                    }
                    Pooled {
                        session,
                        setup: None,
                    }
                }
            };
            if pooled.setup.as_ref() != Some(setup) {
                apply_setup(pooled.session.as_mut(), setup, batch).await?;
                pooled.setup = Some(setup.clone());
            }
            Ok(pooled)
        });
        self.settle(result)
    }

    fn open(&mut self, isolation: IsolationLevel) -> Result<u32, PluginError> {
        let setup = self
            .dialect
            .session_setup(&SessionRequest {
                isolation,
                limits: self.limits,
            })
            .map_err(|e| PluginError::host(format!("scratch database: {e}")))?;
        let pooled = self.session(&setup)?;
        let id = self.next_id;
        self.next_id += 1;
        self.sessions.insert(
            id,
            Lent {
                pooled,
                isolation,
                clean: true,
            },
        );
        Ok(id)
    }

    fn execute(&mut self, id: u32, statement: Statement) -> Result<Outcome, PluginError> {
        let schema = self.tables.get().ok_or_else(|| {
            PluginError::host("execute before reset: the scratch database has no tables")
        })?;
        let waiter = self.waiter();
        let lent = self
            .sessions
            .get_mut(&id)
            .ok_or_else(|| PluginError::host(format!("no open scratch session {id}")))?;
        let session = &mut lent.pooled.session;
        let sql = self
            .dialect
            .render_statement(&RenderRequest {
                schema,
                isolation: lent.isolation,
                statement: statement.clone(),
            })
            .map_err(|e| PluginError::host(e.to_string()))?;
        let result = waiter.block("a statement of the oracle's replay", async {
            Ok(session.execute(&sql).await)
        });
        lent.clean = matches!(
            (&result, &statement),
            (Ok(Ok(_)), Statement::Commit | Statement::Rollback)
        );
        let result = self.settle(result)?;
        to_outcome(result, &statement, self.dialect.as_ref())
            .map_err(|e| PluginError::host(e.to_string()))
    }

    /// Runs statements on a session in order; with fewer round trips, in as
    /// few requests as the driver can ([`Session::execute_each`]), otherwise
    /// one [`ScratchDb::execute`] each.
    fn execute_each(
        &mut self,
        id: u32,
        statements: Vec<Statement>,
        until_conflict: bool,
    ) -> Result<Vec<Outcome>, PluginError> {
        if !self.settings.fewer_round_trips {
            return execute_one_at_a_time(&statements, until_conflict, |s| {
                self.execute(id, s.clone())
            });
        }
        let schema = self.tables.get().ok_or_else(|| {
            PluginError::host("execute before reset: the scratch database has no tables")
        })?;
        // One request, one deadline, as a reset's: serial statements wait
        // for no lock, and a silent server is given up on as soon as for
        // one statement.
        let waiter = self.waiter();
        let dialect = self.dialect.clone();
        let lent = self
            .sessions
            .get_mut(&id)
            .ok_or_else(|| PluginError::host(format!("no open scratch session {id}")))?;
        let sqls = statements
            .iter()
            .map(|statement| {
                dialect.render_statement(&RenderRequest {
                    schema: schema.clone(),
                    isolation: lent.isolation,
                    statement: statement.clone(),
                })
            })
            .collect::<Result<Vec<String>, _>>()
            .map_err(|e| PluginError::host(e.to_string()))?;
        let go_on = |raw: &RawDbError| {
            !until_conflict
                || dialect
                    .classify_error(raw)
                    .is_ok_and(|e| !Outcome::Error(e).breaks_serial_run())
        };
        let session = &mut lent.pooled.session;
        let result = waiter.block("statements of the oracle's replay", async {
            Ok(session.execute_each(&sqls, &go_on).await)
        });
        lent.clean = match &result {
            Ok(results) => {
                results.len() == statements.len()
                    && results.last().is_some_and(|r| r.is_ok())
                    && statements.last().is_some_and(Statement::is_end)
            }
            Err(_) => false,
        };
        let results = self.settle(result)?;
        results
            .into_iter()
            .zip(&statements)
            .map(|(result, statement)| {
                to_outcome(result, statement, dialect.as_ref())
                    .map_err(|e| PluginError::host(e.to_string()))
            })
            .collect()
    }

    fn read_state(&mut self) -> Result<DbState, PluginError> {
        let batch = self.settings.fewer_round_trips;
        let queries = self
            .rendered
            .as_ref()
            .ok_or_else(|| PluginError::host("read_state before reset"))?
            .read_state
            .clone();
        let waiter = self.waiter();
        let admin = self.admin()?;
        let result = waiter.block(
            "reading the scratch tables",
            read_tables(admin.as_mut(), &queries, batch),
        );
        self.settle(result)
    }

    /// Runs a whole case concurrently, as the worker runs its cases: tables
    /// reset, one session per transaction (kept ones reused), the schedule
    /// executor, the final state.
    fn run_case(&mut self, case: TestCase) -> Result<History, PluginError> {
        let host = |e: &dyn std::fmt::Display| PluginError::host(format!("scratch database: {e}"));
        case.validate().map_err(|e| {
            PluginError::invalid_input(format!("the case to run is not valid: {e}"))
        })?;
        let rendered = self
            .dialect
            .render_case(&case, &self.limits)
            .map_err(|e| PluginError::invalid_input(e.to_string()))?;
        if self.monitor.is_none() {
            let driver = &self.driver;
            let monitor = self.waiter().block("opening the lock-wait monitor", async {
                Ok(driver.monitor().await?)
            });
            self.monitor = Some(self.settle(monitor)?);
        }
        let dialect = self.dialect.clone();
        let mut previous = self.tables.take();
        let waiter = self.waiter();
        let batch = self.settings.fewer_round_trips;
        let admin = self.admin()?;
        let installed = waiter.block(
            "resetting the scratch tables",
            install(
                admin.as_mut(),
                &dialect,
                &mut previous,
                &case.schema,
                &rendered,
                batch,
            ),
        );
        self.tables.set(previous);
        self.settle(installed)?;
        self.rendered = Some(rendered.clone());
        let setups: Vec<SessionSetup> = rendered
            .transactions
            .iter()
            .map(|t| t.session.clone())
            .collect();
        let mut sessions = Vec::with_capacity(setups.len());
        for setup in &setups {
            sessions.push(self.session(setup)?.session);
        }
        let executor = ScheduleExecutor {
            settings: self.settings,
            monitor: self.monitor.as_deref().expect("opened above"),
            classifier: dialect.as_ref(),
            interrupt: self.interrupt.clone(),
        };
        let (history, returned) = self
            .runtime
            .block_on(executor.run(&case, &rendered, sessions));
        for (session, setup) in returned.into_iter().zip(&setups) {
            if let Some(session) = session {
                self.idle.push(Pooled {
                    session,
                    setup: Some(setup.clone()),
                });
            }
        }
        let mut history = match history {
            Ok(history) => history,
            Err(e) => {
                let cut_off = match e {
                    ExecError::NoAnswer(no_answer) => TargetError::NoAnswer(no_answer),
                    ExecError::Interrupted => TargetError::Interrupted,
                    other => return Err(host(&other)),
                };
                return self.settle(Err(cut_off));
            }
        };
        let queries = rendered.read_state.clone();
        let waiter = self.waiter();
        let admin = self.admin()?;
        let state = waiter.block(
            "reading the scratch tables",
            read_tables(admin.as_mut(), &queries, batch),
        );
        history.final_state = Some(self.settle(state)?);
        Ok(history)
    }

    fn close(&mut self, id: u32) -> Result<(), PluginError> {
        let Lent {
            mut pooled, clean, ..
        } = self
            .sessions
            .remove(&id)
            .ok_or_else(|| PluginError::host(format!("no open scratch session {id}")))?;
        if clean && self.settings.fewer_round_trips {
            self.idle.push(pooled);
            return Ok(());
        }
        // Whatever the oracle left open must not hold locks into the next check.
        let rollback = self.control.rollback.clone();
        let session = &mut pooled.session;
        let result = self
            .waiter()
            .block("rolling back a scratch session", async {
                Ok(session.execute(&rollback).await)
            });
        match self.settle(result)? {
            Ok(_) => self.idle.push(pooled),
            Err(e) if e.connection_lost => {}
            // "no transaction is active" and the like: the session is clean.
            Err(_) => self.idle.push(pooled),
        }
        Ok(())
    }
}

/// How a scratch database request waits for the server.
struct Waiter {
    runtime: Arc<Runtime>,
    deadline: std::time::Duration,
    interrupt: Interrupt,
}

impl Waiter {
    fn block<T>(
        &self,
        what: &str,
        work: impl Future<Output = Result<T, TargetError>>,
    ) -> Result<T, TargetError> {
        self.runtime
            .block_on(bounded(self.deadline, &self.interrupt, what, work))
    }
}

impl HostDb for ScratchDb {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        // Once a request was cut off, the check fails at once: asking a
        // silent server again would only wait again.
        if let Some(e) = &self.cut_off {
            return Err(PluginError::host(format!("scratch database: {e}")));
        }
        let work = match &request {
            HostDbRequest::Reset { .. } => ScratchWork::Reset,
            HostDbRequest::OpenSession { .. } | HostDbRequest::CloseSession { .. } => {
                ScratchWork::Sessions
            }
            HostDbRequest::ReadState => ScratchWork::State,
            HostDbRequest::RunCase { .. } => ScratchWork::Case,
            _ => ScratchWork::Statements,
        };
        let _replaying = crate::phases::enter_replay(work);
        match request {
            HostDbRequest::Reset { schema, rows } => {
                self.reset(schema, rows).map(|()| HostDbResponse::Done)
            }
            HostDbRequest::OpenSession { isolation } => self
                .open(isolation)
                .map(|id| HostDbResponse::Session { id }),
            HostDbRequest::Execute { session, statement } => self
                .execute(session, statement)
                .map(|outcome| HostDbResponse::Outcome { outcome }),
            HostDbRequest::ExecuteEach {
                session,
                statements,
                until_conflict,
            } => self
                .execute_each(session, statements, until_conflict)
                .map(|outcomes| HostDbResponse::Outcomes { outcomes }),
            HostDbRequest::ReadState => self
                .read_state()
                .map(|state| HostDbResponse::State { state }),
            HostDbRequest::CloseSession { session } => {
                self.close(session).map(|()| HostDbResponse::Done)
            }
            HostDbRequest::RunCase { case } => {
                self.run_case(case).map(|history| HostDbResponse::History {
                    history: Box::new(history),
                })
            }
            other => Err(PluginError::unsupported(format!(
                "this txlab does not understand the request {other:?}"
            ))),
        }
    }
}
