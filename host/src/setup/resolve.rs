//! A pipeline's plugins, found in the registry and configured.

use super::environment::{locate_target, worker_runtime, PipelineTarget, ServerAccess};
use super::SetupError;
use crate::config::{LoadedPipeline, PluginConfig};
use crate::driver::{within, Timeouts, CONNECT_DEADLINE};
use crate::target::{read_server_facts, TargetError};
use std::sync::Arc;
use txlab_loader::registry::{NotFound, Registered, Registry};
use txlab_loader::{CallError, DialectHandle, GeneratorHandle, OracleHandle};
use txlab_plugin_api::ir::*;
use txlab_plugin_api::sdk::ErrorKind;
use txlab_plugin_api::PluginKind;

/// The pipeline's plugins, resolved and configured, but not yet instantiated per worker.
pub struct Resolved<'a> {
    pub pipeline: &'a LoadedPipeline,
    pub dialect: Arc<DialectHandle>,
    pub info: DialectInfo,
    pub levels: Vec<IsolationLevel>,
    /// The dialect's entry and configuration, to build it again for a server.
    dialect_entry: (&'a Registered, PluginConfig),
    generator: (&'a Registered, PluginConfig),
    oracles: Vec<(&'a Registered, PluginConfig)>,
}

/// One oracle of a worker, with what it asked of the run.
pub struct OracleInstance {
    /// The name the pipeline gave it (its registry name).
    pub name: String,
    pub handle: OracleHandle,
    pub requirements: OracleRequirements,
}

fn not_found(
    pipeline: &LoadedPipeline,
    key: &toml::Spanned<String>,
    what: &str,
    e: Box<NotFound>,
) -> SetupError {
    let mut c = pipeline.locate(key);
    c.message = format!("`{what}`: {e}");
    SetupError::Config(c)
}

/// A plugin's complaint about its configuration points at its TOML table.
fn plugin_error(config: &PluginConfig, e: CallError) -> SetupError {
    if e.kind == ErrorKind::INVALID_CONFIG {
        SetupError::Config(config.error(&format!("{}: {}", e.plugin, e.message)))
    } else {
        SetupError::Plugin(e)
    }
}

impl<'a> Resolved<'a> {
    pub fn resolve(
        pipeline: &'a LoadedPipeline,
        registry: &'a Registry,
    ) -> Result<Self, SetupError> {
        let p = &pipeline.pipeline;
        let d = registry
            .get(PluginKind::DIALECT, p.target.dialect.get_ref())
            .map_err(|e| not_found(pipeline, &p.target.dialect, "target.dialect", e))?;
        let d_config = pipeline.plugin_config("target.config", &p.target.config);
        let dialect = d
            .library
            .new_dialect(&d.entry.name, &d_config.json)
            .map_err(|e| plugin_error(&d_config, e))?;
        let info = dialect.info()?;
        let levels = tested_levels(pipeline, &info)?;
        let g = registry
            .get(PluginKind::GENERATOR, p.generator.plugin.get_ref())
            .map_err(|e| not_found(pipeline, &p.generator.plugin, "generator.plugin", e))?;
        let g_config = pipeline.plugin_config("generator.config", &p.generator.config);
        let mut oracles = Vec::new();
        for (i, o) in p.oracles.iter().enumerate() {
            let what = format!("oracle[{i}].plugin");
            let r = registry
                .get(PluginKind::ORACLE, o.plugin.get_ref())
                .map_err(|e| not_found(pipeline, &o.plugin, &what, e))?;
            oracles.push((
                r,
                pipeline.plugin_config(&format!("oracle[{i}].config"), &o.config),
            ));
        }
        Ok(Resolved {
            pipeline,
            dialect: Arc::new(dialect),
            info,
            levels,
            dialect_entry: (d, d_config),
            generator: (g, g_config),
            oracles,
        })
    }

    /// Builds the dialect again for the server `access` leads to, so that
    /// its facts follow that server's version and settings (IR 1.2), and
    /// returns what was read; nothing for an embedded database. Call it
    /// before building generators and oracles: they get the dialect's
    /// description.
    pub fn for_server(&mut self, access: &ServerAccess) -> Result<Option<ServerFacts>, SetupError> {
        let PipelineTarget::Server { kind, login, .. } = locate_target(self, access)? else {
            return Ok(None);
        };
        let e = &self.pipeline.pipeline.executor;
        let deadline = Timeouts {
            statement: e.statement_timeout.0,
            lock_wait: e.lock_wait_timeout.0,
        }
        .deadlines()
        .statement
            + CONNECT_DEADLINE;
        let query = self.info.server_query.clone();
        let facts = worker_runtime()?
            .block_on(within(
                deadline,
                || "reading the server's version and settings".to_string(),
                read_server_facts(kind, &login.url, query.as_deref()),
            ))
            .map_err(TargetError::from)?
            .map_err(TargetError::from)?;
        self.adapt_to(facts.clone())?;
        Ok(Some(facts))
    }

    /// Builds the dialect again for the server `facts` describe. A library
    /// built before IR 1.2 cannot: its dialect stays as it was.
    pub fn adapt_to(&mut self, facts: ServerFacts) -> Result<(), SetupError> {
        let (entry, config) = &self.dialect_entry;
        let Some(dialect) = entry
            .library
            .new_dialect_for_server(&entry.entry.name, &config.json, &facts)
            .map_err(|e| plugin_error(config, e))?
        else {
            tracing::info!(target: "txlab::run", "{} was built for txlab IR {}: its facts do not follow the server ({})", entry.entry.name, entry.library.manifest.ir, facts.version);
            return Ok(());
        };
        let info = dialect.info()?;
        self.levels = tested_levels(self.pipeline, &info)?;
        self.info = info;
        self.dialect = Arc::new(dialect);
        Ok(())
    }

    pub fn generator_name(&self) -> &str {
        &self.generator.0.entry.name
    }

    pub fn oracle_names(&self) -> Vec<&str> {
        self.oracles
            .iter()
            .map(|(r, _)| r.entry.name.as_str())
            .collect()
    }

    pub fn new_generator(&self) -> Result<GeneratorHandle, SetupError> {
        let (r, config) = &self.generator;
        let ctx = GeneratorContext {
            dialect: self.info.clone(),
            levels: self.levels.clone(),
        };
        r.library
            .new_generator(&r.entry.name, &config.json, &ctx)
            .map_err(|e| plugin_error(config, e))
    }

    /// A worker's oracles, each checked to judge the runs this pipeline makes.
    pub fn new_oracles(&self) -> Result<Vec<OracleInstance>, SetupError> {
        let ctx = OracleContext {
            dialect: self.info.clone(),
        };
        let mut out = Vec::new();
        for (r, config) in &self.oracles {
            let handle = r
                .library
                .new_oracle(&r.entry.name, &config.json, &ctx)
                .map_err(|e| plugin_error(config, e))?;
            let requirements = handle.requirements()?;
            if !requirements.modes.contains(&ExecutorMode::Schedule) {
                return Err(SetupError::UnsupportedMode {
                    oracle: handle.label().to_string(),
                    mode: "schedule",
                });
            }
            out.push(OracleInstance {
                name: r.entry.name.clone(),
                handle,
                requirements,
            });
        }
        Ok(out)
    }

    /// Builds every plugin once, so that configuration errors surface now.
    pub fn check(&self) -> Result<(), SetupError> {
        self.new_generator()?;
        self.new_oracles()?;
        Ok(())
    }
}

/// The levels the pipeline tests: `[target] isolation`, each checked against
/// what the dialect offers, or every level it offers.
fn tested_levels(
    pipeline: &LoadedPipeline,
    info: &DialectInfo,
) -> Result<Vec<IsolationLevel>, SetupError> {
    let levels = match &pipeline.pipeline.target.isolation {
        None => info.levels.iter().map(|l| l.level).collect(),
        Some(wanted) => {
            let offered: Vec<String> = info.levels.iter().map(|l| l.level.to_string()).collect();
            for level in wanted.get_ref() {
                if !info.supports(*level) {
                    let mut c = pipeline.locate(&toml::Spanned::new(wanted.span(), String::new()));
                    c.message = format!(
                        "`target.isolation`: dialect `{}` does not offer {level}; it offers {}",
                        info.name,
                        offered.join(", ")
                    );
                    return Err(c.into());
                }
            }
            wanted.get_ref().clone()
        }
    };
    if levels.is_empty() {
        return Err(SetupError::NoLevels(info.name.clone()));
    }
    Ok(levels)
}
