//! Troc's fixture F3 (MDEV-26642) live through `txlab replay` with the
//! shipped Troc pipelines: T2 sets row 2's c1 to 10 and commits after T1's
//! snapshot; T1 then sets every c1 to 10, which for row 2 is the value it
//! already has, and reads. MariaDB 10.11 with `innodb_snapshot_isolation`
//! OFF writes nothing for row 2, and T1's read shows the snapshot's version:
//! the standard model forbids it (a transaction sees its own writes), the
//! vendor documents it, so it is a vendor-permitted anomaly. With
//! `snapshot_isolation = true` T1's UPDATE fails (error 1020) and nothing is
//! reported; PostgreSQL 15 fails it too (first updater wins).

mod common;

use common::replay::{replay_case, replay_pipeline, verdicts};
use txlab_host::driver::ServerKind;
use txlab_plugin_api::ir::*;
use txlab_testkit::build::*;

fn f3() -> TestCase {
    let t = table(
        "t",
        vec![col("c1", ColumnType::Int), col("c2", ColumnType::Int)],
        &[],
    );
    let ints = |r: [i64; 2]| r.iter().map(|v| Value::Int(*v)).collect::<Vec<_>>();
    let rr = IsolationLevel::RepeatableRead;
    let mut case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![ints([0, 0]), ints([1, 1])])],
        vec![
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    select("t", None, vec![]),
                    select("t", None, vec![]),
                    update("t", vec![("c1", int(10))], None),
                    select("t", None, vec![]),
                    Statement::Commit,
                ],
            ),
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    update("t", vec![("c1", int(10))], Some(eq(c("c2"), int(1)))),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let order = [0, 0, 1, 1, 1, 0, 0, 0, 0];
    let mut next = [0usize; 2];
    case.submitted_order = order
        .iter()
        .map(|&t| {
            next[t] += 1;
            StatementRef::new(t, next[t] - 1)
        })
        .collect();
    case.validate().unwrap();
    case
}

#[test]
fn mdev_26642_is_a_vendor_permitted_anomaly_on_mariadb_only_without_snapshot_isolation() {
    let case = f3();
    if let Some(text) = replay_case(
        ServerKind::Mysql,
        "configs/troc-mariadb.toml",
        "troc",
        "",
        &case,
    ) {
        for v in verdicts(&text) {
            assert!(
                v.contains("vendor-permitted anomaly") && v.contains("MDEV-26642"),
                "{text}"
            );
        }
    }
    let shipped =
        std::fs::read_to_string(common::repo_root().join("configs/troc-mariadb.toml")).unwrap();
    let off = "snapshot_isolation = false";
    assert!(shipped.contains(off));
    let on = shipped.replacen(off, "snapshot_isolation = true", 1);
    if let Some(text) = replay_pipeline(ServerKind::Mysql, &on, "troc", &case) {
        for v in verdicts(&text) {
            assert!(v.ends_with(": pass"), "{text}");
        }
    }
    if let Some(text) = replay_case(
        ServerKind::Postgres,
        "configs/troc-postgres.toml",
        "troc",
        "",
        &case,
    ) {
        for v in verdicts(&text) {
            assert!(v.ends_with(": pass"), "{text}");
        }
    }
}
