//! The PostgreSQL (15, 16, 17) and CockroachDB (23.2, 24.x) dialects of txlab as a
//! library.
//!
//! Two dialects share one implementation, asking [`flavor::Flavor`] where the two
//! DBMSs differ. The plugin `txlab-dialect-postgres` exports them as they are; a
//! dialect for another server of the family can wrap one, delegate what stays the
//! same and export the wrapper from a plugin crate of its own. The modules are the
//! pieces to reuse:
//! - [`flavor`]: the two DBMSs ([`Flavor`] implements the SDK's `SqlSyntax`);
//! - [`semantics`]: the isolation levels each offers and what they mean, with sources;
//! - [`literal`]: identifiers, literals and type names;
//! - [`syntax`]: what the two spell their own way in statements and expressions;
//!   the SDK's shared renderer writes the rest;
//! - [`session`]: the per-session set-up and its checks;
//! - [`errors`]: classification of SQLSTATEs.

#![warn(missing_docs)]
// Vendor pages are cited as plain URLs in parentheses, in the docs as in the code.
#![allow(rustdoc::bare_urls)]

pub mod errors;
pub mod flavor;
pub mod literal;
pub mod semantics;
pub mod session;
pub mod syntax;

pub use flavor::Flavor;
pub use session::SessionOptions;

use serde::Deserialize;
use txlab_plugin_api::prelude::*;

/// The `postgres` dialect. The host's driver owns the connections. Build it with
/// `DialectPlugin::new` from a [`PostgresConfig`].
#[derive(Clone, Debug, Default)]
pub struct PostgresDialect {
    options: SessionOptions,
    /// The server it was built for, if it was built for one.
    server: Option<ServerFacts>,
}

/// The options of the `postgres` dialect, the pipeline's `[target.config]`; unknown
/// keys are rejected.
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
            server: None,
        })
    }

    fn for_server(config: PostgresConfig, server: &ServerFacts) -> Result<Self, PluginError> {
        Ok(PostgresDialect {
            server: Some(server.clone()),
            ..Self::new(config)?
        })
    }
}

impl PostgresDialect {
    /// The DBMS this dialect renders for.
    pub const FLAVOR: Flavor = Flavor::Postgres;

    /// The options its sessions get, for [`session::setup`].
    pub fn session_options(&self) -> SessionOptions {
        self.options
    }

    /// The server this dialect was built for, if it was built for one.
    pub fn server(&self) -> Option<&ServerFacts> {
        self.server.as_ref()
    }
}

/// The `cockroachdb` dialect. It has no options.
#[derive(Clone, Copy, Debug, Default)]
pub struct CockroachDialect;

/// The options of the `cockroachdb` dialect: none; unknown keys are rejected.
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

impl CockroachDialect {
    /// The DBMS this dialect renders for.
    pub const FLAVOR: Flavor = Flavor::Cockroach;

    /// The options its sessions get, for [`session::setup`]: the defaults.
    pub fn session_options(&self) -> SessionOptions {
        SessionOptions::default()
    }

    /// CockroachDB's facts do not follow the server.
    pub fn server(&self) -> Option<&ServerFacts> {
        None
    }
}

/// The two entries share their implementation: each names its flavor and the
/// options its sessions get.
macro_rules! delegate_to_flavor {
    ($($dialect:ty),*) => {$(
        impl Dialect for $dialect {
            fn info(&self) -> DialectInfo {
                let mut info = semantics::info(Self::FLAVOR);
                info.server = self.server().cloned();
                info
            }

            fn create_table(&self, table: &Table) -> Result<Vec<String>, PluginError> {
                sql::create_table(&Self::FLAVOR, table)
            }

            fn drop_table(&self, table: &Table) -> Result<String, PluginError> {
                sql::drop_table(&Self::FLAVOR, table)
            }

            fn render(
                &self,
                statement: &Statement,
                ctx: &RenderContext<'_>,
            ) -> Result<String, PluginError> {
                sql::render_statement(&Self::FLAVOR, statement, ctx)
            }

            fn session_setup(
                &self,
                request: &SessionRequest,
            ) -> Result<SessionSetup, PluginError> {
                session::setup(Self::FLAVOR, request, self.session_options())
            }

            fn classify_error(&self, error: &RawDbError) -> DbError {
                errors::classify(error)
            }
        }
    )*};
}

delegate_to_flavor!(PostgresDialect, CockroachDialect);
