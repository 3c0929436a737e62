//! Pieces that dialects build identifiers and literals from. Each DBMS decides
//! which of them apply; these only get the common parts exactly right.

use crate::sdk::PluginError;
use std::fmt::Write;

/// `text` between two `quote` characters, each `quote` inside it doubled: the
/// escape standard SQL uses both for string constants (`'it''s'`) and for
/// delimited identifiers (`"a""b"`), and MySQL for backtick names.
pub fn quoted(text: &str, quote: char) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        if c == quote {
            out.push(quote);
        }
        out.push(c);
    }
    out.push(quote);
    out
}

/// Bytes as hexadecimal digits, `A`–`F` in capitals (the `X'…'` literals of
/// SQLite and MySQL).
pub fn upper_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        write!(out, "{b:02X}").expect("writing to a String cannot fail");
    }
    out
}

/// Bytes as hexadecimal digits, `a`–`f` in small letters (PostgreSQL's bytea
/// hex format prints them so).
pub fn lower_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        write!(out, "{b:02x}").expect("writing to a String cannot fail");
    }
    out
}

/// `v` if it is finite; otherwise the error of a DBMS (named `dbms`) that has
/// no literal for NaN or the infinities.
pub fn finite_float(v: f64, dbms: &str) -> Result<f64, PluginError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(PluginError::unsupported(format!(
            "{dbms} has no literal for the floating-point value {v}"
        )))
    }
}

pub use crate::ir::PlainDecimal;

impl<'a> PlainDecimal<'a> {
    /// [`PlainDecimal::split`], refusing anything else with an error that
    /// quotes the text.
    pub fn parse(text: &'a str) -> Result<Self, PluginError> {
        PlainDecimal::split(text).ok_or_else(|| {
            PluginError::invalid_input(format!("`{text}` is not a plain decimal number"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::ErrorKind;

    #[test]
    fn quotes_are_doubled_and_nothing_else_changes() {
        assert_eq!(quoted("it's", '\''), "'it''s'");
        assert_eq!(quoted("a\"b", '"'), "\"a\"\"b\"");
        assert_eq!(quoted("a`b's", '`'), "`a``b's`");
        assert_eq!(quoted("", '\''), "''");
        assert_eq!(quoted("é\\\0", '\''), "'é\\\0'");
    }

    #[test]
    fn hex_in_both_cases() {
        assert_eq!(upper_hex(&[0, 0xab, 0xff]), "00ABFF");
        assert_eq!(lower_hex(&[0, 0xab, 0xff]), "00abff");
        assert_eq!(upper_hex(&[]), "");
    }

    #[test]
    fn only_finite_floats_have_literals() {
        assert_eq!(finite_float(-0.5, "X").unwrap(), -0.5);
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = finite_float(v, "SomeDB").unwrap_err();
            assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
            assert!(e.message.starts_with("SomeDB has no literal"), "{e}");
        }
    }

    #[test]
    fn plain_decimals_split_into_sign_and_digits() {
        let parts = |text| {
            let d = PlainDecimal::parse(text).unwrap();
            (d.negative, d.whole, d.fraction)
        };
        assert_eq!(parts("0"), (false, "0", ""));
        assert_eq!(parts("-12.50"), (true, "12", "50"));
        assert_eq!(parts("+3"), (false, "3", ""));
        assert_eq!(parts("7."), (false, "7", ""));
        assert_eq!(parts("-.5"), (true, "", "5"));
        for bad in [
            "", "-", "+", ".", "-.", "1e5", "1.2.3", "0x10", "1 ", "1;DROP", "NaN", "--1", "+-1",
            "1'",
        ] {
            let e = PlainDecimal::parse(bad).unwrap_err();
            assert_eq!(e.kind, ErrorKind::INVALID_INPUT, "{bad:?}");
            assert_eq!(e.message, format!("`{bad}` is not a plain decimal number"));
        }
    }
}
