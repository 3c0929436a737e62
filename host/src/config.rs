//! The pipeline file: which dialect, generator and oracles to wire, and how to run.
//!
//! Every error names the file, the line and the key. Plugin tables (`config`) are
//! passed on as JSON for the plugin to parse with its own rules; their errors come
//! back prefixed with the table's TOML path and line.

mod workers;
pub use workers::{Workers, AUTO_PER_CPU};

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;
use txlab_plugin_api::ir::{ExecutorMode, IsolationLevel};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    #[serde(default)]
    pub run: RunSection,
    #[serde(default)]
    pub plugins: PluginsSection,
    pub target: TargetSection,
    #[serde(default)]
    pub executor: ExecutorSection,
    pub generator: PluginRef,
    #[serde(default)]
    pub reduce: ReduceSection,
    /// The oracles that judge each case; a stream (`executor.mode =
    /// "stream"`) takes none: its history is checked as a whole.
    #[serde(rename = "oracle", default)]
    pub oracles: Vec<PluginRef>,
}

/// More workers than this would only wait for each other (and each opens its
/// own databases and sessions).
pub const MAX_WORKERS: usize = 64;
/// The longest any executor timeout or interval may be: a case waits this
/// long at most for one thing (PostgreSQL's own timeouts end at 24 days).
pub const MAX_EXECUTOR_TIMEOUT: Duration = Duration::from_secs(3600);
/// The longest pause between statements.
pub const MAX_PACE: Duration = Duration::from_secs(60);
/// The longest a run waits for a server that went away.
pub const MAX_RECONNECT_TIMEOUT: Duration = Duration::from_secs(24 * 3600);
/// The most candidates one reduction may run.
pub const MAX_REDUCE_TRIALS: usize = 100_000;
/// The most runs of a candidate, or of the reduced case.
pub const MAX_REDUCE_RUNS: u32 = 100;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSection {
    /// Cases to run when neither `--cases` nor `--duration` is given.
    pub cases: Option<u64>,
    /// Run for this long instead ("10m", "1h 30m").
    pub duration: Option<HumanDuration>,
    /// The run seed; a random one is drawn (and printed) when absent.
    pub seed: Option<u64>,
    /// Parallel workers, each with its own database; `"auto"`: two per
    /// logical CPU.
    pub workers: Workers,
    /// Where findings go; relative to the working directory.
    pub out: PathBuf,
    /// Stop after this many cases in a row failed with a tool error.
    pub max_consecutive_errors: u64,
    /// After a lost connection, how long to wait for the server to accept
    /// connections again before the run stops ("0s": stop at once).
    pub reconnect_timeout: HumanDuration,
    /// Vendor-permitted anomalies count as findings: for testing a DBMS
    /// against the standard models rather than its own documentation.
    pub strict: bool,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            cases: None,
            duration: None,
            seed: None,
            workers: Workers::Count(1),
            out: PathBuf::from("findings"),
            max_consecutive_errors: 20,
            reconnect_timeout: HumanDuration(Duration::from_secs(60)),
            strict: false,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PluginsSection {
    /// Directories searched for plugin libraries, relative to the pipeline file.
    pub dirs: Vec<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSection {
    /// Name of the dialect plugin entry.
    pub dialect: Spanned<String>,
    /// Isolation levels to test; all the dialect offers when absent.
    #[serde(default)]
    pub isolation: Option<Spanned<Vec<IsolationLevel>>>,
    /// Where the embedded SQLite target keeps its database files; a temporary
    /// directory that is removed after the run when absent.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// The server (`mysql://user@host:port`, `postgres://…`) for dialects
    /// that need one. `--url` and then `TXLAB_MYSQL_URL` / `TXLAB_PG_URL` take
    /// precedence; the password, when the URL has none, comes from
    /// `--password-file`, the environment or the clients' files
    /// (`crate::driver::login`). txlab creates its own databases there and
    /// removes them after the run.
    #[serde(default)]
    pub url: Option<String>,
    /// The nodes of a cluster (Galera): one URL each. The case's tables are
    /// created through the first, its transactions run on the nodes in turn,
    /// and its final state is read from every one. Instead of `url`; `--url`
    /// with URLs separated by commas takes precedence.
    #[serde(default)]
    pub nodes: Option<Spanned<Vec<String>>>,
    /// How long txlab waits for a cluster's nodes to agree: after loading a
    /// case's tables, and after the case before reading its final state.
    #[serde(default = "default_replication_timeout")]
    pub replication_timeout: HumanDuration,
    /// The dialect plugin's own options.
    #[serde(default)]
    pub config: Option<PluginTable>,
}

fn default_replication_timeout() -> HumanDuration {
    HumanDuration(Duration::from_secs(10))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginRef {
    pub plugin: Spanned<String>,
    #[serde(default)]
    pub config: Option<PluginTable>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecutorSection {
    /// The first lock-wait probe of a statement without reply ("250us").
    pub probe_after: HumanDuration,
    /// `schedule` (each case's statements in its submitted order) or
    /// `stream` (sessions running transactions back to back).
    pub mode: ExecutorMode,
    /// Stream mode: concurrent sessions (1 to 64).
    pub sessions: usize,
    /// Stream mode: how often the history is checked in a window (and a
    /// progress line printed).
    pub check_interval: HumanDuration,
    pub probe_interval: HumanDuration,
    pub block_timeout: HumanDuration,
    pub settle_timeout: HumanDuration,
    pub stall_timeout: HumanDuration,
    /// Server-side limit on one statement's running time.
    pub statement_timeout: HumanDuration,
    /// How long a statement may wait for a lock before the DBMS gives up.
    pub lock_wait_timeout: HumanDuration,
    /// A pause after a statement is confirmed blocked and after a
    /// transaction ends, before the next statement ("0ms": none); a paced
    /// case also gets its tables created afresh and the pause before its
    /// first statement.
    pub pace: HumanDuration,
    /// Table resets and session set-ups as one request each where the
    /// driver allows (the same statements in one round trip), and no
    /// ROLLBACK after a replay session that ended its transaction; `false`
    /// sends every statement on its own.
    pub fewer_round_trips: bool,
}

impl Default for ExecutorSection {
    fn default() -> Self {
        let d = crate::executor::ExecutorSettings::default();
        ExecutorSection {
            probe_after: HumanDuration(d.probe_after),
            mode: ExecutorMode::Schedule,
            sessions: 8,
            check_interval: HumanDuration(Duration::from_secs(5)),
            probe_interval: HumanDuration(d.probe_interval),
            block_timeout: HumanDuration(d.block_timeout),
            settle_timeout: HumanDuration(d.settle_timeout),
            stall_timeout: HumanDuration(d.stall_timeout),
            statement_timeout: HumanDuration(Duration::from_secs(5)),
            lock_wait_timeout: HumanDuration(Duration::from_secs(8)),
            pace: HumanDuration(d.pace),
            fewer_round_trips: d.fewer_round_trips,
        }
    }
}

impl ExecutorSection {
    /// The server-side limits every session of the run gets.
    pub fn session_limits(&self) -> txlab_plugin_api::ir::SessionLimits {
        txlab_plugin_api::ir::SessionLimits {
            statement_timeout_ms: self.statement_timeout.0.as_millis() as u64,
            lock_wait_timeout_ms: self.lock_wait_timeout.0.as_millis() as u64,
        }
    }
}

/// How findings are reduced to a minimal case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReduceSection {
    /// Reduce each finding after writing it (`run --no-reduce` turns it off).
    pub enabled: bool,
    /// Candidate cases one reduction may run.
    pub max_trials: usize,
    /// Time one reduction may take.
    pub max_time: HumanDuration,
    /// Runs of the reduced case that confirm it.
    pub confirm: u32,
    /// Runs of each candidate before it counts as not reproducing.
    pub attempts: u32,
    /// Findings of the same kind (oracle and signature: the title without
    /// statement positions) that are reduced in one run; later ones are
    /// written as they are.
    pub max_per_kind: u32,
}

impl Default for ReduceSection {
    fn default() -> Self {
        let d = ReduceSettings::default();
        ReduceSection {
            enabled: true,
            max_trials: d.max_trials,
            max_time: HumanDuration(d.max_time),
            confirm: d.confirm,
            attempts: d.attempts,
            max_per_kind: 3,
        }
    }
}

impl ReduceSection {
    pub fn settings(&self) -> ReduceSettings {
        ReduceSettings {
            max_trials: self.max_trials,
            max_time: self.max_time.0,
            confirm: self.confirm,
            attempts: self.attempts,
        }
    }
}

/// What a reduction may spend, and how hard it checks its result.
#[derive(Clone, Copy, Debug)]
pub struct ReduceSettings {
    pub max_trials: usize,
    pub max_time: Duration,
    /// Runs of the reduced case after the reduction.
    pub confirm: u32,
    /// Runs of each candidate before it counts as not reproducing: more than
    /// one for findings that depend on timing (the reduction raises it
    /// itself when the original case showed the finding only some of the
    /// time). The original case gets at least `confirm` runs to show the
    /// finding again.
    pub attempts: u32,
}

impl Default for ReduceSettings {
    fn default() -> Self {
        ReduceSettings {
            max_trials: 300,
            max_time: Duration::from_secs(120),
            confirm: 3,
            attempts: 1,
        }
    }
}

/// A duration written the human way: "500ms", "10s", "1h 30m".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanDuration(pub Duration);

impl<'de> Deserialize<'de> for HumanDuration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        humantime::parse_duration(&s)
            .map(HumanDuration)
            .map_err(|e| {
                serde::de::Error::custom(format!(
                    "`{s}` is not a duration ({e}); write e.g. \"500ms\", \"10s\", \"5m\""
                ))
            })
    }
}

/// A configuration problem, located in the file.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", file.display(), location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub location: Option<(usize, usize)>,
    pub message: String,
}

/// A pipeline together with where it came from.
#[derive(Debug, Clone)]
pub struct LoadedPipeline {
    pub path: PathBuf,
    pub source: String,
    pub pipeline: Pipeline,
}

impl LoadedPipeline {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let source = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_path_buf(),
            location: None,
            message: format!("cannot read the pipeline: {e}"),
        })?;
        Self::parse(path, source)
    }

    pub fn parse(path: &Path, source: String) -> Result<Self, ConfigError> {
        let de = toml::Deserializer::new(&source);
        let pipeline: Pipeline = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = clean_key_path(&e.path().to_string());
            let inner = e.into_inner();
            let location = inner.span().map(|s| line_col(&source, s.start));
            let message = inner.message().trim().to_string();
            ConfigError {
                file: path.to_path_buf(),
                location,
                message: if key == "." || key.is_empty() {
                    message
                } else {
                    format!("`{key}`: {message}")
                },
            }
        })?;
        let loaded = LoadedPipeline {
            path: path.to_path_buf(),
            source,
            pipeline,
        };
        loaded.validate()?;
        Ok(loaded)
    }

    fn error_at(&self, span: Option<std::ops::Range<usize>>, message: String) -> ConfigError {
        ConfigError {
            file: self.path.clone(),
            location: span.map(|s| line_col(&self.source, s.start)),
            message,
        }
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let p = &self.pipeline;
        if let Some(nodes) = &p.target.nodes {
            if p.target.url.is_some() {
                return Err(self.error_at(
                    Some(nodes.span()),
                    "`target.nodes` and `target.url` both name the server: give one".into(),
                ));
            }
            if nodes.get_ref().is_empty() || nodes.get_ref().iter().any(|u| u.trim().is_empty()) {
                return Err(self.error_at(
                    Some(nodes.span()),
                    "`target.nodes` needs one URL per node, none of them empty".into(),
                ));
            }
        }
        if p.target.replication_timeout.0.is_zero()
            || p.target.replication_timeout.0 > MAX_EXECUTOR_TIMEOUT
        {
            return Err(self.error_at(
                None,
                format!(
                    "`target.replication_timeout` must be above zero and at most {}",
                    humantime::format_duration(MAX_EXECUTOR_TIMEOUT)
                ),
            ));
        }
        let stream = p.executor.mode == ExecutorMode::Stream;
        if p.oracles.is_empty() && !stream {
            return Err(self.error_at(
                None,
                "the pipeline needs at least one [[oracle]] table".into(),
            ));
        }
        if stream && !p.oracles.is_empty() {
            return Err(self.error_at(
                Some(p.oracles[0].plugin.span()),
                "a stream (`executor.mode = \"stream\"`) is checked as one history by txlab itself: leave out the [[oracle]] tables".into(),
            ));
        }
        if p.executor.sessions == 0 || p.executor.sessions > crate::executor::stream::MAX_SESSIONS {
            return Err(self.error_at(
                None,
                format!(
                    "`executor.sessions` must be between 1 and {}, not {}",
                    crate::executor::stream::MAX_SESSIONS,
                    p.executor.sessions
                ),
            ));
        }
        if p.executor.check_interval.0.is_zero()
            || p.executor.check_interval.0 > MAX_EXECUTOR_TIMEOUT
        {
            return Err(self.error_at(
                None,
                format!(
                    "`executor.check_interval` must be above zero and at most {}",
                    humantime::format_duration(MAX_EXECUTOR_TIMEOUT)
                ),
            ));
        }
        if p.reduce.confirm == 0 || p.reduce.attempts == 0 {
            return Err(self.error_at(
                None,
                "`reduce.confirm` and `reduce.attempts` must be at least 1".into(),
            ));
        }
        if let Workers::Count(n) = p.run.workers {
            if n == 0 || n > MAX_WORKERS {
                return Err(self.error_at(
                    None,
                    format!("`run.workers` must be between 1 and {MAX_WORKERS}, not {n}"),
                ));
            }
        }
        if stream && p.run.workers != Workers::Count(1) {
            return Err(self.error_at(
                None,
                format!(
                    "`run.workers` ({}) is for schedule runs: a stream runs `executor.sessions` sessions against one database",
                    p.run.workers
                ),
            ));
        }
        if p.run.max_consecutive_errors == 0 {
            return Err(self.error_at(
                None,
                "`run.max_consecutive_errors` must be at least 1".into(),
            ));
        }
        if p.run.cases == Some(0) {
            return Err(self.error_at(None, "`run.cases` must be at least 1".into()));
        }
        if p.run.duration.is_some_and(|d| d.0.is_zero()) {
            return Err(self.error_at(None, "`run.duration` must be above zero".into()));
        }
        if p.run.reconnect_timeout.0 > MAX_RECONNECT_TIMEOUT {
            return Err(self.error_at(
                None,
                format!(
                    "`run.reconnect_timeout` must be at most {}",
                    humantime::format_duration(MAX_RECONNECT_TIMEOUT)
                ),
            ));
        }
        let e = &p.executor;
        for (key, value) in [
            ("probe_after", e.probe_after.0),
            ("probe_interval", e.probe_interval.0),
            ("block_timeout", e.block_timeout.0),
            ("settle_timeout", e.settle_timeout.0),
            ("stall_timeout", e.stall_timeout.0),
            ("statement_timeout", e.statement_timeout.0),
            ("lock_wait_timeout", e.lock_wait_timeout.0),
        ] {
            if value.is_zero() {
                return Err(self.error_at(None, format!("`executor.{key}` must be above zero")));
            }
            if value > MAX_EXECUTOR_TIMEOUT {
                return Err(self.error_at(
                    None,
                    format!(
                        "`executor.{key}` must be at most {}, not {}",
                        humantime::format_duration(MAX_EXECUTOR_TIMEOUT),
                        humantime::format_duration(value)
                    ),
                ));
            }
        }
        if e.pace.0 > MAX_PACE {
            return Err(self.error_at(
                None,
                format!(
                    "`executor.pace` must be at most {}, not {}",
                    humantime::format_duration(MAX_PACE),
                    humantime::format_duration(e.pace.0)
                ),
            ));
        }
        let r = &p.reduce;
        if r.max_trials == 0 || r.max_trials > MAX_REDUCE_TRIALS {
            return Err(self.error_at(
                None,
                format!(
                    "`reduce.max_trials` must be between 1 and {MAX_REDUCE_TRIALS}, not {} (`reduce.enabled = false` turns reduction off)",
                    r.max_trials
                ),
            ));
        }
        if r.max_time.0.is_zero() {
            return Err(self.error_at(None, "`reduce.max_time` must be above zero".into()));
        }
        for (key, value) in [("confirm", r.confirm), ("attempts", r.attempts)] {
            if value > MAX_REDUCE_RUNS {
                return Err(self.error_at(
                    None,
                    format!("`reduce.{key}` must be between 1 and {MAX_REDUCE_RUNS}, not {value}"),
                ));
            }
        }
        if let Some(levels) = &p.target.isolation {
            if levels.get_ref().is_empty() {
                return Err(self.error_at(
                    Some(levels.span()),
                    "`target.isolation` lists no level; leave it out to test every level the dialect offers".into(),
                ));
            }
        }
        Ok(())
    }

    /// Plugin directories from the pipeline, resolved against its directory.
    pub fn plugin_dirs(&self) -> Vec<PathBuf> {
        let base = self.path.parent().unwrap_or(Path::new("."));
        self.pipeline
            .plugins
            .dirs
            .iter()
            .map(|d| {
                if d.is_absolute() {
                    d.clone()
                } else {
                    base.join(d)
                }
            })
            .collect()
    }

    /// A plugin table as JSON, plus a function that locates the plugin's own
    /// complaints about it ("generator.config: max: …" at the table's line).
    pub fn plugin_config(&self, table_path: &str, config: &Option<PluginTable>) -> PluginConfig {
        let (json, line) = match config {
            Some(t) => (
                toml_to_json(&toml::Value::Table(t.table.clone())).to_string(),
                t.span
                    .as_ref()
                    .map(|span| span.start)
                    .or_else(|| self.first_header_below(table_path))
                    .map(|start| line_col(&self.source, start)),
            ),
            None => ("{}".to_string(), None),
        };
        PluginConfig {
            json,
            table_path: table_path.to_string(),
            file: self.path.clone(),
            location: line,
        }
    }

    /// Where the first header of a sub-table of `path` starts
    /// (`[generator.config.weights]` for `generator.config`): where a table
    /// that only such headers create is written.
    fn first_header_below(&self, path: &str) -> Option<usize> {
        let header = format!("[{path}.");
        let mut offset = 0;
        for line in self.source.split_inclusive('\n') {
            if line.trim_start().starts_with(&header) {
                return Some(offset + (line.len() - line.trim_start().len()));
            }
            offset += line.len();
        }
        None
    }

    /// Locates a plugin-name key (for "unknown plugin" errors).
    pub fn locate(&self, s: &Spanned<String>) -> ConfigError {
        self.error_at(Some(s.span()), String::new())
    }
}

/// A plugin's configuration on its way to the plugin.
#[derive(Debug, Clone)]
pub struct PluginConfig {
    pub json: String,
    /// "generator.config", "oracle[0].config", "target.config".
    pub table_path: String,
    file: PathBuf,
    location: Option<(usize, usize)>,
}

impl PluginConfig {
    /// Wraps the plugin's own error message with where its table is.
    pub fn error(&self, message: &str) -> ConfigError {
        ConfigError {
            file: self.file.clone(),
            location: self.location,
            message: format!("`{}`: {message}", self.table_path),
        }
    }
}

/// A plugin's options table, with where it is in the file when TOML says.
/// A table that only sub-table headers create (`[generator.config.weights]`
/// without `[generator.config]`) has no span, which `toml::Spanned` cannot
/// take ("expected a borrowed string"), so this asks for the span and takes
/// the plain table when none comes.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginTable {
    pub table: toml::Table,
    pub span: Option<std::ops::Range<usize>>,
}

impl<'de> Deserialize<'de> for PluginTable {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, Visitor};
        use serde_spanned::__unstable as spanned;

        struct TableVisitor;

        impl<'de> Visitor<'de> for TableVisitor {
            type Value = PluginTable;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of plugin options")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PluginTable, A::Error> {
                let Some(first) = map.next_key::<String>()? else {
                    return Ok(PluginTable {
                        table: toml::Table::new(),
                        span: None,
                    });
                };
                if first == spanned::START_FIELD {
                    let start: usize = map.next_value()?;
                    let _: Option<String> = map.next_key()?;
                    let end: usize = map.next_value()?;
                    let _: Option<String> = map.next_key()?;
                    let table: toml::Table = map.next_value()?;
                    return Ok(PluginTable {
                        table,
                        span: Some(start..end),
                    });
                }
                let mut table = toml::Table::new();
                table.insert(first, map.next_value()?);
                while let Some((k, v)) = map.next_entry::<String, toml::Value>()? {
                    table.insert(k, v);
                }
                Ok(PluginTable { table, span: None })
            }
        }

        deserializer.deserialize_struct(
            spanned::NAME,
            &[
                spanned::START_FIELD,
                spanned::END_FIELD,
                spanned::VALUE_FIELD,
            ],
            TableVisitor,
        )
    }
}

/// `toml::Spanned` deserialises through a private field whose name would leak
/// into key paths ("target.isolation.$__serde_spanned_private_value[0]").
fn clean_key_path(path: &str) -> String {
    path.replace(".$__serde_spanned_private_value", "")
}

fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map(|i| offset - i).unwrap_or(offset + 1);
    (line, col)
}

/// TOML to JSON for plugins. Datetimes become strings: serde would otherwise turn
/// them into a private wrapper object no plugin expects.
pub fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        toml::Value::String(s) => J::String(s.clone()),
        toml::Value::Integer(i) => J::from(*i),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(J::Number)
            .unwrap_or(J::Null),
        toml::Value::Boolean(b) => J::Bool(*b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => J::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[run]
cases = 10
seed = 7

[target]
dialect = "sqlite"

[generator]
plugin = "random"
[generator.config]
transactions = [2, 3]

[[oracle]]
plugin = "wss"
"#;

    fn parse(src: &str) -> Result<LoadedPipeline, ConfigError> {
        LoadedPipeline::parse(Path::new("p.toml"), src.to_string())
    }

    #[test]
    fn a_good_pipeline_parses() {
        let p = parse(GOOD).unwrap();
        assert_eq!(p.pipeline.run.cases, Some(10));
        assert_eq!(p.pipeline.target.dialect.get_ref(), "sqlite");
        assert_eq!(p.pipeline.oracles.len(), 1);
        let c = p.plugin_config("generator.config", &p.pipeline.generator.config);
        assert_eq!(c.json, r#"{"transactions":[2,3]}"#);
        assert_eq!(
            c.error("boom").to_string(),
            "p.toml:11:1: `generator.config`: boom"
        );
    }

    /// A plugin table that only a sub-table header creates is the same
    /// table (TOML), located at that header.
    #[test]
    fn a_plugin_table_made_by_its_sub_tables_is_read_and_located() {
        let src = GOOD.replace(
            "[generator.config]\ntransactions = [2, 3]\n",
            "[generator.config.weights]\nquery = 2\n",
        );
        let p = parse(&src).unwrap();
        let c = p.plugin_config("generator.config", &p.pipeline.generator.config);
        assert_eq!(c.json, r#"{"weights":{"query":2}}"#);
        assert_eq!(
            c.error("boom").to_string(),
            "p.toml:11:1: `generator.config`: boom"
        );
        // Written both ways, it is one table.
        let both = GOOD.replace(
            "transactions = [2, 3]\n",
            "transactions = [2, 3]\n[generator.config.weights]\nquery = 2\n",
        );
        let p = parse(&both).unwrap();
        let c = p.plugin_config("generator.config", &p.pipeline.generator.config);
        assert_eq!(c.json, r#"{"transactions":[2,3],"weights":{"query":2}}"#);
    }

    #[test]
    fn an_unknown_key_names_file_line_and_key() {
        let src = GOOD.replace("seed = 7", "seed = 7\nworkerz = 2");
        let e = parse(&src).unwrap_err().to_string();
        assert!(
            e.starts_with("p.toml:5:1: `run.workerz`: unknown field `workerz`"),
            "{e}"
        );
    }

    #[test]
    fn a_wrong_type_names_file_line_and_key() {
        let src = GOOD.replace("cases = 10", "cases = \"ten\"");
        let e = parse(&src).unwrap_err().to_string();
        assert!(
            e.starts_with("p.toml:3:9: `run.cases`: invalid type: string \"ten\""),
            "{e}"
        );
    }

    #[test]
    fn malformed_toml_names_the_line() {
        let src = GOOD.replace("[target]", "[target");
        let e = parse(&src).unwrap_err().to_string();
        assert!(e.starts_with("p.toml:6:"), "{e}");
    }

    #[test]
    fn a_bad_duration_and_a_bad_level_are_explained() {
        let src = GOOD.replace("seed = 7", "seed = 7\nduration = \"soon\"");
        let e = parse(&src).unwrap_err().to_string();
        assert!(
            e.contains("`run.duration`") && e.contains("is not a duration"),
            "{e}"
        );
        let src = GOOD.replace(
            "dialect = \"sqlite\"",
            "dialect = \"sqlite\"\nisolation = [\"snapshot-ish\"]",
        );
        let e = parse(&src).unwrap_err().to_string();
        assert!(
            e.contains("`target.isolation[0]`") && e.contains("unknown variant"),
            "{e}"
        );
    }

    #[test]
    fn missing_oracles_are_rejected() {
        let src = GOOD.replace("[[oracle]]\nplugin = \"wss\"\n", "");
        let e = parse(&src).unwrap_err().to_string();
        assert!(e.contains("oracle"), "{e}");
    }

    #[test]
    fn toml_datetimes_reach_plugins_as_strings() {
        let v: toml::Table = toml::from_str("at = 1979-05-27T07:32:00Z").unwrap();
        let j = toml_to_json(&toml::Value::Table(v));
        assert_eq!(j.to_string(), r#"{"at":"1979-05-27T07:32:00Z"}"#);
    }
}
