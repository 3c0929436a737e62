//! `txlab merge`: run directories combined into one summary, findings
//! de-duplicated by oracle and signature.

use super::{out, Cli, EXIT_CLEAN, EXIT_FINDINGS};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct MergeArgs {
    /// Run directories (each holds a summary.json): the shards of one run
    /// (`txlab run --shard`), or runs of one seed.
    #[arg(required = true, num_args = 1..)]
    runs: Vec<PathBuf>,
    /// The directory to write (it must not exist): summary.json, and one copy
    /// of each distinct finding and anomaly with findings.json /
    /// anomalies.json listing every occurrence.
    #[arg(long)]
    out: PathBuf,
}

pub(super) fn run(_cli: &Cli, args: &MergeArgs) -> anyhow::Result<u8> {
    let merged = crate::io::merge(&args.runs, &args.out)?;
    let s = &merged.summary;
    let count = |k: &str| s[k].as_u64().unwrap_or(0);
    out!(
        "txlab merge: {} runs, {} cases, findings {} ({} distinct), vendor-permitted anomalies {} ({} distinct), undecided {}, tool errors {}",
        args.runs.len(),
        count("cases"),
        count("findings"),
        merged.distinct_findings,
        count("anomalies"),
        merged.distinct_anomalies,
        count("undecided"),
        count("errors")
    );
    if !merged.missing_shards.is_empty() {
        eprintln!(
            "warning: the merged runs miss shards {} of the run",
            merged.missing_shards.join(", ")
        );
    }
    out!("  output: {}", args.out.display());
    Ok(if count("findings") > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    })
}
