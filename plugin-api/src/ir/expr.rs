//! Expression trees for predicates, assignments and projections.

use super::{ColumnType, Value};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Expr {
    Column(ColumnRef),
    Literal(Value),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    IsNull {
        operand: Box<Expr>,
        negated: bool,
    },
    InList {
        operand: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Between {
        operand: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    Cast {
        operand: Box<Expr>,
        to: ColumnType,
    },
    /// The texts of `parts` joined, NULL if any part is NULL (`a || b` in
    /// standard SQL, `CONCAT(a, b)` in the MySQL family). IR 1.1.
    Concat(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnRef {
    /// Qualifying table name, when the statement needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    pub column: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UnaryOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BinaryOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    And,
    Or,
    Add,
    Sub,
    Mul,
}

impl BinaryOp {
    /// The operator in standard SQL spelling, shared by every dialect so far.
    pub fn sql(self) -> &'static str {
        match self {
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
        }
    }
}

impl Expr {
    pub fn column(name: impl Into<String>) -> Expr {
        Expr::Column(ColumnRef {
            table: None,
            column: name.into(),
        })
    }

    pub fn lit(value: Value) -> Expr {
        Expr::Literal(value)
    }

    pub fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        }
    }

    pub fn eq(left: Expr, right: Expr) -> Expr {
        Expr::binary(BinaryOp::Eq, left, right)
    }

    pub fn and(left: Expr, right: Expr) -> Expr {
        Expr::binary(BinaryOp::And, left, right)
    }

    /// Every column this expression mentions, in order of appearance.
    pub fn columns(&self) -> Vec<&ColumnRef> {
        let mut out = Vec::new();
        self.visit(&mut |e| {
            if let Expr::Column(c) = e {
                out.push(c);
            }
        });
        out
    }

    /// Calls `f` on this node and every node below it, parents first.
    pub fn visit<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Column(_) | Expr::Literal(_) => {}
            Expr::Unary { operand, .. }
            | Expr::IsNull { operand, .. }
            | Expr::Cast { operand, .. } => operand.visit(f),
            Expr::Binary { left, right, .. } => {
                left.visit(f);
                right.visit(f);
            }
            Expr::InList { operand, list, .. } => {
                operand.visit(f);
                for e in list {
                    e.visit(f);
                }
            }
            Expr::Concat(parts) => {
                for e in parts {
                    e.visit(f);
                }
            }
            Expr::Between {
                operand, low, high, ..
            } => {
                operand.visit(f);
                low.visit(f);
                high.visit(f);
            }
        }
    }
}
