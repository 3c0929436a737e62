//! Constants: each becomes the [`Value`] variant of the column it meets, so
//! that what a dialect rendered parses back to the value it came from.

use super::Family;
use crate::error::{Problem, Translated};
use sqlparser::ast::{self as sql, DataType};
use txlab_plugin_api::ir::{ColumnType, Value};

/// A number as written (`-` included when it stood before the digits) as the
/// value the column type `hint` holds; without a hint, by its spelling.
pub fn number(text: &str, hint: Option<ColumnType>, family: Family) -> Translated<Value> {
    let exponent = text.contains(['e', 'E']);
    let point = text.contains('.');
    let float = || {
        text.parse::<f64>()
            .map(Value::Float)
            .map_err(|_| Problem::new(format!("`{text}` is not a number")))
    };
    let int = || text.parse::<i64>().ok().map(Value::Int);
    match hint {
        // An exponent makes a DOUBLE literal in every DBMS (MySQL's floats).
        _ if exponent => float(),
        Some(ColumnType::Double) => float(),
        Some(ColumnType::Decimal { .. }) => Ok(Value::Decimal(text.to_string())),
        // SQLite spells booleans 1 and 0.
        Some(ColumnType::Bool) if family == Family::Sqlite && (text == "1" || text == "0") => {
            Ok(Value::Bool(text == "1"))
        }
        _ if !point => Ok(int().unwrap_or_else(|| Value::Decimal(text.to_string()))),
        // A point without a column to say: SQLite reads a REAL, the others an
        // exact numeric.
        _ if family == Family::Sqlite => float(),
        _ => Ok(Value::Decimal(text.to_string())),
    }
}

/// A constant of the SQL text as a value.
pub fn value(v: &sql::Value, hint: Option<ColumnType>, family: Family) -> Translated<Value> {
    Ok(match v {
        sql::Value::Number(text, _) => number(text, hint, family)?,
        sql::Value::SingleQuotedString(s) => Value::Text(s.clone()),
        // MySQL reads a double-quoted string as a string unless ANSI_QUOTES.
        sql::Value::DoubleQuotedString(s) if family == Family::Mysql => Value::Text(s.clone()),
        sql::Value::HexStringLiteral(hex) => Value::Bytes(hex_bytes(hex)?),
        sql::Value::Boolean(b) => Value::Bool(*b),
        sql::Value::Null => Value::Null,
        other => return Err(Problem::unsupported(format!("the constant `{other}`"))),
    })
}

pub fn hex_bytes(hex: &str) -> Translated<Vec<u8>> {
    let digits: Vec<char> = hex.chars().collect();
    if digits.len() % 2 != 0 {
        return Err(Problem::new(format!(
            "X'{hex}' has an odd number of digits"
        )));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let s: String = pair.iter().collect();
            u8::from_str_radix(&s, 16)
                .map_err(|_| Problem::new(format!("X'{hex}' is not hexadecimal")))
        })
        .collect()
}

/// PostgreSQL's typed constants (`'0.1'::float8`, `'1.50'::numeric`,
/// `'\x00ff'::bytea`), which its dialect renders for doubles, decimals and
/// bytes; `None` for any other cast.
pub fn typed_string(text: &str, to: &DataType) -> Option<Translated<Value>> {
    let name = to.to_string().to_ascii_lowercase();
    Some(match name.as_str() {
        "float8" | "double precision" => {
            text.parse::<f64>()
                .map(Value::Float)
                .or_else(|_| match text {
                    "NaN" => Ok(Value::Float(f64::NAN)),
                    "Infinity" => Ok(Value::Float(f64::INFINITY)),
                    "-Infinity" => Ok(Value::Float(f64::NEG_INFINITY)),
                    _ => Err(Problem::new(format!("'{text}' is not a double"))),
                })
        }
        "numeric" => Ok(Value::Decimal(text.to_string())),
        "bytea" => match text.strip_prefix("\\x") {
            Some(hex) => hex_bytes(hex).map(Value::Bytes),
            None => Err(Problem::new(format!(
                "'{text}'::bytea is not in hex format"
            ))),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_take_the_type_of_their_column() {
        let n = |t, h| number(t, h, Family::Generic).unwrap();
        assert_eq!(n("12", None), Value::Int(12));
        assert_eq!(n("12", Some(ColumnType::Double)), Value::Float(12.0));
        assert_eq!(
            n(
                "3.500",
                Some(ColumnType::Decimal {
                    precision: 10,
                    scale: 3
                })
            ),
            Value::Decimal("3.500".into())
        );
        assert_eq!(n("3.5", None), Value::Decimal("3.5".into()));
        assert_eq!(
            n(
                "2.5e0",
                Some(ColumnType::Decimal {
                    precision: 10,
                    scale: 2
                })
            ),
            Value::Float(2.5)
        );
        assert_eq!(n("-9223372036854775808", None), Value::Int(i64::MIN));
        assert_eq!(
            n("99999999999999999999", None),
            Value::Decimal("99999999999999999999".into())
        );
        assert_eq!(
            number("1", Some(ColumnType::Bool), Family::Sqlite).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            number("2.5", None, Family::Sqlite).unwrap(),
            Value::Float(2.5)
        );
    }
}
