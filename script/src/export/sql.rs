//! The plain script (docs/import.md, "`-- T1:` marked scripts"): the
//! header repro.sql has (levels, pace, generator and case seed), the set-up,
//! each session's settings and isolation level, then every statement marked
//! with its session in the order it ran, with what was observed, and the
//! final state as comments. `txlab import` reads it back as the case with
//! that order as its submitted order.

use super::order::execution_order;
use super::{
    final_state_lines, levels_line, one_line, origin_line, pace_line, settings, setup_sql, sql_of,
    with_semicolon, ExportInput,
};
use crate::repro::observed;
use std::fmt::Write as _;
use txlab_plugin_api::ir::*;

/// `-- T1: SQL;  -- note`, or for SQL that spans lines the note and the
/// marker on lines of their own before it.
fn marked(s: &mut String, session: &str, sql: &str, note: Option<&str>) {
    let sql = with_semicolon(sql);
    if sql.contains('\n') {
        if let Some(note) = note {
            let _ = writeln!(s, "-- {note}");
        }
        let _ = writeln!(s, "-- {session}:\n{sql}");
    } else {
        match note {
            Some(note) => {
                let _ = writeln!(s, "-- {session}: {sql}  -- {note}");
            }
            None => {
                let _ = writeln!(s, "-- {session}: {sql}");
            }
        }
    }
}

pub(crate) fn write(input: &ExportInput<'_>) -> String {
    let case = input.case;
    let history = input.history;
    let mut s = String::new();
    let _ = writeln!(s, "-- {}", input.lead);
    let _ = writeln!(s, "-- {}", origin_line(input));
    let _ = writeln!(s, "-- {}", levels_line(case));
    if let Some(pace) = pace_line(case) {
        let _ = writeln!(s, "-- {pace}");
    }
    let sessions: Vec<String> = (0..case.transactions.len()).map(txn_label).collect();
    let _ = writeln!(
        s,
        "--\n-- Open one session per transaction ({}) and run each statement in the session\n-- its marker names, in the order written: the order the statements ran. When a\n-- statement blocks, go on with the next one. `txlab import` reads this file back.",
        sessions.join(", ")
    );
    if let Some(ms) = case.pace_ms {
        let _ = writeln!(
            s,
            "-- Wait {ms} ms after a statement blocks and after each COMMIT or ROLLBACK."
        );
    }
    let _ = writeln!(s);
    for sql in setup_sql(input) {
        let _ = writeln!(s, "{}", with_semicolon(sql));
    }
    let _ = writeln!(s);
    for (t, rendered) in input.rendered.transactions.iter().enumerate() {
        let setup = &rendered.session.statements;
        for sql in settings::levels(setup)
            .into_iter()
            .chain(settings::kept(setup, history))
        {
            marked(&mut s, &sessions[t], &sql, None);
        }
    }
    for at in execution_order(case, history) {
        let note = history
            .record(at)
            .map(|r| format!("{at}: {}", one_line(&observed(r))));
        marked(
            &mut s,
            &sessions[at.txn()],
            sql_of(input, at),
            note.as_deref(),
        );
    }
    let state = final_state_lines(history);
    if !state.is_empty() {
        let _ = writeln!(s, "\n-- The final state txlab observed:");
        for l in &state {
            let _ = writeln!(s, "-- {l}");
        }
    }
    s
}
