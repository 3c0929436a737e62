//! Paced confirmation, live on MariaDB (the oracle-truth issue's item 1).
//!
//! A Troc finding at READ UNCOMMITTED: T1 locks the rows with `c0 = 25`
//! through the secondary index on `(c0, c1)` (`SELECT … FOR UPDATE`), T2's
//! `DELETE … WHERE c0 = 25` waits for the first of them, T1 moves that row's
//! index entry before the DELETE's position (`c1` 1 → 0) and commits, and
//! the DELETE skips the row although it still has `c0 = 25`. It shows only
//! when the index holds no delete-marked records of earlier runs (the
//! executor's reset leaves them until the server purges them in the
//! background): every time in a table created afresh, as a person sets a
//! script up and as a paced run does, but under txlab's run pace in about
//! 40% of the runs of a worker that resets the table (docs/findings.md).
//!
//! So that the test does not depend on how fast the server purges, it holds
//! an open snapshot while the unpaced runs and the reduction run: no
//! delete-marked record is purged, and after the first run (a fresh table)
//! the unpaced runs never show the finding. The reduction's confirmation
//! must then find the pace that shows it every time, keep it, and reduce and
//! confirm the case with it; `txlab replay` must reproduce it with that pace.

mod common;

use common::cli_env::*;
use common::servers::{reachable, url};
use mysql_async::prelude::Queryable;
use std::path::Path;
use txlab_host::driver::ServerKind;

const SCRIPT: &str = "\
-- isolation: T1 read-uncommitted, T2 read-uncommitted
CREATE TABLE t0 (id INT NOT NULL, c0 INT, c1 INT, c2 INT, PRIMARY KEY (id));
CREATE INDEX i0 ON t0 (c0, c1);
INSERT INTO t0 (id, c0, c1, c2) VALUES (1, 25, 1, 0), (2, 30, 2, 0), (3, 25, 5, 0);

-- T1: BEGIN;
-- T2: BEGIN;
-- T1: SELECT * FROM t0 WHERE c0 = 25 FOR UPDATE;
-- T2: DELETE FROM t0 WHERE c0 = 25;
-- T1: UPDATE t0 SET c1 = 0 WHERE id = 1;
-- T1: COMMIT;
-- T2: COMMIT;
";

const FINDING: &str =
    "troc: finding: Troc: inconsistent affected-row count at `T2.2` (DELETE, read-uncommitted)";

/// The `k` of the `reproduced k/n` line `txlab replay` ends with.
fn reproduced(printed: &str, times: u32) -> u32 {
    let line = printed
        .lines()
        .find_map(|l| l.strip_prefix("reproduced "))
        .unwrap_or_else(|| panic!("no reproduced line: {printed}"));
    let (k, n) = line.split_once('/').expect("k/n");
    assert_eq!(n.trim().parse::<u32>().unwrap(), times, "{printed}");
    k.parse().unwrap()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn paced_confirmation_confirms_a_delete_that_shows_only_on_fresh_tables() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    if !runtime.block_on(reachable(ServerKind::Mysql, "paced confirmation")) {
        return;
    }
    let url = url(ServerKind::Mysql);
    let env = Env::new(&[]);
    let script = env.work.path().join("delete-through-index.sql");
    std::fs::write(&script, SCRIPT).unwrap();
    let checked = env.work.path().join("check");
    let txlab = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--url", url.as_str()]);
        let o = env.txlab(&all);
        (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
    };

    // Purge held back: the delete-marked records a reset leaves stay.
    let mut snapshot = runtime.block_on(async {
        let mut conn = mysql_async::Conn::from_url(url.as_str()).await.unwrap();
        conn.query_drop("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            .await
            .unwrap();
        conn.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            .await
            .unwrap();
        conn
    });

    // `txlab check` runs the script once, on tables created for it: the
    // finding shows, and its directory is what `txlab reduce` takes.
    let (code, printed) = txlab(&[
        "check",
        script.to_str().unwrap(),
        "--pipeline",
        "corpus/mariadb-troc.toml",
        "--out",
        checked.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{printed}");
    assert!(printed.contains(FINDING), "{printed}");
    let dir = checked.join("findings").join("case-000000-troc");
    assert!(dir.join("generated.json").exists(), "{printed}");

    // At the run's pace the case shows it on its first run, on a fresh
    // table, and not again on the reset one.
    let (code, printed) = txlab(&["replay", dir.to_str().unwrap(), "--times", "4"]);
    assert!(matches!(code, Some(0 | 1)), "{printed}");
    assert!(!printed.contains("pause"), "{printed}");
    let unpaced = reproduced(&printed, 4);
    assert!(unpaced <= 1, "unpaced: {printed}");

    // The reduction's confirmation: fewer than 3 of 3 at the run's pace,
    // then a pace that shows it in every run, kept for the reduction and
    // its confirmation.
    let (code, printed) = txlab(&["reduce", dir.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{printed}");
    let reduction = json(&dir.join("reduction.json"));
    assert_eq!(reduction["outcome"], "reduced", "{reduction}");
    let pace = reduction["pace_ms"].as_u64().unwrap();
    assert!(pace > 0, "{reduction}");
    let confirmation = reduction["confirmation"].as_array().unwrap();
    let first = &confirmation[0];
    assert_eq!(
        (first["pace_ms"].as_u64(), first["runs"].as_u64()),
        (Some(0), Some(3))
    );
    assert!(first["shown"].as_u64().unwrap() <= 1, "{reduction}");
    let last = confirmation.last().unwrap();
    assert_eq!(last["pace_ms"].as_u64(), Some(pace), "{reduction}");
    assert_eq!(last["shown"], last["runs"], "{reduction}");
    assert_eq!(reduction["attempts"], 1, "{reduction}");
    assert_eq!(
        reduction["reproduced"], reduction["confirm_runs"],
        "{reduction}"
    );
    assert!(
        reduction["after"]["initial_rows"].as_u64() < reduction["before"]["initial_rows"].as_u64(),
        "{reduction}"
    );
    let reduced = dir.join("reduced");
    assert_eq!(
        json(&reduced.join("generated.json"))["pace_ms"].as_u64(),
        Some(pace)
    );
    let repro = std::fs::read_to_string(reduced.join("repro.sql")).unwrap();
    assert!(repro.contains(&format!("-- pace: {pace} ms")), "{repro}");

    runtime.block_on(async {
        snapshot.query_drop("ROLLBACK").await.unwrap();
        snapshot.disconnect().await.unwrap();
    });

    // `txlab replay` runs the finding and its reduced case at that pace.
    for replayed in [&dir, &reduced] {
        let (code, printed) = txlab(&["replay", replayed.to_str().unwrap(), "--times", "3"]);
        assert_eq!(code, Some(1), "{printed}");
        assert!(printed.contains(&format!("a {pace} ms pause")), "{printed}");
        assert_eq!(reproduced(&printed, 3), 3, "{printed}");
    }
}
