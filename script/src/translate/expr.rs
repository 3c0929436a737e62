//! Expressions, and the scopes their column names resolve in.

use super::literal;
use super::Translator;
use crate::error::{Problem, Translated};
use sqlparser::ast::{self as sql, BinaryOperator as B};
use txlab_plugin_api::ir::*;

/// The tables a statement or query can name, innermost first: each name (an
/// alias or the table's own name) with its table, then the enclosing scope.
pub struct Scope<'a> {
    pub tables: Vec<(String, &'a Table)>,
    pub outer: Option<&'a Scope<'a>>,
}

impl<'a> Scope<'a> {
    pub fn none() -> Self {
        Scope {
            tables: Vec::new(),
            outer: None,
        }
    }

    /// A bare column: the one table of this scope that has it (qualified
    /// when the scope has several tables, as the IR wants in a join), else
    /// an enclosing scope's, qualified.
    fn bare(&self, column: &str, depth: usize) -> Translated<(ColumnRef, ColumnType)> {
        let found: Vec<&(String, &Table)> = self
            .tables
            .iter()
            .filter(|(_, t)| t.column(column).is_some())
            .collect();
        match found.as_slice() {
            [(name, table)] => {
                let ty = table.column(column).map(|c| c.ty).expect("found above");
                let qualify = depth > 0 || self.tables.len() > 1;
                Ok((
                    ColumnRef {
                        table: qualify.then(|| name.clone()),
                        column: column.to_string(),
                    },
                    ty,
                ))
            }
            [] => match self.outer {
                // Named after the innermost tables, where the reader looks first.
                Some(outer) => outer
                    .bare(column, depth + 1)
                    .map_err(|_| self.unknown_column(column)),
                None => Err(self.unknown_column(column)),
            },
            _ => Err(Problem::new(format!(
                "column `{column}` is ambiguous: qualify it with its table"
            ))),
        }
    }

    fn qualified(&self, table: &str, column: &str) -> Translated<ColumnType> {
        match self.tables.iter().find(|(name, _)| name == table) {
            Some((_, t)) => t.column(column).map(|c| c.ty).ok_or_else(|| {
                Problem::new(format!("unknown column `{column}` in table `{}`", t.name))
            }),
            None => match self.outer {
                Some(outer) => outer.qualified(table, column),
                None => Err(Problem::new(format!(
                    "unknown table `{table}` in column `{table}.{column}`"
                ))),
            },
        }
    }

    fn unknown_column(&self, column: &str) -> Problem {
        let tables: Vec<String> = self
            .tables
            .iter()
            .map(|(_, t)| format!("`{}`", t.name))
            .collect();
        if tables.is_empty() {
            Problem::new(format!(
                "unknown column `{column}`: no table is in scope here"
            ))
        } else {
            Problem::new(format!(
                "unknown column `{column}` in {}",
                tables.join(", ")
            ))
        }
    }
}

/// An identifier as txlab names it: as written when quoted; unquoted names
/// are folded to lower case where the DBMS folds them (PostgreSQL).
pub fn ident(id: &sql::Ident, family: super::Family) -> String {
    if id.quote_style.is_none() && family == super::Family::Postgres {
        id.value.to_lowercase()
    } else {
        id.value.clone()
    }
}

impl Translator {
    /// The column type an expression has, when a column decides it: what a
    /// constant beside it is read as.
    pub(super) fn type_of(&self, e: &sql::Expr, scope: &Scope<'_>) -> Option<ColumnType> {
        match e {
            sql::Expr::Identifier(id) => scope.bare(&ident(id, self.family), 0).ok().map(|x| x.1),
            sql::Expr::CompoundIdentifier(parts) if parts.len() == 2 => scope
                .qualified(
                    &ident(&parts[0], self.family),
                    &ident(&parts[1], self.family),
                )
                .ok(),
            sql::Expr::Nested(inner) | sql::Expr::UnaryOp { expr: inner, .. } => {
                self.type_of(inner, scope)
            }
            sql::Expr::BinaryOp {
                left,
                op: B::Plus | B::Minus | B::Multiply,
                right,
            } => self
                .type_of(left, scope)
                .or_else(|| self.type_of(right, scope)),
            sql::Expr::Cast { data_type, .. } => super::ddl::column_type(data_type).ok(),
            _ => None,
        }
    }

    pub(super) fn expr(
        &self,
        e: &sql::Expr,
        scope: &Scope<'_>,
        hint: Option<ColumnType>,
    ) -> Translated<Expr> {
        use sql::Expr as E;
        let b = |e: Expr| Box::new(e);
        Ok(match e {
            E::Identifier(id) => Expr::Column(scope.bare(&ident(id, self.family), 0)?.0),
            E::CompoundIdentifier(parts) if parts.len() == 2 => {
                let (table, column) =
                    (ident(&parts[0], self.family), ident(&parts[1], self.family));
                scope.qualified(&table, &column)?;
                Expr::Column(ColumnRef {
                    table: Some(table),
                    column,
                })
            }
            E::Value(v) => Expr::Literal(literal::value(&v.value, hint, self.family)?),
            // A minus written against a number is part of the constant; one
            // in parentheses of its own, `(- 3)`, is the operator.
            E::UnaryOp {
                op: sql::UnaryOperator::Minus,
                expr,
            } => match &**expr {
                E::Value(sql::ValueWithSpan {
                    value: sql::Value::Number(n, _),
                    ..
                }) => Expr::Literal(literal::number(&format!("-{n}"), hint, self.family)?),
                other => Expr::Unary {
                    op: UnaryOp::Neg,
                    operand: b(self.expr(other, scope, hint)?),
                },
            },
            E::UnaryOp {
                op: sql::UnaryOperator::Not,
                expr,
            } => Expr::Unary {
                op: UnaryOp::Not,
                operand: b(self.expr(expr, scope, None)?),
            },
            E::UnaryOp {
                op: sql::UnaryOperator::Plus,
                expr,
            } => self.expr(expr, scope, hint)?,
            E::Nested(inner) => match &**inner {
                E::UnaryOp {
                    op: sql::UnaryOperator::Minus,
                    expr,
                } => Expr::Unary {
                    op: UnaryOp::Neg,
                    operand: b(self.expr(expr, scope, hint)?),
                },
                E::BinaryOp {
                    op: B::StringConcat,
                    ..
                } => {
                    let mut parts = Vec::new();
                    self.concat_parts(inner, scope, &mut parts)?;
                    Expr::Concat(parts)
                }
                other => self.expr(other, scope, hint)?,
            },
            E::BinaryOp {
                op: B::StringConcat,
                ..
            } => {
                let mut parts = Vec::new();
                self.concat_parts(e, scope, &mut parts)?;
                Expr::Concat(parts)
            }
            E::BinaryOp { left, op, right } => {
                let op = match op {
                    B::Eq => BinaryOp::Eq,
                    B::NotEq => BinaryOp::NotEq,
                    B::Lt => BinaryOp::Lt,
                    B::LtEq => BinaryOp::LtEq,
                    B::Gt => BinaryOp::Gt,
                    B::GtEq => BinaryOp::GtEq,
                    B::And => BinaryOp::And,
                    B::Or => BinaryOp::Or,
                    B::Plus => BinaryOp::Add,
                    B::Minus => BinaryOp::Sub,
                    B::Multiply => BinaryOp::Mul,
                    other => return Err(Problem::unsupported(format!("the operator `{other}`"))),
                };
                let (lh, rh) = if matches!(op, BinaryOp::And | BinaryOp::Or) {
                    (None, None)
                } else {
                    let arithmetic = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul);
                    let outer = if arithmetic { hint } else { None };
                    (
                        self.type_of(right, scope).or(outer),
                        self.type_of(left, scope).or(outer),
                    )
                };
                Expr::Binary {
                    op,
                    left: b(self.expr(left, scope, lh)?),
                    right: b(self.expr(right, scope, rh)?),
                }
            }
            E::IsNull(x) | E::IsNotNull(x) => Expr::IsNull {
                operand: b(self.expr(x, scope, None)?),
                negated: matches!(e, E::IsNotNull(_)),
            },
            E::InList {
                expr,
                list,
                negated,
            } => {
                let ty = self.type_of(expr, scope);
                Expr::InList {
                    operand: b(self.expr(expr, scope, None)?),
                    list: list
                        .iter()
                        .map(|x| self.expr(x, scope, ty))
                        .collect::<Translated<_>>()?,
                    negated: *negated,
                }
            }
            E::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let ty = self.type_of(expr, scope);
                Expr::Between {
                    operand: b(self.expr(expr, scope, None)?),
                    low: b(self.expr(low, scope, ty)?),
                    high: b(self.expr(high, scope, ty)?),
                    negated: *negated,
                }
            }
            E::Cast {
                kind,
                expr,
                data_type,
                format: None,
            } => {
                if let (
                    sql::CastKind::DoubleColon,
                    E::Value(sql::ValueWithSpan {
                        value: sql::Value::SingleQuotedString(text),
                        ..
                    }),
                ) = (kind, &**expr)
                {
                    if let Some(value) = literal::typed_string(text, data_type) {
                        return Ok(Expr::Literal(value?));
                    }
                }
                let to = super::ddl::column_type(data_type)?;
                // SQLite spells text with a NUL character as its bytes cast to TEXT.
                if let (
                    ColumnType::Text,
                    E::Value(sql::ValueWithSpan {
                        value: sql::Value::HexStringLiteral(hex),
                        ..
                    }),
                ) = (to, &**expr)
                {
                    if let Ok(text) = String::from_utf8(literal::hex_bytes(hex)?) {
                        return Ok(Expr::Literal(Value::Text(text)));
                    }
                }
                Expr::Cast {
                    operand: b(self.expr(expr, scope, None)?),
                    to,
                }
            }
            // MySQL's `_utf8mb4 X'…'`: text given as its UTF-8 bytes.
            E::Prefixed { value, .. } => match &**value {
                E::Value(sql::ValueWithSpan {
                    value: sql::Value::HexStringLiteral(hex),
                    ..
                }) => {
                    let bytes = literal::hex_bytes(hex)?;
                    Expr::Literal(Value::Text(
                        String::from_utf8(bytes)
                            .map_err(|_| Problem::new(format!("X'{hex}' is not UTF-8 text")))?,
                    ))
                }
                other => self.expr(other, scope, hint)?,
            },
            E::InSubquery {
                expr,
                subquery,
                negated,
            } => Expr::InSubquery {
                operand: b(self.expr(expr, scope, None)?),
                query: Box::new(self.query(subquery, scope, &[self.type_of(expr, scope)])?),
                negated: *negated,
            },
            E::Exists { subquery, negated } => Expr::Exists {
                query: Box::new(self.query(subquery, scope, &[])?),
                negated: *negated,
            },
            E::Subquery(q) => Expr::ScalarSubquery(Box::new(self.query(q, scope, &[hint])?)),
            E::Function(f) => self.function(f, scope)?,
            other => return Err(Problem::unsupported(format!("the expression `{other}`"))),
        })
    }

    fn concat_parts(
        &self,
        e: &sql::Expr,
        scope: &Scope<'_>,
        parts: &mut Vec<Expr>,
    ) -> Translated<()> {
        match e {
            sql::Expr::BinaryOp {
                left,
                op: B::StringConcat,
                right,
            } => {
                self.concat_parts(left, scope, parts)?;
                self.concat_parts(right, scope, parts)
            }
            other => {
                parts.push(self.expr(other, scope, None)?);
                Ok(())
            }
        }
    }

    /// Aggregates, and MySQL's CONCAT().
    fn function(&self, f: &sql::Function, scope: &Scope<'_>) -> Translated<Expr> {
        let name = f.name.to_string().to_ascii_uppercase();
        let sql::FunctionArguments::List(list) = &f.args else {
            return Err(Problem::unsupported(format!("the function call `{f}`")));
        };
        if list.duplicate_treatment.is_some()
            || !list.clauses.is_empty()
            || f.filter.is_some()
            || f.over.is_some()
        {
            return Err(Problem::unsupported(format!("the function call `{f}`")));
        }
        let mut args = Vec::new();
        let mut star = false;
        for arg in &list.args {
            match arg {
                sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => {
                    args.push(self.expr(e, scope, None)?)
                }
                sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => star = true,
                _ => return Err(Problem::unsupported(format!("the function call `{f}`"))),
            }
        }
        let func = match name.as_str() {
            "CONCAT" if !star && !args.is_empty() => return Ok(Expr::Concat(args)),
            "COUNT" => AggregateFunc::Count,
            "SUM" => AggregateFunc::Sum,
            "MIN" => AggregateFunc::Min,
            "MAX" => AggregateFunc::Max,
            _ => return Err(Problem::unsupported(format!("the function `{name}`"))),
        };
        match (star, args.len(), func) {
            (true, 0, AggregateFunc::Count) => Ok(Expr::Aggregate { func, arg: None }),
            (false, 1, _) => Ok(Expr::Aggregate {
                func,
                arg: Some(Box::new(args.remove(0))),
            }),
            _ => Err(Problem::unsupported(format!("the call `{f}`"))),
        }
    }
}
