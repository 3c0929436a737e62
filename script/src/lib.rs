//! Bug scripts in and out of txlab's case format: a case's `repro.sql`, a
//! SQL script whose statements are marked with their session (`-- T1:`),
//! and PostgreSQL's isolation-tester `.spec` files become a [`TestCase`];
//! [`repro`] also writes the `repro.sql` of a finding.
//!
//! - [`split`]: statements and comments of SQL text, with line numbers;
//! - [`translate`]: one statement's SQL to the IR (via `sqlparser`);
//! - [`build`]: sessions' statements to transactions and a submitted order;
//! - [`repro`], [`marked`], [`spec`]: the formats.
//! - [`export`]: a finding's case as a mysql-test file, an isolation spec,
//!   Troc's case file or a `-- T1:` script (`txlab export`).

pub mod build;
pub mod error;
pub mod export;
pub mod marked;
pub mod repro;
pub mod spec;
pub mod split;
pub mod translate;

pub use error::ScriptError;
pub use translate::Family;

use txlab_plugin_api::ir::{IsolationLevel, TestCase};

/// How to read a script.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    pub family: Family,
    /// The level of transactions whose script states none.
    pub level: Option<IsolationLevel>,
    /// The level a DBMS of the family starts transactions at, used when
    /// neither the script nor `level` says; the caller names it.
    pub default_level: Option<IsolationLevel>,
    /// Which permutation of a `.spec` to take, from 1; the first by default.
    pub permutation: Option<usize>,
}

/// The formats a script can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// txlab's `repro.sql`: statements tagged `/* T1 */`.
    Repro,
    /// Statements marked `-- T1:`.
    Marked,
    /// PostgreSQL's isolation-tester spec.
    Spec,
}

impl Format {
    /// The format of `text` from the file's name and its content.
    pub fn detect(file: &str, text: &str) -> Format {
        if file.ends_with(".spec") {
            return Format::Spec;
        }
        if split::split(text)
            .iter()
            .any(|p| matches!(p, split::Piece::Statement { tag: Some(_), .. }))
        {
            return Format::Repro;
        }
        Format::Marked
    }
}

/// A script read as a case, with what the reader should know about how.
#[derive(Clone, Debug)]
pub struct Imported {
    pub case: TestCase,
    pub format: Format,
    /// Notes for the user (a level that was not stated, ignored statements).
    pub notes: Vec<String>,
}

/// Reads `text`, the content of `file` (named in errors), as a case.
pub fn import(file: &str, text: &str, options: &ImportOptions) -> Result<Imported, ScriptError> {
    let format = Format::detect(file, text);
    let (case, notes) = match format {
        Format::Repro => repro::import(file, text, options)?,
        Format::Marked => marked::import(file, text, options)?,
        Format::Spec => spec::import(file, text, options)?,
    };
    Ok(Imported {
        case,
        format,
        notes,
    })
}
