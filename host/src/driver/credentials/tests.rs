//! The order of the password sources and the parsing of the clients' files,
//! with a home directory and environment of the test's own.

use super::*;
use std::os::unix::fs::PermissionsExt as _;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn write(&self, name: &str, text: &str, mode: u32) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    fn sources(&self, vars: &[(&str, &str)], file: Option<PathBuf>) -> PasswordSources {
        PasswordSources {
            password_file: file,
            home: Some(self.dir.path().to_path_buf()),
            env: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }
}

fn password_of(login: &Login) -> Option<String> {
    let u = url::Url::parse(&login.url).unwrap();
    u.password().map(|p| percent_decode(p).unwrap())
}

const MY: &str = "mysql://u@127.0.0.1:3306";
const PG: &str = "postgres://u@127.0.0.1:5432/postgres";

#[test]
fn each_source_gives_way_to_the_one_before_it() {
    let home = Home::new();
    let file = home.write("pw", "from-file\nsecond line\n", 0o600);
    home.write(".my.cnf", "[client]\npassword=from-cnf\n", 0o600);
    home.write(".pgpass", "*:*:*:*:from-pgpass\n", 0o600);
    let all = [
        ("TXLAB_PASSWORD", "from-txlab"),
        ("MYSQL_PWD", "from-mysql-pwd"),
        ("PGPASSWORD", "from-pgpassword"),
    ];
    // Take the sources away from the top, one at a time.
    type Vars<'a> = &'a [(&'a str, &'a str)];
    let steps: [(Vars, bool, &str, &str); 4] = [
        (&all, true, "from-file", "from-file"),
        (&all, false, "from-txlab", "from-txlab"),
        (&all[1..], false, "from-mysql-pwd", "from-pgpassword"),
        (&[], false, "from-cnf", "from-pgpass"),
    ];
    for (vars, with_file, mysql, postgres) in steps {
        let s = home.sources(vars, with_file.then(|| file.clone()));
        let l = login(ServerKind::Mysql, MY, &s).unwrap();
        assert_eq!(password_of(&l).as_deref(), Some(mysql), "{:?}", l.source);
        let l = login(ServerKind::Postgres, PG, &s).unwrap();
        assert_eq!(password_of(&l).as_deref(), Some(postgres), "{:?}", l.source);
    }
    // The URL's own password wins over every other source.
    let s = home.sources(&all, None);
    let l = login(ServerKind::Mysql, "mysql://u:in-url@h:3306", &s).unwrap();
    assert_eq!(l.source, PasswordSource::Url);
    assert_eq!(password_of(&l).as_deref(), Some("in-url"));
    // Nothing at all: no password.
    let empty = Home::new();
    let l = login(ServerKind::Postgres, PG, &empty.sources(&[], None)).unwrap();
    assert_eq!(l.source, PasswordSource::None);
    assert_eq!(l.url, PG);
}

#[test]
fn sources_are_named() {
    let home = Home::new();
    let s = home.sources(&[("MYSQL_PWD", "x")], None);
    let l = login(ServerKind::Mysql, MY, &s).unwrap();
    assert_eq!(l.source.to_string(), "$MYSQL_PWD");
    // An empty variable counts as unset.
    let s = home.sources(&[("TXLAB_PASSWORD", ""), ("PGPASSWORD", "y")], None);
    let l = login(ServerKind::Postgres, PG, &s).unwrap();
    assert_eq!(l.source, PasswordSource::Variable("PGPASSWORD"));
    // The other protocol's variable is not read.
    let l = login(ServerKind::Mysql, MY, &s).unwrap();
    assert_eq!(l.source, PasswordSource::None);
}

#[test]
fn a_password_is_put_into_the_url_encoded() {
    let home = Home::new();
    let tricky = "p@ss:w/rd%41%?#&= x\u{e9}";
    let s = home.sources(&[("TXLAB_PASSWORD", tricky)], None);
    for (kind, url) in [(ServerKind::Mysql, MY), (ServerKind::Postgres, PG)] {
        let l = login(kind, url, &s).unwrap();
        assert_eq!(password_of(&l).as_deref(), Some(tricky));
        let u = url::Url::parse(&l.url).unwrap();
        assert_eq!(u.host_str(), Some("127.0.0.1"));
        assert_eq!(u.username(), "u");
        assert!(
            !super::super::redact_url(&l.url).contains("ss:w"),
            "{}",
            l.url
        );
    }
}

#[test]
fn the_password_file_is_read_and_checked() {
    let home = Home::new();
    let crlf = home.write("crlf", "secret\r\n", 0o600);
    let l = login(ServerKind::Mysql, MY, &home.sources(&[], Some(crlf))).unwrap();
    assert_eq!(password_of(&l).as_deref(), Some("secret"));
    let empty = home.write("empty", "\nsecret\n", 0o600);
    let e = login(ServerKind::Mysql, MY, &home.sources(&[], Some(empty)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("first line is empty"), "{e}");
    let missing = home.dir.path().join("missing");
    let e = login(ServerKind::Mysql, MY, &home.sources(&[], Some(missing)))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("--password-file ") && e.contains("missing"),
        "{e}"
    );
    // A password in the URL and a password file: which one was meant?
    let file = home.write("pw", "x\n", 0o600);
    let e = login(
        ServerKind::Postgres,
        "postgres://u@h/db?password=secret",
        &home.sources(&[], Some(file)),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("give the password one way"), "{e}");
    assert!(!e.contains("secret"), "{e}");
}

#[test]
fn my_cnf_is_read_as_the_mysql_clients_read_it() {
    let text = "\
# a comment
[mysqld]
password = server-side
[client]
user = someone
; another comment
password = first
[mysql]
password = mysql-client-only
[client-mariadb]
password = \"quoted # not a comment\\tend\"
";
    assert_eq!(
        my_cnf_password(text).as_deref(),
        Some("quoted # not a comment\tend")
    );
    assert_eq!(
        my_cnf_password("[client]\npassword = bare # comment\n").as_deref(),
        Some("bare")
    );
    assert_eq!(
        my_cnf_password("[Client]\n  password='single'\n").as_deref(),
        Some("single")
    );
    assert_eq!(my_cnf_password("[mysqld]\npassword=x\n"), None);
    assert_eq!(my_cnf_password("[client]\npassword\n"), None);
    assert_eq!(my_cnf_password("password=outside\n[client]\n"), None);
    // World-writable: ignored, with a warning.
    let home = Home::new();
    home.write(".my.cnf", "[client]\npassword=x\n", 0o666);
    let l = login(ServerKind::Mysql, MY, &home.sources(&[], None)).unwrap();
    assert_eq!(l.source, PasswordSource::None);
    assert!(l.warnings[0].contains("world-writable"), "{:?}", l.warnings);
}

fn target(host: &str, port: &str, database: &str, user: &str) -> PgTarget {
    PgTarget {
        host: host.into(),
        port: port.into(),
        database: database.into(),
        user: user.into(),
    }
}

#[test]
fn pgpass_lines_match_as_libpq_matches_them() {
    let text = "\
# host:port:database:user:password
otherhost:5432:*:*:wrong-host
127.0.0.1:5433:*:*:wrong-port
127.0.0.1:5432:other:*:wrong-db
127.0.0.1:5432:*:bob:wrong-user
127.0.0.1:*:postgres:alice:pass\\:with\\\\escapes:and colon
*:*:*:*:fallback
";
    let t = target("127.0.0.1", "5432", "postgres", "alice");
    assert_eq!(
        pgpass_password(text, &t).as_deref(),
        Some("pass:with\\escapes:and colon")
    );
    let t = target("127.0.0.1", "5432", "postgres", "carol");
    assert_eq!(pgpass_password(text, &t).as_deref(), Some("fallback"));
    // An escaped star is a star, not a wildcard.
    let t = target("h", "5432", "d", "u");
    assert_eq!(pgpass_password("\\*:*:*:*:x\n", &t), None);
    assert_eq!(pgpass_password("h:5432:d:u\n", &t), None);
}

#[test]
fn a_pgpass_target_comes_from_the_url() {
    let s = PasswordSources {
        env: [("USER".to_string(), "osuser".to_string())].into(),
        ..PasswordSources::default()
    };
    assert_eq!(
        PgTarget::of("postgres://alice@db.example:6543/shop", &s),
        Some(target("db.example", "6543", "shop", "alice"))
    );
    // Defaults: libpq's port, the user's name as the database, $USER.
    assert_eq!(
        PgTarget::of("postgres://127.0.0.1", &s),
        Some(target("127.0.0.1", "5432", "osuser", "osuser"))
    );
    assert_eq!(
        PgTarget::of("postgres://a@h/d?user=b&dbname=e&port=7", &s),
        Some(target("h", "7", "e", "b"))
    );
}

#[test]
fn pgpass_needs_owner_only_permissions_and_honours_pgpassfile() {
    let home = Home::new();
    home.write(".pgpass", "*:*:*:*:open\n", 0o640);
    let l = login(ServerKind::Postgres, PG, &home.sources(&[], None)).unwrap();
    assert_eq!(l.source, PasswordSource::None);
    assert!(
        l.warnings[0].contains("group or world access"),
        "{:?}",
        l.warnings
    );
    let other = home.write(
        "elsewhere",
        "127.0.0.1:5432:postgres:u:from-pgpassfile\n",
        0o600,
    );
    let s = home.sources(&[("PGPASSFILE", other.to_str().unwrap())], None);
    let l = login(ServerKind::Postgres, PG, &s).unwrap();
    assert_eq!(password_of(&l).as_deref(), Some("from-pgpassfile"));
    assert_eq!(l.source, PasswordSource::OptionFile(other));
}

#[test]
fn urls_shown_in_commands_carry_no_password() {
    assert_eq!(
        url_without_password("mysql://root:secret@h:3306"),
        "mysql://root@h:3306"
    );
    assert_eq!(
        url_without_password("postgres://u@h/d?sslmode=disable&password=secret"),
        "postgres://u@h/d?sslmode=disable"
    );
    assert_eq!(
        url_without_password("postgres://u@h/d?password=s"),
        "postgres://u@h/d"
    );
    assert!(url_has_password("postgres://u@h/d?PassWord=s"));
    assert!(url_has_password("mysql://u:p@h"));
    assert!(!url_has_password("mysql://u@h"));
}
