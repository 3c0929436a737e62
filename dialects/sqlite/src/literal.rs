//! The lexical pieces of SQLite SQL: quoted identifiers, literals and type names.

use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::sql::{finite_float, quoted, upper_hex, PlainDecimal};

/// A double-quoted identifier with embedded quotes doubled
/// (https://www.sqlite.org/lang_keywords.html).
pub fn ident(name: &str) -> Result<String, PluginError> {
    // SQLite's tokenizer ends the SQL text at a NUL byte.
    if name.contains('\0') {
        return Err(PluginError::unsupported(format!(
            "SQLite cannot name an object with a NUL character: {name:?}"
        )));
    }
    Ok(quoted(name, '"'))
}

/// A value as a literal of the storage class the IR means.
pub fn literal(value: &Value) -> Result<String, PluginError> {
    Ok(match value {
        Value::Null => "NULL".to_string(),
        // i64::MIN renders as `-9223372036854775808`, which SQLite folds into one
        // INTEGER (https://www.sqlite.org/lang_expr.html#literal_values_constants_).
        Value::Int(v) => v.to_string(),
        Value::Float(v) => float(*v)?,
        Value::Decimal(text) => decimal(text)?,
        Value::Text(text) => text_literal(text),
        // SQLite reads TRUE and FALSE as the name of a column called "true" or "false"
        // when the table has one; 1 and 0 are what they stand for anyway
        // (https://www.sqlite.org/lang_expr.html#boolean_expressions).
        Value::Bool(v) => if *v { "1" } else { "0" }.to_string(),
        Value::Bytes(bytes) => format!("X'{}'", upper_hex(bytes)),
    })
}

/// A REAL literal that parses back to exactly `v`.
fn float(v: f64) -> Result<String, PluginError> {
    let v = finite_float(v, "SQLite")?;
    // Debug gives the shortest text that parses back to the same f64.
    let mut text = format!("{v:?}");
    // Without a `.` or an exponent SQLite would read an INTEGER.
    if !text.contains(['.', 'e', 'E']) {
        text.push_str(".0");
    }
    Ok(text)
}

/// Exact numerics travel as text; only a plain decimal number may reach the SQL.
fn decimal(text: &str) -> Result<String, PluginError> {
    PlainDecimal::parse(text)?;
    Ok(text.to_string())
}

fn text_literal(text: &str) -> String {
    if text.contains('\0') {
        // SQLite's tokenizer ends the SQL text at a NUL byte, so such a string is
        // spelled as its UTF-8 bytes (https://www.sqlite.org/lang_expr.html#castexpr).
        format!("CAST(X'{}' AS TEXT)", upper_hex(text.as_bytes()))
    } else {
        quoted(text, '\'')
    }
}

/// The declared type of a column, also used as a CAST target.
pub fn type_name(ty: ColumnType) -> Result<String, PluginError> {
    Ok(match ty {
        // INT and BIGINT have INTEGER affinity (https://www.sqlite.org/datatype3.html
        // rule 1), but unlike the exact name INTEGER they do not turn a one-column
        // primary key into the rowid, where NULL would mean "next free id"
        // (https://www.sqlite.org/lang_createtable.html#rowid).
        ColumnType::Int => "INT".to_string(),
        ColumnType::BigInt => "BIGINT".to_string(),
        ColumnType::Double => "REAL".to_string(),
        ColumnType::Decimal { precision, scale } => format!("NUMERIC({precision},{scale})"),
        ColumnType::Varchar { len } => format!("VARCHAR({len})"),
        ColumnType::Text => "TEXT".to_string(),
        ColumnType::Bool => "BOOLEAN".to_string(),
        other => {
            return Err(PluginError::unsupported(format!(
                "the sqlite dialect cannot render column type {other:?}"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_always_read_as_real() {
        assert_eq!(float(1.0).unwrap(), "1.0");
        assert_eq!(float(-2.5).unwrap(), "-2.5");
        assert_eq!(float(0.1).unwrap(), "0.1");
        assert_eq!(float(1e300).unwrap(), "1e300");
        assert_eq!(float(1e16).unwrap(), "1e16");
        assert_eq!(float(5e-324).unwrap(), "5e-324");
    }

    #[test]
    fn non_finite_floats_are_unsupported() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(float(v).unwrap_err().kind, ErrorKind::UNSUPPORTED);
        }
    }

    #[test]
    fn decimals_must_be_plain_numbers() {
        for ok in [
            "0",
            "-12.50",
            "+3",
            "7.",
            ".25",
            "-.5",
            "12345678901234567890.123",
        ] {
            assert_eq!(decimal(ok).unwrap(), ok);
        }
        for bad in [
            "", "-", ".", "-.", "1e5", "1.2.3", "0x10", "1 ", "1;DROP", "NaN", "--1",
        ] {
            assert_eq!(
                decimal(bad).unwrap_err().kind,
                ErrorKind::INVALID_INPUT,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn quotes_are_doubled() {
        assert_eq!(ident("a\"b").unwrap(), "\"a\"\"b\"");
        assert_eq!(text_literal("it's"), "'it''s'");
        assert_eq!(text_literal("a\0b"), "CAST(X'610062' AS TEXT)");
        assert_eq!(ident("a\0").unwrap_err().kind, ErrorKind::UNSUPPORTED);
    }
}
