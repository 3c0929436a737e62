//! The PostgreSQL-protocol driver (PostgreSQL, CockroachDB), on tokio-postgres.

use super::{
    redact_url, BatchError, Driver, DriverError, LockProbeSpec, Monitor, QueryResult, Session,
    SessionKey,
};
use async_trait::async_trait;
use futures_util::{pin_mut, TryStreamExt};
use tokio_postgres::types::{FromSql, ToSql, Type};
use tokio_postgres::{Client, NoTls, Row, SimpleQueryMessage};
use txlab_plugin_api::ir::{RawDbError, SessionControl, Value};

pub struct PostgresDriver {
    /// Connection string with the database; never shown (it may hold a password).
    conninfo: String,
    url: String,
    probe: LockProbeSpec,
    control: SessionControl,
}

impl PostgresDriver {
    /// A driver for `database` on the server at `url` (`postgres://…`).
    pub fn new(
        url: &str,
        database: &str,
        probe: LockProbeSpec,
        control: SessionControl,
    ) -> Result<Self, DriverError> {
        let mut parsed = url::Url::parse(url).map_err(|e| DriverError::Connect {
            target: redact_url(url),
            reason: e.to_string(),
        })?;
        parsed.set_path(&format!("/{database}"));
        Ok(PostgresDriver {
            conninfo: parsed.to_string(),
            url: redact_url(parsed.as_str()),
            probe,
            control,
        })
    }

    async fn client(&self) -> Result<Client, DriverError> {
        let (client, connection) = super::within_connect_deadline(&self.url, async {
            tokio_postgres::connect(&self.conninfo, NoTls)
                .await
                .map_err(|e| DriverError::Connect {
                    target: self.url.clone(),
                    reason: error_text(&e),
                })
        })
        .await?;
        // The connection future drives the socket; it ends when the client drops.
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(client)
    }
}

/// A PostgreSQL client error with its cause: the server's message for a
/// database error ("database \"x\" does not exist", "password authentication
/// failed …"), else the chain of sources down to the operating system's
/// reason ("Connection refused"), which the error's own text leaves out.
pub(crate) fn error_text(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!(
            "{}: {} (SQLSTATE {})",
            db.severity(),
            db.message(),
            db.code().code()
        );
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

pub(crate) fn raw_error(e: tokio_postgres::Error) -> RawDbError {
    if let Some(db) = e.as_db_error() {
        return RawDbError {
            code: None,
            sqlstate: Some(db.code().code().to_string()),
            message: db.message().to_string(),
            in_transaction: None,
            connection_lost: false,
            timed_out: false,
        };
    }
    RawDbError {
        message: e.to_string(),
        connection_lost: e.is_closed() || e.to_string().contains("connection"),
        ..RawDbError::default()
    }
}

/// NUMERIC in binary form: digits in base 10 000 with a weight and a display
/// scale. Decoded to the decimal text PostgreSQL would print.
struct Numeric(String);

impl<'a> FromSql<'a> for Numeric {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        decode_numeric(raw)
            .map(Numeric)
            .ok_or_else(|| "malformed NUMERIC".into())
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}

fn decode_numeric(raw: &[u8]) -> Option<String> {
    let word = |i: usize| -> Option<u16> {
        Some(u16::from_be_bytes([*raw.get(2 * i)?, *raw.get(2 * i + 1)?]))
    };
    let ndigits = word(0)? as usize;
    let weight = word(1)? as i16 as i64;
    let sign = word(2)?;
    let dscale = word(3)? as usize;
    match sign {
        0xC000 => return Some("NaN".into()),
        0xD000 => return Some("Infinity".into()),
        0xF000 => return Some("-Infinity".into()),
        _ => {}
    }
    let digits: Vec<u16> = (0..ndigits).map(|i| word(4 + i)).collect::<Option<_>>()?;
    // Group k stands for digits[k] * 10000^(weight - k).
    let group = |k: i64| -> u16 {
        if k < 0 {
            0
        } else {
            digits.get(k as usize).copied().unwrap_or(0)
        }
    };
    let mut out = String::new();
    if sign == 0x4000 {
        out.push('-');
    }
    if weight < 0 {
        out.push('0');
    } else {
        out.push_str(&group(0).to_string());
        for k in 1..=weight {
            out.push_str(&format!("{:04}", group(k)));
        }
    }
    if dscale > 0 {
        let mut frac = String::new();
        let mut k = weight + 1;
        while frac.len() < dscale {
            frac.push_str(&format!("{:04}", group(k)));
            k += 1;
        }
        frac.truncate(dscale);
        out.push('.');
        out.push_str(&frac);
    }
    Some(out)
}

fn to_value(row: &Row, i: usize) -> Result<Value, tokio_postgres::Error> {
    let ty = row.columns()[i].type_().clone();
    Ok(match ty {
        Type::BOOL => row
            .try_get::<_, Option<bool>>(i)?
            .map_or(Value::Null, Value::Bool),
        Type::INT2 => row
            .try_get::<_, Option<i16>>(i)?
            .map_or(Value::Null, |v| Value::Int(v.into())),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(i)?
            .map_or(Value::Null, |v| Value::Int(v.into())),
        Type::INT8 => row
            .try_get::<_, Option<i64>>(i)?
            .map_or(Value::Null, Value::Int),
        Type::OID => row
            .try_get::<_, Option<u32>>(i)?
            .map_or(Value::Null, |v| Value::Int(v.into())),
        Type::FLOAT4 => row
            .try_get::<_, Option<f32>>(i)?
            .map_or(Value::Null, |v| Value::Float(v.into())),
        Type::FLOAT8 => row
            .try_get::<_, Option<f64>>(i)?
            .map_or(Value::Null, Value::Float),
        Type::NUMERIC => row
            .try_get::<_, Option<Numeric>>(i)?
            .map_or(Value::Null, |n| Value::Decimal(n.0)),
        Type::BYTEA => row
            .try_get::<_, Option<Vec<u8>>>(i)?
            .map_or(Value::Null, Value::Bytes),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => row
            .try_get::<_, Option<String>>(i)?
            .map_or(Value::Null, Value::Text),
        other => {
            // Generated schemas use none of these; say plainly what came back.
            Value::Text(format!(
                "<value of type {other} that txlab does not decode>"
            ))
        }
    })
}

struct PostgresSession {
    client: Client,
    key: SessionKey,
}

#[async_trait]
impl Driver for PostgresDriver {
    fn target(&self) -> String {
        self.url.clone()
    }

    fn relaxed_commits(&self) -> Option<&'static str> {
        Some("SET synchronous_commit = off")
    }

    async fn connect(&self) -> Result<Box<dyn Session>, DriverError> {
        let client = self.client().await?;
        let pid = session_id(&client, &self.control).await?;
        Ok(Box::new(PostgresSession {
            client,
            key: SessionKey::server(pid),
        }))
    }

    async fn monitor(&self) -> Result<Box<dyn Monitor>, DriverError> {
        Ok(Box::new(PostgresMonitor {
            client: self.client().await?,
            probe: self.probe.clone(),
            cancel: self.control.cancel.clone(),
        }))
    }

    async fn server_started(&self) -> Option<i64> {
        let client = self.client().await.ok()?;
        let rows = client
            .simple_query("SELECT floor(extract(epoch FROM pg_postmaster_start_time()))::bigint")
            .await
            .ok()?;
        rows.iter().find_map(|m| match m {
            SimpleQueryMessage::Row(r) => r.get(0)?.parse().ok(),
            _ => None,
        })
    }

    async fn server_version(&self) -> Option<String> {
        let client = self.client().await.ok()?;
        let rows = client.simple_query("SHOW server_version").await.ok()?;
        rows.iter().find_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(r.get(0)?.to_string()),
            _ => None,
        })
    }
}

/// The session's id for the lock probe: the backend pid, unless the dialect
/// names another query (CockroachDB's `SHOW session_id`).
async fn session_id(client: &Client, control: &SessionControl) -> Result<String, DriverError> {
    let sql = control
        .id_query
        .as_deref()
        .unwrap_or("SELECT pg_backend_pid()");
    let rows = client
        .simple_query(sql)
        .await
        .map_err(|e| DriverError::Other(format!("cannot read the session id: {e}")))?;
    rows.iter()
        .find_map(|m| match m {
            SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        })
        .ok_or_else(|| DriverError::Other(format!("`{sql}` returned no session id")))
}

#[async_trait]
impl Session for PostgresSession {
    fn key(&self) -> SessionKey {
        self.key.clone()
    }

    /// One simple-protocol query with the statements separated by `;`; the
    /// server stops at the first error.
    async fn execute_batch(&mut self, statements: &[String]) -> Result<(), BatchError> {
        if statements.is_empty() {
            return Ok(());
        }
        self.client
            .batch_execute(&statements.join(";\n"))
            .await
            .map_err(|e| BatchError {
                at: None,
                error: raw_error(e),
            })
    }

    async fn execute(&mut self, sql: &str) -> Result<QueryResult, RawDbError> {
        // Parse, bind, describe and execute in one round trip, with typed rows.
        let stream = self
            .client
            .query_typed_raw(sql, Vec::<(&(dyn ToSql + Sync), Type)>::new())
            .await
            .map_err(raw_error)?;
        pin_mut!(stream);
        let mut columns = Vec::new();
        let mut rows = Vec::new();
        while let Some(row) = stream.try_next().await.map_err(raw_error)? {
            if columns.is_empty() {
                columns = row.columns().iter().map(|c| c.name().to_string()).collect();
            }
            let values = (0..row.len())
                .map(|i| to_value(&row, i))
                .collect::<Result<Vec<_>, _>>()
                .map_err(raw_error)?;
            rows.push(values);
        }
        // An empty result cannot tell its columns here; the caller knows from the
        // statement whether it was a query.
        Ok(QueryResult {
            returns_rows: !rows.is_empty(),
            columns,
            rows,
            affected: stream.rows_affected().unwrap_or(0),
        })
    }
}

struct PostgresMonitor {
    client: Client,
    probe: LockProbeSpec,
    cancel: Option<String>,
}

#[async_trait]
impl Monitor for PostgresMonitor {
    async fn is_waiting(&self, session: &SessionKey) -> Result<Option<bool>, DriverError> {
        let Some(sql) = self.probe.statement(session) else {
            return Ok(None);
        };
        let messages = self
            .client
            .simple_query(&sql)
            .await
            .map_err(|e| DriverError::Other(format!("lock-wait probe: {e}")))?;
        // The simple protocol returns every value as text.
        let (mut columns, mut rows) = (Vec::new(), Vec::new());
        for m in &messages {
            if let SimpleQueryMessage::Row(r) = m {
                if columns.is_empty() {
                    columns = r.columns().iter().map(|c| c.name().to_string()).collect();
                }
                rows.push(
                    (0..r.len())
                        .map(|i| r.get(i).map_or(Value::Null, |v| Value::Text(v.to_string())))
                        .collect(),
                );
            }
        }
        self.probe.answer(session, columns, rows)
    }

    async fn cancel(&self, session: &SessionKey) -> Result<(), DriverError> {
        let sql = match &self.cancel {
            Some(sql) => sql.replace("{session}", &session.id),
            None => format!("SELECT pg_cancel_backend({})", session.id),
        };
        self.client
            .simple_query(&sql)
            .await
            .map(|_| ())
            .map_err(|e| DriverError::Other(format!("cancel: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(weight: i16, sign: u16, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut v = Vec::new();
        for w in [digits.len() as u16, weight as u16, sign, dscale] {
            v.extend_from_slice(&w.to_be_bytes());
        }
        for d in digits {
            v.extend_from_slice(&d.to_be_bytes());
        }
        v
    }

    #[test]
    fn numerics_decode_to_postgres_text() {
        assert_eq!(
            decode_numeric(&numeric(0, 0, 2, &[12, 5000])).unwrap(),
            "12.50"
        );
        assert_eq!(decode_numeric(&numeric(-1, 0, 3, &[10])).unwrap(), "0.001");
        assert_eq!(
            decode_numeric(&numeric(1, 0x4000, 2, &[123, 4567, 8900])).unwrap(),
            "-1234567.89"
        );
        assert_eq!(decode_numeric(&numeric(1, 0, 0, &[1])).unwrap(), "10000");
        assert_eq!(decode_numeric(&numeric(0, 0, 0, &[])).unwrap(), "0");
        assert_eq!(decode_numeric(&numeric(0, 0xC000, 0, &[])).unwrap(), "NaN");
        assert!(decode_numeric(&[0, 1]).is_none());
    }
}
