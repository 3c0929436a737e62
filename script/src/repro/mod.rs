//! txlab's `repro.sql` both ways: [`write`] makes it for a finding, and
//! [`import`] reads it (or any script whose session statements are tagged
//! `/* T1 */`) back into a case.
//!
//! The reader takes from the header the levels (`-- isolation: T1
//! read-committed, …`), the generator and case seed (`-- oracle …,
//! generator G; run seed …, case … (case seed S)`) and the pace the case
//! needs (`-- pace: 200 ms …`); the untagged statements
//! before the first tagged one are the set-up; tagged `SET` statements are
//! the sessions' set-up (a level, or a setting txlab leaves alone); the
//! final state's reads after [`write::FINAL_STATE`] are not part of the case.

pub mod write;

pub use write::{observed, repro_sql, ReproHeader};

use crate::build::Builder;
use crate::error::ScriptError;
use crate::split::{split, Piece};
use crate::translate::level_named;
use crate::ImportOptions;
use txlab_plugin_api::ir::TestCase;

/// Reads a script whose session statements are tagged `/* T1 */`.
pub fn import(
    file: &str,
    text: &str,
    options: &ImportOptions,
) -> Result<(TestCase, Vec<String>), ScriptError> {
    let mut b = Builder::new(file, options);
    let pieces = split(text);
    let mut tagged: Vec<(String, String, usize)> = Vec::new();
    for piece in &pieces {
        match piece {
            Piece::Comment { text, line } => {
                if text.starts_with(FINAL_STATE_WORDS) {
                    break;
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
    b.finish()
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
