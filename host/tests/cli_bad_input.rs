//! Options that would make a run hang, eat the machine or be silently ignored
//! are refused before anything runs: exit 2 and one line naming the key.

mod common;

use common::cli_env::*;

/// `txlab run` of the SQLite pipeline with `edit` applied to its text, and
/// `extra` arguments: what it printed, after checking it exited 2.
fn refused(edit: impl Fn(String) -> String, extra: &[&str]) -> String {
    refused_in(&Env::new(&[]), edit, extra)
}

/// `refused`, in `env`.
fn refused_in(env: &Env, edit: impl Fn(String) -> String, extra: &[&str]) -> String {
    let p = env.pipeline("p.toml", &edit(pipeline("random", &["plugin = \"wss\""])));
    let out = env.out();
    let mut args = vec![
        "run",
        p.to_str().unwrap(),
        "--cases",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = env.txlab(&args);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        !out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(),
        "{text}"
    );
    text
}

fn with_run_key(key: &str) -> impl Fn(String) -> String + '_ {
    move |text: String| text.replace("[run]\n", &format!("[run]\n{key}\n"))
}

#[test]
fn unbounded_or_zero_options_are_refused() {
    let text = refused(with_run_key("workers = 100000"), &[]);
    assert!(
        text.contains("`run.workers` must be between 1 and 64"),
        "{text}"
    );
    let text = refused(with_run_key("max_consecutive_errors = 0"), &[]);
    assert!(
        text.contains("`run.max_consecutive_errors` must be at least 1"),
        "{text}"
    );
    for key in ["statement_timeout", "probe_interval", "stall_timeout"] {
        let text = refused(
            |t: String| format!("{t}\n[executor]\n{key} = \"0s\"\n"),
            &[],
        );
        assert!(
            text.contains(&format!("`executor.{key}` must be above zero")),
            "{text}"
        );
    }
    let text = refused(
        |t: String| format!("{t}\n[generator.config]\ntransactions = [2, 1000000]\n"),
        &[],
    );
    assert!(text.contains("transactions: at most 64"), "{text}");
}

#[test]
fn options_that_would_be_ignored_are_refused() {
    let text = refused(|t| t, &["--plugin-dir", "/nonexistent/txlab-plugins"]);
    assert!(
        text.contains("--plugin-dir /nonexistent/txlab-plugins: no such directory"),
        "{text}"
    );
    let text = refused(|t| t, &["--url", "mysql://root@127.0.0.1:3306"]);
    assert!(text.contains("embedded database"), "{text}");
}

/// `txlab run` of the shipped PostgreSQL pipeline against `url`: what it
/// printed, after checking it exited 2.
fn refused_on(url: &str) -> String {
    refused_with("configs/postgres.toml", url)
}

/// `txlab run` of a shipped pipeline against `url`: what it printed, after
/// checking it exited 2.
fn refused_with(pipeline: &str, url: &str) -> String {
    let env = Env::new(&[]);
    let out = env.out();
    let o = env.txlab(&[
        "run",
        pipeline,
        "--cases",
        "1",
        "--url",
        url,
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{text}");
    text
}

#[test]
fn a_postgres_connection_error_says_its_cause() {
    // Nothing listens on port 1: the operating system's reason is shown.
    let text = refused_on("postgres://root@127.0.0.1:1/postgres");
    assert!(text.contains("Connection refused"), "{text}");
    let live = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(common::servers::reachable(
            txlab_host::driver::ServerKind::Postgres,
            "the server's own reason",
        ));
    if live {
        let mut url = url::Url::parse(&common::servers::url(
            txlab_host::driver::ServerKind::Postgres,
        ))
        .unwrap();
        url.set_username("txlab_no_such_role").unwrap();
        url.set_password(None).unwrap();
        let text = refused_on(url.as_str());
        assert!(
            text.contains("role \"txlab_no_such_role\" does not exist"),
            "{text}"
        );
    }
}

/// A port whose server never answers (a frozen server, or a PostgreSQL
/// port given a `mysql://` URL: both sides wait for the other to speak
/// first) is given up after the connection deadline with a clear line, for
/// either driver, instead of holding the run silent forever.
#[test]
fn a_server_that_never_answers_is_given_up() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    for (pipeline, url) in [
        (
            "configs/mariadb.toml",
            format!("mysql://root@127.0.0.1:{port}"),
        ),
        (
            "configs/postgres.toml",
            format!("postgres://root@127.0.0.1:{port}/postgres"),
        ),
    ] {
        let text = refused_with(pipeline, &url);
        assert!(
            text.contains("did not complete the connection handshake within 10 s"),
            "{text}"
        );
    }
}

/// A truncated copy of a plugin library (an interrupted copy or build) would
/// kill the process with SIGBUS when the dynamic loader touched its missing
/// pages: it is refused, named, and the other plugins work.
#[test]
fn a_truncated_plugin_library_is_refused_and_the_rest_works() {
    let env = Env::new(&[]);
    let whole = common::library("txlab-oracle-errors");
    let bytes = std::fs::read(&whole).unwrap();
    // Its headers, and the first pages of what the loader maps.
    let cut = env.plugins.path().join("libtxlab_cut.so");
    std::fs::write(&cut, &bytes[..100_000]).unwrap();
    let o = env.txlab(&["plugins", "list"]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        text.contains("libtxlab_cut.so") && text.contains("damaged or truncated"),
        "{text}"
    );
    let p = env.pipeline("p.toml", &pipeline("random", &["plugin = \"wss\""]));
    let out = env.out();
    let o = env.txlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// Every numeric option out of its range (docs/pipeline.md) is refused at
/// load time: exit 2 and one line naming the key.
#[test]
fn numeric_options_out_of_their_range_are_refused_with_their_key() {
    let append = |section: &'static str| move |t: String| format!("{t}\n{section}\n");
    type Edit = Box<dyn Fn(String) -> String>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|t: String| t.replace("cases = 5", "cases = 0")),
            "`run.cases` must be at least 1",
        ),
        (
            Box::new(with_run_key("duration = \"0s\"")),
            "`run.duration` must be above zero",
        ),
        (
            Box::new(with_run_key("reconnect_timeout = \"2days\"")),
            "`run.reconnect_timeout` must be at most 1day",
        ),
        (
            Box::new(append("[executor]\nlock_wait_timeout = \"2h\"")),
            "`executor.lock_wait_timeout` must be at most 1h, not 2h",
        ),
        (
            Box::new(append("[executor]\npace = \"5m\"")),
            "`executor.pace` must be at most 1m, not 5m",
        ),
        (
            Box::new(append("[reduce]\nmax_trials = 0")),
            "`reduce.max_trials` must be between 1 and 100000, not 0",
        ),
        (
            Box::new(append("[reduce]\nmax_time = \"0s\"")),
            "`reduce.max_time` must be above zero",
        ),
        (
            Box::new(append("[reduce]\nconfirm = 1000")),
            "`reduce.confirm` must be between 1 and 100, not 1000",
        ),
        (
            Box::new(append("[generator.config]\nrows = [5, 100000]")),
            "rows: at most 500 rows per table",
        ),
        (
            Box::new(append("[generator.config]\nstatements = [1, 100000]")),
            "statements: at most 200",
        ),
        (
            Box::new(append("[generator.config]\ntables = [1, 1000]")),
            "tables: at most 16",
        ),
        (
            // Weights that overflow when summed made every case panic.
            Box::new(append(
                "[generator.config]\n[generator.config.weights]\nselect = 4000000000\ninsert = 4000000000",
            )),
            "weights: each weight must be between 0 and 1000000, got 4000000000",
        ),
        (
            Box::new(append("[oracle.config]\nmax_serial_orders = 0")),
            "max_serial_orders: must be between 1 and 5040",
        ),
        (
            Box::new(|t: String| {
                t.replace(
                    "plugin = \"wss\"",
                    "plugin = \"txcheck\"\n[oracle.config]\nreruns = 1000",
                )
            }),
            "`reruns` must be between 0 and 32, not 1000",
        ),
    ];
    let env = Env::new(&[]);
    for (edit, expect) in cases {
        let text = refused_in(&env, edit, &[]);
        assert!(text.contains(expect), "expected `{expect}`: {text}");
        assert_eq!(text.trim().lines().count(), 1, "{text}");
    }
    let text = refused(|t| t, &["--duration", "0s"]);
    assert!(
        text.contains("'--duration <DURATION>': must be above zero"),
        "{text}"
    );
}

/// `txlab ARGS` with no server URL in the environment: exit code and output.
fn txlab_alone(args: &[&str]) -> (Option<i32>, String) {
    let env = Env::new(&[]);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_txlab"))
        .args(args)
        .env("TXLAB_PLUGIN_PATH", env.plugins.path())
        .env("HOME", env.work.path())
        .env_remove("TXLAB_MYSQL_URL")
        .env_remove("TXLAB_PG_URL")
        .env_remove("TXLAB_PASSWORD")
        .env_remove("PGPASSWORD")
        .env_remove("MYSQL_PWD")
        .env_remove("RUST_LOG")
        .current_dir(common::repo_root())
        .output()
        .unwrap();
    (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
}

/// Passwords: a password in --url works but is warned about, and is masked
/// wherever a URL is shown, in the user part and as a parameter; a missing
/// password file, or a password given twice, is refused in one line.
#[test]
fn passwords_on_the_command_line_are_warned_about_and_never_shown() {
    let (code, text) = txlab_alone(&[
        "run",
        "configs/postgres.toml",
        "--cases",
        "1",
        "--url",
        "postgres://u:hunter2@127.0.0.1:1/postgres?password=hunter3",
    ]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("warning: the password in --url can be read by every local user (ps)"),
        "{text}"
    );
    assert!(
        text.contains("Connection refused") && text.contains("***"),
        "{text}"
    );
    assert!(
        !text.contains("hunter2") && !text.contains("hunter3"),
        "{text}"
    );

    let (code, text) = txlab_alone(&[
        "run",
        "configs/postgres.toml",
        "--url",
        "postgres://u@127.0.0.1:1/postgres",
        "--password-file",
        "/nonexistent/pw",
    ]);
    assert_eq!(code, Some(2), "{text}");
    assert_eq!(
        text.trim(),
        "error: --password-file /nonexistent/pw: No such file or directory (os error 2)"
    );

    let env = Env::new(&[]);
    let file = env.work.path().join("pw");
    std::fs::write(&file, "hunter4\n").unwrap();
    let (code, text) = txlab_alone(&[
        "clean",
        "--url",
        "mysql://u:hunter2@127.0.0.1:1",
        "--password-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("give the password one way"), "{text}");
    assert!(
        !text.contains("hunter2") && !text.contains("hunter4"),
        "{text}"
    );
}

#[test]
fn clean_refuses_what_it_cannot_use() {
    let (code, text) = txlab_alone(&["clean", "--url", "ftp://h/x"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("txlab speaks mysql:// and postgres://, not ftp://"),
        "{text}"
    );
    let (code, text) = txlab_alone(&["clean", "--password-file", "/dev/null"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("there is no server to log in to"), "{text}");
    // A server that is not there: one error line, exit 2.
    let (code, text) = txlab_alone(&["clean", "--url", "mysql://root@127.0.0.1:1"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("Connection refused"), "{text}");
    assert!(
        text.contains("1 of the places to look at could not be read"),
        "{text}"
    );
}

/// A stream pipeline (`executor.mode = "stream"`, the `elle` generator, no
/// oracle) with `executor` and `generator` keys added.
fn stream_pipeline(executor: &str, generator: &str) -> impl Fn(String) -> String {
    let (executor, generator) = (executor.to_string(), generator.to_string());
    move |t: String| {
        let t = t
            .replace("plugin = \"random\"", "plugin = \"elle\"")
            .replace("\n[[oracle]]\nplugin = \"wss\"\n", "");
        format!(
            "{t}\n[executor]\nmode = \"stream\"\n{executor}\n\n[generator.config]\n{generator}\n"
        )
    }
}

#[test]
fn stream_options_out_of_their_range_are_refused_with_their_key() {
    let env = Env::new(&[]);
    let cases = [
        (
            stream_pipeline("sessions = 0", ""),
            "`executor.sessions` must be between 1 and 64, not 0",
        ),
        (
            stream_pipeline("sessions = 65", ""),
            "`executor.sessions` must be between 1 and 64, not 65",
        ),
        (
            stream_pipeline("check_interval = \"0s\"", ""),
            "`executor.check_interval` must be above zero and at most 1h",
        ),
        (
            stream_pipeline("", "keys = 0"),
            "`keys` must be between 1 and 10000, not 0",
        ),
        (
            stream_pipeline("", "ops = [4, 2]"),
            "`ops` must be a range [min, max]",
        ),
        (
            stream_pipeline("", "hot_probability = 2.0"),
            "`hot_probability` must be between 0 and 1",
        ),
    ];
    for (edit, expect) in cases {
        let text = refused_in(&env, edit, &[]);
        assert!(text.contains(expect), "expected `{expect}`: {text}");
        assert_eq!(text.trim().lines().count(), 1, "{text}");
    }
    // An unknown mode, and oracles in a stream, which would be ignored.
    let text = refused_in(
        &env,
        |t: String| format!("{t}\n[executor]\nmode = \"burst\"\n"),
        &[],
    );
    assert!(
        text.contains("unknown variant `burst`, expected `schedule` or `stream`"),
        "{text}"
    );
    let text = refused_in(
        &env,
        |t: String| {
            format!("{t}\n[executor]\nmode = \"stream\"\n").replace("\"random\"", "\"elle\"")
        },
        &[],
    );
    assert!(text.contains("leave out the [[oracle]] tables"), "{text}");
    // A stream needs the list-append workload.
    let text = refused_in(
        &env,
        |t: String| {
            format!("{t}\n[executor]\nmode = \"stream\"\n")
                .replace("\n[[oracle]]\nplugin = \"wss\"\n", "")
        },
        &[],
    );
    assert!(
        text.contains("a stream checks list-append histories only"),
        "{text}"
    );
}

#[test]
fn schedule_options_are_refused_in_a_stream() {
    let env = Env::new(&[]);
    let text = stream_pipeline("", "")(pipeline("random", &["plugin = \"wss\""]));
    let p = env.pipeline("stream.toml", &text);
    let out = env.out();
    let refusals: [(&[&str], &str); 3] = [
        (
            &["--shard", "0/2"],
            "error: --shard takes a slice of a schedule run's cases: a stream runs its sessions' cases together, in one run",
        ),
        (
            &["--case", "3"],
            "error: --case runs one case of a schedule run: a stream is checked as one history",
        ),
        (
            &["--no-reduce"],
            "error: --no-reduce is for schedule runs: a stream does not reduce its findings",
        ),
    ];
    for (extra, expect) in refusals {
        let mut args = vec!["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = env.txlab(&args);
        let text = format!("{}{}", stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {text}");
        assert!(
            text.starts_with(expect),
            "{extra:?}: expected `{expect}`: {text}"
        );
        assert_eq!(text.trim().lines().count(), 1, "{extra:?}: {text}");
        assert!(!out.exists(), "{extra:?} left {}", out.display());
    }
    // The pipeline's workers: a stream's concurrency is its sessions.
    let text = refused_in(
        &env,
        |t: String| with_run_key("workers = 4")(stream_pipeline("", "")(t)),
        &[],
    );
    assert!(
        text.contains(
            "`run.workers` (4) is for schedule runs: a stream runs `executor.sessions` sessions"
        ),
        "{text}"
    );
    assert_eq!(text.trim().lines().count(), 1, "{text}");
}
