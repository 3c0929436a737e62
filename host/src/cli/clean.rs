//! `txlab clean`: lists what runs that are no longer alive left behind —
//! databases on a server, `txlab-run-*` SQLite directories — by their txlab
//! mark, and removes it with `--drop`.

use super::setup::{PipelineSetup, ServerArgs};
use super::{out, Cli, EXIT_CLEAN, EXIT_SETUP, EXIT_TOOL_ERRORS};
use crate::driver::{login, redact_url, url_without_password, Login, PasswordSources, ServerKind};
use crate::setup::{pipeline_target, PipelineTarget};
use crate::target::clean::{
    drop_database, remove_dir, survey_dir, survey_server, CleanOptions, Found, Removal, Verdict,
};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct CleanArgs {
    #[command(flatten)]
    server: ServerArgs,
    /// Look where this pipeline's runs go: its server (as `run` finds it)
    /// or its `[target] path`.
    #[arg(long)]
    pipeline: Option<PathBuf>,
    /// Also look for txlab-run-* directories here (repeatable); the
    /// temporary directory is always searched.
    #[arg(long = "dir", value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Only the databases or directory of this run (its tag txlab_…, or
    /// the directory's name txlab-run-…).
    #[arg(long, value_name = "RUN")]
    run: Option<String>,
    /// Take runs on other hosts as ended. txlab cannot see whether they
    /// still run: only for runs you know have ended.
    #[arg(long)]
    other_hosts: bool,
    /// Drop the databases and remove the directories of runs that are no
    /// longer alive, after reading each mark again.
    #[arg(long)]
    drop: bool,
}

/// A server to look at.
struct Server {
    kind: ServerKind,
    login: Login,
}

fn kind_of(url: &str) -> anyhow::Result<ServerKind> {
    let scheme = url::Url::parse(url)
        .map_err(|e| anyhow::anyhow!("--url {}: not a URL ({e})", redact_url(url)))?
        .scheme()
        .to_string();
    match scheme.as_str() {
        "mysql" => Ok(ServerKind::Mysql),
        "postgres" | "postgresql" => Ok(ServerKind::Postgres),
        other => anyhow::bail!(
            "--url {}: txlab speaks mysql:// and postgres://, not {other}://",
            redact_url(url)
        ),
    }
}

fn server(kind: ServerKind, url: &str, args: &CleanArgs) -> anyhow::Result<Server> {
    let login = login(
        kind,
        url,
        &PasswordSources::from_process(args.server.password_file.clone()),
    )?;
    for w in &login.warnings {
        eprintln!("warning: {w}");
    }
    Ok(Server { kind, login })
}

/// The servers and directories to look at.
fn places(cli: &Cli, args: &CleanArgs) -> anyhow::Result<(Vec<Server>, Vec<PathBuf>)> {
    let mut servers = Vec::new();
    let mut dirs = vec![std::env::temp_dir()];
    dirs.extend(args.dirs.iter().cloned());
    let access = args.server.access();
    if let Some(pipeline) = &args.pipeline {
        let setup = PipelineSetup::load(cli, pipeline)?;
        let resolved = setup.resolve()?;
        match pipeline_target(&resolved, &access)? {
            PipelineTarget::Sqlite(path) => dirs.extend(path),
            PipelineTarget::Server { kind, login, .. } => servers.push(Server { kind, login }),
        }
    } else if let Some(url) = &access.url {
        servers.push(server(kind_of(url)?, url, args)?);
    } else {
        for kind in [ServerKind::Mysql, ServerKind::Postgres] {
            if let Some(url) = std::env::var(kind.url_env()).ok().filter(|u| !u.is_empty()) {
                servers.push(server(kind, &url, args)?);
            }
        }
        if servers.is_empty() {
            if args.server.password_file.is_some() {
                anyhow::bail!(
                    "--password-file: there is no server to log in to; give --url or --pipeline"
                );
            }
            out!("no server given (--url, --pipeline, TXLAB_MYSQL_URL, TXLAB_PG_URL): looking at SQLite directories only");
        }
    }
    dirs.sort();
    dirs.dedup();
    Ok((servers, dirs))
}

/// Tallies of one `clean`.
#[derive(Default)]
struct Tally {
    ended: usize,
    removed: usize,
    failed: usize,
    unreachable: usize,
}

fn list(found: &[Found], options: &CleanOptions, tally: &mut Tally) {
    if found.is_empty() {
        match &options.run {
            Some(run) => out!("  nothing of run {run}"),
            None => out!("  nothing of txlab's"),
        }
    }
    for f in found {
        out!("  {}: {}", f.name, f.verdict);
        if matches!(f.verdict, Verdict::Ended { .. }) {
            tally.ended += 1;
        }
    }
}

fn report(name: &str, result: Result<Removal, String>, tally: &mut Tally) {
    match result {
        Ok(Removal::Removed) => {
            tally.removed += 1;
            out!("  removed {name}");
        }
        Ok(Removal::AlreadyGone) => out!("  {name}: already gone"),
        Ok(Removal::LeftAlone(why)) => out!("  {name}: {why}, left alone"),
        Err(e) => {
            tally.failed += 1;
            eprintln!("error: could not remove {name}: {e}");
        }
    }
}

pub(super) fn run(cli: &Cli, args: &CleanArgs) -> anyhow::Result<u8> {
    let options = CleanOptions {
        other_hosts: args.other_hosts,
        run: args.run.clone(),
    };
    let (servers, dirs) = places(cli, args)?;
    let runtime = crate::setup::worker_runtime()?;
    let mut tally = Tally::default();
    for s in &servers {
        let shown = url_without_password(&s.login.url);
        out!("databases on {shown}:");
        let found = match runtime.block_on(survey_server(s.kind, &s.login.url, &options)) {
            Ok(found) => found,
            Err(e) => {
                tally.unreachable += 1;
                eprintln!("error: {e}");
                continue;
            }
        };
        list(&found, &options, &mut tally);
        if args.drop {
            for f in found
                .iter()
                .filter(|f| matches!(f.verdict, Verdict::Ended { .. }))
            {
                let result = runtime
                    .block_on(drop_database(s.kind, &s.login.url, f, &options))
                    .map_err(|e| e.to_string());
                report(&f.name, result, &mut tally);
            }
        }
    }
    for dir in &dirs {
        let found = match survey_dir(dir, &options) {
            Ok(found) => found,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", dir.display());
                tally.unreachable += 1;
                continue;
            }
        };
        if found.is_empty() && dir == &std::env::temp_dir() && !args.dirs.contains(dir) {
            continue;
        }
        out!("run directories in {}:", dir.display());
        list(&found, &options, &mut tally);
        if args.drop {
            for f in found
                .iter()
                .filter(|f| matches!(f.verdict, Verdict::Ended { .. }))
            {
                let result = remove_dir(f, &options).map_err(|e| e.to_string());
                report(&f.name, result, &mut tally);
            }
        }
    }
    if tally.unreachable > 0 {
        out!(
            "{} of the places to look at could not be read (see the errors above)",
            tally.unreachable
        );
    }
    if args.drop {
        out!(
            "removed {} of {} left by runs that are no longer alive",
            tally.removed,
            tally.ended
        );
    } else if tally.ended > 0 {
        out!(
            "{} left by runs that are no longer alive; add --drop to remove them",
            tally.ended
        );
    } else {
        out!("nothing left by runs that are no longer alive");
    }
    Ok(if tally.unreachable > 0 {
        EXIT_SETUP
    } else if tally.failed > 0 {
        EXIT_TOOL_ERRORS
    } else {
        EXIT_CLEAN
    })
}
