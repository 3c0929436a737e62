//! Where the password for a server comes from, so that it need not be in a
//! URL on the command line (every local user can read it there with `ps`).
//!
//! The first source that has one wins:
//!
//! 1. the URL itself (`mysql://user:pw@…`, or a `?password=` parameter);
//! 2. `--password-file FILE`: the file's first line;
//! 3. the environment variable `TXLAB_PASSWORD`;
//! 4. the client's own variable: `MYSQL_PWD` (MySQL protocol) or
//!    `PGPASSWORD` (PostgreSQL protocol);
//! 5. the client's own file: `password` in the `[client]` (or
//!    `[client-server]`, `[client-mariadb]`) group of `~/.my.cnf`, ignored
//!    when it is world-writable, as the MySQL clients do; or the first line of
//!    `~/.pgpass` (or `$PGPASSFILE`) that matches host, port, database and
//!    user, ignored unless only its owner may read it, as libpq does.
//!
//! Without any, txlab connects without a password. Empty values count as
//! absent. The password is put into the URL txlab connects with, which is
//! never shown: every URL a user sees goes through [`super::redact_url`].

use super::ServerKind;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The variables this module reads, besides those naming home and user.
const VARIABLES: &[&str] = &[
    "TXLAB_PASSWORD",
    "MYSQL_PWD",
    "PGPASSWORD",
    "PGPASSFILE",
    "USER",
    "LOGNAME",
];

/// Everything a password may come from, read once, so that tests can give
/// their own.
#[derive(Clone, Debug, Default)]
pub struct PasswordSources {
    pub password_file: Option<PathBuf>,
    /// The home directory (`~/.my.cnf`, `~/.pgpass`).
    pub home: Option<PathBuf>,
    /// The environment variables of [`VARIABLES`] that are set.
    pub env: BTreeMap<String, String>,
}

impl PasswordSources {
    /// This process's environment and home directory, with `--password-file`.
    pub fn from_process(password_file: Option<PathBuf>) -> PasswordSources {
        PasswordSources {
            password_file,
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            env: VARIABLES
                .iter()
                .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
                .collect(),
        }
    }

    fn var(&self, key: &str) -> Option<&str> {
        self.env
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// Where the password came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PasswordSource {
    Url,
    PasswordFile(PathBuf),
    Variable(&'static str),
    OptionFile(PathBuf),
    None,
}

impl fmt::Display for PasswordSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PasswordSource::Url => f.write_str("the URL"),
            PasswordSource::PasswordFile(p) => write!(f, "--password-file {}", p.display()),
            PasswordSource::Variable(v) => write!(f, "${v}"),
            PasswordSource::OptionFile(p) => write!(f, "{}", p.display()),
            PasswordSource::None => f.write_str("nowhere (no password)"),
        }
    }
}

/// The URL to connect with (holding the password; never to be shown).
#[derive(Clone, Debug)]
pub struct Login {
    pub url: String,
    pub source: PasswordSource,
    /// Files that were passed over, and why (for the log).
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("--password-file {}: {reason}", path.display())]
    PasswordFile { path: PathBuf, reason: String },
    #[error(
        "--password-file {} and a password in the server URL {url}: give the password one way",
        path.display()
    )]
    Twice { path: PathBuf, url: String },
    #[error("the server URL {0} cannot carry a password (it names no host)")]
    NoHost(String),
}

fn is_password_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.contains("password") || key == "pass" || key == "pwd"
}

/// Whether a URL carries a password: in its user part or as a parameter.
pub fn url_has_password(url: &str) -> bool {
    match url::Url::parse(url) {
        Ok(u) => u.password().is_some() || u.query_pairs().any(|(k, _)| is_password_key(&k)),
        Err(_) => false,
    }
}

/// The URL without any password, to show in a command a user may copy.
pub fn url_without_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_password(None);
            if u.query_pairs().any(|(k, _)| is_password_key(&k)) {
                let kept: Vec<(String, String)> = u
                    .query_pairs()
                    .filter(|(k, _)| !is_password_key(k))
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect();
                if kept.is_empty() {
                    u.set_query(None);
                } else {
                    u.query_pairs_mut().clear().extend_pairs(kept);
                }
            }
            u.to_string()
        }
        Err(_) => "<unparsable URL>".to_string(),
    }
}

/// `url` with the password from the first source that has one.
pub fn login(
    kind: ServerKind,
    url: &str,
    sources: &PasswordSources,
) -> Result<Login, CredentialsError> {
    let mut warnings = Vec::new();
    if url_has_password(url) {
        if let Some(path) = &sources.password_file {
            return Err(CredentialsError::Twice {
                path: path.clone(),
                url: super::redact_url(url),
            });
        }
        return Ok(Login {
            url: url.to_string(),
            source: PasswordSource::Url,
            warnings,
        });
    }
    let found = match &sources.password_file {
        Some(path) => Some((
            read_password_file(path)?,
            PasswordSource::PasswordFile(path.clone()),
        )),
        None => None,
    }
    .or_else(|| {
        sources
            .var("TXLAB_PASSWORD")
            .map(|p| (p.to_string(), PasswordSource::Variable("TXLAB_PASSWORD")))
    })
    .or_else(|| {
        let var = match kind {
            ServerKind::Mysql => "MYSQL_PWD",
            ServerKind::Postgres => "PGPASSWORD",
        };
        sources
            .var(var)
            .map(|p| (p.to_string(), PasswordSource::Variable(var)))
    })
    .or_else(|| match kind {
        ServerKind::Mysql => my_cnf(sources, &mut warnings),
        ServerKind::Postgres => pgpass(url, sources, &mut warnings),
    });
    let Some((password, source)) = found else {
        return Ok(Login {
            url: url.to_string(),
            source: PasswordSource::None,
            warnings,
        });
    };
    let mut u =
        url::Url::parse(url).map_err(|_| CredentialsError::NoHost(super::redact_url(url)))?;
    // Every byte but the unreserved ones encoded, `%` included (the URL
    // parser would leave a `%` as it is, and the drivers decode it).
    u.set_password(Some(&percent_encode(&password)))
        .map_err(|()| CredentialsError::NoHost(super::redact_url(url)))?;
    Ok(Login {
        url: u.to_string(),
        source,
        warnings,
    })
}

fn read_password_file(path: &Path) -> Result<String, CredentialsError> {
    let fail = |reason: String| CredentialsError::PasswordFile {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let first = text.lines().next().unwrap_or_default();
    if first.is_empty() {
        return Err(fail(
            "its first line is empty; write the password there".into(),
        ));
    }
    Ok(first.to_string())
}

fn mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).ok().map(|m| m.permissions().mode())
}

/// `password` from `~/.my.cnf`'s client groups.
fn my_cnf(
    sources: &PasswordSources,
    warnings: &mut Vec<String>,
) -> Option<(String, PasswordSource)> {
    let path = sources.home.as_ref()?.join(".my.cnf");
    let text = std::fs::read_to_string(&path).ok()?;
    if mode(&path).is_some_and(|m| m & 0o002 != 0) {
        warnings.push(format!(
            "{} is world-writable and is ignored, as the MySQL clients do (chmod o-w it)",
            path.display()
        ));
        return None;
    }
    let password = my_cnf_password(&text)?;
    Some((password, PasswordSource::OptionFile(path)))
}

/// The client password in a MySQL option file's text: the last `password`
/// in a `[client]`, `[client-server]` or `[client-mariadb]` group.
pub fn my_cnf_password(text: &str) -> Option<String> {
    let mut in_client = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(group) = line.strip_prefix('[') {
            let group = group.split(']').next().unwrap_or_default().trim();
            in_client = matches!(
                group.to_ascii_lowercase().as_str(),
                "client" | "client-server" | "client-mariadb"
            );
            continue;
        }
        if !in_client {
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        if !key.trim().eq_ignore_ascii_case("password") {
            continue;
        }
        let value = option_value(value.trim());
        found = (!value.is_empty()).then_some(value);
    }
    found
}

/// An option file value: quoted (with the escapes MySQL knows) or bare (up
/// to a `#` comment).
fn option_value(raw: &str) -> String {
    let quote = raw.chars().next().filter(|c| *c == '"' || *c == '\'');
    let Some(q) = quote else {
        return raw.split('#').next().unwrap_or_default().trim().to_string();
    };
    let mut out = String::new();
    let mut chars = raw[1..].chars();
    while let Some(c) = chars.next() {
        match c {
            c if c == q => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('b') => out.push('\u{8}'),
                Some('s') => out.push(' '),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    out
}

/// What a `.pgpass` line is matched against, as libpq does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgTarget {
    pub host: String,
    pub port: String,
    pub database: String,
    pub user: String,
}

impl PgTarget {
    /// From a `postgres://` URL: its host (`localhost` when none), port (5432),
    /// database (the user's name) and user (`$USER`), where query parameters
    /// `host`, `port`, `dbname` and `user` win.
    fn of(url: &str, sources: &PasswordSources) -> Option<PgTarget> {
        let u = url::Url::parse(url).ok()?;
        let query: BTreeMap<String, String> = u
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let decode = |s: &str| percent_decode(s).filter(|s| !s.is_empty());
        let user = query
            .get("user")
            .cloned()
            .or_else(|| decode(u.username()))
            .or_else(|| sources.var("USER").map(str::to_string))
            .or_else(|| sources.var("LOGNAME").map(str::to_string))
            .unwrap_or_default();
        let host = query
            .get("host")
            .cloned()
            .or_else(|| u.host_str().map(|h| h.trim_matches(['[', ']']).to_string()))
            .filter(|h| !h.is_empty() && !h.starts_with('/'))
            .unwrap_or_else(|| "localhost".to_string());
        let port = query
            .get("port")
            .cloned()
            .or_else(|| u.port().map(|p| p.to_string()))
            .unwrap_or_else(|| "5432".to_string());
        let database = query
            .get("dbname")
            .cloned()
            .or_else(|| decode(u.path().trim_start_matches('/')))
            .unwrap_or_else(|| user.clone());
        Some(PgTarget {
            host,
            port,
            database,
            user,
        })
    }
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn pgpass(
    url: &str,
    sources: &PasswordSources,
    warnings: &mut Vec<String>,
) -> Option<(String, PasswordSource)> {
    let path = match sources.var("PGPASSFILE") {
        Some(p) => PathBuf::from(p),
        None => sources.home.as_ref()?.join(".pgpass"),
    };
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    if mode(&path).is_some_and(|m| m & 0o077 != 0) {
        warnings.push(format!(
            "password file {} has group or world access and is ignored, as libpq does; permissions should be u=rw (0600) or less",
            path.display()
        ));
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let target = PgTarget::of(url, sources)?;
    let password = pgpass_password(&text, &target)?;
    Some((password, PasswordSource::OptionFile(path)))
}

/// The password of the first `.pgpass` line that matches: each line is
/// `host:port:database:user:password`, `*` matches anything in the first
/// four fields, `\` escapes `:` and `\`, and lines starting with `#` are
/// comments.
pub fn pgpass_password(text: &str, target: &PgTarget) -> Option<String> {
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() < 5 {
            continue;
        }
        let wanted = [&target.host, &target.port, &target.database, &target.user];
        let matches = fields[..4]
            .iter()
            .zip(wanted)
            .all(|((text, escaped), want)| (text == "*" && !escaped) || text == want);
        if matches {
            let password = &fields[4].0;
            return (!password.is_empty()).then(|| password.clone());
        }
    }
    None
}

/// The fields of a `.pgpass` line, unescaped, each with whether it held an
/// escape (an escaped `*` is a literal star).
fn split_pgpass(line: &str) -> Vec<(String, bool)> {
    let mut fields = vec![(String::new(), false)];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == ':' && fields.len() < 5 {
            fields.push((String::new(), false));
            continue;
        }
        let last = fields.last_mut().expect("one field");
        if c == '\\' {
            if let Some(next) = chars.next() {
                last.0.push(next);
                last.1 = true;
            }
        } else {
            last.0.push(c);
        }
    }
    fields
}

#[cfg(test)]
mod tests;
