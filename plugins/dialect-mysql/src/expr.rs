//! Expressions, every compound one in parentheses so that the meaning never depends
//! on MySQL's operator precedence.

use crate::flavor::Flavor;
use crate::literal::{cast_type, ident, literal};
use txlab_plugin_api::prelude::*;

/// The columns a bare column name may refer to.
///
/// MySQL reports an unknown column when the statement runs; naming the column here
/// turns a malformed case into an input error before anything runs, instead of a
/// statement failure that would become part of the recorded history.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// The columns of this table.
    Table(&'a Table),
    /// The table is not in the schema: the server reports what it cannot resolve.
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
            // MySQL lets VALUES (…) name a column (it reads the value inserted so
            // far in the same row), which the IR does not mean.
            Scope::Nothing => Err(PluginError::invalid_input(format!(
                "column `{column}` is referenced where no table is in scope"
            ))),
            Scope::Table(_) | Scope::Unknown => Ok(()),
        }
    }
}

/// Renders expressions for one flavor.
#[derive(Clone, Copy, Debug)]
pub struct ExprWriter<'a> {
    pub flavor: Flavor,
    pub scope: Scope<'a>,
}

impl ExprWriter<'_> {
    pub fn expr(&self, e: &Expr) -> Result<String, PluginError> {
        Ok(match e {
            Expr::Column(c) => {
                if c.table.is_none() {
                    self.scope.check(&c.column)?;
                }
                match &c.table {
                    Some(table) => format!("{}.{}", ident(table)?, ident(&c.column)?),
                    None => ident(&c.column)?,
                }
            }
            Expr::Literal(v) => literal(v)?,
            Expr::Unary { op, operand } => {
                let operand = self.expr(operand)?;
                match op {
                    UnaryOp::Not => format!("(NOT {operand})"),
                    // The space keeps a negative operand from forming `--`.
                    UnaryOp::Neg => format!("(- {operand})"),
                    other => return Err(unsupported(other)),
                }
            }
            Expr::Binary { op, left, right } => format!(
                "({} {} {})",
                self.expr(left)?,
                binary_op(*op)?,
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
                // MySQL's grammar has no empty IN list
                // (https://dev.mysql.com/doc/refman/8.0/en/comparison-operators.html#operator_in).
                // The IR's meaning, as txlab's reference evaluator computes it: no
                // item matches, so the result is false (true when negated), or NULL
                // when the operand is NULL.
                let operand = self.expr(operand)?;
                if *negated {
                    format!("(({operand} IS NOT NULL) OR NULL)")
                } else {
                    format!("(({operand} IS NULL) AND NULL)")
                }
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
                cast_type(self.flavor, *to)?
            ),
            other => return Err(unsupported(other)),
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
    pub fn sort_key(&self, e: &Expr) -> Result<String, PluginError> {
        let rendered = self.expr(e)?;
        // MySQL reads an integer literal in ORDER BY as a result-column position
        // (https://dev.mysql.com/doc/refman/8.0/en/select.html). A constant sorts
        // nothing whatever its value, so the CAST only keeps it an ordinary
        // expression.
        Ok(if is_integer_constant(e) {
            format!("CAST({rendered} AS SIGNED)")
        } else {
            rendered
        })
    }
}

/// Whether MySQL's parser may see an integer literal, possibly under unary minus.
/// TRUE and FALSE are the integers 1 and 0.
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
    // MySQL (`||` is OR unless PIPES_AS_CONCAT, `/` is never integer division) and
    // must be checked first.
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
    PluginError::unsupported(format!("the MySQL-family dialects cannot render {what:?}"))
}
