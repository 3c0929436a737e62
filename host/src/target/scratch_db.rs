//! The scratch database oracles replay on, lent to them as `HostDb`.

use super::case_db::Pooled;
use super::install::{apply_setup, install, read_tables};
use super::{to_outcome, TargetError};
use crate::driver::{Driver, Monitor, Session};
use crate::executor::{ExecutorSettings, ScheduleExecutor};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::runtime::Runtime;
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::{HostDb, PluginError};

/// The scratch database oracles replay on. Its methods block on the worker's
/// runtime, so it is used from the worker thread, never from async code.
pub struct ScratchDb {
    runtime: Arc<Runtime>,
    driver: Box<dyn Driver>,
    dialect: Arc<DialectHandle>,
    limits: SessionLimits,
    admin_setup: SessionSetup,
    admin: Option<Box<dyn Session>>,
    sessions: HashMap<u32, (Pooled, IsolationLevel)>,
    idle: Vec<Pooled>,
    next_id: u32,
    schema: Option<Schema>,
    rendered: Option<RenderedCase>,
    /// The dialect's ROLLBACK, for sessions an oracle leaves open.
    control: TransactionControl,
    /// How `RunCase` runs a case: as the worker runs its cases.
    settings: ExecutorSettings,
    /// The lock-wait probe of `RunCase`, opened at its first use.
    monitor: Option<Box<dyn Monitor>>,
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
    pub fn new(
        runtime: Arc<Runtime>,
        driver: Box<dyn Driver>,
        dialect: Arc<DialectHandle>,
        limits: SessionLimits,
        admin_setup: SessionSetup,
        settings: ExecutorSettings,
    ) -> Result<Self, TargetError> {
        let control = dialect
            .render_case(&tables_only(Schema::default(), Vec::new()), &limits)?
            .control;
        Ok(ScratchDb {
            runtime,
            driver,
            dialect,
            limits,
            admin_setup,
            admin: None,
            sessions: HashMap::new(),
            idle: Vec::new(),
            next_id: 1,
            schema: None,
            rendered: None,
            control,
            settings,
            monitor: None,
        })
    }

    /// Forgets every connection after the server went away; the next
    /// request connects again and installs its tables afresh.
    pub fn reopen(&mut self) {
        self.admin = None;
        self.sessions.clear();
        self.idle.clear();
        self.schema = None;
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
            let s = self
                .runtime
                .block_on(async {
                    let mut s = driver.connect().await?;
                    apply_setup(s.as_mut(), setup).await?;
                    Ok::<_, TargetError>(s)
                })
                .map_err(|e| PluginError::host(e.to_string()))?;
            self.admin = Some(s);
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
        let mut previous = self.schema.take();
        let runtime = self.runtime.clone();
        let admin = self.admin()?;
        let result = runtime.block_on(install(
            admin.as_mut(),
            &dialect,
            &mut previous,
            &schema,
            &rendered,
        ));
        self.schema = previous;
        result.map_err(|e| PluginError::host(format!("scratch database: {e}")))?;
        self.rendered = Some(rendered);
        Ok(())
    }

    fn open(&mut self, isolation: IsolationLevel) -> Result<u32, PluginError> {
        let host = |e: &dyn std::fmt::Display| PluginError::host(format!("scratch database: {e}"));
        let setup = self
            .dialect
            .session_setup(&SessionRequest {
                isolation,
                limits: self.limits,
            })
            .map_err(|e| host(&e))?;
        let mut pooled = match self.idle.pop() {
            Some(p) => p,
            None => Pooled {
                session: self
                    .runtime
                    .block_on(self.driver.connect())
                    .map_err(|e| host(&e))?,
                setup: None,
            },
        };
        if pooled.setup.as_ref() != Some(&setup) {
            self.runtime
                .block_on(apply_setup(pooled.session.as_mut(), &setup))
                .map_err(|e| host(&e))?;
            pooled.setup = Some(setup);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.sessions.insert(id, (pooled, isolation));
        Ok(id)
    }

    fn execute(&mut self, id: u32, statement: Statement) -> Result<Outcome, PluginError> {
        let schema = self.schema.clone().ok_or_else(|| {
            PluginError::host("execute before reset: the scratch database has no tables")
        })?;
        let (pooled, isolation) = self
            .sessions
            .get_mut(&id)
            .ok_or_else(|| PluginError::host(format!("no open scratch session {id}")))?;
        let session = &mut pooled.session;
        let sql = self
            .dialect
            .render_statement(&RenderRequest {
                schema,
                isolation: *isolation,
                statement: statement.clone(),
            })
            .map_err(|e| PluginError::host(e.to_string()))?;
        let result = self.runtime.block_on(session.execute(&sql));
        to_outcome(result, &statement, self.dialect.as_ref())
            .map_err(|e| PluginError::host(e.to_string()))
    }

    fn read_state(&mut self) -> Result<DbState, PluginError> {
        let queries = self
            .rendered
            .as_ref()
            .ok_or_else(|| PluginError::host("read_state before reset"))?
            .read_state
            .clone();
        let runtime = self.runtime.clone();
        let admin = self.admin()?;
        runtime
            .block_on(read_tables(admin.as_mut(), &queries))
            .map_err(|e| PluginError::host(format!("scratch database: {e}")))
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
            let monitor = self
                .runtime
                .block_on(self.driver.monitor())
                .map_err(|e| host(&e))?;
            self.monitor = Some(monitor);
        }
        let dialect = self.dialect.clone();
        let runtime = self.runtime.clone();
        let mut previous = self.schema.take();
        let admin = self.admin()?;
        let installed = runtime.block_on(install(
            admin.as_mut(),
            &dialect,
            &mut previous,
            &case.schema,
            &rendered,
        ));
        self.schema = previous;
        installed.map_err(|e| host(&e))?;
        self.rendered = Some(rendered.clone());
        let setups: Vec<SessionSetup> = rendered
            .transactions
            .iter()
            .map(|t| t.session.clone())
            .collect();
        let mut sessions = Vec::with_capacity(setups.len());
        for setup in &setups {
            let mut pooled = match self.idle.pop() {
                Some(p) => p,
                None => Pooled {
                    session: runtime
                        .block_on(self.driver.connect())
                        .map_err(|e| host(&e))?,
                    setup: None,
                },
            };
            if pooled.setup.as_ref() != Some(setup) {
                runtime
                    .block_on(apply_setup(pooled.session.as_mut(), setup))
                    .map_err(|e| host(&e))?;
            }
            sessions.push(pooled.session);
        }
        let executor = ScheduleExecutor {
            settings: self.settings,
            monitor: self.monitor.as_deref().expect("opened above"),
            classifier: dialect.as_ref(),
        };
        let (history, returned) = runtime.block_on(executor.run(&case, &rendered, sessions));
        for (session, setup) in returned.into_iter().zip(&setups) {
            if let Some(session) = session {
                self.idle.push(Pooled {
                    session,
                    setup: Some(setup.clone()),
                });
            }
        }
        let mut history = history.map_err(|e| host(&e))?;
        let queries = rendered.read_state.clone();
        let admin = self.admin()?;
        history.final_state = Some(
            runtime
                .block_on(read_tables(admin.as_mut(), &queries))
                .map_err(|e| host(&e))?,
        );
        Ok(history)
    }

    fn close(&mut self, id: u32) -> Result<(), PluginError> {
        let (mut pooled, _) = self
            .sessions
            .remove(&id)
            .ok_or_else(|| PluginError::host(format!("no open scratch session {id}")))?;
        // Whatever the oracle left open must not hold locks into the next check.
        match self
            .runtime
            .block_on(pooled.session.execute(&self.control.rollback))
        {
            Ok(_) => self.idle.push(pooled),
            Err(e) if e.connection_lost => {}
            // "no transaction is active" and the like: the session is clean.
            Err(_) => self.idle.push(pooled),
        }
        Ok(())
    }
}

impl HostDb for ScratchDb {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
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
