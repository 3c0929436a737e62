//! Export, then import: a history of 10,000 transactions comes back as it
//! was, through Elle's EDN and through dbcop's JSON; without txlab's details
//! the files still carry the same anomalies (Elle) and the same reads-from
//! (dbcop).

mod common;

// (`common` is shared with the formats benchmark.)

use std::collections::BTreeMap;
use txlab_history::formats::{dbcop, elle};
use txlab_history::{check, History, Options, Report};

fn phenomena(r: &Report) -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for a in &r.anomalies {
        *out.entry(a.phenomenon.name()).or_insert(0) += 1;
    }
    out
}

fn edn(h: &History, plain: bool) -> String {
    elle::to_string(h, &elle::ExportOptions { plain })
}

#[test]
fn elle_export_then_import_is_lossless_for_ten_thousand_transactions() {
    let original = common::gen::history(10_000, 7);
    assert!(original.write_count() > 1000);
    let text = edn(&original, false);
    let back = elle::import(text.as_bytes(), elle::Syntax::Edn).unwrap();
    assert!(back.from_txlab);
    assert_eq!(back.history.len(), original.len());
    assert_eq!(
        back.history.observation_count(),
        original.observation_count()
    );
    assert_eq!(back.history.write_count(), original.write_count());
    assert!(back.history == original, "the history changed on the way");
    let (a, b) = (
        check(&original, &Options::default()),
        check(&back.history, &Options::default()),
    );
    assert!(
        !a.anomalies.is_empty(),
        "the generated history holds anomalies"
    );
    assert_eq!(a, b);
    // Exported again, the same text.
    assert_eq!(edn(&back.history, false), text);
}

#[test]
fn elle_export_without_details_carries_the_same_anomalies() {
    let original = common::gen::history(10_000, 11);
    let text = edn(&original, true);
    assert!(!text.contains(":txlab"));
    let back = elle::import(text.as_bytes(), elle::Syntax::Edn).unwrap();
    assert!(!back.from_txlab);
    let options = Options {
        exempt_locking_reads: false,
        start_order: false,
        ..Options::default()
    };
    let (a, b) = (check(&original, &options), check(&back.history, &options));
    assert_eq!(phenomena(&a), phenomena(&b));
    assert_eq!(a.stats.committed, b.stats.committed);
    // (The components differ: Elle's reads are all plain, so a read before
    // a delete becomes a read, a ww edge a wr edge.)
}

#[test]
fn dbcop_export_then_import_is_lossless_for_ten_thousand_transactions() {
    let original = common::gen::history(10_000, 13);
    let json = serde_json::to_vec(&dbcop::export(&original, true)).unwrap();
    let back = dbcop::import(&json).unwrap();
    assert!(back.from_txlab);
    assert!(back.history == original, "the history changed on the way");
    assert_eq!(
        check(&original, &Options::default()),
        check(&back.history, &Options::default())
    );
}

#[test]
fn dbcop_export_without_details_keeps_what_reads_returned() {
    let original = common::gen::history(2_000, 17);
    let value = dbcop::export(&original, false);
    let json = serde_json::to_vec(&value).unwrap();
    assert!(!String::from_utf8_lossy(&json).contains("txlab\":{"));
    let back = dbcop::import(&json).unwrap();
    assert!(!back.from_txlab);
    // The reads-from between committed transactions (which version each
    // read returned), counted per pair (the ids are renumbered).
    let wr = |h: &History| {
        let committed = |t| {
            h.transaction(t)
                .is_some_and(|t| t.outcome == txlab_history::TxnOutcome::Committed)
        };
        let mut pairs: Vec<(u64, u64)> = h
            .observations()
            .filter_map(|o| {
                let w = *o.versions.last()?;
                let r = o.statement.txn;
                (w != 0 && w != r && committed(w) && committed(r)).then_some((w, r))
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs.len()
    };
    assert_eq!(wr(&original), wr(&back.history));
    assert_eq!(back.history.len(), original.len());
}
