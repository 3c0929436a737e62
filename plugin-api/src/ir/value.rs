//! SQL values as they appear in literals, initial rows and query results.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// One SQL value. Drivers map their native types onto these variants; `Decimal`
/// keeps exact numerics as canonical text so that no precision is lost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    Null,
    Int(i64),
    Float(f64),
    Decimal(String),
    Text(String),
    Bool(bool),
    Bytes(Vec<u8>),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) => 2,
            Value::Float(_) => 3,
            Value::Decimal(_) => 4,
            Value::Text(_) => 5,
            Value::Bytes(_) => 6,
        }
    }

    /// A total order used to put rows into a canonical order (NULL first, then by
    /// variant, then by value). It is not SQL's comparison semantics.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            (Value::Decimal(a), Value::Decimal(b)) => a.cmp(b),
            (Value::Text(a), Value::Text(b)) => a.cmp(b),
            (Value::Bytes(a), Value::Bytes(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl Value {
    /// Orders two values of one column the way SQL compares them: numbers by
    /// value (DECIMAL text exactly, `9.50` before `10.00`), everything else
    /// as [`Value::total_cmp`] does (strings and bytes bytewise, as a binary
    /// collation orders them). NULL comes first.
    pub fn sql_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Decimal(a), Value::Decimal(b)) => match (Decimal::of(a), Decimal::of(b)) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => a.cmp(b),
            },
            (
                Value::Int(_) | Value::Float(_) | Value::Decimal(_),
                Value::Int(_) | Value::Float(_) | Value::Decimal(_),
            ) => match (self.as_f64(), other.as_f64()) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                _ => self.total_cmp(other),
            },
            _ => self.total_cmp(other),
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Decimal(d) => d.parse().ok(),
            _ => None,
        }
    }
}

/// An exact numeric of the IR, which travels as text, split: an optional
/// sign, digits, an optional point and digits, at least one digit in all.
/// The dialects paste it into SQL, so anything else (an exponent,
/// hexadecimal, spaces, a quote) is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainDecimal<'a> {
    pub negative: bool,
    /// The digits before the point; may be empty (`.5`).
    pub whole: &'a str,
    /// The digits after the point; may be empty (`7.`, `7`).
    pub fraction: &'a str,
}

impl<'a> PlainDecimal<'a> {
    /// The parts of `text`, `None` when it is not a plain decimal number.
    pub fn split(text: &'a str) -> Option<Self> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() && fraction.is_empty() || !all_digits(whole) || !all_digits(fraction) {
            return None;
        }
        Some(PlainDecimal {
            negative,
            whole,
            fraction,
        })
    }
}

/// A plain decimal number normalised for an exact comparison: the digits
/// before the point without leading zeros, after it without trailing zeros,
/// and no sign on zero.
#[derive(PartialEq, Eq)]
struct Decimal<'a> {
    negative: bool,
    whole: &'a str,
    fraction: &'a str,
}

impl<'a> Decimal<'a> {
    fn of(text: &'a str) -> Option<Decimal<'a>> {
        let split = PlainDecimal::split(text)?;
        let whole = split.whole.trim_start_matches('0');
        let fraction = split.fraction.trim_end_matches('0');
        // Zero has no sign.
        let negative = split.negative && !(whole.is_empty() && fraction.is_empty());
        Some(Decimal {
            negative,
            whole,
            fraction,
        })
    }

    fn magnitude_cmp(&self, other: &Self) -> Ordering {
        self.whole
            .len()
            .cmp(&other.whole.len())
            .then_with(|| self.whole.cmp(other.whole))
            .then_with(|| self.fraction.cmp(other.fraction))
    }
}

impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude_cmp(other),
            (true, true) => other.magnitude_cmp(self),
        }
    }
}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Compare two rows with [`Value::total_cmp`], column by column.
pub fn cmp_rows(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = x.total_cmp(y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Rows only in `a` and rows only in `b`, comparing the two as multisets
/// (in any order, duplicates counted). Both results are sorted.
pub fn multiset_difference(
    a: &[Vec<Value>],
    b: &[Vec<Value>],
) -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
    let sorted = |rows: &[Vec<Value>]| {
        let mut rows = rows.to_vec();
        rows.sort_by(|x, y| cmp_rows(x, y));
        rows
    };
    let (a, b) = (sorted(a), sorted(b));
    let (mut i, mut j) = (0, 0);
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    while i < a.len() && j < b.len() {
        match cmp_rows(&a[i], &b[j]) {
            Ordering::Equal => {
                i += 1;
                j += 1;
            }
            Ordering::Less => {
                only_a.push(a[i].clone());
                i += 1;
            }
            Ordering::Greater => {
                only_b.push(b[j].clone());
                j += 1;
            }
        }
    }
    only_a.extend_from_slice(&a[i..]);
    only_b.extend_from_slice(&b[j..]);
    (only_a, only_b)
}

impl fmt::Display for Value {
    /// A readable rendering for reports; dialects render SQL literals themselves.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("NULL"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:?}"),
            Value::Decimal(v) => f.write_str(v),
            Value::Text(v) => write!(f, "'{}'", v.replace('\'', "''")),
            Value::Bool(v) => f.write_str(if *v { "TRUE" } else { "FALSE" }),
            Value::Bytes(v) => {
                f.write_str("X'")?;
                for b in v {
                    write!(f, "{b:02X}")?;
                }
                f.write_str("'")
            }
        }
    }
}

/// A row for reports: `(1, 'a', NULL)`.
#[derive(Clone, Copy, Debug)]
pub struct RowText<'a>(pub &'a [Value]);

impl fmt::Display for RowText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v}")?;
        }
        f.write_str(")")
    }
}

/// Rows for reports, in the order given: `(1, 'a'), (2, 'b')`, or `no rows`.
#[derive(Clone, Copy, Debug)]
pub struct RowsText<'a>(pub &'a [Vec<Value>]);

impl fmt::Display for RowsText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no rows");
        }
        for (i, row) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", RowText(row))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_order_is_numeric_for_decimal_text() {
        let d = |t: &str| Value::Decimal(t.into());
        let ordered = [
            d("-10.50"),
            d("-9.5"),
            d("-0.25"),
            d("0.00"),
            d("0.05"),
            d("0.5"),
            d("0.51"),
            d("5.00"),
            d("9.50"),
            d("10.00"),
            d("100"),
        ];
        for pair in ordered.windows(2) {
            assert_eq!(pair[0].sql_cmp(&pair[1]), Ordering::Less, "{pair:?}");
            assert_eq!(pair[1].sql_cmp(&pair[0]), Ordering::Greater, "{pair:?}");
        }
        assert_eq!(d("-0.00").sql_cmp(&d("0")), Ordering::Equal);
        assert_eq!(d("7.10").sql_cmp(&d("007.1")), Ordering::Equal);
        assert_eq!(Value::Int(9).sql_cmp(&d("10.00")), Ordering::Less);
        assert_eq!(Value::Null.sql_cmp(&d("-1")), Ordering::Less);
        // Text stays bytewise, as a binary collation orders it.
        assert_eq!(
            Value::Text("s10".into()).sql_cmp(&Value::Text("s9".into())),
            Ordering::Less
        );
    }

    #[test]
    fn rows_display_as_tuples() {
        let rows = vec![
            vec![Value::Int(1), Value::Text("a'b".into()), Value::Null],
            vec![Value::Bool(true)],
        ];
        assert_eq!(RowText(&rows[0]).to_string(), "(1, 'a''b', NULL)");
        assert_eq!(RowText(&[]).to_string(), "()");
        assert_eq!(RowsText(&rows).to_string(), "(1, 'a''b', NULL), (TRUE)");
        assert_eq!(RowsText(&[]).to_string(), "no rows");
    }

    #[test]
    fn multiset_difference_ignores_order_and_counts_duplicates() {
        let row = |v: i64| vec![Value::Int(v)];
        let a = vec![row(3), row(1), row(1), row(2)];
        let b = vec![row(1), row(4), row(3)];
        let (only_a, only_b) = multiset_difference(&a, &b);
        assert_eq!(only_a, vec![row(1), row(2)]);
        assert_eq!(only_b, vec![row(4)]);
        assert_eq!(multiset_difference(&a, &a), (vec![], vec![]));
    }
}
