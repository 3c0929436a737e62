//! `txlab`: tests how database systems implement transactions and isolation levels.

use anyhow::Result;
use clap::{ArgAction, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use txlab_host::config::LoadedPipeline;
use txlab_host::findings::{FindingOrigin, SavedFinding};
use txlab_host::pipeline::{self, reduce_and_write, Environment, Resolved, RunOptions, SetupError};
use txlab_host::reduction::{ReduceSettings, ReductionOutcome};
use txlab_host::runner::CaseRunner;
use txlab_loader::registry::{search_dirs, Registry};
use txlab_plugin_api::ir::Verdict;
use txlab_plugin_api::{PluginKind, ABI_LINE, IR_VERSION};

/// `println!` that does not panic when stdout is closed (`txlab … | head`):
/// the run's results are on disk either way, and the exit code must stay true.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Exit codes: what scripts and CI can rely on.
const EXIT_CLEAN: u8 = 0;
const EXIT_FINDINGS: u8 = 1;
const EXIT_SETUP: u8 = 2;
const EXIT_TOOL_ERRORS: u8 = 3;
/// As a shell reports a process ended by SIGINT.
const EXIT_INTERRUPTED: u8 = 130;

/// A flag that the first Ctrl-C sets, so that a run stops after the cases in
/// progress, writes its summary and drops its databases; a second Ctrl-C
/// quits at once.
fn interrupt_on_ctrl_c() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    let watch = move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async {
            tokio::signal::ctrl_c().await.ok()?;
            set.store(true, Ordering::SeqCst);
            eprintln!(
                "\ninterrupted: finishing the cases in progress (Ctrl-C again quits at once)"
            );
            tokio::signal::ctrl_c().await.ok()?;
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        })
    };
    std::thread::spawn(move || {
        let _: Option<()> = watch();
    });
    flag
}

#[derive(Parser)]
#[command(
    name = "txlab",
    version,
    about = "Tests how database systems implement transactions and isolation levels",
    after_help = "Exit codes: 0 nothing found, 1 findings written, 2 usage or set-up error, 3 cases failed with tool errors, 130 interrupted (Ctrl-C) with nothing found."
)]
struct Cli {
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
        command: PluginsCommand,
    },
    /// Check a pipeline file and the configuration of every plugin it names.
    CheckConfig { pipeline: PathBuf },
    /// Measure the executor on a pipeline's target: how fast a blocked
    /// statement is known to be blocked, and the executor's own cost per
    /// statement against a raw driver loop.
    Bench {
        pipeline: PathBuf,
        /// Blocking samples to take.
        #[arg(long, default_value_t = 200)]
        samples: usize,
        /// The server to test, as for `run`.
        #[arg(long)]
        url: Option<String>,
        /// Also write the report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Run a pipeline.
    Run {
        pipeline: PathBuf,
        /// Number of cases to run (overrides the pipeline).
        #[arg(long, conflicts_with = "duration")]
        cases: Option<u64>,
        /// Run for this long instead, e.g. 10m or 1h.
        #[arg(long, value_parser = humantime::parse_duration)]
        duration: Option<Duration>,
        /// The run seed (overrides the pipeline); the same seed gives the same cases.
        #[arg(long)]
        seed: Option<u64>,
        /// Run only the case with this index, e.g. to reproduce a finding.
        #[arg(long, conflicts_with_all = ["cases", "duration"])]
        case: Option<u64>,
        /// Where to write findings (overrides the pipeline's run.out).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The server to test (mysql://user:password@host:port, postgres://…),
        /// over TXLAB_MYSQL_URL / TXLAB_PG_URL and the pipeline's target.url.
        #[arg(long)]
        url: Option<String>,
        /// Write findings as found, without reducing them.
        #[arg(long)]
        no_reduce: bool,
    },
    /// Run a finding's case again (from its generated.json) and say whether
    /// the oracle reports the same finding: to check a fix, or flakiness.
    Replay {
        /// A finding directory, or the reduced/ directory inside one.
        finding: PathBuf,
        /// How many times to run it.
        #[arg(long, default_value_t = 1)]
        times: u32,
        #[command(flatten)]
        target: FindingTarget,
    },
    /// Reduce a finding's case again, e.g. with a larger budget; replaces the
    /// finding's reduced/ directory and reduction.json.
    Reduce {
        /// A finding directory.
        finding: PathBuf,
        /// Candidate cases to run at most (overrides the pipeline's reduce.max_trials).
        #[arg(long)]
        max_trials: Option<usize>,
        /// Time to spend at most, e.g. 5m (overrides reduce.max_time).
        #[arg(long, value_parser = humantime::parse_duration)]
        max_time: Option<Duration>,
        /// Runs that confirm the reduced case (overrides reduce.confirm).
        #[arg(long)]
        confirm: Option<u32>,
        /// Runs of each candidate before it counts as not reproducing, for a
        /// finding that shows only some of the time (overrides reduce.attempts).
        #[arg(long)]
        attempts: Option<u32>,
        #[command(flatten)]
        target: FindingTarget,
    },
}

/// Where to run a saved finding.
#[derive(clap::Args)]
struct FindingTarget {
    /// The pipeline to run it with; by default the one the finding came from.
    #[arg(long)]
    pipeline: Option<PathBuf>,
    /// The server to run it on, as for `run`.
    #[arg(long)]
    url: Option<String>,
}

#[derive(Subcommand)]
enum PluginsCommand {
    /// Every plugin found: kind, name, version, ABI version, file, description.
    List,
    /// One plugin's description and default configuration.
    Show {
        name: String,
        /// dialect, generator or oracle, when several kinds share the name.
        #[arg(long)]
        kind: Option<String>,
    },
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
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}

fn main() -> ExitCode {
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

fn dispatch(cli: &Cli) -> Result<u8> {
    match &cli.command {
        Command::Plugins { command } => {
            let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &[]));
            match command {
                PluginsCommand::List => Ok(list_plugins(&registry)),
                PluginsCommand::Show { name, kind } => {
                    show_plugin(&registry, name, kind.as_deref())
                }
            }
        }
        Command::CheckConfig { pipeline } => {
            let loaded = LoadedPipeline::load(pipeline)?;
            let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &loaded.plugin_dirs()));
            let resolved = Resolved::resolve(&loaded, &registry)?;
            resolved.check()?;
            out!(
                "{}: ok — dialect {} (driver {}), isolation {}, generator {}, oracles {}",
                pipeline.display(),
                resolved.info.name,
                resolved.info.driver,
                resolved
                    .levels
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                resolved.generator_name(),
                resolved.oracle_names().join(", ")
            );
            Ok(EXIT_CLEAN)
        }
        Command::Bench {
            pipeline,
            samples,
            url,
            json,
        } => {
            let loaded = LoadedPipeline::load(pipeline)?;
            let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &loaded.plugin_dirs()));
            let resolved = Resolved::resolve(&loaded, &registry)?;
            let report = txlab_host::bench::run(&resolved, (*samples).max(1), url.as_deref())?;
            out!("{}", report.render());
            if let Some(path) = json {
                std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
            }
            Ok(EXIT_CLEAN)
        }
        Command::Replay {
            finding,
            times,
            target,
        } => replay(cli, finding, *times, target),
        Command::Reduce {
            finding,
            max_trials,
            max_time,
            confirm,
            attempts,
            target,
        } => reduce_again(
            cli,
            finding,
            (*max_trials, *max_time, *confirm, *attempts),
            target,
        ),
        Command::Run {
            pipeline,
            cases,
            duration,
            seed,
            case,
            out,
            url,
            no_reduce,
        } => {
            let loaded = LoadedPipeline::load(pipeline)?;
            let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &loaded.plugin_dirs()));
            let resolved = Resolved::resolve(&loaded, &registry)?;
            let options = RunOptions {
                cases: *cases,
                duration: *duration,
                seed: *seed,
                single_case: *case,
                out: out.clone(),
                url: url.clone(),
                no_reduce: *no_reduce,
                interrupt: Some(interrupt_on_ctrl_c()),
            };
            let summary =
                pipeline::run(&resolved, &options).map_err(|e: SetupError| anyhow::anyhow!(e))?;
            print_summary(&summary);
            Ok(if summary.findings > 0 {
                EXIT_FINDINGS
            } else if summary.interrupted {
                EXIT_INTERRUPTED
            } else if summary.errors > 0 || summary.stopped_early.is_some() {
                EXIT_TOOL_ERRORS
            } else {
                EXIT_CLEAN
            })
        }
    }
}

/// A saved finding with the pipeline it runs on, resolved.
struct FindingSetup {
    saved: SavedFinding,
    loaded: LoadedPipeline,
    registry: Registry,
}

impl FindingSetup {
    fn load(cli: &Cli, dir: &Path, target: &FindingTarget) -> Result<Self> {
        let saved = SavedFinding::load(dir).map_err(|e| anyhow::anyhow!(e))?;
        let path = target
            .pipeline
            .clone()
            .unwrap_or_else(|| saved.provenance.pipeline.clone());
        let loaded = LoadedPipeline::load(&path).map_err(|e| {
            anyhow::anyhow!(
                "{e}{}",
                if target.pipeline.is_none() {
                    " (the pipeline the finding came from; pass --pipeline to use another)"
                } else {
                    ""
                }
            )
        })?;
        let registry = Registry::discover(search_dirs(&cli.plugin_dirs, &loaded.plugin_dirs()));
        Ok(FindingSetup {
            saved,
            loaded,
            registry,
        })
    }

    fn resolve(&self) -> Result<Resolved<'_>> {
        let resolved = Resolved::resolve(&self.loaded, &self.registry)?;
        let oracle = &self.saved.provenance.oracle;
        if !resolved.oracle_names().contains(&oracle.as_str()) {
            anyhow::bail!(
                "the finding is oracle `{oracle}`'s, and {} has no [[oracle]] `{oracle}`",
                self.loaded.path.display()
            );
        }
        if resolved.info.name != self.saved.provenance.dialect {
            eprintln!(
                "note: the finding came from dialect `{}`; running it on `{}`",
                self.saved.provenance.dialect, resolved.info.name
            );
        }
        Ok(resolved)
    }
}

/// A runner on one worker database of the pipeline's target.
fn open_runner<'a>(resolved: &'a Resolved<'a>, env: &Environment) -> Result<CaseRunner<'a>> {
    let setups = env.level_setups(resolved)?;
    Ok(CaseRunner::open(
        resolved,
        env,
        0,
        &setups,
        resolved.new_oracles()?,
    )?)
}

fn replay(cli: &Cli, dir: &Path, times: u32, target: &FindingTarget) -> Result<u8> {
    let setup = FindingSetup::load(cli, dir, target)?;
    let resolved = setup.resolve()?;
    let env = Environment::new(&resolved, target.url.as_deref())?;
    let mut runner = open_runner(&resolved, &env)?;
    let oracle = &setup.saved.provenance.oracle;
    let title = &setup.saved.finding.title;
    let signature = setup.saved.finding.signature();
    out!("replaying {} ({oracle}: {title})", dir.display());
    let (mut same, mut errors) = (0, 0);
    for i in 1..=times.max(1) {
        let line = match runner.evaluate(&setup.saved.generated, Some(oracle)) {
            Err(e) => {
                errors += 1;
                format!("tool error: {e}")
            }
            Ok(run) => match run.verdicts.into_iter().next().map(|(_, v)| v) {
                Some(Verdict::Finding(f)) if f.signature() == signature => {
                    same += 1;
                    "the same finding".to_string()
                }
                Some(Verdict::Finding(f)) => format!("another finding: {}", f.title),
                Some(Verdict::Undecided { reason }) => format!("undecided: {reason}"),
                Some(Verdict::Pass) | None => "pass".to_string(),
            },
        };
        out!("  run {i}: {line}");
    }
    out!("reproduced {same}/{}", times.max(1));
    Ok(if same > 0 {
        EXIT_FINDINGS
    } else if errors > 0 {
        EXIT_TOOL_ERRORS
    } else {
        EXIT_CLEAN
    })
}

/// Command-line overrides of the pipeline's `[reduce]` settings.
type ReduceOverrides = (Option<usize>, Option<Duration>, Option<u32>, Option<u32>);

fn reduce_again(
    cli: &Cli,
    dir: &Path,
    (max_trials, max_time, confirm, attempts): ReduceOverrides,
    target: &FindingTarget,
) -> Result<u8> {
    if dir
        .file_name()
        .is_some_and(|n| n == "reduced" || n == "unconfirmed")
        && dir
            .parent()
            .is_some_and(|p| p.join("provenance.json").exists())
    {
        anyhow::bail!(
            "{} is a reduced case; reduce the finding it belongs to: txlab reduce {}",
            dir.display(),
            dir.parent().unwrap_or(dir).display()
        );
    }
    let setup = FindingSetup::load(cli, dir, target)?;
    let base = setup.loaded.pipeline.reduce.settings();
    let overrides = ReduceSettings {
        max_trials: max_trials.unwrap_or(base.max_trials),
        max_time: max_time.unwrap_or(base.max_time),
        confirm: confirm.unwrap_or(base.confirm).max(1),
        attempts: attempts.unwrap_or(base.attempts).max(1),
    };
    let resolved = setup.resolve()?;
    let env = Environment::new(&resolved, target.url.as_deref())?;
    let mut runner = open_runner(&resolved, &env)?;
    let p = &setup.saved.provenance;
    out!(
        "reducing {} ({}: {}), at most {} trials or {}",
        dir.display(),
        p.oracle,
        setup.saved.finding.title,
        overrides.max_trials,
        humantime::format_duration(overrides.max_time)
    );
    let report = reduce_and_write(
        &mut runner,
        dir,
        FindingOrigin {
            oracle: &p.oracle,
            dialect: &resolved.info,
            generator: &p.generator,
            pipeline: &setup.loaded.path,
            request: setup.saved.request(),
        },
        &setup.saved.generated,
        &setup.saved.finding,
        &overrides,
        None,
    )?;
    out!("{}", report.summary());
    // Exit 1 as long as a case shows the finding, as `replay` does.
    let attempt = dir.join("reduction-attempt.json");
    if attempt.exists() {
        out!(
            "an earlier, smaller reduction stays in {}; this attempt is in {}",
            dir.join("reduced").display(),
            attempt.display()
        );
    } else {
        out!("written: {}", dir.join("reduction.json").display());
    }
    Ok(match report.outcome {
        ReductionOutcome::OriginalDidNotReproduce => EXIT_CLEAN,
        ReductionOutcome::Reduced | ReductionOutcome::ReducedDidNotReproduce => EXIT_FINDINGS,
    })
}

fn print_summary(s: &pipeline::RunSummary) {
    let rate = if s.elapsed_secs > 0.0 {
        s.cases as f64 / s.elapsed_secs
    } else {
        0.0
    };
    out!(
        "txlab: {} cases in {:.1} s ({rate:.1} cases/s), seed {}",
        s.cases,
        s.elapsed_secs,
        s.seed
    );
    out!(
        "  passed {}, findings {} (in {} cases), undecided {}, tool errors {}",
        s.passed,
        s.findings,
        s.cases_with_findings,
        s.undecided,
        s.errors
    );
    let x = &s.exercised;
    let aborted: u64 = x.aborted.values().sum();
    let by_class: Vec<String> = x.aborted.iter().map(|(c, n)| format!("{c} {n}")).collect();
    out!(
        "  exercised: {} transactions ({} committed, {} rolled back, {aborted} aborted{}), {} blocked statements in {} cases",
        x.transactions,
        x.committed,
        x.rolled_back,
        if by_class.is_empty() { String::new() } else { format!(": {}", by_class.join(", ")) },
        x.blocked_statements,
        x.cases_with_blocking
    );
    let mut kinds: Vec<_> = s.finding_kinds.iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(a.1));
    for (kind, n) in kinds {
        out!("  finding {n}×: {kind}");
    }
    let mut reasons: Vec<_> = s.undecided_reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1));
    for (reason, n) in reasons.into_iter().take(5) {
        out!("  undecided {n}×: {reason}");
    }
    if let Some(why) = &s.stopped_early {
        out!("  stopped early: {why}");
    }
    if s.errors > 0 {
        out!(
            "  tool errors are listed in {}",
            s.run_dir.join("errors.log").display()
        );
    }
    out!("  output: {}", s.run_dir.display());
}

fn list_plugins(registry: &Registry) -> u8 {
    if registry.entries.is_empty() {
        out!("no plugins found");
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
        out!(
            "shadowed: {} `{}` in {} (the one in {} is used)",
            s.kind,
            s.name,
            s.path.display(),
            s.winner.display()
        );
    }
    for p in &registry.problems {
        out!("not loadable: {}", p.error);
    }
    out!("this txlab loads plugin ABI {ABI_LINE}, IR up to {IR_VERSION}; searched:");
    for (d, exists) in &registry.searched {
        out!(
            "  {}{}",
            d.path.display(),
            if *exists { "" } else { " (missing)" }
        );
    }
    EXIT_CLEAN
}

fn show_plugin(registry: &Registry, name: &str, kind: Option<&str>) -> Result<u8> {
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
