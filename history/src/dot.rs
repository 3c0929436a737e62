//! Graphviz drawings of anomalies.

use crate::history::History;
use crate::report::Anomaly;
use std::fmt::Write;

/// The anomaly's minimal cycle (or, for G1a, G1b and G-SIa, its evidence)
/// as a Graphviz digraph: one node per transaction (label, outcome, level),
/// one edge per dependency, labelled like `rw t0 row 3`, with the evidence
/// as the edge's tooltip.
pub fn to_dot(anomaly: &Anomaly, history: &History) -> String {
    let mut title = anomaly.phenomenon.name().to_string();
    if let Some(sub) = anomaly.subtype {
        let _ = write!(title, " ({sub})");
    }
    if anomaly.needs_session_order {
        title.push_str(" through session order");
    }
    let mut out = String::new();
    let _ = writeln!(out, "digraph anomaly {{");
    let _ = writeln!(out, "  label=\"{}\";", escape(&title));
    out.push_str("  labelloc=t;\n  rankdir=LR;\n  node [shape=box];\n");
    for &t in &anomaly.transactions {
        let mut label = history.label(t);
        if let Some(txn) = history.transaction(t) {
            let _ = write!(label, "\n{}", txn.outcome);
            if let Some(level) = txn.level {
                let _ = write!(label, "\n{level}");
            }
        }
        let _ = writeln!(out, "  t{t} [label=\"{}\"];", escape(&label));
    }
    for e in anomaly.edges() {
        let style = match e.kind {
            crate::DepKind::RW => ", style=dashed",
            crate::DepKind::SO | crate::DepKind::Start => ", style=dotted",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  t{} -> t{} [label=\"{}\", tooltip=\"{}\"{style}];",
            e.from,
            e.to,
            escape(&e.short()),
            escape(&e.evidence)
        );
    }
    out.push_str("}\n");
    out
}

/// A Graphviz string literal's content.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}
