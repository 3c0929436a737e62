//! The stable ABI between the host and plugin libraries.
//!
//! With txlab-loader (the host side), this is the only code in txlab that names
//! `abi_stable`. It is deliberately small: a root module of constructors, four
//! trait objects whose methods carry JSON-encoded IR (once per case or history,
//! never per value), an error struct, and a fixed `#[repr(C)]` manifest the host
//! reads with libloading before abi_stable looks at the library, so that a
//! mismatch gives one line instead of a layout dump.
//!
//! Two versions decide whether a host loads a library, and neither is this
//! crate's version: the binary [`ABI_LINE`] and the [`IR_VERSION`]. Evolution
//! rules: add methods and root-module fields only at the end (after the
//! `last_prefix_field` markers), with a default for what older libraries lack;
//! never reorder or remove; enums that may grow are integer newtypes. Every such
//! addition is an IR minor bump, and the root module as the previous IR minor
//! had it is kept in a frozen copy ([`ir_1_0`], [`ir_1_1`]), because abi_stable checks an
//! older library against the layout of its own version only.

#![allow(non_camel_case_types, non_local_definitions)]

use abi_stable::{
    declare_root_module_statics,
    library::RootModule,
    sabi_trait,
    sabi_types::{RMut, VersionStrings},
    std_types::{RBox, RErr, RResult, RStr, RString, RVec},
    type_layout::TypeLayout,
    StableAbi,
};
use std::ffi::{c_char, CStr};
use std::fmt;

/// Re-exports the plugin export macro (and hand-built test libraries) need, so
/// that plugin crates never name abi_stable themselves.
#[doc(hidden)]
pub mod reexport {
    pub use abi_stable::library::{
        __call_root_module_loader, CheckTypeLayout, IntoRootModuleResult, LibHeader,
        RootModuleResult,
    };
    pub use abi_stable::prefix_type::PrefixTypeTrait;
    pub use abi_stable::sabi_trait::TD_Opaque;
    pub use abi_stable::std_types::{RBox, RErr, ROk, RResult, RStr, RString, RVec};
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
    /// The library was built before the method existed (IR 1.1): what a trait
    /// object's default answers for a method missing from an older library's
    /// vtable, so that the caller can fall back to what the library's IR meant.
    pub const MISSING_METHOD: ErrorKind = ErrorKind(8);

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::INVALID_CONFIG => "invalid configuration",
            ErrorKind::INVALID_INPUT => "invalid input",
            ErrorKind::UNSUPPORTED => "unsupported",
            ErrorKind::INTERNAL => "internal error",
            ErrorKind::PANICKED => "panicked",
            ErrorKind::HOST => "host error",
            ErrorKind::UNKNOWN_ENTRY => "unknown entry",
            ErrorKind::MISSING_METHOD => "method missing from the library",
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
    /// IR 1.1: `LockProbeReading` JSON in, `Option<bool>` JSON out (does the
    /// session wait for a lock; `null`: cannot tell). A library built for IR 1.0
    /// has no such entry; the call then answers [`ErrorKind::MISSING_METHOD`].
    fn read_lock_probe(&self, reading: RStr<'_>) -> RResult<RString, AbiError> {
        let _ = reading;
        RErr(AbiError {
            kind: ErrorKind::MISSING_METHOD,
            message: RString::from(
                "the library was built for IR 1.0, before dialects read their lock probes",
            ),
        })
    }
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
    /// IR 1.2: (entry name, config JSON, `ServerFacts` JSON): the dialect for
    /// the server the host reached, whose facts follow that server's version
    /// and settings. A library built for an older IR has none; the host then
    /// keeps the dialect `new_dialect` built.
    #[sabi(missing_field(option))]
    pub new_dialect_for_server:
        extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<DialectBox, AbiError>,
}

impl RootModule for PluginLib_Ref {
    declare_root_module_statics! {PluginLib_Ref}
    const BASE_NAME: &'static str = "txlab_plugin";
    const NAME: &'static str = "txlab_plugin";
    // abi_stable refuses a library whose root module carries an older 0.y
    // version than this; it must be the ABI line, never the crate version. Here
    // `CARGO_PKG_VERSION` is the ABI line as `major.minor.0` (see build.rs).
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(env!("CARGO_PKG_VERSION"));
}

/// The root module and the dialect vtable as libraries built for IR 1.0
/// (txlab-plugin-api 0.1.x) export them: without `DialectAbi::read_lock_probe`.
///
/// abi_stable refuses a library whose root module or vtables have fewer fields
/// than the layout it is checked against, so the loader checks a library built
/// for IR 1.0 against these types, and reads the fields they lack through the
/// accessors of the current types, which see that the library has none. Never
/// change anything here: the types must stay identical, names included, to
/// what txlab-plugin-api 0.1.0 compiled. The IR 1.0 test fixture builds its
/// library from them.
#[doc(hidden)]
pub mod ir_1_0 {
    use super::{AbiError, EntryInfo, GeneratorBox, HostServicesBox, OracleBox};
    use abi_stable::{
        declare_root_module_statics,
        library::RootModule,
        sabi_trait,
        sabi_types::VersionStrings,
        std_types::{RBox, RResult, RStr, RString, RVec},
        StableAbi,
    };

    #[sabi_trait]
    pub trait DialectAbi: Send + Sync {
        fn info(&self) -> RResult<RString, AbiError>;
        fn render_case(&self, request: RStr<'_>) -> RResult<RString, AbiError>;
        fn render_statement(&self, request: RStr<'_>) -> RResult<RString, AbiError>;
        fn session_setup(&self, request: RStr<'_>) -> RResult<RString, AbiError>;
        fn create_table(&self, table: RStr<'_>) -> RResult<RString, AbiError>;
        fn drop_table(&self, table: RStr<'_>) -> RResult<RString, AbiError>;
        #[sabi(last_prefix_field)]
        fn classify_error(&self, error: RStr<'_>) -> RResult<RString, AbiError>;
    }

    pub type DialectBox = DialectAbi_TO<'static, RBox<()>>;

    #[repr(C)]
    #[derive(StableAbi)]
    #[sabi(kind(Prefix(prefix_ref = PluginLib_Ref)))]
    #[sabi(missing_field(panic))]
    pub struct PluginLib {
        pub entries: extern "C" fn() -> RVec<EntryInfo>,
        pub attach_host: extern "C" fn(HostServicesBox),
        pub new_dialect: extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<DialectBox, AbiError>,
        pub new_generator:
            extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<GeneratorBox, AbiError>,
        #[sabi(last_prefix_field)]
        pub new_oracle: extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<OracleBox, AbiError>,
    }

    impl RootModule for PluginLib_Ref {
        declare_root_module_statics! {PluginLib_Ref}
        const BASE_NAME: &'static str = "txlab_plugin";
        const NAME: &'static str = "txlab_plugin";
        const VERSION_STRINGS: VersionStrings = VersionStrings::new("0.1.0");
    }
}

/// The root module as libraries built for IR 1.1 export it: without
/// `new_dialect_for_server`. The vtables are the current ones. Never change
/// anything here (see [`ir_1_0`]); the IR 1.1 test fixture builds its library
/// from it.
#[doc(hidden)]
pub mod ir_1_1 {
    use super::{AbiError, DialectBox, EntryInfo, GeneratorBox, HostServicesBox, OracleBox};
    use abi_stable::{
        declare_root_module_statics,
        library::RootModule,
        sabi_types::VersionStrings,
        std_types::{RResult, RStr, RVec},
        StableAbi,
    };

    #[repr(C)]
    #[derive(StableAbi)]
    #[sabi(kind(Prefix(prefix_ref = PluginLib_Ref)))]
    #[sabi(missing_field(panic))]
    pub struct PluginLib {
        pub entries: extern "C" fn() -> RVec<EntryInfo>,
        pub attach_host: extern "C" fn(HostServicesBox),
        pub new_dialect: extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<DialectBox, AbiError>,
        pub new_generator:
            extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<GeneratorBox, AbiError>,
        #[sabi(last_prefix_field)]
        pub new_oracle: extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<OracleBox, AbiError>,
    }

    impl RootModule for PluginLib_Ref {
        declare_root_module_statics! {PluginLib_Ref}
        const BASE_NAME: &'static str = "txlab_plugin";
        const NAME: &'static str = "txlab_plugin";
        const VERSION_STRINGS: VersionStrings = VersionStrings::new("0.1.0");
    }
}

/// The layout of the root module a library built for `ir` exports, to check the
/// library against: the current one for the IR minors since the last addition
/// to the root module or a vtable, a frozen copy for earlier ones. `None` for an
/// IR version this crate does not read (another major, or a newer minor).
pub fn root_module_layout(ir: IrVersion) -> Option<&'static TypeLayout> {
    if ir.major != IR_VERSION.major || ir.minor > IR_VERSION.minor {
        return None;
    }
    Some(match ir.minor {
        0 => <ir_1_0::PluginLib_Ref as StableAbi>::LAYOUT,
        1 => <ir_1_1::PluginLib_Ref as StableAbi>::LAYOUT,
        _ => <PluginLib_Ref as StableAbi>::LAYOUT,
    })
}

/// The symbol under which abi_stable looks for a library's root module. It is the
/// value of `abi_stable::library::ROOT_MODULE_LOADER_NAME`; a test keeps them equal.
pub const ROOT_MODULE_SYMBOL: &str = "_1as_0lib_1header_0root_bmodule_bloader";

/// The symbol of the manifest static every plugin exports.
pub const MANIFEST_SYMBOL: &[u8] = b"TXLAB_PLUGIN_MANIFEST\0";

/// Identifies a txlab plugin manifest.
pub const MANIFEST_MAGIC: [u8; 8] = *b"TXLABPLG";

/// The manifest layout this crate writes: [`PluginManifest`]. Version 1
/// ([`ManifestV1`]) is its prefix; a host reads both.
pub const MANIFEST_VERSION: u32 = 2;

/// The binary ABI line: the layout of the root module and of the trait
/// objects' vtables, and abi_stable's own version. Rule: within a line these
/// only ever grow at the end, so a host loads every library of its line (with
/// a compatible IR version); anything else (a changed or removed method or
/// field, another abi_stable release) starts a new line, and libraries of any
/// other line are refused. Libraries built against txlab-plugin-api 0.1.x
/// (manifest version 1) are of line 0.1.
pub const ABI_LINE: AbiLine = AbiLine { major: 0, minor: 1 };

/// The version of the IR schema, `major.minor`: the JSON the host and plugins
/// exchange, and which methods the trait objects have. Rule: the minor goes up
/// for additive changes (a new optional field with a serde default, a new
/// method with a default, a new integer-newtype constant); anything else bumps
/// the major. A host loads a library built for the same major and a minor no
/// newer than its own: an older library keeps working, since the host fills in
/// the defaults of what the library does not send and answers for the methods
/// it lacks; a newer one may send what this host cannot read, so it is refused
/// at load. txlab-plugin-api 0.1.x wrote IR 1.0 (manifest version 1).
///
/// 1.1: `LockProbeReading` and `DialectAbi::read_lock_probe`; a `Query` lock
/// probe is read by the dialect; `ErrorKind::MISSING_METHOD`.
///
/// 1.2: `PluginLib::new_dialect_for_server`, `ServerFacts`,
/// `DialectInfo::server_query` and `DialectInfo::server`: a dialect's facts
/// follow the server the host reached.
pub const IR_VERSION: IrVersion = IrVersion { major: 1, minor: 2 };

/// This crate's own version, for messages ("rebuild the plugin against
/// txlab-plugin-api …"). It does not decide whether a library loads.
pub const PLUGIN_API_VERSION: &str = env!("TXLAB_PLUGIN_API_VERSION");

/// The abi_stable release this ABI is built on.
pub const ABI_STABLE_VERSION: &str = "0.11.3";

/// A binary ABI line, shown as `major.minor`; lines are equal or incompatible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AbiLine {
    pub major: u32,
    pub minor: u32,
}

impl fmt::Display for AbiLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// An IR schema version, shown as `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IrVersion {
    pub major: u32,
    pub minor: u32,
}

impl fmt::Display for IrVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The manifest as txlab-plugin-api 0.1.x wrote it (manifest version 1), which
/// is also the start of every later manifest. Frozen: never change its fields.
/// `abi_*` was the plugin-api version the library was built against; its
/// `major.minor` was the ABI line, and its IR was 1.0.
#[repr(C)]
pub struct ManifestV1 {
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
unsafe impl Sync for ManifestV1 {}

/// Read by the host with libloading before abi_stable touches the library:
/// manifest version 2, [`ManifestV1`]'s fields followed by the IR version and
/// the plugin-api version. `abi_major.abi_minor` is the ABI line, and
/// `abi_patch` is 0. Frozen for version 2: later versions only append fields.
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
    pub ir_major: u32,
    pub ir_minor: u32,
    /// The txlab-plugin-api version the library was built against.
    pub plugin_api_version: *const c_char,
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
            abi_major: ABI_LINE.major,
            abi_minor: ABI_LINE.minor,
            abi_patch: 0,
            abi_stable_version: c"0.11.3".as_ptr(),
            library_name: library_name.as_ptr().cast(),
            library_version: library_version.as_ptr().cast(),
            ir_major: IR_VERSION.major,
            ir_minor: IR_VERSION.minor,
            plugin_api_version: concat!(env!("TXLAB_PLUGIN_API_VERSION"), "\0")
                .as_ptr()
                .cast(),
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
    use abi_stable::abi_stability::check_layout_compatibility;

    #[test]
    fn root_module_symbol_matches_abi_stable() {
        assert_eq!(
            ROOT_MODULE_SYMBOL,
            abi_stable::library::ROOT_MODULE_LOADER_NAME
        );
    }

    /// abi_stable writes `CARGO_PKG_VERSION` into every layout and the root
    /// module's version strings; build.rs sets it to the ABI line, so that a
    /// new crate version does not make abi_stable refuse older libraries.
    #[test]
    fn abi_stable_sees_the_abi_line_not_the_crate_version() {
        let line = format!("{ABI_LINE}.0");
        assert_eq!(env!("CARGO_PKG_VERSION"), line);
        assert_eq!(PluginLib_Ref::VERSION_STRINGS.to_string(), line);
        let layout = <EntryInfo as StableAbi>::LAYOUT;
        assert_eq!(layout.package(), "txlab-plugin-api");
        assert_eq!(layout.package_version().to_string(), line);
        // The crate version itself is another matter.
        assert!(!PLUGIN_API_VERSION.is_empty());
        assert!(PLUGIN_API_VERSION
            .split('.')
            .all(|n| n.parse::<u32>().is_ok()));
    }

    /// The additions since IR 1.0 are at the end of the root module and the
    /// vtables: the current layout is a valid extension of the IR 1.0 one, and
    /// each readable IR version maps to its own layout. One test, because
    /// abi_stable keeps what it has checked in process-wide state: checking the
    /// current types against themselves after this would compare them with
    /// the IR 1.0 types they were merged with (the loader never does).
    #[test]
    fn the_current_root_module_extends_the_older_ones() {
        let new = <PluginLib_Ref as StableAbi>::LAYOUT;
        let frozen = [
            (0, <ir_1_0::PluginLib_Ref as StableAbi>::LAYOUT),
            (1, <ir_1_1::PluginLib_Ref as StableAbi>::LAYOUT),
        ];
        // abi_stable refuses a library with fewer vtable entries or root
        // module fields than the expected layout: that is why older libraries
        // need their own layout.
        for (minor, old) in frozen {
            let e = check_layout_compatibility(new, old)
                .unwrap_err()
                .to_string();
            assert!(e.contains("too many fields"), "IR 1.{minor}: {e}");
            let mapped = root_module_layout(IrVersion { major: 1, minor }).unwrap();
            assert_eq!(
                mapped.mod_path().to_string(),
                old.mod_path().to_string(),
                "IR 1.{minor}"
            );
        }
        // A failed check leaves no state behind; these do.
        for (_, old) in frozen {
            check_layout_compatibility(old, new).unwrap();
        }
    }

    #[test]
    fn only_readable_ir_versions_have_a_layout() {
        let v = |major, minor| IrVersion { major, minor };
        assert!(root_module_layout(v(1, 0)).is_some());
        assert!(root_module_layout(IR_VERSION).is_some());
        assert!(root_module_layout(v(1, IR_VERSION.minor + 1)).is_none());
        assert!(root_module_layout(v(2, 0)).is_none());
        assert!(root_module_layout(v(0, 9)).is_none());
    }

    #[test]
    fn versions_show_as_major_dot_minor() {
        assert_eq!(ABI_LINE.to_string(), "0.1");
        assert_eq!(IR_VERSION.to_string(), "1.2");
        assert!(IrVersion { major: 1, minor: 0 } < IR_VERSION);
    }

    /// Manifest version 2 starts with version 1's fields, at the same offsets.
    #[test]
    fn the_manifest_v1_prefix_is_unchanged() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<ManifestV1>(), 48);
        assert_eq!(offset_of!(ManifestV1, manifest_version), 8);
        assert_eq!(offset_of!(ManifestV1, abi_patch), 20);
        assert_eq!(offset_of!(ManifestV1, library_version), 40);
        macro_rules! same {
            ($($f:ident),*) => {$(
                assert_eq!(offset_of!(ManifestV1, $f), offset_of!(PluginManifest, $f));
            )*};
        }
        same!(
            magic,
            manifest_version,
            abi_major,
            abi_minor,
            abi_patch,
            abi_stable_version,
            library_name,
            library_version
        );
        assert_eq!(offset_of!(PluginManifest, ir_major), 48);
        let m = PluginManifest::new("x\0", "1\0");
        assert_eq!((m.abi_major, m.abi_minor), (ABI_LINE.major, ABI_LINE.minor));
        assert_eq!(
            (m.ir_major, m.ir_minor),
            (IR_VERSION.major, IR_VERSION.minor)
        );
        // SAFETY: `new` stores static NUL-terminated strings.
        unsafe {
            assert_eq!(
                PluginManifest::read_str(m.plugin_api_version),
                PLUGIN_API_VERSION
            );
            assert_eq!(PluginManifest::read_str(m.abi_stable_version), "0.11.3");
        }
    }
}
