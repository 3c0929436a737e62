//! Reading a run directory back for the page: `summary.json` and every
//! finding, anomaly and unconfirmed directory. A file that is missing or
//! unreadable is noted where it would show, never a reason to give up on
//! the page: old runs and runs that were killed get one too.

use super::HtmlError;
use crate::io::{Provenance, ReportKind};
use serde_json::Value;
use std::path::{Path, PathBuf};
use txlab_plugin_api::ir::{Finding, History};

/// Where a report directory sits in the run directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Finding,
    Anomaly,
    Unconfirmed,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Finding, Kind::Anomaly, Kind::Unconfirmed];

    pub fn directory(self) -> &'static str {
        match self {
            Kind::Finding => ReportKind::Finding.directory(),
            Kind::Anomaly => ReportKind::VendorPermitted.directory(),
            Kind::Unconfirmed => "unconfirmed",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Finding => "finding",
            Kind::Anomaly => "vendor-permitted anomaly",
            Kind::Unconfirmed => "unconfirmed finding",
        }
    }

    /// The CSS class of its badge.
    pub fn class(self) -> &'static str {
        match self {
            Kind::Finding => "finding",
            Kind::Anomaly => "anomaly",
            Kind::Unconfirmed => "unconfirmed",
        }
    }
}

/// A Graphviz file an oracle attached.
pub struct Dot {
    pub name: String,
    pub text: String,
}

/// The reduced case beside a finding (`reduced/`).
pub struct Reduced {
    pub repro: Option<String>,
    pub history: Option<History>,
}

/// One finding, anomaly or unconfirmed finding directory.
pub struct ReportDir {
    pub kind: Kind,
    /// Relative to the run directory, with `/`: `findings/case-000012-troc`.
    pub rel: String,
    pub provenance: Option<Provenance>,
    pub finding: Result<Finding, String>,
    pub history: Result<History, String>,
    pub repro: Option<String>,
    pub reduced: Option<Reduced>,
    /// `reduction.json`, as written.
    pub reduction: Option<Value>,
    pub dots: Vec<Dot>,
    /// Every file in the directory (and in `reduced/`), relative to it.
    pub files: Vec<String>,
}

/// The run directory as the page shows it.
pub struct RunDir {
    pub dir: PathBuf,
    pub name: String,
    /// `summary.json`, or why it could not be read.
    pub summary: Result<Value, String>,
    pub reports: Vec<ReportDir>,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    crate::io::read_json(path)
}

fn read_text(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The files of a directory, recursively, relative to `base`, sorted;
/// hidden files (a write in progress) left out.
fn list_files(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        if path.is_dir() {
            list_files(base, &path, out);
        } else if let Ok(rel) = path.strip_prefix(base) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn load_report(kind: Kind, rel: String, dir: &Path) -> ReportDir {
    let mut files = Vec::new();
    list_files(dir, dir, &mut files);
    let dots = files
        .iter()
        .filter(|f| f.ends_with(".dot") && !f.contains('/'))
        .filter_map(|f| {
            Some(Dot {
                name: f.clone(),
                text: read_text(&dir.join(f))?,
            })
        })
        .collect();
    let reduced_dir = dir.join("reduced");
    let reduced = reduced_dir.is_dir().then(|| Reduced {
        repro: read_text(&reduced_dir.join("repro.sql")),
        history: read_json(&reduced_dir.join("history.json")).ok(),
    });
    ReportDir {
        kind,
        rel,
        provenance: Provenance::load(dir).ok(),
        finding: read_json(&dir.join("finding.json")),
        history: read_json(&dir.join("history.json")),
        repro: read_text(&dir.join("repro.sql")),
        reduced,
        reduction: read_json(&dir.join("reduction.json")).ok(),
        dots,
        files,
    }
}

/// Reads a run directory. It must hold `summary.json` or one of the
/// report directories; anything else is not a run directory.
pub fn load(dir: &Path) -> Result<RunDir, HtmlError> {
    let has_reports = Kind::ALL.iter().any(|k| dir.join(k.directory()).is_dir());
    if !dir.join("summary.json").is_file() && !has_reports {
        return Err(HtmlError::NotARunDir(dir.to_path_buf()));
    }
    let mut reports = Vec::new();
    for kind in Kind::ALL {
        let parent = dir.join(kind.directory());
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        for name in names {
            let rel = format!("{}/{name}", kind.directory());
            reports.push(load_report(kind, rel, &parent.join(&name)));
        }
    }
    let name = dir
        .canonicalize()
        .unwrap_or_else(|_| dir.to_path_buf())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(RunDir {
        dir: dir.to_path_buf(),
        name,
        summary: read_json(&dir.join("summary.json")),
        reports,
    })
}
