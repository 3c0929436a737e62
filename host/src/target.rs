//! The database under test as a worker sees it: the case database (tables reset
//! per case, sessions kept open across cases), and a scratch database that oracles
//! replay on through the `HostDb` callback.

use crate::driver::{
    Driver, DriverError, Monitor, MysqlDriver, PostgresDriver, QueryResult, Session, SqliteDriver,
    SqliteOptions, Timeouts,
};
use crate::executor::ErrorClassifier;
use crate::servers::{ServerDatabases, ServerKind};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::runtime::Runtime;
use txlab_loader::{CallError, DialectHandle};
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::{HostDb, PluginError};

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error(transparent)]
    Driver(#[from] DriverError),
    #[error(transparent)]
    Plugin(#[from] CallError),
    #[error("`{sql}` failed while {during}: {message}")]
    Statement {
        sql: String,
        during: &'static str,
        message: String,
    },
    #[error(
        "the dialect needs the `{0}` driver, which this txlab does not have yet; built in: sqlite"
    )]
    NoDriver(String),
    #[error("session set-up check `{sql}` returned {got}, expected {expect}: {explain}")]
    SessionCheck {
        sql: String,
        got: String,
        expect: String,
        explain: String,
    },
}

/// Where the databases of a run live.
#[derive(Clone, Debug)]
pub enum TargetLocation {
    /// Embedded SQLite files in a directory txlab created (and removes, if temporary).
    SqliteDir(PathBuf),
    /// Databases the run creates on a server.
    Server(Arc<ServerDatabases>),
}

/// Creates a database of the run (`name` distinguishes a worker's case and
/// scratch databases) and opens a driver for it.
pub async fn open_driver(
    info: &DialectInfo,
    location: &TargetLocation,
    name: &str,
    timeouts: Timeouts,
) -> Result<Box<dyn Driver>, TargetError> {
    match (info.driver.as_str(), location) {
        ("sqlite", TargetLocation::SqliteDir(dir)) => {
            Ok(Box::new(SqliteDriver::open(SqliteOptions {
                path: dir.join(format!("{name}.db")),
                timeouts,
            })?))
        }
        ("mysql", TargetLocation::Server(server)) if server.kind == ServerKind::Mysql => {
            let db = server.create(name).await?;
            Ok(Box::new(MysqlDriver::new(
                server.url(),
                &db,
                info.lock_probe.clone(),
                info.session_control.clone(),
            )?))
        }
        ("postgres", TargetLocation::Server(server)) if server.kind == ServerKind::Postgres => {
            let db = server.create(name).await?;
            Ok(Box::new(PostgresDriver::new(
                server.url(),
                &db,
                info.lock_probe.clone(),
                info.session_control.clone(),
            )?))
        }
        (other, _) => Err(TargetError::NoDriver(other.to_string())),
    }
}

fn run_error(sql: &str, during: &'static str, e: RawDbError) -> TargetError {
    TargetError::Statement {
        sql: sql.to_string(),
        during,
        message: e.message,
    }
}

/// Converts a driver result into an outcome, classifying errors with the dialect.
pub fn to_outcome(
    result: Result<QueryResult, RawDbError>,
    statement: &Statement,
    classifier: &dyn ErrorClassifier,
) -> Result<Outcome, CallError> {
    Ok(match result {
        Ok(r) => crate::executor::success_outcome(r, statement),
        Err(raw) => Outcome::Error(classifier.classify(&raw)?),
    })
}

/// Reads every table of a case, rows in canonical order.
async fn read_tables(
    admin: &mut dyn Session,
    queries: &[TableQuery],
) -> Result<DbState, TargetError> {
    let mut state = DbState::default();
    for q in queries {
        let r = admin
            .execute(&q.sql)
            .await
            .map_err(|e| run_error(&q.sql, "reading the final state", e))?;
        state.tables.push(TableState {
            table: q.table.clone(),
            columns: q.columns.clone(),
            rows: r.rows,
        });
    }
    state.canonicalize();
    Ok(state)
}

/// Puts a schema and rows in place: drops the previous case's tables when the
/// schema changed, otherwise empties them; then loads the rows in one transaction.
async fn install(
    admin: &mut dyn Session,
    dialect: &DialectHandle,
    previous: &mut Option<Schema>,
    schema: &Schema,
    rendered: &RenderedCase,
) -> Result<(), TargetError> {
    let mut statements: Vec<(String, &'static str)> = Vec::new();
    let same = previous.as_ref() == Some(schema);
    if !same {
        // Unknown state (first use, or an earlier load failed): drop the new
        // schema's tables too, in case they are left over.
        let old = previous.take().unwrap_or_else(|| schema.clone());
        for t in old.tables.iter().rev() {
            statements.push((dialect.drop_table(t)?, "dropping the previous tables"));
        }
        for sql in &rendered.create {
            statements.push((sql.clone(), "creating the tables"));
        }
    }
    for (sql, during) in statements {
        admin
            .execute(&sql)
            .await
            .map_err(|e| run_error(&sql, during, e))?;
    }
    *previous = Some(schema.clone());
    // The cheap reset: DELETE + one multi-row INSERT per table, in one transaction.
    let mut load = vec!["BEGIN".to_string()];
    if same {
        load.extend(rendered.clear.iter().cloned());
    }
    load.extend(rendered.populate.iter().cloned());
    load.push("COMMIT".to_string());
    for sql in &load {
        if let Err(e) = admin.execute(sql).await {
            let _ = admin.execute("ROLLBACK").await;
            // Forget the schema so the next case starts from scratch.
            *previous = None;
            return Err(run_error(sql, "loading the initial rows", e));
        }
    }
    Ok(())
}

/// A value as text, the way session checks compare it.
fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Decimal(s) | Value::Text(s) => s.clone(),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// Runs a session's set-up statements, then its checks.
async fn apply_setup(session: &mut dyn Session, setup: &SessionSetup) -> Result<(), TargetError> {
    for sql in &setup.statements {
        if let Err(e) = session.execute(sql).await {
            // The checks say what the set-up needs; show that with the failure.
            let needs: Vec<&str> = setup.checks.iter().map(|c| c.explain.as_str()).collect();
            let mut error = run_error(sql, "setting up a session", e);
            if let TargetError::Statement { message, .. } = &mut error {
                if !needs.is_empty() {
                    message.push_str(&format!(" ({})", needs.join("; ")));
                }
            }
            return Err(error);
        }
    }
    for check in &setup.checks {
        let r = session
            .execute(&check.sql)
            .await
            .map_err(|e| run_error(&check.sql, "checking a session's set-up", e))?;
        let got = r
            .rows
            .first()
            .and_then(|row| row.first())
            .map(value_text)
            .unwrap_or_else(|| "no row".into());
        if got != check.expect {
            return Err(TargetError::SessionCheck {
                sql: check.sql.clone(),
                got,
                expect: check.expect.clone(),
                explain: check.explain.clone(),
            });
        }
    }
    Ok(())
}

/// A kept-open session and the set-up it last received.
struct Pooled {
    session: Box<dyn Session>,
    setup: Option<SessionSetup>,
}

/// A worker's database for running cases.
pub struct CaseDb {
    driver: Box<dyn Driver>,
    pub monitor: Box<dyn Monitor>,
    admin: Box<dyn Session>,
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
            pool: Vec::new(),
            schema: None,
        })
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
}

impl ScratchDb {
    pub fn new(
        runtime: Arc<Runtime>,
        driver: Box<dyn Driver>,
        dialect: Arc<DialectHandle>,
        limits: SessionLimits,
        admin_setup: SessionSetup,
    ) -> Self {
        ScratchDb {
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
        }
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
        let case = TestCase {
            seed: 0,
            generator: String::new(),
            schema: schema.clone(),
            initial_rows: rows,
            transactions: Vec::new(),
            submitted_order: Vec::new(),
        };
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

    fn close(&mut self, id: u32) -> Result<(), PluginError> {
        let (mut pooled, _) = self
            .sessions
            .remove(&id)
            .ok_or_else(|| PluginError::host(format!("no open scratch session {id}")))?;
        // Whatever the oracle left open must not hold locks into the next check.
        match self.runtime.block_on(pooled.session.execute("ROLLBACK")) {
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
            other => Err(PluginError::unsupported(format!(
                "this txlab does not understand the request {other:?}"
            ))),
        }
    }
}

/// A fresh directory for the embedded target's database files. Under a configured
/// path it is a new `txlab-run-*` subdirectory that is kept, so txlab never
/// writes into files it did not create; otherwise a temporary directory that is
/// removed when the returned guard drops.
pub fn sqlite_dir(
    configured: Option<&Path>,
) -> std::io::Result<(PathBuf, Option<tempfile::TempDir>)> {
    let builder = || {
        let mut b = tempfile::Builder::new();
        b.prefix("txlab-run-");
        b
    };
    match configured {
        Some(p) => {
            std::fs::create_dir_all(p)?;
            let kept = builder().tempdir_in(p)?.keep();
            Ok((kept, None))
        }
        None => {
            let t = builder().tempdir()?;
            Ok((t.path().to_path_buf(), Some(t)))
        }
    }
}
