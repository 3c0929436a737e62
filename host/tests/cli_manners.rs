//! How txlab behaves on a terminal and off one: ANSI colour only on a
//! terminal and never with `NO_COLOR`, plain text when stderr is a pipe.
//! The terminal is a pseudo-terminal from util-linux's `script`.

mod common;

use common::cli_env::*;
use std::process::Command;

/// `txlab ARGS` on a pseudo-terminal (stdout and stderr both), with `env`
/// set; what it printed. `None` where `script` is not installed.
fn on_a_terminal(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Option<String> {
    let mut line = env!("CARGO_BIN_EXE_txlab").to_string();
    for a in args {
        line.push(' ');
        line.push_str(a);
    }
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &line, "/dev/null"])
        .env("TXLAB_PLUGIN_PATH", env.plugins.path())
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(o) => Some(String::from_utf8_lossy(&o.stdout).into_owned()),
        Err(e) => {
            eprintln!("skipped: util-linux `script` is not available ({e})");
            None
        }
    }
}

/// Whether `text` holds an ANSI colour or style (SGR) sequence, `ESC [ … m`;
/// a progress bar's cursor movements are not colour.
fn coloured(text: &str) -> bool {
    text.split('\u{1b}').skip(1).any(|rest| {
        rest.strip_prefix('[').is_some_and(|seq| {
            let end = seq.find(|c: char| !(c.is_ascii_digit() || c == ';'));
            end.is_some_and(|i| seq[i..].starts_with('m'))
        })
    })
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let env = Env::new(&[]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"wss\""]));
    let out = env.out();
    let args = [
        "-vv",
        "run",
        p.to_str().unwrap(),
        "--cases",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let Some(tty) = on_a_terminal(&env, &args, &[]) else {
        return;
    };
    assert!(tty.contains("DEBUG"), "{tty}");
    assert!(coloured(&tty), "no colour on a terminal:\n{tty}");
    let plain = on_a_terminal(&env, &args, &[("NO_COLOR", "1")]).unwrap();
    assert!(plain.contains("DEBUG"), "{plain}");
    assert!(!coloured(&plain), "colour despite NO_COLOR:\n{plain}");
    // Off a terminal: stderr is a pipe here.
    let o = env.txlab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("DEBUG"));
    assert!(!stderr(&o).contains('\u{1b}'), "{}", stderr(&o));
}
