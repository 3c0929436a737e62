//! What a dialect learns of the server before the first case: its version and
//! the settings the dialect's facts depend on (`DialectInfo::server_query`).

use super::servers::{mysql_admin, postgres_admin};
use crate::driver::{DriverError, ServerKind};
use mysql_async::prelude::Queryable;
use txlab_plugin_api::ir::ServerFacts;

/// The server's version and the rows of `query` (setting name, value) on the
/// server at `url`, over a connection of its own. A setting whose value is
/// NULL is left out, as one the server lacks.
pub async fn read_server_facts(
    kind: ServerKind,
    url: &str,
    query: Option<&str>,
) -> Result<ServerFacts, DriverError> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        DriverError::Other(format!("reading the server's {what}: {e}"))
    };
    let mut facts = ServerFacts::default();
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_admin(url).await?;
            facts.version = conn
                .query_first::<String, _>("SELECT VERSION()")
                .await
                .map_err(|e| failed("version", &e))?
                .unwrap_or_default();
            if let Some(query) = query {
                let rows: Vec<(String, Option<String>)> = conn
                    .query(query)
                    .await
                    .map_err(|e| failed("settings", &e))?;
                facts.settings = rows
                    .into_iter()
                    .filter_map(|(name, value)| Some((name, value?)))
                    .collect();
            }
            let _ = conn.disconnect().await;
        }
        ServerKind::Postgres => {
            let client = postgres_admin(url).await?;
            let text = |rows: Vec<tokio_postgres::SimpleQueryMessage>| {
                rows.into_iter()
                    .filter_map(|m| match m {
                        tokio_postgres::SimpleQueryMessage::Row(row) => Some(
                            (0..row.len())
                                .map(|i| row.get(i).map(str::to_string))
                                .collect::<Vec<_>>(),
                        ),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            };
            let version = client
                .simple_query("SHOW server_version")
                .await
                .map_err(|e| failed("version", &crate::driver::postgres_error_text(&e)))?;
            facts.version = text(version)
                .first()
                .and_then(|row| row.first().cloned().flatten())
                .unwrap_or_default();
            if let Some(query) = query {
                let rows = client
                    .simple_query(query)
                    .await
                    .map_err(|e| failed("settings", &crate::driver::postgres_error_text(&e)))?;
                facts.settings = text(rows)
                    .into_iter()
                    .filter_map(|row| match row.as_slice() {
                        [Some(name), Some(value), ..] => Some((name.clone(), value.clone())),
                        _ => None,
                    })
                    .collect();
            }
        }
    }
    Ok(facts)
}
