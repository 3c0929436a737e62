//! The SDK for plugin authors: plain Rust traits, an error type, configuration
//! parsing, and [`export_plugin!`](crate::export_plugin) to publish the library.
//!
//! A plugin implements [`Dialect`], [`Generator`] or [`Oracle`] together with the
//! matching `*Plugin` trait that names it and builds it from its configuration,
//! and lists its types in one `export_plugin!` call. The SDK wraps every entry
//! point in `catch_unwind`, so a panic becomes an error the host reports.
//!
//! A SQL dialect can leave most of its rendering to [`sql`]: it describes what
//! its DBMS spells its own way in [`sql::SqlSyntax`], and the shared renderer
//! writes the statements and tables.

/// Plumbing shared by [`export_plugin!`](crate::export_plugin) and the host's
/// loader (txlab-loader): the adapters from the SDK traits to the ABI objects,
/// JSON encoding and the panic guard. Not part of the plugin author's API.
#[doc(hidden)]
pub mod export;
mod guard;
pub mod instrument;
mod log;
pub mod sql;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use guard::catch;

pub use crate::abi::ErrorKind;
use crate::ir::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// An error a plugin returns, or the host returns to a plugin's callback.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PluginError {
    pub kind: ErrorKind,
    pub message: String,
}

impl PluginError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        PluginError {
            kind,
            message: message.into(),
        }
    }
    pub fn config(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::INVALID_CONFIG, message)
    }
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::INVALID_INPUT, message)
    }
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::UNSUPPORTED, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::INTERNAL, message)
    }
    pub fn host(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::HOST, message)
    }
}

impl From<ShapeError> for PluginError {
    fn from(e: ShapeError) -> Self {
        PluginError::invalid_input(e.to_string())
    }
}

/// Renders IR to one DBMS's SQL and classifies its errors. Pure and synchronous:
/// the host owns every connection.
pub trait Dialect: Send + Sync + 'static {
    fn info(&self) -> DialectInfo;

    /// CREATE TABLE for `table`, followed by its CREATE INDEX statements.
    fn create_table(&self, table: &Table) -> Result<Vec<String>, PluginError>;

    /// Drops the table if it exists (`DROP TABLE IF EXISTS`): the host also calls
    /// it for tables that may not exist.
    fn drop_table(&self, table: &Table) -> Result<String, PluginError>;

    /// One statement's SQL text.
    fn render(&self, statement: &Statement, ctx: &RenderContext<'_>)
        -> Result<String, PluginError>;

    /// Statements run once on every new session (timeouts, isolation level),
    /// and checks that they took effect.
    fn session_setup(&self, _request: &SessionRequest) -> Result<SessionSetup, PluginError> {
        Ok(SessionSetup::default())
    }

    /// Turns a driver error into a class the oracles understand.
    fn classify_error(&self, error: &RawDbError) -> DbError;

    /// How the host begins, commits and rolls back the transactions it runs
    /// itself; the default is the standard spelling.
    fn transaction_control(&self) -> TransactionControl {
        TransactionControl::default()
    }

    /// Reads what the dialect's lock-wait probe ([`DialectInfo::lock_probe`])
    /// returned for `reading.session`: `Some(true)` if the session waits for a
    /// lock, `Some(false)` if it does not, `None` if the reading cannot tell. The
    /// default is the generic reading, a first value that is true or non-zero
    /// ([`LockProbeReading::first_value_answer`]); a dialect whose probe returns
    /// something else (a status text, several rows) reads it here.
    fn read_lock_probe(&self, reading: &LockProbeReading) -> Option<bool> {
        reading.first_value_answer()
    }

    /// All SQL of a case, rendered once before it runs.
    fn render_case(
        &self,
        case: &TestCase,
        limits: &SessionLimits,
    ) -> Result<RenderedCase, PluginError> {
        render_case_with(self, case, limits)
    }
}

/// What a dialect may need besides the statement itself.
#[derive(Clone, Copy, Debug)]
pub struct RenderContext<'a> {
    pub schema: &'a Schema,
    /// The isolation level of the transaction the statement belongs to.
    pub isolation: IsolationLevel,
}

/// The standard way to render a whole case from a dialect's per-statement methods.
pub fn render_case_with<D: Dialect + ?Sized>(
    dialect: &D,
    case: &TestCase,
    limits: &SessionLimits,
) -> Result<RenderedCase, PluginError> {
    let schema = &case.schema;
    // Table set-up statements run outside any transaction; the level is irrelevant.
    let setup_ctx = RenderContext {
        schema,
        isolation: IsolationLevel::Serializable,
    };
    let mut out = RenderedCase {
        control: dialect.transaction_control(),
        ..RenderedCase::default()
    };
    for table in &schema.tables {
        out.create.extend(dialect.create_table(table)?);
        out.clear.push(dialect.render(
            &Statement::Delete(Delete {
                table: table.name.clone(),
                filter: None,
            }),
            &setup_ctx,
        )?);
        let columns = table.column_names();
        out.read_state.push(TableQuery {
            table: table.name.clone(),
            columns: columns.clone(),
            sql: dialect.render(
                &Statement::Select(Select {
                    table: table.name.clone(),
                    projection: Projection::All,
                    filter: None,
                    order_by: columns.iter().map(Expr::column).collect(),
                    lock: RowLock::None,
                }),
                &setup_ctx,
            )?,
        });
    }
    for table in schema.tables.iter().rev() {
        out.drop.push(dialect.drop_table(table)?);
    }
    for rows in &case.initial_rows {
        if rows.rows.is_empty() {
            continue;
        }
        out.populate.push(
            dialect.render(
                &Statement::Insert(Insert {
                    table: rows.table.clone(),
                    columns: rows.columns.clone(),
                    rows: rows
                        .rows
                        .iter()
                        .map(|r| r.iter().cloned().map(Expr::Literal).collect())
                        .collect(),
                    on_conflict: OnConflict::Error,
                }),
                &setup_ctx,
            )?,
        );
    }
    for txn in &case.transactions {
        let ctx = RenderContext {
            schema,
            isolation: txn.isolation,
        };
        out.transactions.push(RenderedTransaction {
            session: dialect.session_setup(&SessionRequest {
                isolation: txn.isolation,
                limits: *limits,
            })?,
            statements: txn
                .statements
                .iter()
                .map(|s| dialect.render(s, &ctx))
                .collect::<Result<_, _>>()?,
        });
    }
    Ok(out)
}

/// Makes test cases. A case must depend only on its [`CaseRequest`], so that a
/// seed reproduces it.
pub trait Generator: Send + 'static {
    fn next_case(&mut self, request: CaseRequest) -> Result<TestCase, PluginError>;
}

/// Judges executed cases.
pub trait Oracle: Send + 'static {
    fn requirements(&self) -> OracleRequirements {
        OracleRequirements::default()
    }

    /// Instruments a case before it runs (auxiliary columns, extra reads). The
    /// default runs it unchanged.
    fn prepare(&mut self, case: TestCase) -> Result<TestCase, PluginError> {
        Ok(case)
    }

    /// Decides whether the run violates the oracle's model. `db` is a scratch
    /// database for replays; DB errors arrive as outcomes, `Err` means the scratch
    /// database itself failed.
    fn check(&mut self, input: &CheckInput, db: &mut dyn HostDb) -> Result<Verdict, PluginError>;
}

/// The host's scratch database, as an oracle sees it.
pub trait HostDb {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError>;
}

/// Typed helpers over [`HostDb::call`].
pub trait HostDbExt: HostDb {
    fn reset(&mut self, schema: &Schema, rows: &[TableRows]) -> Result<(), PluginError> {
        expect_done(self.call(HostDbRequest::Reset {
            schema: schema.clone(),
            rows: rows.to_vec(),
        })?)
    }

    fn open_session(&mut self, isolation: IsolationLevel) -> Result<u32, PluginError> {
        match self.call(HostDbRequest::OpenSession { isolation })? {
            HostDbResponse::Session { id } => Ok(id),
            other => Err(unexpected(other)),
        }
    }

    fn execute(&mut self, session: u32, statement: &Statement) -> Result<Outcome, PluginError> {
        match self.call(HostDbRequest::Execute {
            session,
            statement: statement.clone(),
        })? {
            HostDbResponse::Outcome { outcome } => Ok(outcome),
            other => Err(unexpected(other)),
        }
    }

    fn read_state(&mut self) -> Result<DbState, PluginError> {
        match self.call(HostDbRequest::ReadState)? {
            HostDbResponse::State { state } => Ok(state),
            other => Err(unexpected(other)),
        }
    }

    /// Runs `statements` on a session in order in as few round trips as the
    /// host can (IR 1.1; see [`HostDbRequest::ExecuteEach`]): one outcome per
    /// statement run, fewer only when `until_conflict` stopped the run.
    fn execute_each(
        &mut self,
        session: u32,
        statements: Vec<Statement>,
        until_conflict: bool,
    ) -> Result<Vec<Outcome>, PluginError> {
        let sent = statements.len();
        match self.call(HostDbRequest::ExecuteEach {
            session,
            statements,
            until_conflict,
        })? {
            HostDbResponse::Outcomes { outcomes } => {
                let complete = outcomes.len() == sent
                    || (until_conflict
                        && !outcomes.is_empty()
                        && outcomes.len() < sent
                        && outcomes.last().is_some_and(Outcome::breaks_serial_run));
                if !complete {
                    return Err(PluginError::host(format!(
                        "the host ran {} of {sent} statements without saying why it stopped",
                        outcomes.len()
                    )));
                }
                Ok(outcomes)
            }
            other => Err(unexpected(other)),
        }
    }

    fn close_session(&mut self, session: u32) -> Result<(), PluginError> {
        expect_done(self.call(HostDbRequest::CloseSession { session })?)
    }

    /// Runs a whole case concurrently on the scratch database (IR 1.1; see
    /// [`HostDbRequest::RunCase`]).
    fn run_case(&mut self, case: &TestCase) -> Result<History, PluginError> {
        match self.call(HostDbRequest::RunCase { case: case.clone() })? {
            HostDbResponse::History { history } => Ok(*history),
            other => Err(unexpected(other)),
        }
    }
}

impl<T: HostDb + ?Sized> HostDbExt for T {}

/// An [`HostDbRequest::ExecuteEach`] answered one statement at a time with
/// `run`, for a host or a test double without a faster way: the outcomes of
/// the statements run, stopping with `until_conflict` after the first that
/// breaks a serial run.
pub fn execute_one_at_a_time(
    statements: &[Statement],
    until_conflict: bool,
    mut run: impl FnMut(&Statement) -> Result<Outcome, PluginError>,
) -> Result<Vec<Outcome>, PluginError> {
    let mut outcomes = Vec::with_capacity(statements.len());
    for statement in statements {
        let outcome = run(statement)?;
        let stop = until_conflict && outcome.breaks_serial_run();
        outcomes.push(outcome);
        if stop {
            break;
        }
    }
    Ok(outcomes)
}

fn expect_done(r: HostDbResponse) -> Result<(), PluginError> {
    match r {
        HostDbResponse::Done => Ok(()),
        other => Err(unexpected(other)),
    }
}

fn unexpected(r: HostDbResponse) -> PluginError {
    PluginError::host(format!("unexpected reply from the host database: {r:?}"))
}

/// Names a dialect and builds it from its configuration.
pub trait DialectPlugin: Dialect + Sized {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    /// Commented TOML with every option at its default, shown by `txlab plugins show`.
    const DEFAULT_CONFIG: &'static str = "";
    type Config: DeserializeOwned;
    fn new(config: Self::Config) -> Result<Self, PluginError>;

    /// The dialect for the server the host reached: `server` holds its
    /// version and the answer to [`DialectInfo::server_query`], so facts that
    /// changed between versions, or that a server setting decides, follow
    /// that server where the configuration leaves them open. The default
    /// ignores the server. IR 1.2.
    fn for_server(config: Self::Config, server: &ServerFacts) -> Result<Self, PluginError> {
        let _ = server;
        Self::new(config)
    }
}

/// Names a generator and builds it from its configuration.
pub trait GeneratorPlugin: Generator + Sized {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    const DEFAULT_CONFIG: &'static str = "";
    type Config: DeserializeOwned;
    fn new(config: Self::Config, ctx: GeneratorContext) -> Result<Self, PluginError>;
}

impl GeneratorContext {
    /// The levels to generate cases for; a configuration error when the
    /// pipeline names none, which no generator can work with.
    pub fn require_levels(&self) -> Result<&[IsolationLevel], PluginError> {
        if self.levels.is_empty() {
            return Err(PluginError::config(
                "the pipeline names no isolation level to generate cases for",
            ));
        }
        Ok(&self.levels)
    }
}

/// Names an oracle and builds it from its configuration.
pub trait OraclePlugin: Oracle + Sized {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    const DEFAULT_CONFIG: &'static str = "";
    type Config: DeserializeOwned;
    fn new(config: Self::Config, ctx: OracleContext) -> Result<Self, PluginError>;
}

/// Parses a plugin's configuration (the host sends its TOML table as JSON). Errors
/// name the offending key; declare the config struct with
/// `#[serde(deny_unknown_fields, default)]` so unknown keys are rejected.
pub fn parse_config<T: DeserializeOwned>(json: &str) -> Result<T, PluginError> {
    let json = if json.trim().is_empty() { "{}" } else { json };
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let msg = strip_json_position(&e.inner().to_string());
        if path == "." {
            PluginError::config(msg)
        } else {
            PluginError::config(format!("{path}: {msg}"))
        }
    })
}

/// serde_json appends "at line 1 column 40" to its messages; the position in the
/// host's JSON means nothing to a user who wrote TOML.
fn strip_json_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[doc(hidden)]
pub fn to_json<T: Serialize>(value: &T) -> Result<String, PluginError> {
    serde_json::to_string(value)
        .map_err(|e| PluginError::internal(format!("cannot encode as JSON: {e}")))
}

#[doc(hidden)]
pub fn from_json<T: DeserializeOwned>(what: &str, json: &str) -> Result<T, PluginError> {
    serde_json::from_str(json)
        .map_err(|e| PluginError::invalid_input(format!("cannot decode {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, Default)]
    #[serde(deny_unknown_fields, default)]
    struct Cfg {
        max_rows: u32,
        nested: Nested,
    }
    #[derive(Debug, Deserialize, Default)]
    #[serde(deny_unknown_fields, default)]
    struct Nested {
        level: String,
    }

    #[test]
    fn a_generator_context_without_levels_is_a_config_error() {
        let mut ctx = GeneratorContext {
            dialect: DialectInfo {
                name: "test".into(),
                driver: "sqlite".into(),
                levels: Vec::new(),
                features: Features::default(),
                lock_probe: LockProbe::None,
                session_control: SessionControl::default(),
                engine: EngineSemantics::default(),
                server_query: None,
                server: None,
            },
            levels: Vec::new(),
        };
        let e = ctx.require_levels().unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
        assert!(e.message.contains("no isolation level"), "{e}");
        ctx.levels.push(IsolationLevel::Serializable);
        assert_eq!(
            ctx.require_levels().unwrap(),
            &[IsolationLevel::Serializable]
        );
    }

    #[test]
    fn config_errors_name_the_key() {
        let e = parse_config::<Cfg>(r#"{"nested":{"levle":"x"}}"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
        assert!(
            e.message.starts_with("nested.levle: unknown field `levle`"),
            "{e}"
        );
        assert!(!e.message.contains("line"), "{e}");
        let e = parse_config::<Cfg>(r#"{"max_rows":"ten"}"#).unwrap_err();
        assert!(e.message.starts_with("max_rows: invalid type"), "{e}");
    }

    #[test]
    fn empty_config_means_defaults() {
        let c = parse_config::<Cfg>("").unwrap();
        assert_eq!(c.max_rows, 0);
    }
}
