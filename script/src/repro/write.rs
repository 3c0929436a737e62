//! Writes a case's `repro.sql`: the set-up, each session's set-up, then every
//! statement in submitted order, tagged with its session and annotated with
//! what was observed. [`super::import`] reads it back.

use std::fmt::Write as _;
use txlab_plugin_api::ir::*;

/// Where the case came from, for the header.
#[derive(Clone, Copy, Debug)]
pub struct ReproHeader<'a> {
    /// The first line after `-- `: what the script shows, e.g. `txlab
    /// finding: <title>`.
    pub lead: &'a str,
    pub oracle: &'a str,
    pub dialect: &'a str,
    pub generator: &'a str,
    pub request: CaseRequest,
}

fn sql_line(sql: &str) -> String {
    let s = sql.trim_end();
    if s.ends_with(';') {
        s.to_string()
    } else {
        format!("{s};")
    }
}

/// What happened to a statement, in a few words for a comment.
pub fn observed(record: &StatementRecord) -> String {
    let mut parts = Vec::new();
    if let Some(b) = &record.blocked {
        let mut s = "blocked".to_string();
        if b.evidence == BlockEvidence::Timeout {
            s.push_str(" (by timeout, unconfirmed)");
        }
        if let Some(after) = b.resumed_after {
            s.push_str(&format!(", resumed after {after}"));
        }
        parts.push(s);
    }
    parts.push(match &record.outcome {
        Outcome::NotSubmitted => "not sent (transaction already over)".into(),
        Outcome::NoReply => "no reply".into(),
        Outcome::Done => "ok".into(),
        Outcome::Rows { rows, .. } => format!("{} row(s)", rows.len()),
        Outcome::Affected { rows } => format!("{rows} row(s) affected"),
        Outcome::Error(e) => format!("error: {e}"),
    });
    parts.join("; ")
}

/// The header comment that gives the pace a case needs.
pub const PACE: &str = "pace:";

/// The `repro.sql` text of `case` as `rendered`, annotated from `history`.
pub fn repro_sql(
    header: &ReproHeader<'_>,
    case: &TestCase,
    rendered: &RenderedCase,
    history: &History,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "-- {}", header.lead);
    let _ = writeln!(
        s,
        "-- oracle {}, dialect {}, generator {}; run seed {}, case {} (case seed {})",
        header.oracle,
        header.dialect,
        header.generator,
        header.request.run_seed,
        header.request.index,
        header.request.seed
    );
    let levels: Vec<String> = case
        .transactions
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{} {}", txn_label(i), t.isolation))
        .collect();
    let _ = writeln!(s, "-- isolation: {}", levels.join(", "));
    if let Some(ms) = case.pace_ms {
        let _ = writeln!(
            s,
            "-- {PACE} {ms} ms after each statement that blocked and after each COMMIT or ROLLBACK (the finding showed only at this pace)"
        );
    }
    let _ = writeln!(s, "--");
    let _ = writeln!(s, "-- 1. Set up the tables (one session, once):");
    for sql in rendered.create.iter().chain(&rendered.populate) {
        let _ = writeln!(s, "{}", sql_line(sql));
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "-- 2. Open one session per transaction ({}).",
        (0..case.transactions.len())
            .map(txn_label)
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (i, t) in rendered.transactions.iter().enumerate() {
        for sql in &t.session.statements {
            let _ = writeln!(s, "/* {} */ {}", txn_label(i), sql_line(sql));
        }
    }
    let _ = writeln!(
        s,
        "-- 3. Run the statements in this order, each in its transaction's session. When a\n--    statement blocks, go on with the next statement of another session."
    );
    if let Some(ms) = case.pace_ms {
        let _ = writeln!(
            s,
            "--    Wait {ms} ms after a statement blocks and after each COMMIT or ROLLBACK before the next statement."
        );
    }
    for at in &case.submitted_order {
        let sql = &rendered.transactions[at.txn()].statements[at.stmt()];
        let note = history.record(*at).map(observed).unwrap_or_default();
        let _ = writeln!(
            s,
            "/* {} */ {}  -- {at}: {note}",
            txn_label(at.txn()),
            sql_line(sql)
        );
    }
    if let Some(state) = &history.final_state {
        let _ = writeln!(s);
        let _ = writeln!(s, "{FINAL_STATE}");
        for t in &state.tables {
            let _ = writeln!(s, "--   {} ({}):", t.table, t.columns.join(", "));
            if t.rows.is_empty() {
                let _ = writeln!(s, "--     (empty)");
            }
            for r in &t.rows {
                let vals: Vec<String> = r.iter().map(ToString::to_string).collect();
                let _ = writeln!(s, "--     ({})", vals.join(", "));
            }
        }
        for q in &rendered.read_state {
            let _ = writeln!(s, "{}", sql_line(&q.sql));
        }
    }
    s
}

/// The comment before the final state's reads, which the reader stops at.
pub const FINAL_STATE: &str = "-- 4. The final state observed:";
