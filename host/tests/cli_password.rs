//! Logging in with a password that is not on the command line: from
//! `--password-file`, `TXLAB_PASSWORD`, the clients' own variables
//! (`MYSQL_PWD`, `PGPASSWORD`) and files (`~/.my.cnf`, `~/.pgpass`), against
//! users that check it: a user the test creates on the shared MariaDB, and
//! the superuser of a private PostgreSQL that asks for passwords (the
//! shared PostgreSQL trusts every local connection, so it would accept any
//! password). A wrong password is refused with the server's reason, and no
//! password ever shows in what txlab prints or writes.

mod common;

use common::cli_env::SHIPPING;
use common::leftovers::*;
use common::private_postgres::PrivatePostgres;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;
use txlab_host::driver::ServerKind;

/// Every file under `dir`, read.
fn all_text(dir: &Path) -> String {
    let mut text = String::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                text.push_str(&all_text(&p));
            } else {
                text.push_str(&String::from_utf8_lossy(
                    &std::fs::read(&p).unwrap_or_default(),
                ));
            }
        }
    }
    text
}

fn write(path: &Path, text: &str, mode: u32) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs `command`, checks its exit code, and that `password` is nowhere in
/// what it printed; what it printed.
fn check(mut command: Command, code: i32, password: &str) -> String {
    let o = command.output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(code), "{t}");
    assert!(!t.contains(password), "the password shows: {t}");
    t
}

struct DropUser {
    url: String,
    user: String,
}

impl Drop for DropUser {
    fn drop(&mut self) {
        if let Ok(rt) = tokio::runtime::Runtime::new() {
            rt.block_on(exec(
                ServerKind::Mysql,
                &self.url,
                &[format!("DROP USER IF EXISTS '{}'@'127.0.0.1'", self.user)],
            ));
        }
    }
}

/// MariaDB: a user with a password, created by the test; `txlab clean
/// --pipeline` logs in the way `run` does (it needs no privileges).
#[test]
fn mariadb_logs_in_with_a_password_from_a_file_the_environment_or_my_cnf() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    if !rt.block_on(common::servers::reachable(
        ServerKind::Mysql,
        "passwords on MariaDB",
    )) {
        return;
    }
    let admin = common::servers::url(ServerKind::Mysql);
    let user = format!("txlab_pw_test_{}", std::process::id());
    let password = "My pw: 'x@y%41#z'";
    let _drop = DropUser {
        url: admin.clone(),
        user: user.clone(),
    };
    rt.block_on(exec(
        ServerKind::Mysql,
        &admin,
        &[
            format!("DROP USER IF EXISTS '{user}'@'127.0.0.1'"),
            format!("CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY 'My pw: ''x@y%41#z'''"),
        ],
    ));
    let plugins = common::plugin_dir(SHIPPING);
    let home = tempfile::tempdir().unwrap();
    let url = format!("mysql://{user}@127.0.0.1:3306");
    let clean = |extra: &[&str]| {
        let mut args = vec!["clean", "--pipeline", "configs/mariadb.toml", "--url", &url];
        args.extend_from_slice(extra);
        txlab(plugins.path(), home.path(), &args)
    };
    let file = home.path().join("pw");
    write(&file, &format!("{password}\n"), 0o600);
    let f = file.display().to_string();
    let t = check(clean(&["--password-file", &f]), 0, password);
    assert!(t.contains(&format!("databases on {url}:")), "{t}");
    for var in ["TXLAB_PASSWORD", "MYSQL_PWD"] {
        let mut c = clean(&[]);
        c.env(var, password);
        check(c, 0, password);
    }
    // PostgreSQL's variable is not MySQL's: no password, refused.
    let mut c = clean(&[]);
    c.env("PGPASSWORD", password);
    let t = check(c, 2, password);
    assert!(t.contains("Access denied"), "{t}");
    write(
        &home.path().join(".my.cnf"),
        "[mysqld]\npassword = not-this\n[client]\npassword = \"My pw: 'x@y%41#z'\"\n",
        0o600,
    );
    check(clean(&[]), 0, password);
    // The file wins over ~/.my.cnf: a wrong one is refused with the server's reason.
    write(&file, "wrong horse\n", 0o600);
    let t = check(clean(&["--password-file", &f]), 2, "wrong horse");
    assert!(t.contains("Access denied for user"), "{t}");
    // In the URL: it works, with a warning, and shows masked.
    let with_password = format!(
        "mysql://{user}:{}@127.0.0.1:3306",
        "My%20pw%3A%20%27x%40y%2541%23z%27"
    );
    let o = txlab(
        plugins.path(),
        home.path(),
        &["clean", "--url", &with_password],
    )
    .output()
    .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("warning: the password in --url can be read by every local user (ps)"),
        "{t}"
    );
    assert!(!t.contains("x%40y") && !t.contains("x@y"), "{t}");
}

/// PostgreSQL that asks for passwords: whole runs with --password-file and
/// TXLAB_PASSWORD; PGPASSWORD and ~/.pgpass (refused unless 0600, as libpq
/// does); a wrong password refused with the server's reason.
#[test]
fn postgres_logs_in_with_a_password_from_a_file_the_environment_or_pgpass() {
    let password = "pg pw:with@odd%41chars";
    let server = match PrivatePostgres::start_with_password(password) {
        Ok(s) => s,
        Err(why) => {
            let why = format!("cannot start a private PostgreSQL: {why}");
            if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
                panic!("{why}");
            }
            eprintln!("skipped: {why}");
            return;
        }
    };
    let plugins = common::plugin_dir(SHIPPING);
    let home = tempfile::tempdir().unwrap();
    let url = server.url();
    let out = home.path().join("out");
    let o = out.display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "configs/postgres.toml",
            "--cases",
            "3",
            "--no-reduce",
            "--url",
            &url,
            "--out",
            &o,
        ];
        args.extend_from_slice(extra);
        txlab(plugins.path(), home.path(), &args)
    };
    let ran = |t: &str| {
        assert!(t.contains("txlab: 3 cases in"), "{t}");
        assert!(t.contains("tool errors 0"), "{t}");
    };
    let file = home.path().join("pw");
    write(&file, &format!("{password}\n"), 0o600);
    let f = file.display().to_string();
    let mut c = run(&["--password-file", &f]);
    c.env("TXLAB_PASSWORD", "not this one: the file comes first");
    let out_of = |c: Command| {
        let mut c = c;
        let o = c.output().unwrap();
        let t = text(&o);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{t}");
        assert!(!t.contains(password), "{t}");
        t
    };
    ran(&out_of(c));
    let mut c = run(&[]);
    c.env("TXLAB_PASSWORD", password);
    ran(&out_of(c));
    assert!(
        !all_text(&out).contains(password),
        "a file of the run holds the password"
    );

    let clean = || txlab(plugins.path(), home.path(), &["clean", "--url", &url]);
    let mut c = clean();
    c.env("PGPASSWORD", password);
    check(c, 0, password);
    let pgpass = home.path().join(".pgpass");
    let line = format!(
        "otherhost:*:*:*:wrong\n127.0.0.1:{}:postgres:postgres:{}\n",
        server.port,
        password.replace(':', "\\:")
    );
    write(&pgpass, &line, 0o600);
    check(clean(), 0, password);
    write(&pgpass, &line, 0o644);
    let t = check(clean(), 2, password);
    assert!(
        t.contains("has group or world access and is ignored"),
        "{t}"
    );
    let mut c = clean();
    c.env("PGPASSWORD", "wrong horse");
    let t = check(c, 2, "wrong horse");
    assert!(
        t.contains("password authentication failed for user \"postgres\""),
        "{t}"
    );
}
