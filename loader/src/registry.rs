//! Plugin discovery and the registry of entries, keyed by (kind, name).
//!
//! Search order, first hit wins: `--plugin-dir` (repeatable), the pipeline's
//! `[plugins] dirs`, `TXLAB_PLUGIN_PATH` (`:`-separated), then the directory of the
//! `txlab` executable and its `plugins/` subdirectory. Only files named
//! `libtxlab_*.so` (the platform's equivalent) are considered, without recursion.

use crate::{EntryDescriptor, LoadError, PluginLibrary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use txlab_plugin_api::PluginKind;

pub const PLUGIN_PATH_ENV: &str = "TXLAB_PLUGIN_PATH";

/// Where a search directory came from, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirSource {
    Flag,
    Pipeline,
    Env,
    Executable,
}

impl DirSource {
    fn describe(self) -> &'static str {
        match self {
            DirSource::Flag => "--plugin-dir",
            DirSource::Pipeline => "[plugins] dirs",
            DirSource::Env => PLUGIN_PATH_ENV,
            DirSource::Executable => "next to txlab",
        }
    }
}

#[derive(Clone, Debug)]
pub struct SearchDir {
    pub path: PathBuf,
    pub source: DirSource,
}

/// The directories to search, in order.
pub fn search_dirs(flag_dirs: &[PathBuf], pipeline_dirs: &[PathBuf]) -> Vec<SearchDir> {
    let mut dirs = Vec::new();
    let mut add = |path: PathBuf, source| dirs.push(SearchDir { path, source });
    for d in flag_dirs {
        add(d.clone(), DirSource::Flag);
    }
    for d in pipeline_dirs {
        add(d.clone(), DirSource::Pipeline);
    }
    if let Some(v) = std::env::var_os(PLUGIN_PATH_ENV) {
        for d in std::env::split_paths(&v) {
            if !d.as_os_str().is_empty() {
                add(d, DirSource::Env);
            }
        }
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
    {
        add(exe_dir.join("plugins"), DirSource::Executable);
        add(exe_dir, DirSource::Executable);
    }
    dirs
}

fn is_candidate(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let prefix = format!("{}txlab_", std::env::consts::DLL_PREFIX);
    name.starts_with(&prefix) && name.ends_with(std::env::consts::DLL_SUFFIX)
}

/// One registered entry and the library that provides it.
#[derive(Clone, Debug)]
pub struct Registered {
    pub entry: EntryDescriptor,
    pub library: Arc<PluginLibrary>,
}

/// A library that was found but could not be used.
#[derive(Debug)]
pub struct Problem {
    pub path: PathBuf,
    pub error: LoadError,
}

/// An entry that lost to an earlier one with the same kind and name.
#[derive(Debug)]
pub struct Shadowed {
    pub kind: PluginKind,
    pub name: String,
    pub path: PathBuf,
    pub winner: PathBuf,
}

#[derive(Debug, Default)]
pub struct Registry {
    pub searched: Vec<(SearchDir, bool)>,
    pub entries: BTreeMap<(PluginKind, String), Registered>,
    pub problems: Vec<Problem>,
    pub shadowed: Vec<Shadowed>,
}

/// A plugin name the registry does not know.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.render())]
pub struct NotFound {
    pub kind: PluginKind,
    pub name: String,
    pub searched: Vec<String>,
    pub available: Vec<String>,
    pub problems: Vec<String>,
    pub suggestion: Option<String>,
}

impl NotFound {
    fn render(&self) -> String {
        let mut s = format!("no {} plugin named `{}`", self.kind, self.name);
        if let Some(sug) = &self.suggestion {
            s.push_str(&format!(" (did you mean `{sug}`?)"));
        }
        s.push_str(&format!(
            "\n  available {}s: {}",
            self.kind,
            if self.available.is_empty() {
                "none".to_string()
            } else {
                self.available.join(", ")
            }
        ));
        s.push_str("\n  searched:");
        for d in &self.searched {
            s.push_str(&format!("\n    {d}"));
        }
        for p in &self.problems {
            s.push_str(&format!("\n  not loadable: {p}"));
        }
        s
    }
}

impl Registry {
    /// Loads every plugin library in `dirs`.
    pub fn discover(dirs: Vec<SearchDir>) -> Registry {
        let mut reg = Registry::default();
        let mut seen: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            let listing = std::fs::read_dir(&dir.path);
            let exists = listing.is_ok();
            let mut files: Vec<PathBuf> = listing
                .map(|rd| {
                    rd.filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| is_candidate(p))
                        .collect()
                })
                .unwrap_or_default();
            files.sort();
            reg.searched.push((dir, exists));
            for path in files {
                let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
                if seen.contains(&canonical) {
                    continue;
                }
                seen.push(canonical);
                reg.add_library(&path);
            }
        }
        reg
    }

    fn add_library(&mut self, path: &Path) {
        match PluginLibrary::load(path) {
            Ok(lib) => {
                let lib = Arc::new(lib);
                for entry in &lib.entries {
                    let key = (entry.kind, entry.name.clone());
                    if let Some(winner) = self.entries.get(&key) {
                        self.shadowed.push(Shadowed {
                            kind: entry.kind,
                            name: entry.name.clone(),
                            path: path.to_path_buf(),
                            winner: winner.library.path.clone(),
                        });
                        continue;
                    }
                    self.entries.insert(
                        key,
                        Registered {
                            entry: entry.clone(),
                            library: lib.clone(),
                        },
                    );
                }
            }
            Err(error) => {
                tracing::debug!(target: "txlab::plugins", "skipping {}: {error}", path.display());
                if let Some(details) = error.details() {
                    tracing::trace!(target: "txlab::plugins", "abi_stable's report on {}:\n{details}", path.display());
                }
                self.problems.push(Problem {
                    path: path.to_path_buf(),
                    error,
                });
            }
        }
    }

    pub fn get(&self, kind: PluginKind, name: &str) -> Result<&Registered, Box<NotFound>> {
        if let Some(r) = self.entries.get(&(kind, name.to_string())) {
            return Ok(r);
        }
        let available: Vec<String> = self
            .entries
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|((_, n), _)| n.clone())
            .collect();
        let suggestion = available
            .iter()
            .map(|a| (edit_distance(a, name), a))
            .filter(|(d, a)| *d <= 2.max(a.len() / 3))
            .min()
            .map(|(_, a)| a.clone());
        Err(Box::new(NotFound {
            kind,
            name: name.to_string(),
            searched: self
                .searched
                .iter()
                .map(|(d, exists)| {
                    format!(
                        "{} ({}{})",
                        d.path.display(),
                        d.source.describe(),
                        if *exists { "" } else { ", missing" }
                    )
                })
                .collect(),
            available: available
                .iter()
                .map(|n| {
                    let lib = &self.entries[&(kind, n.clone())].library;
                    format!(
                        "{n} ({})",
                        lib.path.file_name().unwrap_or_default().to_string_lossy()
                    )
                })
                .collect(),
            problems: self.problems.iter().map(|p| p.error.to_string()).collect(),
            suggestion,
        }))
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_txlab_libraries_are_candidates() {
        let so = std::env::consts::DLL_SUFFIX;
        let pre = std::env::consts::DLL_PREFIX;
        assert!(is_candidate(Path::new(&format!(
            "/x/{pre}txlab_oracle_wss{so}"
        ))));
        assert!(!is_candidate(Path::new(&format!(
            "/x/{pre}serde_derive-1234{so}"
        ))));
        assert!(!is_candidate(Path::new(&format!(
            "/x/{pre}txlab_oracle_wss.rlib"
        ))));
    }

    #[test]
    fn edit_distance_finds_typos() {
        assert_eq!(edit_distance("random", "randm"), 1);
        assert_eq!(edit_distance("wss", "wss"), 0);
        assert_eq!(edit_distance("abc", "xyz"), 3);
    }

    #[test]
    fn an_unknown_name_lists_what_was_searched() {
        let dir = tempfile::tempdir().unwrap();
        let reg = Registry::discover(vec![
            SearchDir {
                path: dir.path().to_path_buf(),
                source: DirSource::Flag,
            },
            SearchDir {
                path: dir.path().join("nope"),
                source: DirSource::Env,
            },
        ]);
        let e = reg.get(PluginKind::ORACLE, "wss").unwrap_err().to_string();
        assert!(e.starts_with("no oracle plugin named `wss`"), "{e}");
        assert!(e.contains("available oracles: none"), "{e}");
        assert!(
            e.contains(&format!("{} (--plugin-dir)", dir.path().display())),
            "{e}"
        );
        assert!(e.contains("nope (TXLAB_PLUGIN_PATH, missing)"), "{e}");
    }
}
