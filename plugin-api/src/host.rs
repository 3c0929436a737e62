//! The host side of the boundary: finding out what a library is, loading it, and
//! typed handles over the ABI objects. The host crate uses only this module and the
//! IR; abi_stable stays inside plugin-api.

use crate::abi::*;
use crate::ir::*;
use crate::sdk::export::{dialect_box, generator_box, oracle_box};
use crate::sdk::{
    catch, from_json, parse_config, to_json, Dialect, DialectPlugin, Generator, GeneratorPlugin,
    HostDb, Oracle, OraclePlugin, PluginError,
};
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::sabi_types::RMut;
use abi_stable::std_types::{RErr, ROk, RResult, RStr, RString};
use serde::de::DeserializeOwned;
use std::fmt;
use std::path::{Path, PathBuf};

/// What a library's manifest says about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestInfo {
    pub library_name: String,
    pub library_version: String,
    pub abi: AbiVersion,
    pub abi_stable_version: String,
}

/// Why a library could not be loaded. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot open {}: {reason}", path.display())]
    Open { path: PathBuf, reason: String },
    #[error("{} is not a txlab plugin: it exports no TXLAB_PLUGIN_MANIFEST", path.display())]
    NotAPlugin { path: PathBuf },
    #[error("{} has a damaged txlab manifest: {reason}", path.display())]
    BadManifest { path: PathBuf, reason: String },
    #[error(
        "{} ({} {}) was built for txlab plugin ABI {plugin}, but this txlab speaks ABI {host}: rebuild the plugin against txlab-plugin-api {host}",
        path.display(), manifest.library_name, manifest.library_version, plugin = manifest.abi, host = ABI_VERSION
    )]
    AbiMismatch {
        path: PathBuf,
        manifest: ManifestInfo,
    },
    #[error("{} ({}) was rejected by the ABI check: {summary}", path.display(), library)]
    Layout {
        path: PathBuf,
        library: String,
        summary: String,
        /// abi_stable's full report, which can run to thousands of lines.
        details: String,
    },
}

impl LoadError {
    pub fn path(&self) -> &Path {
        match self {
            LoadError::Open { path, .. }
            | LoadError::NotAPlugin { path }
            | LoadError::BadManifest { path, .. }
            | LoadError::AbiMismatch { path, .. }
            | LoadError::Layout { path, .. } => path,
        }
    }
}

/// Reads a library's manifest with libloading. The library stays loaded: plugin
/// libraries are never unloaded.
pub fn probe(path: &Path) -> Result<ManifestInfo, LoadError> {
    // SAFETY: loading a library runs its initialisers; txlab only loads files
    // from the plugin directories the user named.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| LoadError::Open {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    // SAFETY: the symbol, when present, is a `PluginManifest` static; the magic and
    // version fields are checked before anything else is read.
    let manifest = unsafe {
        let sym = lib
            .get::<*const PluginManifest>(MANIFEST_SYMBOL)
            .map_err(|_| LoadError::NotAPlugin {
                path: path.to_path_buf(),
            })?;
        let m: &PluginManifest = &**sym;
        if m.magic != MANIFEST_MAGIC {
            return Err(LoadError::BadManifest {
                path: path.to_path_buf(),
                reason: "wrong magic bytes".into(),
            });
        }
        if m.manifest_version != MANIFEST_VERSION {
            return Err(LoadError::BadManifest {
                path: path.to_path_buf(),
                reason: format!(
                    "manifest version {} (this txlab reads version {MANIFEST_VERSION})",
                    m.manifest_version
                ),
            });
        }
        ManifestInfo {
            library_name: PluginManifest::read_str(m.library_name),
            library_version: PluginManifest::read_str(m.library_version),
            abi: m.abi_version(),
            abi_stable_version: PluginManifest::read_str(m.abi_stable_version),
        }
    };
    std::mem::forget(lib);
    Ok(manifest)
}

/// One dialect, generator or oracle a library provides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryDescriptor {
    pub kind: PluginKind,
    pub name: String,
    pub version: String,
    pub description: String,
    pub default_config: String,
}

/// A loaded plugin library.
pub struct PluginLibrary {
    pub path: PathBuf,
    pub manifest: ManifestInfo,
    pub entries: Vec<EntryDescriptor>,
    root: PluginLib_Ref,
}

impl fmt::Debug for PluginLibrary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginLibrary")
            .field("path", &self.path)
            .field("manifest", &self.manifest)
            .field("entries", &self.entries)
            .finish()
    }
}

/// The lines of an abi_stable error worth showing: its first line and the
/// `Error:` lines, at most a handful.
fn summarize_library_error(text: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    if let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
        lines.push(first);
    }
    for l in text.lines().map(str::trim) {
        if l.starts_with("Error:") && !lines.contains(&l) {
            lines.push(l);
        }
        if lines.len() >= 4 {
            break;
        }
    }
    lines.join("; ")
}

impl PluginLibrary {
    /// Probes the manifest, checks the ABI version, then lets abi_stable check the
    /// layout and initialise the root module.
    pub fn load(path: &Path) -> Result<PluginLibrary, LoadError> {
        let manifest = probe(path)?;
        if !ABI_VERSION.accepts(manifest.abi) {
            return Err(LoadError::AbiMismatch {
                path: path.to_path_buf(),
                manifest,
            });
        }
        let layout_error = |e: abi_stable::library::LibraryError| {
            let details = e.to_string();
            LoadError::Layout {
                path: path.to_path_buf(),
                library: manifest.library_name.clone(),
                summary: summarize_library_error(&details),
                details,
            }
        };
        // Never `RootModule::load_from_*`: it caches one module per type, so a
        // second library would silently return the first one's module.
        let header = abi_stable::library::lib_header_from_path(path).map_err(layout_error)?;
        let root = header
            .init_root_module::<PluginLib_Ref>()
            .map_err(layout_error)?;
        (root.attach_host())(HostServicesAbi_TO::from_value(
            TracingServices {
                library: manifest.library_name.clone(),
            },
            TD_Opaque,
        ));
        let entries = (root.entries())()
            .into_iter()
            .map(|e| EntryDescriptor {
                kind: e.kind,
                name: e.name.into_string(),
                version: e.version.into_string(),
                description: e.description.into_string(),
                default_config: e.default_config.into_string(),
            })
            .collect();
        Ok(PluginLibrary {
            path: path.to_path_buf(),
            manifest,
            entries,
            root,
        })
    }

    fn label(kind: PluginKind, name: &str) -> String {
        format!("{kind} `{name}`")
    }

    pub fn new_dialect(&self, name: &str, config_json: &str) -> Result<DialectHandle, CallError> {
        let label = Self::label(PluginKind::DIALECT, name);
        let obj = (self.root.new_dialect())(name.into(), config_json.into());
        Ok(DialectHandle {
            obj: unwrap_abi(&label, "new", obj)?,
            label,
        })
    }

    pub fn new_generator(
        &self,
        name: &str,
        config_json: &str,
        ctx: &GeneratorContext,
    ) -> Result<GeneratorHandle, CallError> {
        let label = Self::label(PluginKind::GENERATOR, name);
        let ctx = encode(&label, "new", ctx)?;
        let obj = (self.root.new_generator())(name.into(), config_json.into(), ctx.as_str().into());
        Ok(GeneratorHandle {
            obj: unwrap_abi(&label, "new", obj)?,
            label,
        })
    }

    pub fn new_oracle(
        &self,
        name: &str,
        config_json: &str,
        ctx: &OracleContext,
    ) -> Result<OracleHandle, CallError> {
        let label = Self::label(PluginKind::ORACLE, name);
        let ctx = encode(&label, "new", ctx)?;
        let obj = (self.root.new_oracle())(name.into(), config_json.into(), ctx.as_str().into());
        Ok(OracleHandle {
            obj: unwrap_abi(&label, "new", obj)?,
            label,
        })
    }
}

/// Forwards plugin log events into the host's `tracing`.
struct TracingServices {
    library: String,
}

impl HostServicesAbi for TracingServices {
    fn log(&self, level: u8, target: RStr<'_>, message: RStr<'_>) {
        let (lib, target, msg) = (&self.library, target.as_str(), message.as_str());
        match level {
            1 => tracing::error!(target: "txlab::plugin", plugin = %lib, "{target}: {msg}"),
            2 => tracing::warn!(target: "txlab::plugin", plugin = %lib, "{target}: {msg}"),
            3 => tracing::info!(target: "txlab::plugin", plugin = %lib, "{target}: {msg}"),
            4 => tracing::debug!(target: "txlab::plugin", plugin = %lib, "{target}: {msg}"),
            _ => tracing::trace!(target: "txlab::plugin", plugin = %lib, "{target}: {msg}"),
        }
    }

    fn max_level(&self) -> u8 {
        use tracing::level_filters::LevelFilter;
        match LevelFilter::current() {
            LevelFilter::OFF => 0,
            LevelFilter::ERROR => 1,
            LevelFilter::WARN => 2,
            LevelFilter::INFO => 3,
            LevelFilter::DEBUG => 4,
            _ => 5,
        }
    }
}

/// A plugin call that failed, naming the plugin and the call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CallError {
    /// "oracle `wss`"
    pub plugin: String,
    pub method: &'static str,
    pub kind: ErrorKind,
    pub message: String,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind == ErrorKind::PANICKED {
            write!(f, "{} {}", self.plugin, self.message)
        } else {
            write!(
                f,
                "{} failed in `{}` ({}): {}",
                self.plugin,
                self.method,
                self.kind.name(),
                self.message
            )
        }
    }
}

impl CallError {
    fn new(plugin: &str, method: &'static str, e: PluginError) -> Self {
        CallError {
            plugin: plugin.to_string(),
            method,
            kind: e.kind,
            message: e.message,
        }
    }
}

fn unwrap_abi<T>(
    label: &str,
    method: &'static str,
    r: RResult<T, AbiError>,
) -> Result<T, CallError> {
    match r {
        ROk(v) => Ok(v),
        RErr(e) => Err(CallError::new(label, method, e.into())),
    }
}

fn encode<T: serde::Serialize>(
    label: &str,
    method: &'static str,
    v: &T,
) -> Result<String, CallError> {
    to_json(v).map_err(|e| CallError::new(label, method, e))
}

fn decode<T: DeserializeOwned>(
    label: &str,
    method: &'static str,
    r: RResult<RString, AbiError>,
) -> Result<T, CallError> {
    let json = unwrap_abi(label, method, r)?;
    from_json(method, json.as_str()).map_err(|e| {
        CallError::new(
            label,
            method,
            PluginError::internal(format!("the plugin returned malformed data: {}", e.message)),
        )
    })
}

/// A dialect instance, loaded or in-process.
pub struct DialectHandle {
    label: String,
    obj: DialectBox,
}

impl DialectHandle {
    pub fn in_process<D: Dialect>(name: &str, dialect: D) -> Self {
        DialectHandle {
            label: format!("dialect `{name}`"),
            obj: dialect_box(dialect),
        }
    }

    /// Builds an in-process dialect from its configuration, as a library would.
    pub fn from_plugin<D: DialectPlugin>(config_json: &str) -> Result<Self, CallError> {
        let label = format!("dialect `{}`", D::NAME);
        let d = catch("new", || D::new(parse_config(config_json)?))
            .map_err(|e| CallError::new(&label, "new", e))?;
        Ok(DialectHandle::in_process(D::NAME, d))
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn info(&self) -> Result<DialectInfo, CallError> {
        decode(&self.label, "info", self.obj.info())
    }

    pub fn render_case(
        &self,
        case: &TestCase,
        limits: &SessionLimits,
    ) -> Result<RenderedCase, CallError> {
        let json = encode(
            &self.label,
            "render_case",
            &RenderCaseRequest {
                case: case.clone(),
                limits: *limits,
            },
        )?;
        decode(
            &self.label,
            "render_case",
            self.obj.render_case(json.as_str().into()),
        )
    }

    pub fn render_statement(&self, request: &RenderRequest) -> Result<String, CallError> {
        let json = encode(&self.label, "render_statement", request)?;
        unwrap_abi(
            &self.label,
            "render_statement",
            self.obj.render_statement(json.as_str().into()),
        )
        .map(RString::into_string)
    }

    pub fn session_setup(&self, request: &SessionRequest) -> Result<SessionSetup, CallError> {
        let json = encode(&self.label, "session_setup", request)?;
        decode(
            &self.label,
            "session_setup",
            self.obj.session_setup(json.as_str().into()),
        )
    }

    pub fn create_table(&self, table: &Table) -> Result<Vec<String>, CallError> {
        let json = encode(&self.label, "create_table", table)?;
        decode(
            &self.label,
            "create_table",
            self.obj.create_table(json.as_str().into()),
        )
    }

    pub fn drop_table(&self, table: &Table) -> Result<String, CallError> {
        let json = encode(&self.label, "drop_table", table)?;
        unwrap_abi(
            &self.label,
            "drop_table",
            self.obj.drop_table(json.as_str().into()),
        )
        .map(RString::into_string)
    }

    pub fn classify_error(&self, error: &RawDbError) -> Result<DbError, CallError> {
        let json = encode(&self.label, "classify_error", error)?;
        decode(
            &self.label,
            "classify_error",
            self.obj.classify_error(json.as_str().into()),
        )
    }
}

/// A generator instance, loaded or in-process.
pub struct GeneratorHandle {
    label: String,
    obj: GeneratorBox,
}

impl GeneratorHandle {
    pub fn in_process<G: Generator>(name: &str, generator: G) -> Self {
        GeneratorHandle {
            label: format!("generator `{name}`"),
            obj: generator_box(generator),
        }
    }

    pub fn from_plugin<G: GeneratorPlugin>(
        config_json: &str,
        ctx: GeneratorContext,
    ) -> Result<Self, CallError> {
        let label = format!("generator `{}`", G::NAME);
        let g = catch("new", || G::new(parse_config(config_json)?, ctx))
            .map_err(|e| CallError::new(&label, "new", e))?;
        Ok(GeneratorHandle::in_process(G::NAME, g))
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn next_case(&mut self, request: CaseRequest) -> Result<TestCase, CallError> {
        let json = encode(&self.label, "next_case", &request)?;
        decode(
            &self.label,
            "next_case",
            self.obj.next_case(json.as_str().into()),
        )
    }
}

/// An oracle instance, loaded or in-process.
pub struct OracleHandle {
    label: String,
    obj: OracleBox,
}

impl OracleHandle {
    pub fn in_process<O: Oracle>(name: &str, oracle: O) -> Self {
        OracleHandle {
            label: format!("oracle `{name}`"),
            obj: oracle_box(oracle),
        }
    }

    pub fn from_plugin<O: OraclePlugin>(
        config_json: &str,
        ctx: OracleContext,
    ) -> Result<Self, CallError> {
        let label = format!("oracle `{}`", O::NAME);
        let o = catch("new", || O::new(parse_config(config_json)?, ctx))
            .map_err(|e| CallError::new(&label, "new", e))?;
        Ok(OracleHandle::in_process(O::NAME, o))
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn requirements(&self) -> Result<OracleRequirements, CallError> {
        decode(&self.label, "requirements", self.obj.requirements())
    }

    pub fn prepare(&mut self, case: &TestCase) -> Result<TestCase, CallError> {
        let json = encode(&self.label, "prepare", case)?;
        decode(
            &self.label,
            "prepare",
            self.obj.prepare(json.as_str().into()),
        )
    }

    /// Runs the oracle's check, lending it `db` for replays.
    pub fn check(&mut self, input: &CheckInput, db: &mut dyn HostDb) -> Result<Verdict, CallError> {
        let json = encode(&self.label, "check", input)?;
        let mut bridge = HostDbBridge { db };
        let db_obj = HostDbAbi_TO::from_ptr(RMut::new(&mut bridge), TD_Opaque);
        decode(
            &self.label,
            "check",
            self.obj.check(json.as_str().into(), db_obj),
        )
    }
}

/// Exposes the host's scratch database to a plugin. Host code runs behind an
/// `extern "C"` shim here too, so it is guarded like plugin code.
struct HostDbBridge<'a> {
    db: &'a mut dyn HostDb,
}

impl HostDbAbi for HostDbBridge<'_> {
    fn call(&mut self, request: RStr<'_>) -> RResult<RString, AbiError> {
        crate::sdk::guard::guard("host database", || {
            let req: HostDbRequest = from_json("host database request", request.as_str())?;
            let reply = self.db.call(req)?;
            to_json(&reply).map(RString::from)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_errors_are_summarised_to_one_line() {
        let text = "Compared <this>:\n  lots\nError:incompatible package versions\n  more\nError:too many fields\nError:x\nError:y\nError:z\n";
        let s = summarize_library_error(text);
        assert_eq!(
            s,
            "Compared <this>:; Error:incompatible package versions; Error:too many fields; Error:x"
        );
        assert!(!s.contains('\n'));
    }

    #[test]
    fn a_file_that_is_not_a_library_gives_an_open_error() {
        let dir = std::env::temp_dir().join(format!("txlab-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("libtxlab_garbage.so");
        std::fs::write(&path, b"not an ELF file").unwrap();
        let e = probe(&path).unwrap_err();
        assert!(matches!(e, LoadError::Open { .. }), "{e}");
        assert!(e.to_string().starts_with("cannot open "), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
