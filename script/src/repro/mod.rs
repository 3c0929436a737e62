//! txlab's `repro.sql` both ways: [`write`] makes it for a finding, and
//! [`import`] reads it (or any script whose session statements are tagged
//! `/* T1 */`) back into a case.
//!
//! The reader takes from the header the levels (`-- isolation: T1
//! read-committed, …`), the generator and case seed (`-- oracle …,
//! generator G; run seed …, case … (case seed S)`), the pace the case
//! needs (`-- pace: 200 ms …`) and the submitted order when the statements
//! are written in another (`-- submitted order: T1.1 T2.1 …`: they are
//! written in the order they ran); the untagged statements
//! before the first tagged one are the set-up; tagged `SET` statements are
//! the sessions' set-up (a level, or a setting txlab leaves alone); the
//! final state's reads after [`write::FINAL_STATE`] are not part of the case.

pub mod plain;
mod settings;
pub mod steps;
pub mod write;

pub use plain::{without_auxiliary_columns, PlainCase};
pub use steps::{execution_steps, Step};
pub use write::{observed, observed_outcome, repro_sql, step_note, ReproHeader};

use crate::build::Builder;
use crate::error::ScriptError;
use crate::split::{split, Piece};
use crate::translate::level_named;
use crate::ImportOptions;
use txlab_plugin_api::ir::{StatementRef, TestCase};

/// Reads a script whose session statements are tagged `/* T1 */`.
pub fn import(
    file: &str,
    text: &str,
    options: &ImportOptions,
) -> Result<(TestCase, Vec<String>), ScriptError> {
    let mut b = Builder::new(file, options);
    let pieces = split(text);
    let mut tagged: Vec<(String, String, usize)> = Vec::new();
    let mut submitted: Option<(Vec<StatementRef>, usize)> = None;
    for piece in &pieces {
        match piece {
            Piece::Comment { text, line } => {
                if text.starts_with(FINAL_STATE_WORDS) {
                    break;
                }
                if let Some(order) = text.strip_prefix(write::SUBMITTED_ORDER) {
                    submitted = Some((submitted_order(&b, order, *line)?, *line));
                    continue;
                }
                header(&mut b, text, *line)?;
            }
            Piece::Statement {
                sql,
                line,
                tag: None,
            } => {
                if !tagged.is_empty() || b.sessions_began() {
                    return Err(b.error(
                        *line,
                        "statement without a session marker after the session statements began: mark it (`-- T1:` or `/* T1 */`)",
                    ));
                }
                b.setup(sql, *line)?;
            }
            Piece::Statement {
                sql,
                line,
                tag: Some(tag),
            } => tagged.push((tag.clone(), sql.clone(), *line)),
        }
    }
    for (tag, sql, line) in &tagged {
        b.session(tag, sql, *line)?;
    }
    let (mut case, notes) = b.finish()?;
    if let Some((order, line)) = submitted {
        // The statements are written in the order they ran; the header keeps
        // the order they were submitted in.
        let ran = std::mem::replace(&mut case.submitted_order, order);
        if let Err(e) = case.validate() {
            return Err(ScriptError {
                file: file.to_string(),
                line,
                session: None,
                message: format!(
                    "the submitted order in the header does not fit the statements: {e} (the statements ran as {})",
                    ran.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ")
                ),
            });
        }
    }
    Ok((case, notes))
}

/// `T1.1 T2.1 …` from the header: statement labels, 1-based.
fn submitted_order(
    b: &Builder<'_>,
    text: &str,
    line: usize,
) -> Result<Vec<StatementRef>, ScriptError> {
    text.split_whitespace()
        .map(|label| {
            let parsed = label
                .strip_prefix('T')
                .and_then(|l| l.split_once('.'))
                .and_then(|(t, s)| Some((t.parse::<usize>().ok()?, s.parse::<usize>().ok()?)))
                .filter(|&(t, s)| t > 0 && s > 0);
            match parsed {
                Some((t, s)) => Ok(StatementRef::new(t - 1, s - 1)),
                None => Err(b.error(
                    line,
                    format!(
                        "`{label}` in the submitted order is not a statement label like `T2.3`"
                    ),
                )),
            }
        })
        .collect()
}

const FINAL_STATE_WORDS: &str = "4. The final state";

/// A header comment: the levels, the generator and the case seed, or the
/// pace. The spec reader reads a spec's leading `#` comments with it too.
pub(crate) fn header(b: &mut Builder<'_>, text: &str, line: usize) -> Result<(), ScriptError> {
    if let Some(pace) = text.strip_prefix(write::PACE) {
        let ms = pace
            .trim_start()
            .split_once(" ms")
            .and_then(|(n, _)| n.trim().parse::<u64>().ok())
            .ok_or_else(|| {
                b.error(
                    line,
                    format!(
                        "`{}` needs a number of milliseconds, as in `{} 200 ms`",
                        write::PACE,
                        write::PACE
                    ),
                )
            })?;
        b.pace_ms = (ms > 0).then_some(ms);
    } else if let Some(levels) = text.strip_prefix("isolation:") {
        for item in levels.split(',') {
            let item = item.trim();
            let Some((session, level)) = item.split_once(' ') else {
                continue;
            };
            let level = level_named(level).ok_or_else(|| {
                b.error(
                    line,
                    format!("unknown isolation level `{level}` in the header"),
                )
            })?;
            b.header_levels.insert(session.to_string(), level);
        }
    } else if let Some(rest) = text.strip_prefix("oracle ") {
        if let Some((_, g)) = rest.split_once(", generator ") {
            if let Some((generator, _)) = g.split_once(';') {
                // `-`: an export of a case whose generator is not known.
                b.generator = if generator == "-" { "" } else { generator }.to_string();
            }
        }
        if let Some((_, seed)) = rest.rsplit_once("(case seed ") {
            if let Ok(seed) = seed.trim_end_matches(')').parse() {
                b.seed = seed;
            }
        }
    }
    Ok(())
}
