//! `txlab check-config`: a pipeline and every plugin's options, checked
//! without running anything.

use super::setup::PipelineSetup;
use super::{out, Cli, EXIT_CLEAN, EXIT_SETUP};
use serde_json::json;
use std::path::Path;

/// What a pipeline wires together, once it checked.
struct Checked {
    dialect: String,
    driver: String,
    levels: Vec<String>,
    generator: String,
    oracles: Vec<String>,
}

fn check(cli: &Cli, pipeline: &Path) -> anyhow::Result<Checked> {
    let setup = PipelineSetup::load(cli, pipeline)?;
    let resolved = setup.resolve()?;
    resolved.check()?;
    Ok(Checked {
        dialect: resolved.info.name.clone(),
        driver: resolved.info.driver.clone(),
        levels: resolved.levels.iter().map(ToString::to_string).collect(),
        generator: resolved.generator_name().to_string(),
        oracles: resolved
            .oracle_names()
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

pub(super) fn run(cli: &Cli, pipeline: &Path, json: bool) -> anyhow::Result<u8> {
    if !json {
        let c = check(cli, pipeline)?;
        out!(
            "{}: ok — dialect {} (driver {}), isolation {}, generator {}, {}",
            pipeline.display(),
            c.dialect,
            c.driver,
            c.levels.join(", "),
            c.generator,
            if c.oracles.is_empty() {
                "a stream checked by txlab itself".to_string()
            } else {
                format!("oracles {}", c.oracles.join(", "))
            }
        );
        return Ok(EXIT_CLEAN);
    }
    let (doc, code) = match check(cli, pipeline) {
        Ok(c) => (
            json!({
                "pipeline": pipeline,
                "ok": true,
                "dialect": c.dialect,
                "driver": c.driver,
                "levels": c.levels,
                "generator": c.generator,
                "oracles": c.oracles,
            }),
            EXIT_CLEAN,
        ),
        Err(e) => (
            json!({ "pipeline": pipeline, "ok": false, "error": format!("{e:#}") }),
            EXIT_SETUP,
        ),
    };
    out!(
        "{}",
        serde_json::to_string_pretty(&doc).expect("JSON values serialize")
    );
    Ok(code)
}
