//! `txlab html RUN_DIR`: writes the run's page, `index.html`, again from the
//! files of its run directory (for runs older than the page, or after a
//! `txlab reduce` changed a finding).

use super::{out, Cli, EXIT_CLEAN};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct HtmlArgs {
    /// A run directory (OUT/run-…).
    run_dir: PathBuf,
}

pub(super) fn run(_cli: &Cli, args: &HtmlArgs) -> anyhow::Result<u8> {
    let path = crate::io::html::write_index(&args.run_dir)?;
    out!("{}", path.display());
    Ok(EXIT_CLEAN)
}
