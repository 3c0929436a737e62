//! The SQLite dialect of txlab as a library; the plugin `txlab-dialect-sqlite`
//! exports [`SqliteDialect`] as it is. The modules are the pieces to reuse in a
//! dialect that builds on it:
//!
//! - [`semantics`]: the isolation level SQLite offers and what it means, with sources;
//! - [`literal`]: identifiers, literals and type names;
//! - [`syntax`]: what SQLite spells its own way in statements and expressions
//!   ([`SqliteDialect`] implements the SDK's `SqlSyntax`); the SDK's shared
//!   renderer writes the rest;
//! - [`errors`]: classification of SQLite result codes.

#![warn(missing_docs)]
// Vendor pages are cited as plain URLs in parentheses, in the docs as in the code.
#![allow(rustdoc::bare_urls)]

pub mod errors;
pub mod literal;
pub mod semantics;
pub mod syntax;

use serde::Deserialize;
use txlab_plugin_api::prelude::*;

/// The `sqlite` dialect. It is stateless: the host's driver owns the connections
/// and configures WAL mode and busy handling itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct SqliteDialect;

/// The options of the `sqlite` dialect: none; unknown keys are rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SqliteConfig {}

impl DialectPlugin for SqliteDialect {
    const NAME: &'static str = semantics::NAME;
    const DESCRIPTION: &'static str =
        "SQLite in WAL mode: serializable transactions, one writer at a time";
    const DEFAULT_CONFIG: &'static str = "# The sqlite dialect has no options.\n";
    type Config = SqliteConfig;

    fn new(_config: SqliteConfig) -> Result<Self, PluginError> {
        Ok(SqliteDialect)
    }
}

impl Dialect for SqliteDialect {
    fn info(&self) -> DialectInfo {
        semantics::info()
    }

    fn create_table(&self, table: &Table) -> Result<Vec<String>, PluginError> {
        sql::create_table(self, table)
    }

    fn drop_table(&self, table: &Table) -> Result<String, PluginError> {
        sql::drop_table(self, table)
    }

    fn render(
        &self,
        statement: &Statement,
        ctx: &RenderContext<'_>,
    ) -> Result<String, PluginError> {
        sql::render_statement(self, statement, ctx)
    }

    /// Nothing to set per session (the host's embedded driver enforces the
    /// statement and lock-wait limits itself), but a level SQLite lacks is refused
    /// here too, so that an autocommit transaction (which has no BEGIN) cannot
    /// claim it.
    fn session_setup(&self, request: &SessionRequest) -> Result<SessionSetup, PluginError> {
        semantics::check_level(request.isolation)?;
        Ok(SessionSetup::default())
    }

    fn classify_error(&self, error: &RawDbError) -> DbError {
        errors::classify(error)
    }
}
