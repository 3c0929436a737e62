//! `txlab clean`: what runs that are no longer alive left behind is found by
//! its txlab mark — never by its name — and removed; a database or directory
//! that only looks like txlab's is left alone. A run that cannot drop its
//! databases names them and the command that will.
//!
//! The killed runs run on the shared servers (txlab is killed, not the
//! server); the lost server is a private PostgreSQL the test starts.

mod common;

use common::cli_env::SHIPPING;
use common::leftovers::*;
use common::private_postgres::PrivatePostgres;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use txlab_host::driver::ServerKind;

struct Dropper {
    kind: ServerKind,
    url: String,
    names: Vec<String>,
}

/// Drops the look-alike databases the test made, however it ends.
impl Drop for Dropper {
    fn drop(&mut self) {
        let sql: Vec<String> = self
            .names
            .iter()
            .map(|n| match self.kind {
                ServerKind::Mysql => format!("DROP DATABASE IF EXISTS `{n}`"),
                ServerKind::Postgres => format!("DROP DATABASE IF EXISTS \"{n}\""),
            })
            .collect();
        if let Ok(rt) = tokio::runtime::Runtime::new() {
            rt.block_on(exec(self.kind, &self.url, &sql));
        }
    }
}

fn kill(mut child: Child) {
    signal(child.id(), "KILL");
    child.wait().unwrap();
}

/// A `txlab run` of `pipeline` on the shared server, killed with SIGKILL
/// once it has made its databases: `txlab clean` lists exactly those as
/// left by a run that is no longer alive (and as in use while it ran),
/// `--drop` drops them, and two look-alikes — a database of the same name
/// pattern without mark, and one with a mark copied from the run — are
/// listed as not txlab's and survive.
fn killed_run(kind: ServerKind, pipeline: &str) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    if !rt.block_on(common::servers::reachable(
        kind,
        "txlab clean after SIGKILL",
    )) {
        return;
    }
    let url = common::servers::url(kind);
    let plugins = common::plugin_dir(SHIPPING);
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out");
    let txlab = |args: &[&str]| txlab(plugins.path(), home.path(), args);
    let child = txlab(&["run", pipeline, "--duration", "2m", "--url", &url])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // One worker, its case database (WSS replays on the case's tables).
    let ours: BTreeSet<String> = wait_for_databases(kind, &url, pid, 1).into_iter().collect();
    let tag = ours.first().unwrap()[..28].to_string();
    assert!(
        ours.iter().all(|n| n.starts_with(&format!("{tag}_"))),
        "{ours:?}"
    );

    // While it runs, its databases are in use: listed so, never dropped.
    let o = txlab(&["clean", "--url", &url, "--drop"]).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    for name in &ours {
        assert!(
            t.contains(&format!("{name}: in use by a running txlab (pid {pid}")),
            "{t}"
        );
    }
    assert_eq!(rt.block_on(databases_of(kind, &url, pid)).len(), ours.len());

    kill(child);
    // The look-alikes, made after the kill so that the run cannot touch them.
    let unmarked = look_alike("w0_case");
    let forged = look_alike("w0_scratch");
    let _dropper = Dropper {
        kind,
        url: url.clone(),
        names: vec![unmarked.clone(), forged.clone()],
    };
    let marks = rt.block_on(marks(kind, &url));
    let copied = marks[ours.first().unwrap()].clone().unwrap();
    let make = match kind {
        ServerKind::Mysql => vec![
            format!("CREATE DATABASE `{unmarked}`"),
            format!("CREATE DATABASE `{forged}`"),
            format!("CREATE TABLE `{forged}`.txlab_marker (mark VARCHAR(1000) NOT NULL)"),
            format!("INSERT INTO `{forged}`.txlab_marker VALUES ('{copied}')"),
        ],
        ServerKind::Postgres => vec![
            format!("CREATE DATABASE \"{unmarked}\""),
            format!("CREATE DATABASE \"{forged}\""),
            format!("COMMENT ON DATABASE \"{forged}\" IS '{copied}'"),
        ],
    };
    rt.block_on(exec(kind, &url, &make));

    let o = txlab(&["clean", "--url", &url]).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let ended: BTreeSet<String> = t
        .lines()
        .filter(|l| {
            l.contains(": left by a run that is no longer alive (")
                && l.contains(&format!("run {tag},"))
        })
        .map(|l| l.trim().split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(ended, ours, "{t}");
    assert!(
        t.contains(&format!("  {unmarked}: not txlab's (no mark), left alone")),
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "  {forged}: not txlab's (its mark is run {tag}'s, which this is not), left alone"
        )),
        "{t}"
    );
    assert!(t.contains("add --drop to remove them"), "{t}");

    let o = txlab(&["clean", "--url", &url, "--drop"]).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    for name in &ours {
        assert!(t.contains(&format!("  removed {name}\n")), "{t}");
    }
    assert!(!t.contains(&format!("removed {unmarked}")), "{t}");
    assert!(!t.contains(&format!("removed {forged}")), "{t}");
    let after = rt.block_on(common::leftovers::marks(kind, &url));
    for name in &ours {
        assert!(
            !after.contains_key(name),
            "{name} is still there: {after:?}"
        );
    }
    assert!(
        after.contains_key(&unmarked) && after.contains_key(&forged),
        "{after:?}"
    );
}

#[test]
fn a_killed_mariadb_run_leaves_databases_that_clean_finds_by_their_mark() {
    killed_run(ServerKind::Mysql, "configs/mariadb.toml");
}

#[test]
fn a_killed_postgres_run_leaves_databases_that_clean_finds_by_their_mark() {
    killed_run(ServerKind::Postgres, "configs/postgres.toml");
}

/// Waits until `dir` holds one `txlab-run-*` directory with its mark.
fn wait_for_run_dir(dir: &Path) -> std::path::PathBuf {
    let started = Instant::now();
    loop {
        let found = std::fs::read_dir(dir).ok().and_then(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .find(|p| p.join("txlab-run.mark").exists())
        });
        if let Some(found) = found {
            return found;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no run directory in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SQLite runs: a killed run's temporary directory is found by its mark
/// (in use while it runs, left behind after), a look-alike directory and
/// one with a copied mark are left alone; the directories a pipeline's
/// `[target] path` keeps are found with `--pipeline`.
#[test]
fn sqlite_run_directories_left_behind_are_found_by_their_mark() {
    let plugins = common::plugin_dir(SHIPPING);
    let home = tempfile::tempdir().unwrap();
    let tmp = home.path().join("tmp");
    let txlab = |args: &[&str]| txlab(plugins.path(), home.path(), args);
    let out = home.path().join("out").display().to_string();
    let child = txlab(&[
        "run",
        "configs/quickstart.toml",
        "--duration",
        "2m",
        "--out",
        &out,
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let pid = child.id();
    let run_dir = wait_for_run_dir(&tmp);
    let o = txlab(&["clean", "--drop"]).output().unwrap();
    let t = text(&o);
    assert!(
        t.contains(&format!(
            "{}: in use by a running txlab (pid {pid}",
            run_dir.display()
        )),
        "{t}"
    );
    kill(child);
    let unmarked = tmp.join("txlab-run-lookalike");
    std::fs::create_dir(&unmarked).unwrap();
    let forged = tmp.join("txlab-run-forged");
    std::fs::create_dir(&forged).unwrap();
    std::fs::copy(
        run_dir.join("txlab-run.mark"),
        forged.join("txlab-run.mark"),
    )
    .unwrap();

    let o = txlab(&["clean"]).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains(&format!(
            "{}: left by a run that is no longer alive (process {pid} has ended",
            run_dir.display()
        )),
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "{}: not txlab's (no mark), left alone",
            unmarked.display()
        )),
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "{}: not txlab's (its mark is run",
            forged.display()
        )),
        "{t}"
    );
    assert!(t.contains("1 left by runs that are no longer alive"), "{t}");
    let o = txlab(&["clean", "--drop"]).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains(&format!("removed {}", run_dir.display())), "{t}");
    assert!(
        !run_dir.exists() && unmarked.exists() && forged.exists(),
        "{t}"
    );

    // A pipeline's [target] path keeps its run directories: once the run
    // has ended, `--pipeline` finds them there.
    let kept = home.path().join("kept");
    let pipeline = home.path().join("p.toml");
    let text_of =
        std::fs::read_to_string(common::repo_root().join("configs/quickstart.toml")).unwrap();
    std::fs::write(
        &pipeline,
        text_of.replace(
            "[target]\n",
            &format!("[target]\npath = \"{}\"\n", kept.display()),
        ),
    )
    .unwrap();
    let p = pipeline.display().to_string();
    let o = txlab(&["run", &p, "--cases", "2", "--out", &out])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let kept_run = wait_for_run_dir(&kept);
    let o = txlab(&["clean", "--pipeline", &p, "--drop"])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains(&format!("removed {}", kept_run.display())),
        "{t}"
    );
    assert!(!kept_run.exists(), "{t}");
}

fn private_server(password: &str) -> Option<PrivatePostgres> {
    match PrivatePostgres::start_with_password(password) {
        Ok(server) => Some(server),
        Err(why) => {
            let why = format!("cannot start a private PostgreSQL: {why}");
            if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
                panic!("{why}");
            }
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// Runs the clean command a run printed; checks it removed exactly `names`.
fn run_printed_command(printed: &str, plugins: &Path, home: &Path, names: &[String]) {
    let command = clean_command_in(printed);
    assert_eq!(command[..2], ["txlab", "clean"], "{command:?}");
    let args: Vec<&str> = command[1..].iter().map(String::as_str).collect();
    let o = txlab(plugins, home, &args).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let removed: BTreeSet<&str> = t
        .lines()
        .filter_map(|l| l.trim().strip_prefix("removed "))
        .filter(|l| !l.contains(" of "))
        .collect();
    let expected: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(removed, expected, "{t}");
}

/// A run that cannot drop its databases — quit by a second Ctrl-C, or
/// cut off from its server — names them and the `txlab clean` command
/// (with the run's --password-file) that drops them; that command drops
/// exactly them. On a private PostgreSQL that asks for a password.
#[test]
fn a_run_that_cannot_drop_its_databases_names_them_and_the_command() {
    let password = "pw of the 'leftovers' test";
    let Some(server) = private_server(password) else {
        return;
    };
    let mut plugins_list = SHIPPING.to_vec();
    plugins_list.push("txlab-fixture-panicky");
    let plugins = common::plugin_dir(&plugins_list);
    let home = tempfile::tempdir().unwrap();
    let password_file = home.path().join("pw");
    std::fs::write(&password_file, format!("{password}\n")).unwrap();
    let admin_url = {
        let mut u = url::Url::parse(&server.url()).unwrap();
        u.set_password(Some("pw%20of%20the%20%27leftovers%27%20test"))
            .unwrap();
        u.to_string()
    };
    let pf = password_file.display().to_string();
    let out = home.path().join("out").display().to_string();
    let url = server.url();
    let pipeline = |oracle: &str, name: &str| {
        let p = home.path().join(name);
        std::fs::write(
            &p,
            format!(
                "[run]\nreconnect_timeout = \"1s\"\n\n[target]\ndialect = \"postgres\"\n\n[generator]\nplugin = \"random\"\n\n[[oracle]]\n{oracle}\n"
            ),
        )
        .unwrap();
        p.display().to_string()
    };

    // A second Ctrl-C while a case is in progress (its oracle takes 5 s).
    let checking = home.path().join("checking");
    let slow = pipeline(
        &format!(
            "plugin = \"slow\"\n[oracle.config]\nsleep_ms = 5000\nstarted_file = {:?}",
            checking.display().to_string()
        ),
        "slow.toml",
    );
    let mut child = txlab(
        plugins.path(),
        home.path(),
        &[
            "run",
            &slow,
            "--duration",
            "2m",
            "--url",
            &url,
            "--password-file",
            &pf,
            "--out",
            &out,
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let names = wait_for_databases(ServerKind::Postgres, &admin_url, child.id(), 1);
    // Interrupted before its oracle starts, the case would end at once and
    // the run with it: the first Ctrl-C waits for the oracle's check.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !checking.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no case reached its oracle"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(child.id(), "INT");
    let mut stderr = child.stderr.take().unwrap();
    let mut seen = String::new();
    {
        use std::io::Read as _;
        let mut buf = [0u8; 256];
        while !seen.contains("Ctrl-C again quits at once") {
            let n = stderr.read(&mut buf).unwrap();
            assert!(n > 0, "txlab ended before acknowledging Ctrl-C: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    signal(child.id(), "INT");
    let status = child.wait().unwrap();
    {
        use std::io::Read as _;
        stderr.read_to_string(&mut seen).unwrap();
    }
    assert_eq!(status.code(), Some(130), "{seen}");
    assert!(
        seen.contains("quitting without clean-up; left on postgres://postgres@127.0.0.1:"),
        "{seen}"
    );
    for name in &names {
        assert!(seen.contains(name.as_str()), "{seen}");
    }
    assert!(
        seen.contains(&format!("--password-file {pf}"))
            || seen.contains(&format!("--password-file '{pf}'")),
        "{seen}"
    );
    assert!(
        !seen.contains("leftovers' test"),
        "the password was shown: {seen}"
    );
    run_printed_command(&seen, plugins.path(), home.path(), &names);
    let rt = tokio::runtime::Runtime::new().unwrap();
    assert!(rt
        .block_on(marks(ServerKind::Postgres, &admin_url))
        .is_empty());

    // The server goes away and does not come back within reconnect_timeout:
    // the run stops and cannot drop its databases.
    let fast = pipeline("plugin = \"wss\"", "fast.toml");
    let child = txlab(
        plugins.path(),
        home.path(),
        &[
            "run",
            &fast,
            "--duration",
            "2m",
            "--url",
            &url,
            "--password-file",
            &pf,
            "--out",
            &out,
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let names = wait_for_databases(ServerKind::Postgres, &admin_url, child.id(), 1);
    server.crash();
    let o = child.wait_with_output().unwrap();
    let t = text(&o);
    assert!(
        t.contains(
            "warning: the run could not drop its databases; left on postgres://postgres@127.0.0.1:"
        ),
        "{t}"
    );
    for name in &names {
        assert!(t.contains(name.as_str()), "{t}");
    }
    server.start_again().unwrap();
    assert_eq!(
        rt.block_on(marks(ServerKind::Postgres, &admin_url)).len(),
        names.len()
    );
    run_printed_command(&t, plugins.path(), home.path(), &names);
    assert!(rt
        .block_on(marks(ServerKind::Postgres, &admin_url))
        .is_empty());
}
