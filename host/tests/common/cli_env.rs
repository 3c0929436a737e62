//! The `txlab` binary run as a user runs it, for the CLI tests: the shipped
//! plugins (and test fixtures) in a plugin directory of their own, a work
//! directory, and helpers to read what a run wrote.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const SHIPPING: &[&str] = &[
    "txlab-dialect-sqlite",
    "txlab-dialect-mysql",
    "txlab-dialect-postgres",
    "txlab-generator-random",
    "txlab-generator-pattern",
    "txlab-generator-elle",
    "txlab-oracle-wss",
    "txlab-oracle-troc",
    "txlab-oracle-isorel",
    "txlab-oracle-errors",
    "txlab-oracle-txcheck",
];

pub struct Env {
    pub plugins: tempfile::TempDir,
    pub work: tempfile::TempDir,
}

impl Env {
    pub fn new(extra: &[&str]) -> Env {
        let mut crates: Vec<&str> = SHIPPING.to_vec();
        crates.extend_from_slice(extra);
        Env {
            plugins: super::plugin_dir(&crates),
            work: tempfile::tempdir().unwrap(),
        }
    }

    pub fn txlab(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_txlab"))
            .args(args)
            .env("TXLAB_PLUGIN_PATH", self.plugins.path())
            .env_remove("RUST_LOG")
            .current_dir(super::repo_root())
            .output()
            .expect("txlab runs")
    }

    pub fn pipeline(&self, name: &str, text: &str) -> PathBuf {
        let p = self.work.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    pub fn out(&self) -> PathBuf {
        self.work.path().join("out")
    }
}

/// `plugins list` in a test (see `super::plugin_listing`); `expect_problems`:
/// some library in the plugin directory must have been refused.
pub fn plugins_list(env: &Env, expect_problems: bool) -> String {
    let out = super::plugin_listing(&env.txlab(&["plugins", "list"]));
    assert!(!expect_problems || out.contains("not loadable: "), "{out}");
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn pipeline(generator: &str, oracles: &[&str]) -> String {
    let mut s = format!(
        "[run]\ncases = 5\nseed = 7\n\n[target]\ndialect = \"sqlite\"\n\n[generator]\nplugin = \"{generator}\"\n"
    );
    for o in oracles {
        s.push_str(&format!("\n[[oracle]]\n{o}\n"));
    }
    s
}

/// The single run directory under `out`.
pub fn run_dir(out: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

pub fn summary(run_dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap()).unwrap()
}
