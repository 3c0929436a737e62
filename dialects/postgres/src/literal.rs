//! The lexical pieces: quoted identifiers, literals and type names.

use crate::flavor::Flavor;
use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::sql::{lower_hex, quoted, PlainDecimal};

const LEXICAL_DOC: &str = "https://www.postgresql.org/docs/16/sql-syntax-lexical.html";

/// PostgreSQL keeps at most NAMEDATALEN - 1 = 63 bytes of a name and silently
/// truncates longer ones (sql-syntax-lexical.html, 4.1.1), so two long names can
/// become one.
const POSTGRES_MAX_NAME_BYTES: usize = 63;

/// A double-quoted identifier with embedded quotes doubled (sql-syntax-lexical.html,
/// 4.1.1: "quoted identifiers can contain any character, except the character with
/// code zero").
pub fn ident(flavor: Flavor, name: &str) -> Result<String, PluginError> {
    if name.is_empty() {
        return Err(PluginError::invalid_input(
            "an identifier cannot be empty: \"\" is not a valid name",
        ));
    }
    if name.contains('\0') {
        return Err(PluginError::unsupported(format!(
            "{} cannot name an object with a NUL character: {name:?} ({LEXICAL_DOC})",
            flavor.dbms()
        )));
    }
    if flavor == Flavor::Postgres && name.len() > POSTGRES_MAX_NAME_BYTES {
        return Err(PluginError::unsupported(format!(
            "PostgreSQL would truncate the {}-byte name {name:?} to {POSTGRES_MAX_NAME_BYTES} bytes ({LEXICAL_DOC})",
            name.len()
        )));
    }
    Ok(quoted(name, '"'))
}

/// A value as a literal of the type the IR means.
pub fn literal(value: &Value) -> Result<String, PluginError> {
    Ok(match value {
        Value::Null => "NULL".to_string(),
        // A constant without a point or exponent is an integer, of type bigint when
        // it does not fit in 32 bits (sql-syntax-lexical.html, 4.1.2.6); the parser
        // folds the minus of i64::MIN into the constant, which then fits.
        Value::Int(v) => v.to_string(),
        Value::Float(v) => float(*v),
        Value::Decimal(text) => format!("'{}'::numeric", decimal(text)?),
        Value::Text(text) => text_literal(text)?,
        Value::Bool(v) => if *v { "TRUE" } else { "FALSE" }.to_string(),
        // The hex format of bytea input (https://www.postgresql.org/docs/16/datatype-binary.html,
        // 8.4.1); with standard_conforming_strings on, the backslash reaches it as is.
        Value::Bytes(bytes) => format!("'\\x{}'::bytea", lower_hex(bytes)),
    })
}

/// A double that reads back bit for bit and has type double precision.
///
/// A plain `0.1` is a NUMERIC constant (sql-syntax-lexical.html, 4.1.2.6): it
/// would make `int_column * 0.1` exact decimal arithmetic with a NUMERIC result,
/// where the IR means binary floating point. A string cast to float8 is parsed by
/// float8's own input function, so the value is exactly the double whose shortest
/// text it is, and it compares with DOUBLE PRECISION columns as a double and with
/// NUMERIC columns after PostgreSQL's implicit numeric-to-float8 cast, as any
/// double would. float8 also has literals for the special values
/// (https://www.postgresql.org/docs/16/datatype-numeric.html, 8.1.3).
fn float(v: f64) -> String {
    let text = if v.is_nan() {
        "NaN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        // Debug gives the shortest text that parses back to the same double,
        // "-0.0" included.
        format!("{v:?}")
    };
    format!("'{text}'::float8")
}

/// Exact numerics travel as text; only a plain decimal number may reach the SQL.
/// It is written in the one spelling every numeric parser takes: no plus sign, a
/// digit on both sides of the point or no point at all (`+.5` is `0.5`, `7.` is
/// `7`), which changes neither the value nor the scale.
fn decimal(text: &str) -> Result<String, PluginError> {
    let PlainDecimal {
        negative,
        whole,
        fraction,
    } = PlainDecimal::parse(text)?;
    let minus = if negative { "-" } else { "" };
    let whole = if whole.is_empty() { "0" } else { whole };
    Ok(if fraction.is_empty() {
        format!("{minus}{whole}")
    } else {
        format!("{minus}{whole}.{fraction}")
    })
}

/// A standard string constant: only the single quote is special, and it is doubled
/// (sql-syntax-lexical.html, 4.1.2.1). Backslashes are ordinary characters as long
/// as standard_conforming_strings is on, which the session set-up makes sure of.
fn text_literal(text: &str) -> Result<String, PluginError> {
    if text.contains('\0') {
        // sql-syntax-lexical.html, 4.1.2.2: "The character with the code zero
        // cannot be in a string constant", and text values cannot hold it either.
        return Err(PluginError::unsupported(format!(
            "PostgreSQL text cannot contain the NUL character: {text:?} ({LEXICAL_DOC})"
        )));
    }
    Ok(quoted(text, '\''))
}

/// The declared type of a column, also used as a CAST target.
pub fn type_name(flavor: Flavor, ty: ColumnType) -> Result<String, PluginError> {
    Ok(match ty {
        ColumnType::Int => match flavor {
            Flavor::Postgres => "INTEGER",
            // CockroachDB's INTEGER is INT8 unless default_int_size is 4
            // (https://www.cockroachlabs.com/docs/v24.1/int); INT4 is 32 bits always.
            Flavor::Cockroach => "INT4",
        }
        .to_string(),
        ColumnType::BigInt => "BIGINT".to_string(),
        ColumnType::Double => "DOUBLE PRECISION".to_string(),
        ColumnType::Decimal { precision, scale } => {
            // PostgreSQL accepts precisions 1 to 1000
            // (https://www.postgresql.org/docs/16/datatype-numeric.html, 8.1.2);
            // CockroachDB also refuses a scale above the precision.
            if precision == 0 || scale > precision {
                return Err(PluginError::invalid_input(format!(
                    "NUMERIC({precision},{scale}) needs a precision of at least 1 and a scale no larger than it"
                )));
            }
            format!("NUMERIC({precision},{scale})")
        }
        ColumnType::Varchar { len } => {
            if len == 0 {
                return Err(PluginError::invalid_input(
                    "VARCHAR(0) is not a type: the length must be at least 1",
                ));
            }
            format!("VARCHAR({len})")
        }
        ColumnType::Text => "TEXT".to_string(),
        ColumnType::Bool => "BOOLEAN".to_string(),
        other => {
            return Err(PluginError::unsupported(format!(
                "the {} dialect cannot render column type {other:?}",
                flavor.entry_name()
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_typed_and_exact() {
        assert_eq!(float(1.0), "'1.0'::float8");
        assert_eq!(float(-2.5), "'-2.5'::float8");
        assert_eq!(float(0.1), "'0.1'::float8");
        assert_eq!(float(1e300), "'1e300'::float8");
        assert_eq!(float(5e-324), "'5e-324'::float8");
        assert_eq!(float(-0.0), "'-0.0'::float8");
        assert_eq!(float(f64::NAN), "'NaN'::float8");
        assert_eq!(float(f64::INFINITY), "'Infinity'::float8");
        assert_eq!(float(f64::NEG_INFINITY), "'-Infinity'::float8");
    }

    #[test]
    fn decimals_must_be_plain_numbers() {
        for (ok, written) in [
            ("0", "0"),
            ("-12.50", "-12.50"),
            ("+3", "3"),
            ("7.", "7"),
            (".25", "0.25"),
            ("-.5", "-0.5"),
            ("+.500", "0.500"),
            ("12345678901234567890.123", "12345678901234567890.123"),
        ] {
            assert_eq!(
                literal(&Value::Decimal(ok.into())).unwrap(),
                format!("'{written}'::numeric")
            );
        }
        for bad in [
            "", "-", "+", ".", "-.", "1e5", "1.2.3", "0x10", "1 ", "1;DROP", "NaN", "--1", "+-1",
            "1'",
        ] {
            assert_eq!(
                decimal(bad).unwrap_err().kind,
                ErrorKind::INVALID_INPUT,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn only_quotes_are_escaped() {
        assert_eq!(text_literal("it's").unwrap(), "'it''s'");
        assert_eq!(text_literal("a\\b\\'c").unwrap(), "'a\\b\\''c'");
        assert_eq!(
            text_literal("a\0b").unwrap_err().kind,
            ErrorKind::UNSUPPORTED
        );
        assert_eq!(
            literal(&Value::Bytes(vec![0, 0xab, 0xff])).unwrap(),
            "'\\x00abff'::bytea"
        );
        assert_eq!(literal(&Value::Bytes(vec![])).unwrap(), "'\\x'::bytea");
    }

    #[test]
    fn identifiers_are_quoted_and_checked() {
        assert_eq!(ident(Flavor::Postgres, "a\"b").unwrap(), "\"a\"\"b\"");
        assert_eq!(
            ident(Flavor::Postgres, "a\0").unwrap_err().kind,
            ErrorKind::UNSUPPORTED
        );
        assert_eq!(
            ident(Flavor::Cockroach, "").unwrap_err().kind,
            ErrorKind::INVALID_INPUT
        );
        let longest = "n".repeat(63);
        assert!(ident(Flavor::Postgres, &longest).is_ok());
        // 63 bytes: 31 two-byte letters and one more byte.
        assert!(ident(Flavor::Postgres, &format!("{}x", "é".repeat(31))).is_ok());
        let e = ident(Flavor::Postgres, &"é".repeat(32)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
        assert!(e.message.contains("64-byte"), "{e}");
        assert!(ident(Flavor::Cockroach, &"n".repeat(100)).is_ok());
    }

    #[test]
    fn type_names_differ_only_for_int() {
        let all = sql::COLUMN_TYPES;
        let pg: Vec<String> = all
            .iter()
            .map(|&t| type_name(Flavor::Postgres, t).unwrap())
            .collect();
        let crdb: Vec<String> = all
            .iter()
            .map(|&t| type_name(Flavor::Cockroach, t).unwrap())
            .collect();
        assert_eq!(
            pg,
            [
                "INTEGER",
                "BIGINT",
                "DOUBLE PRECISION",
                "NUMERIC(10,2)",
                "NUMERIC(30,10)",
                "VARCHAR(16)",
                "TEXT",
                "BOOLEAN"
            ]
        );
        assert_eq!(crdb[0], "INT4");
        assert_eq!(pg[1..], crdb[1..]);
        for bad in [
            ColumnType::Decimal {
                precision: 0,
                scale: 0,
            },
            ColumnType::Decimal {
                precision: 2,
                scale: 3,
            },
            ColumnType::Varchar { len: 0 },
        ] {
            assert_eq!(
                type_name(Flavor::Postgres, bad).unwrap_err().kind,
                ErrorKind::INVALID_INPUT,
                "{bad:?}"
            );
        }
    }
}
