//! PostgreSQL's isolation-tester specs (src/test/isolation/README in
//! PostgreSQL's source): `setup { … }` blocks (the set-up), an optional
//! `teardown { … }` (ignored: the case's tables go with its database), then
//! `session NAME` with an optional `setup { … }`, its `step NAME { … }`s and
//! an optional `teardown { … }`, then `permutation STEP …` lines. A
//! permutation lists the steps in the order they run; each session's set-up
//! runs before the first step and its teardown after the last, as the tester
//! does. Without permutations the tester runs every interleaving of the
//! sessions' steps that keeps each session's order; so does
//! `--permutation N`, in the tester's order (the first runs the sessions one
//! after another). Step markers such as `s1a(s2b)` or `s1a(*)` only tell the
//! tester how to wait; txlab sees blocking itself, so they are ignored.
//! Leading `#` comments may carry repro.sql's header lines (the generator
//! and case seed, `# pace: 200 ms`).

use crate::build::Builder;
use crate::error::ScriptError;
use crate::split::{split, Piece};
use crate::ImportOptions;
use txlab_plugin_api::ir::TestCase;

#[derive(Debug)]
enum Token {
    Word(String, usize),
    /// The text between the braces and the line of `{`.
    Block(String, usize),
    /// A step marker in parentheses after a permutation's step name.
    Marker(usize),
}

fn tokens(file: &str, text: &str) -> Result<Vec<Token>, ScriptError> {
    let err = |line, message: &str| ScriptError {
        file: file.to_string(),
        line,
        session: None,
        message: message.to_string(),
    };
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '{' => {
                let start = line;
                let mut body = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '}' {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    body.push(chars[i]);
                    i += 1;
                }
                if i == chars.len() {
                    return Err(err(start, "`{` without its `}`"));
                }
                i += 1;
                out.push(Token::Block(body, start));
            }
            '}' => return Err(err(line, "`}` without its `{`")),
            '(' => {
                let start = line;
                while i < chars.len() && chars[i] != ')' {
                    i += 1;
                }
                if i == chars.len() {
                    return Err(err(start, "`(` without its `)`"));
                }
                i += 1;
                out.push(Token::Marker(start));
            }
            '"' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '"')
                    .ok_or_else(|| err(line, "a quoted name without its closing `\"`"))?;
                out.push(Token::Word(
                    chars[i + 1..i + 1 + end].iter().collect(),
                    line,
                ));
                i += end + 2;
            }
            _ => {
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && !"{}()#\"".contains(chars[i])
                {
                    i += 1;
                }
                out.push(Token::Word(chars[start..i].iter().collect(), line));
            }
        }
    }
    Ok(out)
}

fn is_keyword(w: &str) -> bool {
    matches!(w, "setup" | "teardown" | "session" | "step" | "permutation")
}

/// A block's statements with their lines in the file.
fn statements(block: &str, first_line: usize) -> Vec<(String, usize)> {
    split(block)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Statement { sql, line, .. } => Some((sql, first_line + line - 1)),
            Piece::Comment { .. } => None,
        })
        .collect()
}

#[derive(Default)]
struct SpecSession {
    name: String,
    setup: Vec<(String, usize)>,
    steps: Vec<(String, Vec<(String, usize)>)>,
    teardown: Vec<(String, usize)>,
}

struct Spec {
    setup: Vec<(String, usize)>,
    sessions: Vec<SpecSession>,
    /// Each permutation's step names and its line.
    permutations: Vec<(Vec<String>, usize)>,
}

fn parse(file: &str, text: &str) -> Result<Spec, ScriptError> {
    let err = |line, message: String| ScriptError {
        file: file.to_string(),
        line,
        session: None,
        message,
    };
    let mut spec = Spec {
        setup: Vec::new(),
        sessions: Vec::new(),
        permutations: Vec::new(),
    };
    let mut it = tokens(file, text)?.into_iter().peekable();
    let block = |it: &mut std::iter::Peekable<std::vec::IntoIter<Token>>, after: &str, line| {
        match it.next() {
            Some(Token::Block(body, l)) => Ok(statements(&body, l)),
            _ => Err(err(
                line,
                format!("`{after}` must be followed by a `{{ … }}` block"),
            )),
        }
    };
    while let Some(token) = it.next() {
        let (word, line) = match token {
            Token::Word(w, l) => (w, l),
            Token::Block(_, l) => {
                return Err(err(l, "a `{ … }` block without a keyword before it".into()))
            }
            Token::Marker(l) => {
                return Err(err(l, "a step marker `( … )` outside a permutation".into()))
            }
        };
        match word.as_str() {
            "setup" if spec.sessions.is_empty() => spec.setup.extend(block(&mut it, "setup", line)?),
            "teardown" if spec.sessions.is_empty() => {
                block(&mut it, "teardown", line)?;
            }
            "session" => {
                let Some(Token::Word(name, _)) = it.next() else {
                    return Err(err(line, "`session` must be followed by its name".into()));
                };
                spec.sessions.push(SpecSession {
                    name,
                    ..SpecSession::default()
                });
            }
            "setup" | "teardown" | "step" => {
                let Some(session) = spec.sessions.last_mut() else {
                    return Err(err(line, format!("`{word}` before any `session`")));
                };
                if word == "step" {
                    let Some(Token::Word(name, _)) = it.next() else {
                        return Err(err(line, "`step` must be followed by its name".into()));
                    };
                    let body = block(&mut it, "step", line)?;
                    session.steps.push((name, body));
                } else if word == "setup" {
                    session.setup.extend(block(&mut it, "setup", line)?);
                } else {
                    session.teardown.extend(block(&mut it, "teardown", line)?);
                }
            }
            "permutation" => {
                let mut steps = Vec::new();
                loop {
                    match it.peek() {
                        Some(Token::Word(w, _)) if w != "permutation" && !is_keyword(w) => {
                            steps.push(w.clone());
                            it.next();
                        }
                        Some(Token::Marker(_)) => {
                            it.next();
                        }
                        _ => break,
                    }
                }
                if steps.is_empty() {
                    return Err(err(line, "`permutation` lists no steps".into()));
                }
                spec.permutations.push((steps, line));
            }
            other => return Err(err(line, format!("unexpected `{other}`: a spec has setup, teardown, session, step and permutation"))),
        }
    }
    if spec.sessions.is_empty() {
        return Err(err(0, "the spec has no `session`".into()));
    }
    Ok(spec)
}

/// The `n`th (from 0) interleaving of sessions with `lengths` steps, in the
/// isolation tester's order (sessions tried in order at every position), as
/// session indexes; `None` when there are fewer.
fn interleaving(lengths: &[usize], n: usize) -> Option<Vec<usize>> {
    fn go(left: &mut [usize], n: &mut usize, acc: &mut Vec<usize>) -> bool {
        if left.iter().all(|&l| l == 0) {
            if *n == 0 {
                return true;
            }
            *n -= 1;
            return false;
        }
        for s in 0..left.len() {
            if left[s] > 0 {
                left[s] -= 1;
                acc.push(s);
                if go(left, n, acc) {
                    return true;
                }
                acc.pop();
                left[s] += 1;
            }
        }
        false
    }
    let mut left = lengths.to_vec();
    let (mut n, mut acc) = (n, Vec::new());
    go(&mut left, &mut n, &mut acc).then_some(acc)
}

pub fn import(
    file: &str,
    text: &str,
    options: &ImportOptions,
) -> Result<(TestCase, Vec<String>), ScriptError> {
    let spec = parse(file, text)?;
    let mut b = Builder::new(file, options);
    // The leading comments may say what repro.sql's header says: the
    // generator and case seed, and the pace (`# pace: 200 ms`), as `txlab
    // export --format spec` writes them.
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix('#') else {
            break;
        };
        crate::repro::header(&mut b, comment.trim(), i + 1)?;
    }
    for (sql, line) in &spec.setup {
        b.setup(sql, *line)?;
    }
    let chosen = options.permutation.unwrap_or(1);
    if chosen == 0 {
        return Err(b.error(0, "--permutation counts from 1"));
    }
    // (session, step) pairs in the order they run.
    let order: Vec<(usize, usize)> = if spec.permutations.is_empty() {
        let lengths: Vec<usize> = spec.sessions.iter().map(|s| s.steps.len()).collect();
        let sessions = interleaving(&lengths, chosen - 1).ok_or_else(|| {
            b.error(
                0,
                format!("the spec has fewer than {chosen} interleavings of its steps"),
            )
        })?;
        let mut next = vec![0; lengths.len()];
        sessions
            .into_iter()
            .map(|s| {
                next[s] += 1;
                (s, next[s] - 1)
            })
            .collect()
    } else {
        let Some((steps, line)) = spec.permutations.get(chosen - 1) else {
            return Err(b.error(
                0,
                format!(
                    "the spec has {} permutations; there is no permutation {chosen}",
                    spec.permutations.len()
                ),
            ));
        };
        steps
            .iter()
            .map(|name| {
                spec.sessions
                    .iter()
                    .enumerate()
                    .find_map(|(s, session)| {
                        session
                            .steps
                            .iter()
                            .position(|(n, _)| n == name)
                            .map(|i| (s, i))
                    })
                    .ok_or_else(|| {
                        b.error(
                            *line,
                            format!(
                                "permutation {chosen} names step `{name}`, which no session has"
                            ),
                        )
                    })
            })
            .collect::<Result<_, _>>()?
    };
    for s in &spec.sessions {
        b.declare(&s.name);
    }
    for s in &spec.sessions {
        for (sql, line) in &s.setup {
            b.session(&s.name, sql, *line)?;
        }
    }
    for (s, step) in order {
        let session = &spec.sessions[s];
        for (sql, line) in &session.steps[step].1 {
            b.session(&session.name, sql, *line)?;
        }
    }
    for s in &spec.sessions {
        for (sql, line) in &s.teardown {
            b.session(&s.name, sql, *line)?;
        }
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleavings_come_in_the_testers_order() {
        assert_eq!(interleaving(&[2, 1], 0), Some(vec![0, 0, 1]));
        assert_eq!(interleaving(&[2, 1], 1), Some(vec![0, 1, 0]));
        assert_eq!(interleaving(&[2, 1], 2), Some(vec![1, 0, 0]));
        assert_eq!(interleaving(&[2, 1], 3), None);
    }
}
