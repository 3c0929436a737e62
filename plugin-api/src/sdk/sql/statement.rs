//! Statements: the same clauses in the same order for every dialect, with the
//! dialect's spellings where DBMSs differ.

use super::{ExprWriter, Scope, SqlSyntax};
use crate::ir::*;
use crate::sdk::{PluginError, RenderContext};

/// One statement's SQL text, for [`Dialect::render`](crate::sdk::Dialect::render).
pub fn render_statement<S: SqlSyntax + ?Sized>(
    syntax: &S,
    stmt: &Statement,
    ctx: &RenderContext<'_>,
) -> Result<String, PluginError> {
    let writer_for = |table: &str| ExprWriter::new(syntax, Scope::of(ctx.schema, table));
    match stmt {
        Statement::Begin => syntax.begin(ctx.isolation),
        Statement::BeginSnapshot => syntax.begin_snapshot(ctx.isolation),
        Statement::Commit => Ok("COMMIT".to_string()),
        Statement::Rollback => Ok("ROLLBACK".to_string()),
        Statement::Select(s) => select(s, &writer_for(&s.table)),
        Statement::Insert(s) => insert(s, &writer_for(&s.table)),
        Statement::Update(s) => update(s, &writer_for(&s.table)),
        Statement::Delete(s) => delete(s, &writer_for(&s.table)),
    }
}

fn select<S: SqlSyntax + ?Sized>(s: &Select, w: &ExprWriter<'_, S>) -> Result<String, PluginError> {
    // Asked first: a lock the DBMS lacks makes the rest of the statement moot.
    let lock = w.syntax.row_lock(s.lock)?;
    let projection = match &s.projection {
        Projection::All => "*".to_string(),
        Projection::Exprs(exprs) if exprs.is_empty() => {
            return Err(PluginError::invalid_input(format!(
                "SELECT from `{}` projects no columns",
                s.table
            )))
        }
        Projection::Exprs(exprs) => w.list(exprs)?,
    };
    let mut sql = format!("SELECT {projection} FROM {}", w.syntax.ident(&s.table)?);
    push_where(&mut sql, s.filter.as_ref(), w)?;
    if !s.order_by.is_empty() {
        let keys = s
            .order_by
            .iter()
            .map(|e| w.sort_key(e))
            .collect::<Result<Vec<_>, _>>()?;
        sql.push_str(" ORDER BY ");
        sql.push_str(&keys.join(", "));
    }
    // The locking clause follows ORDER BY in every DBMS that has one.
    sql.push_str(lock);
    Ok(sql)
}

fn insert<S: SqlSyntax + ?Sized>(s: &Insert, w: &ExprWriter<'_, S>) -> Result<String, PluginError> {
    if s.columns.is_empty() || s.rows.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "INSERT into `{}` needs at least one column and one row",
            s.table
        )));
    }
    for column in &s.columns {
        w.syntax.check_written_column(w.scope, column)?;
    }
    w.syntax.check_insert(s)?;
    let form = w.syntax.insert_form(s.on_conflict)?;
    let values = ExprWriter::new(w.syntax, Scope::Nothing);
    let rows = s
        .rows
        .iter()
        .map(|row| Ok(format!("({})", values.list(row)?)))
        .collect::<Result<Vec<_>, PluginError>>()?;
    let mut sql = format!(
        "{} INTO {} ({}) VALUES {}",
        form.verb,
        w.syntax.ident(&s.table)?,
        idents(w.syntax, &s.columns)?,
        rows.join(", ")
    );
    if !form.trailing_clause.is_empty() {
        sql.push(' ');
        sql.push_str(form.trailing_clause);
    }
    Ok(sql)
}

fn update<S: SqlSyntax + ?Sized>(s: &Update, w: &ExprWriter<'_, S>) -> Result<String, PluginError> {
    if s.assignments.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "UPDATE of `{}` assigns no column",
            s.table
        )));
    }
    w.syntax.check_update(s)?;
    let assignments = s
        .assignments
        .iter()
        .map(|a| {
            w.syntax.check_written_column(w.scope, &a.column)?;
            Ok(format!(
                "{} = {}",
                w.syntax.ident(&a.column)?,
                w.expr(&a.value)?
            ))
        })
        .collect::<Result<Vec<_>, PluginError>>()?;
    let mut sql = format!(
        "UPDATE {} SET {}",
        w.syntax.ident(&s.table)?,
        assignments.join(", ")
    );
    push_where(&mut sql, s.filter.as_ref(), w)?;
    Ok(sql)
}

fn delete<S: SqlSyntax + ?Sized>(s: &Delete, w: &ExprWriter<'_, S>) -> Result<String, PluginError> {
    let mut sql = format!("DELETE FROM {}", w.syntax.ident(&s.table)?);
    push_where(&mut sql, s.filter.as_ref(), w)?;
    Ok(sql)
}

fn push_where<S: SqlSyntax + ?Sized>(
    sql: &mut String,
    filter: Option<&Expr>,
    w: &ExprWriter<'_, S>,
) -> Result<(), PluginError> {
    if let Some(filter) = filter {
        sql.push_str(" WHERE ");
        sql.push_str(&w.expr(filter)?);
    }
    Ok(())
}

/// Quoted names, comma-separated.
pub(super) fn idents<S: SqlSyntax + ?Sized>(
    syntax: &S,
    names: &[String],
) -> Result<String, PluginError> {
    let quoted = names
        .iter()
        .map(|n| syntax.ident(n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::ErrorKind;
    use crate::sdk::sql::test_syntax::{table, Standard};

    fn render(stmt: Statement) -> Result<String, PluginError> {
        let schema = Schema {
            tables: vec![table()],
        };
        let ctx = RenderContext {
            schema: &schema,
            isolation: IsolationLevel::RepeatableRead,
        };
        render_statement(&Standard, &stmt, &ctx)
    }

    fn select(projection: Projection, lock: RowLock) -> Statement {
        Statement::Select(Select {
            table: "t".into(),
            projection,
            filter: Some(Expr::eq(Expr::column("id"), Expr::lit(Value::Int(1)))),
            order_by: vec![Expr::column("v"), Expr::lit(Value::Int(1))],
            lock,
        })
    }

    fn insert(columns: &[&str], rows: Vec<Vec<Expr>>, on_conflict: OnConflict) -> Statement {
        Statement::Insert(Insert {
            table: "t".into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows,
            on_conflict,
        })
    }

    #[test]
    fn transaction_control() {
        assert_eq!(render(Statement::Begin).unwrap(), "BEGIN REPEATABLE READ");
        assert_eq!(render(Statement::Commit).unwrap(), "COMMIT");
        assert_eq!(render(Statement::Rollback).unwrap(), "ROLLBACK");
    }

    #[test]
    fn select_clauses_come_in_order_with_the_lock_last() {
        assert_eq!(
            render(select(Projection::All, RowLock::ForUpdate)).unwrap(),
            r#"SELECT * FROM "t" WHERE ("id" = 1) ORDER BY "v", CAST(1 AS POSITIONLESS) LOCK(UPDATE)"#
        );
        let e = render(select(Projection::Exprs(vec![]), RowLock::None)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        assert!(e.message.contains("projects no columns"), "{e}");
    }

    #[test]
    fn insert_spells_the_conflict_choice_where_the_dialect_puts_it() {
        let row = vec![Expr::lit(Value::Int(1)), Expr::lit(Value::Text("a".into()))];
        assert_eq!(
            render(insert(&["id", "v"], vec![row.clone()], OnConflict::Replace)).unwrap(),
            r#"REPLACE INTO "t" ("id", "v") VALUES (1, 'a')"#
        );
        assert_eq!(
            render(insert(
                &["id", "v"],
                vec![row.clone(), row],
                OnConflict::Ignore
            ))
            .unwrap(),
            r#"INSERT INTO "t" ("id", "v") VALUES (1, 'a'), (1, 'a') ON CONFLICT DO NOTHING"#
        );
    }

    #[test]
    fn malformed_writes_are_refused() {
        let e = render(insert(&["id"], vec![], OnConflict::Error)).unwrap_err();
        assert!(e.message.contains("at least one column and one row"), "{e}");
        // Values cannot read columns.
        let e = render(insert(
            &["id"],
            vec![vec![Expr::column("id")]],
            OnConflict::Error,
        ))
        .unwrap_err();
        assert!(e.message.contains("no table is in scope"), "{e}");
        let e = render(Statement::Update(Update {
            table: "t".into(),
            assignments: vec![],
            filter: None,
        }))
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        assert!(e.message.contains("assigns no column"), "{e}");
    }

    #[test]
    fn written_columns_are_checked_in_statement_order() {
        let e = render(insert(&["id", "nope"], vec![vec![]], OnConflict::Error)).unwrap_err();
        assert_eq!(e.message, "table `t` has no column `nope`");
        // The first assignment's value fails before the second's target is looked at.
        let assign = |column: &str, value| Assignment {
            column: column.into(),
            value,
        };
        let e = render(Statement::Update(Update {
            table: "t".into(),
            assignments: vec![
                assign("v", Expr::column("missing")),
                assign("nope", Expr::lit(Value::Int(1))),
            ],
            filter: None,
        }))
        .unwrap_err();
        assert_eq!(e.message, "table `t` has no column `missing`");
    }

    #[test]
    fn update_and_delete() {
        let update = Statement::Update(Update {
            table: "t".into(),
            assignments: vec![Assignment {
                column: "v".into(),
                value: Expr::lit(Value::Text("b".into())),
            }],
            filter: Some(Expr::column("id")),
        });
        assert_eq!(
            render(update).unwrap(),
            r#"UPDATE "t" SET "v" = 'b' WHERE "id""#
        );
        let delete = Statement::Delete(Delete {
            table: "t".into(),
            filter: None,
        });
        assert_eq!(render(delete).unwrap(), r#"DELETE FROM "t""#);
    }
}
