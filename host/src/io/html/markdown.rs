//! The small part of Markdown the oracles write in their explanations
//! (headings, paragraphs, `-` lists, pipe tables, fenced code, `code` and
//! **bold**) as HTML. Everything is escaped first; the markup is added
//! around the escaped text only.

use super::escape::esc;

/// `code` and **bold** within one line, escaped.
pub fn inline(line: &str) -> String {
    let escaped = esc(line);
    let mut out = String::with_capacity(escaped.len());
    let mut rest = escaped.as_str();
    let mut bold = false;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`') {
            if let Some(end) = after.find('`') {
                out.push_str("<code>");
                out.push_str(&after[..end]);
                out.push_str("</code>");
                rest = &after[end + 1..];
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix("**") {
            if bold || after.contains("**") {
                out.push_str(if bold { "</strong>" } else { "<strong>" });
                bold = !bold;
                rest = after;
                continue;
            }
        }
        let c = rest.chars().next().expect("not empty");
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    if bold {
        out.push_str("</strong>");
    }
    out
}

fn cells(line: &str) -> Vec<&str> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line.strip_suffix('|').unwrap_or(line);
    line.split('|').map(str::trim).collect()
}

fn is_rule(line: &str) -> bool {
    cells(line)
        .iter()
        .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

/// The Markdown as HTML.
pub fn to_html(md: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    let mut paragraph: Vec<String> = Vec::new();
    let flush = |paragraph: &mut Vec<String>, out: &mut String| {
        if !paragraph.is_empty() {
            out.push_str("<p>");
            out.push_str(&paragraph.join("\n"));
            out.push_str("</p>\n");
            paragraph.clear();
        }
    };
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            flush(&mut paragraph, &mut out);
            i += 1;
        } else if trimmed.starts_with("```") {
            flush(&mut paragraph, &mut out);
            i += 1;
            out.push_str("<pre class=\"code\">");
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                out.push_str(&esc(lines[i]));
                out.push('\n');
                i += 1;
            }
            out.push_str("</pre>\n");
            i += 1;
        } else if trimmed.starts_with('#') {
            flush(&mut paragraph, &mut out);
            let text = trimmed.trim_start_matches('#').trim();
            out.push_str(&format!("<h5>{}</h5>\n", inline(text)));
            i += 1;
        } else if trimmed.starts_with("- ") || trimmed.starts_with("* ") {
            flush(&mut paragraph, &mut out);
            out.push_str("<ul>\n");
            while i < lines.len() {
                let t = lines[i].trim_start();
                if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
                    out.push_str(&format!("<li>{}</li>\n", inline(item)));
                } else if !t.is_empty() && lines[i].starts_with(' ') {
                    // A continuation of the item before.
                    if out.ends_with("</li>\n") {
                        out.truncate(out.len() - "</li>\n".len());
                        out.push_str(&format!("\n{}</li>\n", inline(t)));
                    }
                } else {
                    break;
                }
                i += 1;
            }
            out.push_str("</ul>\n");
        } else if trimmed.starts_with('|') {
            flush(&mut paragraph, &mut out);
            out.push_str("<table class=\"md\">\n");
            let mut header = true;
            while i < lines.len() && lines[i].trim_start().starts_with('|') {
                let row = lines[i];
                i += 1;
                if is_rule(row) {
                    continue;
                }
                // The first row is the header when a rule follows it.
                let is_header = header && i < lines.len() && is_rule(lines[i]);
                header = false;
                let tag = if is_header { "th" } else { "td" };
                out.push_str("<tr>");
                for c in cells(row) {
                    out.push_str(&format!("<{tag}>{}</{tag}>", inline(c)));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        } else {
            paragraph.push(inline(line.trim()));
            i += 1;
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracles_markdown_becomes_escaped_html() {
        let md = "T2's `UPDATE` <b>saw</b> **2 rows**:\nmore\n\n### Rows\n\n- `(1, 'a')`\n- b & c\n  continued\n\n| a | b |\n|---|---|\n| 1 | <x> |\n\n```\nSELECT 1 < 2;\n```";
        let html = to_html(md);
        assert_eq!(
            html,
            "<p>T2&#39;s <code>UPDATE</code> &lt;b&gt;saw&lt;/b&gt; <strong>2 rows</strong>:\nmore</p>\n\
             <h5>Rows</h5>\n\
             <ul>\n<li><code>(1, &#39;a&#39;)</code></li>\n<li>b &amp; c\ncontinued</li>\n</ul>\n\
             <table class=\"md\">\n<tr><th>a</th><th>b</th></tr>\n<tr><td>1</td><td>&lt;x&gt;</td></tr>\n</table>\n\
             <pre class=\"code\">SELECT 1 &lt; 2;\n</pre>\n"
        );
        // Unbalanced markers stay text; nothing is left open.
        assert_eq!(to_html("a ** b `c"), "<p>a ** b `c</p>\n");
    }
}
