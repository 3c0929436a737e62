//! Statements: the same clauses in the same order for every dialect, with the
//! dialect's spellings where DBMSs differ.

use super::{ExprWriter, QueryScope, Scope, SqlSyntax};
use crate::ir::*;
use crate::sdk::{PluginError, RenderContext};

/// One statement's SQL text, for [`Dialect::render`](crate::sdk::Dialect::render).
pub fn render_statement<S: SqlSyntax + ?Sized>(
    syntax: &S,
    stmt: &Statement,
    ctx: &RenderContext<'_>,
) -> Result<String, PluginError> {
    let writer_for =
        |table: &str| ExprWriter::with_schema(syntax, Scope::of(ctx.schema, table), ctx.schema);
    match stmt {
        Statement::Begin => syntax.begin(ctx.isolation),
        Statement::BeginSnapshot => syntax.begin_snapshot(ctx.isolation),
        Statement::Commit => Ok("COMMIT".to_string()),
        Statement::Rollback => Ok("ROLLBACK".to_string()),
        Statement::Select(s) => select(s, &writer_for(&s.table)),
        Statement::Insert(s) => insert(s, &writer_for(&s.table)),
        Statement::Update(s) => update(s, &writer_for(&s.table)),
        Statement::Delete(s) => delete(s, &writer_for(&s.table)),
        // A query takes no row locks: it has no locking clause.
        Statement::Query(q) => render_query(syntax, q, Scope::Nothing, Some(ctx.schema)),
        Statement::InsertSelect(s) => insert_select(s, &writer_for(&s.table)),
    }
}

/// A query's SQL without parentheses: `SELECT … FROM … [JOIN …] [WHERE …]
/// [GROUP BY …]`, its columns checked in its own scope inside `outer`, its
/// tables looked up in `schema` (IR 1.1). ORDER BY is the top-level
/// statement's: [`render_statement`] adds it for [`Statement::Query`].
pub fn render_query<S: SqlSyntax + ?Sized>(
    syntax: &S,
    query: &Query,
    outer: Scope<'_>,
    schema: Option<&Schema>,
) -> Result<String, PluginError> {
    let what = format!("query over `{}`", query.table);
    if query.projection.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "{what} projects no columns"
        )));
    }
    if query.joins.len() > 2 {
        return Err(PluginError::invalid_input(format!(
            "{what} joins {} tables; the IR allows at most two joins",
            query.joins.len()
        )));
    }
    let names = query.names();
    for (i, (name, _)) in names.iter().enumerate() {
        if names[..i].iter().any(|(earlier, _)| earlier == name) {
            return Err(PluginError::invalid_input(format!(
                "{what} names `{name}` twice; give one of the tables an alias"
            )));
        }
    }
    let scope = QueryScope {
        tables: names
            .iter()
            .map(|&(name, table)| (name, schema.and_then(|s| s.table(table))))
            .collect(),
        outer,
    };
    let w = ExprWriter {
        syntax,
        scope: Scope::Query(&scope),
        schema,
    };
    let from_item = |table: &str, alias: Option<&str>| -> Result<String, PluginError> {
        Ok(match alias {
            Some(alias) => format!("{} AS {}", syntax.ident(table)?, syntax.ident(alias)?),
            None => syntax.ident(table)?,
        })
    };
    let mut sql = format!(
        "SELECT {} FROM {}",
        w.list(&query.projection)?,
        from_item(&query.table, query.alias.as_deref())?
    );
    for join in &query.joins {
        no_aggregate(&join.on, "a join condition")?;
        sql.push_str(&format!(
            " {} {} ON {}",
            syntax.join(join.kind)?,
            from_item(&join.table, join.alias.as_deref())?,
            w.expr(&join.on)?
        ));
    }
    push_where(&mut sql, query.filter.as_ref(), &w)?;
    if !query.group_by.is_empty() {
        for key in &query.group_by {
            no_aggregate(key, "GROUP BY")?;
        }
        sql.push_str(" GROUP BY ");
        sql.push_str(&w.list(&query.group_by)?);
    }
    push_order_by(&mut sql, &query.order_by, &w)?;
    Ok(sql)
}

fn no_aggregate(e: &Expr, place: &str) -> Result<(), PluginError> {
    if e.has_aggregate() {
        return Err(PluginError::invalid_input(format!(
            "an aggregate cannot stand in {place}"
        )));
    }
    Ok(())
}

fn push_order_by<S: SqlSyntax + ?Sized>(
    sql: &mut String,
    order_by: &[Expr],
    w: &ExprWriter<'_, S>,
) -> Result<(), PluginError> {
    if !order_by.is_empty() {
        let keys = order_by
            .iter()
            .map(|e| w.sort_key(e))
            .collect::<Result<Vec<_>, _>>()?;
        sql.push_str(" ORDER BY ");
        sql.push_str(&keys.join(", "));
    }
    Ok(())
}

/// Asks the dialect about an UPDATE or DELETE whose subqueries read its target.
fn check_target<'e, S: SqlSyntax + ?Sized>(
    syntax: &S,
    statement: &str,
    target: &str,
    exprs: impl IntoIterator<Item = &'e Expr>,
) -> Result<(), PluginError> {
    if exprs.into_iter().any(|e| e.tables().contains(&target)) {
        syntax.check_target_in_subquery(statement, target)?;
    }
    Ok(())
}

fn insert_select<S: SqlSyntax + ?Sized>(
    s: &InsertSelect,
    w: &ExprWriter<'_, S>,
) -> Result<String, PluginError> {
    if s.columns.is_empty() {
        return Err(PluginError::invalid_input(format!(
            "INSERT … SELECT into `{}` names no column",
            s.table
        )));
    }
    if s.columns.len() != s.query.projection.len() {
        return Err(PluginError::invalid_input(format!(
            "INSERT … SELECT into `{}` names {} columns but its query projects {}",
            s.table,
            s.columns.len(),
            s.query.projection.len()
        )));
    }
    for column in &s.columns {
        w.syntax.check_written_column(w.scope, column)?;
    }
    let form = w.syntax.insert_form(s.on_conflict)?;
    // The query sees no column of the row being inserted.
    let query = render_query(w.syntax, &s.query, Scope::Nothing, w.schema)?;
    let mut sql = format!(
        "{} INTO {} ({}) {query}",
        form.verb,
        w.syntax.ident(&s.table)?,
        idents(w.syntax, &s.columns)?,
    );
    if !form.trailing_clause.is_empty() {
        sql.push(' ');
        sql.push_str(form.trailing_clause);
    }
    Ok(sql)
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
    push_order_by(&mut sql, &s.order_by, w)?;
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
    check_target(
        w.syntax,
        "UPDATE",
        &s.table,
        s.assignments
            .iter()
            .map(|a| &a.value)
            .chain(s.filter.iter()),
    )?;
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
    check_target(w.syntax, "DELETE", &s.table, s.filter.iter())?;
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
        no_aggregate(filter, "WHERE")?;
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

    /// Tables `t` and `u`, both `(id INT, v TEXT)`.
    fn render_two(stmt: &Statement) -> Result<String, PluginError> {
        let mut u = table();
        u.name = "u".into();
        let schema = Schema {
            tables: vec![table(), u],
        };
        let ctx = RenderContext {
            schema: &schema,
            isolation: IsolationLevel::RepeatableRead,
        };
        render_statement(&Standard, stmt, &ctx)
    }

    fn q(table: &str, column: &str) -> Expr {
        Expr::Column(ColumnRef {
            table: Some(table.into()),
            column: column.into(),
        })
    }

    fn agg(func: AggregateFunc, arg: Option<Expr>) -> Expr {
        Expr::Aggregate {
            func,
            arg: arg.map(Box::new),
        }
    }

    fn join_query() -> Query {
        Query {
            table: "t".into(),
            alias: Some("a".into()),
            joins: vec![Join {
                kind: JoinKind::Left,
                table: "u".into(),
                alias: None,
                on: Expr::eq(q("a", "id"), q("u", "id")),
            }],
            projection: vec![q("a", "v"), agg(AggregateFunc::Count, None)],
            filter: Some(Expr::IsNull {
                operand: Box::new(q("u", "v")),
                negated: true,
            }),
            group_by: vec![q("a", "v")],
            order_by: vec![q("a", "v")],
        }
    }

    #[test]
    fn queries_join_group_and_order() {
        assert_eq!(
            render_two(&Statement::Query(Box::new(join_query()))).unwrap(),
            r#"SELECT "a"."v", COUNT(*) FROM "t" AS "a" LEFT JOIN "u" ON ("a"."id" = "u"."id") WHERE ("u"."v" IS NOT NULL) GROUP BY "a"."v" ORDER BY "a"."v""#
        );
    }

    #[test]
    fn subqueries_in_filters_and_assignments() {
        let max_v = Query::from_table("u", vec![agg(AggregateFunc::Max, Some(Expr::column("v")))]);
        let mut correlated = Query::from_table("u", vec![Expr::column("id")]);
        correlated.filter = Some(Expr::eq(Expr::column("id"), q("t", "id")));
        let update = Statement::Update(Update {
            table: "t".into(),
            assignments: vec![Assignment {
                column: "v".into(),
                value: Expr::ScalarSubquery(Box::new(max_v)),
            }],
            filter: Some(Expr::and(
                Expr::InSubquery {
                    operand: Box::new(Expr::column("id")),
                    query: Box::new(Query::from_table("u", vec![Expr::column("id")])),
                    negated: true,
                },
                Expr::Exists {
                    query: Box::new(correlated),
                    negated: false,
                },
            )),
        });
        assert_eq!(
            render_two(&update).unwrap(),
            r#"UPDATE "t" SET "v" = (SELECT MAX("v") FROM "u") WHERE (("id" NOT IN (SELECT "id" FROM "u")) AND (EXISTS (SELECT "id" FROM "u" WHERE ("id" = "t"."id"))))"#
        );
        let insert = Statement::InsertSelect(Box::new(InsertSelect {
            table: "t".into(),
            columns: vec!["id".into(), "v".into()],
            query: Query::from_table("u", vec![Expr::column("id"), Expr::column("v")]),
            on_conflict: OnConflict::Ignore,
        }));
        assert_eq!(
            render_two(&insert).unwrap(),
            r#"INSERT INTO "t" ("id", "v") SELECT "id", "v" FROM "u" ON CONFLICT DO NOTHING"#
        );
    }

    #[test]
    fn malformed_queries_are_refused_with_the_reason() {
        let refused = |s: Statement| render_two(&s).unwrap_err().message;
        // A bare column where two tables are in scope.
        let mut ambiguous = join_query();
        ambiguous.projection = vec![Expr::column("v")];
        assert_eq!(
            refused(Statement::Query(Box::new(ambiguous))),
            "column `v` is not qualified, and the query joins `a`, `u`"
        );
        // A qualifier no table in scope has; a column the aliased table lacks.
        let mut unknown = join_query();
        unknown.projection = vec![q("t", "v")];
        assert_eq!(
            refused(Statement::Query(Box::new(unknown))),
            "column `t.v` names no table in scope"
        );
        let mut missing = join_query();
        missing.projection = vec![q("a", "nope")];
        assert_eq!(
            refused(Statement::Query(Box::new(missing))),
            "table `t` has no column `nope`"
        );
        // The same name twice, too many joins, aggregates out of place.
        let mut twice = join_query();
        twice.joins[0].alias = Some("a".into());
        assert!(refused(Statement::Query(Box::new(twice))).contains("names `a` twice"));
        let mut many = join_query();
        many.joins = vec![many.joins[0].clone(); 3];
        assert!(refused(Statement::Query(Box::new(many))).contains("at most two joins"));
        let mut in_where = join_query();
        in_where.filter = Some(agg(AggregateFunc::Count, None));
        assert_eq!(
            refused(Statement::Query(Box::new(in_where))),
            "an aggregate cannot stand in WHERE"
        );
        let mut sum_star = join_query();
        sum_star.projection = vec![agg(AggregateFunc::Sum, None)];
        assert!(refused(Statement::Query(Box::new(sum_star))).contains("SUM needs an argument"));
        // INSERT … SELECT: the projection fits the columns; the query sees no inserted row.
        let mut insert = InsertSelect {
            table: "t".into(),
            columns: vec!["id".into()],
            query: Query::from_table("u", vec![Expr::column("id"), Expr::column("v")]),
            on_conflict: OnConflict::Error,
        };
        assert!(refused(Statement::InsertSelect(Box::new(insert.clone()))).contains("projects 2"));
        insert.query.projection = vec![q("t", "id")];
        assert_eq!(
            refused(Statement::InsertSelect(Box::new(insert))),
            "column `t.id` names no table in scope"
        );
    }

    use crate::sdk::sql::InsertForm;

    /// A dialect refusing a subquery that reads the UPDATE's or DELETE's target.
    struct NoTargetInSubquery;

    impl SqlSyntax for NoTargetInSubquery {
        fn ident(&self, name: &str) -> Result<String, PluginError> {
            Standard.ident(name)
        }
        fn literal(&self, value: &Value) -> Result<String, PluginError> {
            Standard.literal(value)
        }
        fn column_type(&self, ty: ColumnType) -> Result<String, PluginError> {
            Standard.column_type(ty)
        }
        fn empty_in_list(&self, operand: &str, negated: bool) -> Result<String, PluginError> {
            Standard.empty_in_list(operand, negated)
        }
        fn order_by_cast(&self, key: &Expr) -> Option<&'static str> {
            Standard.order_by_cast(key)
        }
        fn begin(&self, isolation: IsolationLevel) -> Result<String, PluginError> {
            Standard.begin(isolation)
        }
        fn row_lock(&self, lock: RowLock) -> Result<&'static str, PluginError> {
            Standard.row_lock(lock)
        }
        fn insert_form(&self, on_conflict: OnConflict) -> Result<InsertForm, PluginError> {
            Standard.insert_form(on_conflict)
        }
        fn check_target_in_subquery(
            &self,
            statement: &str,
            target: &str,
        ) -> Result<(), PluginError> {
            Err(PluginError::unsupported(format!(
                "{statement} of `{target}` reads it in a subquery"
            )))
        }
    }

    #[test]
    fn a_dialect_may_refuse_the_target_in_a_subquery() {
        let schema = Schema {
            tables: vec![table()],
        };
        let ctx = RenderContext {
            schema: &schema,
            isolation: IsolationLevel::RepeatableRead,
        };
        let delete = Statement::Delete(Delete {
            table: "t".into(),
            filter: Some(Expr::Exists {
                query: Box::new(Query::from_table("t", vec![Expr::column("id")])),
                negated: false,
            }),
        });
        let e = render_statement(&NoTargetInSubquery, &delete, &ctx).unwrap_err();
        assert_eq!(e.message, "DELETE of `t` reads it in a subquery");
        assert!(render_statement(&Standard, &delete, &ctx).is_ok());
    }
}
