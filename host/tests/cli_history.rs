//! `txlab history check` on Elle and dbcop files: the anomalies in Elle's
//! terms, exit 1 when the model forbids one, 0 when it allows them, 2 with
//! the place for malformed input.

use std::process::Command;

fn txlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_txlab"))
        .args(args)
        .output()
        .expect("txlab runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const WRITE_SKEW: &str = "{:type :ok :process 0 :value [[:append 1 1] [:r 2 []]]}\n{:type :ok :process 1 :value [[:append 2 1] [:r 1 []]]}\n";

#[test]
fn check_names_the_anomaly_and_judges_it_by_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("skew.edn");
    std::fs::write(&file, WRITE_SKEW).unwrap();
    let f = file.to_str().unwrap();
    let (code, out, _) = txlab(&["history", "check", f, "--format", "elle"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("G2-item (forbidden by serializable)"), "{out}");
    assert!(
        out.contains("invalid: serializable forbids G2-item"),
        "{out}"
    );
    let (code, out, _) = txlab(&[
        "history",
        "check",
        f,
        "--format",
        "elle",
        "--model",
        "snapshot-isolation",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("valid: snapshot-isolation holds (anomalies it allows: G2-item)"),
        "{out}"
    );
}

#[test]
fn check_reads_dbcop_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("h.json");
    // dbcop's own write-skew example shape: each session reads the initial
    // value of the variable the other writes.
    std::fs::write(
        &file,
        r#"[[{"events":[{"Read":{"variable":0,"version":null}},{"Write":{"variable":1,"version":1}}],"committed":true}],
            [{"events":[{"Read":{"variable":1,"version":null}},{"Write":{"variable":0,"version":2}}],"committed":true}]]"#,
    )
    .unwrap();
    let (code, out, _) = txlab(&[
        "history",
        "check",
        file.to_str().unwrap(),
        "--format",
        "dbcop",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("dbcop history of 2 transactions"), "{out}");
    assert!(out.contains("G2-item"), "{out}");
}

#[test]
fn malformed_input_is_a_usage_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.edn");
    std::fs::write(
        &file,
        "{:type :ok :value [[:append 1 1]]}\n{:type :ok :value [[:r 1 [1]]\n",
    )
    .unwrap();
    let (code, _, err) = txlab(&[
        "history",
        "check",
        file.to_str().unwrap(),
        "--format",
        "elle",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.edn: line 2, column 1"), "{err}");
}
