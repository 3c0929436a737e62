//! The `txlab` command line: parsing and dispatch here, one file per
//! subcommand beside it.

mod bench;
mod check;
mod check_config;
mod clean;
mod export;
mod finding;
mod generate;
mod history;
mod html;
mod import;
mod merge;
mod plugins;
mod reduce;
mod replay;
mod run;
mod semantics;
mod setup;

use clap::{ArgAction, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// `println!` that does not panic when stdout is closed (`txlab … | head`):
/// the run's results are on disk either way, and the exit code must stay true.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub(crate) use out;

/// Exit codes: what scripts and CI can rely on.
pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_SETUP: u8 = 2;
pub const EXIT_TOOL_ERRORS: u8 = 3;
/// As a shell reports a process ended by SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;

#[derive(Parser)]
#[command(
    name = "txlab",
    version,
    about = "Tests how database systems implement transactions and isolation levels",
    after_help = "Exit codes: 0 nothing found, 1 findings written, 2 usage or set-up error, 3 cases failed with tool errors, 130 interrupted (Ctrl-C, SIGTERM, SIGHUP) with nothing found."
)]
pub struct Cli {
    /// More log output (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    verbose: u8,
    /// A directory to search for plugin libraries first (repeatable).
    #[arg(long = "plugin-dir", value_name = "DIR", global = true)]
    plugin_dirs: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List or inspect the plugins txlab can find.
    Plugins {
        #[command(subcommand)]
        command: plugins::PluginsCommand,
    },
    /// Check a pipeline file and the configuration of every plugin it names.
    CheckConfig {
        pipeline: PathBuf,
        /// One JSON document on stdout: `ok`, and the pipeline's parts or the
        /// error.
        #[arg(long)]
        json: bool,
    },
    /// Measure the executor on a pipeline's target: how fast a blocked
    /// statement is known to be blocked, and the executor's own cost per
    /// statement against a raw driver loop.
    Bench(bench::BenchArgs),
    /// Run a pipeline.
    Run(run::RunArgs),
    /// Check the dialect's declared isolation semantics against the
    /// pipeline's server: small experiments at every level, each judged by
    /// the fact it shows; exit 1 when the server contradicts a fact.
    Semantics(semantics::SemanticsArgs),
    /// Print the cases a pipeline would run, without running them: one JSON
    /// document per line, or the rendered SQL per session with --sql.
    Generate(generate::GenerateArgs),
    /// Run a finding's case again (from its generated.json) and say whether
    /// the oracle reports the same finding: to check a fix, or flakiness.
    Replay(replay::ReplayArgs),
    /// Read a bug script (repro.sql, SQL with `-- T1:` session markers, a
    /// PostgreSQL isolation .spec) as a txlab case (JSON).
    Import(import::ImportArgs),
    /// Run one script or case JSON on a pipeline's target through its
    /// oracles; prints each verdict and writes the case, history and report.
    Check(check::CheckArgs),
    /// Write a finding's case for the tools DBMS developers run: a
    /// mysql-test file (mtr), a PostgreSQL isolation spec (spec), Troc's case
    /// file (troc) or a `-- T1:` marked script (sql).
    Export(export::ExportArgs),
    /// Reduce a finding's case again, e.g. with a larger budget; replaces the
    /// finding's reduced/ directory and reduction.json.
    Reduce(reduce::ReduceArgs),
    /// List the databases and SQLite directories that runs no longer alive
    /// left behind (by their txlab mark, never by name alone); --drop
    /// removes them.
    Clean(clean::CleanArgs),
    /// Histories in and out: check an Elle or dbcop history file with
    /// txlab's checker (anomalies in Elle's terms), export an IsoRel
    /// finding's or run's history as an Elle or dbcop file.
    History {
        #[command(subcommand)]
        command: history::HistoryCommand,
    },
    /// Combine run directories (the shards of a run, or runs of one seed)
    /// into one summary, with findings de-duplicated by oracle and signature.
    Merge(merge::MergeArgs),
    /// Write a run directory's page, index.html, again from its files: the
    /// counts, each finding and anomaly with its timeline, dependency cycle,
    /// expected and actual rows and reduced case (offline, one file).
    Html(html::HtmlArgs),
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let colour = colour_on_stderr();
    if !colour {
        // The progress bar's styling too.
        console::set_colors_enabled(false);
        console::set_colors_enabled_stderr(false);
    }
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .with_target(false)
        .init();
}

/// ANSI colour only for a terminal, and never with `NO_COLOR` set
/// (no-color.org): a log piped into a file or CI stays plain text.
fn colour_on_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The `txlab` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    match dispatch(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_SETUP)
        }
    }
}

fn dispatch(cli: &Cli) -> anyhow::Result<u8> {
    // A directory that is not there would be searched for nothing, silently.
    if let Some(missing) = cli.plugin_dirs.iter().find(|d| !d.is_dir()) {
        anyhow::bail!("--plugin-dir {}: no such directory", missing.display());
    }
    match &cli.command {
        Command::Plugins { command } => plugins::run(cli, command),
        Command::CheckConfig { pipeline, json } => check_config::run(cli, pipeline, *json),
        Command::Bench(args) => bench::run(cli, args),
        Command::Run(args) => run::run(cli, args),
        Command::Semantics(args) => semantics::run(cli, args),
        Command::Generate(args) => generate::run(cli, args),
        Command::Replay(args) => replay::run(cli, args),
        Command::Reduce(args) => reduce::run(cli, args),
        Command::Import(args) => import::run(cli, args),
        Command::Check(args) => check::run(cli, args),
        Command::Export(args) => export::run(cli, args),
        Command::Clean(args) => clean::run(cli, args),
        Command::Merge(args) => merge::run(cli, args),
        Command::Html(args) => html::run(cli, args),
        Command::History { command } => history::run(cli, command),
    }
}

/// A duration argument written the human way: "10m", "1h 30m".
fn parse_duration(s: &str) -> Result<Duration, humantime::DurationError> {
    humantime::parse_duration(s)
}

/// A duration argument that must be above zero.
fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    match parse_duration(s) {
        Ok(d) if d.is_zero() => Err("must be above zero".into()),
        Ok(d) => Ok(d),
        Err(e) => Err(e.to_string()),
    }
}
