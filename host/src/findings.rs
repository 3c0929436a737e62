//! Findings on disk: one directory per finding with the case (IR), a runnable
//! repro script, the history, the verdict and a short report.

use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use txlab_plugin_api::ir::*;

/// Everything known about the case a finding came from.
pub struct FindingInput<'a> {
    pub oracle: &'a str,
    pub dialect: &'a DialectInfo,
    pub generator: &'a str,
    pub pipeline: &'a Path,
    pub request: CaseRequest,
    pub case: &'a TestCase,
    pub rendered: &'a RenderedCase,
    pub history: &'a History,
    pub finding: &'a Finding,
}

#[derive(Serialize)]
struct Provenance<'a> {
    oracle: &'a str,
    dialect: &'a str,
    generator: &'a str,
    pipeline: String,
    run_seed: u64,
    case_index: u64,
    case_seed: u64,
    txlab_version: &'static str,
}

/// Writes the finding under `findings_dir` and returns its directory.
pub fn write_finding(findings_dir: &Path, input: &FindingInput<'_>) -> std::io::Result<PathBuf> {
    let dir = findings_dir.join(format!(
        "case-{:06}-{}",
        input.request.index,
        sanitize(input.oracle)
    ));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("case.json"), json(input.case)?)?;
    std::fs::write(dir.join("history.json"), json(input.history)?)?;
    std::fs::write(dir.join("finding.json"), json(input.finding)?)?;
    std::fs::write(
        dir.join("provenance.json"),
        json(&Provenance {
            oracle: input.oracle,
            dialect: &input.dialect.name,
            generator: input.generator,
            pipeline: input.pipeline.display().to_string(),
            run_seed: input.request.run_seed,
            case_index: input.request.index,
            case_seed: input.request.seed,
            txlab_version: env!("CARGO_PKG_VERSION"),
        })?,
    )?;
    std::fs::write(dir.join("repro.sql"), repro_sql(input))?;
    std::fs::write(dir.join("report.md"), report_md(input))?;
    Ok(dir)
}

fn json<T: Serialize>(value: &T) -> std::io::Result<String> {
    serde_json::to_string_pretty(value).map_err(std::io::Error::other)
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
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
fn observed(record: &StatementRecord) -> String {
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

fn repro_sql(input: &FindingInput<'_>) -> String {
    let mut s = String::new();
    let case = input.case;
    let _ = writeln!(s, "-- txlab finding: {}", input.finding.title);
    let _ = writeln!(
        s,
        "-- oracle {}, dialect {}, generator {}; run seed {}, case {} (case seed {})",
        input.oracle,
        input.dialect.name,
        input.generator,
        input.request.run_seed,
        input.request.index,
        input.request.seed
    );
    let levels: Vec<String> = case
        .transactions
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{} {}", txn_label(i), t.isolation))
        .collect();
    let _ = writeln!(s, "-- isolation: {}", levels.join(", "));
    let _ = writeln!(s, "--");
    let _ = writeln!(s, "-- 1. Set up the tables (one session, once):");
    for sql in input.rendered.create.iter().chain(&input.rendered.populate) {
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
    for (i, t) in input.rendered.transactions.iter().enumerate() {
        for sql in &t.session.statements {
            let _ = writeln!(s, "/* {} */ {}", txn_label(i), sql_line(sql));
        }
    }
    let _ = writeln!(
        s,
        "-- 3. Run the statements in this order, each in its transaction's session. When a\n--    statement blocks, go on with the next statement of another session."
    );
    for at in &case.submitted_order {
        let sql = &input.rendered.transactions[at.txn()].statements[at.stmt()];
        let note = input.history.record(*at).map(observed).unwrap_or_default();
        let _ = writeln!(
            s,
            "/* {} */ {}  -- {at}: {note}",
            txn_label(at.txn()),
            sql_line(sql)
        );
    }
    if let Some(state) = &input.history.final_state {
        let _ = writeln!(s);
        let _ = writeln!(s, "-- 4. The final state observed:");
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
        for q in &input.rendered.read_state {
            let _ = writeln!(s, "{}", sql_line(&q.sql));
        }
    }
    s
}

fn report_md(input: &FindingInput<'_>) -> String {
    let f = input.finding;
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", f.title);
    let _ = writeln!(s, "| | |\n|---|---|");
    let _ = writeln!(s, "| oracle | `{}` |", input.oracle);
    let _ = writeln!(
        s,
        "| dialect | `{}` (driver `{}`) |",
        input.dialect.name, input.dialect.driver
    );
    let _ = writeln!(s, "| generator | `{}` |", input.generator);
    let _ = writeln!(
        s,
        "| seed | run seed {}, case {}, case seed {} |",
        input.request.run_seed, input.request.index, input.request.seed
    );
    let _ = writeln!(s, "\n## Model violated\n\n{}\n", f.model);
    let _ = writeln!(
        s,
        "## Vendor semantics assumed\n\n{}\n",
        f.assumed_semantics
    );
    let _ = writeln!(s, "## What differed\n\n{}\n", f.explanation.trim_end());
    let _ = writeln!(s, "## Observed schedule\n");
    let _ = writeln!(s, "Statements in the order their replies arrived:\n");
    for at in &input.history.completion_order {
        if let Some(r) = input.history.record(*at) {
            let _ = writeln!(s, "- `{at}` `{}` — {}", r.sql.trim(), observed(r));
        }
    }
    let _ = writeln!(s);
    for (i, t) in input.history.transactions.iter().enumerate() {
        let end = match &t.end {
            TxnEnd::Committed => "committed".to_string(),
            TxnEnd::RolledBack => "rolled back".to_string(),
            TxnEnd::Aborted { by, class } => format!("aborted by {by} ({class})"),
            TxnEnd::Unfinished => "unfinished".to_string(),
        };
        let _ = writeln!(s, "- {} ({}): {end}", txn_label(i), t.isolation);
    }
    let _ = writeln!(s, "\n## Reproduce\n");
    let _ = writeln!(
        s,
        "- `repro.sql` lists the set-up and every session's statements in submitted order.\n- `txlab run {} --seed {} --case {}` runs this case again.\n- `case.json`, `history.json` and `finding.json` hold the case, what was observed, and the oracle's evidence.",
        input.pipeline.display(),
        input.request.run_seed,
        input.request.index
    );
    s
}
