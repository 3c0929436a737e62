//! A readable SQL rendering of IR statements, for statement records and messages.
//! It is not any dialect's SQL.

use txlab_plugin_api::prelude::*;

pub fn render_statement(statement: &Statement) -> String {
    match statement {
        Statement::Begin => "BEGIN".into(),
        Statement::BeginSnapshot => "START TRANSACTION WITH CONSISTENT SNAPSHOT".into(),
        Statement::Commit => "COMMIT".into(),
        Statement::Rollback => "ROLLBACK".into(),
        Statement::Select(s) => {
            let projection = match &s.projection {
                Projection::All => "*".to_string(),
                Projection::Exprs(exprs) => list(exprs),
            };
            let mut sql = format!("SELECT {projection} FROM {}", s.table);
            push_where(&mut sql, s.filter.as_ref());
            if !s.order_by.is_empty() {
                sql.push_str(&format!(" ORDER BY {}", list(&s.order_by)));
            }
            match s.lock {
                RowLock::None => {}
                RowLock::ForShare => sql.push_str(" FOR SHARE"),
                RowLock::ForUpdate => sql.push_str(" FOR UPDATE"),
            }
            sql
        }
        Statement::Insert(i) => {
            let verb = match i.on_conflict {
                OnConflict::Error => "INSERT INTO",
                OnConflict::Replace => "REPLACE INTO",
                OnConflict::Ignore => "INSERT IGNORE INTO",
            };
            let rows: Vec<String> = i.rows.iter().map(|r| format!("({})", list(r))).collect();
            format!(
                "{verb} {} ({}) VALUES {}",
                i.table,
                i.columns.join(", "),
                rows.join(", ")
            )
        }
        Statement::Update(u) => {
            let sets: Vec<String> = u
                .assignments
                .iter()
                .map(|a| format!("{} = {}", a.column, render_expr(&a.value)))
                .collect();
            let mut sql = format!("UPDATE {} SET {}", u.table, sets.join(", "));
            push_where(&mut sql, u.filter.as_ref());
            sql
        }
        Statement::Delete(d) => {
            let mut sql = format!("DELETE FROM {}", d.table);
            push_where(&mut sql, d.filter.as_ref());
            sql
        }
        Statement::Query(q) => render_query(q),
        Statement::InsertSelect(i) => {
            let verb = match i.on_conflict {
                OnConflict::Error => "INSERT INTO",
                OnConflict::Replace => "REPLACE INTO",
                OnConflict::Ignore => "INSERT IGNORE INTO",
            };
            format!(
                "{verb} {} ({}) {}",
                i.table,
                i.columns.join(", "),
                render_query(&i.query)
            )
        }
        other => format!("{other:?}"),
    }
}

fn push_where(sql: &mut String, filter: Option<&Expr>) {
    if let Some(filter) = filter {
        sql.push_str(" WHERE ");
        sql.push_str(&render_expr(filter));
    }
}

fn list(exprs: &[Expr]) -> String {
    list_with(exprs, ", ")
}

fn list_with(exprs: &[Expr], separator: &str) -> String {
    exprs
        .iter()
        .map(render_expr)
        .collect::<Vec<_>>()
        .join(separator)
}

pub fn render_expr(expr: &Expr) -> String {
    match expr {
        Expr::Column(c) => match &c.table {
            Some(t) => format!("{t}.{}", c.column),
            None => c.column.clone(),
        },
        Expr::Literal(v) => v.to_string(),
        Expr::Unary { op, operand } => match op {
            UnaryOp::Not => format!("NOT {}", render_expr(operand)),
            UnaryOp::Neg => format!("-{}", render_expr(operand)),
            other => format!("{other:?}({})", render_expr(operand)),
        },
        Expr::Binary { op, left, right } => {
            format!(
                "({} {} {})",
                render_expr(left),
                op.sql(),
                render_expr(right)
            )
        }
        Expr::IsNull { operand, negated } => format!(
            "({} IS {}NULL)",
            render_expr(operand),
            if *negated { "NOT " } else { "" }
        ),
        Expr::InList {
            operand,
            list: items,
            negated,
        } => format!(
            "({} {}IN ({}))",
            render_expr(operand),
            if *negated { "NOT " } else { "" },
            list(items)
        ),
        Expr::Between {
            operand,
            low,
            high,
            negated,
        } => format!(
            "({} {}BETWEEN {} AND {})",
            render_expr(operand),
            if *negated { "NOT " } else { "" },
            render_expr(low),
            render_expr(high)
        ),
        Expr::Cast { operand, to } => {
            format!("CAST({} AS {})", render_expr(operand), type_name(*to))
        }
        Expr::Concat(parts) => format!("({})", list_with(parts, " || ")),
        Expr::InSubquery {
            operand,
            query,
            negated,
        } => format!(
            "({} {}IN ({}))",
            render_expr(operand),
            if *negated { "NOT " } else { "" },
            render_query(query)
        ),
        Expr::Exists { query, negated } => format!(
            "({}EXISTS ({}))",
            if *negated { "NOT " } else { "" },
            render_query(query)
        ),
        Expr::ScalarSubquery(query) => format!("({})", render_query(query)),
        Expr::Aggregate { func, arg } => match arg {
            Some(arg) => format!("{}({})", func.sql(), render_expr(arg)),
            None => format!("{}(*)", func.sql()),
        },
        other => format!("{other:?}"),
    }
}

/// A query (IR 1.1), without parentheses.
pub fn render_query(q: &Query) -> String {
    let from = |table: &str, alias: &Option<String>| match alias {
        Some(a) => format!("{table} AS {a}"),
        None => table.to_string(),
    };
    let mut sql = format!(
        "SELECT {} FROM {}",
        list(&q.projection),
        from(&q.table, &q.alias)
    );
    for j in &q.joins {
        sql.push_str(&format!(
            " {} {} ON {}",
            j.kind.sql(),
            from(&j.table, &j.alias),
            render_expr(&j.on)
        ));
    }
    push_where(&mut sql, q.filter.as_ref());
    if !q.group_by.is_empty() {
        sql.push_str(&format!(" GROUP BY {}", list(&q.group_by)));
    }
    if !q.order_by.is_empty() {
        sql.push_str(&format!(" ORDER BY {}", list(&q.order_by)));
    }
    sql
}

fn type_name(ty: ColumnType) -> String {
    match ty {
        ColumnType::Int => "INT".into(),
        ColumnType::BigInt => "BIGINT".into(),
        ColumnType::Double => "DOUBLE".into(),
        ColumnType::Decimal { precision, scale } => format!("DECIMAL({precision},{scale})"),
        ColumnType::Varchar { len } => format!("VARCHAR({len})"),
        ColumnType::Text => "TEXT".into(),
        ColumnType::Bool => "BOOL".into(),
        other => format!("{other:?}"),
    }
}
