//! `MemoryDb`: the host's scratch database as an in-memory interpreter of the IR.

use crate::engine::{self, check_not_null, check_unique, Rows};
use crate::eval::{convert, EvalError};
use std::collections::BTreeMap;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::execute_one_at_a_time;

/// An in-memory database behind the [`HostDb`] interface.
///
/// Meant for serial replays: a transaction works on a private copy of the tables
/// taken at BEGIN and installs it at COMMIT. A COMMIT after another session
/// changed the database since that BEGIN fails with a serialization failure
/// instead of silently overwriting the other session's work. Statement errors
/// are statement-scoped: the transaction goes on, as in MySQL.
///
/// `RunCase` runs the case's transactions one after another, in the order
/// they start in its submitted order ([`serial_history`](crate::serial_history)):
/// a serial run, which every isolation level allows; the database is left
/// with the case's schema and final rows.
#[derive(Debug, Default)]
pub struct MemoryDb {
    schema: Schema,
    committed: Vec<Rows>,
    /// Bumped by every change to `committed`, to detect overlapping transactions.
    version: u64,
    sessions: BTreeMap<u32, Session>,
    next_session: u32,
    log: Vec<HostDbRequest>,
}

#[derive(Debug)]
struct Session {
    isolation: IsolationLevel,
    transaction: Option<OpenTransaction>,
}

#[derive(Debug)]
struct OpenTransaction {
    base_version: u64,
    tables: Vec<Rows>,
}

impl MemoryDb {
    pub fn new() -> Self {
        Self::default()
    }

    /// A database already reset to `schema` and `rows`.
    pub fn with_rows(schema: &Schema, rows: &[TableRows]) -> Result<Self, PluginError> {
        let mut db = Self::new();
        db.reset(schema, rows)?;
        Ok(db)
    }

    /// Sessions opened and not yet closed.
    pub fn open_sessions(&self) -> usize {
        self.sessions.len()
    }

    /// The isolation level a session was opened at.
    pub fn session_isolation(&self, session: u32) -> Option<IsolationLevel> {
        self.sessions.get(&session).map(|s| s.isolation)
    }

    /// Every request received so far, in order.
    pub fn log(&self) -> &[HostDbRequest] {
        &self.log
    }

    /// The committed contents of every table, canonicalized.
    pub fn state(&self) -> DbState {
        let mut state = DbState {
            tables: self
                .schema
                .tables
                .iter()
                .zip(&self.committed)
                .map(|(table, rows)| TableState {
                    table: table.name.clone(),
                    columns: table.column_names(),
                    rows: rows.clone(),
                })
                .collect(),
        };
        state.canonicalize();
        state
    }

    fn handle(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        match request {
            HostDbRequest::Reset { schema, rows } => {
                self.load(schema, &rows)?;
                Ok(HostDbResponse::Done)
            }
            HostDbRequest::OpenSession { isolation } => {
                let id = self.next_session;
                self.next_session += 1;
                self.sessions.insert(
                    id,
                    Session {
                        isolation,
                        transaction: None,
                    },
                );
                Ok(HostDbResponse::Session { id })
            }
            HostDbRequest::Execute { session, statement } => {
                let outcome = self.execute_on(session, &statement)?;
                Ok(HostDbResponse::Outcome { outcome })
            }
            HostDbRequest::ExecuteEach {
                session,
                statements,
                until_conflict,
            } => {
                let outcomes = execute_one_at_a_time(&statements, until_conflict, |s| {
                    self.execute_on(session, s)
                })?;
                Ok(HostDbResponse::Outcomes { outcomes })
            }
            HostDbRequest::ReadState => Ok(HostDbResponse::State {
                state: self.state(),
            }),
            HostDbRequest::CloseSession { session } => {
                self.sessions
                    .remove(&session)
                    .ok_or_else(|| unknown_session(session))?;
                Ok(HostDbResponse::Done)
            }
            HostDbRequest::RunCase { case } => {
                case.validate().map_err(|e| {
                    PluginError::invalid_input(format!("the case to run is not valid: {e}"))
                })?;
                // serial_history panics on rows that do not fit; refuse them here.
                MemoryDb::with_rows(&case.schema, &case.initial_rows)?;
                let mut order: Vec<usize> = Vec::new();
                for at in &case.submitted_order {
                    if !order.contains(&at.txn()) {
                        order.push(at.txn());
                    }
                }
                let history = crate::history::serial_history(&case, &order);
                let rows: Vec<TableRows> = history
                    .final_state
                    .iter()
                    .flat_map(|state| &state.tables)
                    .map(|t| TableRows {
                        table: t.table.clone(),
                        columns: t.columns.clone(),
                        rows: t.rows.clone(),
                    })
                    .collect();
                self.load(case.schema.clone(), &rows)?;
                Ok(HostDbResponse::History {
                    history: Box::new(history),
                })
            }
            other => Err(PluginError::unsupported(format!(
                "the in-memory database does not handle {other:?}"
            ))),
        }
    }

    fn load(&mut self, schema: Schema, rows: &[TableRows]) -> Result<(), PluginError> {
        let invalid = |e: EvalError| PluginError::invalid_input(format!("cannot reset: {e}"));
        let mut tables: Vec<Rows> = vec![Vec::new(); schema.tables.len()];
        for (i, table) in schema.tables.iter().enumerate() {
            if schema.tables[..i].iter().any(|t| t.name == table.name) {
                return Err(PluginError::invalid_input(format!(
                    "cannot reset: table `{}` is defined twice",
                    table.name
                )));
            }
            engine::keys(table).map_err(invalid)?;
        }
        for initial in rows {
            let index = schema
                .tables
                .iter()
                .position(|t| t.name == initial.table)
                .ok_or_else(|| {
                    PluginError::invalid_input(format!(
                        "cannot reset: unknown table `{}`",
                        initial.table
                    ))
                })?;
            let table = &schema.tables[index];
            let positions = initial
                .columns
                .iter()
                .map(|name| {
                    table
                        .columns
                        .iter()
                        .position(|c| &c.name == name)
                        .ok_or_else(|| {
                            PluginError::invalid_input(format!(
                                "cannot reset: unknown column `{name}` in table `{}`",
                                table.name
                            ))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            for values in &initial.rows {
                if values.len() != positions.len() {
                    return Err(PluginError::invalid_input(format!(
                        "cannot reset: a row of `{}` has {} values for {} columns",
                        table.name,
                        values.len(),
                        positions.len()
                    )));
                }
                let mut row = vec![Value::Null; table.columns.len()];
                for (&p, value) in positions.iter().zip(values) {
                    row[p] = convert(value.clone(), table.columns[p].ty).map_err(invalid)?;
                }
                check_not_null(table, &row).map_err(invalid)?;
                tables[index].push(row);
            }
            check_unique(table, &tables[index]).map_err(invalid)?;
        }
        self.schema = schema;
        self.committed = tables;
        self.version += 1;
        // Transactions begun before the reset saw tables that no longer exist.
        for session in self.sessions.values_mut() {
            session.transaction = None;
        }
        Ok(())
    }

    fn execute_on(&mut self, id: u32, statement: &Statement) -> Result<Outcome, PluginError> {
        let session = self
            .sessions
            .get_mut(&id)
            .ok_or_else(|| unknown_session(id))?;
        let outcome = match statement {
            // The interpreter's snapshot is taken at BEGIN in either form.
            Statement::Begin | Statement::BeginSnapshot => match session.transaction {
                Some(_) => Outcome::Error(DbError {
                    class: ErrorClass::Other,
                    scope: ErrorScope::Statement,
                    code: None,
                    sqlstate: None,
                    message: "a transaction is already open on this session".into(),
                }),
                None => {
                    session.transaction = Some(OpenTransaction {
                        base_version: self.version,
                        tables: self.committed.clone(),
                    });
                    Outcome::Done
                }
            },
            Statement::Commit => match session.transaction.take() {
                None => Outcome::Done,
                Some(txn) if txn.base_version != self.version => Outcome::Error(DbError {
                    class: ErrorClass::SerializationFailure,
                    scope: ErrorScope::Transaction,
                    code: None,
                    sqlstate: None,
                    message: "another session changed the database since BEGIN".into(),
                }),
                Some(txn) => {
                    if txn.tables != self.committed {
                        self.committed = txn.tables;
                        self.version += 1;
                    }
                    Outcome::Done
                }
            },
            Statement::Rollback => {
                session.transaction = None;
                Outcome::Done
            }
            data => match &mut session.transaction {
                Some(txn) => engine::execute(&self.schema, &mut txn.tables, data),
                None => {
                    let outcome = engine::execute(&self.schema, &mut self.committed, data);
                    if matches!(outcome, Outcome::Affected { rows } if rows > 0) {
                        self.version += 1;
                    }
                    outcome
                }
            },
        };
        Ok(outcome)
    }
}

fn unknown_session(id: u32) -> PluginError {
    PluginError::invalid_input(format!("no open session with id {id}"))
}

impl HostDb for MemoryDb {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        self.log.push(request.clone());
        self.handle(request)
    }
}
