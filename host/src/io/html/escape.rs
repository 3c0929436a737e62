//! Escaping: every value that comes from a run (titles, SQL, rows, file
//! names, oracle text) goes through [`esc`] before it is part of the page,
//! in text and in attributes alike.

use std::fmt;

/// `s` with `&`, `<`, `>`, `"` and `'` replaced by character references:
/// safe as element text and as a quoted attribute value, in HTML and SVG.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and newline are not allowed
            // in HTML text: shown as the replacement character.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A value displayed escaped: `format!("<td>{}</td>", Esc(&title))`.
pub struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&esc(self.0))
    }
}

/// A fragment id made from a name from the run (a finding directory's
/// path): letters, digits, `-` and `_` only, so it needs no escaping in an
/// `id` or a `#` link.
pub fn anchor(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A relative link to a file of the run: each path segment percent-encoded
/// where it is not a plain file-name character, then escaped for the
/// attribute.
pub fn href(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    esc(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_values_is_inert() {
        assert_eq!(
            esc(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        // An attribute cannot be closed from inside.
        let attr = format!("<a title=\"{}\">", Esc("\" onmouseover=\"alert(1)"));
        assert_eq!(attr, "<a title=\"&quot; onmouseover=&quot;alert(1)\">");
        // Already-escaped text is escaped again, not trusted.
        assert_eq!(esc("&lt;"), "&amp;lt;");
        assert_eq!(esc("a\u{0}b\nc\td"), "a\u{FFFD}b\nc\td");
        assert_eq!(
            esc("UPDATE t SET v = 'ü' WHERE k < 3"),
            "UPDATE t SET v = &#39;ü&#39; WHERE k &lt; 3"
        );
    }

    #[test]
    fn anchors_and_links_stay_within_their_syntax() {
        assert_eq!(
            anchor("findings/case-000012-troc"),
            "findings-case-000012-troc"
        );
        assert_eq!(anchor("a\"><script>"), "a---script-");
        assert_eq!(
            href("anomalies/case-1/cycle.dot"),
            "anomalies/case-1/cycle.dot"
        );
        assert_eq!(href("a b/\"x\".sql"), "a%20b/%22x%22.sql");
        assert_eq!(href("javascript:alert(1)"), "javascript%3Aalert%281%29");
    }
}
