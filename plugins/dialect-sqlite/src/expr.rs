//! Expressions, every compound one in parentheses so that the meaning never depends
//! on SQLite's operator precedence.

use crate::literal::{ident, literal, type_name};
use txlab_plugin_api::prelude::*;

/// The columns a bare column name may refer to.
///
/// SQLite reads a double-quoted name that matches no column as a string literal
/// (https://www.sqlite.org/quirks.html#double_quoted_string_literals_are_accepted),
/// which would silently turn a misnamed column into a constant; such names are
/// refused here instead.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// The columns of this table.
    Table(&'a Table),
    /// The table is not in the schema: SQLite reports what it cannot resolve.
    Unknown,
    /// No column is in scope (INSERT … VALUES).
    Nothing,
}

impl Scope<'_> {
    fn check(&self, column: &str) -> Result<(), PluginError> {
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

pub fn expr(e: &Expr, scope: Scope<'_>) -> Result<String, PluginError> {
    Ok(match e {
        Expr::Column(c) => match &c.table {
            // A qualified name never falls back to a string literal.
            Some(table) => format!("{}.{}", ident(table)?, ident(&c.column)?),
            None => {
                scope.check(&c.column)?;
                ident(&c.column)?
            }
        },
        Expr::Literal(v) => literal(v)?,
        Expr::Unary { op, operand } => {
            let operand = expr(operand, scope)?;
            match op {
                UnaryOp::Not => format!("(NOT {operand})"),
                // The space keeps a negative operand from forming a `--` comment.
                UnaryOp::Neg => format!("(- {operand})"),
                other => return Err(unsupported(other)),
            }
        }
        Expr::Binary { op, left, right } => format!(
            "({} {} {})",
            expr(left, scope)?,
            binary_op(*op)?,
            expr(right, scope)?
        ),
        Expr::IsNull { operand, negated } => {
            format!("({} IS {}NULL)", expr(operand, scope)?, not(*negated))
        }
        // SQLite accepts an empty list: `x IN ()` is false and `x NOT IN ()` true
        // (https://www.sqlite.org/lang_expr.html#the_in_and_not_in_operators).
        Expr::InList {
            operand,
            list,
            negated,
        } => format!(
            "({} {}IN ({}))",
            expr(operand, scope)?,
            not(*negated),
            list_of(list, scope)?
        ),
        Expr::Between {
            operand,
            low,
            high,
            negated,
        } => format!(
            "({} {}BETWEEN {} AND {})",
            expr(operand, scope)?,
            not(*negated),
            expr(low, scope)?,
            expr(high, scope)?
        ),
        Expr::Cast { operand, to } => {
            format!("CAST({} AS {})", expr(operand, scope)?, type_name(*to)?)
        }
        other => return Err(unsupported(other)),
    })
}

/// Comma-separated expressions.
pub fn list_of(exprs: &[Expr], scope: Scope<'_>) -> Result<String, PluginError> {
    let rendered = exprs
        .iter()
        .map(|e| expr(e, scope))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rendered.join(", "))
}

/// One ORDER BY term.
pub fn sort_key(e: &Expr, scope: Scope<'_>) -> Result<String, PluginError> {
    let rendered = expr(e, scope)?;
    // SQLite reads an integer constant in ORDER BY as a result-column position
    // (https://www.sqlite.org/lang_select.html#the_order_by_clause). A constant sorts
    // nothing whatever its value, so the CAST only keeps it an ordinary expression.
    Ok(if is_integer_constant(e) {
        format!("CAST({rendered} AS INTEGER)")
    } else {
        rendered
    })
}

/// Whether SQLite's parser sees an integer literal, possibly under unary minus.
fn is_integer_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(Value::Int(_) | Value::Bool(_)) => true,
        Expr::Literal(Value::Decimal(text)) => !text.contains('.'),
        Expr::Unary {
            op: UnaryOp::Neg,
            operand,
        } => is_integer_constant(operand),
        _ => false,
    }
}

fn binary_op(op: BinaryOp) -> Result<&'static str, PluginError> {
    // Listed one by one: an operator added to the IR may mean something else in
    // SQLite (integer division, string concatenation) and must be checked first.
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
        other => return Err(unsupported(other)),
    })
}

fn not(negated: bool) -> &'static str {
    if negated {
        "NOT "
    } else {
        ""
    }
}

fn unsupported(what: impl std::fmt::Debug) -> PluginError {
    PluginError::unsupported(format!("the sqlite dialect cannot render {what:?}"))
}
