//! Loading one plugin library: the manifest and its versions first, then the
//! layout check against the root module of the library's IR version, then the
//! root module itself.

use crate::handles::{unwrap_abi, CallError, DialectHandle, GeneratorHandle, OracleHandle};
use crate::manifest::{self, check_versions, probe, ManifestInfo, Mismatch};
use abi_stable::library::{lib_header_from_path, LibraryError};
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::RStr;
use std::fmt;
use std::path::{Path, PathBuf};
use txlab_plugin_api::abi::{
    root_module_layout, HostServicesAbi, HostServicesAbi_TO, PluginLib_Ref,
};
use txlab_plugin_api::ir::{GeneratorContext, OracleContext, ServerFacts};
use txlab_plugin_api::PluginKind;

/// Why a library could not be loaded. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot open {}: {reason}", path.display())]
    Open { path: PathBuf, reason: String },
    #[error("{} is not a txlab plugin: it exports no TXLAB_PLUGIN_MANIFEST", path.display())]
    NotAPlugin { path: PathBuf },
    #[error("{} has a damaged or unknown txlab manifest: {reason}", path.display())]
    BadManifest { path: PathBuf, reason: String },
    /// Built for another binary ABI line.
    #[error("{}", manifest::abi_line_message(path, manifest))]
    AbiLineMismatch {
        path: PathBuf,
        manifest: Box<ManifestInfo>,
    },
    /// Built for another IR major version.
    #[error("{}", manifest::ir_major_message(path, manifest))]
    IrMajorMismatch {
        path: PathBuf,
        manifest: Box<ManifestInfo>,
    },
    /// Built for a newer IR minor version than this host reads.
    #[error("{}", manifest::ir_too_new_message(path, manifest))]
    IrTooNew {
        path: PathBuf,
        manifest: Box<ManifestInfo>,
    },
    /// abi_stable refused the library: a layout its manifest does not explain.
    #[error("{} ({library}) was rejected by the ABI check: {summary}", path.display())]
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
            | LoadError::AbiLineMismatch { path, .. }
            | LoadError::IrMajorMismatch { path, .. }
            | LoadError::IrTooNew { path, .. }
            | LoadError::Layout { path, .. } => path,
        }
    }

    /// abi_stable's full report of a layout mismatch.
    pub fn details(&self) -> Option<&str> {
        match self {
            LoadError::Layout { details, .. } => Some(details),
            _ => None,
        }
    }
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

impl PluginLibrary {
    /// Reads the manifest and checks its versions, then has abi_stable check the
    /// library's layout against the root module of the library's IR version, and
    /// initialises the root module.
    pub fn load(path: &Path) -> Result<PluginLibrary, LoadError> {
        let manifest = probe(path)?;
        let refuse = |mismatch| {
            let (path, manifest) = (path.to_path_buf(), Box::new(manifest.clone()));
            match mismatch {
                Mismatch::AbiLine => LoadError::AbiLineMismatch { path, manifest },
                Mismatch::IrMajor => LoadError::IrMajorMismatch { path, manifest },
                Mismatch::IrTooNew => LoadError::IrTooNew { path, manifest },
            }
        };
        check_versions(&manifest).map_err(refuse)?;
        let layout_error = |details: String| LoadError::Layout {
            path: path.to_path_buf(),
            library: manifest.to_string(),
            summary: crate::layout::summarize(&details),
            details,
        };
        let library_error = |e: LibraryError| layout_error(e.to_string());
        // Never `RootModule::load_from_*`: it caches one module per type, so a
        // second library would silently return the first one's module.
        let header = lib_header_from_path(path).map_err(library_error)?;
        // abi_stable refuses a library whose root module or vtables have fewer
        // fields than the expected layout, so the library is checked against the
        // layout of its own IR version. Fields the current types have beyond it
        // are read through prefix accessors, which see that the library lacks
        // them (a trait object then runs the method's default).
        let expected =
            root_module_layout(manifest.ir).expect("the IR version was checked just above");
        let found = header
            .layout()
            .ok_or_else(|| layout_error("the library publishes no layout to check".into()))?;
        abi_stable::abi_stability::check_layout_compatibility(expected, found)
            .into_result()
            .map_err(|e| layout_error(e.to_string()))?;
        // SAFETY: the layout was checked just above, against the layout of the
        // library's IR version, of which the current root module type is an
        // extension at the end (plugin-api's tests check that).
        let root = unsafe { header.init_root_module_with_unchecked_layout::<PluginLib_Ref>() }
            .map_err(library_error)?;
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
        Ok(DialectHandle::new(
            label.clone(),
            unwrap_abi(&label, "new", obj)?,
        ))
    }

    /// The dialect `name` built for the server described by `server` (IR
    /// 1.2), or `None` when the library was built for an older IR and cannot
    /// build one: its dialect then knows nothing of the server.
    pub fn new_dialect_for_server(
        &self,
        name: &str,
        config_json: &str,
        server: &ServerFacts,
    ) -> Result<Option<DialectHandle>, CallError> {
        let Some(new) = self.root.new_dialect_for_server() else {
            return Ok(None);
        };
        let label = Self::label(PluginKind::DIALECT, name);
        let server = crate::handles::encode(&label, "new_for_server", server)?;
        let obj = new(name.into(), config_json.into(), server.as_str().into());
        Ok(Some(DialectHandle::new(
            label.clone(),
            unwrap_abi(&label, "new_for_server", obj)?,
        )))
    }

    pub fn new_generator(
        &self,
        name: &str,
        config_json: &str,
        ctx: &GeneratorContext,
    ) -> Result<GeneratorHandle, CallError> {
        let label = Self::label(PluginKind::GENERATOR, name);
        let ctx = crate::handles::encode(&label, "new", ctx)?;
        let obj = (self.root.new_generator())(name.into(), config_json.into(), ctx.as_str().into());
        Ok(GeneratorHandle::new(
            label.clone(),
            unwrap_abi(&label, "new", obj)?,
        ))
    }

    pub fn new_oracle(
        &self,
        name: &str,
        config_json: &str,
        ctx: &OracleContext,
    ) -> Result<OracleHandle, CallError> {
        let label = Self::label(PluginKind::ORACLE, name);
        let ctx = crate::handles::encode(&label, "new", ctx)?;
        let obj = (self.root.new_oracle())(name.into(), config_json.into(), ctx.as_str().into());
        Ok(OracleHandle::new(
            label.clone(),
            unwrap_abi(&label, "new", obj)?,
        ))
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
