//! Expected against actual, read from a finding's machine-readable evidence
//! (`finding.json`): Troc's differences (the statement's view against the
//! concurrent run), WSS's serial replays against the concurrent run, and
//! TxCheck's run without transactions against the transactional one. An
//! oracle whose evidence has none of these shapes (IsoRel: a dependency
//! cycle) gives no comparison; the page shows its evidence as JSON.

use serde_json::Value as Json;
use txlab_plugin_api::ir::{Outcome, RowText, StatementRef, Value};

/// One difference: what the model expected and what the run did, as lines
/// (a sentence, or rows).
#[derive(Debug, Default, PartialEq)]
pub struct Comparison {
    pub what: String,
    pub expected: Vec<String>,
    pub actual: Vec<String>,
}

/// The comparisons, with the names of the two sides.
#[derive(Debug, Default, PartialEq)]
pub struct Comparisons {
    pub expected_side: String,
    pub actual_side: String,
    pub items: Vec<Comparison>,
}

/// A value of the evidence as a report shows it: a statement as `T2.3`, a
/// SQL value as `'a'`, a row as `(1, 'a')`, an outcome as `affected 1 row`.
pub fn value_text(v: &Json) -> String {
    if let Json::String(s) = v {
        return s.clone();
    }
    if let Ok(at) = serde_json::from_value::<StatementRef>(v.clone()) {
        return at.to_string();
    }
    if let Ok(value) = serde_json::from_value::<Value>(v.clone()) {
        return value.to_string();
    }
    if let Ok(row) = serde_json::from_value::<Vec<Value>>(v.clone()) {
        return RowText(&row).to_string();
    }
    if let Ok(outcome) = serde_json::from_value::<Outcome>(v.clone()) {
        return outcome.to_string();
    }
    v.to_string()
}

/// An outcome as lines: what it did, and the rows it returned.
fn outcome_lines(v: &Json) -> Vec<String> {
    match serde_json::from_value::<Outcome>(v.clone()) {
        Ok(Outcome::Rows { columns, rows }) => {
            let mut lines = vec![format!(
                "returned {} rows ({})",
                rows.len(),
                columns.join(", ")
            )];
            lines.extend(rows.iter().map(|r| RowText(r).to_string()));
            lines
        }
        Ok(o) => vec![o.to_string()],
        Err(_) => vec![value_text(v)],
    }
}

fn rows(v: &Json) -> Vec<String> {
    v.as_array()
        .map(|rows| rows.iter().map(value_text).collect())
        .unwrap_or_default()
}

fn text(v: &Json, key: &str) -> String {
    v.get(key).map(value_text).unwrap_or_default()
}

fn words(snake: &str) -> String {
    snake.replace('_', " ")
}

/// The rows only one side has, under a heading, or nothing.
fn only(label: &str, v: Option<&Json>) -> Vec<String> {
    let r = v.map(rows).unwrap_or_default();
    if r.is_empty() {
        return r;
    }
    let mut lines = vec![format!("{label}:")];
    lines.extend(r);
    lines
}

fn troc(differences: &[Json]) -> Comparisons {
    let items = differences
        .iter()
        .map(|d| {
            let mut what = format!("{} {}", text(d, "at"), words(&text(d, "kind")));
            if let Some(level) = d.get("level").filter(|l| !l.is_null()) {
                what.push_str(&format!(" ({})", words(&value_text(level))));
            }
            let view = text(d, "view");
            if !view.is_empty() {
                what.push_str(&format!("; view: {view}"));
            }
            let mut expected = vec![text(d, "expected")];
            expected.extend(only("rows only expected", d.get("only_expected")));
            let mut actual = vec![text(d, "actual")];
            actual.extend(only("rows only in the run", d.get("only_actual")));
            Comparison {
                what: what.trim().to_string(),
                expected,
                actual,
            }
        })
        .collect();
    Comparisons {
        expected_side: "expected (the statement alone on its view)".into(),
        actual_side: "actual (the concurrent run)".into(),
        items,
    }
}

/// WSS: per serial order tried, the tables and write outcomes that differ.
fn wss(orders: &[Json], serializable: bool) -> Comparisons {
    let mut items = Vec::new();
    for o in orders {
        let order = if serializable {
            format!(
                "serial order {}",
                o.get("order").map(order_text).unwrap_or_default()
            )
        } else {
            let schedule = o
                .get("serial_schedule")
                .and_then(Json::as_array)
                .map(|s| {
                    s.iter()
                        .map(|t| text(t, "transaction"))
                        .collect::<Vec<_>>()
                        .join(" → ")
                })
                .unwrap_or_default();
            format!("{} serial {schedule}", words(&text(o, "variant")))
        };
        for t in o
            .get("table_differences")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let columns = t
                .get("columns")
                .and_then(Json::as_array)
                .map(|c| c.iter().map(value_text).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            items.push(Comparison {
                what: format!("{}: table {} ({columns})", order.trim(), text(t, "table")),
                expected: only("rows only the serial run left", t.get("only_serial")),
                actual: only(
                    "rows only the concurrent run left",
                    t.get("only_concurrent"),
                ),
            });
        }
        for d in o
            .get("outcome_differences")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            items.push(Comparison {
                what: format!(
                    "{}: {} {}",
                    order.trim(),
                    text(d, "statement"),
                    words(&text(d, "kind"))
                ),
                expected: d.get("serial").map(outcome_lines).unwrap_or_default(),
                actual: d.get("concurrent").map(outcome_lines).unwrap_or_default(),
            });
        }
    }
    Comparisons {
        expected_side: "expected (serial)".into(),
        actual_side: "actual (concurrent)".into(),
        items,
    }
}

fn order_text(v: &Json) -> String {
    v.as_array()
        .map(|o| o.iter().map(value_text).collect::<Vec<_>>().join(" → "))
        .unwrap_or_default()
}

fn txcheck(evidence: &Json) -> Comparisons {
    let mut items = Vec::new();
    for d in evidence
        .get("differing")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        items.push(Comparison {
            what: text(d, "statement"),
            expected: d
                .get("without_transactions")
                .map(outcome_lines)
                .unwrap_or_default(),
            actual: d
                .get("transactional")
                .map(outcome_lines)
                .unwrap_or_default(),
        });
    }
    for t in evidence
        .get("tables")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        items.push(Comparison {
            what: format!("table {}", text(t, "table")),
            expected: only(
                "rows only the run without transactions left",
                t.get("only_without_transactions"),
            ),
            actual: only(
                "rows only the transactional run left",
                t.get("only_transactional"),
            ),
        });
    }
    Comparisons {
        expected_side: "expected (run again without transactions)".into(),
        actual_side: "actual (the transactional run)".into(),
        items,
    }
}

/// The comparisons a finding's evidence holds, by its shape; none when it
/// has none of the known shapes.
pub fn comparisons(evidence: &Json) -> Option<Comparisons> {
    let found = if let Some(d) = evidence.get("differences").and_then(Json::as_array) {
        troc(d)
    } else if let Some(v) = evidence.get("variants").and_then(Json::as_array) {
        wss(v, false)
    } else if let Some(o) = evidence.get("orders").and_then(Json::as_array) {
        wss(o, true)
    } else if evidence.get("differing").is_some() || evidence.get("tables").is_some() {
        txcheck(evidence)
    } else {
        return None;
    };
    (!found.items.is_empty()).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn troc_differences_read_as_expected_and_actual() {
        let e = json!({
            "execution_order": ["T1.1", "T2.1"],
            "differences": [{
                "kind": "query_result",
                "at": {"txn": 1, "stmt": 2},
                "level": "repeatable_read",
                "view": "T2's snapshot",
                "expected": "2 rows",
                "actual": "1 row",
                "only_expected": [[{"int": 3}, {"text": "a"}]],
            }]
        });
        let c = comparisons(&e).unwrap();
        assert_eq!(c.items.len(), 1);
        let d = &c.items[0];
        assert_eq!(
            d.what,
            "T2.3 query result (repeatable read); view: T2's snapshot"
        );
        assert_eq!(d.expected, ["2 rows", "rows only expected:", "(3, 'a')"]);
        assert_eq!(d.actual, ["1 row"]);
    }

    #[test]
    fn wss_and_txcheck_evidence_compare_serial_with_concurrent() {
        let e = json!({
            "fcrfs_order": ["T1", "T2"],
            "variants": [{
                "variant": "fcrfs",
                "serial_schedule": [{"transaction": "T1"}, {"transaction": "T2"}],
                "table_differences": [{
                    "table": "t0", "columns": ["c0", "c1"],
                    "only_concurrent": [[{"int": 1}, "null"]],
                    "only_serial": [[{"int": 1}, {"int": 5}]],
                }],
                "outcome_differences": [{
                    "statement": "T2.1", "kind": "affected_rows_differ",
                    "concurrent": {"affected": {"rows": 0}},
                    "serial": {"affected": {"rows": 1}},
                }],
            }]
        });
        let c = comparisons(&e).unwrap();
        assert_eq!(c.items.len(), 2);
        assert_eq!(c.items[0].what, "fcrfs serial T1 → T2: table t0 (c0, c1)");
        assert_eq!(
            c.items[0].expected,
            ["rows only the serial run left:", "(1, 5)"]
        );
        assert_eq!(
            c.items[0].actual,
            ["rows only the concurrent run left:", "(1, NULL)"]
        );
        assert_eq!(c.items[1].expected, ["affected 1 row"]);
        assert_eq!(c.items[1].actual, ["affected 0 rows"]);

        let t = json!({
            "differing": [{
                "statement": {"txn": 0, "stmt": 1},
                "transactional": {"rows": {"columns": ["k"], "rows": [[{"int": 7}]]}},
                "without_transactions": {"rows": {"columns": ["k"], "rows": []}},
            }],
            "tables": [],
        });
        let c = comparisons(&t).unwrap();
        assert_eq!(c.items[0].what, "T1.2");
        assert_eq!(c.items[0].actual, ["returned 1 rows (k)", "(7)"]);
        assert_eq!(c.items[0].expected, ["returned 0 rows (k)"]);
    }

    #[test]
    fn a_cycle_has_no_comparison() {
        assert_eq!(comparisons(&json!({"anomalies": []})), None);
        assert_eq!(comparisons(&json!({"differences": []})), None);
        assert_eq!(comparisons(&Json::Null), None);
    }
}
