//! A worker's case database: the tables reset per case, sessions kept open
//! across cases.

use super::install::{apply_setup, install, read_tables};
use super::{bounded, Database, InstalledTables, TargetError};
use crate::driver::{Deadlines, Driver, Interrupt, Monitor, Session};
use std::sync::Arc;
use std::time::{Duration, Instant};
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::*;

/// A kept-open session and the set-up it last received.
pub(super) struct Pooled {
    pub(super) session: Box<dyn Session>,
    pub(super) setup: Option<SessionSetup>,
}

impl Pooled {
    fn node(&self) -> usize {
        self.session.key().node
    }
}

/// What the nodes of a cluster held after a case.
#[derive(Debug, Default)]
pub struct NodesRead {
    /// Nodes whose tables still differed from the first node's when the
    /// host stopped waiting.
    pub disagreeing: Vec<NodeState>,
    /// How long the host waited for them to agree.
    pub waited: Duration,
}

/// How often a node that does not yet hold the first node's tables is read
/// again.
const NODE_POLL: Duration = Duration::from_millis(5);

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
    /// One session per node after the first of a cluster, to read its
    /// tables; empty for one server.
    node_readers: Vec<Box<dyn Session>>,
    /// How long to wait for a cluster's nodes to agree.
    replication_timeout: Duration,
    /// Whether a case's transactions go to a cluster's nodes in turn (the
    /// default) or all to the first node.
    spread: bool,
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
        let node_readers =
            open_node_readers(driver.as_ref(), admin_setup, deadlines, &interrupt).await?;
        Ok(CaseDb {
            driver,
            monitor,
            admin,
            admin_setup: admin_setup.clone(),
            pool: Vec::new(),
            tables: InstalledTables::default(),
            deadlines,
            interrupt,
            node_readers,
            replication_timeout: Duration::from_secs(10),
            spread: true,
            stale: false,
            batch: true,
        })
    }

    /// How long to wait for a cluster's nodes to agree (after loading the
    /// tables, and before the final state counts as read).
    pub fn set_replication_timeout(&mut self, timeout: Duration) {
        self.replication_timeout = timeout;
    }

    /// How many nodes the target has.
    pub fn nodes(&self) -> usize {
        self.driver.nodes()
    }

    /// Runs every transaction on the first node of a cluster (the executor
    /// bench measures one node's lock waits).
    pub fn keep_to_first_node(&mut self) {
        self.spread = false;
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
        self.node_readers = open_node_readers(
            self.driver.as_ref(),
            &self.admin_setup,
            self.deadlines,
            &self.interrupt,
        )
        .await?;
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
        self.check(result)?;
        if !self.node_readers.is_empty() {
            // Every node must hold the case's tables before a transaction
            // runs there.
            let (_, read) = self
                .read_nodes(rendered, "loading the case's tables")
                .await?;
            if let Some(behind) = read.disagreeing.first() {
                let e = TargetError::Replication(format!(
                    "node {} did not hold the case's tables as node 1 loaded them within {} ms",
                    behind.node + 1,
                    read.waited.as_millis()
                ));
                self.tables.forget();
                return Err(e);
            }
        }
        Ok(())
    }

    /// Reads every node until all hold the same tables, or the replication
    /// timeout passes: the first node's state, and the nodes that still
    /// differed from it. Each round reads the first node again too: it may
    /// itself not have applied another node's commit yet.
    async fn read_nodes(
        &mut self,
        rendered: &RenderedCase,
        during: &str,
    ) -> Result<(DbState, NodesRead), TargetError> {
        let started = Instant::now();
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        let batch = self.batch;
        loop {
            let first = self.read_state(rendered).await?;
            let mut disagreeing = Vec::new();
            for (i, reader) in self.node_readers.iter_mut().enumerate() {
                let node = i as u32 + 1;
                let read = read_tables(reader.as_mut(), &rendered.read_state, batch);
                let what = format!("reading node {} while {during}", node + 1);
                // A table the node has not created yet reads as an error:
                // not replicated yet, as long as the wait lasts.
                let state = match bounded(deadline, &interrupt, &what, read).await {
                    Ok(state) => Some(state),
                    Err(e @ (TargetError::NoAnswer(_) | TargetError::Interrupted)) => {
                        return Err(e)
                    }
                    Err(_) => None,
                };
                if state.as_ref() != Some(&first) {
                    disagreeing.push(NodeState {
                        node,
                        state: state.unwrap_or_default(),
                    });
                }
            }
            let waited = started.elapsed();
            if disagreeing.is_empty() || waited >= self.replication_timeout {
                return Ok((
                    first,
                    NodesRead {
                        disagreeing,
                        waited,
                    },
                ));
            }
            if interrupt
                .or_stop(tokio::time::sleep(NODE_POLL))
                .await
                .is_none()
            {
                return Err(TargetError::Interrupted);
            }
        }
    }

    /// The final state on the first node, and on a cluster the nodes that
    /// still differ from it once they had the replication timeout to agree
    /// (the first node's state is then the one read last).
    pub async fn read_final_states(
        &mut self,
        rendered: &RenderedCase,
    ) -> Result<(DbState, NodesRead), TargetError> {
        if self.node_readers.is_empty() {
            let first = self.read_state(rendered).await?;
            return Ok((first, NodesRead::default()));
        }
        let read = self.read_nodes(rendered, "reading the final state").await;
        self.check(read)
    }

    /// Sessions set up as asked, one per entry, reusing those of earlier cases;
    /// a session already set up the same way is not set up again.
    ///
    /// On a cluster, entry `i` gets a session on [`CaseDb::node_of`]`(i)`.
    pub async fn sessions(
        &mut self,
        setups: &[SessionSetup],
    ) -> Result<Vec<Box<dyn Session>>, TargetError> {
        let nodes = self.nodes();
        for node in 0..nodes {
            let need = (0..setups.len())
                .filter(|&i| self.node_of(i) == node)
                .count();
            let have = self.pool.iter().filter(|p| p.node() == node).count();
            for _ in have..need {
                let session = match self.interrupt.or_stop(self.driver.connect_to(node)).await {
                    None => Err(TargetError::Interrupted),
                    Some(connected) => connected.map_err(TargetError::from),
                };
                let session = self.check(session)?;
                self.pool.push(Pooled {
                    session,
                    setup: None,
                });
            }
        }
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        let batch = self.batch;
        let mut out = Vec::with_capacity(setups.len());
        // With fewer round trips, each set-up takes a kept session of its
        // node already set up that way where there is one; the others take
        // the first ones of their node left.
        let mut chosen: Vec<Option<Pooled>> = setups.iter().map(|_| None).collect();
        if batch {
            for (i, (slot, setup)) in chosen.iter_mut().zip(setups).enumerate() {
                if let Some(at) = self
                    .pool
                    .iter()
                    .position(|p| p.node() == self.node_of(i) && p.setup.as_ref() == Some(setup))
                {
                    *slot = Some(self.pool.remove(at));
                }
            }
        }
        for (i, slot) in chosen.iter_mut().enumerate() {
            if slot.is_none() {
                let at = self
                    .pool
                    .iter()
                    .position(|p| p.node() == self.node_of(i))
                    .expect("a session of every node was connected above");
                *slot = Some(self.pool.remove(at));
            }
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

    /// The node transaction `txn` of a case runs on.
    pub fn node_of(&self, txn: usize) -> usize {
        if self.spread {
            txn % self.nodes()
        } else {
            0
        }
    }

    pub async fn read_state(&mut self, rendered: &RenderedCase) -> Result<DbState, TargetError> {
        let (deadline, interrupt) = (self.deadlines.statement, self.interrupt.clone());
        let read = read_tables(self.admin.as_mut(), &rendered.read_state, self.batch);
        let result = bounded(deadline, &interrupt, "reading the final state", read).await;
        self.check(result)
    }
}

/// Sessions that read the tables of a cluster's nodes after the first, set
/// up as the loading session is; none for one server.
async fn open_node_readers(
    driver: &dyn Driver,
    admin_setup: &SessionSetup,
    deadlines: Deadlines,
    interrupt: &Interrupt,
) -> Result<Vec<Box<dyn Session>>, TargetError> {
    let mut readers = Vec::new();
    for node in 1..driver.nodes() {
        let mut reader = match interrupt.or_stop(driver.connect_to(node)).await {
            None => return Err(TargetError::Interrupted),
            Some(connected) => connected?,
        };
        bounded(
            deadlines.statement,
            interrupt,
            "setting up a session",
            apply_setup(reader.as_mut(), admin_setup, false),
        )
        .await?;
        readers.push(reader);
    }
    Ok(readers)
}
