//! The run directory and its logs.

use crate::setup::SetupError;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn run_dir_name(seed: u64) -> String {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(':', "-");
    format!("run-{stamp}-seed{seed}")
}

fn output_error(path: &Path, e: std::io::Error) -> SetupError {
    SetupError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// Creates the run directory and proves it is writable before any case runs.
pub(super) fn prepare_output(out: &Path, seed: u64) -> Result<PathBuf, SetupError> {
    std::fs::create_dir_all(out).map_err(|e| output_error(out, e))?;
    let base = run_dir_name(seed);
    // Two runs started in the same second with the same seed race for the
    // name: creating the directory is the claim, and the loser takes the next.
    let mut n = 1;
    let dir = loop {
        let dir = match n {
            1 => out.join(&base),
            n => out.join(format!("{base}-{n}")),
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => break dir,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(output_error(&dir, e)),
        }
    };
    let probe = dir.join("errors.log");
    std::fs::write(&probe, b"").map_err(|e| output_error(&probe, e))?;
    Ok(dir)
}

/// Opens a log of the run for appending.
pub(super) fn open_log(path: &Path) -> Result<std::fs::File, SetupError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| output_error(path, e))
}

/// A seed for a run that names none.
pub fn random_seed() -> u64 {
    let t = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    txlab_plugin_api::ir::splitmix64(t.as_nanos() as u64 ^ u64::from(std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_started_together_get_their_own_directories() {
        let out = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| prepare_output(out.path(), 7).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut unique = dirs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 8, "{dirs:?}");
        assert!(dirs.iter().all(|d| d.join("errors.log").is_file()));
    }
}
