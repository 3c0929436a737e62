//! Rendered cases and session set-ups as text to review in snapshots: one
//! section per field, one line per statement.

use txlab_plugin_api::prelude::*;

/// Every section of `rendered` but the session checks, for dialects that set
/// sessions up without checks.
pub fn rendered_case(rendered: &RenderedCase) -> String {
    describe(rendered, None)
}

/// Every section of `rendered`, each session check on a line of `check_line`.
pub fn rendered_case_with_checks(
    rendered: &RenderedCase,
    check_line: impl Fn(&SessionCheck) -> String,
) -> String {
    describe(rendered, Some(&check_line))
}

fn describe(r: &RenderedCase, check_line: Option<&dyn Fn(&SessionCheck) -> String>) -> String {
    let mut out = String::new();
    let mut section = |name: &str, lines: &[String]| {
        out.push_str(name);
        out.push_str(":\n");
        for l in lines {
            out.push_str("  ");
            out.push_str(l);
            out.push('\n');
        }
    };
    section("create", &r.create);
    section("populate", &r.populate);
    section("clear", &r.clear);
    section("drop", &r.drop);
    for (i, t) in r.transactions.iter().enumerate() {
        let label = txn_label(i);
        section(&format!("{label} session setup"), &t.session.statements);
        if let Some(check_line) = check_line {
            let checks: Vec<String> = t.session.checks.iter().map(check_line).collect();
            section(&format!("{label} session checks"), &checks);
        }
        section(&format!("{label} statements"), &t.statements);
    }
    let reads: Vec<String> = r
        .read_state
        .iter()
        .map(|q| format!("{} {:?}: {}", q.table, q.columns, q.sql))
        .collect();
    section("read state", &reads);
    out
}

/// A session set-up as indented lines: its statements, then each check as
/// `check_line` writes it.
pub fn session_setup_lines(
    setup: &SessionSetup,
    check_line: impl Fn(&SessionCheck) -> String,
) -> Vec<String> {
    let statements = setup.statements.iter().map(|s| format!("  {s}"));
    let checks = setup.checks.iter().map(|c| format!("  {}", check_line(c)));
    statements.chain(checks).collect()
}
