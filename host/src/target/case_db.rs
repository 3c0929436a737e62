//! A worker's case database: the tables reset per case, sessions kept open
//! across cases.

use super::install::{apply_setup, install, read_tables};
use super::{bounded, Database, InstalledTables, TargetError};
use crate::driver::{Deadlines, Driver, Interrupt, Monitor, Session};
use std::sync::Arc;
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::*;

/// A kept-open session and the set-up it last received.
pub(super) struct Pooled {
    pub(super) session: Box<dyn Session>,
    pub(super) setup: Option<SessionSetup>,
}

/// A worker's database for running cases. Every operation on the server
/// runs within a deadline (`Deadlines::statement`) and gives up when the run
/// is asked to stop; after either, the connections are dropped and opened
/// again before the next case.
pub struct CaseDb {
    driver: Arc<dyn Driver>,
    pub monitor: Box<dyn Monitor>,
    admin: Box<dyn Session>,
    admin_setup: SessionSetup,
    pool: Vec<Pooled>,
    tables: InstalledTables,
    deadlines: Deadlines,
    interrupt: Interrupt,
    /// An operation was cut off: the connections are in no known state.
    stale: bool,
    /// Resets and set-ups as one request each (`ExecutorSettings::batch`).
    batch: bool,
}

impl CaseDb {
    /// Opens the database; `admin_setup` prepares the session that loads the
    /// tables, so that values are stored under the same rules the cases run by.
    pub async fn open(
        driver: impl Into<Arc<dyn Driver>>,
        admin_setup: &SessionSetup,
        deadlines: Deadlines,
        interrupt: Interrupt,
    ) -> Result<CaseDb, TargetError> {
        let driver = driver.into();
        let monitor = driver.monitor().await?;
        let mut admin = driver.connect().await?;
        bounded(
            deadlines.statement,
            &interrupt,
            "setting up a session",
            apply_setup(admin.as_mut(), admin_setup, false),
        )
        .await?;
        Ok(CaseDb {
            driver,
            monitor,
            admin,
            admin_setup: admin_setup.clone(),
            pool: Vec::new(),
            tables: InstalledTables::default(),
            deadlines,
            interrupt,
            stale: false,
            batch: true,
        })
    }

    /// Whether resets and session set-ups go as one request each (the
    /// default) or one statement per request.
    pub fn set_batch(&mut self, batch: bool) {
        self.batch = batch;
    }

    pub fn driver(&self) -> &dyn Driver {
        self.driver.as_ref()
    }

    /// The database, for another handle on it.
    pub fn database(&self) -> Database {
        Database {
            driver: self.driver.clone(),
            tables: self.tables.clone(),
        }
    }

    /// Notes that `result` cut an operation off: the kept sessions are
    /// dropped at once (closing their connections), the monitor and the
    /// loading session before the next case.
    fn check<T>(&mut self, result: Result<T, TargetError>) -> Result<T, TargetError> {
        if let Err(e) = &result {
            if e.left_connection_unusable() {
                self.discard();
            }
        }
        result
    }

    /// Forgets every connection: the server did not answer, or the case was
    /// cut off; the next case connects afresh.
    pub fn discard(&mut self) {
        self.stale = true;
        self.pool.clear();
        self.tables.forget();
    }

    /// A new session, unless the run is asked to stop first.
    async fn connect(&self) -> Result<Box<dyn Session>, TargetError> {
        match self.interrupt.or_stop(self.driver.connect()).await {
            None => Err(TargetError::Interrupted),
            Some(connected) => Ok(connected?),
        }
    }

    /// Connects again after the server went away: a new monitor and loading
    /// session, no kept sessions, and tables installed afresh for the next case.
    pub async fn reopen(&mut self) -> Result<(), TargetError> {
        let monitor = match self.interrupt.or_stop(self.driver.monitor()).await {
            None => return Err(TargetError::Interrupted),
            Some(monitor) => monitor?,
        };
        let mut admin = self.connect().await?;
        let setup = apply_setup(admin.as_mut(), &self.admin_setup, false);
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        bounded(deadline, &interrupt, "setting up a session", setup).await?;
        self.monitor = monitor;
        self.admin = admin;
        self.pool.clear();
        self.tables.forget();
        self.stale = false;
        Ok(())
    }

    /// The next [`CaseDb::prepare`] drops the tables and creates them
    /// again, as a person sets a script up, rather than emptying and
    /// refilling them.
    pub fn forget_tables(&mut self) {
        self.tables.forget();
    }

    pub async fn prepare(
        &mut self,
        dialect: &DialectHandle,
        case: &TestCase,
        rendered: &RenderedCase,
    ) -> Result<(), TargetError> {
        if self.stale {
            self.reopen().await?;
        }
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        let mut installed = self.tables.take();
        let reset = install(
            self.admin.as_mut(),
            dialect,
            &mut installed,
            &case.schema,
            rendered,
            self.batch,
        );
        let result = bounded(deadline, &interrupt, "resetting the case's tables", reset).await;
        // Cut off, the install may have done anything.
        self.tables.set(installed.filter(|_| result.is_ok()));
        self.check(result)
    }

    /// Sessions set up as asked, one per entry, reusing those of earlier cases;
    /// a session already set up the same way is not set up again.
    pub async fn sessions(
        &mut self,
        setups: &[SessionSetup],
    ) -> Result<Vec<Box<dyn Session>>, TargetError> {
        while self.pool.len() < setups.len() {
            let session = self.connect().await;
            let session = self.check(session)?;
            self.pool.push(Pooled {
                session,
                setup: None,
            });
        }
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        let batch = self.batch;
        let mut out = Vec::with_capacity(setups.len());
        // With fewer round trips, each set-up takes a kept session already
        // set up that way where there is one; the others take the first ones left.
        let mut chosen: Vec<Option<Pooled>> = setups.iter().map(|_| None).collect();
        if batch {
            for (slot, setup) in chosen.iter_mut().zip(setups) {
                if let Some(i) = self
                    .pool
                    .iter()
                    .position(|p| p.setup.as_ref() == Some(setup))
                {
                    *slot = Some(self.pool.remove(i));
                }
            }
        }
        for slot in chosen.iter_mut().filter(|s| s.is_none()) {
            *slot = Some(self.pool.remove(0));
        }
        for (mut pooled, setup) in chosen.into_iter().flatten().zip(setups) {
            if pooled.setup.as_ref() != Some(setup) {
                let set_up = apply_setup(pooled.session.as_mut(), setup, batch);
                let result = bounded(deadline, &interrupt, "setting up a session", set_up).await;
                self.check(result)?;
            }
            out.push(pooled.session);
        }
        Ok(out)
    }

    /// Takes sessions back after a case with the set-ups they were given;
    /// abandoned ones are replaced later.
    pub fn give_back(&mut self, sessions: Vec<Option<Box<dyn Session>>>, setups: &[SessionSetup]) {
        for (session, setup) in sessions.into_iter().zip(setups) {
            if let Some(session) = session {
                self.pool.push(Pooled {
                    session,
                    setup: Some(setup.clone()),
                });
            }
        }
    }

    /// Applies every set-up once before the run, so that a session option the
    /// server does not accept stops the run before any case.
    pub async fn preflight(&mut self, setups: &[SessionSetup]) -> Result<(), TargetError> {
        let mut session = self.driver.connect().await?;
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        for setup in setups {
            // One statement at a time: a refused setting is named exactly.
            let set_up = apply_setup(session.as_mut(), setup, false);
            bounded(deadline, &interrupt, "setting up a session", set_up).await?;
        }
        self.pool.push(Pooled {
            session,
            setup: setups.last().cloned(),
        });
        Ok(())
    }

    pub async fn read_state(&mut self, rendered: &RenderedCase) -> Result<DbState, TargetError> {
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        let read = read_tables(self.admin.as_mut(), &rendered.read_state, self.batch);
        let result = bounded(deadline, &interrupt, "reading the final state", read).await;
        self.check(result)
    }
}
