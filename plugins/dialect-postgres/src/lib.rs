//! txlab dialect plugin for PostgreSQL (15, 16, 17) and CockroachDB (23.2, 24.x).
//!
//! Two entries share one implementation, asking [`flavor::Flavor`] where the two
//! DBMSs differ:
//! - `semantics`: the isolation levels each offers and what they mean, with sources;
//! - `literal` and `expr`: identifiers, literals, type names and expressions;
//! - `render`: statements and table DDL;
//! - `session`: the per-session set-up and its checks;
//! - `errors`: classification of SQLSTATEs.

mod errors;
mod expr;
mod flavor;
mod literal;
mod render;
mod semantics;
mod session;

use flavor::Flavor;
use serde::Deserialize;
use session::SessionOptions;
use txlab_plugin_api::prelude::*;

/// The `postgres` dialect. The host's driver owns the connections.
#[derive(Clone, Copy, Debug, Default)]
pub struct PostgresDialect {
    options: SessionOptions,
}

/// Options of the `postgres` entry; unknown keys are rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PostgresConfig {
    /// `deadlock_timeout` for every session, in milliseconds.
    pub deadlock_timeout_ms: Option<u64>,
}

impl DialectPlugin for PostgresDialect {
    const NAME: &'static str = "postgres";
    const DESCRIPTION: &'static str =
        "PostgreSQL 15-17: read committed, repeatable read (snapshot isolation), serializable (SSI)";
    const DEFAULT_CONFIG: &'static str = "\
# PostgreSQL 15, 16 and 17.
#
# How long a statement waits for a lock before PostgreSQL checks for a deadlock,
# in milliseconds, set on every session. Changing it needs a superuser or a role
# granted SET on the parameter; the run stops if it does not take effect.
# Unset: the server's value (1000 ms by default).
# deadlock_timeout_ms = 1000
";
    type Config = PostgresConfig;

    fn new(config: PostgresConfig) -> Result<Self, PluginError> {
        if let Some(ms) = config.deadlock_timeout_ms {
            if ms == 0 || ms > i32::MAX as u64 {
                return Err(PluginError::config(format!(
                    "deadlock_timeout_ms: {ms} is out of range; PostgreSQL takes 1 to {} ms",
                    i32::MAX
                )));
            }
        }
        Ok(PostgresDialect {
            options: SessionOptions {
                deadlock_timeout_ms: config.deadlock_timeout_ms,
            },
        })
    }
}

impl Dialect for PostgresDialect {
    fn info(&self) -> DialectInfo {
        semantics::info(Flavor::Postgres)
    }

    fn create_table(&self, table: &Table) -> Result<Vec<String>, PluginError> {
        render::create_table(Flavor::Postgres, table)
    }

    fn drop_table(&self, table: &Table) -> Result<String, PluginError> {
        render::drop_table(Flavor::Postgres, table)
    }

    fn render(
        &self,
        statement: &Statement,
        ctx: &RenderContext<'_>,
    ) -> Result<String, PluginError> {
        render::statement(Flavor::Postgres, statement, ctx)
    }

    fn session_setup(&self, request: &SessionRequest) -> Result<SessionSetup, PluginError> {
        session::setup(Flavor::Postgres, request, self.options)
    }

    fn classify_error(&self, error: &RawDbError) -> DbError {
        errors::classify(error)
    }
}

/// The `cockroachdb` dialect.
#[derive(Clone, Copy, Debug, Default)]
pub struct CockroachDialect;

/// The cockroachdb entry has no options; unknown keys are rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CockroachConfig {}

impl DialectPlugin for CockroachDialect {
    const NAME: &'static str = "cockroachdb";
    const DESCRIPTION: &'static str =
        "CockroachDB 23.2 and 24.x: serializable (timestamp ordering) and read committed";
    const DEFAULT_CONFIG: &'static str = "\
# CockroachDB 23.2 and 24.x. The cockroachdb dialect has no options.
#
# READ COMMITTED needs the cluster setting
#   SET CLUSTER SETTING sql.txn.read_committed_isolation.enabled = true;
# (the default from v24.1); otherwise the session set-up check stops the run.
";
    type Config = CockroachConfig;

    fn new(_config: CockroachConfig) -> Result<Self, PluginError> {
        Ok(CockroachDialect)
    }
}

impl Dialect for CockroachDialect {
    fn info(&self) -> DialectInfo {
        semantics::info(Flavor::Cockroach)
    }

    fn create_table(&self, table: &Table) -> Result<Vec<String>, PluginError> {
        render::create_table(Flavor::Cockroach, table)
    }

    fn drop_table(&self, table: &Table) -> Result<String, PluginError> {
        render::drop_table(Flavor::Cockroach, table)
    }

    fn render(
        &self,
        statement: &Statement,
        ctx: &RenderContext<'_>,
    ) -> Result<String, PluginError> {
        render::statement(Flavor::Cockroach, statement, ctx)
    }

    fn session_setup(&self, request: &SessionRequest) -> Result<SessionSetup, PluginError> {
        session::setup(Flavor::Cockroach, request, SessionOptions::default())
    }

    fn classify_error(&self, error: &RawDbError) -> DbError {
        errors::classify(error)
    }
}

export_plugin! {
    dialects: [PostgresDialect, CockroachDialect],
    generators: [],
    oracles: [],
}
