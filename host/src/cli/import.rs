//! `txlab import`: a bug script (repro.sql, a `-- T1:` marked script, a
//! PostgreSQL isolation spec) as a txlab case.

use super::{out, Cli, EXIT_CLEAN};
use std::path::{Path, PathBuf};
use txlab_plugin_api::ir::{IsolationLevel, TestCase};
use txlab_script::{Family, ImportOptions};

/// How to read a script; shared with `txlab check`.
#[derive(clap::Args, Clone, Debug)]
pub(super) struct ScriptArgs {
    /// The SQL grammar and default isolation level: sqlite, mariadb, mysql,
    /// tidb, postgres, cockroachdb; a generic grammar when not given.
    #[arg(long)]
    pub(super) dialect: Option<String>,
    /// The isolation level of transactions whose script states none
    /// (read-committed, repeatable-read, serializable, …).
    #[arg(long, value_parser = parse_level)]
    level: Option<IsolationLevel>,
    /// Which permutation of a .spec to take, counting from 1.
    #[arg(long)]
    permutation: Option<usize>,
}

#[derive(clap::Args)]
pub(super) struct ImportArgs {
    /// The script: .spec for an isolation spec, else SQL (repro.sql or `-- T1:` markers).
    file: PathBuf,
    /// Write the case here instead of printing it.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    script: ScriptArgs,
}

fn parse_level(text: &str) -> Result<IsolationLevel, String> {
    txlab_script::translate::level_named(text).ok_or_else(|| {
        format!(
            "unknown isolation level `{text}` (one of {})",
            IsolationLevel::ALL.map(|l| l.name()).join(", ")
        )
    })
}

/// The level a DBMS starts a transaction at when nothing sets one.
pub(super) fn default_level(dialect: &str) -> Option<IsolationLevel> {
    Some(match dialect {
        "sqlite" | "cockroachdb" => IsolationLevel::Serializable,
        "mariadb" | "mysql" | "tidb" | "galera" => IsolationLevel::RepeatableRead,
        "postgres" => IsolationLevel::ReadCommitted,
        _ => return None,
    })
}

/// Reads `file` as a case, reading scripts for `dialect`; notes go to stderr.
pub(super) fn read_case(
    file: &Path,
    args: &ScriptArgs,
    dialect: Option<&str>,
) -> anyhow::Result<TestCase> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    let name = file.display().to_string();
    if name.ends_with(".json") {
        let case: TestCase = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{name} is not a txlab case: {e}"))?;
        case.validate()
            .map_err(|e| anyhow::anyhow!("{name}: the case is invalid: {e}"))?;
        return Ok(case);
    }
    let family = match dialect {
        Some(d) => Family::of_dialect(d).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown dialect `{d}` (sqlite, mariadb, mysql, galera, tidb, postgres, cockroachdb)"
            )
        })?,
        None => Family::Generic,
    };
    let options = ImportOptions {
        family,
        level: args.level,
        default_level: dialect.and_then(default_level),
        permutation: args.permutation,
    };
    let imported = txlab_script::import(&name, &text, &options)?;
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    Ok(imported.case)
}

pub(super) fn run(_cli: &Cli, args: &ImportArgs) -> anyhow::Result<u8> {
    let case = read_case(&args.file, &args.script, args.script.dialect.as_deref())?;
    let json = serde_json::to_string_pretty(&case)?;
    match &args.output {
        Some(path) => {
            std::fs::write(path, json + "\n")
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
            eprintln!(
                "wrote {} ({} transactions, {} statements)",
                path.display(),
                case.transactions.len(),
                case.statement_count()
            );
        }
        None => out!("{json}"),
    }
    Ok(EXIT_CLEAN)
}
