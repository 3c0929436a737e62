//! Errors that name where in the script they are.

use std::fmt;

/// Why a script could not become a case: the file, the line, the session when
/// the statement belongs to one, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ScriptError {
    pub file: String,
    /// 1-based; 0 when the problem is the whole file.
    pub line: usize,
    pub session: Option<String>,
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        f.write_str(": ")?;
        if let Some(session) = &self.session {
            write!(f, "{session}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// A problem found while translating one statement, before the file and line
/// are known; [`Located`] adds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem(pub String);

impl Problem {
    pub fn new(message: impl Into<String>) -> Self {
        Problem(message.into())
    }

    /// "X is not supported by txlab's case format".
    pub fn unsupported(what: impl fmt::Display) -> Self {
        Problem(format!("{what} is not supported by txlab's case format"))
    }
}

pub type Translated<T> = Result<T, Problem>;

/// Where a statement is, to turn a [`Problem`] into a [`ScriptError`].
#[derive(Debug, Clone)]
pub struct Located<'a> {
    pub file: &'a str,
    pub line: usize,
    pub session: Option<&'a str>,
}

impl Located<'_> {
    pub fn error(&self, message: impl Into<String>) -> ScriptError {
        ScriptError {
            file: self.file.to_string(),
            line: self.line,
            session: self.session.map(str::to_string),
            message: message.into(),
        }
    }

    pub fn problem(&self, p: Problem) -> ScriptError {
        self.error(p.0)
    }
}
