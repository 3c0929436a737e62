//! Findings on disk: one directory per finding with the case (IR), a runnable
//! repro script, the history, the verdict and a short report; after a
//! reduction, the same for the reduced case in `reduced/`.

use super::ReductionReport;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use txlab_plugin_api::ir::*;
use txlab_script::repro::{observed, ReproHeader};

/// What an oracle reported: a bug, or an anomaly the vendor permits. Both are
/// written the same way, findings under `findings/`, anomalies under
/// `anomalies/`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    #[default]
    Finding,
    VendorPermitted,
}

impl ReportKind {
    /// The run directory's subdirectory for reports of this kind.
    pub fn directory(self) -> &'static str {
        match self {
            ReportKind::Finding => "findings",
            ReportKind::VendorPermitted => "anomalies",
        }
    }
}

/// Where a finding came from: which plugins, which pipeline, which case.
#[derive(Clone, Copy)]
pub struct FindingOrigin<'a> {
    pub kind: ReportKind,
    pub oracle: &'a str,
    pub dialect: &'a DialectInfo,
    pub generator: &'a str,
    pub pipeline: &'a Path,
    pub request: CaseRequest,
}

/// Everything known about the case a finding came from.
pub struct FindingInput<'a> {
    pub origin: FindingOrigin<'a>,
    /// The case as the generator made it; `txlab replay` and `txlab reduce`
    /// start from it.
    pub generated: &'a TestCase,
    /// The case as it ran, after the oracles' `prepare`.
    pub case: &'a TestCase,
    pub rendered: &'a RenderedCase,
    pub history: &'a History,
    pub finding: &'a Finding,
}

/// `provenance.json`: where a finding came from, enough to run it again.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Provenance {
    /// A finding or a vendor-permitted anomaly (absent in directories written
    /// before anomalies existed: a finding).
    #[serde(default)]
    pub kind: ReportKind,
    pub oracle: String,
    pub dialect: String,
    pub generator: String,
    /// The pipeline file, absolute when it could be resolved.
    pub pipeline: PathBuf,
    pub run_seed: u64,
    pub case_index: u64,
    pub case_seed: u64,
    pub txlab_version: String,
}

impl Provenance {
    pub fn load(finding_dir: &Path) -> Result<Self, String> {
        read_json(&finding_dir.join("provenance.json"))
    }
}

/// Reads one of a finding's JSON files.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{} is not what txlab wrote: {e}", path.display()))
}

/// Writes the finding (or anomaly) under the run directory's `findings/` (or
/// `anomalies/`) and returns its directory.
pub fn write_finding(run_dir: &Path, input: &FindingInput<'_>) -> std::io::Result<PathBuf> {
    let dir = run_dir.join(input.origin.kind.directory()).join(format!(
        "case-{:06}-{}",
        input.origin.request.index,
        sanitize(input.origin.oracle)
    ));
    // Written beside its place and renamed into it, so that a crash half-way
    // leaves no half-written finding under its final name.
    let partial = dir.with_file_name(format!(
        ".{}.partial",
        dir.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("finding")
    ));
    if partial.exists() {
        std::fs::remove_dir_all(&partial)?;
    }
    if let Err(e) = write_finding_files(&partial, &dir, input) {
        // A full disk: nothing half-written stays behind, and the space it
        // took is free for the summary.
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::rename(&partial, &dir)?;
    Ok(dir)
}

/// Writes a reduction's outcome into a finding's directory. A reduction that
/// kept a case no larger than an earlier one replaces `reduced/` and
/// `reduction.json` and notes the result in `report.md`. Otherwise an earlier
/// reduction stays as it was and `reduction-attempt.json` goes beside it; with
/// no earlier reduction, `reduction.json` and the note say what happened.
pub fn write_reduction(
    finding_dir: &Path,
    report: &ReductionReport,
    reduced: Option<&FindingInput<'_>>,
) -> std::io::Result<()> {
    let reduced_dir = finding_dir.join("reduced");
    let earlier: Option<TestCase> = read_json(&reduced_dir.join("generated.json")).ok();
    let better = |new: &TestCase| {
        earlier.as_ref().is_none_or(|old| {
            (new.statement_count(), new.transactions.len())
                <= (old.statement_count(), old.transactions.len())
        })
    };
    if let Some(case) = &report.unconfirmed {
        // Replayable as it is: the case, and the finding and provenance it
        // should show.
        let dir = finding_dir.join("unconfirmed");
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("generated.json"), json(case)?)?;
        for f in ["provenance.json", "finding.json"] {
            std::fs::copy(finding_dir.join(f), dir.join(f))?;
        }
    }
    let Some(input) = reduced.filter(|r| better(r.generated)) else {
        if earlier.is_some() {
            return std::fs::write(finding_dir.join("reduction-attempt.json"), json(report)?);
        }
        std::fs::write(finding_dir.join("reduction.json"), json(report)?)?;
        return note_reduction(finding_dir, report, false);
    };
    // Written beside the old one and swapped in, so that a failure half-way
    // leaves the earlier reduction whole.
    let fresh = finding_dir.join("reduced.new");
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh)?;
    }
    write_finding_files(&fresh, &reduced_dir, input)?;
    let report_md = fresh.join("report.md");
    let text = std::fs::read_to_string(&report_md)?;
    let (title, rest) = text.split_once('\n').unwrap_or((&text, ""));
    std::fs::write(
        &report_md,
        format!(
            "{title}\n\n> The reduced case of the finding in `..`: {}. `../reduction.json` lists what was removed.\n{rest}",
            report.summary()
        ),
    )?;
    if reduced_dir.exists() {
        std::fs::remove_dir_all(&reduced_dir)?;
    }
    std::fs::rename(&fresh, &reduced_dir)?;
    let _ = std::fs::remove_file(finding_dir.join("reduction-attempt.json"));
    std::fs::write(finding_dir.join("reduction.json"), json(report)?)?;
    note_reduction(finding_dir, report, true)
}

/// The reduction's line at the end of the finding's `report.md`.
fn note_reduction(finding_dir: &Path, report: &ReductionReport, kept: bool) -> std::io::Result<()> {
    let report_md = finding_dir.join("report.md");
    let mut text = std::fs::read_to_string(&report_md)?;
    if let Some(cut) = text.find(REDUCTION_HEADING) {
        text.truncate(cut);
    }
    let _ = writeln!(text, "{REDUCTION_HEADING}\n\n{}.", report.summary());
    if kept {
        let _ = writeln!(
            text,
            "The reduced case, its repro script and report are in `reduced/`; `reduction.json` lists what was removed."
        );
    }
    std::fs::write(report_md, text)
}

const REDUCTION_HEADING: &str = "\n## Reduction";

/// Writes a finding's files into `dir`; `shown_as` is the directory the
/// report names in its commands (where `dir` will be renamed to).
fn write_finding_files(
    dir: &Path,
    shown_as: &Path,
    input: &FindingInput<'_>,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("generated.json"), json(input.generated)?)?;
    std::fs::write(dir.join("case.json"), json(input.case)?)?;
    std::fs::write(dir.join("history.json"), json(input.history)?)?;
    std::fs::write(dir.join("finding.json"), json(input.finding)?)?;
    std::fs::write(
        dir.join("provenance.json"),
        json(&Provenance {
            kind: input.origin.kind,
            oracle: input.origin.oracle.to_string(),
            dialect: input.origin.dialect.name.clone(),
            generator: input.origin.generator.to_string(),
            pipeline: std::fs::canonicalize(input.origin.pipeline)
                .unwrap_or_else(|_| input.origin.pipeline.to_path_buf()),
            run_seed: input.origin.request.run_seed,
            case_index: input.origin.request.index,
            case_seed: input.origin.request.seed,
            txlab_version: env!("CARGO_PKG_VERSION").to_string(),
        })?,
    )?;
    std::fs::write(dir.join("repro.sql"), repro_sql(input))?;
    for file in &input.finding.files {
        std::fs::write(dir.join(oracle_file_name(&file.name)), &file.content)?;
    }
    std::fs::write(dir.join("report.md"), report_md(shown_as, input))?;
    Ok(())
}

fn json<T: Serialize>(value: &T) -> std::io::Result<String> {
    serde_json::to_string_pretty(value).map_err(std::io::Error::other)
}

/// The files txlab itself writes into a finding directory.
const OWN_FILES: &[&str] = &[
    "generated.json",
    "case.json",
    "history.json",
    "finding.json",
    "provenance.json",
    "repro.sql",
    "report.md",
    "reduction.json",
    "reduction-attempt.json",
    "reduced",
    "unconfirmed",
];

/// Where a file an oracle attached goes: its own name made safe (no
/// directories, no leading dot), with `oracle-` in front if it would replace
/// one of txlab's own files.
fn oracle_file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() || OWN_FILES.contains(&safe) {
        format!("oracle-{safe}")
    } else {
        safe.to_string()
    }
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

/// The finding's `repro.sql`, written by the script crate, which reads it
/// back too (`txlab import`).
fn repro_sql(input: &FindingInput<'_>) -> String {
    let lead = match input.origin.kind {
        ReportKind::Finding => format!("txlab finding: {}", input.finding.title),
        ReportKind::VendorPermitted => {
            format!("txlab vendor-permitted anomaly: {}", input.finding.title)
        }
    };
    let header = ReproHeader {
        lead: &lead,
        oracle: input.origin.oracle,
        dialect: &input.origin.dialect.name,
        generator: input.origin.generator,
        request: input.origin.request,
    };
    txlab_script::repro::repro_sql(&header, input.case, input.rendered, input.history)
}

fn report_md(dir: &Path, input: &FindingInput<'_>) -> String {
    let f = input.finding;
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", f.title);
    let _ = writeln!(s, "| | |\n|---|---|");
    let _ = writeln!(s, "| oracle | `{}` |", input.origin.oracle);
    let _ = writeln!(
        s,
        "| dialect | `{}` (driver `{}`) |",
        input.origin.dialect.name, input.origin.dialect.driver
    );
    let _ = writeln!(s, "| generator | `{}` |", input.origin.generator);
    let _ = writeln!(
        s,
        "| seed | run seed {}, case {}, case seed {} |",
        input.origin.request.run_seed, input.origin.request.index, input.origin.request.seed
    );
    match input.origin.kind {
        ReportKind::Finding => {
            let _ = writeln!(s, "\n## Model violated\n\n{}\n", f.model);
            let _ = writeln!(
                s,
                "## Vendor semantics assumed\n\n{}\n",
                f.assumed_semantics
            );
        }
        ReportKind::VendorPermitted => {
            let _ = writeln!(
                s,
                "\nA **vendor-permitted anomaly**: the standard model below forbids it, the vendor's documented semantics allow it. It is not reported as a bug.\n"
            );
            let _ = writeln!(s, "## Standard model violated\n\n{}\n", f.model);
            let _ = writeln!(
                s,
                "## Why the vendor permits it\n\n{}\n",
                f.assumed_semantics
            );
        }
    }
    if !f.files.is_empty() {
        let names: Vec<String> = f
            .files
            .iter()
            .map(|file| format!("`{}`", oracle_file_name(&file.name)))
            .collect();
        let _ = writeln!(s, "Files from the oracle: {}.\n", names.join(", "));
    }
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
        "- `repro.sql` lists the set-up and every session's statements in submitted order.\n- `txlab replay {}` runs this case again and says whether the finding shows.\n- `txlab run {} --seed {} --case {}` generates and runs the original case again.\n- `case.json`, `history.json` and `finding.json` hold the case, what was observed, and the oracle's evidence.",
        dir.display(),
        input.origin.pipeline.display(),
        input.origin.request.run_seed,
        input.origin.request.index
    );
    s
}

/// A finding directory read back: what `txlab replay` and `txlab reduce` need.
pub struct SavedFinding {
    pub dir: PathBuf,
    pub provenance: Provenance,
    /// The case as the generator made it.
    pub generated: TestCase,
    pub finding: Finding,
}

impl SavedFinding {
    /// Reads a finding directory, or the `reduced/` directory inside one.
    pub fn load(dir: &Path) -> Result<Self, String> {
        if !dir.join("provenance.json").exists() {
            return Err(format!(
                "{} is not a finding directory: it has no provenance.json (finding directories are OUT/run-…/findings/case-…)",
                dir.display()
            ));
        }
        let generated: TestCase = read_json(&dir.join("generated.json"))?;
        generated.validate().map_err(|e| {
            format!(
                "{}: the case is invalid: {e}",
                dir.join("generated.json").display()
            )
        })?;
        Ok(SavedFinding {
            dir: dir.to_path_buf(),
            provenance: Provenance::load(dir)?,
            generated,
            finding: read_json(&dir.join("finding.json"))?,
        })
    }

    pub fn request(&self) -> CaseRequest {
        CaseRequest {
            run_seed: self.provenance.run_seed,
            index: self.provenance.case_index,
            seed: self.provenance.case_seed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_files_keep_their_names_but_cannot_escape_or_replace_ours() {
        assert_eq!(oracle_file_name("cycle.dot"), "cycle.dot");
        assert_eq!(oracle_file_name("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(oracle_file_name(".hidden"), "hidden");
        assert_eq!(oracle_file_name("report.md"), "oracle-report.md");
        assert_eq!(oracle_file_name(""), "oracle-");
    }
}
