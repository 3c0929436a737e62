//! The page of run directories that are incomplete, empty or long.

use super::page::MAX_SECTIONS;
use super::*;

fn mkdir(path: &Path) {
    std::fs::create_dir_all(path).unwrap();
}

#[test]
fn a_directory_that_is_not_a_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = render(dir.path()).unwrap_err();
    assert!(matches!(e, HtmlError::NotARunDir(_)), "{e}");
    assert!(e.to_string().contains("is not a run directory"));
    assert!(!dir.path().join(INDEX).exists());
}

/// A run killed before its summary, with an anomaly whose files are
/// missing: the page says what it lacks and shows what there is.
#[test]
fn a_run_without_summary_shows_the_reports_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("anomalies/case-000004-isorel");
    mkdir(&report);
    std::fs::write(report.join("history.json"), "{ not json").unwrap();
    std::fs::write(report.join("repro.sql"), "SELECT '<b>';\n").unwrap();
    let html = render(dir.path()).unwrap();
    assert!(html.contains("No summary: cannot read"), "{html}");
    assert!(html.contains(
        r#"data-kind="anomalies"><span class="n">1</span><span class="label">vendor-permitted anomalies"#
    ));
    assert!(html.contains(r##"<a href="#r-anomalies-case-000004-isorel">anomalies/case-000004-isorel (finding.json unreadable)</a>"##));
    assert!(html.contains("history.json is not what txlab wrote"));
    assert!(html.contains("SELECT &#39;&lt;b&gt;&#39;;"));
    assert!(!html.contains("<svg class=\"timeline\""));
}

#[test]
fn a_run_without_reports_shows_its_counts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("summary.json"),
        r#"{"seed": 5, "cases": 12, "passed": 12, "stopped_early": "the server went away"}"#,
    )
    .unwrap();
    let path = write_index(dir.path()).unwrap();
    assert_eq!(path, dir.path().join(INDEX));
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.contains(r#"data-kind="cases"><span class="n">12</span>"#));
    assert!(html.contains(r#"data-kind="findings"><span class="n">0</span>"#));
    assert!(html.contains("Stopped early: the server went away"));
    assert!(html.contains("<h2>Findings and anomalies (0)</h2>\n<p>None in this run.</p>"));
    // Written whole: nothing beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn a_long_run_links_the_reports_past_the_sections_to_their_report_md() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("summary.json"), "{}").unwrap();
    let n = MAX_SECTIONS + 2;
    for i in 0..n {
        mkdir(&dir.path().join(format!("anomalies/case-{i:06}-troc")));
    }
    let html = render(dir.path()).unwrap();
    assert_eq!(html.matches("<tr data-kind=\"anomaly\"").count(), n);
    assert_eq!(
        html.matches("<section class=\"report").count(),
        MAX_SECTIONS
    );
    let last = format!("case-{:06}-troc", n - 1);
    assert!(html.contains(&format!("<a href=\"anomalies/{last}/report.md\">")));
    assert!(!html.contains(&format!("id=\"r-anomalies-{last}\"")));
    assert!(html.contains("the other 2 link to their report.md"));
}
