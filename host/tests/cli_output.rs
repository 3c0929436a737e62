//! The run's output is whole or absent: a full disk (a small tmpfs) is a
//! clear error and exit 3, never an empty `summary.json` nor half-written
//! finding directories; runs started together with the same seed and
//! `--out` each get their own directory.

mod common;

use common::cli_env::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop; `None`
/// (with the reason printed) where this user may not mount one.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output();
        match o {
            Ok(o) if o.status.success() => Some(SmallDisk { dir }),
            Ok(o) => {
                eprintln!(
                    "skipped: cannot mount a tmpfs (mounting needs root): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipped: cannot run mount: {e}");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Every path below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            all.extend(walk(&p));
        }
        all.push(p);
    }
    all
}

/// Every case is a finding (the `accuse` fixture oracle), on a 64 kB disk:
/// the first finding does not fit. The run stops at once with an error
/// naming the disk's complaint and exit 3; no finding is left half-written;
/// `summary.json` is either absent or whole and says what was lost (before:
/// 20 cases failed one after another, `.partial` finding directories and an
/// empty `errors.log` stayed behind).
#[test]
fn a_full_disk_is_a_clear_error_and_exit_3_with_no_half_written_output() {
    let Some(disk) = SmallDisk::mount("64k") else {
        return;
    };
    let env = Env::new(&["txlab-fixture-panicky"]);
    let p = env.pipeline(
        "p.toml",
        &pipeline("random", &["plugin = \"accuse\""]).replace("cases = 5", "cases = 200"),
    );
    let out = disk.path().join("out");
    let o = env.txlab(&[
        "run",
        p.to_str().unwrap(),
        "--no-reduce",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (printed, errors) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(3), "{printed}\n{errors}");
    assert!(
        errors.contains("error: the run's output is incomplete")
            && errors.contains("No space left on device"),
        "{errors}"
    );
    assert!(
        printed.contains("stopped early: the run's output cannot be written"),
        "{printed}"
    );
    let files = walk(&out);
    assert!(
        files
            .iter()
            .all(|f| !f.to_string_lossy().contains(".partial")),
        "{files:#?}"
    );
    let run = run_dir(&out);
    let summary = run.join("summary.json");
    if summary.exists() {
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&summary).unwrap())
                .expect("a whole summary.json");
        let lost = s["output_error"].as_str().unwrap_or_default();
        assert!(lost.contains("No space left on device"), "{s:#}");
        // It stopped at the first finding it could not keep.
        assert_eq!(s["cases"], 1, "{s:#}");
    }
}

/// Three runs with the same seed and `--out`, started together: each gets a
/// directory of its own (creating it is the claim; one started in the same
/// second takes the next name) and finishes with its summary (before: the
/// loser stopped with "File exists", exit 2).
#[test]
fn runs_started_together_with_the_same_seed_and_out_all_finish() {
    let env = Env::new(&[]);
    let out = env.out();
    let children: Vec<_> = (0..3)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_txlab"))
                .args(["run", "configs/quickstart.toml", "--cases", "5", "--out"])
                .arg(&out)
                .env("TXLAB_PLUGIN_PATH", env.plugins.path())
                .env_remove("RUST_LOG")
                .current_dir(common::repo_root())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 3, "{dirs:?}");
    for dir in &dirs {
        let s = summary(dir);
        assert_eq!(
            (s["cases"].as_u64(), s["seed"].as_u64()),
            (Some(5), Some(42))
        );
    }
    let shared_second = dirs
        .iter()
        .any(|d| d.to_string_lossy().ends_with("-2") || d.to_string_lossy().ends_with("-3"));
    eprintln!("runs that started in the same second took the next name: {shared_second}");
}
