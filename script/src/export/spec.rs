//! A PostgreSQL isolation-tester spec (src/test/isolation/README of
//! PostgreSQL 14 and later): the set-up in `setup { … }`, the tables dropped
//! in `teardown { … }`, one `session sN` per transaction (`sN` runs `TN`)
//! with one step per statement (`s1a`, `s1b`, …), and one `permutation`
//! listing the steps in the order they ran. A step that blocked and resumed
//! carries the step after which it resumed as its blocking marker,
//! `s2b(s1c)`: the tester detects the wait itself (pg_locks) and reports
//! the step's completion after that step's.
//!
//! A session's `BEGIN ISOLATION LEVEL …` goes in its `setup { … }` block, as
//! PostgreSQL's own specs write it, when the sessions' BEGINs ran first, one
//! session after another; otherwise (and for autocommit transactions, which
//! set their level with `SET SESSION CHARACTERISTICS`) BEGIN is a step of
//! its own. Either way `txlab import` reads the spec back as the case with
//! the order it ran in.

use super::order::{execution_order, resumed_after};
use super::{
    final_state_lines, one_line, origin_line, pace_line, settings, setup_sql, sql_of,
    with_semicolon, ExportError, ExportFormat, ExportInput,
};
use crate::repro::observed;
use std::fmt::Write as _;
use txlab_plugin_api::ir::*;

/// `a`, `b`, …, `z`, `aa`, `ab`, …: the suffix of step `index` (from 0).
fn letters(index: usize) -> String {
    let mut n = index + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII")
}

fn session(txn: usize) -> String {
    format!("s{}", txn + 1)
}

/// A `{ … }` block of statements on one line, as the specs write a
/// session's set-up and its steps, when none spans lines.
fn inline(statements: &[String]) -> String {
    if statements.iter().any(|s| s.contains('\n')) {
        return block(statements);
    }
    let sql: Vec<String> = statements.iter().map(|s| with_semicolon(s)).collect();
    format!("{{ {} }}", sql.join(" "))
}

/// A `{ … }` block of statements, one a line.
fn block(statements: &[String]) -> String {
    let mut s = String::from("{\n");
    for sql in statements {
        let _ = writeln!(s, "  {}", with_semicolon(sql).replace('\n', "\n  "));
    }
    s.push('}');
    s
}

/// Whether each explicit transaction's BEGIN ran first, in the
/// transactions' order: then session set-up blocks can hold them.
fn begins_first(case: &TestCase, order: &[StatementRef]) -> bool {
    let begins: Vec<StatementRef> = case
        .transactions
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.kind == TxnKind::Explicit && t.statements.first() == Some(&Statement::Begin)
        })
        .map(|(i, _)| StatementRef::new(i, 0))
        .collect();
    !begins.is_empty()
        && begins.len()
            == case
                .transactions
                .iter()
                .filter(|t| t.kind == TxnKind::Explicit)
                .count()
        && order.starts_with(&begins)
}

pub(crate) fn write(input: &ExportInput<'_>) -> Result<String, ExportError> {
    let case = input.case;
    let history = input.history;
    let mut all_sql = setup_sql(input)
        .chain(
            input
                .rendered
                .transactions
                .iter()
                .flat_map(|t| &t.statements),
        )
        .chain(
            input
                .rendered
                .transactions
                .iter()
                .flat_map(|t| &t.session.statements),
        );
    if let Some(sql) = all_sql.find(|s| s.contains('}')) {
        return Err(ExportError::Unsupported {
            format: ExportFormat::Spec,
            message: format!("an isolation spec cannot hold a `}}` in its SQL blocks: {sql}"),
        });
    }
    let order = execution_order(case, history);
    let begin_in_setup = begins_first(case, &order);
    // The step that runs `at`; none for a BEGIN in a session's set-up.
    let step_name = |at: StatementRef| {
        let first =
            usize::from(begin_in_setup && case.transactions[at.txn()].kind == TxnKind::Explicit);
        let index = at.stmt().checked_sub(first)?;
        Some(format!("{}{}", session(at.txn()), letters(index)))
    };

    let mut s = String::new();
    let _ = writeln!(s, "# {}", input.lead);
    let _ = writeln!(s, "# {}", origin_line(input));
    if let Some(pace) = pace_line(case) {
        let _ = writeln!(s, "# {pace}");
    }
    let _ = writeln!(
        s,
        "#\n# A PostgreSQL isolation-tester spec (PostgreSQL 14 or later): run it with\n#   isolationtester \"dbname=DB\" < NAME.spec\n# or put it in src/test/isolation/specs/. sN runs transaction TN; the permutation lists\n# the steps in the order they ran, and a step that blocked names the step after which\n# it resumed, as in s2b(s1c)."
    );
    if case.pace_ms.is_some() {
        let _ = writeln!(
            s,
            "# The tester goes on once it sees a blocked step waiting; it has no way to pause\n# after a COMMIT or ROLLBACK, which the pace above asks for."
        );
    }
    let final_state = final_state_lines(history);
    if !final_state.is_empty() {
        let _ = writeln!(s, "# The final state txlab observed:");
        for l in &final_state {
            let _ = writeln!(s, "# {l}");
        }
    }
    let setup: Vec<String> = setup_sql(input).cloned().collect();
    if !setup.is_empty() {
        let _ = writeln!(s, "\nsetup\n{}", block(&setup));
    }
    if !input.rendered.drop.is_empty() {
        let _ = writeln!(s, "\nteardown\n{}", block(&input.rendered.drop));
    }
    for (t, txn) in case.transactions.iter().enumerate() {
        let _ = writeln!(s, "\nsession {}", session(t));
        let mut setup = settings::kept(&input.rendered.transactions[t].session.statements, history);
        let explicit = txn.kind == TxnKind::Explicit;
        if !explicit {
            setup.push(format!(
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {}",
                txn.isolation.sql()
            ));
        }
        let first_step = usize::from(begin_in_setup && explicit);
        if first_step == 1 {
            setup.push(sql_of(input, StatementRef::new(t, 0)).to_string());
        }
        if !setup.is_empty() {
            let _ = writeln!(s, "setup {}", inline(&setup));
        }
        for st in first_step..txn.statements.len() {
            let at = StatementRef::new(t, st);
            let note = history.record(at).map(observed).unwrap_or_default();
            let _ = writeln!(s, "# {at}: {}", one_line(&note));
            let name = step_name(at).expect("a step");
            let _ = writeln!(
                s,
                "step {name} {}",
                inline(&[sql_of(input, at).to_string()])
            );
        }
    }
    let mut steps = Vec::new();
    for &at in &order {
        let Some(mut name) = step_name(at) else {
            continue;
        };
        if let Some(after) = resumed_after(history, at).and_then(step_name) {
            name = format!("{name}({after})");
        }
        steps.push(name);
    }
    let _ = writeln!(s);
    for (i, chunk) in steps.chunks(8).enumerate() {
        let lead = if i == 0 { "permutation" } else { "           " };
        let _ = writeln!(s, "{lead} {}", chunk.join(" "));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn step_suffixes_count_like_spreadsheet_columns() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 701, 702].map(super::letters).to_vec();
        assert_eq!(names, ["a", "b", "z", "aa", "ab", "zz", "aaa"]);
    }
}
