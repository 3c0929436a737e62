//! Expression trees for predicates, assignments and projections.

use super::{AggregateFunc, ColumnType, Query, Value};
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
    /// `operand [NOT] IN (SELECT …)`; the query projects one column. IR 1.1.
    InSubquery {
        operand: Box<Expr>,
        query: Box<Query>,
        negated: bool,
    },
    /// `[NOT] EXISTS (SELECT …)`. IR 1.1.
    Exists {
        query: Box<Query>,
        negated: bool,
    },
    /// `(SELECT …)` as a value: the query projects one column and returns at
    /// most one row (NULL for none; more than one is an error in every DBMS).
    /// IR 1.1.
    ScalarSubquery(Box<Query>),
    /// `func(arg)`, `COUNT(*)` when `arg` is `None` (only with COUNT); only in
    /// a [`Query`]'s projection and ORDER BY. IR 1.1.
    Aggregate {
        func: AggregateFunc,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arg: Option<Box<Expr>>,
    },
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

    /// Whether a subquery appears in this expression (IR 1.1).
    pub fn has_subquery(&self) -> bool {
        !self.subqueries().is_empty()
    }

    /// Whether an aggregate appears in this expression outside subqueries (IR 1.1).
    pub fn has_aggregate(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(e, Expr::Aggregate { .. }));
        found
    }

    /// The subqueries directly in this expression (not those nested in them),
    /// in order of appearance (IR 1.1).
    pub fn subqueries(&self) -> Vec<&Query> {
        let mut out = Vec::new();
        self.visit(&mut |e| match e {
            Expr::InSubquery { query, .. }
            | Expr::Exists { query, .. }
            | Expr::ScalarSubquery(query) => out.push(&**query),
            _ => {}
        });
        out
    }

    /// Every table this expression's subqueries read, each once, in order of
    /// appearance (IR 1.1).
    pub fn tables(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_tables(&mut out);
        out
    }

    pub(crate) fn collect_tables<'a>(&'a self, out: &mut Vec<&'a str>) {
        for q in self.subqueries() {
            q.collect_tables(out);
        }
    }

    /// Every column this expression mentions, in order of appearance; not
    /// the columns inside subqueries, which have scopes of their own.
    pub fn columns(&self) -> Vec<&ColumnRef> {
        let mut out = Vec::new();
        self.visit(&mut |e| {
            if let Expr::Column(c) = e {
                out.push(c);
            }
        });
        out
    }

    /// Calls `f` on this node and every node below it, parents first. It does
    /// not enter subqueries ([`Expr::subqueries`] lists them): their columns
    /// resolve in scopes of their own. The operand of `IN (SELECT …)` and the
    /// argument of an aggregate are visited.
    pub fn visit<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Column(_)
            | Expr::Literal(_)
            | Expr::Exists { .. }
            | Expr::ScalarSubquery(_)
            | Expr::Aggregate { arg: None, .. } => {}
            Expr::InSubquery { operand, .. } => operand.visit(f),
            Expr::Aggregate { arg: Some(arg), .. } => arg.visit(f),
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
