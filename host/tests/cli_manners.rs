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

/// On a terminal the bar shows the rate to one decimal and the ETA (a
/// number of cases) or the time left (a duration).
#[test]
fn the_progress_bar_shows_a_rounded_rate_and_the_time_to_the_end() {
    let env = Env::new(&[]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"wss\""]));
    let out = env.out();
    let (p, out) = (p.to_str().unwrap(), out.to_str().unwrap());
    let Some(tty) = on_a_terminal(&env, &["run", p, "--cases", "30", "--out", out], &[]) else {
        return;
    };
    let bar = tty
        .split(['\r', '\n'])
        .rfind(|l| l.contains("ETA"))
        .unwrap_or_else(|| panic!("no ETA on the bar:\n{tty}"));
    let rate = bar
        .split(" cases/s")
        .next()
        .and_then(|b| b.rsplit('(').next())
        .unwrap_or_else(|| panic!("no rate: {bar}"));
    let (_, decimals) = rate.split_once('.').unwrap_or_else(|| panic!("{rate}"));
    assert_eq!(
        decimals.len(),
        1,
        "the rate is rounded to one decimal: {bar}"
    );
    let tty = on_a_terminal(&env, &["run", p, "--duration", "2s", "--out", out], &[]).unwrap();
    assert!(
        tty.split(['\r', '\n']).any(|l| l.contains(" left")),
        "no time left on the bar:\n{tty}"
    );
}

/// Off a terminal (a pipe) a progress line every --progress-every on
/// stderr; --json: only the summary on stdout, the same as summary.json;
/// --quiet: nothing; -v: the run's phases.
#[test]
fn a_piped_run_prints_progress_lines_json_or_nothing() {
    let env = Env::new(&[]);
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"wss\""]));
    let p = p.to_str().unwrap();
    let out = env.out();
    let o = env.txlab(&[
        "run",
        p,
        "--duration",
        "3s",
        "--progress-every",
        "1s",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("txlab: ") && l.contains(" left"))
        .collect();
    assert!(lines.len() >= 2, "{err}");
    assert!(lines[0].contains("cases/s, findings 0"), "{}", lines[0]);

    let out = env.work.path().join("json");
    let o = env.txlab(&["run", p, "--json", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(printed, summary(&run_dir(&out)));

    let out = env.work.path().join("quiet");
    let o = env.txlab(&["run", p, "-q", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
    assert_eq!(summary(&run_dir(&out))["cases"], 5);

    let out = env.work.path().join("verbose");
    let o = env.txlab(&["-v", "run", p, "--out", out.to_str().unwrap()]);
    for phase in [
        "plugins ready for 1 worker(s)",
        "target ready: dialect sqlite",
        "running; output in",
        "cases done; writing the summary",
    ] {
        assert!(stderr(&o).contains(phase), "{phase}:\n{}", stderr(&o));
    }
}
