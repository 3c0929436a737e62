//! One name for a statement in every file: the IR names it by 0-based
//! indexes (`{"txn": 1, "stmt": 2}`), reports and scripts by its label
//! (`T2.3`). The JSON files txlab writes keep the IR's form, which plugins
//! and `txlab replay` read, and carry the label beside it:
//! `{"txn": 1, "stmt": 2, "label": "T2.3"}`.

use serde::Serialize;
use serde_json::Value;

/// `value` as pretty JSON, each statement reference labelled.
pub fn labelled_json<T: Serialize>(value: &T) -> std::io::Result<String> {
    let mut v = serde_json::to_value(value).map_err(std::io::Error::other)?;
    label_statements(&mut v);
    serde_json::to_string_pretty(&v).map_err(std::io::Error::other)
}

/// Adds `"label": "T<txn+1>.<stmt+1>"` to every object that is exactly a
/// statement reference (`txn` and `stmt`, both whole numbers).
pub fn label_statements(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let reference = if map.len() == 2 {
                let index = |key: &str| map.get(key).and_then(Value::as_u64);
                index("txn").zip(index("stmt"))
            } else {
                None
            };
            if let Some((txn, stmt)) = reference {
                map.insert(
                    "label".into(),
                    Value::String(format!("T{}.{}", txn + 1, stmt + 1)),
                );
                return;
            }
            map.values_mut().for_each(label_statements);
        }
        Value::Array(items) => items.iter_mut().for_each(label_statements),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use txlab_plugin_api::ir::StatementRef;

    #[test]
    fn statement_references_carry_their_label_and_still_read_back() {
        let refs = vec![StatementRef::new(0, 0), StatementRef::new(1, 2)];
        let text = labelled_json(&serde_json::json!({
            "order": refs,
            "other": {"txn": 1, "stmt": 2, "more": 3},
        }))
        .unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["order"][1]["label"], "T2.3");
        assert_eq!(v["order"][0]["label"], "T1.1");
        // Not a reference: left as it is.
        assert!(v["other"].get("label").is_none());
        let back: Vec<StatementRef> = serde_json::from_value(v["order"].clone()).unwrap();
        assert_eq!(back, refs);
    }
}
