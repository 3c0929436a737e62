//! Expressions. The names are short because predicates nest them deeply.

use txlab_plugin_api::prelude::*;

/// A column by its bare name.
pub fn c(name: &str) -> Expr {
    Expr::column(name)
}

pub fn int(v: i64) -> Expr {
    Expr::lit(Value::Int(v))
}

pub fn float(v: f64) -> Expr {
    Expr::lit(Value::Float(v))
}

pub fn text(v: &str) -> Expr {
    Expr::lit(Value::Text(v.into()))
}

pub fn bin(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    Expr::binary(op, left, right)
}

pub fn eq(left: Expr, right: Expr) -> Expr {
    Expr::binary(BinaryOp::Eq, left, right)
}

pub fn not(e: Expr) -> Expr {
    Expr::Unary {
        op: UnaryOp::Not,
        operand: Box::new(e),
    }
}

pub fn neg(e: Expr) -> Expr {
    Expr::Unary {
        op: UnaryOp::Neg,
        operand: Box::new(e),
    }
}

/// `e IS NULL`, or `e IS NOT NULL` when `negated`.
pub fn is_null(e: Expr, negated: bool) -> Expr {
    Expr::IsNull {
        operand: Box::new(e),
        negated,
    }
}

/// `e IN (list)`, or `e NOT IN (list)` when `negated`.
pub fn in_list(e: Expr, list: Vec<Expr>, negated: bool) -> Expr {
    Expr::InList {
        operand: Box::new(e),
        list,
        negated,
    }
}

/// `e BETWEEN low AND high`, or `e NOT BETWEEN …` when `negated`.
pub fn between(e: Expr, low: Expr, high: Expr, negated: bool) -> Expr {
    Expr::Between {
        operand: Box::new(e),
        low: Box::new(low),
        high: Box::new(high),
        negated,
    }
}

pub fn cast(e: Expr, to: ColumnType) -> Expr {
    Expr::Cast {
        operand: Box::new(e),
        to,
    }
}

/// A column qualified by a table name or alias: `table.name`.
pub fn qc(table: &str, name: &str) -> Expr {
    Expr::Column(ColumnRef {
        table: Some(table.into()),
        column: name.into(),
    })
}

/// `func(arg)`; `COUNT(*)` with [`count_star`].
pub fn agg(func: AggregateFunc, arg: Expr) -> Expr {
    Expr::Aggregate {
        func,
        arg: Some(Box::new(arg)),
    }
}

pub fn count_star() -> Expr {
    Expr::Aggregate {
        func: AggregateFunc::Count,
        arg: None,
    }
}

pub fn in_query(e: Expr, query: Query, negated: bool) -> Expr {
    Expr::InSubquery {
        operand: Box::new(e),
        query: Box::new(query),
        negated,
    }
}

pub fn exists(query: Query, negated: bool) -> Expr {
    Expr::Exists {
        query: Box::new(query),
        negated,
    }
}

pub fn scalar(query: Query) -> Expr {
    Expr::ScalarSubquery(Box::new(query))
}
