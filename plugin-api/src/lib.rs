//! txlab's plugin interface.
//!
//! - [`ir`]: the intermediate representation every plugin sees or returns (schema,
//!   statements, test cases, histories, verdicts, dialect semantics).
//! - [`sdk`]: what plugin authors implement ([`sdk::Dialect`], [`sdk::Generator`],
//!   [`sdk::Oracle`]), [`export_plugin!`] to publish a library, and [`sdk::sql`],
//!   the SQL renderer dialects share.
//! - [`abi`]: the stable ABI underneath (abi_stable; the host side of loading is
//!   the `txlab-loader` crate).
//!
//! Whether a host loads a library depends on two versions, not on this crate's
//! version: the binary [`ABI_LINE`] (the same line, or the library is refused) and
//! the [`IR_VERSION`] (the same major and a minor no newer than the host's).
//! Their doc comments state the rules.

pub mod abi;
pub mod ir;
pub mod sdk;

pub use abi::{AbiLine, IrVersion, PluginKind, ABI_LINE, IR_VERSION, PLUGIN_API_VERSION};
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
