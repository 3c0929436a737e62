//! Splits SQL text into statements and comments, with their line numbers,
//! without understanding the statements: quotes and comments are skipped so
//! that a `;` inside them does not end a statement.

/// One piece of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A statement without its `;`, the line it starts on, and the session
    /// tag (`/* T1 */`) written before it on its first line or the lines
    /// above since the previous statement, if any.
    Statement {
        sql: String,
        line: usize,
        tag: Option<String>,
    },
    /// A `--` comment outside statements: its text after `--`, trimmed.
    Comment { text: String, line: usize },
}

/// Whether `text` is a session name: `T` or `S` (either case) and digits,
/// as repro.sql (`T1`) and the marked-script convention (`T1`, `s2`) use.
pub fn is_session_name(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some('T' | 't' | 'S' | 's'))
        && text.len() > 1
        && chars.all(|c| c.is_ascii_digit())
}

/// The pieces of `text`, in order. A statement that is not ended by `;` at
/// the end of the text is a statement too.
pub fn split(text: &str) -> Vec<Piece> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let mut current = String::new();
    let mut start_line = 0;
    let mut tag: Option<String> = None;
    let flush = |current: &mut String,
                 start_line: usize,
                 tag: &mut Option<String>,
                 out: &mut Vec<Piece>| {
        let sql = current.trim().to_string();
        if !sql.is_empty() {
            out.push(Piece::Statement {
                sql,
                line: start_line,
                tag: tag.take(),
            });
        }
        current.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '-' if next == Some('-') => {
                let end = chars[i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(chars.len(), |p| i + p);
                if current.trim().is_empty() {
                    let text: String = chars[i + 2..end].iter().collect();
                    out.push(Piece::Comment {
                        text: text.trim().to_string(),
                        line,
                    });
                } else {
                    // Kept inside the statement only as a space.
                    current.push(' ');
                }
                i = end;
            }
            '/' if next == Some('*') => {
                let rest: String = chars[i + 2..].iter().collect();
                let len = rest.find("*/").map_or(rest.len(), |p| p);
                let body = &rest[..len];
                if current.trim().is_empty() && is_session_name(body.trim()) {
                    tag = Some(body.trim().to_string());
                } else {
                    current.push(' ');
                }
                line += body.matches('\n').count();
                i += 2 + body.chars().count() + 2;
            }
            '\'' | '"' | '`' => {
                if current.trim().is_empty() {
                    start_line = line;
                }
                current.push(c);
                i += 1;
                while i < chars.len() {
                    let d = chars[i];
                    current.push(d);
                    i += 1;
                    if d == '\n' {
                        line += 1;
                    }
                    if d == c {
                        if chars.get(i) == Some(&c) {
                            current.push(c);
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            ';' => {
                flush(&mut current, start_line, &mut tag, &mut out);
                i += 1;
            }
            _ => {
                if c == '\n' {
                    line += 1;
                } else if !c.is_whitespace() && current.trim().is_empty() {
                    start_line = line;
                }
                current.push(c);
                i += 1;
            }
        }
    }
    flush(&mut current, start_line, &mut tag, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(sql: &str, line: usize, tag: Option<&str>) -> Piece {
        Piece::Statement {
            sql: sql.into(),
            line,
            tag: tag.map(str::to_string),
        }
    }

    #[test]
    fn quotes_and_comments_hide_semicolons() {
        let text = "-- head\nCREATE TABLE t (a INT);\n/* T2 */ SELECT ';' FROM \"x;y\"; -- T2.1: ok\n\n/* T1 */\nUPDATE t\n  SET a = 1 /* ; */ WHERE a = 'it''s;'";
        assert_eq!(
            split(text),
            vec![
                Piece::Comment {
                    text: "head".into(),
                    line: 1
                },
                statement("CREATE TABLE t (a INT)", 2, None),
                statement("SELECT ';' FROM \"x;y\"", 3, Some("T2")),
                Piece::Comment {
                    text: "T2.1: ok".into(),
                    line: 3
                },
                statement("UPDATE t\n  SET a = 1   WHERE a = 'it''s;'", 6, Some("T1")),
            ]
        );
    }

    #[test]
    fn session_names() {
        for ok in ["T1", "t12", "S3", "s1"] {
            assert!(is_session_name(ok), "{ok}");
        }
        for bad in ["T", "T1a", "X1", "", "Note"] {
            assert!(!is_session_name(bad), "{bad}");
        }
    }
}
