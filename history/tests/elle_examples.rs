//! The anomalies Elle reports on its examples, checked on hand-written
//! histories of the same shape: the paper's (Kingsbury and Alvaro, "Elle:
//! Inferring Isolation Anomalies from Experimental Observations", VLDB
//! 2020) G-single through an append no read returned, and one history per
//! anomaly of its list (G0, G1a, G1b, G1c, G-single, G2-item), plus Elle's
//! anomalies without a cycle. What Elle reports on each shape is what its
//! own tests and elle-cli's expected results say (jepsen-io/elle
//! `test/elle/list_append_test.clj`, ligurio/elle-cli `test/test-data`).

use txlab_history::formats::elle::{import, Syntax};
use txlab_history::formats::names::{check_options, named, Model};
use txlab_history::formats::{Imported, Workload};

fn load(edn: &str) -> Imported {
    import(edn.as_bytes(), Syntax::Edn).expect("a well-formed history")
}

/// The names of the anomalies found, sorted, with the transactions of each.
fn found(edn: &str) -> Vec<(&'static str, Vec<u64>)> {
    let imported = load(edn);
    let report = txlab_history::check(&imported.history, &check_options());
    named(&imported, &report)
        .into_iter()
        .map(|n| (n.name, n.txns))
        .collect()
}

fn forbidden_by(edn: &str) -> Vec<&'static str> {
    let names: Vec<&str> = found(edn).into_iter().map(|(n, _)| n).collect();
    Model::ALL
        .into_iter()
        .filter(|m| names.iter().any(|n| m.forbids(n)))
        .map(Model::name)
        .collect()
}

/// The paper's example has this shape: T2 appends to y, T3 reads y with
/// T2's element, T4 reads y without it, and T4's append to z (which no read
/// returns) comes after T3's, the last element any read of z shows. Elle:
/// one G-single-item, T4 -rw y-> T2 -wr y-> T3 -ww z-> T4; not repeatable
/// read (nor anything stronger), read committed holds.
const PAPER: &str = r#"
{:index 0 :type :invoke :process 0 :f :txn :value [[:append 1 1] [:append 2 1] [:append 3 1]]}
{:index 1 :type :ok :process 0 :f :txn :value [[:append 1 1] [:append 2 1] [:append 3 1]]}
{:index 2 :type :invoke :process 1 :f :txn :value [[:append 2 2] [:r 1 nil]]}
{:index 3 :type :ok :process 1 :f :txn :value [[:append 2 2] [:r 1 [1]]]}
{:index 4 :type :invoke :process 1 :f :txn :value [[:append 3 2] [:r 2 nil] [:r 3 nil]]}
{:index 5 :type :ok :process 1 :f :txn :value [[:append 3 2] [:r 2 [1 2]] [:r 3 [1 2]]]}
{:index 6 :type :invoke :process 1 :f :txn :value [[:r 2 nil] [:append 3 3]]}
{:index 7 :type :ok :process 1 :f :txn :value [[:r 2 [1]] [:append 3 3]]}
"#;

#[test]
fn the_papers_example_is_one_g_single_through_an_unread_append() {
    let imported = load(PAPER);
    assert_eq!(imported.workload, Workload::ListAppend);
    let report = txlab_history::check(&imported.history, &check_options());
    let all = named(&imported, &report);
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0].name, "G-single-item");
    assert_eq!(all[0].txns, vec![2, 3, 4]);
    let kinds: Vec<(u64, &str, u64, Option<u64>)> = all[0]
        .edges
        .iter()
        .map(|e| (e.from, e.kind.name(), e.to, e.row))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (4, "rw", 2, Some(2)),
            (2, "wr", 3, Some(2)),
            (3, "ww", 4, Some(3))
        ]
    );
    assert_eq!(
        forbidden_by(PAPER),
        vec!["repeatable-read", "snapshot-isolation", "serializable"]
    );
}

#[test]
fn g0_write_cycle() {
    // T1 and T2 append to keys 1 and 2 in opposite orders.
    let h = r#"
{:type :ok :process 0 :value [[:append 1 1] [:append 2 1]]}
{:type :ok :process 1 :value [[:append 1 2] [:append 2 2]]}
{:type :ok :process 2 :value [[:r 1 [1 2]] [:r 2 [2 1]]]}
"#;
    assert_eq!(found(h), vec![("G0", vec![1, 2])]);
    assert_eq!(forbidden_by(h).len(), 4);
}

#[test]
fn g1a_aborted_read() {
    let h = r#"
{:type :invoke :process 0 :value [[:append 1 1]]}
{:type :fail :process 0 :value [[:append 1 1]]}
{:type :invoke :process 1 :value [[:r 1 nil]]}
{:type :ok :process 1 :value [[:r 1 [1]]]}
"#;
    assert_eq!(found(h), vec![("G1a", vec![1, 2])]);
    assert_eq!(forbidden_by(h).len(), 4);
}

#[test]
fn g1b_intermediate_read_is_also_elles_g_single() {
    // Elle's own test: T2 reads T1's first append but not its second. Elle
    // reports G1b and, through the same read, G-single-item.
    let h = r#"
{:type :ok :process 0 :value [[:append 1 1] [:append 1 2]]}
{:type :ok :process 1 :value [[:r 1 [1]]]}
"#;
    assert_eq!(
        found(h),
        vec![("G1b", vec![1, 2]), ("G-single-item", vec![1, 2])]
    );
    // Adya's view (the library's default): the G1b alone.
    let imported = load(h);
    let adya = txlab_history::check(
        &imported.history,
        &txlab_history::Options {
            intermediate_reads_in_cycles: false,
            ..check_options()
        },
    );
    let names: Vec<&str> = named(&imported, &adya).iter().map(|n| n.name).collect();
    assert_eq!(names, vec!["G1b"]);
}

#[test]
fn reading_an_older_complete_append_is_no_g1b() {
    // elle-cli's "g1b-intermediate-read" history: T3 reads T1's only append
    // and not T2's. Serializable holds (Elle finds only a real-time cycle,
    // which the non-strong models do not use).
    let h = r#"
{:type :ok :process 0 :value [[:append 1 1]]}
{:type :ok :process 1 :value [[:append 1 2]]}
{:type :ok :process 2 :value [[:r 1 [1]]]}
"#;
    assert_eq!(found(h), vec![]);
}

#[test]
fn g1c_circular_information_flow() {
    // T1 reads T2's append to 2, but T2 appended to 1 after T1.
    let h = r#"
{:type :ok :process 0 :value [[:append 1 1] [:r 2 [1]]]}
{:type :ok :process 1 :value [[:append 1 2] [:append 2 1]]}
{:type :ok :process 2 :value [[:r 1 [1 2]]]}
"#;
    assert_eq!(found(h), vec![("G1c", vec![1, 2])]);
    assert_eq!(forbidden_by(h).len(), 4);
}

#[test]
fn g_single_read_skew_on_registers() {
    // rw-register: T2 sees T1's write of y but not its write of x.
    let h = r#"
{:type :ok :process 0 :f :txn :value [[:w 1 1] [:w 2 1]]}
{:type :ok :process 1 :f :txn :value [[:r 1 nil] [:r 2 1]]}
"#;
    let imported = load(h);
    assert_eq!(imported.workload, Workload::RwRegister);
    assert_eq!(found(h), vec![("G-single-item", vec![1, 2])]);
    assert_eq!(
        forbidden_by(h),
        vec!["repeatable-read", "snapshot-isolation", "serializable"]
    );
}

#[test]
fn g2_item_write_skew() {
    // Each appends to one key and reads the other empty; neither append is
    // read: each comes after the empty list the other read.
    let h = r#"
{:type :ok :process 0 :value [[:append 1 1] [:r 2 []]]}
{:type :ok :process 1 :value [[:append 2 1] [:r 1 []]]}
"#;
    assert_eq!(found(h), vec![("G2-item", vec![1, 2])]);
    // Snapshot isolation allows write skew.
    assert_eq!(forbidden_by(h), vec!["repeatable-read", "serializable"]);
}

#[test]
fn lost_update_is_named_with_its_cycle() {
    let h = r#"
{:type :ok :process 0 :value [[:r 1 []] [:append 1 1]]}
{:type :ok :process 1 :value [[:r 1 []] [:append 1 2]]}
"#;
    assert_eq!(
        found(h),
        vec![("G2-item", vec![1, 2]), ("lost-update", vec![1, 2])]
    );
    assert_eq!(
        forbidden_by(h),
        vec!["repeatable-read", "snapshot-isolation", "serializable"]
    );
}

#[test]
fn internal_future_read_and_duplicates() {
    let internal = r#"{:type :ok :process 0 :value [[:append 1 1] [:r 1 []]]}"#;
    assert_eq!(found(internal), vec![("internal", vec![1])]);
    // Elle's repeatable read does not forbid internal; snapshot isolation does.
    assert_eq!(
        forbidden_by(internal),
        vec!["snapshot-isolation", "serializable"]
    );
    let future = r#"{:type :ok :process 0 :value [[:r 1 [5]] [:append 1 5]]}"#;
    let names: Vec<&str> = found(future).into_iter().map(|(n, _)| n).collect();
    assert!(names.contains(&"future-read"), "{names:?}");
    let dups = r#"
{:type :ok :process 0 :value [[:append 1 1]]}
{:type :ok :process 1 :value [[:r 1 [1 1]]]}
"#;
    assert_eq!(found(dups), vec![("duplicate-elements", vec![2])]);
}

#[test]
fn a_serial_history_is_clean() {
    let h = r#"
{:type :ok :process 0 :value [[:append 1 1] [:r 2 nil]]}
{:type :ok :process 1 :value [[:r 1 [1]] [:append 2 1]]}
{:type :ok :process 0 :value [[:r 1 [1]] [:r 2 [1]] [:append 1 2]]}
{:type :ok :process 1 :value [[:r 1 [1 2]]]}
"#;
    assert_eq!(found(h), vec![]);
}

#[test]
fn json_as_elle_cli_reads_it() {
    let h = r#"[{"index":0,"process":0,"type":"invoke","value":[["append",1,1],["append",2,1]]},
 {"index":1,"process":0,"type":"ok","value":[["append",1,1],["append",2,1]]},
 {"index":2,"process":1,"type":"ok","value":[["append",1,2],["append",2,2]]},
 {"index":3,"process":2,"type":"ok","value":[["r",1,[1,2]],["r",2,[2,1]]]}]"#;
    let imported = import(h.as_bytes(), Syntax::Json).unwrap();
    let report = txlab_history::check(&imported.history, &check_options());
    let names: Vec<&str> = named(&imported, &report).iter().map(|n| n.name).collect();
    assert_eq!(names, vec!["G0"]);
    // Keys that are not integers are numbered, and keep their names.
    let h = r#"{:type :ok :process 0 :value [[:append :x 1] [:r :y [7]]]}"#;
    let imported = load(h);
    assert_eq!(imported.key_name(1), ":x");
    assert_eq!(imported.key_name(2), ":y");
}

#[test]
fn malformed_input_says_where() {
    let err = |s: &str| import(s.as_bytes(), Syntax::Edn).unwrap_err().to_string();
    let e = err("{:type :ok :value [[:append 1 1]]}\n{:type :ok :value [[:r 1 [1]]\n");
    assert!(e.starts_with("line 2, column 1"), "{e}");
    assert!(e.contains("never ends"), "{e}");
    let e = err("{:type :ok :value [[:append 1 1]]}\n\n  {:type :done :value []}");
    assert_eq!(e, "line 3, column 3: unknown :type :done");
    let e = err("{:type :ok :value [[:append 1 1 2]]}");
    assert!(
        e.contains("micro-op 0") && e.contains("is not [f k v]"),
        "{e}"
    );
    let e = err("{:type :ok :value [[:cas 1 [1 2]]]}");
    assert!(e.contains("only :r, :append and :w"), "{e}");
    let e = err("{:type :ok :value [[:append 1 1]]}\n{:type :ok :value [[:append 1 1]]}");
    assert!(
        e.contains("appended to key 1 twice (the ops on lines 1 and 2)"),
        "{e}"
    );
    let e = err("{:type :ok :value [[:append 1 1] [:w 2 1]]}");
    assert!(e.contains("mixes :append"), "{e}");
    let e = err("{:type :ok :f :read :value 3}");
    assert!(e.contains("is not a transaction"), "{e}");
    let j = import(
        "[{\"type\":\"ok\",\"value\":[]},\n {\"type\":\"ok\" \"value\":[]}]".as_bytes(),
        Syntax::Json,
    )
    .unwrap_err()
    .to_string();
    assert!(j.starts_with("line 2"), "{j}");
}
