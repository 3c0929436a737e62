//! What a lock-wait probe returned, for the dialect to read (IR 1.1).

use super::{LockProbe, Value};
use serde::{Deserialize, Serialize};

/// The statement behind [`LockProbe::InnodbStatus`].
pub const INNODB_STATUS_SQL: &str = "SHOW ENGINE INNODB STATUS";

impl LockProbe {
    /// The statement the host runs on its monitor connection for this probe, with
    /// `{session}` still in it: the `Query`'s SQL, or `SHOW ENGINE INNODB STATUS`
    /// for the IR 1.0 variant `InnodbStatus`. `None` for probes that run no SQL.
    pub fn statement(&self) -> Option<&str> {
        match self {
            LockProbe::Query { sql } => Some(sql),
            LockProbe::InnodbStatus => Some(INNODB_STATUS_SQL),
            _ => None,
        }
    }
}

/// The answer of a dialect's lock-wait probe, as the host's monitor connection
/// received it. The host sends it to the dialect that declared the probe, which
/// decides whether the session waits for a lock
/// (`Dialect::read_lock_probe` in the SDK).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LockProbeReading {
    /// The server-side id of the session asked about: what `{session}` stood for
    /// in the probe's SQL (MySQL connection id, PostgreSQL backend pid).
    pub session: String,
    /// The result's column names.
    pub columns: Vec<String>,
    /// The result's rows, in the order the server sent them.
    pub rows: Vec<Vec<Value>>,
}

impl LockProbeReading {
    /// The values of column `name` (compared without regard to ASCII case), one per
    /// row; `None` if the result has no such column.
    pub fn column(&self, name: &str) -> Option<impl Iterator<Item = &Value> + '_> {
        let i = self
            .columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))?;
        Some(self.rows.iter().filter_map(move |r| r.get(i)))
    }

    /// The generic reading, which IR 1.0 applied to every `Query` probe and which a
    /// dialect keeps unless it reads its probe itself: the first value of the first
    /// row says whether the session waits, true when it is true or a non-zero
    /// number (or text that is not `0`, empty, `false`, `f` or `FALSE`, or non-empty
    /// bytes). No row: the probe cannot tell.
    pub fn first_value_answer(&self) -> Option<bool> {
        let row = self.rows.first()?;
        Some(row.first().is_some_and(truthy))
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i != 0,
        Value::Bool(b) => *b,
        Value::Float(f) => *f != 0.0,
        Value::Decimal(s) | Value::Text(s) => {
            !matches!(s.as_str(), "0" | "" | "false" | "f" | "FALSE")
        }
        Value::Bytes(b) => !b.is_empty(),
        Value::Null => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(rows: Vec<Vec<Value>>) -> LockProbeReading {
        LockProbeReading {
            session: "7".into(),
            columns: vec!["waits".into()],
            rows,
        }
    }

    #[test]
    fn the_first_value_decides() {
        use Value::*;
        for (v, expect) in [
            (Int(2), true),
            (Int(0), false),
            (Bool(true), true),
            (Text("t".into()), true),
            (Text("f".into()), false),
            (Decimal("0".into()), false),
            (Float(0.5), true),
            (Bytes(vec![]), false),
            (Null, false),
        ] {
            assert_eq!(
                reading(vec![vec![v.clone(), Int(1)]]).first_value_answer(),
                Some(expect),
                "{v:?}"
            );
        }
        // Later rows and columns say nothing; an empty row says no.
        assert_eq!(
            reading(vec![vec![Int(0)], vec![Int(1)]]).first_value_answer(),
            Some(false)
        );
        assert_eq!(reading(vec![vec![]]).first_value_answer(), Some(false));
    }

    #[test]
    fn no_row_cannot_tell() {
        assert_eq!(reading(vec![]).first_value_answer(), None);
    }

    #[test]
    fn columns_are_found_by_name_in_any_case() {
        let r = LockProbeReading {
            session: "1".into(),
            columns: vec!["Type".into(), "Name".into(), "Status".into()],
            rows: vec![vec![
                Value::Text("InnoDB".into()),
                Value::Text(String::new()),
                Value::Text("text".into()),
            ]],
        };
        let status: Vec<&Value> = r.column("status").unwrap().collect();
        assert_eq!(status, [&Value::Text("text".into())]);
        assert!(r.column("nope").is_none());
    }

    #[test]
    fn probes_name_their_statement() {
        assert_eq!(
            LockProbe::InnodbStatus.statement(),
            Some("SHOW ENGINE INNODB STATUS")
        );
        let q = LockProbe::Query {
            sql: "SELECT {session}".into(),
        };
        assert_eq!(q.statement(), Some("SELECT {session}"));
        assert_eq!(LockProbe::Driver.statement(), None);
        assert_eq!(LockProbe::None.statement(), None);
    }
}
