//! SELECT and the IR 1.1 queries, INSERT, UPDATE and DELETE.

use super::ddl::table_name;
use super::expr::{ident, Scope};
use super::{Parsed, Translator};
use crate::error::{Problem, Translated};
use sqlparser::ast as sql;
use txlab_plugin_api::ir::*;

/// A SELECT's parts before it is known to be a [`Select`] or a [`Query`].
struct Parts {
    table: String,
    alias: Option<String>,
    joins: Vec<Join>,
    star: bool,
    projection: Vec<Expr>,
    filter: Option<Expr>,
    group_by: Vec<Expr>,
    order_by: Vec<Expr>,
}

/// Adds MariaDB's LOCK IN SHARE MODE to a translated SELECT.
pub fn with_share_lock(parsed: Parsed) -> Translated<Parsed> {
    match parsed {
        Parsed::Statement(Statement::Select(mut s)) if s.lock == RowLock::None => {
            s.lock = RowLock::ForShare;
            Ok(Parsed::Statement(Statement::Select(s)))
        }
        _ => Err(Problem::unsupported(
            "LOCK IN SHARE MODE on anything but a SELECT from one table",
        )),
    }
}

/// A constant ORDER BY key cast so that the DBMS does not read it as a
/// column position (what the dialects render): the constant itself.
fn uncast_sort_key(e: &sql::Expr) -> &sql::Expr {
    if let sql::Expr::Cast { expr, .. } = e {
        let mut inner = &**expr;
        while let sql::Expr::UnaryOp {
            op: sql::UnaryOperator::Minus,
            expr,
        }
        | sql::Expr::Nested(expr) = inner
        {
            inner = expr;
        }
        if matches!(inner, sql::Expr::Value(_)) {
            return expr;
        }
    }
    e
}

impl Translator {
    fn table(&self, name: &str) -> Translated<&Table> {
        self.schema
            .table(name)
            .ok_or_else(|| Problem::new(format!("unknown table `{name}`")))
    }

    fn relation(&self, factor: &sql::TableFactor) -> Translated<(String, Option<String>)> {
        match factor {
            sql::TableFactor::Table {
                name,
                alias,
                args: None,
                with_hints,
                version: None,
                partitions,
                ..
            } if with_hints.is_empty() && partitions.is_empty() => {
                let table = table_name(name, self.family)?;
                self.table(&table)?;
                let alias = match alias {
                    Some(a) if a.columns.is_empty() => Some(ident(&a.name, self.family)),
                    Some(_) => return Err(Problem::unsupported("a table alias with columns")),
                    None => None,
                };
                Ok((table, alias))
            }
            other => Err(Problem::unsupported(format!("the FROM item `{other}`"))),
        }
    }

    /// The parts of a SELECT … FROM one table [JOIN …], in `outer`.
    /// `hints`: the column types the result columns are read as (those of
    /// INSERT … SELECT's columns, or what a subquery is compared with).
    fn parts(
        &self,
        q: &sql::Query,
        outer: &Scope<'_>,
        hints: &[Option<ColumnType>],
    ) -> Translated<Parts> {
        if q.with.is_some() || q.limit_clause.is_some() || q.fetch.is_some() {
            return Err(Problem::unsupported("WITH, LIMIT or FETCH"));
        }
        let sql::SetExpr::Select(select) = &*q.body else {
            return Err(Problem::unsupported(format!(
                "the query `{}` (only SELECT … FROM a table)",
                q.body
            )));
        };
        if select.distinct.is_some() || select.top.is_some() || select.into.is_some() {
            return Err(Problem::unsupported("SELECT DISTINCT, TOP or INTO"));
        }
        if select.having.is_some() || select.qualify.is_some() {
            return Err(Problem::unsupported("HAVING"));
        }
        let [from] = select.from.as_slice() else {
            return Err(Problem::unsupported(
                "a SELECT without FROM or with several FROM items (write JOIN … ON)",
            ));
        };
        let (table, alias) = self.relation(&from.relation)?;
        let mut names = vec![(alias.clone().unwrap_or(table.clone()), table.clone())];
        let mut joined = Vec::new();
        for join in &from.joins {
            let (kind, constraint) = match &join.join_operator {
                sql::JoinOperator::Join(c) | sql::JoinOperator::Inner(c) => (JoinKind::Inner, c),
                sql::JoinOperator::Left(c) | sql::JoinOperator::LeftOuter(c) => (JoinKind::Left, c),
                _ => {
                    return Err(Problem::unsupported(
                        "a join other than [INNER] or LEFT JOIN",
                    ))
                }
            };
            let sql::JoinConstraint::On(on) = constraint else {
                return Err(Problem::unsupported("a join without ON"));
            };
            let (t, a) = self.relation(&join.relation)?;
            names.push((a.clone().unwrap_or(t.clone()), t.clone()));
            joined.push((kind, t, a, on));
        }
        let scope = Scope {
            tables: names
                .iter()
                .map(|(n, t)| Ok((n.clone(), self.table(t)?)))
                .collect::<Translated<_>>()?,
            outer: Some(outer),
        };
        let mut star = false;
        let mut projection = Vec::new();
        for (i, item) in select.projection.iter().enumerate() {
            match item {
                sql::SelectItem::Wildcard(_) => star = true,
                sql::SelectItem::UnnamedExpr(e) => {
                    let hint = hints.get(i).copied().flatten();
                    projection.push(self.expr(e, &scope, hint)?)
                }
                other => return Err(Problem::unsupported(format!("the result column `{other}`"))),
            }
        }
        if star && !projection.is_empty() {
            return Err(Problem::unsupported("`*` beside other result columns"));
        }
        let joins = joined
            .into_iter()
            .map(|(kind, table, alias, on)| {
                Ok(Join {
                    kind,
                    table,
                    alias,
                    on: self.expr(on, &scope, None)?,
                })
            })
            .collect::<Translated<_>>()?;
        let group_by = match &select.group_by {
            sql::GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => exprs
                .iter()
                .map(|e| self.expr(e, &scope, None))
                .collect::<Translated<_>>()?,
            _ => return Err(Problem::unsupported("GROUP BY ALL or WITH …")),
        };
        let mut order_by = Vec::new();
        if let Some(order) = &q.order_by {
            let sql::OrderByKind::Expressions(keys) = &order.kind else {
                return Err(Problem::unsupported("ORDER BY ALL"));
            };
            for key in keys {
                if key.options.asc == Some(false) || key.options.nulls_first.is_some() {
                    return Err(Problem::unsupported("ORDER BY … DESC or NULLS FIRST/LAST"));
                }
                order_by.push(self.expr(uncast_sort_key(&key.expr), &scope, None)?);
            }
        }
        Ok(Parts {
            table,
            alias,
            joins,
            star,
            projection,
            filter: select
                .selection
                .as_ref()
                .map(|e| self.expr(e, &scope, None))
                .transpose()?,
            group_by,
            order_by,
        })
    }

    /// A subquery, or the source of INSERT … SELECT.
    pub(super) fn query(
        &self,
        q: &sql::Query,
        outer: &Scope<'_>,
        hints: &[Option<ColumnType>],
    ) -> Translated<Query> {
        if !q.locks.is_empty() {
            return Err(Problem::unsupported("a locking clause in a subquery"));
        }
        let p = self.parts(q, outer, hints)?;
        if p.star {
            return Err(Problem::unsupported(
                "`SELECT *` in a subquery or INSERT … SELECT",
            ));
        }
        Ok(Query {
            table: p.table,
            alias: p.alias,
            joins: p.joins,
            projection: p.projection,
            filter: p.filter,
            group_by: p.group_by,
            order_by: p.order_by,
        })
    }

    /// A top-level SELECT: a [`Select`] where one says it all (one table, no
    /// alias, no aggregate, or a row lock), else a [`Query`].
    pub(super) fn top_query(&self, q: &sql::Query) -> Translated<Statement> {
        let lock = match q.locks.as_slice() {
            [] => RowLock::None,
            [sql::LockClause {
                lock_type,
                of: None,
                nonblock: None,
            }] => match lock_type {
                sql::LockType::Share => RowLock::ForShare,
                sql::LockType::Update => RowLock::ForUpdate,
            },
            _ => return Err(Problem::unsupported("FOR UPDATE OF, NOWAIT or SKIP LOCKED")),
        };
        let p = self.parts(q, &Scope::none(), &[])?;
        let aggregate = p
            .projection
            .iter()
            .chain(&p.order_by)
            .any(Expr::has_aggregate);
        let query_form =
            p.alias.is_some() || !p.joins.is_empty() || !p.group_by.is_empty() || aggregate;
        if query_form {
            if lock != RowLock::None || p.star {
                return Err(Problem::unsupported(
                    "a row lock or `*` in a SELECT with an alias, a join or aggregates",
                ));
            }
            return Ok(Statement::Query(Box::new(Query {
                table: p.table,
                alias: p.alias,
                joins: p.joins,
                projection: p.projection,
                filter: p.filter,
                group_by: p.group_by,
                order_by: p.order_by,
            })));
        }
        Ok(Statement::Select(Select {
            table: p.table,
            projection: if p.star {
                Projection::All
            } else {
                Projection::Exprs(p.projection)
            },
            filter: p.filter,
            order_by: p.order_by,
            lock,
        }))
    }

    pub(super) fn insert(&self, insert: &sql::Insert) -> Translated<Statement> {
        let sql::TableObject::TableName(name) = &insert.table else {
            return Err(Problem::unsupported("INSERT INTO a table function"));
        };
        let table = self.table(&table_name(name, self.family)?)?;
        if insert.returning.is_some()
            || !insert.assignments.is_empty()
            || insert.partitioned.is_some()
            || insert.table_alias.is_some()
        {
            return Err(Problem::unsupported(
                "INSERT with RETURNING, SET or an alias",
            ));
        }
        let mut on_conflict = match (insert.or, insert.ignore, insert.replace_into) {
            (None, false, false) => OnConflict::Error,
            (Some(sql::SqliteOnConflict::Ignore), false, false) | (None, true, false) => {
                OnConflict::Ignore
            }
            (Some(sql::SqliteOnConflict::Replace), false, false) | (None, false, true) => {
                OnConflict::Replace
            }
            _ => return Err(Problem::unsupported("this INSERT conflict clause")),
        };
        match &insert.on {
            None => {}
            Some(sql::OnInsert::OnConflict(sql::OnConflict {
                conflict_target: None,
                action: sql::OnConflictAction::DoNothing,
            })) if on_conflict == OnConflict::Error => on_conflict = OnConflict::Ignore,
            Some(other) => return Err(Problem::unsupported(format!("`{other}`"))),
        }
        let columns: Vec<String> = if insert.columns.is_empty() {
            table.column_names()
        } else {
            insert
                .columns
                .iter()
                .map(|c| ident(c, self.family))
                .collect()
        };
        let mut types = Vec::new();
        for c in &columns {
            let column = table.column(c).ok_or_else(|| {
                Problem::new(format!("unknown column `{c}` in table `{}`", table.name))
            })?;
            types.push(column.ty);
        }
        let Some(source) = &insert.source else {
            return Err(Problem::unsupported("INSERT without VALUES or SELECT"));
        };
        if let sql::SetExpr::Values(values) = &*source.body {
            let mut rows = Vec::new();
            for row in &values.rows {
                if row.len() != columns.len() {
                    return Err(Problem::new(format!(
                        "INSERT into `{}` names {} columns but has a row of {} values",
                        table.name,
                        columns.len(),
                        row.len()
                    )));
                }
                rows.push(
                    row.iter()
                        .zip(&types)
                        .map(|(e, ty)| self.expr(e, &Scope::none(), Some(*ty)))
                        .collect::<Translated<_>>()?,
                );
            }
            return Ok(Statement::Insert(Insert {
                table: table.name.clone(),
                columns,
                rows,
                on_conflict,
            }));
        }
        let hints: Vec<Option<ColumnType>> = types.iter().copied().map(Some).collect();
        let query = self.query(source, &Scope::none(), &hints)?;
        if query.projection.len() != columns.len() {
            return Err(Problem::new(format!(
                "INSERT … SELECT into `{}` names {} columns but its query projects {}",
                table.name,
                columns.len(),
                query.projection.len()
            )));
        }
        Ok(Statement::InsertSelect(Box::new(InsertSelect {
            table: table.name.clone(),
            columns,
            query,
            on_conflict,
        })))
    }

    fn single_table(&self, t: &sql::TableWithJoins) -> Translated<&Table> {
        if !t.joins.is_empty() {
            return Err(Problem::unsupported("UPDATE or DELETE over a join"));
        }
        match self.relation(&t.relation)? {
            (name, None) => self.table(&name),
            (_, Some(_)) => Err(Problem::unsupported(
                "an alias on the table of UPDATE or DELETE",
            )),
        }
    }

    pub(super) fn update(
        &self,
        target: &sql::TableWithJoins,
        assignments: &[sql::Assignment],
        selection: Option<&sql::Expr>,
    ) -> Translated<Statement> {
        let table = self.single_table(target)?;
        let scope = Scope {
            tables: vec![(table.name.clone(), table)],
            outer: None,
        };
        let mut out = Vec::new();
        for a in assignments {
            let sql::AssignmentTarget::ColumnName(name) = &a.target else {
                return Err(Problem::unsupported("assigning a tuple of columns"));
            };
            let column = match name.0.last() {
                Some(sql::ObjectNamePart::Identifier(id)) => ident(id, self.family),
                _ => return Err(Problem::new(format!("cannot read the column `{name}`"))),
            };
            let ty = table.column(&column).map(|c| c.ty).ok_or_else(|| {
                Problem::new(format!(
                    "unknown column `{column}` in table `{}`",
                    table.name
                ))
            })?;
            out.push(Assignment {
                column,
                value: self.expr(&a.value, &scope, Some(ty))?,
            });
        }
        Ok(Statement::Update(Update {
            table: table.name.clone(),
            assignments: out,
            filter: selection.map(|e| self.expr(e, &scope, None)).transpose()?,
        }))
    }

    pub(super) fn delete(&self, delete: &sql::Delete) -> Translated<Statement> {
        let (sql::FromTable::WithFromKeyword(from) | sql::FromTable::WithoutKeyword(from)) =
            &delete.from;
        if !delete.tables.is_empty()
            || delete.using.is_some()
            || delete.returning.is_some()
            || !delete.order_by.is_empty()
            || delete.limit.is_some()
        {
            return Err(Problem::unsupported(
                "DELETE of several tables or with USING, RETURNING, ORDER BY or LIMIT",
            ));
        }
        let [target] = from.as_slice() else {
            return Err(Problem::unsupported("DELETE from several tables"));
        };
        let table = self.single_table(target)?;
        let scope = Scope {
            tables: vec![(table.name.clone(), table)],
            outer: None,
        };
        Ok(Statement::Delete(Delete {
            table: table.name.clone(),
            filter: delete
                .selection
                .as_ref()
                .map(|e| self.expr(e, &scope, None))
                .transpose()?,
        }))
    }
}
