//! `txlab plugins list` and `txlab plugins show`.

use super::{out, Cli, EXIT_CLEAN, EXIT_SETUP};
use serde_json::json;
use txlab_loader::registry::{search_dirs, Problem, Registry};
use txlab_plugin_api::{PluginKind, ABI_LINE, IR_VERSION};

#[derive(clap::Subcommand)]
pub(super) enum PluginsCommand {
    /// Every plugin found: kind, name, version, ABI version, file, description.
    /// The table goes to stdout, what was searched and what could not be
    /// loaded to stderr. Exits with 2 when a library found could not be loaded.
    List {
        /// One JSON document on stdout instead: `plugins`, `not_loadable`,
        /// `shadowed`, `searched`, `abi`, `ir`.
        #[arg(long)]
        json: bool,
    },
    /// One plugin's description and default configuration.
    Show {
        name: String,
        /// dialect, generator or oracle, when several kinds share the name.
        #[arg(long)]
        kind: Option<String>,
    },
}

pub(super) fn run(cli: &Cli, command: &PluginsCommand) -> anyhow::Result<u8> {
    let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &[]));
    match command {
        PluginsCommand::List { json: false } => Ok(list(&registry)),
        PluginsCommand::List { json: true } => Ok(list_json(&registry)),
        PluginsCommand::Show { name, kind } => show(&registry, name, kind.as_deref()),
    }
}

/// The exit code of a listing: 2 when a library could not be loaded.
fn listing_code(registry: &Registry) -> u8 {
    if registry.problems.is_empty() {
        EXIT_CLEAN
    } else {
        EXIT_SETUP
    }
}

/// The table on stdout (for `awk`, `cut`), the rest on stderr.
fn list(registry: &Registry) -> u8 {
    if registry.entries.is_empty() {
        eprintln!("no plugins found");
    } else {
        let rows: Vec<[String; 6]> = registry
            .entries
            .values()
            .map(|r| {
                [
                    r.entry.kind.to_string(),
                    r.entry.name.clone(),
                    r.entry.version.clone(),
                    r.library.manifest.versions(),
                    r.library.path.display().to_string(),
                    r.entry.description.clone(),
                ]
            })
            .collect();
        let header = ["KIND", "NAME", "VERSION", "ABI", "FILE", "DESCRIPTION"];
        let widths: Vec<usize> = (0..5)
            .map(|i| {
                rows.iter()
                    .map(|r| r[i].len())
                    .chain([header[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: [&str; 6]| {
            let mut s = String::new();
            for i in 0..5 {
                s.push_str(&format!("{:w$}  ", cells[i], w = widths[i]));
            }
            s.push_str(cells[5]);
            s
        };
        out!("{}", line(header));
        for r in &rows {
            out!("{}", line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]));
        }
    }
    for s in &registry.shadowed {
        eprintln!(
            "shadowed: {} `{}` in {} (the one in {} is used)",
            s.kind,
            s.name,
            s.path.display(),
            s.winner.display()
        );
    }
    for p in &registry.problems {
        eprintln!("not loadable: {}", p.error);
    }
    eprintln!("this txlab loads plugin ABI {ABI_LINE}, IR up to {IR_VERSION}; searched:");
    for (d, exists) in &registry.searched {
        eprintln!(
            "  {}{}",
            d.path.display(),
            if *exists { "" } else { " (missing)" }
        );
    }
    listing_code(registry)
}

/// The same listing as one JSON document (for `jq`).
fn list_json(registry: &Registry) -> u8 {
    let plugins: Vec<serde_json::Value> = registry
        .entries
        .values()
        .map(|r| {
            json!({
                "kind": r.entry.kind.to_string(),
                "name": r.entry.name,
                "version": r.entry.version,
                "abi": r.library.manifest.versions(),
                "file": r.library.path,
                "library": r.library.manifest.library_name,
                "description": r.entry.description,
            })
        })
        .collect();
    let doc = json!({
        "plugins": plugins,
        "not_loadable": registry.problems.iter().map(|p| json!({
            "file": p.path,
            "error": p.error.to_string(),
        })).collect::<Vec<_>>(),
        "shadowed": registry.shadowed.iter().map(|s| json!({
            "kind": s.kind.to_string(),
            "name": s.name,
            "file": s.path,
            "used": s.winner,
        })).collect::<Vec<_>>(),
        "searched": registry.searched.iter().map(|(d, exists)| json!({
            "dir": d.path,
            "exists": exists,
        })).collect::<Vec<_>>(),
        "abi": ABI_LINE.to_string(),
        "ir": IR_VERSION.to_string(),
    });
    out!(
        "{}",
        serde_json::to_string_pretty(&doc).expect("JSON values serialize")
    );
    listing_code(registry)
}

/// The kind and name a library's file name announces: `libtxlab_oracle_wss.so`
/// is the oracle `wss`. Only for libraries that could not be loaded, whose
/// entries are unknown.
fn announced(problem: &Problem) -> Option<(PluginKind, String)> {
    let stem = problem.path.file_stem()?.to_str()?;
    let rest = stem
        .strip_prefix(std::env::consts::DLL_PREFIX)
        .unwrap_or(stem)
        .strip_prefix("txlab_")?;
    let (kind, name) = rest.split_once('_')?;
    Some((PluginKind::parse(kind)?, name.replace('_', "-")))
}

fn show(registry: &Registry, name: &str, kind: Option<&str>) -> anyhow::Result<u8> {
    let kinds = match kind {
        Some(k) => vec![PluginKind::parse(k).ok_or_else(|| {
            anyhow::anyhow!("unknown plugin kind `{k}`; use dialect, generator or oracle")
        })?],
        None => vec![
            PluginKind::DIALECT,
            PluginKind::GENERATOR,
            PluginKind::ORACLE,
        ],
    };
    let found: Vec<_> = kinds
        .iter()
        .filter_map(|k| registry.get(*k, name).ok())
        .collect();
    if found.is_empty() {
        // A library that looks like the plugin but did not load says more
        // than "no such plugin".
        if let Some((k, p)) = registry.problems.iter().find_map(|p| {
            announced(p)
                .filter(|(k, n)| n == name && kinds.contains(k))
                .map(|(k, _)| (k, p))
        }) {
            anyhow::bail!(
                "the {k} `{name}` is in {}, which could not be loaded: {}",
                p.path.display(),
                p.error
            );
        }
        // Prefer the kind that has a near miss, so the hint is useful.
        let errors: Vec<_> = kinds
            .iter()
            .filter_map(|k| registry.get(*k, name).err())
            .collect();
        let best = errors
            .iter()
            .find(|e| e.suggestion.is_some())
            .or(errors.first())
            .map(|e| e.to_string())
            .unwrap_or_default();
        anyhow::bail!("{best}");
    }
    for r in found {
        out!(
            "{} `{}` {} — {}",
            r.entry.kind,
            r.entry.name,
            r.entry.version,
            r.entry.description
        );
        out!(
            "library: {} ({} {}, plugin ABI {})",
            r.library.path.display(),
            r.library.manifest.library_name,
            r.library.manifest.library_version,
            r.library.manifest.versions()
        );
        out!("default configuration:");
        if r.entry.default_config.trim().is_empty() {
            out!("  (none)");
        } else {
            for l in r.entry.default_config.lines() {
                out!("  {l}");
            }
        }
    }
    Ok(EXIT_CLEAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_library_file_name_announces_its_kind_and_name() {
        let problem = |file: &str| Problem {
            path: PathBuf::from(format!("/x/{file}")),
            error: txlab_loader::LoadError::NotAPlugin {
                path: PathBuf::from(file),
            },
        };
        let so = std::env::consts::DLL_SUFFIX;
        let pre = std::env::consts::DLL_PREFIX;
        assert_eq!(
            announced(&problem(&format!("{pre}txlab_oracle_wss{so}"))),
            Some((PluginKind::ORACLE, "wss".to_string()))
        );
        assert_eq!(
            announced(&problem(&format!("{pre}txlab_dialect_my_sql{so}"))),
            Some((PluginKind::DIALECT, "my-sql".to_string()))
        );
        assert_eq!(
            announced(&problem(&format!("{pre}txlab_fixture_panicky{so}"))),
            None
        );
    }
}
