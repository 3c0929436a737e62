//! EDN a form at a time, with positions, on top of the `clojure-reader`
//! crate: Jepsen writes a history as one op map per line (or as one vector of
//! them), and each op is parsed on its own, so a history of millions of ops
//! is never one parsed tree and a reader holds only the line it is on.

use super::{FormatError, Pos};
use clojure_reader::edn::Edn;
use std::io::BufRead;

/// Reads the top-level forms of an EDN document one by one. A document that
/// is one vector (or list) of forms is read as its elements.
pub(crate) struct FormReader<R: BufRead> {
    input: R,
    buf: String,
    /// Where `buf` starts.
    at: Pos,
    eof: bool,
    started: bool,
    /// The closing bracket of an enclosing vector or list being read.
    close: Option<char>,
    /// The enclosing vector was closed: nothing may follow.
    closed: bool,
}

impl<R: BufRead> FormReader<R> {
    pub(crate) fn new(input: R) -> FormReader<R> {
        FormReader {
            input,
            buf: String::new(),
            at: Pos { line: 1, column: 1 },
            eof: false,
            started: false,
            close: None,
            closed: false,
        }
    }

    /// Reads one more line into the buffer; false at the end of the input.
    fn more(&mut self) -> Result<bool, FormatError> {
        if self.eof {
            return Ok(false);
        }
        let n = self
            .input
            .read_line(&mut self.buf)
            .map_err(|e| FormatError::io(self.at, e))?;
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// Drops the first `n` bytes of the buffer, moving the position past
    /// them.
    fn consume(&mut self, n: usize) {
        self.at = advance(self.at, &self.buf[..n]);
        self.buf.drain(..n);
    }

    /// Skips whitespace, commas and comments; false when the input ended.
    /// The buffer always holds whole lines, so a comment ends in it.
    fn skip_blank(&mut self) -> Result<bool, FormatError> {
        loop {
            let mut n = 0;
            let mut comment = false;
            for (i, c) in self.buf.char_indices() {
                if comment {
                    n = i + c.len_utf8();
                    comment = c != '\n';
                } else if c == ';' {
                    comment = true;
                    n = i + 1;
                } else if c.is_whitespace() || c == ',' {
                    n = i + c.len_utf8();
                } else {
                    break;
                }
            }
            self.consume(n);
            if !self.buf.is_empty() {
                return Ok(true);
            }
            if !self.more()? {
                return Ok(false);
            }
        }
    }

    /// The next form, handed to `f` with where it starts; `None` at the end.
    pub(crate) fn next_form<T>(
        &mut self,
        mut f: impl FnMut(&Edn<'_>, Pos) -> Result<T, FormatError>,
    ) -> Option<Result<T, FormatError>> {
        loop {
            match self.skip_blank() {
                Err(e) => return Some(Err(e)),
                Ok(false) => {
                    if let Some(c) = self.close {
                        return Some(Err(FormatError::at(
                            self.at,
                            format!("the history's opening bracket is never closed with `{c}`"),
                        )));
                    }
                    return None;
                }
                Ok(true) => {}
            }
            let first = self.buf.chars().next().expect("not blank");
            if !self.started {
                self.started = true;
                if first == '[' || first == '(' {
                    self.close = Some(if first == '[' { ']' } else { ')' });
                    self.consume(1);
                    continue;
                }
            }
            if self.closed {
                return Some(Err(FormatError::at(
                    self.at,
                    "something follows the history's closing bracket",
                )));
            }
            if Some(first) == self.close {
                self.close = None;
                self.closed = true;
                self.consume(1);
                continue;
            }
            loop {
                let at = self.at;
                let len = self.buf.len();
                let parsed = clojure_reader::edn::read(&self.buf)
                    .map(|(edn, rest)| (f(&edn, at), len - rest.len()));
                match parsed {
                    Ok((result, used)) => {
                        self.consume(used);
                        return Some(result);
                    }
                    Err(e) => {
                        let eof = e.code == clojure_reader::error::Code::UnexpectedEOF;
                        if eof {
                            match self.more() {
                                Ok(true) => continue,
                                Ok(false) => {}
                                Err(e) => return Some(Err(e)),
                            }
                        }
                        let pos = match (e.line, e.column) {
                            _ if eof => self.at,
                            (Some(1), Some(c)) => Pos {
                                line: self.at.line,
                                column: self.at.column + c - 1,
                            },
                            (Some(l), Some(c)) => Pos {
                                line: self.at.line + l - 1,
                                column: c,
                            },
                            _ => self.at,
                        };
                        let what = match e.code {
                            clojure_reader::error::Code::UnexpectedEOF => {
                                "the form that starts here never ends (an unclosed bracket or string?)"
                                    .to_string()
                            }
                            code => format!("not EDN: {code:?}"),
                        };
                        return Some(Err(FormatError::at(pos, what)));
                    }
                }
            }
        }
    }
}

/// The position after `text`, starting at `at`.
pub(crate) fn advance(mut at: Pos, text: &str) -> Pos {
    for c in text.chars() {
        if c == '\n' {
            at.line += 1;
            at.column = 1;
        } else {
            at.column += 1;
        }
    }
    at
}

/// An EDN string literal.
pub(crate) fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(src: &str) -> Vec<Result<String, String>> {
        let mut r = FormReader::new(src.as_bytes());
        let mut out = Vec::new();
        while let Some(x) = r.next_form(|e, p| Ok(format!("{}:{} {e}", p.line, p.column))) {
            let stop = x.is_err();
            out.push(x.map_err(|e| e.to_string()));
            if stop {
                break;
            }
        }
        out
    }

    #[test]
    fn forms_come_one_at_a_time_with_their_line() {
        let got = forms("{:a 1}\n; a comment\n  {:b [1\n 2]}\n{:c nil}");
        assert_eq!(
            got,
            vec![
                Ok("1:1 {:a 1}".into()),
                Ok("3:3 {:b [1 2]}".into()),
                Ok("5:1 {:c nil}".into())
            ]
        );
    }

    #[test]
    fn an_enclosing_vector_is_read_as_its_elements() {
        let got = forms("[{:a 1}\n {:a 2}]\n");
        assert_eq!(got, vec![Ok("1:2 {:a 1}".into()), Ok("2:2 {:a 2}".into())]);
        let bad = forms("[{:a 1}\n {:a 2}");
        assert!(
            bad[2].as_ref().unwrap_err().contains("never closed"),
            "{bad:?}"
        );
    }

    #[test]
    fn errors_say_where() {
        let got = forms("{:a 1}\n{:b 2\n");
        assert_eq!(got[0], Ok("1:1 {:a 1}".into()));
        let e = got[1].as_ref().unwrap_err();
        assert!(e.starts_with("line 2, column 1"), "{e}");
        let got = forms("{:a 1}\n  {:b 99999999999999999999}");
        let e = got[1].as_ref().unwrap_err();
        assert!(e.starts_with("line 2, column 7"), "{e}");
    }
}
