//! Databases on a server that a run creates for itself, marks as txlab's, and
//! removes afterwards. txlab never writes to or drops anything it did not create:
//! before dropping a database it checks the mark is this run's. The mark also
//! names the process that made the database (see [`super::owner`]), so that
//! `txlab clean` can tell a database of a run that has ended.

use super::leftovers::{self, clean_command, Leftovers};
use super::owner::{Mark, MarkKind};
use crate::driver::{redact_url, url_without_password, DriverError, ServerKind};
use mysql_async::prelude::Queryable;
use std::sync::{Arc, Mutex, Once};
use std::time::SystemTime;

/// A run's own databases on one server.
#[derive(Debug)]
pub struct ServerDatabases {
    pub kind: ServerKind,
    /// The server URL as configured (may hold a password; never shown).
    url: String,
    /// `txlab_<time>_<random>`: every database of the run starts with it.
    pub tag: String,
    /// The mark every database of the run carries.
    mark: String,
    /// Created and not dropped yet; shared with the list of what this
    /// process would leave behind if it quit now.
    open: Arc<Mutex<Vec<String>>>,
    registered: Once,
    /// Every database the run created, dropped or not, for the run's summary.
    history: Mutex<Vec<String>>,
    /// The `txlab clean` command that drops what the run could not.
    clean_command: String,
    /// A cluster's nodes after the first (`url`), as configured. The run's
    /// databases are created and dropped through the first node; the
    /// cluster replicates them.
    other_nodes: Vec<String>,
}

fn run_tag() -> String {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(['-', ':'], "")
        .trim_end_matches('Z')
        .to_lowercase();
    let random =
        txlab_plugin_api::ir::splitmix64(now.as_nanos() as u64 ^ u64::from(std::process::id()));
    format!("txlab_{stamp}_{:06x}", random & 0xff_ffff)
}

/// `name` quoted as a MySQL identifier.
pub(super) fn mysql_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `name` quoted as a PostgreSQL identifier.
pub(super) fn pg_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

impl ServerDatabases {
    pub fn new(kind: ServerKind, url: &str) -> Self {
        let tag = run_tag();
        ServerDatabases {
            kind,
            url: url.to_string(),
            mark: Mark::new(MarkKind::Database, &tag).render(),
            clean_command: clean_command(&url_without_password(url), None, &[], &tag),
            tag,
            open: Arc::new(Mutex::new(Vec::new())),
            registered: Once::new(),
            history: Mutex::new(Vec::new()),
            other_nodes: Vec::new(),
        }
    }

    /// The same server as one node of a cluster, with the others' URLs.
    pub fn with_other_nodes(mut self, urls: Vec<String>) -> Self {
        self.other_nodes = urls;
        self
    }

    /// Every node's URL, the first node's first; one for a single server.
    pub fn node_urls(&self) -> Vec<&str> {
        std::iter::once(self.url.as_str())
            .chain(self.other_nodes.iter().map(String::as_str))
            .collect()
    }

    /// Sets the `txlab clean` command a run that cannot drop its databases
    /// shows (the URL as the user gave it, without password, and the
    /// options that give the password).
    pub fn with_clean_command(mut self, command: String) -> Self {
        self.clean_command = command;
        self
    }

    /// The databases this run created so far.
    pub fn created(&self) -> Vec<String> {
        self.history.lock().expect("lock").clone()
    }

    /// The databases created and not dropped (yet).
    pub fn undropped(&self) -> Vec<String> {
        self.open.lock().expect("lock").clone()
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn redacted_url(&self) -> String {
        redact_url(&self.url)
    }

    /// What this run would leave behind now, with the command that drops it.
    pub fn leftovers(&self) -> Leftovers {
        Leftovers {
            place: url_without_password(&self.url),
            names: self.undropped(),
            command: self.clean_command.clone(),
        }
    }

    fn fail(&self, what: &str, e: impl std::fmt::Display) -> DriverError {
        DriverError::Other(format!("{what} on {}: {e}", self.redacted_url()))
    }

    fn created_one(&self, name: &str) {
        self.registered.call_once(|| {
            leftovers::register(
                &self.open,
                url_without_password(&self.url),
                self.clean_command.clone(),
            )
        });
        self.open.lock().expect("lock").push(name.to_string());
        self.history.lock().expect("lock").push(name.to_string());
    }

    /// Creates the database `<tag>_<suffix>`, marks it, and returns its name.
    pub async fn create(&self, suffix: &str) -> Result<String, DriverError> {
        let name = format!("{}_{suffix}", self.tag);
        match self.kind {
            ServerKind::Mysql => {
                let mut conn = mysql_admin(&self.url).await?;
                conn.query_drop(format!("CREATE DATABASE {}", mysql_ident(&name)))
                    .await
                    .map_err(|e| self.fail("CREATE DATABASE", e))?;
                self.created_one(&name);
                // MySQL has no database comments: the mark is a table inside.
                conn.query_drop(format!(
                    "CREATE TABLE {}.txlab_marker (mark VARCHAR(1000) NOT NULL)",
                    mysql_ident(&name)
                ))
                .await
                .map_err(|e| self.fail("marking the database", e))?;
                conn.exec_drop(
                    format!("INSERT INTO {}.txlab_marker VALUES (?)", mysql_ident(&name)),
                    (&self.mark,),
                )
                .await
                .map_err(|e| self.fail("marking the database", e))?;
                let _ = conn.disconnect().await;
            }
            ServerKind::Postgres => {
                let client = postgres_admin(&self.url).await?;
                client
                    .batch_execute(&format!("CREATE DATABASE {}", pg_ident(&name)))
                    .await
                    .map_err(|e| self.fail("CREATE DATABASE", e))?;
                self.created_one(&name);
                client
                    .batch_execute(&format!(
                        "COMMENT ON DATABASE {} IS '{}'",
                        pg_ident(&name),
                        self.mark.replace('\'', "''")
                    ))
                    .await
                    .map_err(|e| self.fail("marking the database", e))?;
            }
        }
        Ok(name)
    }

    /// Drops every database this run created, after checking its mark; the
    /// problems, one per database it could not drop.
    pub async fn drop_created(&self) -> Vec<String> {
        let names = self.undropped();
        let mut problems = Vec::new();
        for name in names {
            match self.drop_one(&name).await {
                Ok(()) => self.open.lock().expect("lock").retain(|n| *n != name),
                Err(e) => problems.push(format!("{name}: {e}")),
            }
        }
        problems
    }

    async fn drop_one(&self, name: &str) -> Result<(), DriverError> {
        let mark = read_mark(self.kind, &self.url, name).await?;
        if mark != StoredMark::Text(self.mark.clone()) {
            return Err(self.fail("refusing to drop", "its mark is not this run's"));
        }
        match self.kind {
            ServerKind::Mysql => {
                let mut conn = mysql_admin(&self.url).await?;
                conn.query_drop(format!("DROP DATABASE {}", mysql_ident(name)))
                    .await
                    .map_err(|e| self.fail("DROP DATABASE", e))?;
                let _ = conn.disconnect().await;
            }
            ServerKind::Postgres => {
                let client = postgres_admin(&self.url).await?;
                // FORCE ends sessions of ours that are still closing.
                let sql = format!("DROP DATABASE {} WITH (FORCE)", pg_ident(name));
                if client.batch_execute(&sql).await.is_err() {
                    client
                        .batch_execute(&format!("DROP DATABASE {}", pg_ident(name)))
                        .await
                        .map_err(|e| self.fail("DROP DATABASE", e))?;
                }
            }
        }
        Ok(())
    }
}

/// What a database holds as its mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum StoredMark {
    /// There is no database of that name (any more).
    NoDatabase,
    /// No mark, or not one mark (a `txlab_marker` table of other rows).
    Unmarked,
    Text(String),
}

/// The mark on database `name`.
pub(super) async fn read_mark(
    kind: ServerKind,
    url: &str,
    name: &str,
) -> Result<StoredMark, DriverError> {
    let fail = |e: &dyn std::fmt::Display| {
        DriverError::Other(format!(
            "reading the mark of {name} on {}: {e}",
            redact_url(url)
        ))
    };
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_admin(url).await?;
            let found: Option<(i64, i64)> = conn
                .exec_first(
                    "SELECT (SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?), \
                            (SELECT COUNT(*) FROM information_schema.tables \
                             WHERE table_schema = ? AND table_name = 'txlab_marker')",
                    (name, name),
                )
                .await
                .map_err(|e| fail(&e))?;
            let (exists, marked) = found.unwrap_or((0, 0));
            if exists == 0 || marked == 0 {
                let _ = conn.disconnect().await;
                return Ok(if exists == 0 {
                    StoredMark::NoDatabase
                } else {
                    StoredMark::Unmarked
                });
            }
            // A table of that name with other columns is not txlab's mark.
            let marks: Vec<String> = conn
                .query(format!(
                    "SELECT mark FROM {}.txlab_marker",
                    mysql_ident(name)
                ))
                .await
                .unwrap_or_default();
            let _ = conn.disconnect().await;
            // A mark is one row; anything else is not one txlab wrote.
            Ok(match marks.as_slice() {
                [one] => StoredMark::Text(one.clone()),
                _ => StoredMark::Unmarked,
            })
        }
        ServerKind::Postgres => {
            let client = postgres_admin(url).await?;
            let row = client
                .query_opt(
                    "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
                    &[&name],
                )
                .await
                .map_err(|e| fail(&e))?;
            Ok(match row {
                None => StoredMark::NoDatabase,
                Some(r) => match r.get::<_, Option<String>>(0) {
                    Some(text) => StoredMark::Text(text),
                    None => StoredMark::Unmarked,
                },
            })
        }
    }
}

/// A connection to the server as the run's admin connections make it: no
/// database chosen, TCP, the connect deadline.
pub(super) async fn mysql_admin(url: &str) -> Result<mysql_async::Conn, DriverError> {
    let target = redact_url(url);
    let opts = mysql_async::Opts::from_url(url).map_err(|e| DriverError::Connect {
        target: target.clone(),
        reason: e.to_string(),
    })?;
    let opts = mysql_async::OptsBuilder::from_opts(opts)
        .db_name(None::<String>)
        .prefer_socket(false);
    crate::driver::within_connect_deadline(&target, async {
        mysql_async::Conn::new(opts)
            .await
            .map_err(|e| DriverError::Connect {
                target: target.clone(),
                reason: e.to_string(),
            })
    })
    .await
}

/// A connection to the database the URL names, within the connect deadline.
pub(super) async fn postgres_admin(url: &str) -> Result<tokio_postgres::Client, DriverError> {
    let target = redact_url(url);
    let (client, connection) = crate::driver::within_connect_deadline(&target, async {
        tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .map_err(|e| DriverError::Connect {
                target: target.clone(),
                reason: crate::driver::postgres_error_text(&e),
            })
    })
    .await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_tags_are_lowercase_identifiers() {
        let t = run_tag();
        assert!(t.starts_with("txlab_"), "{t}");
        assert!(
            t.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{t}"
        );
        assert!(t.len() < 40, "{t}");
    }

    #[test]
    fn a_run_marks_its_databases_with_its_process() {
        let s = ServerDatabases::new(ServerKind::Mysql, "mysql://u:secret@h:3306");
        let mark = Mark::parse(MarkKind::Database, &s.mark).unwrap();
        assert_eq!(mark.tag, s.tag);
        let owner = mark.owner.clone().expect("an owner on Linux");
        assert_eq!(owner.pid, std::process::id());
        assert!(mark.fits(&format!("{}_w0_case", s.tag)));
        // The command that drops what it leaves names the run and no password.
        assert_eq!(
            s.clean_command,
            format!("txlab clean --url mysql://u@h:3306 --run {} --drop", s.tag)
        );
    }

    #[test]
    fn identifiers_are_quoted() {
        assert_eq!(mysql_ident("a`b"), "`a``b`");
        assert_eq!(pg_ident("a\"b"), "\"a\"\"b\"");
    }
}
