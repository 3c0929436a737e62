//! Databases on a server that a run creates for itself, marks as txlab's, and
//! removes afterwards. txlab never writes to or drops anything it did not create:
//! before dropping a database it checks the mark carries this run's tag.

use crate::driver::{redact_url, DriverError, ServerKind};
use mysql_async::prelude::Queryable;
use std::sync::Mutex;
use std::time::SystemTime;

/// A run's own databases on one server.
#[derive(Debug)]
pub struct ServerDatabases {
    pub kind: ServerKind,
    /// The server URL as configured (may hold a password; never shown).
    url: String,
    /// `txlab_<time>_<random>`: every database of the run starts with it.
    pub tag: String,
    created: Mutex<Vec<String>>,
    /// Every database the run created, dropped or not, for the run's summary.
    history: Mutex<Vec<String>>,
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

impl ServerDatabases {
    pub fn new(kind: ServerKind, url: &str) -> Self {
        ServerDatabases {
            kind,
            url: url.to_string(),
            tag: run_tag(),
            created: Mutex::new(Vec::new()),
            history: Mutex::new(Vec::new()),
        }
    }

    /// The databases this run created so far.
    pub fn created(&self) -> Vec<String> {
        self.history.lock().expect("lock").clone()
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn redacted_url(&self) -> String {
        redact_url(&self.url)
    }

    fn mark(&self) -> String {
        format!("txlab scratch database, run {}", self.tag)
    }

    fn fail(&self, what: &str, e: impl std::fmt::Display) -> DriverError {
        DriverError::Other(format!("{what} on {}: {e}", self.redacted_url()))
    }

    /// Creates the database `<tag>_<suffix>`, marks it, and returns its name.
    pub async fn create(&self, suffix: &str) -> Result<String, DriverError> {
        let name = format!("{}_{suffix}", self.tag);
        match self.kind {
            ServerKind::Mysql => {
                let mut conn = self.mysql_admin().await?;
                conn.query_drop(format!("CREATE DATABASE `{name}`"))
                    .await
                    .map_err(|e| self.fail("CREATE DATABASE", e))?;
                self.created.lock().expect("lock").push(name.clone());
                self.history.lock().expect("lock").push(name.clone());
                // MySQL has no database comments: the mark is a table inside.
                conn.query_drop(format!(
                    "CREATE TABLE `{name}`.txlab_marker (mark VARCHAR(200) NOT NULL)"
                ))
                .await
                .map_err(|e| self.fail("marking the database", e))?;
                conn.exec_drop(
                    format!("INSERT INTO `{name}`.txlab_marker VALUES (?)"),
                    (self.mark(),),
                )
                .await
                .map_err(|e| self.fail("marking the database", e))?;
                let _ = conn.disconnect().await;
            }
            ServerKind::Postgres => {
                let client = self.postgres_admin().await?;
                client
                    .batch_execute(&format!("CREATE DATABASE \"{name}\""))
                    .await
                    .map_err(|e| self.fail("CREATE DATABASE", e))?;
                self.created.lock().expect("lock").push(name.clone());
                self.history.lock().expect("lock").push(name.clone());
                client
                    .batch_execute(&format!(
                        "COMMENT ON DATABASE \"{name}\" IS '{}'",
                        self.mark()
                    ))
                    .await
                    .map_err(|e| self.fail("marking the database", e))?;
            }
        }
        Ok(name)
    }

    /// Drops every database this run created, after checking its mark.
    pub async fn drop_created(&self) -> Vec<String> {
        let names = std::mem::take(&mut *self.created.lock().expect("lock"));
        let mut problems = Vec::new();
        for name in names {
            if let Err(e) = self.drop_one(&name).await {
                problems.push(format!("{name}: {e}"));
            }
        }
        problems
    }

    async fn drop_one(&self, name: &str) -> Result<(), DriverError> {
        match self.kind {
            ServerKind::Mysql => {
                let mut conn = self.mysql_admin().await?;
                let mark: Option<String> = conn
                    .query_first(format!("SELECT mark FROM `{name}`.txlab_marker"))
                    .await
                    .map_err(|e| self.fail("reading the mark", e))?;
                if mark.as_deref() != Some(self.mark().as_str()) {
                    return Err(self.fail("refusing to drop", "its mark is not this run's"));
                }
                conn.query_drop(format!("DROP DATABASE `{name}`"))
                    .await
                    .map_err(|e| self.fail("DROP DATABASE", e))?;
                let _ = conn.disconnect().await;
            }
            ServerKind::Postgres => {
                let client = self.postgres_admin().await?;
                let row = client
                    .query_opt(
                        "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
                        &[&name],
                    )
                    .await
                    .map_err(|e| self.fail("reading the mark", e))?;
                let mark: Option<String> = row.and_then(|r| r.get(0));
                if mark.as_deref() != Some(self.mark().as_str()) {
                    return Err(self.fail("refusing to drop", "its mark is not this run's"));
                }
                // FORCE ends sessions of ours that are still closing.
                let sql = format!("DROP DATABASE \"{name}\" WITH (FORCE)");
                if client.batch_execute(&sql).await.is_err() {
                    client
                        .batch_execute(&format!("DROP DATABASE \"{name}\""))
                        .await
                        .map_err(|e| self.fail("DROP DATABASE", e))?;
                }
            }
        }
        Ok(())
    }

    async fn mysql_admin(&self) -> Result<mysql_async::Conn, DriverError> {
        let opts = mysql_async::Opts::from_url(&self.url).map_err(|e| DriverError::Connect {
            target: self.redacted_url(),
            reason: e.to_string(),
        })?;
        let opts = mysql_async::OptsBuilder::from_opts(opts)
            .db_name(None::<String>)
            .prefer_socket(false);
        let target = self.redacted_url();
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

    async fn postgres_admin(&self) -> Result<tokio_postgres::Client, DriverError> {
        let target = self.redacted_url();
        let (client, connection) = crate::driver::within_connect_deadline(&target, async {
            tokio_postgres::connect(&self.url, tokio_postgres::NoTls)
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
}
