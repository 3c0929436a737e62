//! The page: the run's counts from `summary.json`, the table of findings
//! and anomalies, and a section per report with its timeline, dependency
//! cycle, expected and actual rows, reduced case and files.

use super::escape::{anchor, esc, href, Esc};
use super::evidence::{comparisons, Comparisons};
use super::load::{Kind, ReportDir, RunDir};
use super::{cycle, markdown, timeline};
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use txlab_plugin_api::ir::{History, Outcome, RowText};

const STYLE: &str = include_str!("style.css");

/// Reports with a section of their own (about 40 kB each); the table links
/// the others to their `report.md`, so that a long run's page stays a size a
/// browser opens at once.
pub const MAX_SECTIONS: usize = 200;

/// The id of a report's section: `r-findings-case-000012-troc`.
pub fn section_id(r: &ReportDir) -> String {
    format!("r-{}", anchor(&r.rel))
}

fn num(summary: &Json, key: &str) -> Option<u64> {
    summary.get(key).and_then(Json::as_u64)
}

/// A map of counts, largest first.
fn counts(summary: &Json, key: &str) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = summary
        .get(key)
        .and_then(Json::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, n)| Some((k.clone(), n.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The whole page.
pub fn render(run: &RunDir) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>txlab run {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        Esc(&run.name)
    );
    header(&mut s, run);
    s.push_str("<main>\n");
    counts_section(&mut s, run);
    reports_table(&mut s, run);
    for (i, r) in run.reports.iter().take(MAX_SECTIONS).enumerate() {
        report_section(&mut s, r, i);
    }
    let _ = write!(
        s,
        "<footer>Written by txlab {} from the files of the run directory; <code>txlab html {}</code> writes it again.</footer>\n</main>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        Esc(&run.dir.display().to_string())
    );
    s
}

fn header(s: &mut String, run: &RunDir) {
    let _ = write!(
        s,
        "<header class=\"top\"><h1>txlab run<span class=\"run\">{}</span></h1><div class=\"meta\">",
        Esc(&run.name)
    );
    if let Ok(summary) = &run.summary {
        if let Some(seed) = num(summary, "seed") {
            let _ = write!(s, "<span>seed {seed}</span>");
        }
        if let Some(secs) = summary.get("elapsed_secs").and_then(Json::as_f64) {
            let _ = write!(s, "<span>{secs:.1} s</span>");
        }
        // What newer summaries say about the run, where they say it.
        for key in ["dialect", "server_version", "pipeline", "txlab_version"] {
            if let Some(v) = summary.get(key).and_then(Json::as_str) {
                let _ = write!(s, "<span>{}: {}</span>", key.replace('_', " "), Esc(v));
            }
        }
        if summary.get("interrupted").and_then(Json::as_bool) == Some(true) {
            s.push_str("<span>interrupted</span>");
        }
    }
    s.push_str("</div></header>\n");
}

fn card(s: &mut String, kind: &str, n: u64, label: &str, sub: &str) {
    let _ = write!(
        s,
        "<div class=\"count{}\" data-kind=\"{kind}\"><span class=\"n\">{n}</span><span class=\"label\">{}</span>",
        if n == 0 { " zero" } else { "" },
        Esc(label)
    );
    if !sub.is_empty() {
        let _ = write!(s, "<span class=\"sub\">{}</span>", Esc(sub));
    }
    s.push_str("</div>");
}

fn breakdown(s: &mut String, id: &str, caption: &str, rows: &[(String, u64)]) {
    if rows.is_empty() {
        return;
    }
    let _ = write!(
        s,
        "<table class=\"breakdown\" id=\"{id}\"><caption>{}</caption><tbody>",
        Esc(caption)
    );
    for (what, n) in rows {
        let _ = write!(s, "<tr><td>{}</td><td class=\"n\">{n}</td></tr>", Esc(what));
    }
    s.push_str("</tbody></table>");
}

fn counts_section(s: &mut String, run: &RunDir) {
    s.push_str("<section id=\"counts\"><h2>Counts</h2>\n");
    let of = |k: Kind| run.reports.iter().filter(|r| r.kind == k).count() as u64;
    let summary = match &run.summary {
        Ok(summary) => summary,
        Err(why) => {
            let _ = write!(
                s,
                "<p class=\"notice\">No summary: {}. The counts below are the report directories found.</p><div class=\"cards\">",
                Esc(why)
            );
            card(s, "findings", of(Kind::Finding), "findings", "");
            card(
                s,
                "anomalies",
                of(Kind::Anomaly),
                "vendor-permitted anomalies",
                "",
            );
            card(s, "unconfirmed", of(Kind::Unconfirmed), "unconfirmed", "");
            s.push_str("</div></section>\n");
            return;
        }
    };
    if let Some(why) = summary.get("stopped_early").and_then(Json::as_str) {
        let _ = write!(s, "<p class=\"notice\">Stopped early: {}</p>", Esc(why));
    }
    let n = |k: &str| num(summary, k).unwrap_or(0);
    let in_cases = |k: &str| match n(k) {
        1 => "in 1 case".to_string(),
        c => format!("in {c} cases"),
    };
    let oracle_errors: u64 = counts(summary, "oracle_errors").iter().map(|c| c.1).sum();
    s.push_str("<div class=\"cards\">");
    card(s, "cases", n("cases"), "cases", "");
    card(s, "passed", n("passed"), "passed", "");
    card(
        s,
        "findings",
        n("findings"),
        "findings",
        &in_cases("cases_with_findings"),
    );
    card(
        s,
        "anomalies",
        n("anomalies"),
        "vendor-permitted anomalies",
        &in_cases("cases_with_anomalies"),
    );
    card(
        s,
        "unconfirmed",
        n("unconfirmed"),
        "unconfirmed",
        &in_cases("cases_unconfirmed"),
    );
    card(s, "undecided", n("undecided"), "undecided cases", "");
    let errors_sub = if oracle_errors > 0 {
        format!("and {oracle_errors} oracle errors")
    } else {
        String::new()
    };
    card(s, "errors", n("errors"), "tool errors", &errors_sub);
    s.push_str("</div>\n<div class=\"breakdowns\">");
    breakdown(
        s,
        "anomaly-kinds",
        "Vendor-permitted anomalies by oracle and class",
        &counts(summary, "anomaly_kinds"),
    );
    breakdown(
        s,
        "finding-kinds",
        "Findings by oracle and kind",
        &counts(summary, "finding_kinds"),
    );
    breakdown(
        s,
        "unconfirmed-kinds",
        "Unconfirmed findings by kind",
        &counts(summary, "unconfirmed_kinds"),
    );
    breakdown(
        s,
        "undecided-reasons",
        "Undecided cases by reason",
        &counts(summary, "undecided_reasons"),
    );
    breakdown(
        s,
        "oracle-errors",
        "Oracle errors by oracle",
        &counts(summary, "oracle_errors"),
    );
    breakdown(
        s,
        "allowed-kinds",
        "Allowed by both models",
        &counts(summary, "allowed_kinds"),
    );
    s.push_str("</div>");
    if n("errors") > 0 || oracle_errors > 0 {
        s.push_str(
            "<p>Tool and oracle errors are listed in <a href=\"errors.log\">errors.log</a>.</p>",
        );
    }
    s.push_str("</section>\n");
}

/// The isolation levels of a history's transactions, in order of first use.
fn levels(h: &History) -> String {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for t in &h.transactions {
        if seen.insert(t.isolation.name()) {
            out.push(t.isolation.name());
        }
    }
    out.join(", ")
}

fn title(r: &ReportDir) -> String {
    match &r.finding {
        Ok(f) => f.title.clone(),
        Err(_) => format!("{} (finding.json unreadable)", r.rel),
    }
}

fn reports_table(s: &mut String, run: &RunDir) {
    let _ = writeln!(
        s,
        "<section id=\"reports\"><h2>Findings and anomalies ({})</h2>",
        run.reports.len()
    );
    if run.reports.is_empty() {
        s.push_str("<p>None in this run.</p></section>\n");
        return;
    }
    if run.reports.len() > MAX_SECTIONS {
        let _ = write!(
            s,
            "<p class=\"notice\">The first {MAX_SECTIONS} have a section on this page; the other {} link to their report.md.</p>",
            run.reports.len() - MAX_SECTIONS
        );
    }
    s.push_str("<table id=\"reports-table\"><thead><tr><th>kind</th><th>case</th><th>oracle</th><th>title</th><th>levels</th></tr></thead><tbody>\n");
    for (i, r) in run.reports.iter().enumerate() {
        let link = if i < MAX_SECTIONS {
            format!("#{}", section_id(r))
        } else {
            format!("{}/report.md", href(&r.rel))
        };
        let case = r
            .provenance
            .as_ref()
            .map(|p| p.case_index.to_string())
            .unwrap_or_default();
        let oracle = r
            .provenance
            .as_ref()
            .map(|p| p.oracle.as_str())
            .unwrap_or("");
        let lv = r.history.as_ref().map(levels).unwrap_or_default();
        let _ = writeln!(
            s,
            "<tr data-kind=\"{kind}\"><td><span class=\"badge {kind}\">{}</span></td><td class=\"n\">{}</td><td>{}</td><td class=\"title\"><a href=\"{link}\">{}</a></td><td>{}</td></tr>",
            r.kind.name(),
            Esc(&case),
            Esc(oracle),
            markdown::inline(&title(r)),
            Esc(&lv),
            kind = r.kind.class(),
        );
    }
    s.push_str("</tbody></table></section>\n");
}

fn timeline_block(s: &mut String, h: &History, id: &str) {
    let t = timeline::layout(h);
    let _ = write!(
        s,
        "<div class=\"scroll\">{}</div>",
        timeline::render(&t, id)
    );
    s.push_str(
        "<div class=\"legend\"><span><span class=\"sw ok\"></span>submitted → reply</span><span><span class=\"sw wait\"></span>waiting for a lock</span><span><span class=\"sw error\"></span>error</span><span><span class=\"sw noreply\"></span>no reply</span><span><span class=\"sw arrow\"></span>resumed after</span><span><span class=\"sw abort\">✕</span>aborted</span><span>time axis compressed (gaps on a log scale); hover a bar for its SQL and times</span></div>",
    );
}

/// Rows of a query's result shown in the statements' table (history.json
/// has them all).
const ROWS_SHOWN: usize = 4;

fn steps_table(s: &mut String, h: &History) {
    s.push_str("<table class=\"steps\"><thead><tr><th>#</th><th>statement</th><th>SQL</th><th>observed</th></tr></thead><tbody>");
    for (i, at) in h.completion_order.iter().enumerate() {
        let Some(r) = h.record(*at) else { continue };
        let mut observed = txlab_script::repro::observed(r);
        if let Outcome::Rows { rows, .. } = &r.outcome {
            let shown: Vec<String> = rows
                .iter()
                .take(ROWS_SHOWN)
                .map(|r| RowText(r).to_string())
                .collect();
            if !shown.is_empty() {
                let more = if rows.len() > ROWS_SHOWN { ", …" } else { "" };
                let _ = write!(observed, ": {}{more}", shown.join(", "));
            }
        }
        let class = if r.outcome.error().is_some() {
            " class=\"error\""
        } else if r.blocked.is_some() {
            " class=\"blocked\""
        } else {
            ""
        };
        let _ = write!(
            s,
            "<tr{class}><td class=\"n\">{}</td><td>{at}</td><td class=\"sql\">{}</td><td>{}</td></tr>",
            i + 1,
            Esc(r.sql.trim()),
            Esc(&observed)
        );
    }
    s.push_str("</tbody></table>");
}

fn compare_table(s: &mut String, c: &Comparisons) {
    let _ = write!(
        s,
        "<table class=\"compare\"><thead><tr><th>difference</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        Esc(&c.expected_side),
        Esc(&c.actual_side)
    );
    let cell = |lines: &[String]| -> String {
        lines
            .iter()
            .map(|l| {
                if l.ends_with(':') {
                    format!("<div class=\"head\">{}</div>", esc(l))
                } else {
                    format!("<div>{}</div>", esc(l))
                }
            })
            .collect()
    };
    for item in &c.items {
        let _ = write!(
            s,
            "<tr><td class=\"what\">{}</td><td class=\"expected\">{}</td><td class=\"actual\">{}</td></tr>",
            Esc(&item.what),
            cell(&item.expected),
            cell(&item.actual)
        );
    }
    s.push_str("</tbody></table>");
}

/// What a file is, for the files list: the exports by their formats.
fn file_tag(name: &str) -> &'static str {
    let ext = name.rsplit('.').next().unwrap_or("");
    match ext {
        "test" => "mysql-test (export)",
        "spec" => "isolation-tester spec (export)",
        "troc" => "Troc case file (export)",
        "dot" => "Graphviz",
        _ if name.contains("export") => "export",
        _ => "",
    }
}

fn report_section(s: &mut String, r: &ReportDir, index: usize) {
    let id = section_id(r);
    let _ = write!(
        s,
        "<section class=\"report kind-{}\" id=\"{id}\">\n<h3><span class=\"badge {}\">{}</span> {}</h3>\n",
        r.kind.class(),
        r.kind.class(),
        r.kind.name(),
        markdown::inline(&title(r))
    );
    s.push_str("<dl class=\"facts\">");
    let mut fact = |k: &str, v: &str| {
        let _ = write!(s, "<dt>{k}</dt><dd>{v}</dd>");
    };
    if let Some(p) = &r.provenance {
        fact("oracle", &esc(&p.oracle));
        fact("dialect", &esc(&p.dialect));
        fact("generator", &esc(&p.generator));
        fact(
            "seed",
            &format!(
                "run seed {}, case {}, case seed {}",
                p.run_seed, p.case_index, p.case_seed
            ),
        );
    }
    fact(
        "directory",
        &format!(
            "<a class=\"mono\" href=\"{}/\">{}/</a> (<a href=\"{}/report.md\">report.md</a>)",
            href(&r.rel),
            esc(&r.rel),
            href(&r.rel)
        ),
    );
    if let Some(red) = &r.reduction {
        let text = reduction_text(red);
        if !text.is_empty() {
            fact("reduction", &esc(&text));
        }
    }
    s.push_str("</dl>\n");

    s.push_str("<h4>Interleaving</h4>");
    match &r.history {
        Ok(h) => timeline_block(s, h, &format!("t{index}")),
        Err(why) => {
            let _ = write!(s, "<p class=\"notice\">{}</p>", Esc(why));
        }
    }

    for (k, dot) in r.dots.iter().enumerate() {
        let g = cycle::parse_dot(&dot.text);
        if g.nodes.is_empty() {
            continue;
        }
        let _ = write!(
            s,
            "<h4>Dependency cycle</h4><div class=\"cycle-box\"><div class=\"caption\">{}</div>{}<div class=\"legend\"><span>from <a href=\"{}/{}\">{}</a>; dashed: rw (anti-dependency), dotted: session order; hover an edge for its evidence</span></div></div>",
            Esc(&g.label),
            cycle::render(&g, &format!("c{index}-{k}")),
            href(&r.rel),
            href(&dot.name),
            Esc(&dot.name)
        );
    }

    if let Ok(f) = &r.finding {
        if let Some(c) = comparisons(&f.evidence) {
            s.push_str("<h4>Expected and actual</h4>");
            compare_table(s, &c);
        }
    }
    if let Ok(h) = &r.history {
        s.push_str("<h4>Statements</h4><details open><summary>in the order their replies arrived</summary>");
        steps_table(s, h);
        s.push_str("</details>");
    }
    if let Ok(f) = &r.finding {
        let (model, semantics) = match r.kind {
            Kind::Anomaly => ("Standard model violated", "Why the vendor permits it"),
            _ => ("Model violated", "Vendor semantics assumed"),
        };
        let _ = write!(
            s,
            "<h4>{model}</h4><div class=\"prose\">{}</div><details><summary>{semantics}</summary><div class=\"prose\">{}</div></details><details><summary>What differed (the oracle's explanation)</summary><div class=\"prose\">{}</div></details><details><summary>Evidence (finding.json)</summary><pre>{}</pre></details>",
            markdown::to_html(&f.model),
            markdown::to_html(&f.assumed_semantics),
            markdown::to_html(&f.explanation),
            esc(&serde_json::to_string_pretty(&f.evidence).unwrap_or_default())
        );
    }

    match r.reduced.as_ref().and_then(|red| red.repro.as_ref()) {
        Some(sql) => {
            let _ = write!(s, "<h4>Reduced case</h4><p><a href=\"{}/reduced/repro.sql\">reduced/repro.sql</a>:</p><pre class=\"sql\">{}</pre>", href(&r.rel), esc(sql));
            if let Some(h) = r.reduced.as_ref().and_then(|red| red.history.as_ref()) {
                s.push_str("<details><summary>Interleaving of the reduced case</summary>");
                timeline_block(s, h, &format!("t{index}r"));
                steps_table(s, h);
                s.push_str("</details>");
            }
        }
        None => {
            if let Some(sql) = &r.repro {
                let why = match r.kind {
                    Kind::Anomaly => "anomalies are not reduced",
                    _ => "not reduced",
                };
                let _ = write!(s, "<h4>The case ({why})</h4><p><a href=\"{}/repro.sql\">repro.sql</a>:</p><details><summary>show repro.sql</summary><pre class=\"sql\">{}</pre></details>", href(&r.rel), esc(sql));
            }
        }
    }

    if !r.files.is_empty() {
        s.push_str("<h4>Files</h4><ul class=\"files\">");
        for f in &r.files {
            let tag = file_tag(f);
            let _ = write!(
                s,
                "<li><a href=\"{}/{}\">{}</a>{}</li>",
                href(&r.rel),
                href(f),
                esc(f),
                if tag.is_empty() {
                    String::new()
                } else {
                    format!(" <span class=\"tag\">{tag}</span>")
                }
            );
        }
        s.push_str("</ul>");
    }
    s.push_str("</section>\n");
}

/// `reduction.json` in a line: what became of the case and how often it
/// showed the finding again.
fn reduction_text(v: &Json) -> String {
    let outcome = v
        .get("outcome")
        .and_then(Json::as_str)
        .unwrap_or("")
        .replace('_', " ");
    let size = |side: &str, k: &str| v.get(side).and_then(|s| s.get(k)).and_then(Json::as_u64);
    let mut parts = vec![outcome];
    if let (Some(b), Some(a)) = (size("before", "statements"), size("after", "statements")) {
        parts.push(format!("{b} → {a} statements"));
    }
    if let (Some(b), Some(a)) = (
        size("before", "transactions"),
        size("after", "transactions"),
    ) {
        parts.push(format!("{b} → {a} transactions"));
    }
    if let (Some(r), Some(c)) = (
        v.get("reproduced").and_then(Json::as_u64),
        v.get("confirm_runs").and_then(Json::as_u64),
    ) {
        parts.push(format!("reproduced {r}/{c}"));
    }
    parts.retain(|p| !p.is_empty());
    parts.join(", ")
}
