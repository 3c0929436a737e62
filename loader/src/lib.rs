//! txlab's plugin loader: the host side of the plugin boundary.
//!
//! - [`registry`]: finding plugin libraries in the search directories, and the
//!   (kind, name) registry of their entries;
//! - [`probe`] and [`PluginLibrary::load`]: reading a library's manifest with
//!   libloading, checking its ABI line and IR version, having abi_stable check
//!   its layout, and loading it; every refusal is one line ([`LoadError`]);
//! - [`DialectHandle`], [`GeneratorHandle`], [`OracleHandle`]: typed calls into
//!   a loaded entry, or into an SDK type built in-process (for plugin tests),
//!   with JSON-encoded IR underneath; failures are [`CallError`]s naming the
//!   plugin and the method.
//!
//! Plugins depend on `txlab-plugin-api` only; this crate is for the host and for
//! tests.

mod handles;
mod layout;
mod library;
mod manifest;
pub mod registry;

pub use handles::{CallError, DialectHandle, GeneratorHandle, OracleHandle};
pub use library::{EntryDescriptor, LoadError, PluginLibrary};
pub use manifest::{probe, ManifestInfo};
