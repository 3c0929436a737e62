//! A finding's `report.md`: the frame txlab writes around what the oracle
//! explained (its title, lead sentence, model, assumed semantics and
//! explanation) — the versions, the tables, the steps as they ran, and the
//! commands that run the case again, with paths relative to the run
//! directory.

use super::findings::{oracle_file_name, FindingInput, ReportKind};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use txlab_plugin_api::ir::*;
use txlab_script::repro::{execution_steps, step_note, Step};

/// Where the report's commands run from and what they name.
pub(super) struct ReportPaths {
    /// The finding's directory relative to the run directory
    /// (`findings/case-000003-wss`, `…/reduced`).
    pub(super) finding: String,
    /// The pipeline, relative to the run directory where it can be.
    pub(super) pipeline: String,
}

impl ReportPaths {
    /// `dir`, the finding directory's final place under `run_dir`.
    pub(super) fn new(run_dir: &Path, dir: &Path, pipeline: &Path) -> Self {
        let run_dir = absolute(run_dir);
        // `dir` need not exist yet; its parent does.
        let dir = match (dir.parent(), dir.file_name()) {
            (Some(parent), Some(name)) => absolute(parent).join(name),
            _ => absolute(dir),
        };
        let finding = dir
            .strip_prefix(&run_dir)
            .unwrap_or(&dir)
            .to_string_lossy()
            .into_owned();
        ReportPaths {
            finding,
            pipeline: relative_to(&run_dir, pipeline)
                .to_string_lossy()
                .into_owned(),
        }
    }
}

/// `path` resolved (`""` is the current directory), or as it is when it
/// cannot be.
pub fn absolute(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `target` as seen from the directory `base`: `../../configs/x.toml`.
/// Absolute when either cannot be resolved.
pub fn relative_to(base: &Path, target: &Path) -> PathBuf {
    let (Ok(base), Ok(target)) = (std::fs::canonicalize(base), std::fs::canonicalize(target))
    else {
        return target.to_path_buf();
    };
    let b: Vec<Component> = base.components().collect();
    let t: Vec<Component> = target.components().collect();
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    // Nothing but the root in common: the absolute path says more.
    if common <= 1 {
        return target;
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// The exit codes the report documents for its commands.
pub const REPLAY_EXITS: &str = "exits with 1 when it shows it again, 0 when it does not";
pub const RUN_EXITS: &str = "exits with 1 when a finding shows";
pub const RUN_EXITS_ANOMALY: &str =
    "exits with 0, as vendor-permitted anomalies do not count as findings (with `--strict` they do: 1)";
pub const IMPORT_EXITS: &str = "exits with 0";

/// `text` as a Markdown code span, whatever backticks it holds.
pub fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{text}{fence}")
    } else {
        format!("{fence} {text} {fence}")
    }
}

pub(super) fn report_md(paths: &ReportPaths, input: &FindingInput<'_>) -> String {
    let f = input.finding;
    let o = &input.origin;
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", f.title);
    let _ = writeln!(s, "{}\n", sentence(f.lead()));
    let _ = writeln!(s, "| | |\n|---|---|");
    let _ = writeln!(s, "| oracle | `{}` |", o.oracle);
    let _ = writeln!(
        s,
        "| dialect | `{}` (driver `{}`) |",
        o.dialect.name, o.dialect.driver
    );
    let _ = writeln!(
        s,
        "| server | {} |",
        o.server_version.unwrap_or("not recorded")
    );
    let _ = writeln!(s, "| txlab | {} |", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(s, "| generator | `{}` |", o.generator);
    let _ = writeln!(
        s,
        "| seed | run seed {}, case {}, case seed {} |",
        o.request.run_seed, o.request.index, o.request.seed
    );
    if o.kind == ReportKind::VendorPermitted {
        let _ = writeln!(
            s,
            "\nA **vendor-permitted anomaly**: the standard model below forbids it, the vendor's documented semantics allow it. It is not reported as a bug."
        );
    }
    let _ = writeln!(s);
    tables(&mut s, input);
    steps(&mut s, input);
    let _ = writeln!(s, "\n## What differed\n\n{}\n", f.explanation.trim_end());
    if !f.files.is_empty() {
        let names: Vec<String> = f
            .files
            .iter()
            .map(|file| format!("`{}`", oracle_file_name(&file.name)))
            .collect();
        let _ = writeln!(s, "Files from the oracle: {}.\n", names.join(", "));
    }
    let semantics = vendor_semantics(input.case, o.dialect);
    match o.kind {
        ReportKind::Finding => {
            let _ = writeln!(s, "## Model violated\n\n{}\n", f.model);
            let _ = writeln!(s, "## Vendor semantics assumed\n\n{semantics}");
            details(&mut s, "As the oracle applied them", &f.assumed_semantics);
        }
        ReportKind::VendorPermitted => {
            let _ = writeln!(s, "## Standard model violated\n\n{}\n", f.model);
            let _ = writeln!(
                s,
                "## Why the vendor permits it\n\n{}\n",
                f.assumed_semantics.trim_end()
            );
            let _ = writeln!(s, "## Vendor semantics assumed\n\n{semantics}");
        }
    }
    reproduce(&mut s, paths, input);
    s
}

/// A collapsed block (`<details>`) for text most readers skip.
fn details(s: &mut String, summary: &str, text: &str) {
    let _ = writeln!(
        s,
        "<details><summary>{summary}</summary>\n\n{}\n\n</details>\n",
        text.trim_end()
    );
}

/// The lead as a sentence: capitalised, with a full stop.
fn sentence(lead: &str) -> String {
    let lead = lead.trim().trim_end_matches('.');
    let mut chars = lead.chars();
    match chars.next() {
        Some(c) => format!("**{}{}.**", c.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

/// The dialect's profile of each level the case ran at, each fact with the
/// vendor documentation it cites.
fn vendor_semantics(case: &TestCase, dialect: &DialectInfo) -> String {
    let mut levels: Vec<IsolationLevel> = case.transactions.iter().map(|t| t.isolation).collect();
    levels.sort();
    levels.dedup();
    let mut s = format!(
        "The dialect `{}` declares, for the levels this case ran at (each fact with the vendor's documentation):\n\n",
        dialect.name
    );
    for level in levels {
        match dialect.level(level) {
            None => {
                let _ = writeln!(s, "- **{level}**: not described by the dialect");
            }
            Some(l) => {
                let summary = l.summary();
                let facts = summary
                    .split_once(": ")
                    .map_or(summary.as_str(), |(_, rest)| rest);
                let _ = writeln!(s, "- **{level}**: {facts}");
                for note in &l.notes {
                    let _ = writeln!(s, "  - {note}");
                }
                let cited: Vec<&String> = l
                    .references
                    .iter()
                    .filter(|r| !l.notes.iter().any(|n| n.contains(r.as_str())))
                    .collect();
                if !cited.is_empty() {
                    let links: Vec<String> = cited.iter().map(|r| format!("<{r}>")).collect();
                    let _ = writeln!(s, "  - see also {}", links.join(", "));
                }
            }
        }
    }
    s
}

/// The schema and the initial rows, as the repro script creates them.
fn tables(s: &mut String, input: &FindingInput<'_>) {
    let rendered = input.repro.map_or(input.rendered, |r| &r.rendered);
    let _ = writeln!(s, "## Tables\n\n```sql");
    for sql in rendered.create.iter().chain(&rendered.populate) {
        let sql = sql.trim_end();
        let _ = writeln!(s, "{sql}{}", if sql.ends_with(';') { "" } else { ";" });
    }
    let _ = writeln!(s, "```\n");
    if let Some(r) = input.repro {
        let _ = writeln!(
            s,
            "The oracles' auxiliary columns no statement of the case needs are left out here and in `repro.sql`: {} (`case.json` has the case as it ran, with them).\n",
            r.left_out
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// Every statement in the order it ran, and how each transaction ended.
fn steps(s: &mut String, input: &FindingInput<'_>) {
    let history = input.history;
    let rendered = input.repro.map_or(input.rendered, |r| &r.rendered);
    let _ = writeln!(
        s,
        "## Steps as they ran\n\nOne session per transaction; a statement that blocks waits in its session while the next steps run, and its reply comes where it says `returns`:\n"
    );
    for (n, step) in execution_steps(input.case, history).into_iter().enumerate() {
        let at = step.at();
        let note = step_note(step, history);
        match step {
            Step::Returns(_) => {
                let _ = writeln!(s, "{}. `{at}` {note}", n + 1);
            }
            _ => {
                let sql = rendered
                    .transactions
                    .get(at.txn())
                    .and_then(|t| t.statements.get(at.stmt()))
                    .map(String::as_str)
                    .or_else(|| history.record(at).map(|r| r.sql.as_str()))
                    .unwrap_or("?");
                let _ = writeln!(
                    s,
                    "{}. `{at}` {}: {} — {note}",
                    n + 1,
                    txn_label(at.txn()),
                    code(sql.trim())
                );
            }
        }
    }
    let _ = writeln!(s);
    for (i, t) in history.transactions.iter().enumerate() {
        let end = match &t.end {
            TxnEnd::Committed => "committed".to_string(),
            TxnEnd::RolledBack => "rolled back".to_string(),
            TxnEnd::Aborted { by, class } => format!("aborted by {by} ({class})"),
            TxnEnd::Unfinished => "unfinished".to_string(),
        };
        let node = match history.node_of(i) {
            Some(n) => format!(", on node {}", n + 1),
            None => String::new(),
        };
        let _ = writeln!(s, "- {} ({}{node}): {end}", txn_label(i), t.isolation);
    }
}

/// The heading of the commands; `txlab` commands in backticks below it run
/// from the run directory.
pub const REPRODUCE_HEADING: &str = "## Reproduce";

fn reproduce(s: &mut String, paths: &ReportPaths, input: &FindingInput<'_>) {
    let o = &input.origin;
    let (what, run_exits) = match o.kind {
        ReportKind::Finding => ("finding", RUN_EXITS),
        ReportKind::VendorPermitted => ("anomaly", RUN_EXITS_ANOMALY),
    };
    let _ = writeln!(
        s,
        "{REPRODUCE_HEADING}\n\nFrom the run directory (the one that holds `findings/`, `anomalies/` and `summary.json`):\n"
    );
    let _ = writeln!(
        s,
        "- `repro.sql` has the set-up and every statement in the order it ran, for one client session per transaction.\n- `txlab replay {}` runs this case again on its pipeline and says whether the {what} shows; it {REPLAY_EXITS}.\n- `txlab run {} --seed {} --case {}` generates and runs the original case again; it {run_exits}.\n- `txlab import {}/repro.sql --dialect {}` reads the repro script back as a case (JSON on stdout); it {IMPORT_EXITS}.\n- `case.json`, `history.json` and `finding.json` hold the case as it ran, what was observed, and the oracle's evidence.",
        paths.finding,
        paths.pipeline,
        o.request.run_seed,
        o.request.index,
        paths.finding,
        o.dialect.name,
    );
}

/// Replaces the section under `heading` (up to the next `## ` heading) with
/// `body`, or appends it.
pub(super) fn replace_section(text: &str, heading: &str, body: &str) -> String {
    let section = format!("\n{heading}\n");
    let (before, after) = match text.find(&section) {
        Some(start) => {
            let rest = &text[start + section.len()..];
            let end = rest
                .find("\n## ")
                .map_or(text.len(), |e| start + section.len() + e);
            (&text[..start], &text[end..])
        }
        None => (text, ""),
    };
    format!(
        "{}\n{section}\n{}\n{after}",
        before.trim_end(),
        body.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_run_directory() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("out").join("run-1");
        std::fs::create_dir_all(&run).unwrap();
        let pipeline = dir.path().join("configs").join("p.toml");
        std::fs::create_dir_all(pipeline.parent().unwrap()).unwrap();
        std::fs::write(&pipeline, "").unwrap();
        assert_eq!(
            relative_to(&run, &pipeline),
            Path::new("../../configs/p.toml")
        );
        let paths = ReportPaths::new(
            &run,
            &run.join("findings").join("case-000001-wss"),
            &pipeline,
        );
        assert_eq!(paths.finding, "findings/case-000001-wss");
    }

    #[test]
    fn sql_with_backticks_stays_one_code_span() {
        assert_eq!(code("SELECT 1"), "`SELECT 1`");
        assert_eq!(code("SELECT * FROM `t`"), "`` SELECT * FROM `t` ``");
    }

    #[test]
    fn a_section_is_replaced_in_place_or_appended() {
        let text = "# T\n\n## A\n\nold\n\n## B\n\nb\n";
        let once = replace_section(text, "## A", "new");
        assert_eq!(once, "# T\n\n## A\n\nnew\n\n## B\n\nb\n");
        let added = replace_section(&once, "## C", "c");
        assert_eq!(added, "# T\n\n## A\n\nnew\n\n## B\n\nb\n\n## C\n\nc\n");
        assert_eq!(
            replace_section(&added, "## C", "c2"),
            added.replace("\nc\n", "\nc2\n")
        );
    }
}
