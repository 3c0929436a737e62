//! Findings on disk: one directory per finding with the case (IR), a runnable
//! repro script, the history, the verdict and a short report; after a
//! reduction, the same for the reduced case in `reduced/`.

use super::labels::labelled_json;
use super::report::{replace_section, report_md, ReportPaths};
use super::ReductionReport;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use txlab_plugin_api::ir::*;
use txlab_script::repro::ReproHeader;

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
    /// The DBMS's version, as the driver read it when the run started.
    pub server_version: Option<&'a str>,
}

/// The case a person reproduces: the case as it ran without the auxiliary
/// columns no statement needs (`txlab_script::repro::without_auxiliary_columns`),
/// rendered by the dialect.
#[derive(Clone, Debug)]
pub struct ReproCase {
    pub case: TestCase,
    pub rendered: RenderedCase,
    /// The columns left out, as `table.column`.
    pub left_out: Vec<String>,
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
    /// The case for `repro.sql` and the report's tables and steps, when it
    /// differs from `case` (auxiliary columns left out).
    pub repro: Option<&'a ReproCase>,
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
    /// The DBMS's version when the run started (absent in directories
    /// written before it was recorded, or where it could not be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
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
    let paths = ReportPaths::new(run_dir, &dir, input.origin.pipeline);
    if let Err(e) = write_finding_files(&partial, &paths, input) {
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
    let paths = ReportPaths::new(run_dir_of(finding_dir), &reduced_dir, input.origin.pipeline);
    write_finding_files(&fresh, &paths, input)?;
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

/// After a finding directory moved within its run directory (from
/// `findings/` to `unconfirmed/`), its reports name the new place in their
/// commands.
pub fn note_move(dir: &Path, from: &str, to: &str) -> std::io::Result<()> {
    for report in [dir.join("report.md"), dir.join("reduced").join("report.md")] {
        if let Ok(text) = std::fs::read_to_string(&report) {
            let moved = text.replace(&format!(" {from}/"), &format!(" {to}/"));
            let moved = moved.replace(&format!(" {from}`"), &format!(" {to}`"));
            std::fs::write(&report, moved)?;
        }
    }
    Ok(())
}

/// The run directory a finding directory (`RUN/findings/case-…`) is in.
pub fn run_dir_of(finding_dir: &Path) -> &Path {
    finding_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(finding_dir)
}

/// The reduction's section of the finding's `report.md`.
fn note_reduction(finding_dir: &Path, report: &ReductionReport, kept: bool) -> std::io::Result<()> {
    let report_md = finding_dir.join("report.md");
    let text = std::fs::read_to_string(&report_md)?;
    let mut body = format!("{}.", report.summary());
    if kept {
        body.push_str(
            "\nThe reduced case, its repro script and report are in `reduced/`; `reduction.json` lists what was removed.",
        );
    }
    std::fs::write(report_md, replace_section(&text, REDUCTION_HEADING, &body))
}

const REDUCTION_HEADING: &str = "## Reduction";

/// Writes a finding's files into `dir`; `paths` are what the report names
/// in its commands (where `dir` will be renamed to).
fn write_finding_files(
    dir: &Path,
    paths: &ReportPaths,
    input: &FindingInput<'_>,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("generated.json"), labelled_json(input.generated)?)?;
    std::fs::write(dir.join("case.json"), labelled_json(input.case)?)?;
    std::fs::write(dir.join("history.json"), labelled_json(input.history)?)?;
    std::fs::write(dir.join("finding.json"), labelled_json(input.finding)?)?;
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
            server_version: input.origin.server_version.map(str::to_string),
        })?,
    )?;
    std::fs::write(dir.join("repro.sql"), repro_sql(input))?;
    for file in &input.finding.files {
        std::fs::write(dir.join(oracle_file_name(&file.name)), &file.content)?;
    }
    std::fs::write(dir.join("report.md"), report_md(paths, input))?;
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
pub(super) fn oracle_file_name(name: &str) -> String {
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
    let mut notes = vec![format!(
        "{}, txlab {}",
        match input.origin.server_version {
            Some(v) => format!("server {v}"),
            None => "server version not recorded".to_string(),
        },
        env!("CARGO_PKG_VERSION")
    )];
    let (case, rendered) = match input.repro {
        Some(r) => {
            notes.push(format!(
                "without the auxiliary columns the oracles added and no statement needs: {} (case.json has them)",
                r.left_out.join(", ")
            ));
            (&r.case, &r.rendered)
        }
        None => (input.case, input.rendered),
    };
    let header = ReproHeader {
        lead: &lead,
        oracle: input.origin.oracle,
        dialect: &input.origin.dialect.name,
        generator: input.origin.generator,
        request: input.origin.request,
        notes: &notes,
    };
    txlab_script::repro::repro_sql(&header, case, rendered, input.history)
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
