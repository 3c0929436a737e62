//! Finding the plugin libraries cargo built for these tests.
//!
//! The plugins and fixtures are dev-dependencies of the host: cargo builds their
//! shared libraries into `target/<profile>/deps`, next to the test binaries,
//! without linking them into the tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent().expect("deps directory").to_path_buf()
}

pub fn library(crate_name: &str) -> PathBuf {
    let file = format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    let path = deps_dir().join(file);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// A directory holding copies of exactly these libraries.
pub fn plugin_dir(crates: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for c in crates {
        let src = library(c);
        std::fs::copy(&src, dir.path().join(src.file_name().unwrap())).expect("copy library");
    }
    dir
}

pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
}

/// What `txlab plugins list` printed, checked: it exits 0, or 2 when a
/// library found could not be loaded. Returns stdout (the table) followed by
/// stderr (what was searched, what could not be loaded). The only such libraries allowed are the
/// broken test fixtures, which `cargo test` also builds next to the `txlab`
/// binary (a directory it always searches).
pub fn plugin_listing(o: &std::process::Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let diagnostics = String::from_utf8_lossy(&o.stderr).into_owned();
    let problems: Vec<&str> = diagnostics
        .lines()
        .filter(|l| l.starts_with("not loadable: "))
        .collect();
    assert_eq!(
        o.status.code(),
        Some(if problems.is_empty() { 0 } else { 2 }),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        problems.iter().all(|l| l.contains("libtxlab_fixture_")),
        "{diagnostics}"
    );
    // The table, then what went to stderr (searched, not loadable).
    format!("{out}{diagnostics}")
}
pub mod cli_env;
pub mod frozen;
pub mod generated;
pub mod leftovers;
pub mod png;
pub mod private_mariadb;
pub mod private_postgres;
pub mod replay;
pub mod servers;
