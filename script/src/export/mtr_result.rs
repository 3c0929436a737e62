//! What mysqltest prints into a `.result` file, from what txlab observed: a
//! statement's echo, its rows (a tab-separated header of column names, then
//! one tab-separated line per row, `NULL` for NULL), and `ERROR <sqlstate>:
//! <message>` for an error. mysqltest prints nothing for an empty result set
//! and, with warnings disabled, nothing for a statement that returns no rows.
//!
//! Values print as the server sends them in text; txlab keeps them typed,
//! so integers, decimals, text and NULL print exactly, and FLOAT/DOUBLE
//! values in their shortest form, which may differ from the server's
//! (`./mtr --record` rewrites the file from a run).

use txlab_plugin_api::ir::*;

/// A value as the MySQL text protocol shows it.
pub(crate) fn value(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float(*f),
        Value::Decimal(d) => d.clone(),
        Value::Text(t) => t.clone(),
        Value::Bool(b) => if *b { "1" } else { "0" }.into(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// A double the way MariaDB prints one: the shortest digits that read back,
/// in exponent form below 1e-4 and from 1e15 on.
fn float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let exponent = f.abs().log10().floor();
    if !(-5.0..15.0).contains(&exponent) {
        let s = format!("{f:e}");
        // Rust writes 1e20 and 1.5e-7; MariaDB 1e20 and 1.5e-7 as well.
        return s;
    }
    let s = format!("{f}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// What mysqltest prints for an outcome after the statement's echo.
pub(crate) fn outcome(o: &Outcome) -> String {
    match o {
        Outcome::Rows { columns, rows } if !rows.is_empty() => {
            let mut s = columns.join("\t");
            s.push('\n');
            for r in rows {
                let vals: Vec<String> = r.iter().map(value).collect();
                s.push_str(&vals.join("\t"));
                s.push('\n');
            }
            s
        }
        Outcome::Error(e) => format!(
            "ERROR {}: {}\n",
            e.sqlstate.as_deref().unwrap_or("HY000"),
            e.message
        ),
        _ => String::new(),
    }
}

/// The `--error` line's codes for an outcome that failed: success or the
/// error seen, so that the test runs either way and its output shows which.
pub(crate) fn expected_error(o: &Outcome) -> Option<String> {
    let e = o.error()?;
    let code = match (e.code, e.class) {
        (Some(code), _) => code.to_string(),
        // The client's own codes: server gone (2006), lost during the query (2013).
        (None, ErrorClass::ConnectionLost) => "2006,2013".into(),
        (None, _) => format!("S{}", e.sqlstate.as_deref()?),
    };
    Some(format!("0,{code}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_the_server_sends_them() {
        assert_eq!(value(&Value::Int(-3)), "-3");
        assert_eq!(value(&Value::Null), "NULL");
        assert_eq!(value(&Value::Text("a b".into())), "a b");
        assert_eq!(value(&Value::Decimal("1.50".into())), "1.50");
        assert_eq!(value(&Value::Float(1.5)), "1.5");
        assert_eq!(value(&Value::Float(2.0)), "2");
        assert_eq!(value(&Value::Float(1e20)), "1e20");
        assert_eq!(value(&Value::Bool(true)), "1");
    }

    #[test]
    fn empty_results_print_nothing_and_errors_their_state() {
        let empty = Outcome::Rows {
            columns: vec!["a".into()],
            rows: vec![],
        };
        assert_eq!(outcome(&empty), "");
        let rows = Outcome::Rows {
            columns: vec!["a".into(), "b".into()],
            rows: vec![vec![Value::Int(1), Value::Null]],
        };
        assert_eq!(outcome(&rows), "a\tb\n1\tNULL\n");
        let deadlock = Outcome::Error(DbError {
            class: ErrorClass::Deadlock,
            scope: ErrorScope::Transaction,
            code: Some(1213),
            sqlstate: Some("40001".into()),
            message: "Deadlock found when trying to get lock; try restarting transaction".into(),
        });
        assert_eq!(
            outcome(&deadlock),
            "ERROR 40001: Deadlock found when trying to get lock; try restarting transaction\n"
        );
        assert_eq!(expected_error(&deadlock).as_deref(), Some("0,1213"));
        assert_eq!(expected_error(&Outcome::Done), None);
    }
}
