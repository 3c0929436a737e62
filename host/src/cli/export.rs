//! `txlab export`: a finding's case as a mysql-test file, a PostgreSQL
//! isolation spec, Troc's case file or a plain `-- T1:` script
//! (docs/export.md). The writers are `txlab_script::export`; this reads the
//! finding and renders its case with the dialect it ran on.

use super::setup::PipelineSetup;
use super::{out, Cli, EXIT_CLEAN};
use crate::config::{ExecutorSection, LoadedPipeline};
use crate::io::{read_json, Provenance, ReportKind};
use anyhow::{anyhow, bail, Context as _};
use std::path::{Path, PathBuf};
use txlab_loader::registry::{search_dirs, Registry};
use txlab_plugin_api::ir::*;
use txlab_plugin_api::PluginKind;
use txlab_script::export::{export, ExportFormat, ExportInput, ExportOptions, Origin};
use txlab_script::Family;

#[derive(clap::Args)]
pub(super) struct ExportArgs {
    /// A finding directory (OUT/run-…/findings/case-…), its reduced/, a
    /// `txlab check` directory, or a case JSON (with --history).
    finding: PathBuf,
    /// mtr (mysql-test .test and .result), spec (PostgreSQL isolation
    /// tester), troc (Troc's case file) or sql (`-- T1:` marked script).
    #[arg(long, value_parser = parse_format)]
    format: ExportFormat,
    /// Write here instead of printing (mtr: the .result goes beside it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The history of a case JSON; by default history.json beside it.
    #[arg(long)]
    history: Option<PathBuf>,
    /// The dialect to render the case with; by default the finding's.
    #[arg(long)]
    dialect: Option<String>,
    /// The pipeline whose dialect configuration to use; by default the one
    /// the finding came from.
    #[arg(long)]
    pipeline: Option<PathBuf>,
    /// mtr only: the database the test's connections use (default `test`).
    #[arg(long)]
    database: Option<String>,
}

fn parse_format(text: &str) -> Result<ExportFormat, String> {
    ExportFormat::named(text).ok_or_else(|| {
        format!(
            "unknown format `{text}` (one of {})",
            ExportFormat::ALL.map(ExportFormat::name).join(", ")
        )
    })
}

/// What the export is made from.
struct Source {
    case: TestCase,
    history: History,
    provenance: Option<Provenance>,
    lead: String,
}

fn read_source(args: &ExportArgs) -> anyhow::Result<Source> {
    let path = &args.finding;
    let (case_path, history_path, dir) = if path.is_dir() {
        let case = path.join("case.json");
        if !case.exists() {
            bail!(
                "{} is not a finding directory: it has no case.json (finding directories are OUT/run-…/findings/case-…; a case JSON needs --history)",
                path.display()
            );
        }
        let history = args
            .history
            .clone()
            .unwrap_or_else(|| path.join("history.json"));
        (case, history, Some(path.as_path()))
    } else if path.is_file() {
        let history = match &args.history {
            Some(h) => h.clone(),
            None => path.with_file_name("history.json"),
        };
        (path.clone(), history, None)
    } else {
        bail!("{}: no such finding directory or file", path.display());
    };
    if !history_path.exists() {
        bail!(
            "{}: no history to export with the case (give one with --history)",
            history_path.display()
        );
    }
    let case: TestCase = read_json(&case_path).map_err(|e| anyhow!(e))?;
    let history: History = read_json(&history_path).map_err(|e| anyhow!(e))?;
    let provenance = dir
        .filter(|d| d.join("provenance.json").exists())
        .map(Provenance::load)
        .transpose()
        .map_err(|e| anyhow!(e))?;
    let finding: Option<Finding> = dir
        .map(|d| d.join("finding.json"))
        .filter(|f| f.exists())
        .map(|f| read_json(&f))
        .transpose()
        .map_err(|e| anyhow!(e))?;
    let lead = match (&finding, &provenance) {
        (Some(f), Some(p)) if p.kind == ReportKind::VendorPermitted => {
            format!("txlab vendor-permitted anomaly: {}", f.title)
        }
        (Some(f), _) => format!("txlab finding: {}", f.title),
        (None, _) => format!("txlab case {}", case_path.display()),
    };
    Ok(Source {
        case,
        history,
        provenance,
        lead,
    })
}

/// The case rendered by dialect `name`: configured as `pipeline` configures
/// it when that pipeline's dialect is `name`, else with its defaults.
fn render(
    cli: &Cli,
    case: &TestCase,
    name: &str,
    pipeline: Option<&Path>,
) -> anyhow::Result<(RenderedCase, DialectInfo)> {
    let loaded = match pipeline {
        Some(p) => match LoadedPipeline::load(p) {
            Ok(l) => Some(l),
            Err(e) => {
                eprintln!(
                    "note: the pipeline could not be read ({e}); rendering with dialect `{name}`'s defaults"
                );
                None
            }
        },
        None => None,
    };
    if let Some(loaded) = loaded.filter(|l| l.pipeline.target.dialect.get_ref() == name) {
        let setup = PipelineSetup::from_loaded(cli, loaded)?;
        match setup.resolve() {
            Ok(resolved) => {
                let limits = setup.loaded.pipeline.executor.session_limits();
                let rendered = resolved.dialect.render_case(case, &limits)?;
                return Ok((rendered, resolved.info));
            }
            Err(e) => eprintln!(
                "note: the pipeline's plugins could not be resolved ({e}); rendering with dialect `{name}`'s defaults"
            ),
        }
    }
    let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &[]));
    let entry = registry
        .get(PluginKind::DIALECT, name)
        .map_err(|e| anyhow!("dialect `{name}`: {e}"))?;
    let dialect = entry.library.new_dialect(&entry.entry.name, "{}")?;
    let info = dialect.info()?;
    let limits = ExecutorSection::default().session_limits();
    Ok((dialect.render_case(case, &limits)?, info))
}

fn family(info: &DialectInfo) -> Family {
    Family::of_dialect(&info.name).unwrap_or(match info.driver.as_str() {
        "mysql" => Family::Mysql,
        "postgres" => Family::Postgres,
        "sqlite" => Family::Sqlite,
        _ => Family::Generic,
    })
}

/// Where mtr's expected output goes: FILE.test → FILE.result.
fn result_path(test: &Path) -> PathBuf {
    if test.extension().is_some_and(|e| e == "test") {
        test.with_extension("result")
    } else {
        let mut name = test.as_os_str().to_owned();
        name.push(".result");
        PathBuf::from(name)
    }
}

pub(super) fn run(cli: &Cli, args: &ExportArgs) -> anyhow::Result<u8> {
    if args.database.is_some() && args.format != ExportFormat::Mtr {
        bail!("--database is for --format mtr");
    }
    let source = read_source(args)?;
    let provenance = source.provenance.as_ref();
    let dialect = args
        .dialect
        .clone()
        .or_else(|| provenance.map(|p| p.dialect.clone()))
        .ok_or_else(|| {
            anyhow!(
                "{} names no dialect (it has no provenance.json): give --dialect",
                args.finding.display()
            )
        })?;
    // A format that cannot fit the dialect is refused before any plugin loads.
    if let Some(f) = Family::of_dialect(&dialect) {
        if !args.format.fits(f) {
            return Err(txlab_script::export::ExportError::WrongDialect {
                format: args.format,
                dialect,
            }
            .into());
        }
    }
    let pipeline = args
        .pipeline
        .clone()
        .or_else(|| provenance.map(|p| p.pipeline.clone()));
    let (rendered, info) = render(cli, &source.case, &dialect, pipeline.as_deref())?;
    let input = ExportInput {
        case: &source.case,
        history: &source.history,
        rendered: &rendered,
        family: family(&info),
        dialect: &info.name,
        lead: &source.lead,
        origin: provenance.map(|p| Origin {
            oracle: &p.oracle,
            generator: &p.generator,
            request: CaseRequest {
                run_seed: p.run_seed,
                index: p.case_index,
                seed: p.case_seed,
            },
        }),
    };
    let options = ExportOptions {
        database: args.database.clone(),
    };
    let files = export(args.format, &input, &options)?;
    match &args.out {
        Some(path) => {
            for file in &files {
                let target = if file.extension == "result" {
                    result_path(path)
                } else {
                    path.clone()
                };
                crate::io::write_atomically(&target, file.text.as_bytes())
                    .with_context(|| format!("cannot write {}", target.display()))?;
                eprintln!("wrote {}", target.display());
            }
        }
        None => {
            out!("{}", files[0].text.trim_end());
            if files.len() > 1 {
                eprintln!(
                    "note: the expected .result is written with --out FILE.test (as FILE.result)"
                );
            }
        }
    }
    Ok(EXIT_CLEAN)
}
