//! The directory of a run's SQLite files: a new `txlab-run-*` directory,
//! marked (a `txlab-run.mark` file inside names the run's process, see
//! [`super::owner`]) so that `txlab clean` can tell one a run left behind.

use super::leftovers::{self, clean_command};
use super::owner::{Mark, MarkKind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The name every run directory starts with.
pub const RUN_DIR_PREFIX: &str = "txlab-run-";
/// The mark file inside a run directory.
pub const MARK_FILE: &str = "txlab-run.mark";

/// A temporary run directory: removed when this drops; until then listed
/// among what the process would leave behind if it quit.
pub struct RunDirGuard {
    _dir: tempfile::TempDir,
    _listed: Arc<Mutex<Vec<String>>>,
}

fn mark(dir: &Path) -> std::io::Result<()> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| std::io::Error::other("a run directory without a name"))?;
    let text = Mark::new(MarkKind::Directory, name).render();
    std::fs::write(dir.join(MARK_FILE), format!("{text}\n"))
}

/// A fresh directory for the embedded target's database files. Under a configured
/// path it is a new `txlab-run-*` subdirectory that is kept, so txlab never
/// writes into files it did not create; otherwise a temporary directory that is
/// removed when the returned guard drops.
pub fn sqlite_dir(configured: Option<&Path>) -> std::io::Result<(PathBuf, Option<RunDirGuard>)> {
    let builder = || {
        let mut b = tempfile::Builder::new();
        b.prefix(RUN_DIR_PREFIX);
        b
    };
    match configured {
        Some(p) => {
            std::fs::create_dir_all(p)?;
            let kept = builder().tempdir_in(p)?.keep();
            mark(&kept)?;
            Ok((kept, None))
        }
        None => {
            let t = builder().tempdir()?;
            mark(t.path())?;
            let path = t.path().to_path_buf();
            let listed = Arc::new(Mutex::new(vec![path.display().to_string()]));
            let parent = path.parent().unwrap_or(Path::new("/"));
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            leftovers::register(
                &listed,
                parent.display().to_string(),
                clean_command("", None, &[parent], &name),
            );
            Ok((
                path,
                Some(RunDirGuard {
                    _dir: t,
                    _listed: listed,
                }),
            ))
        }
    }
}
