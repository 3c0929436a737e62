//! Expressions, every compound one in parentheses so that the meaning never depends
//! on operator precedence.
//!
//! Types are left to the DBMS: PostgreSQL is strictly typed, so an expression the
//! IR writes with mismatched types (a BOOLEAN column compared with an integer) fails
//! there with an error instead of being reinterpreted here.

use crate::flavor::Flavor;
use crate::literal::{ident, literal, type_name};
use txlab_plugin_api::prelude::*;

/// The columns a bare column name may refer to.
///
/// PostgreSQL itself rejects unknown columns, but only once the statement runs;
/// a name the schema does not have is a mistake in the case, refused here with a
/// message that names it.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// The columns of this table.
    Table(&'a Table),
    /// The table is not in the schema: the DBMS reports what it cannot resolve.
    Unknown,
    /// No column is in scope (INSERT … VALUES).
    Nothing,
}

impl Scope<'_> {
    pub fn check(&self, column: &str) -> Result<(), PluginError> {
        match self {
            Scope::Table(table) if table.column(column).is_none() => {
                Err(PluginError::invalid_input(format!(
                    "table `{}` has no column `{column}`",
                    table.name
                )))
            }
            Scope::Nothing => Err(PluginError::invalid_input(format!(
                "column `{column}` is referenced where no table is in scope"
            ))),
            Scope::Table(_) | Scope::Unknown => Ok(()),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct ExprWriter<'a> {
    pub flavor: Flavor,
    pub scope: Scope<'a>,
}

impl ExprWriter<'_> {
    pub fn expr(&self, e: &Expr) -> Result<String, PluginError> {
        Ok(match e {
            Expr::Column(c) => match &c.table {
                Some(table) => format!(
                    "{}.{}",
                    ident(self.flavor, table)?,
                    ident(self.flavor, &c.column)?
                ),
                None => {
                    self.scope.check(&c.column)?;
                    ident(self.flavor, &c.column)?
                }
            },
            Expr::Literal(v) => literal(v)?,
            Expr::Unary { op, operand } => {
                let operand = self.expr(operand)?;
                match op {
                    UnaryOp::Not => format!("(NOT {operand})"),
                    // The space keeps a negative operand from forming a `--` comment.
                    UnaryOp::Neg => format!("(- {operand})"),
                    other => return Err(self.unsupported(other)),
                }
            }
            Expr::Binary { op, left, right } => format!(
                "({} {} {})",
                self.expr(left)?,
                self.binary_op(*op)?,
                self.expr(right)?
            ),
            Expr::IsNull { operand, negated } => {
                format!("({} IS {}NULL)", self.expr(operand)?, not(*negated))
            }
            Expr::InList {
                operand,
                list,
                negated,
            } if list.is_empty() => {
                // `x IN ()` is a syntax error. An empty subquery of the operand's own
                // type gives the set semantics: IN is false and NOT IN true, also
                // for NULL (https://www.postgresql.org/docs/16/functions-subquery.html).
                let operand = self.expr(operand)?;
                format!(
                    "({operand} {}IN (SELECT {operand} WHERE FALSE))",
                    not(*negated)
                )
            }
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
            Expr::Cast { operand, to } => format!(
                "CAST({} AS {})",
                self.expr(operand)?,
                type_name(self.flavor, *to)?
            ),
            other => return Err(self.unsupported(other)),
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

    /// One ORDER BY term.
    ///
    /// A bare integer constant in ORDER BY is a result-column position and any
    /// other bare constant is an error ("non-integer constant in ORDER BY")
    /// (https://www.postgresql.org/docs/16/queries-order.html). The parser folds a
    /// minus into the constant, so `-1` counts as one too. A CAST is an ordinary
    /// expression, and a constant sorts nothing whatever its value.
    pub fn sort_key(&self, e: &Expr) -> Result<String, PluginError> {
        let rendered = self.expr(e)?;
        Ok(match bare_constant_type(e) {
            Some(ty) => format!("CAST({rendered} AS {ty})"),
            None => rendered,
        })
    }

    fn binary_op(&self, op: BinaryOp) -> Result<&'static str, PluginError> {
        // Listed one by one: an operator added to the IR may mean something else
        // here and must be checked first.
        Ok(match op {
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::And => "AND",
            BinaryOp::Or => "OR",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            other => return Err(self.unsupported(other)),
        })
    }

    fn unsupported(&self, what: impl std::fmt::Debug) -> PluginError {
        PluginError::unsupported(format!(
            "the {} dialect cannot render {what:?}",
            self.flavor.entry_name()
        ))
    }
}

/// The type to cast a constant to when the parser would read it as a plain
/// constant: integer, string, boolean and NULL literals, possibly under minus.
/// Floats, decimals and bytes already render as casts.
fn bare_constant_type(e: &Expr) -> Option<&'static str> {
    match e {
        Expr::Literal(Value::Int(_)) => Some("BIGINT"),
        Expr::Literal(Value::Text(_) | Value::Null) => Some("TEXT"),
        Expr::Literal(Value::Bool(_)) => Some("BOOLEAN"),
        Expr::Unary {
            op: UnaryOp::Neg,
            operand,
        } => bare_constant_type(operand),
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
