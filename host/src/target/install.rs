//! What the case and scratch databases share: putting a case's tables and rows
//! in place, setting sessions up, and reading tables back.

use super::TargetError;
use crate::driver::{one_at_a_time, BatchError, QueryResult, Session};
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::*;

pub(super) fn run_error(sql: &str, during: &'static str, e: RawDbError) -> TargetError {
    TargetError::Statement {
        sql: sql.to_string(),
        during,
        message: e.message,
    }
}

/// Reads every table of a case, rows in canonical order; with `batch`, all
/// of them in one request where the driver can ([`Session::execute_each`]).
pub(super) async fn read_tables(
    admin: &mut dyn Session,
    queries: &[TableQuery],
    batch: bool,
) -> Result<DbState, TargetError> {
    let sqls: Vec<String> = queries.iter().map(|q| q.sql.clone()).collect();
    let results = until_failure(admin, &sqls, batch).await;
    let mut state = DbState::default();
    for (q, result) in queries.iter().zip(results) {
        let r = result.map_err(|e| run_error(&q.sql, "reading the final state", e))?;
        state.tables.push(TableState {
            table: q.table.clone(),
            columns: q.columns.clone(),
            rows: r.rows,
        });
    }
    if state.tables.len() < queries.len() {
        let q = &queries[state.tables.len()];
        return Err(run_error(&q.sql, "reading the final state", no_result()));
    }
    state.canonicalize();
    Ok(state)
}

/// Puts a schema and rows in place: drops the previous case's tables when the
/// schema changed, otherwise empties them; then loads the rows in one transaction.
/// With `batch`, the drops and creations go as one request and the load as
/// another (one round trip each where the driver sends several statements at
/// once); otherwise one statement per request. The statements are the same.
pub(super) async fn install(
    admin: &mut dyn Session,
    dialect: &DialectHandle,
    previous: &mut Option<Schema>,
    schema: &Schema,
    rendered: &RenderedCase,
    batch: bool,
) -> Result<(), TargetError> {
    let same = previous.as_ref() == Some(schema);
    create_tables(admin, dialect, previous, schema, &rendered.create, batch).await?;
    load_rows(admin, dialect, previous, rendered, same, batch).await
}

/// How often a reset that lost a conflict is tried again.
const RESET_ATTEMPTS: u32 = 4;

/// The first half of [`install`]: drops the previous schema's tables and
/// creates `schema`'s (`create`, as rendered) unless `previous` is `schema`.
async fn create_tables(
    admin: &mut dyn Session,
    dialect: &DialectHandle,
    previous: &mut Option<Schema>,
    schema: &Schema,
    create: &[String],
    batch: bool,
) -> Result<(), TargetError> {
    let mut statements: Vec<(String, &'static str)> = Vec::new();
    if previous.as_ref() != Some(schema) {
        // Unknown state (first use, or an earlier load failed): drop the new
        // schema's tables too, in case they are left over.
        let old = previous.take().unwrap_or_else(|| schema.clone());
        for t in old.tables.iter().rev() {
            statements.push((dialect.drop_table(t)?, "dropping the previous tables"));
        }
        for sql in create {
            statements.push((sql.clone(), "creating the tables"));
        }
    }
    if batch && !statements.is_empty() {
        let sqls: Vec<String> = statements.iter().map(|(sql, _)| sql.clone()).collect();
        admin
            .execute_batch(&sqls)
            .await
            .map_err(|e| batch_error(&statements, e))?;
    } else {
        for (sql, during) in statements {
            admin
                .execute(&sql)
                .await
                .map_err(|e| run_error(&sql, during, e))?;
        }
    }
    *previous = Some(schema.clone());
    Ok(())
}

/// The second half of [`install`]: loads the rows in one transaction,
/// emptying the tables first when they held a case before (`same`).
async fn load_rows(
    admin: &mut dyn Session,
    dialect: &DialectHandle,
    previous: &mut Option<Schema>,
    rendered: &RenderedCase,
    same: bool,
    batch: bool,
) -> Result<(), TargetError> {
    // The cheap reset: DELETE + one multi-row INSERT per table, in one transaction.
    let control = &rendered.control;
    let mut load = vec![control.begin.clone()];
    if same {
        load.extend(rendered.clear.iter().cloned());
    }
    load.extend(rendered.populate.iter().cloned());
    load.push(control.commit.clone());
    let mut attempt = 1;
    loop {
        match load_once(admin, &load, batch).await {
            Ok(()) => return Ok(()),
            Err(e) => {
                let _ = admin.execute(&control.rollback).await;
                // On a cluster the reset can lose certification to a
                // writeset of the case still being applied on its node
                // (Galera reports 1213): the same reset a moment later finds
                // it applied.
                let conflict = dialect
                    .classify_error(&e.error)
                    .is_ok_and(|c| c.class.is_concurrency());
                if conflict && attempt < RESET_ATTEMPTS {
                    tokio::time::sleep(std::time::Duration::from_millis(10 * u64::from(attempt)))
                        .await;
                    attempt += 1;
                    continue;
                }
                // Forget the schema so the next case starts from scratch.
                *previous = None;
                let sql = match e.at {
                    Some(i) => load[i].clone(),
                    None => load.join(";\n"),
                };
                return Err(run_error(&sql, "loading the initial rows", e.error));
            }
        }
    }
}

/// One try at loading the rows: `load` as one request or one statement at a
/// time.
async fn load_once(
    admin: &mut dyn Session,
    load: &[String],
    batch: bool,
) -> Result<(), BatchError> {
    if batch {
        admin.execute_batch(load).await
    } else {
        for (i, sql) in load.iter().enumerate() {
            if let Err(error) = admin.execute(sql).await {
                return Err(BatchError { at: Some(i), error });
            }
        }
        Ok(())
    }
}

/// The error of a batch of (statement, what it was for): the statement that
/// failed where the driver tells, all of them otherwise.
fn batch_error(statements: &[(String, &'static str)], e: BatchError) -> TargetError {
    match e.at.and_then(|i| statements.get(i)) {
        Some((sql, during)) => run_error(sql, during, e.error),
        None => {
            let sql: Vec<&str> = statements.iter().map(|(s, _)| s.as_str()).collect();
            run_error(&sql.join(";\n"), "setting up the tables", e.error)
        }
    }
}

/// Makes a loading or replaying session's commits cheaper where the driver
/// knows how ([`crate::driver::Driver::relaxed_commits`]). Best effort: a
/// server that refuses the setting (a PostgreSQL-wire DBMS without it) keeps
/// its durable commits.
pub(super) async fn relax_commits(session: &mut dyn Session, statement: Option<&str>) {
    if let Some(sql) = statement {
        if let Err(e) = session.execute(sql).await {
            tracing::debug!(target: "txlab::target", "`{sql}` refused ({}); commits stay durable", e.message);
        }
    }
}

/// A set-up statement failed; the checks say what the set-up needs, and the
/// error says it too.
fn setup_error(sql: &str, setup: &SessionSetup, e: RawDbError) -> TargetError {
    let needs: Vec<&str> = setup.checks.iter().map(|c| c.explain.as_str()).collect();
    let mut error = run_error(sql, "setting up a session", e);
    if let TargetError::Statement { message, .. } = &mut error {
        if !needs.is_empty() {
            message.push_str(&format!(" ({})", needs.join("; ")));
        }
    }
    error
}

/// A value as text, the way session checks compare it.
fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Decimal(s) | Value::Text(s) => s.clone(),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// Runs a session's set-up statements, then its checks: with `batch`, all
/// of them in one request where the driver can ([`Session::execute_each`]),
/// otherwise one statement per request.
pub(super) async fn apply_setup(
    session: &mut dyn Session,
    setup: &SessionSetup,
    batch: bool,
) -> Result<(), TargetError> {
    let sqls: Vec<String> = setup
        .statements
        .iter()
        .chain(setup.checks.iter().map(|c| &c.sql))
        .cloned()
        .collect();
    let results = until_failure(session, &sqls, batch).await;
    let mut results = results.into_iter();
    for sql in &setup.statements {
        match results.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(setup_error(sql, setup, e)),
            None => return Err(setup_error(sql, setup, no_result())),
        }
    }
    for check in &setup.checks {
        let r = match results.next() {
            Some(result) => {
                result.map_err(|e| run_error(&check.sql, "checking a session's set-up", e))?
            }
            None => {
                return Err(run_error(
                    &check.sql,
                    "checking a session's set-up",
                    no_result(),
                ))
            }
        };
        let got = r
            .rows
            .first()
            .and_then(|row| row.first())
            .map(value_text)
            .unwrap_or_else(|| "no row".into());
        if got != check.expect {
            return Err(TargetError::SessionCheck {
                sql: check.sql.clone(),
                got,
                expect: check.expect.clone(),
                explain: check.explain.clone(),
            });
        }
    }
    Ok(())
}

/// `statements` until the first failure: with `batch` in as few requests as
/// the driver can, otherwise one request each.
async fn until_failure(
    session: &mut dyn Session,
    statements: &[String],
    batch: bool,
) -> Vec<Result<QueryResult, RawDbError>> {
    if batch {
        session.execute_until_failure(statements).await
    } else {
        one_at_a_time(session, statements).await
    }
}

/// What a statement of a series gets when the driver returned nothing for it.
fn no_result() -> RawDbError {
    RawDbError {
        message: "the driver returned no result for it".into(),
        ..RawDbError::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{QueryResult, SessionKey};
    use async_trait::async_trait;
    use txlab_loader::DialectHandle;

    /// A session whose first `fail` loads lose a conflict (MariaDB's 1213,
    /// as a Galera node reports a lost certification), then succeed.
    struct Losing {
        fail: usize,
        batches: usize,
    }

    #[async_trait]
    impl Session for Losing {
        fn key(&self) -> SessionKey {
            SessionKey::server("1".into())
        }

        async fn execute(&mut self, _sql: &str) -> Result<QueryResult, RawDbError> {
            Ok(QueryResult::default())
        }

        async fn execute_batch(&mut self, statements: &[String]) -> Result<(), BatchError> {
            self.batches += 1;
            if self.batches <= self.fail {
                return Err(BatchError {
                    at: Some(statements.len() - 1),
                    error: RawDbError {
                        code: Some(1213),
                        sqlstate: Some("40001".into()),
                        message: "Deadlock found when trying to get lock".into(),
                        ..RawDbError::default()
                    },
                });
            }
            Ok(())
        }
    }

    fn rendered() -> RenderedCase {
        RenderedCase {
            populate: vec!["INSERT INTO t VALUES (1)".into()],
            clear: vec!["DELETE FROM t".into()],
            ..RenderedCase::default()
        }
    }

    /// A reset that loses a conflict is tried again; one that keeps losing
    /// fails with the statement and the server's message.
    #[tokio::test]
    async fn a_reset_that_lost_a_conflict_is_tried_again() {
        let dialect = DialectHandle::from_plugin::<txlab_mysql::MariadbDialect>("{}").unwrap();
        let schema = Schema::default();
        let mut session = Losing {
            fail: 2,
            batches: 0,
        };
        let mut previous = Some(schema.clone());
        load_rows(
            &mut session,
            &dialect,
            &mut previous,
            &rendered(),
            true,
            true,
        )
        .await
        .unwrap();
        assert_eq!(session.batches, 3);
        assert_eq!(previous, Some(schema.clone()));

        let mut session = Losing {
            fail: usize::MAX,
            batches: 0,
        };
        let e = load_rows(
            &mut session,
            &dialect,
            &mut previous,
            &rendered(),
            true,
            true,
        )
        .await
        .unwrap_err();
        assert_eq!(session.batches, RESET_ATTEMPTS as usize);
        assert!(e.to_string().contains("Deadlock found"), "{e}");
        assert_eq!(previous, None, "the next case starts from scratch");
    }
}
