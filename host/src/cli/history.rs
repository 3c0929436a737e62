//! `txlab history`: histories in and out. `check` reads an Elle or dbcop
//! history file, checks it with txlab's checker and prints the anomalies in
//! Elle's terms; `export` writes an IsoRel finding's (or a run's) history as
//! an Elle or dbcop file.

use super::setup::PipelineSetup;
use super::{out, Cli, EXIT_CLEAN, EXIT_FINDINGS};
use crate::config::LoadedPipeline;
use crate::io::{read_json, Provenance};
use anyhow::{bail, Context};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use txlab_history::formats::names::{check_options, named, Model};
use txlab_history::formats::{dbcop, elle, Imported};
use txlab_history::{History, Observation, Transaction, Write};
use txlab_plugin_api::ir::{DialectInfo, TestCase};

#[derive(clap::Subcommand)]
pub(super) enum HistoryCommand {
    /// Check an Elle (EDN, or elle-cli's JSON) or dbcop history file with
    /// txlab's checker; prints the anomalies in Elle's terms and exits 1 when
    /// the model forbids one.
    Check(CheckArgs),
    /// Write the history of an IsoRel finding, anomaly or run directory as
    /// an Elle list-append (EDN) or dbcop (JSON) history.
    Export(ExportArgs),
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Format {
    /// Elle's list-append or rw-register history (Jepsen's EDN; `.json`:
    /// elle-cli's JSON).
    Elle,
    /// dbcop's history (JSON, or the OOPSLA 2019 history.bincode).
    Dbcop,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(super) enum ModelArg {
    Serializable,
    SnapshotIsolation,
    RepeatableRead,
    ReadCommitted,
}

impl ModelArg {
    fn model(self) -> Model {
        match self {
            ModelArg::Serializable => Model::Serializable,
            ModelArg::SnapshotIsolation => Model::SnapshotIsolation,
            ModelArg::RepeatableRead => Model::RepeatableRead,
            ModelArg::ReadCommitted => Model::ReadCommitted,
        }
    }
}

#[derive(clap::Args)]
pub(super) struct CheckArgs {
    /// The history file.
    file: PathBuf,
    #[arg(long, value_enum)]
    format: Format,
    /// The consistency model the history should satisfy (Elle's).
    #[arg(long, value_enum, default_value = "serializable")]
    model: ModelArg,
}

#[derive(clap::Args)]
pub(super) struct ExportArgs {
    /// A finding or anomaly directory of an isorel run (history.json and
    /// case.json), or a run directory (all of its isorel findings and
    /// anomalies, as one history).
    dir: PathBuf,
    #[arg(long, value_enum)]
    format: Format,
    /// Where to write it; standard output by default.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub(super) fn run(cli: &Cli, command: &HistoryCommand) -> anyhow::Result<u8> {
    match command {
        HistoryCommand::Check(args) => check(args),
        HistoryCommand::Export(args) => export(cli, args),
    }
}

fn import(file: &Path, format: Format) -> anyhow::Result<Imported> {
    let shown = file.display();
    Ok(match format {
        Format::Elle => {
            let f = std::fs::File::open(file).with_context(|| format!("cannot open {shown}"))?;
            elle::import(
                std::io::BufReader::with_capacity(1 << 20, f),
                elle::Syntax::of_path(file),
            )
            .with_context(|| format!("{shown}"))?
        }
        Format::Dbcop => {
            let bytes = std::fs::read(file).with_context(|| format!("cannot read {shown}"))?;
            dbcop::import(&bytes).with_context(|| format!("{shown}"))?
        }
    })
}

fn check(args: &CheckArgs) -> anyhow::Result<u8> {
    let model = args.model.model();
    let t0 = Instant::now();
    let imported = import(&args.file, args.format)?;
    let read = t0.elapsed();
    let report = txlab_history::check(&imported.history, &check_options());
    let checked = t0.elapsed() - read;
    let h = &imported.history;
    let s = &report.stats;
    out!(
        "{}: {} history of {} transactions ({} committed, {} aborted, {} unknown), {} reads{}",
        args.file.display(),
        imported.workload.name(),
        h.len(),
        s.committed,
        s.aborted,
        s.unknown,
        h.observation_count(),
        if imported.from_txlab {
            " (exported by txlab)"
        } else {
            ""
        }
    );
    out!(
        "read in {:.2} s, checked in {:.2} s; model {} (Elle's :{}, Adya's {})",
        read.as_secs_f64(),
        checked.as_secs_f64(),
        model.name(),
        model.name(),
        model.adya()
    );
    let all = named(&imported, &report);
    let mut forbidden = Vec::new();
    let mut allowed = Vec::new();
    for n in &all {
        let verdict = if model.forbids(n.name) {
            if !forbidden.contains(&n.name) {
                forbidden.push(n.name);
            }
            "forbidden"
        } else {
            if !allowed.contains(&n.name) {
                allowed.push(n.name);
            }
            "allowed"
        };
        out!(
            "\n{} ({verdict} by {}): {}",
            n.name,
            model.name(),
            n.summary
        );
        for e in &n.edges {
            out!("  - {}", e.evidence);
        }
        for t in &n.txns {
            if let (Some(o), Some(txn)) = (imported.origin(*t), h.transaction(*t)) {
                let index = o
                    .index
                    .map_or("no :index".to_string(), |i| format!(":index {i}"));
                let process = o
                    .process
                    .map_or(String::new(), |p| format!(", process {p}"));
                out!(
                    "  {} is the op at line {} ({index}{process})",
                    txn.label,
                    o.line
                );
            }
        }
    }
    if s.searches_cut > 0 {
        out!(
            "\n{} cycle searches were cut at their bound: the cycles shown may not be the shortest",
            s.searches_cut
        );
    }
    out!("");
    if forbidden.is_empty() {
        if allowed.is_empty() {
            out!("valid: no anomaly; {} holds", model.name());
        } else {
            out!(
                "valid: {} holds (anomalies it allows: {})",
                model.name(),
                allowed.join(", ")
            );
        }
        Ok(EXIT_CLEAN)
    } else {
        out!("invalid: {} forbids {}", model.name(), forbidden.join(", "));
        Ok(EXIT_FINDINGS)
    }
}

/// The finding directories under `dir`: itself, or a run's findings and
/// anomalies.
fn finding_dirs(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if dir.join("provenance.json").exists() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut out = Vec::new();
    for sub in ["findings", "anomalies"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().join("provenance.json").exists() {
                out.push(e.path());
            }
        }
    }
    if out.is_empty() && !dir.join("findings").exists() && !dir.join("anomalies").exists() {
        bail!(
            "{} is neither a finding directory (provenance.json) nor a run directory (findings/, anomalies/)",
            dir.display()
        );
    }
    out.sort();
    Ok(out)
}

/// The dialect and the isorel columns of the pipeline a finding came from,
/// when it can be loaded.
fn pipeline_facts(cli: &Cli, provenance: &Provenance) -> (Option<DialectInfo>, String, String) {
    let mut columns = ("txlab_row".to_string(), "txlab_writers".to_string());
    let Ok(loaded) = LoadedPipeline::load(&provenance.pipeline) else {
        return (None, columns.0, columns.1);
    };
    for o in &loaded.pipeline.oracles {
        if o.plugin.get_ref() == "isorel" {
            if let Some(t) = &o.config {
                if let Some(v) = t.table.get("row_id_column").and_then(|v| v.as_str()) {
                    columns.0 = v.to_string();
                }
                if let Some(v) = t.table.get("writers_column").and_then(|v| v.as_str()) {
                    columns.1 = v.to_string();
                }
            }
        }
    }
    let info = PipelineSetup::from_loaded(cli, loaded)
        .ok()
        .and_then(|p| p.resolve().ok().map(|r| r.info));
    (info, columns.0, columns.1)
}

/// One finding's history.
fn finding_history(cli: &Cli, dir: &Path) -> anyhow::Result<History> {
    let provenance = Provenance::load(dir).map_err(anyhow::Error::msg)?;
    if provenance.oracle != "isorel" {
        bail!(
            "{} is oracle `{}`'s finding: only IsoRel's runs record the writer lists a history needs",
            dir.display(),
            provenance.oracle
        );
    }
    let case: TestCase = read_json(&dir.join("case.json")).map_err(anyhow::Error::msg)?;
    let run: txlab_plugin_api::ir::History =
        read_json(&dir.join("history.json")).map_err(anyhow::Error::msg)?;
    let (dialect, row_id, writers) = pipeline_facts(cli, &provenance);
    if dialect.is_none() {
        eprintln!(
            "note: {}: the pipeline {} could not be loaded; exported without snapshot times",
            dir.display(),
            provenance.pipeline.display()
        );
    }
    let observed = txlab_history::ir::observe(&case, &run, dialect.as_ref(), &row_id, &writers)
        .map_err(|e| anyhow::anyhow!("{}: {}", dir.display(), e.0))?;
    Ok(observed.history)
}

/// Several histories as one: each case's transactions and rows numbered
/// after the previous case's, labels prefixed with the case's directory.
fn combine(parts: Vec<(String, History)>) -> anyhow::Result<History> {
    if parts.len() == 1 {
        return Ok(parts.into_iter().next().expect("one").1);
    }
    let mut out = History::new();
    let (mut txn_base, mut row_base) = (0u64, 0u64);
    for (name, h) in parts {
        let (mut max_txn, mut max_row) = (0u64, 0u64);
        for t in h.transactions() {
            max_txn = max_txn.max(t.id);
            let mut t: Transaction = t.clone();
            t.id += txn_base;
            t.label = format!("{name}/{}", t.label);
            out.add_transaction(t)?;
        }
        let shift = |id: u64| if id == 0 { 0 } else { id + txn_base };
        for mut o in h.observations() {
            max_row = max_row.max(o.row);
            o.statement.txn = shift(o.statement.txn);
            o.row += row_base;
            o.versions = o.versions.iter().map(|&v| shift(v)).collect();
            out.observe(Observation { ..o })?;
        }
        for mut w in h.writes() {
            max_row = max_row.max(w.row);
            w.statement.txn = shift(w.statement.txn);
            w.row += row_base;
            out.write(Write { ..w })?;
        }
        txn_base += max_txn + 1;
        row_base += max_row + 1;
    }
    Ok(out)
}

fn export(cli: &Cli, args: &ExportArgs) -> anyhow::Result<u8> {
    let dirs = finding_dirs(&args.dir)?;
    let mut parts = Vec::new();
    for d in &dirs {
        match finding_history(cli, d) {
            Ok(h) => parts.push((
                d.file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("case")
                    .to_string(),
                h,
            )),
            Err(e) if dirs.len() > 1 => eprintln!("skipped: {e:#}"),
            Err(e) => return Err(e),
        }
    }
    if parts.is_empty() {
        bail!(
            "{} holds no IsoRel finding or anomaly to export",
            args.dir.display()
        );
    }
    let n = parts.len();
    let history = combine(parts)?;
    let mut sink: Box<dyn std::io::Write> = match &args.out {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    match args.format {
        Format::Elle => elle::export(&history, &mut sink, &elle::ExportOptions::default())?,
        Format::Dbcop => {
            serde_json::to_writer(&mut sink, &dbcop::export(&history, true))?;
            writeln!(sink)?;
        }
    }
    sink.flush()?;
    if let Some(p) = &args.out {
        eprintln!(
            "wrote {} ({} transactions from {n} finding{})",
            p.display(),
            history.len(),
            if n == 1 { "" } else { "s" }
        );
    }
    Ok(EXIT_CLEAN)
}
