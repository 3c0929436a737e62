//! Typed handles over the ABI objects of dialects, generators and oracles,
//! loaded from a library or built in-process from an SDK type.

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::sabi_types::RMut;
use abi_stable::std_types::{RErr, ROk, RResult, RStr, RString};
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::OnceLock;
use txlab_plugin_api::abi::*;
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::export::{
    catch, dialect_box, from_json, generator_box, guard, oracle_box, to_json,
};
use txlab_plugin_api::sdk::{
    parse_config, Dialect, DialectPlugin, Generator, GeneratorPlugin, HostDb, Oracle, OraclePlugin,
    PluginError,
};

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

pub(crate) fn unwrap_abi<T>(
    label: &str,
    method: &'static str,
    r: RResult<T, AbiError>,
) -> Result<T, CallError> {
    match r {
        ROk(v) => Ok(v),
        RErr(e) => Err(CallError::new(label, method, e.into())),
    }
}

pub(crate) fn encode<T: serde::Serialize>(
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
    /// The lock probe of a dialect built for IR 1.0, learnt from its `info` the
    /// first time a reading has to be answered for it.
    ir_1_0_probe: OnceLock<LockProbe>,
}

impl DialectHandle {
    pub(crate) fn new(label: String, obj: DialectBox) -> Self {
        DialectHandle {
            label,
            obj,
            ir_1_0_probe: OnceLock::new(),
        }
    }

    pub fn in_process<D: Dialect>(name: &str, dialect: D) -> Self {
        DialectHandle::new(format!("dialect `{name}`"), dialect_box(dialect))
    }

    /// Builds an in-process dialect from its configuration, as a library would.
    pub fn from_plugin<D: DialectPlugin>(config_json: &str) -> Result<Self, CallError> {
        let label = format!("dialect `{}`", D::NAME);
        let d = catch("new", || D::new(parse_config(config_json)?))
            .map_err(|e| CallError::new(&label, "new", e))?;
        Ok(DialectHandle::in_process(D::NAME, d))
    }

    /// [`DialectHandle::from_plugin`] for the server described by `server`.
    pub fn from_plugin_for_server<D: DialectPlugin>(
        config_json: &str,
        server: &ServerFacts,
    ) -> Result<Self, CallError> {
        let label = format!("dialect `{}`", D::NAME);
        let d = catch("new_for_server", || {
            D::for_server(parse_config(config_json)?, server)
        })
        .map_err(|e| CallError::new(&label, "new_for_server", e))?;
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

    /// Whether the session `reading.session` waits for a lock, as the dialect
    /// reads what its lock probe ([`DialectInfo::lock_probe`]) returned:
    /// `Some(true)` it waits, `Some(false)` it does not, `None` cannot tell.
    ///
    /// A dialect built for IR 1.0 cannot read probes; for it this answers what
    /// IR 1.0 meant. A `Query` probe is read by the generic rule
    /// ([`LockProbeReading::first_value_answer`]). `InnodbStatus` was read by
    /// the IR 1.0 host itself, and this host cannot tell.
    pub fn read_lock_probe(&self, reading: &LockProbeReading) -> Result<Option<bool>, CallError> {
        let json = encode(&self.label, "read_lock_probe", reading)?;
        match self.obj.read_lock_probe(json.as_str().into()) {
            RErr(e) if e.kind == ErrorKind::MISSING_METHOD => {
                let probe = match self.ir_1_0_probe.get() {
                    Some(probe) => probe,
                    None => {
                        let probe = self.info()?.lock_probe;
                        self.ir_1_0_probe.get_or_init(|| probe)
                    }
                };
                Ok(match probe {
                    LockProbe::Query { .. } => reading.first_value_answer(),
                    _ => None,
                })
            }
            answer => decode(&self.label, "read_lock_probe", answer),
        }
    }
}

/// A generator instance, loaded or in-process.
pub struct GeneratorHandle {
    label: String,
    obj: GeneratorBox,
}

impl GeneratorHandle {
    pub(crate) fn new(label: String, obj: GeneratorBox) -> Self {
        GeneratorHandle { label, obj }
    }

    pub fn in_process<G: Generator>(name: &str, generator: G) -> Self {
        GeneratorHandle::new(format!("generator `{name}`"), generator_box(generator))
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
    pub(crate) fn new(label: String, obj: OracleBox) -> Self {
        OracleHandle { label, obj }
    }

    pub fn in_process<O: Oracle>(name: &str, oracle: O) -> Self {
        OracleHandle::new(format!("oracle `{name}`"), oracle_box(oracle))
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
        guard("host database", || {
            let req: HostDbRequest = from_json("host database request", request.as_str())?;
            let reply = self.db.call(req)?;
            to_json(&reply).map(RString::from)
        })
    }
}
