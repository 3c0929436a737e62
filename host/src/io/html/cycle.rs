//! An oracle's dependency cycle (`cycle.dot`, Graphviz) drawn as SVG without
//! Graphviz: the few nodes on a circle, each edge a curve with its label.
//! [`parse_dot`] reads the subset of DOT the oracles write (and skips what it
//! does not know); [`layout`] places it (tested); [`render`] draws it.

use super::escape::Esc;
use std::f64::consts::PI;
use std::fmt::Write as _;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    /// The graph's `label`, e.g. `G2-item (write skew)`.
    pub label: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub id: String,
    /// Lines of the node's label (its id when it has none).
    pub lines: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: String,
    pub tooltip: String,
    /// `dashed`, `dotted` or empty.
    pub style: String,
}

#[derive(Debug, PartialEq)]
enum Token {
    Id(String),
    Arrow,
    Punct(char),
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') | Some('l') | Some('r') => s.push('\n'),
                            Some(other) => s.push(other),
                            None => {}
                        },
                        c => s.push(c),
                    }
                }
                out.push(Token::Id(s));
            }
            '-' if chars.peek() == Some(&'>') || chars.peek() == Some(&'-') => {
                chars.next();
                out.push(Token::Arrow);
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '{' | '}' | '[' | ']' | '=' | ',' | ';' => out.push(Token::Punct(c)),
            c => {
                let mut s = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_alphanumeric() || n == '_' || n == '.' {
                        s.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Id(s));
            }
        }
    }
    out
}

/// Reads a Graphviz digraph: the graph's label, nodes with their labels,
/// edges (`a -> b -> c` too) with label, tooltip and style. Attributes of
/// `node`, `edge` and `graph` statements and subgraph braces are skipped.
pub fn parse_dot(text: &str) -> Graph {
    let toks = tokens(text);
    let mut g = Graph::default();
    let mut i = 0;
    // Past `digraph NAME {`.
    while i < toks.len() && toks[i] != Token::Punct('{') {
        i += 1;
    }
    i += 1;
    let node_index = |g: &mut Graph, id: &str| -> usize {
        if let Some(n) = g.nodes.iter().position(|n| n.id == id) {
            return n;
        }
        g.nodes.push(Node {
            id: id.to_string(),
            lines: vec![id.to_string()],
        });
        g.nodes.len() - 1
    };
    while i < toks.len() {
        let Token::Id(first) = &toks[i] else {
            i += 1;
            continue;
        };
        i += 1;
        // `key = value` at graph level.
        if toks.get(i) == Some(&Token::Punct('=')) {
            if let Some(Token::Id(v)) = toks.get(i + 1) {
                if first == "label" {
                    g.label = v.clone();
                }
            }
            i += 2;
            continue;
        }
        let mut chain = vec![first.clone()];
        while toks.get(i) == Some(&Token::Arrow) {
            if let Some(Token::Id(next)) = toks.get(i + 1) {
                chain.push(next.clone());
            }
            i += 2;
        }
        let mut attrs: Vec<(String, String)> = Vec::new();
        if toks.get(i) == Some(&Token::Punct('[')) {
            i += 1;
            while i < toks.len() && toks[i] != Token::Punct(']') {
                if let (Token::Id(k), Some(Token::Punct('=')), Some(Token::Id(v))) =
                    (&toks[i], toks.get(i + 1), toks.get(i + 2))
                {
                    attrs.push((k.clone(), v.clone()));
                    i += 3;
                } else {
                    i += 1;
                }
            }
            i += 1;
        }
        let attr = |k: &str| {
            attrs
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        if matches!(first.as_str(), "node" | "edge" | "graph" | "subgraph") && chain.len() == 1 {
            continue;
        }
        if chain.len() == 1 {
            let n = node_index(&mut g, first);
            let label = attr("label");
            if !label.is_empty() {
                g.nodes[n].lines = label.lines().map(str::to_string).collect();
            }
        } else {
            for pair in chain.windows(2) {
                let from = node_index(&mut g, &pair[0]);
                let to = node_index(&mut g, &pair[1]);
                g.edges.push(Edge {
                    from,
                    to,
                    label: attr("label"),
                    tooltip: attr("tooltip"),
                    style: attr("style"),
                });
            }
        }
    }
    g
}

const CHAR_WIDTH: f64 = 7.0;
const LINE_HEIGHT: f64 = 15.0;
const MARGIN: f64 = 16.0;

#[derive(Debug)]
pub struct PlacedNode {
    pub cx: f64,
    pub cy: f64,
    pub w: f64,
    pub h: f64,
}

#[derive(Debug)]
pub struct PlacedEdge {
    /// Start, control point and end of a quadratic curve.
    pub start: (f64, f64),
    pub control: (f64, f64),
    pub end: (f64, f64),
    /// Where the label's centre goes (the curve's midpoint).
    pub label_at: (f64, f64),
}

#[derive(Debug)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<PlacedNode>,
    pub edges: Vec<PlacedEdge>,
}

fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_WIDTH
}

/// Where the ray from a box's centre towards `to` leaves the box (plus a
/// small gap).
fn boundary(n: &PlacedNode, to: (f64, f64)) -> (f64, f64) {
    let (dx, dy) = (to.0 - n.cx, to.1 - n.cy);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1e-9 {
        return (n.cx, n.cy);
    }
    let tx = if dx.abs() > 1e-9 {
        (n.w / 2.0) / dx.abs()
    } else {
        f64::INFINITY
    };
    let ty = if dy.abs() > 1e-9 {
        (n.h / 2.0) / dy.abs()
    } else {
        f64::INFINITY
    };
    let t = tx.min(ty) + 4.0 / len;
    (n.cx + dx * t, n.cy + dy * t)
}

/// The nodes on a circle (two side by side, one alone), clockwise from the
/// left; each edge bends to its right, so that `a -> b` and `b -> a` do not
/// overlap, and further for each parallel edge. The picture is translated to
/// start at the margin.
pub fn layout(g: &Graph) -> Layout {
    let n = g.nodes.len();
    let sizes: Vec<(f64, f64)> = g
        .nodes
        .iter()
        .map(|node| {
            let widest = node.lines.iter().map(|l| text_width(l)).fold(0.0, f64::max);
            (widest + 20.0, node.lines.len() as f64 * LINE_HEIGHT + 12.0)
        })
        .collect();
    let widest = sizes.iter().map(|s| s.0).fold(0.0, f64::max);
    let label_room = g
        .edges
        .iter()
        .map(|e| text_width(&e.label))
        .fold(0.0, f64::max);
    // Far enough apart that neighbours and edge labels fit between them.
    let radius = match n {
        0 | 1 => 0.0,
        2 => (widest + label_room) / 2.0 + 40.0,
        _ => ((widest + 30.0) * n as f64 / (2.0 * PI)).max((widest + label_room) / 2.0 + 30.0),
    };
    let mut nodes: Vec<PlacedNode> = sizes
        .iter()
        .enumerate()
        .map(|(i, &(w, h))| {
            let angle = PI + 2.0 * PI * i as f64 / n.max(1) as f64;
            PlacedNode {
                cx: radius * angle.cos(),
                cy: radius * angle.sin(),
                w,
                h,
            }
        })
        .collect();
    let mut edges = Vec::new();
    for (k, e) in g.edges.iter().enumerate() {
        let parallel = g.edges[..k]
            .iter()
            .filter(|o| (o.from, o.to) == (e.from, e.to))
            .count() as f64;
        let (a, b) = (&nodes[e.from], &nodes[e.to]);
        if e.from == e.to {
            // A loop above the node.
            let top = (a.cx, a.cy - a.h / 2.0);
            let lift = 40.0 + 20.0 * parallel;
            edges.push(PlacedEdge {
                start: (top.0 - 12.0, top.1),
                control: (top.0, top.1 - lift * 2.0),
                end: (top.0 + 12.0, top.1 - 2.0),
                label_at: (top.0, top.1 - lift - 6.0),
            });
            continue;
        }
        let (mx, my) = ((a.cx + b.cx) / 2.0, (a.cy + b.cy) / 2.0);
        let (dx, dy) = (b.cx - a.cx, b.cy - a.cy);
        let len = (dx * dx + dy * dy).sqrt().max(1e-9);
        // The right-hand normal of the direction a -> b (y grows downwards).
        let (nx, ny) = (-dy / len, dx / len);
        let bend = 36.0 + 30.0 * parallel;
        let control = (mx + nx * bend * 2.0, my + ny * bend * 2.0);
        let start = boundary(a, control);
        let end = boundary(b, control);
        let label_at = (
            0.25 * start.0 + 0.5 * control.0 + 0.25 * end.0,
            0.25 * start.1 + 0.5 * control.1 + 0.25 * end.1,
        );
        edges.push(PlacedEdge {
            start,
            control,
            end,
            label_at,
        });
    }
    // The bounding box of nodes, curve midpoints and labels.
    let mut min = (f64::INFINITY, f64::INFINITY);
    let mut max = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut add = |x0: f64, y0: f64, x1: f64, y1: f64| {
        min = (min.0.min(x0), min.1.min(y0));
        max = (max.0.max(x1), max.1.max(y1));
    };
    for p in &nodes {
        add(
            p.cx - p.w / 2.0,
            p.cy - p.h / 2.0,
            p.cx + p.w / 2.0,
            p.cy + p.h / 2.0,
        );
    }
    for (p, e) in edges.iter().zip(&g.edges) {
        let half = text_width(&e.label) / 2.0 + 6.0;
        add(
            p.label_at.0 - half,
            p.label_at.1 - 12.0,
            p.label_at.0 + half,
            p.label_at.1 + 12.0,
        );
    }
    if nodes.is_empty() {
        min = (0.0, 0.0);
        max = (0.0, 0.0);
    }
    let (sx, sy) = (MARGIN - min.0, MARGIN - min.1);
    for p in &mut nodes {
        p.cx += sx;
        p.cy += sy;
    }
    let shift = |(x, y): (f64, f64)| (x + sx, y + sy);
    for e in &mut edges {
        e.start = shift(e.start);
        e.control = shift(e.control);
        e.end = shift(e.end);
        e.label_at = shift(e.label_at);
    }
    Layout {
        width: (max.0 - min.0 + 2.0 * MARGIN).ceil(),
        height: (max.1 - min.1 + 2.0 * MARGIN).ceil(),
        nodes,
        edges,
    }
}

fn f(v: f64) -> String {
    format!("{v:.1}")
}

/// The graph as an inline `<svg>`; `id` makes its marker id unique in the
/// page.
pub fn render(g: &Graph, id: &str) -> String {
    let l = layout(g);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="cycle" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="dependency cycle: {}"><defs><marker id="{id}-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>"#,
        Esc(&g.label),
        w = l.width,
        h = l.height,
    );
    for (e, p) in g.edges.iter().zip(&l.edges) {
        let style = match e.style.as_str() {
            "dashed" => " dashed",
            "dotted" => " dotted",
            _ => "",
        };
        let _ = write!(
            s,
            r#"<g class="dep{style}" data-from="{}" data-to="{}"><title>{}</title><path d="M{},{} Q{},{} {},{}" marker-end="url(#{id}-head)"/>"#,
            Esc(&g.nodes[e.from].id),
            Esc(&g.nodes[e.to].id),
            Esc(if e.tooltip.is_empty() {
                &e.label
            } else {
                &e.tooltip
            }),
            f(p.start.0),
            f(p.start.1),
            f(p.control.0),
            f(p.control.1),
            f(p.end.0),
            f(p.end.1),
        );
        if !e.label.is_empty() {
            let w = text_width(&e.label) + 8.0;
            let _ = write!(
                s,
                r#"<rect class="dep-label-bg" x="{}" y="{}" width="{}" height="18" rx="3"/><text class="dep-label" x="{}" y="{}">{}</text>"#,
                f(p.label_at.0 - w / 2.0),
                f(p.label_at.1 - 10.0),
                f(w),
                f(p.label_at.0),
                f(p.label_at.1 + 3.5),
                Esc(&e.label),
            );
        }
        s.push_str("</g>");
    }
    for (n, p) in g.nodes.iter().zip(&l.nodes) {
        let _ = write!(
            s,
            r#"<g class="node" data-id="{}"><rect x="{}" y="{}" width="{}" height="{}" rx="6"/>"#,
            Esc(&n.id),
            f(p.cx - p.w / 2.0),
            f(p.cy - p.h / 2.0),
            f(p.w),
            f(p.h),
        );
        let top = p.cy - p.h / 2.0 + 6.0 + LINE_HEIGHT - 3.0;
        for (i, line) in n.lines.iter().enumerate() {
            let _ = write!(
                s,
                r#"<text class="{}" x="{}" y="{}">{}</text>"#,
                if i == 0 { "node-title" } else { "node-line" },
                f(p.cx),
                f(top + i as f64 * LINE_HEIGHT),
                Esc(line)
            );
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOT: &str = r#"digraph anomaly {
  label="G2-item (write skew)";
  labelloc=t;
  rankdir=LR;
  node [shape=box];
  t0 [label="T1\ncommitted\nrepeatable-read"];
  t1 [label="T2\ncommitted\nrepeatable-read"];
  t0 -> t1 [label="rw t0 row 3", tooltip="T1 read \"row 3\" before T2 wrote it", style=dashed];
  t1 -> t0 [label="rw t0 row 4", tooltip="T2 read row 4 before T1 wrote it", style=dashed];
}
"#;

    #[test]
    fn the_oracles_dot_is_read() {
        let g = parse_dot(DOT);
        assert_eq!(g.label, "G2-item (write skew)");
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(g.nodes[0].lines, ["T1", "committed", "repeatable-read"]);
        assert_eq!(g.edges.len(), 2);
        assert_eq!((g.edges[0].from, g.edges[0].to), (0, 1));
        assert_eq!(g.edges[0].label, "rw t0 row 3");
        assert_eq!(g.edges[0].tooltip, "T1 read \"row 3\" before T2 wrote it");
        assert_eq!(g.edges[0].style, "dashed");
        // Chains and nodes named only in edges.
        let g = parse_dot("digraph { a -> b -> c [label=x]; }");
        assert_eq!(g.nodes.len(), 3);
        assert_eq!(g.edges.len(), 2);
        assert!(g.edges.iter().all(|e| e.label == "x"));
        assert_eq!(parse_dot("not a graph"), Graph::default());
    }

    fn overlap(a: &PlacedNode, b: &PlacedNode) -> bool {
        (a.cx - b.cx).abs() < (a.w + b.w) / 2.0 && (a.cy - b.cy).abs() < (a.h + b.h) / 2.0
    }

    #[test]
    fn nodes_do_not_overlap_and_opposite_edges_bend_apart() {
        let l = layout(&parse_dot(DOT));
        assert!(!overlap(&l.nodes[0], &l.nodes[1]));
        // Side by side, the first on the left.
        assert!(l.nodes[0].cx < l.nodes[1].cx);
        assert!((l.nodes[0].cy - l.nodes[1].cy).abs() < 1e-6);
        // t0 -> t1 and t1 -> t0 curve to opposite sides of the line between.
        let y = l.nodes[0].cy;
        assert!((l.edges[0].label_at.1 - y) * (l.edges[1].label_at.1 - y) < 0.0);
        // Each edge starts at its source's box and ends at its target's.
        let near = |p: (f64, f64), n: &PlacedNode| {
            (p.0 - n.cx).abs() <= n.w / 2.0 + 6.0 && (p.1 - n.cy).abs() <= n.h / 2.0 + 6.0
        };
        assert!(near(l.edges[0].start, &l.nodes[0]) && near(l.edges[0].end, &l.nodes[1]));
        // Everything inside the picture.
        for n in &l.nodes {
            assert!(n.cx - n.w / 2.0 >= 0.0 && n.cx + n.w / 2.0 <= l.width);
            assert!(n.cy - n.h / 2.0 >= 0.0 && n.cy + n.h / 2.0 <= l.height);
        }
        for e in &l.edges {
            assert!(e.label_at.0 > 0.0 && e.label_at.0 < l.width);
            assert!(e.label_at.1 > 0.0 && e.label_at.1 < l.height);
        }
    }

    #[test]
    fn a_larger_cycle_goes_round_a_circle() {
        let g = parse_dot("digraph { a -> b; b -> c; c -> d; d -> e; e -> a; }");
        let l = layout(&g);
        assert_eq!(l.nodes.len(), 5);
        for (i, a) in l.nodes.iter().enumerate() {
            for b in &l.nodes[i + 1..] {
                assert!(!overlap(a, b), "{a:?} {b:?}");
            }
        }
        let svg = render(&g, "x");
        assert_eq!(svg.matches(r#"<g class="node""#).count(), 5);
        assert_eq!(svg.matches(r#"<g class="dep""#).count(), 5);
    }

    #[test]
    fn labels_are_escaped_in_the_svg() {
        let svg = render(&parse_dot(DOT), "c");
        assert!(svg.contains("T1 read &quot;row 3&quot; before T2 wrote it"));
        assert_eq!(svg.matches(r#"<g class="dep dashed""#).count(), 2);
        let evil = parse_dot(r#"digraph { a [label="<script>x</script>"]; a -> a; }"#);
        let svg = render(&evil, "e");
        assert!(!svg.contains("<script>") && svg.contains("&lt;script&gt;"));
    }
}
