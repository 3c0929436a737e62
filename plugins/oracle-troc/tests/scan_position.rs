//! A locking read that waited does not see a row inserted behind its scan
//! position while it waited (InnoDB at READ COMMITTED and READ UNCOMMITTED,
//! no gap locks: "phantom problems may occur"), where the position follows
//! InnoDB's clustered index and the scan's start:
//!
//! - a table without a PRIMARY KEY is clustered on its first UNIQUE index
//!   whose columns are NOT NULL, also one made by CREATE UNIQUE INDEX;
//! - a scan with a lower bound on the clustering key starts at the bound,
//!   so it waits at the first held row within its range, not at a held row
//!   before it.
//!
//! The cases and histories are from the 10-minute Troc campaign on MySQL
//! 9.7.4 (`configs/troc-mysql-9.toml`, seed 2026120201, 2026-12-02): both
//! were false findings before these rules.

mod common;

use common::recorded::{check_recorded, recorded};
use txlab_testkit::oracle::expect_vendor_permitted;

fn phantom_behind_the_wait(name: &str) {
    let (case, history) = recorded(name);
    let anomaly = expect_vendor_permitted(check_recorded(&case, &history));
    assert!(
        anomaly.title.contains("phantom behind a wait"),
        "{name}: {}",
        anomaly.title
    );
}

/// Case 1780 (READ COMMITTED): `t0` has no PRIMARY KEY and a UNIQUE index on
/// `c0 NOT NULL`. T1's `SELECT … WHERE c3 = 0 FOR SHARE` waits at row
/// 4294967319, which T2 holds; T2's REPLACE inserts 4294967300, before that
/// row in `c0` order, and commits: T1 returns two rows, not three.
#[test]
fn a_unique_index_of_not_null_columns_clusters_a_table_without_primary_key() {
    phantom_behind_the_wait("final-c1780");
}

/// Case 2439 (READ UNCOMMITTED): clustered on the UNIQUE index on `c1`;
/// T2's `SELECT … WHERE c1 >= 12.5 FOR UPDATE` starts at 12.5 and waits at
/// the first row of that range T1 holds; T1 inserts 12.5 meanwhile and
/// commits: not seen. A scan from the table's start would have waited at a
/// row below 12.5 and seen it.
#[test]
fn a_range_scan_waits_at_the_first_held_row_of_its_range() {
    phantom_behind_the_wait("final-c2439");
}
