//! The lexical pieces of MySQL-family SQL: quoted identifiers, literals and type
//! names. Every literal reads the same whatever the session's `sql_mode`, so the
//! statements that load a case on a connection without the dialect's set-up parse
//! exactly like the ones its sessions run.

use crate::flavor::Flavor;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::sql::{finite_float, quoted, upper_hex, PlainDecimal};

/// The longest identifier MySQL, MariaDB and TiDB accept
/// (https://dev.mysql.com/doc/refman/8.0/en/identifier-length.html).
const MAX_IDENTIFIER_CHARS: usize = 64;

/// MySQL's DECIMAL holds at most 65 digits; a longer numeric literal is read as an
/// approximate DOUBLE (https://dev.mysql.com/doc/refman/8.0/en/precision-math-numbers.html).
const MAX_DECIMAL_DIGITS: usize = 65;
/// The largest scale of a DECIMAL column
/// (https://dev.mysql.com/doc/refman/8.0/en/fixed-point-types.html).
const MAX_DECIMAL_SCALE: u8 = 30;

/// The longest VARCHAR a utf8mb4 column can declare: 65,535 bytes per row at four
/// bytes per character (https://dev.mysql.com/doc/refman/8.0/en/char.html).
const MAX_VARCHAR_CHARS: u16 = 16_383;

/// A backtick-quoted identifier with embedded backticks doubled
/// (https://dev.mysql.com/doc/refman/8.0/en/identifiers.html).
pub fn ident(name: &str) -> Result<String, PluginError> {
    // identifiers.html: quoted identifiers cannot contain NUL (U+0000), and names
    // cannot end with a space.
    if name.is_empty() || name.contains('\0') || name.ends_with(' ') {
        return Err(PluginError::unsupported(format!(
            "MySQL cannot name an object {name:?}: names must be non-empty, without NUL \
             and must not end with a space"
        )));
    }
    if name.chars().count() > MAX_IDENTIFIER_CHARS {
        return Err(PluginError::unsupported(format!(
            "MySQL names have at most {MAX_IDENTIFIER_CHARS} characters: {name:?}"
        )));
    }
    Ok(quoted(name, '`'))
}

/// A value as a literal that reads the same in every `sql_mode`.
pub fn literal(value: &Value) -> Result<String, PluginError> {
    Ok(match value {
        Value::Null => "NULL".to_string(),
        // i64::MIN renders as `-9223372036854775808`: unary minus on an unsigned
        // literal, which MySQL evaluates to exactly i64::MIN.
        Value::Int(v) => v.to_string(),
        Value::Float(v) => float(*v)?,
        Value::Decimal(text) => decimal(text)?,
        Value::Text(text) => text_literal(text),
        // TRUE and FALSE are reserved words, so they are never read as a column
        // named `true` (which needs backticks); they stand for 1 and 0
        // (https://dev.mysql.com/doc/refman/8.0/en/boolean-literals.html).
        Value::Bool(v) => if *v { "TRUE" } else { "FALSE" }.to_string(),
        Value::Bytes(bytes) => format!("X'{}'", upper_hex(bytes)),
    })
}

/// A DOUBLE literal that parses back to exactly `v`.
fn float(v: f64) -> Result<String, PluginError> {
    let v = finite_float(v, "MySQL")?;
    // A number with an exponent is an approximate-value (DOUBLE) literal; without
    // one, `0.1` would be an exact DECIMAL and arithmetic on it exact too
    // (https://dev.mysql.com/doc/refman/8.0/en/number-literals.html). LowerExp
    // gives the shortest mantissa that parses back to the same f64.
    Ok(format!("{v:e}"))
}

/// Exact numerics travel as text; only a plain decimal number may reach the SQL.
fn decimal(text: &str) -> Result<String, PluginError> {
    let PlainDecimal {
        whole, fraction, ..
    } = PlainDecimal::parse(text)?;
    let significant = whole.trim_start_matches('0').len() + fraction.len();
    if significant > MAX_DECIMAL_DIGITS {
        return Err(PluginError::unsupported(format!(
            "`{text}` has more than {MAX_DECIMAL_DIGITS} digits; MySQL would read it as an \
             approximate DOUBLE"
        )));
    }
    Ok(text.to_string())
}

fn text_literal(text: &str) -> String {
    if text.contains(['\\', '\0']) {
        // A backslash is an escape character unless sql_mode has
        // NO_BACKSLASH_ESCAPES (https://dev.mysql.com/doc/refman/8.0/en/string-literals.html),
        // so no quoted spelling reads the same in both modes; the UTF-8 bytes as a
        // hexadecimal literal with a character set introducer do, and like a quoted
        // literal it yields to the collation of the column it meets
        // (https://dev.mysql.com/doc/refman/8.0/en/hexadecimal-literals.html).
        format!("_utf8mb4 X'{}'", upper_hex(text.as_bytes()))
    } else {
        // Doubling the quote means one quote in every mode.
        quoted(text, '\'')
    }
}

/// The declared type of a column
/// (https://dev.mysql.com/doc/refman/8.0/en/data-types.html).
pub fn column_type(ty: ColumnType) -> Result<String, PluginError> {
    Ok(match ty {
        ColumnType::Int => "INT".to_string(),
        ColumnType::BigInt => "BIGINT".to_string(),
        ColumnType::Double => "DOUBLE".to_string(),
        ColumnType::Decimal { precision, scale } => {
            let (precision, scale) = decimal_shape(precision, scale)?;
            format!("DECIMAL({precision},{scale})")
        }
        ColumnType::Varchar { len } => format!("VARCHAR({})", varchar_len(len)?),
        ColumnType::Text => "TEXT".to_string(),
        // BOOLEAN is TINYINT(1): TRUE and FALSE are stored as 1 and 0
        // (https://dev.mysql.com/doc/refman/8.0/en/numeric-type-syntax.html).
        ColumnType::Bool => "BOOLEAN".to_string(),
        other => return Err(unsupported_type(other)),
    })
}

/// The target of `CAST(… AS …)`, which has its own names and lacks some types
/// (https://dev.mysql.com/doc/refman/8.0/en/cast-functions.html#function_cast).
pub fn cast_type(flavor: Flavor, ty: ColumnType) -> Result<String, PluginError> {
    Ok(match ty {
        // There is no 32-bit integer target: SIGNED is BIGINT, so a cast to INT is
        // not range-checked against 32 bits.
        ColumnType::Int | ColumnType::BigInt => "SIGNED".to_string(),
        // MySQL accepts DOUBLE from 8.0.17 (cast-functions page); TiDB documents it
        // (https://docs.pingcap.com/tidb/stable/cast-functions-and-operators);
        // MariaDB 10.11 accepts it (checked by the live tests).
        ColumnType::Double => "DOUBLE".to_string(),
        ColumnType::Decimal { precision, scale } => {
            let (precision, scale) = decimal_shape(precision, scale)?;
            format!("DECIMAL({precision},{scale})")
        }
        // CHAR(n) truncates a longer value with a warning instead of failing.
        ColumnType::Varchar { len } => format!("CHAR({})", varchar_len(len)?),
        ColumnType::Text => "CHAR".to_string(),
        ColumnType::Bool => {
            return Err(PluginError::unsupported(format!(
                "{flavor} has no CAST target for BOOLEAN"
            )))
        }
        other => return Err(unsupported_type(other)),
    })
}

fn decimal_shape(precision: u8, scale: u8) -> Result<(u8, u8), PluginError> {
    if precision == 0 || scale > precision {
        return Err(PluginError::invalid_input(format!(
            "DECIMAL({precision},{scale}) needs 1 <= precision and scale <= precision"
        )));
    }
    if usize::from(precision) > MAX_DECIMAL_DIGITS || scale > MAX_DECIMAL_SCALE {
        return Err(PluginError::unsupported(format!(
            "DECIMAL({precision},{scale}) exceeds MySQL's {MAX_DECIMAL_DIGITS} digits or \
             scale {MAX_DECIMAL_SCALE}"
        )));
    }
    Ok((precision, scale))
}

fn varchar_len(len: u16) -> Result<u16, PluginError> {
    if len > MAX_VARCHAR_CHARS {
        return Err(PluginError::unsupported(format!(
            "VARCHAR({len}) exceeds the {MAX_VARCHAR_CHARS} utf8mb4 characters a row can hold"
        )));
    }
    Ok(len)
}

fn unsupported_type(ty: ColumnType) -> PluginError {
    PluginError::unsupported(format!(
        "the MySQL-family dialects cannot render column type {ty:?}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_double_literals() {
        assert_eq!(float(1.0).unwrap(), "1e0");
        assert_eq!(float(-2.5).unwrap(), "-2.5e0");
        assert_eq!(float(0.1).unwrap(), "1e-1");
        assert_eq!(float(123456.789).unwrap(), "1.23456789e5");
        assert_eq!(float(1e300).unwrap(), "1e300");
        assert_eq!(float(5e-324).unwrap(), "5e-324");
        assert_eq!(float(f64::MAX).unwrap(), "1.7976931348623157e308");
        for v in [
            0.1,
            0.30000000000000004,
            1e-300,
            9007199254740993.0,
            f64::MIN,
        ] {
            assert_eq!(
                float(v).unwrap().parse::<f64>().unwrap().to_bits(),
                v.to_bits()
            );
        }
    }

    #[test]
    fn non_finite_floats_are_unsupported() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(float(v).unwrap_err().kind, ErrorKind::UNSUPPORTED);
        }
    }

    #[test]
    fn decimals_must_be_plain_numbers() {
        for ok in ["0", "-12.50", "+3", "7.", ".25", "-.5", "000123.4500"] {
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
        // 65 significant digits stay exact; 66 would silently become a DOUBLE.
        let digits65 = format!("0000{}", "9".repeat(60)) + ".99999";
        assert_eq!(decimal(&digits65).unwrap(), digits65);
        let digits66 = format!("1{}", "0".repeat(65));
        assert_eq!(decimal(&digits66).unwrap_err().kind, ErrorKind::UNSUPPORTED);
    }

    #[test]
    fn text_reads_the_same_in_every_sql_mode() {
        assert_eq!(text_literal("it's"), "'it''s'");
        assert_eq!(text_literal("\"q\" -- /* */"), "'\"q\" -- /* */'");
        assert_eq!(text_literal("a\\b"), "_utf8mb4 X'615C62'");
        assert_eq!(text_literal("a\0b"), "_utf8mb4 X'610062'");
        assert_eq!(text_literal(""), "''");
    }

    #[test]
    fn identifiers_double_backticks_and_refuse_what_mysql_cannot_name() {
        assert_eq!(ident("a`b").unwrap(), "`a``b`");
        assert_eq!(ident("it's \"odd\"").unwrap(), "`it's \"odd\"`");
        assert_eq!(ident(&"x".repeat(64)).unwrap().len(), 66);
        for bad in ["", "a\0", "trailing ", &"x".repeat(65)] {
            assert_eq!(
                ident(bad).unwrap_err().kind,
                ErrorKind::UNSUPPORTED,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn column_and_cast_types() {
        let dec = ColumnType::Decimal {
            precision: 10,
            scale: 2,
        };
        assert_eq!(column_type(dec).unwrap(), "DECIMAL(10,2)");
        assert_eq!(cast_type(Flavor::Mysql, dec).unwrap(), "DECIMAL(10,2)");
        assert_eq!(
            cast_type(Flavor::Tidb, ColumnType::Varchar { len: 8 }).unwrap(),
            "CHAR(8)"
        );
        assert_eq!(
            cast_type(Flavor::Mariadb, ColumnType::Int).unwrap(),
            "SIGNED"
        );
        assert_eq!(
            cast_type(Flavor::Mariadb, ColumnType::Bool)
                .unwrap_err()
                .kind,
            ErrorKind::UNSUPPORTED
        );
        for (precision, scale, kind) in [
            (0, 0, ErrorKind::INVALID_INPUT),
            (4, 5, ErrorKind::INVALID_INPUT),
            (66, 2, ErrorKind::UNSUPPORTED),
            (40, 31, ErrorKind::UNSUPPORTED),
        ] {
            let ty = ColumnType::Decimal { precision, scale };
            assert_eq!(column_type(ty).unwrap_err().kind, kind, "{ty:?}");
        }
        assert_eq!(
            column_type(ColumnType::Varchar { len: 16_384 })
                .unwrap_err()
                .kind,
            ErrorKind::UNSUPPORTED
        );
        assert_eq!(
            column_type(ColumnType::Varchar { len: 16_383 }).unwrap(),
            "VARCHAR(16383)"
        );
    }
}
