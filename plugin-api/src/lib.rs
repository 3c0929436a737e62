//! txlab's plugin interface.
//!
//! - [`ir`]: the intermediate representation every plugin sees or returns (schema,
//!   statements, test cases, histories, verdicts, dialect semantics).
//! - [`sdk`]: what plugin authors implement ([`sdk::Dialect`], [`sdk::Generator`],
//!   [`sdk::Oracle`]), [`export_plugin!`] to publish a library, and [`sdk::sql`],
//!   the SQL renderer dialects share.
//! - [`host`]: what the host uses to load libraries and call their entries.
//! - [`abi`]: the stable ABI underneath (abi_stable, confined to this crate).
//!
//! The crate version is the ABI version: a host loads plugins built against the
//! same 0.y line (and no older patch). Bump it whenever [`ir`] or [`abi`] change.

pub mod abi;
pub mod host;
pub mod ir;
pub mod sdk;

pub use abi::{AbiVersion, PluginKind, ABI_VERSION};
pub use sdk::PluginError;

/// Everything a plugin crate usually needs: `use txlab_plugin_api::prelude::*;`.
pub mod prelude {
    pub use crate::export_plugin;
    pub use crate::ir::*;
    pub use crate::sdk::sql::{self, SqlSyntax};
    pub use crate::sdk::{
        parse_config, render_case_with, Dialect, DialectPlugin, ErrorKind, Generator,
        GeneratorPlugin, HostDb, HostDbExt, Oracle, OraclePlugin, PluginError, RenderContext,
    };
}
