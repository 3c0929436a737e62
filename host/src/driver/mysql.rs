//! The MySQL-protocol driver (MySQL, MariaDB, TiDB), on mysql_async.

use super::{
    redact_url, BatchError, Driver, DriverError, LockProbeSpec, Monitor, QueryResult, Session,
    SessionKey,
};
use async_trait::async_trait;
use mysql_async::consts::{ColumnFlags, ColumnType};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, Row, TextProtocol};
use tokio::sync::Mutex;
use txlab_plugin_api::ir::{RawDbError, SessionControl, Value};

/// MySQL's character set number for binary strings.
const BINARY_CHARSET: u16 = 63;

pub struct MysqlDriver {
    opts: Opts,
    url: String,
    probe: LockProbeSpec,
    control: SessionControl,
}

impl MysqlDriver {
    /// A driver for `database` on the server at `url`.
    pub fn new(
        url: &str,
        database: &str,
        probe: LockProbeSpec,
        control: SessionControl,
    ) -> Result<Self, DriverError> {
        let opts = Opts::from_url(url).map_err(|e| DriverError::Connect {
            target: redact_url(url),
            reason: e.to_string(),
        })?;
        let opts = OptsBuilder::from_opts(opts)
            .db_name(Some(database))
            // One connection per session, never pooled: sessions keep their state.
            .prefer_socket(false)
            // UPDATE reports the rows it matched, as every other DBMS does, not
            // only those whose value changed.
            .client_found_rows(true)
            .into();
        Ok(MysqlDriver {
            opts,
            url: format!("{}/{database}", redact_url(url).trim_end_matches('/')),
            probe,
            control,
        })
    }

    async fn conn(&self) -> Result<Conn, DriverError> {
        super::within_connect_deadline(&self.url, async {
            Conn::new(self.opts.clone())
                .await
                .map_err(|e| DriverError::Connect {
                    target: self.url.clone(),
                    reason: e.to_string(),
                })
        })
        .await
    }
}

pub(crate) fn raw_error(e: mysql_async::Error) -> RawDbError {
    match e {
        mysql_async::Error::Server(s) => RawDbError {
            code: Some(i64::from(s.code)),
            sqlstate: Some(s.state.clone()),
            message: s.message.clone(),
            in_transaction: None,
            connection_lost: false,
            timed_out: false,
        },
        // I/O and protocol failures: the connection is gone and the statement's
        // fate is unknown.
        other => RawDbError {
            message: other.to_string(),
            connection_lost: true,
            ..RawDbError::default()
        },
    }
}

/// Text-protocol values come as bytes; the column type says what they are.
fn to_value(value: mysql_async::Value, ty: ColumnType, charset: u16, flags: ColumnFlags) -> Value {
    use mysql_async::Value as M;
    let bytes = match value {
        M::NULL => return Value::Null,
        M::Int(i) => return Value::Int(i),
        M::UInt(u) => {
            return i64::try_from(u)
                .map(Value::Int)
                .unwrap_or_else(|_| Value::Decimal(u.to_string()))
        }
        M::Float(f) => return Value::Float(f64::from(f)),
        M::Double(d) => return Value::Float(d),
        M::Bytes(b) => b,
        other => return Value::Text(other.as_sql(true)),
    };
    let text = || String::from_utf8_lossy(&bytes).into_owned();
    match ty {
        ColumnType::MYSQL_TYPE_TINY
        | ColumnType::MYSQL_TYPE_SHORT
        | ColumnType::MYSQL_TYPE_LONG
        | ColumnType::MYSQL_TYPE_INT24
        | ColumnType::MYSQL_TYPE_LONGLONG
        | ColumnType::MYSQL_TYPE_YEAR => {
            let t = text();
            match t.parse::<i64>() {
                Ok(i) => Value::Int(i),
                // An unsigned BIGINT above i64::MAX keeps its digits.
                Err(_) if flags.contains(ColumnFlags::UNSIGNED_FLAG) => Value::Decimal(t),
                Err(_) => Value::Text(t),
            }
        }
        ColumnType::MYSQL_TYPE_FLOAT | ColumnType::MYSQL_TYPE_DOUBLE => {
            let t = text();
            t.parse::<f64>().map(Value::Float).unwrap_or(Value::Text(t))
        }
        ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
            Value::Decimal(text())
        }
        ColumnType::MYSQL_TYPE_BIT => Value::Bytes(bytes),
        ColumnType::MYSQL_TYPE_TINY_BLOB
        | ColumnType::MYSQL_TYPE_MEDIUM_BLOB
        | ColumnType::MYSQL_TYPE_LONG_BLOB
        | ColumnType::MYSQL_TYPE_BLOB
        | ColumnType::MYSQL_TYPE_VAR_STRING
        | ColumnType::MYSQL_TYPE_STRING
        | ColumnType::MYSQL_TYPE_VARCHAR
            if charset == BINARY_CHARSET =>
        {
            Value::Bytes(bytes)
        }
        _ => Value::Text(text()),
    }
}

struct MysqlSession {
    conn: Conn,
    key: SessionKey,
}

#[async_trait]
impl Driver for MysqlDriver {
    fn target(&self) -> String {
        self.url.clone()
    }

    async fn connect(&self) -> Result<Box<dyn Session>, DriverError> {
        let mut conn = self.conn().await?;
        let id = match &self.control.id_query {
            Some(sql) => {
                let row: Option<Row> = conn
                    .query_first(sql.as_str())
                    .await
                    .map_err(|e| DriverError::Other(format!("cannot read the session id: {e}")))?;
                row.and_then(|r| r.unwrap().into_iter().next())
                    .map(|v| match v {
                        mysql_async::Value::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                        other => other.as_sql(true),
                    })
                    .ok_or_else(|| DriverError::Other(format!("`{sql}` returned no session id")))?
            }
            None => conn.id().to_string(),
        };
        let key = SessionKey::server(id);
        Ok(Box::new(MysqlSession { conn, key }))
    }

    async fn monitor(&self) -> Result<Box<dyn Monitor>, DriverError> {
        Ok(Box::new(MysqlMonitor {
            conn: Mutex::new(self.conn().await?),
            probe: self.probe.clone(),
            cancel: self.control.cancel.clone(),
        }))
    }

    /// The server's clock minus its `Uptime` status; MySQL, MariaDB and TiDB
    /// all answer `SHOW GLOBAL STATUS`.
    async fn server_started(&self) -> Option<i64> {
        let mut conn = self.conn().await.ok()?;
        let now: Option<i64> = conn.query_first("SELECT UNIX_TIMESTAMP()").await.ok()?;
        let uptime: Option<(String, String)> = conn
            .query_first("SHOW GLOBAL STATUS LIKE 'Uptime'")
            .await
            .ok()?;
        let _ = conn.disconnect().await;
        Some(now? - uptime?.1.parse::<i64>().ok()?)
    }

    async fn server_version(&self) -> Option<String> {
        let mut conn = self.conn().await.ok()?;
        let version: Option<String> = conn.query_first("SELECT VERSION()").await.ok()?;
        let _ = conn.disconnect().await;
        version
    }
}

#[async_trait]
impl Session for MysqlSession {
    fn key(&self) -> SessionKey {
        self.key.clone()
    }

    async fn execute(&mut self, sql: &str) -> Result<QueryResult, RawDbError> {
        query(&mut self.conn, sql).await.map_err(raw_error)
    }

    /// One COM_QUERY with the statements separated by `;` (the connection
    /// allows multiple statements); the server stops at the first error.
    async fn execute_batch(&mut self, statements: &[String]) -> Result<(), BatchError> {
        if statements.is_empty() {
            return Ok(());
        }
        self.conn
            .query_drop(statements.join(";\n"))
            .await
            .map_err(|e| BatchError {
                at: None,
                error: raw_error(e),
            })
    }

    /// One multi-statement request. The server stops at the first failing
    /// statement. The driver keeps a failure met while reading the next
    /// result's header for the next read, so a failure comes out while
    /// reading the result of the statement that failed, also after rows of
    /// an earlier statement.
    async fn execute_until_failure(
        &mut self,
        statements: &[String],
    ) -> Vec<Result<QueryResult, RawDbError>> {
        let mut results = Vec::with_capacity(statements.len());
        if statements.is_empty() {
            return results;
        }
        // A line break before each `;` ends any `--` comment a statement ends with.
        let mut result = match self.conn.query_iter(statements.join("\n;\n")).await {
            Ok(result) => result,
            Err(e) => {
                results.push(Err(raw_error(e)));
                return results;
            }
        };
        for _ in statements {
            let read = read_result(&mut result).await.map_err(raw_error);
            let failed = read.is_err();
            results.push(read);
            if failed {
                break;
            }
        }
        results
    }
}

/// Runs `sql` and reads its whole result, each value typed by its column.
async fn query(conn: &mut Conn, sql: &str) -> Result<QueryResult, mysql_async::Error> {
    let mut result = conn.query_iter(sql).await?;
    let read = read_result(&mut result).await?;
    result.drop_result().await?;
    Ok(read)
}

/// Reads the current result of `result` and moves on to the next one.
async fn read_result(
    result: &mut mysql_async::QueryResult<'_, 'static, TextProtocol>,
) -> Result<QueryResult, mysql_async::Error> {
    let columns = result.columns();
    // Moving on reads the next result's header, and with it its count.
    let affected = result.affected_rows();
    let rows: Vec<Row> = result.collect().await?;
    let Some(columns) = columns.filter(|c| !c.is_empty()) else {
        return Ok(QueryResult {
            returns_rows: false,
            affected,
            ..QueryResult::default()
        });
    };
    let rows = rows
        .into_iter()
        .map(|row| {
            row.unwrap()
                .into_iter()
                .zip(columns.iter())
                .map(|(v, c)| to_value(v, c.column_type(), c.character_set(), c.flags()))
                .collect()
        })
        .collect();
    Ok(QueryResult {
        returns_rows: true,
        columns: columns.iter().map(|c| c.name_str().into_owned()).collect(),
        rows,
        affected: 0,
    })
}

struct MysqlMonitor {
    conn: Mutex<Conn>,
    probe: LockProbeSpec,
    cancel: Option<String>,
}

#[async_trait]
impl Monitor for MysqlMonitor {
    async fn is_waiting(&self, session: &SessionKey) -> Result<Option<bool>, DriverError> {
        let Some(sql) = self.probe.statement(session) else {
            return Ok(None);
        };
        let result = query(&mut *self.conn.lock().await, &sql)
            .await
            .map_err(|e| DriverError::Other(format!("lock-wait probe: {e}")))?;
        self.probe.answer(session, result.columns, result.rows)
    }

    async fn cancel(&self, session: &SessionKey) -> Result<(), DriverError> {
        let mut conn = self.conn.lock().await;
        // KILL QUERY ends the running statement only; the session stays usable.
        let sql = match &self.cancel {
            Some(sql) => sql.replace("{session}", &session.id),
            None => format!("KILL QUERY {}", session.id),
        };
        conn.query_drop(sql)
            .await
            .map_err(|e| DriverError::Other(format!("cancel: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_values_are_typed_by_their_column() {
        let b = |s: &str| mysql_async::Value::Bytes(s.as_bytes().to_vec());
        let none = ColumnFlags::empty();
        assert_eq!(
            to_value(b("-7"), ColumnType::MYSQL_TYPE_LONG, 33, none),
            Value::Int(-7)
        );
        assert_eq!(
            to_value(b("0.1"), ColumnType::MYSQL_TYPE_DOUBLE, 33, none),
            Value::Float(0.1)
        );
        assert_eq!(
            to_value(b("12.50"), ColumnType::MYSQL_TYPE_NEWDECIMAL, 33, none),
            Value::Decimal("12.50".into())
        );
        assert_eq!(
            to_value(b("a'b"), ColumnType::MYSQL_TYPE_VAR_STRING, 45, none),
            Value::Text("a'b".into())
        );
        assert_eq!(
            to_value(
                b("\u{1}"),
                ColumnType::MYSQL_TYPE_BLOB,
                BINARY_CHARSET,
                none
            ),
            Value::Bytes(vec![1])
        );
        assert_eq!(
            to_value(
                b("18446744073709551615"),
                ColumnType::MYSQL_TYPE_LONGLONG,
                63,
                ColumnFlags::UNSIGNED_FLAG
            ),
            Value::Decimal("18446744073709551615".into())
        );
        assert_eq!(
            to_value(
                mysql_async::Value::NULL,
                ColumnType::MYSQL_TYPE_LONG,
                63,
                none
            ),
            Value::Null
        );
    }
}
