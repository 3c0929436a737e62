//! Expressions, every compound one in parentheses so that the meaning never
//! depends on a DBMS's operator precedence.

use super::{statement::render_query, Scope, SqlSyntax};
use crate::ir::*;
use crate::sdk::PluginError;

/// Renders expressions with one dialect's spellings, checking column names
/// against one scope.
pub struct ExprWriter<'a, S: ?Sized> {
    pub syntax: &'a S,
    pub scope: Scope<'a>,
    /// The schema subqueries look their tables up in (IR 1.1); without one,
    /// their tables' columns are left to the DBMS.
    pub schema: Option<&'a Schema>,
}

impl<'a, S: SqlSyntax + ?Sized> ExprWriter<'a, S> {
    pub fn new(syntax: &'a S, scope: Scope<'a>) -> Self {
        ExprWriter {
            syntax,
            scope,
            schema: None,
        }
    }

    /// A writer whose subqueries look their tables up in `schema`. IR 1.1.
    pub fn with_schema(syntax: &'a S, scope: Scope<'a>, schema: &'a Schema) -> Self {
        ExprWriter {
            syntax,
            scope,
            schema: Some(schema),
        }
    }

    /// A subquery's SQL, in parentheses, its scope inside this writer's.
    fn subquery(&self, query: &Query) -> Result<String, PluginError> {
        Ok(format!(
            "({})",
            render_query(self.syntax, query, self.scope, self.schema)?
        ))
    }

    pub fn expr(&self, e: &Expr) -> Result<String, PluginError> {
        let syntax = self.syntax;
        Ok(match e {
            Expr::Column(c) => match &c.table {
                Some(table) => {
                    self.scope.check_qualified(table, &c.column)?;
                    format!("{}.{}", syntax.ident(table)?, syntax.ident(&c.column)?)
                }
                None => {
                    self.scope.check(&c.column)?;
                    syntax.ident(&c.column)?
                }
            },
            Expr::Literal(v) => syntax.literal(v)?,
            Expr::Unary { op, operand } => {
                let operand = self.expr(operand)?;
                match op {
                    UnaryOp::Not => format!("(NOT {operand})"),
                    // The space keeps a negative operand from forming a `--` comment.
                    UnaryOp::Neg => format!("(- {operand})"),
                }
            }
            Expr::Binary { op, left, right } => format!(
                "({} {} {})",
                self.expr(left)?,
                syntax.binary_op(*op)?,
                self.expr(right)?
            ),
            Expr::IsNull { operand, negated } => {
                format!("({} IS {}NULL)", self.expr(operand)?, not(*negated))
            }
            Expr::InList {
                operand,
                list,
                negated,
            } if list.is_empty() => syntax.empty_in_list(&self.expr(operand)?, *negated)?,
            Expr::InList {
                operand,
                list,
                negated,
            } => format!(
                "({} {}IN ({}))",
                self.expr(operand)?,
                not(*negated),
                self.list(list)?
            ),
            Expr::Between {
                operand,
                low,
                high,
                negated,
            } => format!(
                "({} {}BETWEEN {} AND {})",
                self.expr(operand)?,
                not(*negated),
                self.expr(low)?,
                self.expr(high)?
            ),
            Expr::Cast { operand, to } => {
                format!(
                    "CAST({} AS {})",
                    self.expr(operand)?,
                    syntax.cast_type(*to)?
                )
            }
            Expr::Concat(parts) => {
                let parts = parts
                    .iter()
                    .map(|e| self.expr(e))
                    .collect::<Result<Vec<_>, _>>()?;
                syntax.concat(&parts)?
            }
            Expr::InSubquery {
                operand,
                query,
                negated,
            } => format!(
                "({} {}IN {})",
                self.expr(operand)?,
                not(*negated),
                self.subquery(query)?
            ),
            Expr::Exists { query, negated } => {
                format!("({}EXISTS {})", not(*negated), self.subquery(query)?)
            }
            Expr::ScalarSubquery(query) => self.subquery(query)?,
            Expr::Aggregate { func, arg } => {
                let arg = arg.as_deref().map(|a| self.expr(a)).transpose()?;
                syntax.aggregate(*func, arg.as_deref())?
            }
        })
    }

    /// Comma-separated expressions.
    pub fn list(&self, exprs: &[Expr]) -> Result<String, PluginError> {
        let rendered = exprs
            .iter()
            .map(|e| self.expr(e))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rendered.join(", "))
    }

    /// One ORDER BY key, cast where [`SqlSyntax::order_by_cast`] says so.
    pub fn sort_key(&self, e: &Expr) -> Result<String, PluginError> {
        let rendered = self.expr(e)?;
        Ok(match self.syntax.order_by_cast(e) {
            Some(ty) => format!("CAST({rendered} AS {ty})"),
            None => rendered,
        })
    }
}

/// The constant `e` is, possibly under unary minus (which parsers fold into
/// the constant): what decides whether a parser reads an ORDER BY key as a
/// constant.
pub fn literal_under_minus(e: &Expr) -> Option<&Value> {
    match e {
        Expr::Literal(value) => Some(value),
        Expr::Unary {
            op: UnaryOp::Neg,
            operand,
        } => literal_under_minus(operand),
        _ => None,
    }
}

fn not(negated: bool) -> &'static str {
    if negated {
        "NOT "
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::ErrorKind;
    use crate::sdk::sql::test_syntax::{table, Standard};

    fn render(e: &Expr) -> Result<String, PluginError> {
        let t = table();
        ExprWriter::new(&Standard, Scope::Table(&t)).expr(e)
    }

    fn int(v: i64) -> Expr {
        Expr::lit(Value::Int(v))
    }

    fn neg(e: Expr) -> Expr {
        Expr::Unary {
            op: UnaryOp::Neg,
            operand: Box::new(e),
        }
    }

    #[test]
    fn every_compound_expression_is_parenthesised() {
        let e = Expr::and(
            Expr::eq(Expr::column("id"), neg(int(-1))),
            Expr::Between {
                operand: Box::new(Expr::binary(BinaryOp::Mul, Expr::column("id"), int(2))),
                low: Box::new(int(1)),
                high: Box::new(int(9)),
                negated: true,
            },
        );
        assert_eq!(
            render(&e).unwrap(),
            r#"(("id" = (- -1)) AND (("id" * 2) NOT BETWEEN 1 AND 9))"#
        );
    }

    #[test]
    fn lists_casts_and_null_tests_use_the_dialects_pieces() {
        let in_list = |list: Vec<Expr>| Expr::InList {
            operand: Box::new(Expr::column("v")),
            list,
            negated: false,
        };
        assert_eq!(
            render(&in_list(vec![
                Expr::lit(Value::Text("it's".into())),
                int(2)
            ]))
            .unwrap(),
            r#"("v" IN ('it''s', 2))"#
        );
        assert_eq!(render(&in_list(vec![])).unwrap(), r#"(EMPTY false "v")"#);
        let cast = Expr::Cast {
            operand: Box::new(Expr::IsNull {
                operand: Box::new(Expr::column("v")),
                negated: true,
            }),
            to: ColumnType::BigInt,
        };
        assert_eq!(
            render(&cast).unwrap(),
            r#"CAST(("v" IS NOT NULL) AS BIGINT)"#
        );
    }

    #[test]
    fn bare_columns_are_checked_and_qualified_ones_are_not() {
        let e = render(&Expr::column("nope")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_INPUT);
        let qualified = Expr::Column(ColumnRef {
            table: Some("other".into()),
            column: "nope".into(),
        });
        assert_eq!(render(&qualified).unwrap(), r#""other"."nope""#);
        // The dialect's own refusals come through unchanged.
        let unnamed_table = Expr::Column(ColumnRef {
            table: Some(String::new()),
            column: "id".into(),
        });
        assert_eq!(
            render(&unnamed_table).unwrap_err().kind,
            ErrorKind::UNSUPPORTED
        );
    }

    #[test]
    fn sort_keys_are_cast_where_the_dialect_says() {
        let t = table();
        let w = ExprWriter::new(&Standard, Scope::Table(&t));
        assert_eq!(
            w.sort_key(&neg(int(3))).unwrap(),
            "CAST((- 3) AS POSITIONLESS)"
        );
        assert_eq!(w.sort_key(&Expr::column("id")).unwrap(), r#""id""#);
    }

    #[test]
    fn constants_are_found_under_any_number_of_minus_signs() {
        assert_eq!(literal_under_minus(&neg(neg(int(7)))), Some(&Value::Int(7)));
        assert_eq!(literal_under_minus(&neg(Expr::column("id"))), None);
        let not = Expr::Unary {
            op: UnaryOp::Not,
            operand: Box::new(int(1)),
        };
        assert_eq!(literal_under_minus(&not), None);
    }
}
