//! Elle's workloads over an SQL table: one row per key. For list-append the
//! value is a text column of comma-separated elements; for read-write
//! registers the same column holds one number, the last value written. The
//! `elle` generator writes its statements with these builders and the
//! stream executor reads them back with [`decode`], so the two agree on the
//! shape by construction.
//!
//! - append `v` to key `k`: `UPDATE t SET v = v || ',7' WHERE k = 3`
//!   (`CONCAT(v, ',7')` in the MySQL family);
//! - write `v` to register `k`: `UPDATE t SET v = '7' WHERE k = 3`;
//! - read key `k`: `SELECT v FROM t WHERE k = 3` (no row or `''`: the empty
//!   list, the register's initial value);
//! - make sure keys exist: `INSERT … IGNORE` / `ON CONFLICT DO NOTHING` of
//!   `(k, '')` rows, which appends nothing and writes no register.

use super::ops::{Mop, MopKind, MopValue, Scalar};
use txlab_plugin_api::ir::*;

/// The key column.
pub const KEY: &str = "k";
/// The list column.
pub const LIST: &str = "v";

/// What one statement of the workload does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SqlMop {
    /// Appends `value` to `key`'s list.
    Append {
        /// The key.
        key: i64,
        /// The element.
        value: i64,
    },
    /// Sets register `key` to `value`.
    Write {
        /// The key.
        key: i64,
        /// The value, unique per key in a run.
        value: i64,
    },
    /// Reads `key`'s whole list, or its register.
    Read {
        /// The key.
        key: i64,
    },
    /// Creates the rows of `keys` that do not exist yet, with empty lists.
    Ensure {
        /// The keys.
        keys: Vec<i64>,
    },
}

/// The table: `k INT PRIMARY KEY, v <text> NOT NULL`.
pub fn table(name: &str, list_type: ColumnType) -> Table {
    Table {
        name: name.to_string(),
        columns: vec![
            Column {
                name: KEY.into(),
                ty: ColumnType::Int,
                not_null: true,
            },
            Column {
                name: LIST.into(),
                ty: list_type,
                not_null: true,
            },
        ],
        primary_key: vec![KEY.into()],
        unique: Vec::new(),
        indexes: Vec::new(),
    }
}

fn key_filter(key: i64) -> Option<Expr> {
    Some(Expr::eq(Expr::column(KEY), Expr::lit(Value::Int(key))))
}

/// The statement that does `mop` on `table`.
pub fn statement(table: &str, mop: &SqlMop) -> Statement {
    match mop {
        SqlMop::Append { key, value } => Statement::Update(Update {
            table: table.into(),
            assignments: vec![Assignment {
                column: LIST.into(),
                value: Expr::Concat(vec![
                    Expr::column(LIST),
                    Expr::lit(Value::Text(format!(",{value}"))),
                ]),
            }],
            filter: key_filter(*key),
        }),
        SqlMop::Write { key, value } => Statement::Update(Update {
            table: table.into(),
            assignments: vec![Assignment {
                column: LIST.into(),
                value: Expr::lit(Value::Text(value.to_string())),
            }],
            filter: key_filter(*key),
        }),
        SqlMop::Read { key } => Statement::Select(Select {
            table: table.into(),
            projection: Projection::Exprs(vec![Expr::column(LIST)]),
            filter: key_filter(*key),
            order_by: Vec::new(),
            lock: RowLock::None,
        }),
        SqlMop::Ensure { keys } => Statement::Insert(Insert {
            table: table.into(),
            columns: vec![KEY.into(), LIST.into()],
            rows: keys
                .iter()
                .map(|&k| {
                    vec![
                        Expr::lit(Value::Int(k)),
                        Expr::lit(Value::Text(String::new())),
                    ]
                })
                .collect(),
            on_conflict: OnConflict::Ignore,
        }),
    }
}

fn filter_key(filter: &Option<Expr>) -> Option<i64> {
    match filter {
        Some(Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        }) => match (&**left, &**right) {
            (Expr::Column(c), Expr::Literal(Value::Int(k))) if c.column == KEY => Some(*k),
            _ => None,
        },
        _ => None,
    }
}

/// What `statement` does, when it is one of the workload's statements on
/// `table`; `None` for anything else (BEGIN, COMMIT, other tables).
pub fn decode(table: &str, statement: &Statement) -> Option<SqlMop> {
    match statement {
        Statement::Update(u) if u.table == table => {
            let key = filter_key(&u.filter)?;
            let [a] = u.assignments.as_slice() else {
                return None;
            };
            if a.column != LIST {
                return None;
            }
            let parts = match &a.value {
                Expr::Concat(parts) => parts,
                Expr::Literal(Value::Text(t)) => {
                    let value = t.parse().ok()?;
                    return Some(SqlMop::Write { key, value });
                }
                _ => return None,
            };
            match parts.as_slice() {
                [Expr::Column(c), Expr::Literal(Value::Text(t))] if c.column == LIST => {
                    let value = t.strip_prefix(',')?.parse().ok()?;
                    Some(SqlMop::Append { key, value })
                }
                _ => None,
            }
        }
        Statement::Select(s) if s.table == table => Some(SqlMop::Read {
            key: filter_key(&s.filter)?,
        }),
        Statement::Insert(i) if i.table == table && i.on_conflict == OnConflict::Ignore => {
            let keys = i
                .rows
                .iter()
                .map(|r| match r.first() {
                    Some(Expr::Literal(Value::Int(k))) => Some(*k),
                    _ => None,
                })
                .collect::<Option<Vec<i64>>>()?;
            Some(SqlMop::Ensure { keys })
        }
        _ => None,
    }
}

/// Why a read's reply is no list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// More than one row for one key.
    #[error("the read returned {0} rows for one key")]
    Rows(usize),
    /// The value is not comma-separated integers.
    #[error("the list `{0}` is not comma-separated integers")]
    Text(String),
}

/// The list a read returned: no row is the empty list, one row's text is
/// split at commas.
pub fn parse_list(rows: &[Vec<Value>]) -> Result<Vec<i64>, ListError> {
    match rows {
        [] => Ok(Vec::new()),
        [row] => {
            let text = match row.first() {
                Some(Value::Text(t)) => t.as_str(),
                Some(Value::Null) | None => "",
                Some(Value::Bytes(b)) => std::str::from_utf8(b)
                    .map_err(|_| ListError::Text(String::from_utf8_lossy(b).into_owned()))?,
                Some(other) => return Err(ListError::Text(other.to_string())),
            };
            text.split(',')
                .filter(|e| !e.is_empty())
                .map(|e| e.trim().parse().map_err(|_| ListError::Text(text.into())))
                .collect()
        }
        more => Err(ListError::Rows(more.len())),
    }
}

/// Which of Elle's workloads a run's statements make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlWorkload {
    /// Appends and reads of whole lists.
    ListAppend,
    /// Writes and reads of registers.
    Register,
}

impl SqlWorkload {
    /// The workload of a micro-op that tells (an append or a write).
    pub fn of(mop: &SqlMop) -> Option<SqlWorkload> {
        match mop {
            SqlMop::Append { .. } => Some(SqlWorkload::ListAppend),
            SqlMop::Write { .. } => Some(SqlWorkload::Register),
            SqlMop::Read { .. } | SqlMop::Ensure { .. } => None,
        }
    }
}

/// An Elle micro-op: `[:append k v]`, `[:w k v]`, or `[:r k list]` (`[:r k
/// v]` for a register, `nil` its initial value). `list` is `None` for an
/// invocation's read, not known yet; a register's read is its list's only
/// element.
pub fn elle_mop(mop: &SqlMop, list: Option<&[i64]>, workload: SqlWorkload) -> Option<Mop> {
    match mop {
        SqlMop::Write { key, value } => Some(Mop {
            f: MopKind::Write,
            key: Scalar::Int(*key),
            value: MopValue::Scalar(Scalar::Int(*value)),
        }),
        SqlMop::Read { key } if workload == SqlWorkload::Register => Some(Mop {
            f: MopKind::Read,
            key: Scalar::Int(*key),
            value: match list {
                Some([v]) => MopValue::Scalar(Scalar::Int(*v)),
                _ => MopValue::Nil,
            },
        }),
        SqlMop::Append { key, value } => Some(Mop {
            f: MopKind::Append,
            key: Scalar::Int(*key),
            value: MopValue::Scalar(Scalar::Int(*value)),
        }),
        SqlMop::Read { key } => Some(Mop {
            f: MopKind::Read,
            key: Scalar::Int(*key),
            value: match list {
                Some(l) => MopValue::List(l.iter().map(|&e| Scalar::Int(e)).collect()),
                None => MopValue::Nil,
            },
        }),
        SqlMop::Ensure { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_decode_to_what_built_them() {
        for mop in [
            SqlMop::Append { key: 3, value: 17 },
            SqlMop::Write { key: 3, value: 18 },
            SqlMop::Read { key: 9 },
            SqlMop::Ensure { keys: vec![1, 2] },
        ] {
            assert_eq!(decode("list", &statement("list", &mop)), Some(mop.clone()));
            assert_eq!(decode("other", &statement("list", &mop)), None);
        }
        assert_eq!(decode("list", &Statement::Commit), None);
    }

    #[test]
    fn lists_parse_from_text() {
        let row = |t: &str| vec![vec![Value::Text(t.into())]];
        assert_eq!(parse_list(&[]), Ok(vec![]));
        assert_eq!(parse_list(&row("")), Ok(vec![]));
        assert_eq!(parse_list(&row(",4,1,9")), Ok(vec![4, 1, 9]));
        assert!(parse_list(&row(",4,x")).is_err());
        assert_eq!(
            parse_list(&[row("")[0].clone(), row("")[0].clone()]),
            Err(ListError::Rows(2))
        );
    }
}
