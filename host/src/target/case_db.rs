//! A worker's case database: the tables reset per case, sessions kept open
//! across cases.

use super::install::{apply_setup, install, read_tables};
use super::TargetError;
use crate::driver::{Driver, Monitor, Session};
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::*;

/// A kept-open session and the set-up it last received.
pub(super) struct Pooled {
    pub(super) session: Box<dyn Session>,
    pub(super) setup: Option<SessionSetup>,
}

/// A worker's database for running cases.
pub struct CaseDb {
    driver: Box<dyn Driver>,
    pub monitor: Box<dyn Monitor>,
    admin: Box<dyn Session>,
    admin_setup: SessionSetup,
    pool: Vec<Pooled>,
    schema: Option<Schema>,
}

impl CaseDb {
    /// Opens the database; `admin_setup` prepares the session that loads the
    /// tables, so that values are stored under the same rules the cases run by.
    pub async fn open(
        driver: Box<dyn Driver>,
        admin_setup: &SessionSetup,
    ) -> Result<CaseDb, TargetError> {
        let monitor = driver.monitor().await?;
        let mut admin = driver.connect().await?;
        apply_setup(admin.as_mut(), admin_setup).await?;
        Ok(CaseDb {
            driver,
            monitor,
            admin,
            admin_setup: admin_setup.clone(),
            pool: Vec::new(),
            schema: None,
        })
    }

    pub fn driver(&self) -> &dyn Driver {
        self.driver.as_ref()
    }

    /// Connects again after the server went away: a new monitor and loading
    /// session, no kept sessions, and tables installed afresh for the next case.
    pub async fn reopen(&mut self) -> Result<(), TargetError> {
        let monitor = self.driver.monitor().await?;
        let mut admin = self.driver.connect().await?;
        apply_setup(admin.as_mut(), &self.admin_setup).await?;
        self.monitor = monitor;
        self.admin = admin;
        self.pool.clear();
        self.schema = None;
        Ok(())
    }

    /// The next [`CaseDb::prepare`] drops the tables and creates them
    /// again, as a person sets a script up, rather than emptying and
    /// refilling them.
    pub fn forget_tables(&mut self) {
        self.schema = None;
    }

    pub async fn prepare(
        &mut self,
        dialect: &DialectHandle,
        case: &TestCase,
        rendered: &RenderedCase,
    ) -> Result<(), TargetError> {
        install(
            self.admin.as_mut(),
            dialect,
            &mut self.schema,
            &case.schema,
            rendered,
        )
        .await
    }

    /// Sessions set up as asked, one per entry, reusing those of earlier cases;
    /// a session already set up the same way is not set up again.
    pub async fn sessions(
        &mut self,
        setups: &[SessionSetup],
    ) -> Result<Vec<Box<dyn Session>>, TargetError> {
        while self.pool.len() < setups.len() {
            self.pool.push(Pooled {
                session: self.driver.connect().await?,
                setup: None,
            });
        }
        let mut out = Vec::with_capacity(setups.len());
        for (mut pooled, setup) in self
            .pool
            .drain(..setups.len())
            .collect::<Vec<_>>()
            .into_iter()
            .zip(setups)
        {
            if pooled.setup.as_ref() != Some(setup) {
                apply_setup(pooled.session.as_mut(), setup).await?;
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
        for setup in setups {
            apply_setup(session.as_mut(), setup).await?;
        }
        self.pool.push(Pooled {
            session,
            setup: setups.last().cloned(),
        });
        Ok(())
    }

    pub async fn read_state(&mut self, rendered: &RenderedCase) -> Result<DbState, TargetError> {
        read_tables(self.admin.as_mut(), &rendered.read_state).await
    }
}
