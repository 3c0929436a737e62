//! The plugin side of the boundary: adapters from the SDK traits to the ABI trait
//! objects, and the tables behind [`export_plugin!`](crate::export_plugin). The
//! host's loader (txlab-loader) uses the adapters for in-process plugins, and the
//! JSON helpers and the panic guard for the host database it lends to oracles.

use super::{
    parse_config, Dialect, DialectPlugin, Generator, GeneratorPlugin, HostDb, Oracle, OraclePlugin,
    PluginError, RenderContext,
};
use crate::abi::*;
use crate::ir::*;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RErr, ROk, RResult, RStr, RString, RVec};

pub use super::guard::{catch, guard};
pub use super::{from_json, to_json};

/// Wraps an SDK dialect as an ABI object. Also used by the host for in-process plugins.
pub fn dialect_box<D: Dialect>(dialect: D) -> DialectBox {
    DialectAbi_TO::from_value(DialectAdapter(dialect), TD_Opaque)
}

pub fn generator_box<G: Generator>(generator: G) -> GeneratorBox {
    GeneratorAbi_TO::from_value(GeneratorAdapter(generator), TD_Opaque)
}

pub fn oracle_box<O: Oracle>(oracle: O) -> OracleBox {
    OracleAbi_TO::from_value(OracleAdapter(oracle), TD_Opaque)
}

fn json_out<T: serde::Serialize>(v: &T) -> Result<RString, PluginError> {
    to_json(v).map(RString::from)
}

struct DialectAdapter<D>(D);

impl<D: Dialect> DialectAbi for DialectAdapter<D> {
    fn info(&self) -> RResult<RString, AbiError> {
        guard("info", || json_out(&self.0.info()))
    }

    fn render_case(&self, request: RStr<'_>) -> RResult<RString, AbiError> {
        guard("render_case", || {
            let req: RenderCaseRequest = from_json("render request", request.as_str())?;
            json_out(&self.0.render_case(&req.case, &req.limits)?)
        })
    }

    fn render_statement(&self, request: RStr<'_>) -> RResult<RString, AbiError> {
        guard("render_statement", || {
            let req: RenderRequest = from_json("render request", request.as_str())?;
            let ctx = RenderContext {
                schema: &req.schema,
                isolation: req.isolation,
            };
            self.0.render(&req.statement, &ctx).map(RString::from)
        })
    }

    fn session_setup(&self, request: RStr<'_>) -> RResult<RString, AbiError> {
        guard("session_setup", || {
            let req: SessionRequest = from_json("session request", request.as_str())?;
            json_out(&self.0.session_setup(&req)?)
        })
    }

    fn create_table(&self, table: RStr<'_>) -> RResult<RString, AbiError> {
        guard("create_table", || {
            let table: Table = from_json("table", table.as_str())?;
            json_out(&self.0.create_table(&table)?)
        })
    }

    fn drop_table(&self, table: RStr<'_>) -> RResult<RString, AbiError> {
        guard("drop_table", || {
            let table: Table = from_json("table", table.as_str())?;
            self.0.drop_table(&table).map(RString::from)
        })
    }

    fn classify_error(&self, error: RStr<'_>) -> RResult<RString, AbiError> {
        guard("classify_error", || {
            let raw: RawDbError = from_json("database error", error.as_str())?;
            json_out(&self.0.classify_error(&raw))
        })
    }

    fn read_lock_probe(&self, reading: RStr<'_>) -> RResult<RString, AbiError> {
        guard("read_lock_probe", || {
            let reading: LockProbeReading = from_json("lock probe reading", reading.as_str())?;
            json_out(&self.0.read_lock_probe(&reading))
        })
    }
}

struct GeneratorAdapter<G>(G);

impl<G: Generator> GeneratorAbi for GeneratorAdapter<G> {
    fn next_case(&mut self, request: RStr<'_>) -> RResult<RString, AbiError> {
        guard("next_case", || {
            let req: CaseRequest = from_json("case request", request.as_str())?;
            json_out(&self.0.next_case(req)?)
        })
    }
}

struct OracleAdapter<O>(O);

impl<O: Oracle> OracleAbi for OracleAdapter<O> {
    fn requirements(&self) -> RResult<RString, AbiError> {
        guard("requirements", || json_out(&self.0.requirements()))
    }

    fn prepare(&mut self, case: RStr<'_>) -> RResult<RString, AbiError> {
        guard("prepare", || {
            let case: TestCase = from_json("test case", case.as_str())?;
            json_out(&self.0.prepare(case)?)
        })
    }

    fn check(&mut self, input: RStr<'_>, db: HostDbRef<'_>) -> RResult<RString, AbiError> {
        guard("check", || {
            let input: CheckInput = from_json("check input", input.as_str())?;
            let mut db = ForeignHostDb(db);
            json_out(&self.0.check(&input, &mut db)?)
        })
    }
}

/// The host's database as seen from inside a plugin.
struct ForeignHostDb<'a>(HostDbRef<'a>);

impl HostDb for ForeignHostDb<'_> {
    fn call(&mut self, request: HostDbRequest) -> Result<HostDbResponse, PluginError> {
        let json = to_json(&request)?;
        match self.0.call(RStr::from(json.as_str())) {
            ROk(reply) => from_json("host database reply", reply.as_str()),
            RErr(e) => Err(e.into()),
        }
    }
}

/// (config JSON, `ServerFacts` JSON when built for a server).
type NewDialect = fn(&str, Option<&str>) -> Result<DialectBox, PluginError>;
type NewGenerator = fn(&str, &str) -> Result<GeneratorBox, PluginError>;
type NewOracle = fn(&str, &str) -> Result<OracleBox, PluginError>;

/// One entry of a library, with its constructor.
pub struct ExportedEntry<F> {
    pub name: &'static str,
    pub description: &'static str,
    pub default_config: &'static str,
    pub make: F,
}

impl ExportedEntry<NewDialect> {
    pub const fn dialect<D: DialectPlugin>() -> Self {
        ExportedEntry {
            name: D::NAME,
            description: D::DESCRIPTION,
            default_config: D::DEFAULT_CONFIG,
            make: new_dialect::<D>,
        }
    }
}

impl ExportedEntry<NewGenerator> {
    pub const fn generator<G: GeneratorPlugin>() -> Self {
        ExportedEntry {
            name: G::NAME,
            description: G::DESCRIPTION,
            default_config: G::DEFAULT_CONFIG,
            make: new_generator::<G>,
        }
    }
}

impl ExportedEntry<NewOracle> {
    pub const fn oracle<O: OraclePlugin>() -> Self {
        ExportedEntry {
            name: O::NAME,
            description: O::DESCRIPTION,
            default_config: O::DEFAULT_CONFIG,
            make: new_oracle::<O>,
        }
    }
}

fn new_dialect<D: DialectPlugin>(
    config: &str,
    server: Option<&str>,
) -> Result<DialectBox, PluginError> {
    let config = parse_config::<D::Config>(config)?;
    let dialect = match server {
        None => D::new(config)?,
        Some(server) => {
            let server: ServerFacts = from_json("server facts", server)?;
            D::for_server(config, &server)?
        }
    };
    Ok(dialect_box(dialect))
}

fn new_generator<G: GeneratorPlugin>(config: &str, ctx: &str) -> Result<GeneratorBox, PluginError> {
    let config = parse_config::<G::Config>(config)?;
    let ctx: GeneratorContext = from_json("generator context", ctx)?;
    Ok(generator_box(G::new(config, ctx)?))
}

fn new_oracle<O: OraclePlugin>(config: &str, ctx: &str) -> Result<OracleBox, PluginError> {
    let config = parse_config::<O::Config>(config)?;
    let ctx: OracleContext = from_json("oracle context", ctx)?;
    Ok(oracle_box(O::new(config, ctx)?))
}

/// Everything a library exports; built by `export_plugin!`.
pub struct ExportedLibrary {
    pub version: &'static str,
    pub dialects: &'static [ExportedEntry<NewDialect>],
    pub generators: &'static [ExportedEntry<NewGenerator>],
    pub oracles: &'static [ExportedEntry<NewOracle>],
}

fn find<'a, F>(
    entries: &'a [ExportedEntry<F>],
    kind: &str,
    name: &str,
) -> Result<&'a F, PluginError> {
    entries
        .iter()
        .find(|e| e.name == name)
        .map(|e| &e.make)
        .ok_or_else(|| {
            PluginError::new(
                ErrorKind::UNKNOWN_ENTRY,
                format!("this library has no {kind} named `{name}`"),
            )
        })
}

impl ExportedLibrary {
    pub fn entries(&self) -> RVec<EntryInfo> {
        fn push<F>(
            out: &mut RVec<EntryInfo>,
            kind: PluginKind,
            version: &str,
            list: &[ExportedEntry<F>],
        ) {
            for e in list {
                out.push(EntryInfo {
                    kind,
                    name: e.name.into(),
                    version: version.into(),
                    description: e.description.into(),
                    default_config: e.default_config.into(),
                });
            }
        }
        let mut out = RVec::new();
        push(&mut out, PluginKind::DIALECT, self.version, self.dialects);
        push(
            &mut out,
            PluginKind::GENERATOR,
            self.version,
            self.generators,
        );
        push(&mut out, PluginKind::ORACLE, self.version, self.oracles);
        out
    }

    pub fn new_dialect(&self, name: RStr<'_>, config: RStr<'_>) -> RResult<DialectBox, AbiError> {
        guard("new", || {
            (find(self.dialects, "dialect", name.as_str())?)(config.as_str(), None)
        })
    }

    pub fn new_dialect_for_server(
        &self,
        name: RStr<'_>,
        config: RStr<'_>,
        server: RStr<'_>,
    ) -> RResult<DialectBox, AbiError> {
        guard("new_for_server", || {
            (find(self.dialects, "dialect", name.as_str())?)(config.as_str(), Some(server.as_str()))
        })
    }

    pub fn new_generator(
        &self,
        name: RStr<'_>,
        config: RStr<'_>,
        ctx: RStr<'_>,
    ) -> RResult<GeneratorBox, AbiError> {
        guard("new", || {
            (find(self.generators, "generator", name.as_str())?)(config.as_str(), ctx.as_str())
        })
    }

    pub fn new_oracle(
        &self,
        name: RStr<'_>,
        config: RStr<'_>,
        ctx: RStr<'_>,
    ) -> RResult<OracleBox, AbiError> {
        guard("new", || {
            (find(self.oracles, "oracle", name.as_str())?)(config.as_str(), ctx.as_str())
        })
    }

    /// The root module for this library's exported statics.
    pub fn root_module(
        entries: extern "C" fn() -> RVec<EntryInfo>,
        new_dialect: extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<DialectBox, AbiError>,
        new_generator: extern "C" fn(
            RStr<'_>,
            RStr<'_>,
            RStr<'_>,
        ) -> RResult<GeneratorBox, AbiError>,
        new_oracle: extern "C" fn(RStr<'_>, RStr<'_>, RStr<'_>) -> RResult<OracleBox, AbiError>,
        new_dialect_for_server: extern "C" fn(
            RStr<'_>,
            RStr<'_>,
            RStr<'_>,
        ) -> RResult<DialectBox, AbiError>,
    ) -> PluginLib_Ref {
        use abi_stable::prefix_type::PrefixTypeTrait;
        PluginLib {
            entries,
            attach_host,
            new_dialect,
            new_generator,
            new_oracle,
            new_dialect_for_server,
        }
        .leak_into_prefix()
    }
}

extern "C" fn attach_host(host: HostServicesBox) {
    // Logging set-up must not unwind into the host either.
    let _ = super::guard::catch("attach_host", || {
        super::log::attach(host);
        Ok(())
    });
}

/// Publishes a plugin library: its manifest, its root module, and its entries.
///
/// ```ignore
/// txlab_plugin_api::export_plugin! {
///     dialects: [SqliteDialect],
///     generators: [],
///     oracles: [],
/// }
/// ```
///
/// Link at most one plugin crate into any binary: every library exports the same
/// two symbols.
#[macro_export]
macro_rules! export_plugin {
    (
        dialects: [$($dialect:ty),* $(,)?],
        generators: [$($generator:ty),* $(,)?],
        oracles: [$($oracle:ty),* $(,)?] $(,)?
    ) => {
        #[doc(hidden)]
        pub static TXLAB_EXPORTED_LIBRARY: $crate::sdk::export::ExportedLibrary =
            $crate::sdk::export::ExportedLibrary {
                version: env!("CARGO_PKG_VERSION"),
                dialects: &[$($crate::sdk::export::ExportedEntry::dialect::<$dialect>()),*],
                generators: &[$($crate::sdk::export::ExportedEntry::generator::<$generator>()),*],
                oracles: &[$($crate::sdk::export::ExportedEntry::oracle::<$oracle>()),*],
            };

        #[doc(hidden)]
        #[no_mangle]
        pub static TXLAB_PLUGIN_MANIFEST: $crate::abi::PluginManifest =
            $crate::abi::PluginManifest::new(
                concat!(env!("CARGO_PKG_NAME"), "\0"),
                concat!(env!("CARGO_PKG_VERSION"), "\0"),
            );

        const _: () = {
            use $crate::abi::reexport as __r;

            extern "C" fn __entries() -> __r::RVec<$crate::abi::EntryInfo> {
                TXLAB_EXPORTED_LIBRARY.entries()
            }
            extern "C" fn __new_dialect(
                name: __r::RStr<'_>,
                config: __r::RStr<'_>,
            ) -> __r::RResult<$crate::abi::DialectBox, $crate::abi::AbiError> {
                TXLAB_EXPORTED_LIBRARY.new_dialect(name, config)
            }
            extern "C" fn __new_generator(
                name: __r::RStr<'_>,
                config: __r::RStr<'_>,
                ctx: __r::RStr<'_>,
            ) -> __r::RResult<$crate::abi::GeneratorBox, $crate::abi::AbiError> {
                TXLAB_EXPORTED_LIBRARY.new_generator(name, config, ctx)
            }
            extern "C" fn __new_oracle(
                name: __r::RStr<'_>,
                config: __r::RStr<'_>,
                ctx: __r::RStr<'_>,
            ) -> __r::RResult<$crate::abi::OracleBox, $crate::abi::AbiError> {
                TXLAB_EXPORTED_LIBRARY.new_oracle(name, config, ctx)
            }
            extern "C" fn __new_dialect_for_server(
                name: __r::RStr<'_>,
                config: __r::RStr<'_>,
                server: __r::RStr<'_>,
            ) -> __r::RResult<$crate::abi::DialectBox, $crate::abi::AbiError> {
                TXLAB_EXPORTED_LIBRARY.new_dialect_for_server(name, config, server)
            }
            fn __root_module() -> $crate::abi::PluginLib_Ref {
                $crate::sdk::export::ExportedLibrary::root_module(
                    __entries,
                    __new_dialect,
                    __new_generator,
                    __new_oracle,
                    __new_dialect_for_server,
                )
            }
            extern "C" fn __erased_root_module() -> __r::RootModuleResult {
                __r::__call_root_module_loader(__root_module)
            }

            // What abi_stable's `#[export_root_module]` generates, spelled out so that
            // plugin crates need not depend on abi_stable.
            #[no_mangle]
            #[allow(non_upper_case_globals)]
            static _1as_0lib_1header_0root_bmodule_bloader: __r::LibHeader = unsafe {
                __r::LibHeader::from_constructor::<$crate::abi::PluginLib_Ref>(
                    __erased_root_module,
                    __r::CheckTypeLayout::Yes,
                )
            };
        };
    };
}
