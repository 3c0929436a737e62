//! The stable ABI between the host and plugin libraries.
//!
//! This is the only module in txlab that names `abi_stable`. It is deliberately
//! small: a root module of constructors, four trait objects whose methods carry
//! JSON-encoded IR (once per case or history, never per value), an error struct,
//! and a fixed `#[repr(C)]` manifest the host reads with libloading before
//! abi_stable looks at the library, so that a mismatch gives one line instead of a
//! layout dump.
//!
//! Evolution rules: add methods and root-module fields only at the end (after the
//! `last_prefix_field` markers), never reorder or remove; enums that may grow are
//! integer newtypes. Any change here or in [`crate::ir`] bumps the crate version,
//! which is the ABI version.

#![allow(non_camel_case_types, non_local_definitions)]

use abi_stable::{
    declare_root_module_statics,
    library::RootModule,
    package_version_strings, sabi_trait,
    sabi_types::{RMut, VersionStrings},
    std_types::{RBox, RResult, RStr, RString, RVec},
    StableAbi,
};
use std::ffi::{c_char, CStr};
use std::fmt;

/// Re-exports the plugin export macro needs, so that plugin crates never name
/// abi_stable themselves.
#[doc(hidden)]
pub mod reexport {
    pub use abi_stable::library::{
        __call_root_module_loader, CheckTypeLayout, IntoRootModuleResult, LibHeader,
        RootModuleResult,
    };
    pub use abi_stable::prefix_type::PrefixTypeTrait;
    pub use abi_stable::std_types::{RResult, RStr, RVec};
}

/// A plugin kind, as an integer so that new kinds do not change the layout.
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PluginKind(pub u8);

impl PluginKind {
    pub const DIALECT: PluginKind = PluginKind(1);
    pub const GENERATOR: PluginKind = PluginKind(2);
    pub const ORACLE: PluginKind = PluginKind(3);

    pub fn name(self) -> &'static str {
        match self {
            PluginKind::DIALECT => "dialect",
            PluginKind::GENERATOR => "generator",
            PluginKind::ORACLE => "oracle",
            _ => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<PluginKind> {
        match s {
            "dialect" => Some(PluginKind::DIALECT),
            "generator" => Some(PluginKind::GENERATOR),
            "oracle" => Some(PluginKind::ORACLE),
            _ => None,
        }
    }
}

impl fmt::Display for PluginKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What went wrong inside a plugin call, as an integer for the same reason.
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorKind(pub u32);

impl ErrorKind {
    /// The plugin's configuration table is wrong.
    pub const INVALID_CONFIG: ErrorKind = ErrorKind(1);
    /// The input (case, history, request) cannot be handled.
    pub const INVALID_INPUT: ErrorKind = ErrorKind(2);
    /// The plugin does not support what was asked.
    pub const UNSUPPORTED: ErrorKind = ErrorKind(3);
    /// A bug or failure inside the plugin.
    pub const INTERNAL: ErrorKind = ErrorKind(4);
    /// The plugin panicked; the panic was caught at the boundary.
    pub const PANICKED: ErrorKind = ErrorKind(5);
    /// A host callback (the scratch database) failed.
    pub const HOST: ErrorKind = ErrorKind(6);
    /// No entry of that kind and name in the library.
    pub const UNKNOWN_ENTRY: ErrorKind = ErrorKind(7);

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::INVALID_CONFIG => "invalid configuration",
            ErrorKind::INVALID_INPUT => "invalid input",
            ErrorKind::UNSUPPORTED => "unsupported",
            ErrorKind::INTERNAL => "internal error",
            ErrorKind::PANICKED => "panicked",
            ErrorKind::HOST => "host error",
            ErrorKind::UNKNOWN_ENTRY => "unknown entry",
            _ => "error",
        }
    }
}

#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct AbiError {
    pub kind: ErrorKind,
    pub message: RString,
}

/// One entry of a library: a dialect, generator or oracle it provides.
#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct EntryInfo {
    pub kind: PluginKind,
    pub name: RString,
    pub version: RString,
    pub description: RString,
    /// Commented TOML of the entry's configuration with its defaults.
    pub default_config: RString,
}

/// A dialect: renders IR to SQL and classifies errors. All methods are pure.
#[sabi_trait]
pub trait DialectAbi: Send + Sync {
    /// `DialectInfo` as JSON.
    fn info(&self) -> RResult<RString, AbiError>;
    /// `RenderCaseRequest` JSON in, `RenderedCase` JSON out.
    fn render_case(&self, request: RStr<'_>) -> RResult<RString, AbiError>;
    /// `RenderRequest` JSON in, SQL text out.
    fn render_statement(&self, request: RStr<'_>) -> RResult<RString, AbiError>;
    /// `SessionRequest` JSON in, `SessionSetup` JSON out.
    fn session_setup(&self, request: RStr<'_>) -> RResult<RString, AbiError>;
    /// `Table` JSON in, `Vec<String>` JSON out (CREATE TABLE, CREATE INDEX).
    fn create_table(&self, table: RStr<'_>) -> RResult<RString, AbiError>;
    /// `Table` JSON in, DROP TABLE text out.
    fn drop_table(&self, table: RStr<'_>) -> RResult<RString, AbiError>;
    /// `RawDbError` JSON in, `DbError` JSON out.
    #[sabi(last_prefix_field)]
    fn classify_error(&self, error: RStr<'_>) -> RResult<RString, AbiError>;
}

/// A generator: makes test cases from seeds.
#[sabi_trait]
pub trait GeneratorAbi: Send {
    /// `CaseRequest` JSON in, `TestCase` JSON out.
    #[sabi(last_prefix_field)]
    fn next_case(&mut self, request: RStr<'_>) -> RResult<RString, AbiError>;
}

/// The host's scratch database, lent to an oracle for the duration of `check`.
#[sabi_trait]
pub trait HostDbAbi {
    /// `HostDbRequest` JSON in, `HostDbResponse` JSON out.
    #[sabi(last_prefix_field)]
    fn call(&mut self, request: RStr<'_>) -> RResult<RString, AbiError>;
}

pub type HostDbRef<'a> = HostDbAbi_TO<'a, RMut<'a, ()>>;

/// An oracle: instruments cases and judges their histories.
#[sabi_trait]
pub trait OracleAbi: Send {
    /// `OracleRequirements` JSON.
    fn requirements(&self) -> RResult<RString, AbiError>;
    /// `TestCase` JSON in, instrumented `TestCase` JSON out.
    fn prepare(&mut self, case: RStr<'_>) -> RResult<RString, AbiError>;
    /// `CheckInput` JSON in, `Verdict` JSON out.
    #[sabi(last_prefix_field)]
    fn check(&mut self, input: RStr<'_>, db: HostDbRef<'_>) -> RResult<RString, AbiError>;
}

/// Services the host offers every plugin: a log sink, since each library has its
/// own copy of the `tracing` globals.
#[sabi_trait]
pub trait HostServicesAbi: Send + Sync {
    /// `level`: 1 error … 5 trace.
    fn log(&self, level: u8, target: RStr<'_>, message: RStr<'_>);
    /// The most verbose level the host will print (0 = nothing).
    #[sabi(last_prefix_field)]
    fn max_level(&self) -> u8;
}

pub type DialectBox = DialectAbi_TO<'static, RBox<()>>;
pub type GeneratorBox = GeneratorAbi_TO<'static, RBox<()>>;
pub type OracleBox = OracleAbi_TO<'static, RBox<()>>;
pub type HostServicesBox = HostServicesAbi_TO<'static, RBox<()>>;

/// The root module every plugin library exports.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginLib_Ref)))]
#[sabi(missing_field(panic))]
pub struct PluginLib {
    pub entries: extern "C" fn() -> RVec<EntryInfo>,
    pub attach_host: extern "C" fn(HostServicesBox),
    /// (entry name, config JSON)
    pub new_dialect: extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<DialectBox, AbiError>,
    /// (entry name, config JSON, `GeneratorContext` JSON)
    pub new_generator:
        extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<GeneratorBox, AbiError>,
    /// (entry name, config JSON, `OracleContext` JSON)
    #[sabi(last_prefix_field)]
    pub new_oracle: extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<OracleBox, AbiError>,
}

impl RootModule for PluginLib_Ref {
    declare_root_module_statics! {PluginLib_Ref}
    const BASE_NAME: &'static str = "txlab_plugin";
    const NAME: &'static str = "txlab_plugin";
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}

/// The symbol under which abi_stable looks for a library's root module. It is the
/// value of `abi_stable::library::ROOT_MODULE_LOADER_NAME`; a test keeps them equal.
pub const ROOT_MODULE_SYMBOL: &str = "_1as_0lib_1header_0root_bmodule_bloader";

/// The symbol of the manifest static every plugin exports.
pub const MANIFEST_SYMBOL: &[u8] = b"TXLAB_PLUGIN_MANIFEST\0";

/// Identifies a txlab plugin manifest.
pub const MANIFEST_MAGIC: [u8; 8] = *b"TXLABPLG";

/// The manifest layout version; the struct below never changes for a given value.
pub const MANIFEST_VERSION: u32 = 1;

/// The version of this ABI: the version of the plugin-api crate.
pub const ABI_VERSION: AbiVersion = AbiVersion {
    major: parse_u32(env!("CARGO_PKG_VERSION_MAJOR")),
    minor: parse_u32(env!("CARGO_PKG_VERSION_MINOR")),
    patch: parse_u32(env!("CARGO_PKG_VERSION_PATCH")),
};

/// The abi_stable release this ABI is built on.
pub const ABI_STABLE_VERSION: &str = "0.11.3";

const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut i = 0;
    let mut v = 0u32;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbiVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl AbiVersion {
    /// Whether a plugin built against `plugin` can be loaded by a host speaking
    /// `self`: the same semver-compatible line (0.y or x), and no older than the
    /// host within it, since vtables and root modules only grow at the end.
    pub fn accepts(self, plugin: AbiVersion) -> bool {
        if self.major != plugin.major {
            return false;
        }
        if self.major == 0 {
            self.minor == plugin.minor && plugin.patch >= self.patch
        } else {
            plugin.minor >= self.minor
        }
    }
}

impl fmt::Display for AbiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Read by the host with libloading before abi_stable touches the library. Frozen
/// for `MANIFEST_VERSION` 1: never change its fields.
#[repr(C)]
pub struct PluginManifest {
    pub magic: [u8; 8],
    pub manifest_version: u32,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub abi_patch: u32,
    /// NUL-terminated strings with static lifetime.
    pub abi_stable_version: *const c_char,
    pub library_name: *const c_char,
    pub library_version: *const c_char,
}

// SAFETY: the pointers refer to immutable NUL-terminated static strings.
unsafe impl Sync for PluginManifest {}

impl PluginManifest {
    /// The manifest of a library built against this plugin-api. Both strings must
    /// end in NUL; the export macro passes `concat!(…, "\0")`.
    pub const fn new(library_name: &'static str, library_version: &'static str) -> Self {
        PluginManifest {
            magic: MANIFEST_MAGIC,
            manifest_version: MANIFEST_VERSION,
            abi_major: ABI_VERSION.major,
            abi_minor: ABI_VERSION.minor,
            abi_patch: ABI_VERSION.patch,
            abi_stable_version: c"0.11.3".as_ptr(),
            library_name: library_name.as_ptr().cast(),
            library_version: library_version.as_ptr().cast(),
        }
    }

    pub fn abi_version(&self) -> AbiVersion {
        AbiVersion {
            major: self.abi_major,
            minor: self.abi_minor,
            patch: self.abi_patch,
        }
    }

    /// # Safety
    /// `ptr` must be null or point to a NUL-terminated string.
    pub unsafe fn read_str(ptr: *const c_char) -> String {
        if ptr.is_null() {
            return String::new();
        }
        CStr::from_ptr(ptr).to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_module_symbol_matches_abi_stable() {
        assert_eq!(
            ROOT_MODULE_SYMBOL,
            abi_stable::library::ROOT_MODULE_LOADER_NAME
        );
    }

    #[test]
    fn abi_version_is_the_crate_version() {
        assert_eq!(ABI_VERSION.to_string(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn version_compatibility() {
        let v = |major, minor, patch| AbiVersion {
            major,
            minor,
            patch,
        };
        assert!(v(0, 1, 0).accepts(v(0, 1, 0)));
        assert!(v(0, 1, 0).accepts(v(0, 1, 3)));
        assert!(!v(0, 1, 2).accepts(v(0, 1, 1)));
        assert!(!v(0, 1, 0).accepts(v(0, 2, 0)));
        assert!(!v(0, 2, 0).accepts(v(0, 1, 0)));
        assert!(v(1, 2, 0).accepts(v(1, 3, 0)));
        assert!(!v(1, 2, 0).accepts(v(1, 1, 0)));
        assert!(!v(1, 0, 0).accepts(v(2, 0, 0)));
    }
}
