//! A finding's case written in the formats DBMS developers run: a
//! mysql-test `.test` file (with the `.result` txlab observed), a
//! PostgreSQL isolation-tester `.spec`, Troc's case file, and a plain
//! `-- T1:` marked script (`txlab export`, docs/export.md).
//!
//! Every format runs the statements in the order they ran
//! ([`order::execution_order`]): the submitted order with a blocked
//! statement's transaction held until the statement resumed, as a person
//! types them. The `spec` and `sql` exports read back (`txlab import`) as
//! the same case with that order as its submitted order.

mod mtr;
mod mtr_result;
pub mod order;
mod settings;
mod spec;
mod sql;
mod troc;

use crate::Family;
use std::fmt;
use txlab_plugin_api::ir::*;

/// The formats `txlab export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// A mysql-test case (`.test`) and its expected output (`.result`).
    Mtr,
    /// A PostgreSQL isolation-tester spec.
    Spec,
    /// Troc's case file (the artifact's `cases/*.txt`).
    Troc,
    /// SQL whose session statements are marked `-- T1:`.
    Sql,
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 4] = [
        ExportFormat::Mtr,
        ExportFormat::Spec,
        ExportFormat::Troc,
        ExportFormat::Sql,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Mtr => "mtr",
            ExportFormat::Spec => "spec",
            ExportFormat::Troc => "troc",
            ExportFormat::Sql => "sql",
        }
    }

    pub fn named(name: &str) -> Option<ExportFormat> {
        ExportFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The extension of the main file.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Mtr => "test",
            ExportFormat::Spec => "spec",
            ExportFormat::Troc => "txt",
            ExportFormat::Sql => "sql",
        }
    }

    /// Whether the format's tool runs cases of a DBMS of `family`.
    pub fn fits(self, family: Family) -> bool {
        match self {
            ExportFormat::Mtr | ExportFormat::Troc => family == Family::Mysql,
            ExportFormat::Spec => family == Family::Postgres,
            ExportFormat::Sql => true,
        }
    }

    /// The DBMSs the format is for, in words.
    pub fn for_whom(self) -> &'static str {
        match self {
            ExportFormat::Mtr => "mysql-test runs MySQL-family servers (MySQL, MariaDB)",
            ExportFormat::Troc => "Troc tests MySQL, MariaDB and TiDB",
            ExportFormat::Spec => {
                "PostgreSQL's isolation tester runs PostgreSQL-family servers (PostgreSQL, CockroachDB)"
            }
            ExportFormat::Sql => "every dialect",
        }
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a finding came from, for the header (as repro.sql says it; the
/// `sql` and `spec` readers take the generator and case seed back from it).
#[derive(Clone, Copy, Debug)]
pub struct Origin<'a> {
    pub oracle: &'a str,
    pub generator: &'a str,
    pub request: CaseRequest,
}

/// What an export is made from: the case as it ran (`case.json`), what was
/// observed (`history.json`), and the case as the dialect renders it.
#[derive(Clone, Copy, Debug)]
pub struct ExportInput<'a> {
    pub case: &'a TestCase,
    pub history: &'a History,
    pub rendered: &'a RenderedCase,
    /// The family of the dialect the case ran on.
    pub family: Family,
    /// The dialect's name (`mariadb`, `postgres`, …).
    pub dialect: &'a str,
    /// The first comment line: what the file shows, e.g. `txlab finding: <title>`.
    pub lead: &'a str,
    /// Where the case came from, when known (a finding's provenance.json).
    pub origin: Option<Origin<'a>>,
}

/// Choices a format leaves open.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// mtr: the database the connections use (mysql-test's own `test` when
    /// not given; another one is also selected with `USE` on the default
    /// connection).
    pub database: Option<String>,
}

/// One file of an export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    /// Its extension: the format's, or `result` for mtr's expected output.
    pub extension: &'static str,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The format is not for the case's DBMS.
    #[error("--format {format} does not fit dialect `{dialect}`: {}", format.for_whom())]
    WrongDialect {
        format: ExportFormat,
        dialect: String,
    },
    /// The case uses something the format cannot say.
    #[error("--format {format}: {message}")]
    Unsupported {
        format: ExportFormat,
        message: String,
    },
    /// The history or rendering does not belong to the case.
    #[error("{0}")]
    Mismatch(String),
}

/// Writes `input` as `format`: the main file first (mtr adds the `.result`).
pub fn export(
    format: ExportFormat,
    input: &ExportInput<'_>,
    options: &ExportOptions,
) -> Result<Vec<ExportFile>, ExportError> {
    if !format.fits(input.family) {
        return Err(ExportError::WrongDialect {
            format,
            dialect: input.dialect.to_string(),
        });
    }
    check_shapes(input)?;
    let file = |text| ExportFile {
        extension: format.extension(),
        text,
    };
    Ok(match format {
        ExportFormat::Mtr => {
            let plan = mtr::plan(input, options);
            vec![
                file(plan.test),
                ExportFile {
                    extension: "result",
                    text: plan.result,
                },
            ]
        }
        ExportFormat::Spec => vec![file(spec::write(input)?)],
        ExportFormat::Troc => vec![file(troc::write(input)?)],
        ExportFormat::Sql => vec![file(sql::write(input))],
    })
}

fn check_shapes(input: &ExportInput<'_>) -> Result<(), ExportError> {
    let case = input.case;
    case.validate()
        .map_err(|e| ExportError::Mismatch(format!("the case is invalid: {e}")))?;
    input
        .history
        .check_shape(case)
        .map_err(|e| ExportError::Mismatch(format!("the history is not the case's: {e}")))?;
    let rendered = &input.rendered.transactions;
    if rendered.len() != case.transactions.len()
        || rendered
            .iter()
            .zip(&case.transactions)
            .any(|(r, t)| r.statements.len() != t.statements.len())
    {
        return Err(ExportError::Mismatch(
            "the rendered SQL does not match the case's statements".into(),
        ));
    }
    Ok(())
}

/// The header's origin line, as repro.sql writes it.
pub(crate) fn origin_line(input: &ExportInput<'_>) -> String {
    match input.origin {
        Some(o) => format!(
            "oracle {}, dialect {}, generator {}; run seed {}, case {} (case seed {})",
            o.oracle,
            input.dialect,
            o.generator,
            o.request.run_seed,
            o.request.index,
            o.request.seed
        ),
        None => format!(
            "oracle -, dialect {}, generator {}; run seed -, case - (case seed {})",
            input.dialect,
            if input.case.generator.is_empty() {
                "-"
            } else {
                &input.case.generator
            },
            input.case.seed
        ),
    }
}

/// `-- isolation: T1 read-committed, …` without the comment mark.
pub(crate) fn levels_line(case: &TestCase) -> String {
    let levels: Vec<String> = case
        .transactions
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{} {}", txn_label(i), t.isolation))
        .collect();
    format!("isolation: {}", levels.join(", "))
}

/// The pace line without the comment mark, when the case has a pace.
pub(crate) fn pace_line(case: &TestCase) -> Option<String> {
    case.pace_ms.map(|ms| {
        format!(
            "pace: {ms} ms after each statement that blocked and after each COMMIT or ROLLBACK (the finding showed only at this pace)"
        )
    })
}

/// A statement's SQL without trailing blanks, ending in one `;`.
pub(crate) fn with_semicolon(sql: &str) -> String {
    let s = sql.trim_end();
    if s.ends_with(';') {
        s.to_string()
    } else {
        format!("{s};")
    }
}

/// `text` on one line, for a comment.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A statement's SQL without a trailing `;`.
pub(crate) fn without_semicolon(sql: &str) -> &str {
    sql.trim_end().trim_end_matches(';').trim_end()
}

/// The rendered SQL of statement `at`.
pub(crate) fn sql_of<'a>(input: &ExportInput<'a>, at: StatementRef) -> &'a str {
    &input.rendered.transactions[at.txn()].statements[at.stmt()]
}

/// The set-up statements: tables and indexes, then the initial rows.
pub(crate) fn setup_sql<'a>(input: &ExportInput<'a>) -> impl Iterator<Item = &'a String> {
    input.rendered.create.iter().chain(&input.rendered.populate)
}

/// The final state as comment lines (without the comment mark).
pub(crate) fn final_state_lines(history: &History) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(state) = &history.final_state {
        for t in &state.tables {
            let rows: Vec<String> = t.rows.iter().map(|r| RowText(r).to_string()).collect();
            lines.push(format!(
                "  {} ({}): {}",
                t.table,
                t.columns.join(", "),
                if rows.is_empty() {
                    "(empty)".to_string()
                } else {
                    rows.join(", ")
                }
            ));
        }
    }
    lines
}
