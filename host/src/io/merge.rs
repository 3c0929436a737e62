//! `txlab merge`: run directories (the shards of one campaign, or runs of
//! one seed) combined into one summary, with findings and vendor-permitted
//! anomalies de-duplicated by oracle and signature.
//!
//! Summaries are merged as JSON, field by field, so that a field a newer
//! txlab adds is merged too: counts add up, maps of counts add up key by
//! key, `elapsed_secs` is the longest (shards run side by side), flags are
//! true when any run's is, lists are joined.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{}: {reason}", path.display())]
    Read { path: PathBuf, reason: String },
    #[error("the runs have different seeds ({0} and {1}): they are not parts of one run")]
    Seeds(u64, u64),
    #[error("shard {0} is given twice ({1} and {2})")]
    ShardTwice(String, PathBuf, PathBuf),
    #[error("the runs are shards of runs cut {0} and {1} ways: not parts of one run")]
    ShardCounts(u64, u64),
    #[error("{}: {reason}", path.display())]
    Write { path: PathBuf, reason: String },
}

/// Fields that are the same in every part, not added up.
const SAME: &[&str] = &["seed", "format_version"];
/// Fields that are the longest of the parts.
const LONGEST: &[&str] = &["elapsed_secs"];
/// Fields of one run that the merged summary replaces.
const PER_RUN: &[&str] = &["run_dir", "shard"];

/// `b` merged into `a`, field by field.
fn merge_value(a: &mut Value, b: &Value, key: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y))
            if LONGEST.contains(&key) && y.as_f64() > x.as_f64() =>
        {
            *x = y.clone();
        }
        (Value::Number(_), Value::Number(_)) if LONGEST.contains(&key) => {}
        (Value::Number(_), Value::Number(_)) if SAME.contains(&key) => {}
        (Value::Number(x), Value::Number(y)) => {
            *x = match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => (x + y).into(),
                _ => serde_json::Number::from_f64(
                    x.as_f64().unwrap_or(0.0) + y.as_f64().unwrap_or(0.0),
                )
                .unwrap_or_else(|| 0.into()),
            };
        }
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in y {
                match x.get_mut(k) {
                    Some(mine) => merge_value(mine, v, k),
                    None => {
                        x.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => x.extend(y.iter().cloned()),
        (Value::Bool(x), Value::Bool(y)) => *x |= *y,
        // Texts that differ between runs (why one stopped early) are all kept.
        (Value::String(x), Value::String(y)) if x != y => {
            *x = format!("{x}; {y}");
        }
        (a @ Value::Null, b) => *a = b.clone(),
        _ => {}
    }
}

fn read_json(path: &Path) -> Result<Value, MergeError> {
    let text = std::fs::read_to_string(path).map_err(|e| MergeError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    serde_json::from_str(&text).map_err(|e| MergeError::Read {
        path: path.to_path_buf(),
        reason: format!("not JSON: {e}"),
    })
}

/// One finding or anomaly directory of a run.
#[derive(Clone, Debug)]
struct Found {
    dir: PathBuf,
    oracle: String,
    signature: String,
}

/// The finding directories under `run/<kind>/`, with their oracle and
/// signature.
fn found(run: &Path, kind: &str) -> Result<Vec<Found>, MergeError> {
    let dir = run.join(kind);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.join("finding.json").is_file() {
            continue;
        }
        let finding = read_json(&path.join("finding.json"))?;
        let provenance = read_json(&path.join("provenance.json"))?;
        let signature = finding["signature"]
            .as_str()
            .filter(|s| !s.is_empty())
            .or(finding["title"].as_str())
            .unwrap_or_default()
            .to_string();
        out.push(Found {
            dir: path,
            oracle: provenance["oracle"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            signature,
        });
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(out)
}

/// What `merge` wrote.
#[derive(Debug)]
pub struct Merged {
    pub summary: Value,
    /// Distinct findings (oracle and signature).
    pub distinct_findings: usize,
    pub distinct_anomalies: usize,
    /// Shards of the run that none of the parts covered, as `INDEX/COUNT`.
    pub missing_shards: Vec<String>,
}

/// Merges the run directories `runs` into `out` (which must not exist):
/// `summary.json`, and per kind (`findings`, `anomalies`) one copy of the
/// first directory of each oracle and signature, with `<kind>.json` listing
/// every occurrence.
pub fn merge(runs: &[PathBuf], out: &Path) -> Result<Merged, MergeError> {
    let mut summary = Value::Object(Map::new());
    let mut seed: Option<u64> = None;
    let mut shards: BTreeMap<u64, PathBuf> = BTreeMap::new();
    let mut shard_count: Option<u64> = None;
    for run in runs {
        let part = read_json(&run.join("summary.json"))?;
        if let Some(s) = part["seed"].as_u64() {
            match seed {
                Some(first) if first != s => return Err(MergeError::Seeds(first, s)),
                _ => seed = Some(s),
            }
        }
        if let Some((index, count)) = part["shard"]
            .as_str()
            .and_then(|s| s.split_once('/'))
            .and_then(|(i, n)| Some((i.parse::<u64>().ok()?, n.parse::<u64>().ok()?)))
        {
            match shard_count {
                Some(first) if first != count => return Err(MergeError::ShardCounts(first, count)),
                _ => shard_count = Some(count),
            }
            if let Some(other) = shards.insert(index, run.clone()) {
                return Err(MergeError::ShardTwice(
                    format!("{index}/{count}"),
                    other,
                    run.clone(),
                ));
            }
        }
        let mut part = part;
        if let Value::Object(fields) = &mut part {
            for key in PER_RUN {
                fields.remove(*key);
            }
        }
        merge_value(&mut summary, &part, "");
    }
    let missing_shards: Vec<String> = match shard_count {
        Some(n) => (0..n)
            .filter(|i| !shards.contains_key(i))
            .map(|i| format!("{i}/{n}"))
            .collect(),
        None => Vec::new(),
    };

    std::fs::create_dir(out).map_err(|e| MergeError::Write {
        path: out.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut distinct = BTreeMap::new();
    for kind in ["findings", "anomalies"] {
        let mut groups: BTreeMap<(String, String), Vec<Found>> = BTreeMap::new();
        for run in runs {
            for f in found(run, kind)? {
                groups
                    .entry((f.oracle.clone(), f.signature.clone()))
                    .or_default()
                    .push(f);
            }
        }
        let mut listing = Vec::new();
        for ((oracle, signature), all) in &groups {
            let first = &all[0];
            let name = format!(
                "{}-{}",
                listing.len() + 1,
                first
                    .dir
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("finding")
            );
            let kept = out.join(kind).join(&name);
            copy_dir(&first.dir, &kept)?;
            listing.push(json!({
                "oracle": oracle,
                "signature": signature,
                "count": all.len(),
                "kept": format!("{kind}/{name}"),
                "occurrences": all.iter().map(|f| &f.dir).collect::<Vec<_>>(),
            }));
        }
        distinct.insert(kind, listing.len());
        write(&out.join(format!("{kind}.json")), &Value::Array(listing))?;
    }
    if let Value::Object(fields) = &mut summary {
        fields.insert("run_dir".into(), json!(out));
        fields.insert("merged_from".into(), json!(runs));
        if shard_count.is_some() {
            fields.insert("shards_missing".into(), json!(missing_shards));
        }
        fields.insert(
            "distinct_findings".into(),
            json!(distinct.get("findings").copied().unwrap_or(0)),
        );
        fields.insert(
            "distinct_anomalies".into(),
            json!(distinct.get("anomalies").copied().unwrap_or(0)),
        );
    }
    write(&out.join("summary.json"), &summary)?;
    Ok(Merged {
        summary,
        distinct_findings: distinct.get("findings").copied().unwrap_or(0),
        distinct_anomalies: distinct.get("anomalies").copied().unwrap_or(0),
        missing_shards,
    })
}

fn write(path: &Path, value: &Value) -> Result<(), MergeError> {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    super::write_atomically(path, text.as_bytes()).map_err(|e| MergeError::Write {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), MergeError> {
    let fail = |path: &Path, e: std::io::Error| MergeError::Write {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(to).map_err(|e| fail(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| fail(from, e))? {
        let entry = entry.map_err(|e| fail(from, e))?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| fail(&target, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_maps_merge_and_the_longest_time_wins() {
        let mut a = json!({
            "seed": 7, "cases": 10, "elapsed_secs": 3.5, "interrupted": false,
            "finding_kinds": {"wss: x": 1}, "databases": ["d1"],
            "exercised": {"transactions": 30, "aborted": {"deadlock": 2}},
        });
        let b = json!({
            "seed": 7, "cases": 12, "elapsed_secs": 4.0, "interrupted": true,
            "finding_kinds": {"wss: x": 2, "troc: y": 1}, "databases": ["d2"],
            "exercised": {"transactions": 33, "aborted": {"deadlock": 1, "timeout": 1}},
            "stopped_early": "server gone",
        });
        merge_value(&mut a, &b, "");
        assert_eq!(
            a,
            json!({
                "seed": 7, "cases": 22, "elapsed_secs": 4.0, "interrupted": true,
                "finding_kinds": {"wss: x": 3, "troc: y": 1}, "databases": ["d1", "d2"],
                "exercised": {"transactions": 63, "aborted": {"deadlock": 3, "timeout": 1}},
                "stopped_early": "server gone",
            })
        );
    }
}
