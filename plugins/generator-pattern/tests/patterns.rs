//! One test per pattern of the catalogue: on every shipped dialect, its
//! instantiated cases realise the pattern (statement kinds per transaction,
//! the rows each statement touches, the interleaving), render, and run
//! serially without an error.

mod common;

use common::*;
use txlab_generator_pattern::{Config, CATALOGUE};
use txlab_plugin_api::prelude::*;

/// Cases per dialect and settings.
const SEEDS: u64 = 12;

fn check_pattern(name: &str) {
    for (dialect_name, dialect) in dialects() {
        let info = dialect.info();
        let ctx = context_for(&info);
        let levels = ctx.levels.clone();
        for (settings, config) in [("default", named(&[name])), ("varied", varied(&[name]))] {
            let g = generator(config, ctx.clone());
            for index in 0..SEEDS {
                let request = CaseRequest::new(17, index);
                let inst = g.instance(request);
                let at = format!("{name} on {dialect_name} ({settings}, case {index})");
                assert_eq!(inst.pattern.spec.name, name, "{at}");
                if let Err(e) = check_realises(&inst, &info.features, &levels) {
                    panic!("{at}: {e}\n{:#?}", inst.case);
                }
                if let Err(e) = dialect.render_case(&inst.case, &LIMITS) {
                    panic!("{at}: render_case failed: {e}\n{:#?}", inst.case);
                }
                if let Err(e) = check_serial_runs(&inst.case) {
                    panic!("{at}: {e}\n{:#?}", inst.case);
                }
            }
        }
    }
}

macro_rules! pattern_tests {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check_pattern($name);
            }
        )*

        /// The tests above cover the whole catalogue.
        #[test]
        fn every_pattern_has_its_test() {
            let tested = [$($name),*];
            let all: Vec<&str> = CATALOGUE.iter().map(|s| s.name).collect();
            assert_eq!(tested.to_vec(), all);
        }
    };
}

pattern_tests! {
    dirty_write => "dirty-write",
    dirty_read => "dirty-read",
    lost_update => "lost-update",
    non_repeatable_read => "non-repeatable-read",
    read_skew => "read-skew",
    write_skew => "write-skew",
    aptrans_1 => "aptrans-1",
    aptrans_2 => "aptrans-2",
    aptrans_3 => "aptrans-3",
    aptrans_4 => "aptrans-4",
    aptrans_5 => "aptrans-5",
    aptrans_6 => "aptrans-6",
    aptrans_7 => "aptrans-7",
    aptrans_8 => "aptrans-8",
    aptrans_9 => "aptrans-9",
    aptrans_10 => "aptrans-10",
    aptrans_11 => "aptrans-11",
    aptrans_12 => "aptrans-12",
    aptrans_13 => "aptrans-13",
    aptrans_14 => "aptrans-14",
    aptrans_15 => "aptrans-15",
    aptrans_16 => "aptrans-16",
    aptrans_17 => "aptrans-17",
    aptrans_18 => "aptrans-18",
    aptrans_19 => "aptrans-19",
    aptrans_20 => "aptrans-20",
    aptrans_21 => "aptrans-21",
    aptrans_22 => "aptrans-22",
    aptrans_23 => "aptrans-23",
    aptrans_24 => "aptrans-24",
    aptrans_25 => "aptrans-25",
    aptrans_26 => "aptrans-26",
    aptrans_27 => "aptrans-27",
    aptrans_28 => "aptrans-28",
    aptrans_29 => "aptrans-29",
    aptrans_30 => "aptrans-30",
    aptrans_31 => "aptrans-31",
    aptrans_32 => "aptrans-32",
    aptrans_33 => "aptrans-33",
    aptrans_34 => "aptrans-34",
    aptrans_35 => "aptrans-35",
    aptrans_36 => "aptrans-36",
    aptrans_37 => "aptrans-37",
    aptrans_38 => "aptrans-38",
    aptrans_39 => "aptrans-39",
    aptrans_40 => "aptrans-40",
}

/// The paper's lost-update example (Figure 3) as this generator makes it,
/// rendered for MariaDB: T1 reads x, T2 writes x and commits, T1 writes x
/// and commits, after both BEGINs.
#[test]
fn lost_update_on_mariadb_reads_like_figure_3() {
    let dialect = dialects()
        .into_iter()
        .find(|(n, _)| *n == "mariadb")
        .unwrap()
        .1;
    let info = dialect.info();
    let config = Config {
        filler_statements: [0, 0],
        predicate_probability: 0.0,
        locking_read_probability: 0.0,
        delete_probability: 0.0,
        tables: [1, 1],
        ..named(&["lost-update"])
    };
    let g = generator(config, context_for(&info));
    let inst = g.instance(CaseRequest::new(1, 0));
    let rendered = dialect.render_case(&inst.case, &LIMITS).unwrap();
    let key = inst.item_row('x').key;
    let sql: Vec<&str> = inst
        .case
        .submitted_order
        .iter()
        .map(|at| rendered.transactions[at.txn()].statements[at.stmt()].as_str())
        .collect();
    assert_eq!(sql.len(), 7, "{sql:#?}");
    let by_key = format!("WHERE (`id` = {key})");
    assert_eq!(sql[0], "START TRANSACTION", "{sql:#?}");
    assert_eq!(sql[1], "START TRANSACTION", "{sql:#?}");
    assert!(
        sql[2].starts_with("SELECT ") && sql[2].contains(&by_key),
        "{sql:#?}"
    );
    assert!(
        sql[3].starts_with("UPDATE ") && sql[3].ends_with(&by_key),
        "{sql:#?}"
    );
    assert_eq!(sql[4], "COMMIT");
    assert!(
        sql[5].starts_with("UPDATE ") && sql[5].ends_with(&by_key),
        "{sql:#?}"
    );
    assert_eq!(sql[6], "COMMIT");
    let order: Vec<usize> = inst
        .case
        .submitted_order
        .iter()
        .map(|at| at.txn() + 1)
        .collect();
    assert_eq!(order, [1, 2, 1, 2, 2, 1, 1]);
}
