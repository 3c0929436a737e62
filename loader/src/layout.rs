//! One line from abi_stable's report of a layout mismatch, which can run to
//! thousands of lines.
//!
//! The report is a series of blocks, one per type pair abi_stable compared on the
//! way down from the root module: `N error(s)inside:`, the fields that led
//! there (`field_name:` / `type:` pairs), the expected and the found layout
//! (`type:`, `mod:`), then for each error `Error:<what>`, `Expected:` and
//! `Found:`, each followed by its value on the next lines.

/// The first mismatch: what it is, in which type, reached through which fields,
/// and how many others the report lists. Text of another shape (abi_stable's
/// other library errors) keeps its first line and its `Error:` lines.
pub(crate) fn summarize(text: &str) -> String {
    summarize_mismatch(text).unwrap_or_else(|| first_lines(text))
}

fn summarize_mismatch(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let count =
        |l: &str| -> Option<usize> { l.strip_suffix("error(s)inside:")?.trim().parse().ok() };
    let total: usize = lines.iter().filter_map(|l| count(l)).sum();
    let start = lines.iter().position(|l| count(l).is_some_and(|n| n > 0))?;
    let block = &lines[start + 1..];
    let expected_at = block
        .iter()
        .position(|l| *l == "Layout of expected type:")?;
    let path: Vec<&str> = block[..expected_at]
        .iter()
        .filter_map(|l| l.strip_prefix("field_name:"))
        .filter(|name| !is_synthetic(name))
        .collect();
    let after = &block[expected_at..];
    let ty = after.iter().find_map(|l| l.strip_prefix("type:"))?;
    let module = after
        .iter()
        .find_map(|l| l.split_once("mod:").map(|(_, m)| m.trim()))
        .unwrap_or("");
    let error_at = after.iter().position(|l| l.starts_with("Error:"))?;
    let what = after[error_at].trim_start_matches("Error:").trim();
    let value_after = |label: &str| {
        after[error_at..]
            .iter()
            .skip_while(|l| **l != label)
            .skip(1)
            .find(|l| !l.is_empty())
            .map(|v| shorten(v))
    };
    let mut s = format!("{what} in `{ty}`");
    if !module.is_empty() {
        s.push_str(&format!(" ({module})"));
    }
    if !path.is_empty() {
        s.push_str(&format!(" at `{}`", path.join(".")));
    }
    if let (Some(e), Some(f)) = (value_after("Expected:"), value_after("Found:")) {
        s.push_str(&format!(": expected {e}, found {f}"));
    }
    if total > 1 {
        s.push_str(&format!(" (and {} more)", total - 1));
    }
    Some(s)
}

/// Field names abi_stable makes up: a function's return value, tuple and
/// newtype fields.
fn is_synthetic(name: &str) -> bool {
    name.starts_with("__") || name.starts_with("field_") || name.chars().all(|c| c.is_ascii_digit())
}

fn shorten(value: &str) -> String {
    const MAX: usize = 60;
    if value.chars().count() <= MAX {
        value.to_string()
    } else {
        format!("{}…", value.chars().take(MAX).collect::<String>())
    }
}

/// The first line and the `Error:` lines, at most four.
fn first_lines(text: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    if let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
        lines.push(first);
    }
    for l in text.lines().map(str::trim) {
        if l.starts_with("Error:") && !lines.contains(&l) {
            lines.push(l);
        }
        if lines.len() >= 4 {
            break;
        }
    }
    lines.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_stable::abi_stability::check_layout_compatibility;
    use abi_stable::StableAbi;
    use txlab_plugin_api::abi::{ir_1_0, PluginLib_Ref};

    /// abi_stable's own report for a library with the IR 1.0 root module
    /// checked against the current one (a failed check leaves no state behind).
    #[test]
    fn a_real_report_names_the_type_the_fields_and_the_counts() {
        let report = check_layout_compatibility(
            <PluginLib_Ref as StableAbi>::LAYOUT,
            <ir_1_0::PluginLib_Ref as StableAbi>::LAYOUT,
        )
        .unwrap_err()
        .to_string();
        assert!(report.lines().count() > 100);
        let s = summarize(&report);
        assert_eq!(
            s,
            "too many fields in `PluginLib` (txlab_plugin_api::abi): expected 6, found 5 (and 1 more)"
        );
    }

    #[test]
    fn other_errors_keep_their_first_and_error_lines() {
        let text = "Compared <this>:\n  lots\nError:incompatible package versions\n  more\nError:too many fields\nError:x\nError:y\nError:z\n";
        let s = summarize(text);
        assert_eq!(
            s,
            "Compared <this>:; Error:incompatible package versions; Error:too many fields; Error:x"
        );
        assert!(!s.contains('\n'));
        assert_eq!(
            summarize("'txlab_plugin' library version mismatch:\nuser:0.1.0\nlibrary:0.0.9"),
            "'txlab_plugin' library version mismatch:"
        );
    }

    #[test]
    fn counts_beyond_the_first_error_are_reported() {
        let text = "\
0 error(s)inside:
    field_name:a
Layout of expected type:
    type:A
Error:x
1 error(s)inside:
    <other>
    field_name:entries
    type:AFunctionPointer
    field_name:__returns
    field_name:field_0
    type:EntryInfo
Layout of expected type:
    --- Type Layout ---
    type:EntryInfo
    line:3 mod:txlab_plugin_api::abi
Layout of found type:
    type:EntryInfo
Error:incompatible package versions
Expected:
    0.1.0
Found:
    0.2.0
2 error(s)inside:
Error:more
";
        assert_eq!(
            summarize(text),
            "incompatible package versions in `EntryInfo` (txlab_plugin_api::abi) at `entries`: expected 0.1.0, found 0.2.0 (and 2 more)"
        );
    }
}
