//! What goes to disk and comes back: finding directories, their reports,
//! reduction reports, merged run directories and the run's page (`html`).
//! Nothing here runs a case.

mod findings;
pub mod html;
pub mod labels;
mod merge;
mod other_targets;
mod reduction_report;
pub mod report;

pub use findings::*;
pub use merge::{merge, MergeError, Merged};
pub use other_targets::{
    statement_differences, write_other_target, OtherTarget, StatementDifference,
};
pub use reduction_report::{PaceRuns, ReductionOutcome, ReductionReport};

/// Writes `bytes` to `path` through a temporary file beside it and a rename,
/// so that `path` holds either its old content or all of the new one, and a
/// failed write (a full disk) is an error, never a truncated file.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("output");
    let partial = path.with_file_name(format!(".{name}.partial"));
    let written = (|| {
        let mut file = std::fs::File::create(&partial)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, path)
}

#[cfg(test)]
#[test]
fn an_atomic_write_replaces_the_file_or_fails_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("summary.json");
    write_atomically(&path, b"old").unwrap();
    write_atomically(&path, b"new").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    // Nowhere to write: an error, and nothing left behind.
    let gone = dir.path().join("gone").join("summary.json");
    assert!(write_atomically(&gone, b"x").is_err());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
