//! Troc's case file, as its artifact reads one (`--set-case --case-file`;
//! `TableTool.prepareTableFromScanner`, `readTransactionFromScanner`,
//! `readScheduleFromScanner`, `StatementCell` in the artifact, and its
//! `cases/*.txt`): the set-up SQL one statement a line, a blank line; for
//! each of the two transactions its level (`RU`, `RC`, `RR`, `SER`) and its
//! statements one a line, from `BEGIN` to `COMMIT` or `ROLLBACK`, a blank
//! line; the submitted order as the transaction of each position
//! (`1-2-1-1-2-2`); `END`. Troc reads nothing after `END`; txlab writes
//! there what the case is and how to run it.
//!
//! Troc tests two transactions on one table under the pessimistic model
//! (MySQL, MariaDB, TiDB), and reads statements by their text: the first
//! word is the kind (SELECT, UPDATE, DELETE, INSERT, BEGIN, COMMIT,
//! ROLLBACK), `FOR UPDATE`, `FOR SHARE` or `LOCK IN SHARE MODE` ends a
//! locking read, an INSERT is `INSERT INTO t(cols) VALUES (vals)` of one
//! row, and every `;` is removed. So names are written unquoted, and a case
//! Troc cannot read is refused with the reason. Troc runs the submitted
//! order itself, holding a blocked transaction back as txlab does.

use super::{
    final_state_lines, origin_line, pace_line, setup_sql, sql_of, without_semicolon, ExportError,
    ExportFormat, ExportInput,
};
use std::fmt::Write as _;
use txlab_plugin_api::ir::*;

fn refuse(message: impl Into<String>) -> ExportError {
    ExportError::Unsupported {
        format: ExportFormat::Troc,
        message: message.into(),
    }
}

fn alias(level: IsolationLevel) -> Option<&'static str> {
    Some(match level {
        IsolationLevel::ReadUncommitted => "RU",
        IsolationLevel::ReadCommitted => "RC",
        IsolationLevel::RepeatableRead => "RR",
        IsolationLevel::Serializable => "SER",
        _ => return None,
    })
}

/// Words MySQL reserves that a generated case may use as a name; Troc's
/// text reading needs names unquoted, which these cannot be.
const RESERVED: &[&str] = &[
    "add", "all", "and", "as", "asc", "between", "by", "check", "column", "create", "default",
    "delete", "desc", "distinct", "drop", "exists", "for", "from", "group", "having", "in",
    "index", "insert", "into", "is", "join", "key", "like", "limit", "lock", "not", "null", "on",
    "or", "order", "primary", "select", "set", "share", "table", "to", "unique", "update",
    "values", "where",
];

/// `sql` on one line with its backtick-quoted names unquoted, for Troc's
/// text reading; string literals are left as they are.
fn troc_text(sql: &str) -> Result<String, ExportError> {
    let sql = without_semicolon(sql);
    let mut out = String::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\'' {
                        if chars.peek() == Some(&'\'') {
                            out.push(chars.next().expect("peeked"));
                        } else {
                            break;
                        }
                    }
                }
            }
            '`' => {
                let mut name = String::new();
                for d in chars.by_ref() {
                    if d == '`' {
                        break;
                    }
                    name.push(d);
                }
                let plain = name
                    .chars()
                    .next()
                    .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
                    && name.chars().all(|d| d.is_ascii_alphanumeric() || d == '_');
                if !plain || RESERVED.contains(&name.to_lowercase().as_str()) {
                    return Err(refuse(format!(
                        "Troc reads names unquoted, and `{name}` needs quotes"
                    )));
                }
                out.push_str(&name);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    if out.contains(';') {
        return Err(refuse(format!(
            "Troc removes every `;` from a statement, and this one has one in a literal: {out}"
        )));
    }
    Ok(out)
}

/// Refuses a statement Troc cannot read or run.
fn check_statement(case: &TestCase, at: StatementRef) -> Result<(), ExportError> {
    let stmt = case.statement(at).expect("checked shape");
    let what = || format!("{at} ({})", stmt.kind_name());
    if let Some(form) = stmt.query_form() {
        return Err(refuse(format!(
            "{} {form}; Troc reads single-table statements without subqueries",
            what()
        )));
    }
    match stmt {
        Statement::Begin
        | Statement::Commit
        | Statement::Rollback
        | Statement::Select(_)
        | Statement::Update(_)
        | Statement::Delete(_) => Ok(()),
        Statement::Insert(insert) => {
            if insert.rows.len() != 1 {
                return Err(refuse(format!(
                    "{} inserts {} rows; Troc reads an INSERT of one row",
                    what(),
                    insert.rows.len()
                )));
            }
            if insert.columns.is_empty() {
                return Err(refuse(format!(
                    "{} names no columns; Troc reads `INSERT INTO t(cols) VALUES (vals)`",
                    what()
                )));
            }
            if insert.on_conflict == OnConflict::Replace {
                return Err(refuse(format!(
                    "{} replaces rows; Troc has no REPLACE",
                    what()
                )));
            }
            Ok(())
        }
        _ => Err(refuse(format!(
            "{}: Troc reads SELECT, SELECT … FOR UPDATE / FOR SHARE, UPDATE, DELETE and INSERT",
            what()
        ))),
    }
}

pub(crate) fn write(input: &ExportInput<'_>) -> Result<String, ExportError> {
    let case = input.case;
    if case.transactions.len() != 2 {
        return Err(refuse(format!(
            "the case has {} transactions; Troc tests a pair",
            case.transactions.len()
        )));
    }
    let [table] = case.schema.tables.as_slice() else {
        return Err(refuse(format!(
            "the case has {} tables; Troc tests one",
            case.schema.tables.len()
        )));
    };
    let mut s = String::new();
    for sql in setup_sql(input) {
        let _ = writeln!(s, "{}", troc_text(sql)?);
    }
    for (t, txn) in case.transactions.iter().enumerate() {
        let level = alias(txn.isolation).ok_or_else(|| {
            refuse(format!(
                "{} runs at {}; Troc knows RU, RC, RR and SER",
                txn_label(t),
                txn.isolation
            ))
        })?;
        let shape_ok = txn.kind == TxnKind::Explicit
            && txn.statements.first() == Some(&Statement::Begin)
            && txn.statements.last().is_some_and(Statement::is_end);
        if !shape_ok {
            return Err(refuse(format!(
                "{} is not BEGIN … COMMIT or ROLLBACK; Troc's transactions are",
                txn_label(t)
            )));
        }
        let _ = writeln!(s, "\n{level}");
        for (i, stmt) in txn.statements.iter().enumerate() {
            let at = StatementRef::new(t, i);
            check_statement(case, at)?;
            let text = match stmt {
                Statement::Begin => "BEGIN".to_string(),
                Statement::Commit => "COMMIT".to_string(),
                Statement::Rollback => "ROLLBACK".to_string(),
                _ => troc_text(sql_of(input, at))?,
            };
            let _ = writeln!(s, "{text}");
        }
    }
    let schedule: Vec<String> = case
        .submitted_order
        .iter()
        .map(|at| (at.txn() + 1).to_string())
        .collect();
    let _ = writeln!(s, "\n{}\nEND\n", schedule.join("-"));
    let dbms = match input.dialect {
        "mariadb" | "tidb" => input.dialect,
        "galera" => "mariadb",
        _ => "mysql",
    };
    let _ = writeln!(s, "{}", input.lead);
    let _ = writeln!(s, "{}", origin_line(input));
    if let Some(pace) = pace_line(input.case) {
        let _ = writeln!(
            s,
            "{pace}; Troc has no pauses: it waits 1 s for a statement before it counts it blocked"
        );
    }
    let _ = writeln!(
        s,
        "\nTroc's case file: Troc reads it up to END. Run it with\n  java -jar troc.jar --dbms {dbms} --set-case --case-file NAME.txt --table {} --db DB\nTroc drops and creates database DB (`test` by default) and table {}; it adds its row-id column `rid`.\nThe schedule is the submitted order (the transaction of each statement); Troc holds a blocked\ntransaction's later statements back itself.",
        table.name, table.name
    );
    let state = final_state_lines(input.history);
    if !state.is_empty() {
        let _ = writeln!(s, "\nThe final state txlab observed:");
        for l in &state {
            let _ = writeln!(s, "{l}");
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_their_quotes_and_literals_keep_theirs() {
        assert_eq!(
            troc_text("UPDATE `t0` SET `c1` = 'a`b''c' WHERE `c0` = 1;").unwrap(),
            "UPDATE t0 SET c1 = 'a`b''c' WHERE c0 = 1"
        );
        assert!(troc_text("SELECT `order` FROM `t`").is_err());
        assert!(troc_text("SELECT `a b` FROM `t`").is_err());
        assert!(troc_text("INSERT INTO `t` (`a`) VALUES ('x;y')").is_err());
        assert_eq!(troc_text("SELECT *\nFROM `t`").unwrap(), "SELECT * FROM t");
    }
}
