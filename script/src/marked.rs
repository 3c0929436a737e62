//! Scripts whose session statements are marked with a line comment naming
//! the session: `-- T1: BEGIN;` (the statement after the marker, on the
//! marker's line) or a line `-- T1:` alone before the statement. Session
//! names are `T` or `S` and a number (`T1`, `s2`); the statements before the
//! first marked one are the set-up. A marked line becomes the `/* T1 */` tag
//! of repro.sql on the same line, so both read the same way after that.

use crate::error::ScriptError;
use crate::split::is_session_name;
use crate::ImportOptions;
use txlab_plugin_api::ir::TestCase;

/// `line` with its `-- T1:` marker turned into a `/* T1 */` tag, if it has one.
fn tag_marker(line: &str) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let rest = line.trim_start().strip_prefix("--")?.trim_start();
    let (name, after) = rest.split_once(':')?;
    if !is_session_name(name.trim_end()) || name.trim_end() != name {
        return None;
    }
    Some(format!("{indent}/* {name} */ {}", after.trim_start()))
}

/// The script with its markers as tags, line for line.
pub fn tagged(text: &str) -> String {
    text.split('\n')
        .map(|line| tag_marker(line).unwrap_or_else(|| line.to_string()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn import(
    file: &str,
    text: &str,
    options: &ImportOptions,
) -> Result<(TestCase, Vec<String>), ScriptError> {
    crate::repro::import(file, &tagged(text), options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_become_tags_on_the_same_line() {
        let text = "CREATE TABLE t (a INT);\n-- T1: BEGIN;\n  -- s2:\nUPDATE t SET a = 1;\n-- Note: not a marker\n-- T1 : nor this";
        assert_eq!(
            tagged(text),
            "CREATE TABLE t (a INT);\n/* T1 */ BEGIN;\n  /* s2 */ \nUPDATE t SET a = 1;\n-- Note: not a marker\n-- T1 : nor this"
        );
    }
}
