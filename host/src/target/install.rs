//! What the case and scratch databases share: putting a case's tables and rows
//! in place, setting sessions up, and reading tables back.

use super::TargetError;
use crate::driver::Session;
use txlab_loader::DialectHandle;
use txlab_plugin_api::ir::*;

pub(super) fn run_error(sql: &str, during: &'static str, e: RawDbError) -> TargetError {
    TargetError::Statement {
        sql: sql.to_string(),
        during,
        message: e.message,
    }
}

/// Reads every table of a case, rows in canonical order.
pub(super) async fn read_tables(
    admin: &mut dyn Session,
    queries: &[TableQuery],
) -> Result<DbState, TargetError> {
    let mut state = DbState::default();
    for q in queries {
        let r = admin
            .execute(&q.sql)
            .await
            .map_err(|e| run_error(&q.sql, "reading the final state", e))?;
        state.tables.push(TableState {
            table: q.table.clone(),
            columns: q.columns.clone(),
            rows: r.rows,
        });
    }
    state.canonicalize();
    Ok(state)
}

/// Puts a schema and rows in place: drops the previous case's tables when the
/// schema changed, otherwise empties them; then loads the rows in one transaction.
pub(super) async fn install(
    admin: &mut dyn Session,
    dialect: &DialectHandle,
    previous: &mut Option<Schema>,
    schema: &Schema,
    rendered: &RenderedCase,
) -> Result<(), TargetError> {
    let mut statements: Vec<(String, &'static str)> = Vec::new();
    let same = previous.as_ref() == Some(schema);
    if !same {
        // Unknown state (first use, or an earlier load failed): drop the new
        // schema's tables too, in case they are left over.
        let old = previous.take().unwrap_or_else(|| schema.clone());
        for t in old.tables.iter().rev() {
            statements.push((dialect.drop_table(t)?, "dropping the previous tables"));
        }
        for sql in &rendered.create {
            statements.push((sql.clone(), "creating the tables"));
        }
    }
    for (sql, during) in statements {
        admin
            .execute(&sql)
            .await
            .map_err(|e| run_error(&sql, during, e))?;
    }
    *previous = Some(schema.clone());
    // The cheap reset: DELETE + one multi-row INSERT per table, in one transaction.
    let control = &rendered.control;
    let mut load = vec![control.begin.clone()];
    if same {
        load.extend(rendered.clear.iter().cloned());
    }
    load.extend(rendered.populate.iter().cloned());
    load.push(control.commit.clone());
    for sql in &load {
        if let Err(e) = admin.execute(sql).await {
            let _ = admin.execute(&control.rollback).await;
            // Forget the schema so the next case starts from scratch.
            *previous = None;
            return Err(run_error(sql, "loading the initial rows", e));
        }
    }
    Ok(())
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

/// Runs a session's set-up statements, then its checks.
pub(super) async fn apply_setup(
    session: &mut dyn Session,
    setup: &SessionSetup,
) -> Result<(), TargetError> {
    for sql in &setup.statements {
        if let Err(e) = session.execute(sql).await {
            // The checks say what the set-up needs; show that with the failure.
            let needs: Vec<&str> = setup.checks.iter().map(|c| c.explain.as_str()).collect();
            let mut error = run_error(sql, "setting up a session", e);
            if let TargetError::Statement { message, .. } = &mut error {
                if !needs.is_empty() {
                    message.push_str(&format!(" ({})", needs.join("; ")));
                }
            }
            return Err(error);
        }
    }
    for check in &setup.checks {
        let r = session
            .execute(&check.sql)
            .await
            .map_err(|e| run_error(&check.sql, "checking a session's set-up", e))?;
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
