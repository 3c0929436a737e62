//! `index.html`: a run directory as one self-contained page (inline CSS and
//! SVG, nothing fetched), written at the end of `txlab run` and by `txlab
//! html RUN_DIR` from the files alone, so older runs get one too.
//!
//! - `load`: reading the run directory back;
//! - `page`: the counts, the table of findings and anomalies, a section
//!   per report;
//! - `timeline`, `cycle`: the interleaving and the dependency cycle as SVG;
//! - `evidence`: expected against actual from `finding.json`;
//! - `markdown`, `escape`: the oracles' explanations, and escaping every
//!   value that comes from the run.

mod cycle;
mod escape;
mod evidence;
mod load;
mod markdown;
mod page;
#[cfg(test)]
mod tests;
mod timeline;

use std::path::{Path, PathBuf};

/// The page's file name in the run directory.
pub const INDEX: &str = "index.html";

#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    #[error("{0} is not a run directory: it has no summary.json, findings/, anomalies/ or unconfirmed/ (run directories are OUT/run-…)")]
    NotARunDir(PathBuf),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The page of the run directory `run_dir`.
pub fn render(run_dir: &Path) -> Result<String, HtmlError> {
    Ok(page::render(&load::load(run_dir)?))
}

/// Writes `index.html` into the run directory (whole or not at all) and
/// returns its path.
pub fn write_index(run_dir: &Path) -> Result<PathBuf, HtmlError> {
    let html = render(run_dir)?;
    let path = run_dir.join(INDEX);
    super::write_atomically(&path, html.as_bytes()).map_err(|source| HtmlError::Write {
        path: path.clone(),
        source,
    })?;
    tracing::debug!(path = %path.display(), bytes = html.len(), "wrote the run's page");
    Ok(path)
}

/// After a finding changed (`txlab reduce`): writes its run's page again when
/// the run has one (`RUN/findings/case-…/` → `RUN/index.html`); `None` when
/// there is none to update.
pub fn refresh_for_finding(finding_dir: &Path) -> Option<Result<PathBuf, HtmlError>> {
    let run_dir = finding_dir.parent()?.parent()?;
    run_dir.join(INDEX).is_file().then(|| write_index(run_dir))
}
