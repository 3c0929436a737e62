//! Expression evaluation with SQL's three-valued logic, and value conversion to
//! column types.

use std::cmp::Ordering;
use txlab_plugin_api::prelude::*;

/// Why an expression could not be evaluated; becomes a statement error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// Unknown table or column, or a construct the interpreter does not support.
    #[error("{0}")]
    Syntax(String),
    /// A value that does not fit: overflow, bad conversion, incomparable types.
    #[error("{0}")]
    Data(String),
    /// A PRIMARY KEY, UNIQUE or NOT NULL violation.
    #[error("{0}")]
    Constraint(String),
}

impl EvalError {
    pub fn class(&self) -> ErrorClass {
        match self {
            EvalError::Syntax(_) => ErrorClass::Syntax,
            EvalError::Data(_) => ErrorClass::Data,
            EvalError::Constraint(_) => ErrorClass::Constraint,
        }
    }

    /// The error as a statement-scoped database error (the transaction goes on).
    pub fn into_db_error(self) -> DbError {
        DbError {
            class: self.class(),
            scope: ErrorScope::Statement,
            code: None,
            sqlstate: None,
            message: self.to_string(),
        }
    }
}

/// The tables of one statement or query level, each by the name it is known
/// by there (alias or table name) and the position of its first column in
/// the level's joined row.
#[derive(Debug)]
pub struct Frame<'a> {
    pub tables: Vec<(&'a str, &'a Table, usize)>,
}

impl<'a> Frame<'a> {
    /// One table by its own name: a single-table statement.
    pub fn single(table: &'a Table) -> Frame<'a> {
        Frame {
            tables: vec![(table.name.as_str(), table, 0)],
        }
    }

    /// No table: INSERT … VALUES.
    pub fn empty() -> Frame<'a> {
        Frame { tables: Vec::new() }
    }

    /// The width of the joined row.
    pub fn width(&self) -> usize {
        self.tables.iter().map(|(_, t, _)| t.columns.len()).sum()
    }
}

/// The database subqueries read: the tables as the statement found them.
#[derive(Clone, Copy)]
pub struct Db<'a> {
    pub schema: &'a Schema,
    pub tables: &'a [Vec<Vec<Value>>],
}

/// What column references resolve to: the tables of a frame and, except in
/// VALUES, one (joined) row of them; the rows of the current group, where
/// aggregates are evaluated; the enclosing scope of a subquery; and the
/// database subqueries read.
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    pub frame: &'a Frame<'a>,
    pub row: Option<&'a [Value]>,
    pub group: Option<&'a [Vec<Value>]>,
    pub outer: Option<&'a Scope<'a>>,
    pub db: Option<Db<'a>>,
}

impl<'a> Scope<'a> {
    pub fn new(frame: &'a Frame<'a>, row: Option<&'a [Value]>, db: Option<Db<'a>>) -> Self {
        Scope {
            frame,
            row,
            group: None,
            outer: None,
            db,
        }
    }

    /// The value `column` refers to: in this frame, else in the enclosing
    /// ones (a correlated subquery). A bare name must match one table of the
    /// innermost frame that has it.
    fn lookup(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        let mut hits = Vec::new();
        for &(name, table, offset) in &self.frame.tables {
            if column.table.as_deref().is_some_and(|q| q != name) {
                continue;
            }
            match table.columns.iter().position(|c| c.name == column.column) {
                Some(p) => hits.push(offset + p),
                None if column.table.is_some() => {
                    return Err(EvalError::Syntax(format!(
                        "unknown column `{}` in table `{}`",
                        column.column, table.name
                    )))
                }
                None => {}
            }
        }
        match hits.as_slice() {
            [index] => {
                let row = self.row.ok_or_else(|| {
                    EvalError::Syntax(format!(
                        "column `{}` is not allowed in VALUES",
                        column.column
                    ))
                })?;
                Ok(row[*index].clone())
            }
            [] => match self.outer {
                Some(outer) => outer.lookup(column),
                None => Err(EvalError::Syntax(match &column.table {
                    Some(q) => format!(
                        "unknown table `{q}` in column reference `{q}.{}`",
                        column.column
                    ),
                    None => format!("unknown column `{}`", column.column),
                })),
            },
            _ => Err(EvalError::Syntax(format!(
                "column `{}` is ambiguous",
                column.column
            ))),
        }
    }

    fn db(&self) -> Result<Db<'a>, EvalError> {
        self.db.ok_or_else(|| {
            EvalError::Syntax("a subquery needs the database, which this scope lacks".into())
        })
    }
}

/// Position of `column` in `table`, checking the qualifier if there is one.
pub fn resolve(table: &Table, column: &ColumnRef) -> Result<usize, EvalError> {
    if let Some(qualifier) = &column.table {
        if qualifier != &table.name {
            return Err(EvalError::Syntax(format!(
                "unknown table `{qualifier}` in column reference `{qualifier}.{}`",
                column.column
            )));
        }
    }
    table
        .columns
        .iter()
        .position(|c| c.name == column.column)
        .ok_or_else(|| {
            EvalError::Syntax(format!(
                "unknown column `{}` in table `{}`",
                column.column, table.name
            ))
        })
}

/// Rejects unknown columns before any row is visited, as a DBMS does when it
/// prepares a statement; `allow_columns` is false for VALUES lists.
pub fn check_columns(expr: &Expr, table: &Table, allow_columns: bool) -> Result<(), EvalError> {
    for column in expr.columns() {
        if !allow_columns {
            return Err(EvalError::Syntax(format!(
                "column `{}` is not allowed in VALUES",
                column.column
            )));
        }
        resolve(table, column)?;
    }
    Ok(())
}

pub fn eval(expr: &Expr, scope: Scope<'_>) -> Result<Value, EvalError> {
    match expr {
        Expr::Column(column) => scope.lookup(column),
        Expr::Literal(value) => Ok(value.clone()),
        Expr::Unary { op, operand } => {
            let value = eval(operand, scope)?;
            match op {
                UnaryOp::Not => Ok(from_truth(truth(&value)?.map(|b| !b))),
                UnaryOp::Neg => negate(value),
                other => Err(EvalError::Syntax(format!(
                    "unsupported unary operator {other:?}"
                ))),
            }
        }
        Expr::Binary { op, left, right } => {
            // Both sides are always evaluated so that errors do not depend on
            // short-circuit order.
            let left = eval(left, scope)?;
            let right = eval(right, scope)?;
            binary(*op, &left, &right)
        }
        Expr::IsNull { operand, negated } => {
            let value = eval(operand, scope)?;
            Ok(Value::Bool(value.is_null() != *negated))
        }
        Expr::InList {
            operand,
            list,
            negated,
        } => {
            let value = eval(operand, scope)?;
            let items = list
                .iter()
                .map(|item| eval(item, scope))
                .collect::<Result<Vec<_>, _>>()?;
            in_values(&value, &items, *negated)
        }
        Expr::InSubquery {
            operand,
            query,
            negated,
        } => {
            let value = eval(operand, scope)?;
            let items = one_column(query, scope)?;
            in_values(&value, &items, *negated)
        }
        Expr::Exists { query, negated } => {
            let (_, rows) = crate::query::run_query(query, scope.db()?, Some(&scope))?;
            Ok(Value::Bool(rows.is_empty() == *negated))
        }
        Expr::ScalarSubquery(query) => {
            let mut values = one_column(query, scope)?;
            if values.len() > 1 {
                return Err(EvalError::Data(format!(
                    "a scalar subquery returned {} rows",
                    values.len()
                )));
            }
            Ok(values.pop().unwrap_or(Value::Null))
        }
        Expr::Aggregate { func, arg } => {
            let group = scope.group.ok_or_else(|| {
                EvalError::Syntax(format!(
                    "{} is allowed only in a query's projection and ORDER BY",
                    func.sql()
                ))
            })?;
            aggregate(*func, arg.as_deref(), group, scope)
        }
        Expr::Between {
            operand,
            low,
            high,
            negated,
        } => {
            let value = eval(operand, scope)?;
            let low = eval(low, scope)?;
            let high = eval(high, scope)?;
            let above = sql_cmp(&value, &low)?.map(|o| o != Ordering::Less);
            let below = sql_cmp(&value, &high)?.map(|o| o != Ordering::Greater);
            Ok(from_truth(and3(above, below).map(|b| b != *negated)))
        }
        Expr::Cast { operand, to } => convert(eval(operand, scope)?, *to),
        Expr::Concat(parts) => {
            let mut text = String::new();
            for part in parts {
                match convert(eval(part, scope)?, ColumnType::Text)? {
                    Value::Text(t) => text.push_str(&t),
                    // NULL in, NULL out, as in SQL.
                    _ => return Ok(Value::Null),
                }
            }
            Ok(Value::Text(text))
        }
        other => Err(EvalError::Syntax(format!(
            "unsupported expression {other:?}"
        ))),
    }
}

/// `value [NOT] IN (items)` with SQL's NULL rules.
fn in_values(value: &Value, items: &[Value], negated: bool) -> Result<Value, EvalError> {
    let mut found = false;
    let mut unknown = value.is_null();
    for item in items {
        match sql_cmp(value, item)? {
            Some(Ordering::Equal) => found = true,
            Some(_) => {}
            None => unknown = true,
        }
    }
    let result = if found {
        Some(true)
    } else if unknown {
        None
    } else {
        Some(false)
    };
    Ok(from_truth(result.map(|b| b != negated)))
}

/// The values of a subquery that projects one column.
fn one_column(query: &Query, scope: Scope<'_>) -> Result<Vec<Value>, EvalError> {
    if query.projection.len() != 1 {
        return Err(EvalError::Syntax(format!(
            "a subquery used as a value projects {} columns",
            query.projection.len()
        )));
    }
    let (_, rows) = crate::query::run_query(query, scope.db()?, Some(&scope))?;
    Ok(rows.into_iter().map(|mut r| r.remove(0)).collect())
}

/// An aggregate over the rows of a group, with SQL's NULL rules: COUNT(expr)
/// counts non-NULL values, COUNT(*) the rows; SUM, MIN, MAX skip NULLs and are
/// NULL over none.
fn aggregate(
    func: AggregateFunc,
    arg: Option<&Expr>,
    group: &[Vec<Value>],
    scope: Scope<'_>,
) -> Result<Value, EvalError> {
    let Some(arg) = arg else {
        return match func {
            AggregateFunc::Count => Ok(Value::Int(group.len() as i64)),
            other => Err(EvalError::Syntax(format!("{}(*) is not SQL", other.sql()))),
        };
    };
    let mut values = Vec::with_capacity(group.len());
    for row in group {
        let member = Scope {
            row: Some(row),
            group: None,
            ..scope
        };
        let value = eval(arg, member)?;
        if !value.is_null() {
            values.push(value);
        }
    }
    let extreme = |keep: Ordering| -> Result<Value, EvalError> {
        let mut best: Option<Value> = None;
        for v in values.iter() {
            best = Some(match best {
                Some(b) if sql_cmp(v, &b)? != Some(keep) => b,
                _ => v.clone(),
            });
        }
        Ok(best.unwrap_or(Value::Null))
    };
    match func {
        AggregateFunc::Count => Ok(Value::Int(values.len() as i64)),
        AggregateFunc::Sum => {
            let mut sum: Option<Value> = None;
            for v in &values {
                let start = sum.take().unwrap_or(Value::Int(0));
                sum = Some(binary(BinaryOp::Add, &start, v)?);
            }
            Ok(sum.unwrap_or(Value::Null))
        }
        AggregateFunc::Min => extreme(Ordering::Less),
        AggregateFunc::Max => extreme(Ordering::Greater),
        other => Err(EvalError::Syntax(format!(
            "unsupported aggregate {other:?}"
        ))),
    }
}

/// A predicate's truth value: `None` is SQL's unknown.
pub fn truth(value: &Value) -> Result<Option<bool>, EvalError> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        // Numbers act as truth values the way MySQL and SQLite treat them.
        Value::Int(i) => Ok(Some(*i != 0)),
        Value::Float(f) => Ok(Some(*f != 0.0)),
        Value::Decimal(d) => Ok(Some(parse_decimal(d)? != 0.0)),
        Value::Text(_) | Value::Bytes(_) => {
            Err(EvalError::Data(format!("{value} is not a truth value")))
        }
    }
}

/// Whether a WHERE clause keeps the row: only when the predicate is true.
pub fn keeps(filter: Option<&Expr>, scope: Scope<'_>) -> Result<bool, EvalError> {
    match filter {
        None => Ok(true),
        Some(filter) => Ok(truth(&eval(filter, scope)?)? == Some(true)),
    }
}

fn from_truth(value: Option<bool>) -> Value {
    value.map_or(Value::Null, Value::Bool)
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// A numeric operand: exact integers stay exact, everything else is a double.
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

fn numeric(value: &Value) -> Result<Option<Num>, EvalError> {
    Ok(match value {
        Value::Int(i) => Some(Num::Int(*i)),
        Value::Float(f) => Some(Num::Float(*f)),
        Value::Decimal(d) => Some(Num::Float(parse_decimal(d)?)),
        // Booleans are 0 and 1 in numeric context, as in MySQL and SQLite.
        Value::Bool(b) => Some(Num::Int(i64::from(*b))),
        _ => None,
    })
}

fn parse_decimal(text: &str) -> Result<f64, EvalError> {
    text.trim()
        .parse::<f64>()
        .map_err(|_| EvalError::Data(format!("`{text}` is not a number")))
}

/// SQL comparison: `None` when either side is NULL. Int and Float compare
/// numerically, text with text; other mixes are data errors.
pub fn sql_cmp(a: &Value, b: &Value) -> Result<Option<Ordering>, EvalError> {
    if a.is_null() || b.is_null() {
        return Ok(None);
    }
    match (a, b) {
        (Value::Text(x), Value::Text(y)) => return Ok(Some(x.cmp(y))),
        (Value::Bytes(x), Value::Bytes(y)) => return Ok(Some(x.cmp(y))),
        (Value::Bool(x), Value::Bool(y)) => return Ok(Some(x.cmp(y))),
        _ => {}
    }
    match (numeric(a)?, numeric(b)?) {
        (Some(Num::Int(x)), Some(Num::Int(y))) => Ok(Some(x.cmp(&y))),
        (Some(x), Some(y)) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .map(Some)
            .ok_or_else(|| EvalError::Data(format!("cannot compare {a} with {b}"))),
        _ => Err(EvalError::Data(format!("cannot compare {a} with {b}"))),
    }
}

/// The order ORDER BY uses: NULLs first, then SQL comparison; values SQL cannot
/// compare fall back to the canonical total order so that sorting never fails.
pub fn order_cmp(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => match sql_cmp(a, b) {
            Ok(Some(o)) => o,
            _ => a.total_cmp(b),
        },
    }
}

fn binary(op: BinaryOp, left: &Value, right: &Value) -> Result<Value, EvalError> {
    let compare = |accept: fn(Ordering) -> bool| -> Result<Value, EvalError> {
        Ok(from_truth(sql_cmp(left, right)?.map(accept)))
    };
    match op {
        BinaryOp::Eq => compare(|o| o == Ordering::Equal),
        BinaryOp::NotEq => compare(|o| o != Ordering::Equal),
        BinaryOp::Lt => compare(|o| o == Ordering::Less),
        BinaryOp::LtEq => compare(|o| o != Ordering::Greater),
        BinaryOp::Gt => compare(|o| o == Ordering::Greater),
        BinaryOp::GtEq => compare(|o| o != Ordering::Less),
        BinaryOp::And => Ok(from_truth(and3(truth(left)?, truth(right)?))),
        BinaryOp::Or => Ok(from_truth(or3(truth(left)?, truth(right)?))),
        BinaryOp::Add => arithmetic(op, left, right, i64::checked_add, |x, y| x + y),
        BinaryOp::Sub => arithmetic(op, left, right, i64::checked_sub, |x, y| x - y),
        BinaryOp::Mul => arithmetic(op, left, right, i64::checked_mul, |x, y| x * y),
        other => Err(EvalError::Syntax(format!(
            "unsupported binary operator {other:?}"
        ))),
    }
}

fn arithmetic(
    op: BinaryOp,
    left: &Value,
    right: &Value,
    int_op: fn(i64, i64) -> Option<i64>,
    float_op: fn(f64, f64) -> f64,
) -> Result<Value, EvalError> {
    if left.is_null() || right.is_null() {
        return Ok(Value::Null);
    }
    if matches!(left, Value::Decimal(_)) || matches!(right, Value::Decimal(_)) {
        if let (Some(x), Some(y)) = (Exact::of(left)?, Exact::of(right)?) {
            return decimal_arithmetic(op, x, y);
        }
    }
    let (Some(x), Some(y)) = (numeric(left)?, numeric(right)?) else {
        return Err(EvalError::Data(format!(
            "cannot compute {left} {} {right}",
            op.sql()
        )));
    };
    match (x, y) {
        (Num::Int(x), Num::Int(y)) => int_op(x, y)
            .map(Value::Int)
            .ok_or_else(|| EvalError::Data(format!("integer overflow in {x} {} {y}", op.sql()))),
        (x, y) => finite(float_op(x.as_f64(), y.as_f64())),
    }
}

/// An exact number: `mantissa / 10^scale`. DECIMAL values, integers and
/// booleans are exact; a DECIMAL with a DOUBLE is computed as a DOUBLE, as
/// MySQL and PostgreSQL do (MySQL manual, precision-math-expressions).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Exact {
    mantissa: i128,
    scale: u32,
}

/// More digits than any DECIMAL holds (65 in MySQL) need not be exact here.
const MAX_EXACT_SCALE: u32 = 30;

impl Exact {
    fn of(value: &Value) -> Result<Option<Exact>, EvalError> {
        Ok(match value {
            Value::Int(i) => Some(Exact {
                mantissa: i128::from(*i),
                scale: 0,
            }),
            Value::Bool(b) => Some(Exact {
                mantissa: i128::from(*b),
                scale: 0,
            }),
            Value::Decimal(d) => Some(Exact::parse(d)?),
            _ => None,
        })
    }

    fn parse(text: &str) -> Result<Exact, EvalError> {
        let bad = || EvalError::Data(format!("`{text}` is not a number"));
        let t = text.trim();
        let (negative, digits) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty() && fraction.is_empty()
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let scale = u32::try_from(fraction.len()).map_err(|_| bad())?;
        if scale > MAX_EXACT_SCALE {
            return Err(bad());
        }
        let mantissa: i128 = format!("{whole}{fraction}")
            .trim_start_matches('0')
            .parse()
            .or_else(|_| {
                if whole.bytes().chain(fraction.bytes()).all(|b| b == b'0') {
                    Ok(0)
                } else {
                    Err(bad())
                }
            })?;
        Ok(Exact {
            mantissa: if negative { -mantissa } else { mantissa },
            scale,
        })
    }

    /// The mantissa at a larger scale.
    fn at_scale(self, scale: u32) -> Option<i128> {
        self.mantissa
            .checked_mul(10i128.checked_pow(scale - self.scale)?)
    }

    fn text(self) -> String {
        let digits = self.mantissa.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (whole, fraction) = padded.split_at(padded.len() - scale);
        let sign = if self.mantissa < 0 { "-" } else { "" };
        if scale == 0 {
            format!("{sign}{whole}")
        } else {
            format!("{sign}{whole}.{fraction}")
        }
    }
}

/// DECIMAL arithmetic, exact: a sum or difference has the larger scale of
/// the two, a product the sum of their scales (MySQL manual,
/// precision-math-decimal-characteristics; PostgreSQL numeric).
fn decimal_arithmetic(op: BinaryOp, x: Exact, y: Exact) -> Result<Value, EvalError> {
    let overflow = || {
        EvalError::Data(format!(
            "DECIMAL overflow in {} {} {}",
            x.text(),
            op.sql(),
            y.text()
        ))
    };
    let result = match op {
        BinaryOp::Add | BinaryOp::Sub => {
            let scale = x.scale.max(y.scale);
            let (a, b) = (x.at_scale(scale), y.at_scale(scale));
            let (Some(a), Some(b)) = (a, b) else {
                return Err(overflow());
            };
            let mantissa = if op == BinaryOp::Add {
                a.checked_add(b)
            } else {
                a.checked_sub(b)
            };
            Exact {
                mantissa: mantissa.ok_or_else(overflow)?,
                scale,
            }
        }
        BinaryOp::Mul => {
            let scale = x.scale + y.scale;
            if scale > MAX_EXACT_SCALE {
                return Err(overflow());
            }
            Exact {
                mantissa: x.mantissa.checked_mul(y.mantissa).ok_or_else(overflow)?,
                scale,
            }
        }
        other => {
            return Err(EvalError::Syntax(format!(
                "unsupported DECIMAL operator {other:?}"
            )))
        }
    };
    Ok(Value::Decimal(result.text()))
}

fn finite(f: f64) -> Result<Value, EvalError> {
    if f.is_finite() {
        Ok(Value::Float(f))
    } else {
        Err(EvalError::Data(format!("{f} is out of range for DOUBLE")))
    }
}

fn negate(value: Value) -> Result<Value, EvalError> {
    match value {
        Value::Null => Ok(Value::Null),
        Value::Int(i) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| EvalError::Data(format!("integer overflow in -({i})"))),
        Value::Float(f) => Ok(Value::Float(-f)),
        Value::Decimal(d) => Ok(Value::Decimal(match d.strip_prefix('-') {
            Some(positive) => positive.to_string(),
            None => format!("-{d}"),
        })),
        Value::Bool(b) => Ok(Value::Int(-i64::from(b))),
        other => Err(EvalError::Data(format!("cannot negate {other}"))),
    }
}

/// Converts a value to a column type, for CAST and for storing into a column:
/// stored values always have the variant their column type implies, so that
/// states read back compare exactly.
pub fn convert(value: Value, to: ColumnType) -> Result<Value, EvalError> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let bad = |value: &Value| EvalError::Data(format!("cannot convert {value} to {to:?}"));
    match to {
        ColumnType::Int => {
            let i = to_int(&value).ok_or_else(|| bad(&value))?;
            i32::try_from(i)
                .map(|_| Value::Int(i))
                .map_err(|_| EvalError::Data(format!("{i} is out of range for INT")))
        }
        ColumnType::BigInt => to_int(&value).map(Value::Int).ok_or_else(|| bad(&value)),
        ColumnType::Double => match &value {
            Value::Text(t) => t
                .trim()
                .parse::<f64>()
                .map_err(|_| bad(&value))
                .and_then(finite),
            _ => match numeric(&value)? {
                Some(n) => finite(n.as_f64()),
                None => Err(bad(&value)),
            },
        },
        ColumnType::Decimal { precision, scale } => {
            let f = match &value {
                Value::Text(t) => t.trim().parse::<f64>().map_err(|_| bad(&value))?,
                _ => numeric(&value)?.ok_or_else(|| bad(&value))?.as_f64(),
            };
            let text = format!("{f:.*}", usize::from(scale));
            let integer_digits = text
                .trim_start_matches('-')
                .split('.')
                .next()
                .map_or(0, |d| d.trim_start_matches('0').len());
            if integer_digits + usize::from(scale) > usize::from(precision) {
                return Err(EvalError::Data(format!(
                    "{value} is out of range for DECIMAL({precision},{scale})"
                )));
            }
            Ok(Value::Decimal(text))
        }
        ColumnType::Varchar { len } => {
            let text = to_text(&value).ok_or_else(|| bad(&value))?;
            if text.chars().count() > usize::from(len) {
                return Err(EvalError::Data(format!(
                    "'{text}' is too long for VARCHAR({len})"
                )));
            }
            Ok(Value::Text(text))
        }
        ColumnType::Text => to_text(&value).map(Value::Text).ok_or_else(|| bad(&value)),
        ColumnType::Bool => match &value {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::Text(t) => match t.trim().to_ascii_lowercase().as_str() {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                _ => Err(bad(&value)),
            },
            _ => truth(&value)?.map(Value::Bool).ok_or_else(|| bad(&value)),
        },
        other => Err(EvalError::Syntax(format!(
            "column type {other:?} is not supported by the in-memory database"
        ))),
    }
}

/// Integer value with MySQL's rounding of fractions (half away from zero).
fn to_int(value: &Value) -> Option<i64> {
    let from_f64 = |f: f64| {
        let r = f.round();
        (r.is_finite() && r >= i64::MIN as f64 && r < i64::MAX as f64).then_some(r as i64)
    };
    match value {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Float(f) => from_f64(*f),
        Value::Decimal(d) => d.trim().parse::<f64>().ok().and_then(from_f64),
        Value::Text(t) => {
            let t = t.trim();
            t.parse::<i64>()
                .ok()
                .or_else(|| t.parse::<f64>().ok().and_then(from_f64))
        }
        Value::Null | Value::Bytes(_) => None,
    }
}

fn to_text(value: &Value) -> Option<String> {
    match value {
        Value::Text(t) => Some(t.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Decimal(d) => Some(d.clone()),
        Value::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
        Value::Null | Value::Bytes(_) => None,
    }
}

#[cfg(test)]
mod decimal_tests {
    use super::*;

    fn dec(text: &str) -> Value {
        Value::Decimal(text.into())
    }

    fn compute(op: BinaryOp, x: Value, y: Value) -> Value {
        binary(op, &x, &y).unwrap()
    }

    #[test]
    fn decimal_sums_and_differences_keep_the_larger_scale() {
        assert_eq!(
            compute(BinaryOp::Add, dec("1.50"), dec("2.00")),
            dec("3.50")
        );
        assert_eq!(
            compute(BinaryOp::Sub, dec("1.50"), dec("3.00")),
            dec("-1.50")
        );
        assert_eq!(
            compute(BinaryOp::Sub, dec("0.50"), dec("0.50")),
            dec("0.00")
        );
        assert_eq!(
            compute(BinaryOp::Add, dec("2.5000000000"), dec("0.25")),
            dec("2.7500000000")
        );
        assert_eq!(
            compute(BinaryOp::Sub, dec("0.25"), Value::Int(1)),
            dec("-0.75")
        );
        assert_eq!(
            compute(BinaryOp::Add, Value::Int(-3), dec("-.5")),
            dec("-3.5")
        );
    }

    #[test]
    fn decimal_products_add_the_scales() {
        assert_eq!(
            compute(BinaryOp::Mul, dec("1.50"), dec("-2.0")),
            dec("-3.000")
        );
        assert_eq!(
            compute(BinaryOp::Mul, dec("0.05"), Value::Int(3)),
            dec("0.15")
        );
    }

    #[test]
    fn a_decimal_with_a_double_or_null_is_not_exact() {
        assert_eq!(
            compute(BinaryOp::Add, dec("1.50"), Value::Float(0.25)),
            Value::Float(1.75)
        );
        assert_eq!(
            compute(BinaryOp::Add, dec("1.50"), Value::Null),
            Value::Null
        );
        assert!(binary(BinaryOp::Add, &dec("1.5x"), &Value::Int(1)).is_err());
    }
}
