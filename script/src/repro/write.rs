//! Writes a case's `repro.sql`: the set-up, each session's settings that
//! matter, then every statement in the order it ran (a statement that
//! blocked where it was sent, its reply where it came), tagged with its
//! session and annotated with what was observed. [`super::import`] reads it
//! back, the submitted order from its header when it differs.

use super::settings::{classify, RunTraits, Setting};
use super::steps::{execution_steps, statement_order, Step};
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
    /// More header lines (the server's and txlab's versions, the auxiliary
    /// columns left out), each written after `-- `.
    pub notes: &'a [String],
}

fn sql_line(sql: &str) -> String {
    let s = sql.trim_end();
    if s.ends_with(';') {
        s.to_string()
    } else {
        format!("{s};")
    }
}

/// What a statement returned, in a few words for a comment.
pub fn observed_outcome(record: &StatementRecord) -> String {
    match &record.outcome {
        Outcome::NotSubmitted => "not sent (transaction already over)".into(),
        Outcome::NoReply => "no reply".into(),
        Outcome::Done => "ok".into(),
        Outcome::Rows { rows, .. } => format!("{} row(s)", rows.len()),
        Outcome::Affected { rows } => format!("{rows} row(s) affected"),
        Outcome::Error(e) => format!("error: {e}"),
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
    parts.push(observed_outcome(record));
    parts.join("; ")
}

/// A step as a few words: what happened when it was typed.
pub fn step_note(step: Step, history: &History) -> String {
    let Some(record) = history.record(step.at()) else {
        return String::new();
    };
    match step {
        Step::Run(_) | Step::NotSent(_) => observed(record),
        Step::Blocks(_) => {
            let how = match record.blocked.as_ref().map(|b| b.evidence) {
                Some(BlockEvidence::Timeout) => {
                    "blocks (no reply; the lock-wait probe could not confirm a wait)"
                }
                Some(BlockEvidence::Probe) => "blocks: it waits for a lock",
                None => "gets no reply",
            };
            match record.outcome {
                Outcome::NoReply | Outcome::NotSubmitted => format!("{how}; no reply came"),
                _ => format!("{how}; the statements below run meanwhile"),
            }
        }
        Step::Returns(_) => {
            let after = record
                .blocked
                .as_ref()
                .and_then(|b| b.resumed_after)
                .map(|a| format!(" (resumed after {a})"))
                .unwrap_or_default();
            format!("returns now{after}: {}", observed_outcome(record))
        }
    }
}

/// The header comment that gives the pace a case needs.
pub const PACE: &str = "pace:";

/// The header comment that gives the submitted order, when it is not the
/// order the statements are written in.
pub const SUBMITTED_ORDER: &str = "submitted order:";

/// The `repro.sql` text of `case` as `rendered`, annotated from `history`.
pub fn repro_sql(
    header: &ReproHeader<'_>,
    case: &TestCase,
    rendered: &RenderedCase,
    history: &History,
) -> String {
    let steps = execution_steps(case, history);
    let written = statement_order(&steps);
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
    for note in header.notes {
        let _ = writeln!(s, "-- {note}");
    }
    let levels: Vec<String> = case
        .transactions
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{} {}", txn_label(i), t.isolation))
        .collect();
    let _ = writeln!(s, "-- isolation: {}", levels.join(", "));
    if let Some(cluster) = &history.cluster {
        let nodes: Vec<String> = cluster
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{} on node {}", txn_label(i), n + 1))
            .collect();
        let _ = writeln!(
            s,
            "-- cluster of {} nodes: {} (each session connects to its node; the tables are set up through node 1)",
            cluster.node_count,
            nodes.join(", ")
        );
    }
    if written != case.submitted_order {
        let order: Vec<String> = case.submitted_order.iter().map(|a| a.to_string()).collect();
        let _ = writeln!(s, "-- {SUBMITTED_ORDER} {}", order.join(" "));
    }
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
    sessions(&mut s, case, rendered, history);
    let _ = writeln!(
        s,
        "\n-- 3. Run the statements in this order, each in its transaction's session, as they ran.\n--    A statement that blocks waits in its session: go on with the statements after it;\n--    a `returns now` line says when its reply came."
    );
    if let Some(ms) = case.pace_ms {
        let _ = writeln!(
            s,
            "--    Wait {ms} ms after a statement blocks and after each COMMIT or ROLLBACK before the next statement."
        );
    }
    for step in &steps {
        let at = step.at();
        let note = step_note(*step, history);
        match step {
            Step::Returns(_) => {
                let _ = writeln!(s, "--   {at} {note}");
            }
            _ => {
                let sql = &rendered.transactions[at.txn()].statements[at.stmt()];
                let note = if note.is_empty() {
                    String::new()
                } else {
                    format!(": {note}")
                };
                let _ = writeln!(
                    s,
                    "/* {} */ {}  -- {at}{note}",
                    txn_label(at.txn()),
                    sql_line(sql)
                );
            }
        }
    }
    final_state(&mut s, case, rendered, history);
    s
}

/// Section 2: each session's settings that matter, and a comment naming
/// those left out.
fn sessions(s: &mut String, case: &TestCase, rendered: &RenderedCase, history: &History) {
    let _ = writeln!(
        s,
        "-- 2. Open one session per transaction ({}) and set it up:",
        (0..case.transactions.len())
            .map(txn_label)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let run = RunTraits::of(rendered, history);
    let mut left_out: Vec<&str> = Vec::new();
    for (i, t) in rendered.transactions.iter().enumerate() {
        for sql in &t.session.statements {
            match classify(sql, &run) {
                Setting::LeftOut => {
                    if !left_out.contains(&sql.as_str()) {
                        left_out.push(sql);
                    }
                }
                Setting::Semantics | Setting::NeededHere => {
                    let _ = writeln!(s, "/* {} */ {}", txn_label(i), sql_line(sql));
                }
            }
        }
    }
    if !left_out.is_empty() {
        let _ = writeln!(
            s,
            "--    txlab also ran these in every session; left out here, as the server's defaults\n--    are assumed and none changes what this run's statements do:"
        );
        for sql in left_out {
            let _ = writeln!(s, "--      {}", sql_line(sql));
        }
    }
}

/// Section 4: the final state, with the columns of the case as written.
fn final_state(s: &mut String, case: &TestCase, rendered: &RenderedCase, history: &History) {
    let Some(state) = &history.final_state else {
        return;
    };
    let _ = writeln!(s);
    let _ = writeln!(s, "{FINAL_STATE}");
    for t in &state.tables {
        let keep: Vec<usize> = match case.schema.table(&t.table) {
            Some(table) => (0..t.columns.len())
                .filter(|&i| table.column(&t.columns[i]).is_some())
                .collect(),
            None => (0..t.columns.len()).collect(),
        };
        let names: Vec<&str> = keep.iter().map(|&i| t.columns[i].as_str()).collect();
        let _ = writeln!(s, "--   {} ({}):", t.table, names.join(", "));
        if t.rows.is_empty() {
            let _ = writeln!(s, "--     (empty)");
        }
        for r in &t.rows {
            let vals: Vec<String> = keep
                .iter()
                .filter_map(|&i| r.get(i))
                .map(ToString::to_string)
                .collect();
            let _ = writeln!(s, "--     ({})", vals.join(", "));
        }
    }
    for q in &rendered.read_state {
        let _ = writeln!(s, "{}", sql_line(&q.sql));
    }
}

/// The comment before the final state's reads, which the reader stops at.
pub const FINAL_STATE: &str = "-- 4. The final state observed:";
