//! Checks a plugin's own tests can make, in tree or out.
//!
//! Enable the `testing` feature in the plugin's dev-dependencies only, so that
//! the plugin library does not link a TOML parser:
//!
//! ```toml
//! [dev-dependencies]
//! txlab-plugin-api = { version = "0.1", features = ["testing"] }
//! ```
//!
//! ```ignore
//! #[test]
//! fn default_config_lists_every_key_at_its_default() {
//!     let config = check_default_config::<MyOracle, _>().unwrap();
//!     config.validate().unwrap();
//! }
//! ```

use super::{parse_config, DialectPlugin, GeneratorPlugin, OraclePlugin};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value as Json};
use std::fmt;

/// A plugin entry with a documented configuration: implemented for every
/// [`DialectPlugin`], [`GeneratorPlugin`] and [`OraclePlugin`] whose `Config`
/// is also `Serialize`. `K` ([`AsDialect`], [`AsGenerator`], [`AsOracle`])
/// only tells the three implementations apart; callers write `_` for it.
pub trait DocumentedConfig<K> {
    const NAME: &'static str;
    const DEFAULT_CONFIG: &'static str;
    type Config: DeserializeOwned + Serialize;
}

/// Marks the [`DocumentedConfig`] implementation of a dialect.
pub enum AsDialect {}
/// Marks the [`DocumentedConfig`] implementation of a generator.
pub enum AsGenerator {}
/// Marks the [`DocumentedConfig`] implementation of an oracle.
pub enum AsOracle {}

impl<P: DialectPlugin> DocumentedConfig<AsDialect> for P
where
    P::Config: Serialize,
{
    const NAME: &'static str = P::NAME;
    const DEFAULT_CONFIG: &'static str = P::DEFAULT_CONFIG;
    type Config = P::Config;
}

impl<P: GeneratorPlugin> DocumentedConfig<AsGenerator> for P
where
    P::Config: Serialize,
{
    const NAME: &'static str = P::NAME;
    const DEFAULT_CONFIG: &'static str = P::DEFAULT_CONFIG;
    type Config = P::Config;
}

impl<P: OraclePlugin> DocumentedConfig<AsOracle> for P
where
    P::Config: Serialize,
{
    const NAME: &'static str = P::NAME;
    const DEFAULT_CONFIG: &'static str = P::DEFAULT_CONFIG;
    type Config = P::Config;
}

/// Everything wrong with a plugin's `DEFAULT_CONFIG`, one problem per line.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("the DEFAULT_CONFIG of `{plugin}` does not list every option at its default:{}", bullets(.problems))]
pub struct DefaultConfigError {
    pub plugin: String,
    pub problems: Vec<String>,
}

/// `unwrap()` prints the problems, not a struct dump.
impl fmt::Debug for DefaultConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn bullets(problems: &[String]) -> String {
    problems.iter().map(|p| format!("\n- {p}")).collect()
}

/// Checks that `P::DEFAULT_CONFIG` (what `txlab plugins show` prints) is TOML
/// that lists every option of `P::Config` at its default, and nothing else:
/// it must parse with [`parse_config`] as the host would send it, every key
/// the default configuration has must be there (nested tables included;
/// options whose default is none cannot be written in TOML and may be left
/// out), no other key may be there, and every value must be the default, the
/// default being what an empty configuration parses to. Returns the parsed
/// configuration for further checks (a `validate()` of the plugin's own).
///
/// `K` is inferred: `check_default_config::<MyOracle, _>()`.
#[cfg(feature = "testing")]
pub fn check_default_config<P, K>() -> Result<P::Config, DefaultConfigError>
where
    P: DocumentedConfig<K>,
{
    let documented = match toml::from_str::<toml::Table>(P::DEFAULT_CONFIG) {
        Ok(table) => serde_json::to_value(&table).map_err(|e| format!("{e}")),
        Err(e) => Err(format!("it is not TOML: {e}")),
    };
    match documented {
        Ok(documented) => check_documented_config::<P::Config>(P::NAME, &documented),
        Err(problem) => Err(DefaultConfigError {
            plugin: P::NAME.to_string(),
            problems: vec![problem],
        }),
    }
}

/// The checks of [`check_default_config`] on a configuration already turned
/// into JSON, as the host sends a pipeline's TOML table to the plugin.
pub fn check_documented_config<C>(plugin: &str, documented: &Json) -> Result<C, DefaultConfigError>
where
    C: DeserializeOwned + Serialize,
{
    let fail = |problems: Vec<String>| DefaultConfigError {
        plugin: plugin.to_string(),
        problems,
    };
    let parsed: C = parse_config(&documented.to_string())
        .map_err(|e| fail(vec![format!("it does not parse as the configuration: {e}")]))?;
    let defaults: C = parse_config("{}").map_err(|e| {
        fail(vec![format!(
            "an empty configuration is refused ({e}), so a pipeline that leaves the table out fails; \
             give every option a default (`#[serde(default)]`)"
        )])
    })?;
    let encode = |c: &C| {
        serde_json::to_value(c).map_err(|e| fail(vec![format!("it cannot be encoded: {e}")]))
    };
    let (parsed_json, default_json) = (encode(&parsed)?, encode(&defaults)?);
    let mut problems = Vec::new();
    compare("", documented, &parsed_json, &default_json, &mut problems);
    problems.sort();
    if problems.is_empty() {
        Ok(parsed)
    } else {
        Err(fail(problems))
    }
}

/// Compares one table: `listed` is the documented text's table, `parsed` the
/// same after parsing into the configuration, `default` the default's.
fn compare(prefix: &str, listed: &Json, parsed: &Json, default: &Json, out: &mut Vec<String>) {
    let empty = Map::new();
    let listed_keys = listed.as_object().unwrap_or(&empty);
    let parsed_keys = parsed.as_object().unwrap_or(&empty);
    let Some(default_keys) = default.as_object() else {
        return;
    };
    for (key, default_value) in default_keys {
        let path = format!("{prefix}{key}");
        match (listed_keys.get(key), parsed_keys.get(key)) {
            (None, _) if default_value.is_null() => {}
            (None, _) => out.push(format!(
                "`{path}` is missing; its default is {default_value}"
            )),
            (Some(listed), Some(parsed)) if default_value.is_object() && parsed.is_object() => {
                compare(&format!("{path}."), listed, parsed, default_value, out)
            }
            (Some(_), Some(parsed)) if parsed != default_value => out.push(format!(
                "`{path}` is given as {parsed}, but its default is {default_value}"
            )),
            (Some(_), _) => {}
        }
    }
    for key in listed_keys.keys() {
        if !default_keys.contains_key(key) {
            out.push(format!(
                "`{prefix}{key}` is not an option of the configuration (or the default configuration does not encode it)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Config {
        rows: u32,
        ratio: f64,
        name: String,
        limit: Option<u32>,
        nested: Nested,
    }

    impl Default for Config {
        fn default() -> Self {
            Config {
                rows: 10,
                ratio: 0.5,
                name: "x".into(),
                limit: None,
                nested: Nested { on: true },
            }
        }
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Nested {
        on: bool,
    }

    impl Default for Nested {
        fn default() -> Self {
            Nested { on: true }
        }
    }

    /// Accepts any key, so that a key the defaults do not encode gets through
    /// parsing.
    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    struct Lenient {
        rows: u32,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Required {
        rows: u32,
    }

    fn problems<C: DeserializeOwned + Serialize>(documented: Json) -> Vec<String> {
        check_documented_config::<C>("example", &documented)
            .err()
            .map(|e| e.problems)
            .unwrap_or_default()
    }

    #[test]
    fn a_complete_default_config_passes() {
        let documented = json!({"rows": 10, "ratio": 0.5, "name": "x", "nested": {"on": true}});
        let config = check_documented_config::<Config>("example", &documented).unwrap();
        assert_eq!(config, Config::default());
    }

    #[test]
    fn every_key_problem_is_named_with_its_path() {
        let documented = json!({"rows": 11, "name": "x", "nested": {}});
        assert_eq!(
            problems::<Config>(documented),
            vec![
                "`nested.on` is missing; its default is true",
                "`ratio` is missing; its default is 0.5",
                "`rows` is given as 11, but its default is 10",
            ]
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_problems() {
        let unknown = problems::<Config>(json!({"rowz": 10}));
        assert_eq!(unknown.len(), 1);
        assert!(
            unknown[0].starts_with("it does not parse as the configuration: rowz: unknown field"),
            "{unknown:?}"
        );
        assert_eq!(
            problems::<Lenient>(json!({"rows": 0, "extra": 1})),
            vec!["`extra` is not an option of the configuration (or the default configuration does not encode it)"]
        );
        let wrong = problems::<Config>(json!({"rows": "ten"}));
        assert!(wrong[0].contains("rows: invalid type"), "{wrong:?}");
    }

    #[test]
    fn a_configuration_without_defaults_is_a_problem() {
        let p = problems::<Required>(json!({"rows": 1}));
        assert_eq!(p.len(), 1);
        assert!(
            p[0].starts_with("an empty configuration is refused"),
            "{p:?}"
        );
    }

    #[test]
    fn the_error_lists_every_problem() {
        let e = check_documented_config::<Config>("example", &json!({"rows": 1, "name": "y"}))
            .unwrap_err();
        let text = format!("{e:?}");
        assert!(
            text.starts_with(
                "the DEFAULT_CONFIG of `example` does not list every option at its default:\n- "
            ),
            "{text}"
        );
        assert_eq!(text.matches("\n- ").count(), 4, "{text}");
    }

    #[cfg(feature = "testing")]
    mod from_toml {
        use super::*;
        use crate::ir::{CaseRequest, GeneratorContext, TestCase};
        use crate::sdk::{Generator, GeneratorPlugin, PluginError};

        struct Good;
        struct Broken;

        impl Generator for Good {
            fn next_case(&mut self, _: CaseRequest) -> Result<TestCase, PluginError> {
                Err(PluginError::internal("not used"))
            }
        }

        impl Generator for Broken {
            fn next_case(&mut self, _: CaseRequest) -> Result<TestCase, PluginError> {
                Err(PluginError::internal("not used"))
            }
        }

        impl GeneratorPlugin for Good {
            const NAME: &'static str = "good";
            const DESCRIPTION: &'static str = "";
            const DEFAULT_CONFIG: &'static str =
                "# Rows.\nrows = 10\nratio = 0.5\nname = \"x\"\n\n[nested]\non = true\n";
            type Config = Config;
            fn new(_: Config, _: GeneratorContext) -> Result<Self, PluginError> {
                Ok(Good)
            }
        }

        impl GeneratorPlugin for Broken {
            const NAME: &'static str = "broken";
            const DESCRIPTION: &'static str = "";
            const DEFAULT_CONFIG: &'static str = "rows = 10\nratio = \n";
            type Config = Config;
            fn new(_: Config, _: GeneratorContext) -> Result<Self, PluginError> {
                Ok(Broken)
            }
        }

        #[test]
        fn default_config_text_is_read_as_toml() {
            assert_eq!(
                check_default_config::<Good, _>().unwrap(),
                Config::default()
            );
            let e = check_default_config::<Broken, _>().unwrap_err();
            assert_eq!(e.plugin, "broken");
            assert!(e.problems[0].starts_with("it is not TOML"), "{e}");
        }
    }
}
