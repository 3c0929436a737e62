//! Two anomalies MariaDB documents and the standard model of REPEATABLE
//! READ forbids, live through `txlab replay` with the shipped Troc pipelines:
//! a lost update over InnoDB's current read, and Troc's fixture F3
//! (MDEV-26642): T2 sets row 2's c1 to 10 and commits after T1's
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

/// `transactions` submitted in `order` (transaction indexes, one per
/// statement).
fn submitted(mut case: TestCase, order: &[usize]) -> TestCase {
    let mut next = vec![0usize; case.transactions.len()];
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

/// T1 reads row 1; T2 adds 10 to it and commits; T1 adds 1 to it.
fn lost_update() -> TestCase {
    let t = table(
        "t",
        vec![col("c1", ColumnType::Int), col("c2", ColumnType::Int)],
        &["c1"],
    );
    let rr = IsolationLevel::RepeatableRead;
    let add = |n| {
        update(
            "t",
            vec![("c2", Expr::binary(BinaryOp::Add, c("c2"), int(n)))],
            Some(eq(c("c1"), int(1))),
        )
    };
    submitted(
        case_of(
            Schema {
                tables: vec![t.clone()],
            },
            vec![rows_of(&t, vec![vec![Value::Int(1), Value::Int(1)]])],
            vec![
                explicit(
                    rr,
                    vec![
                        Statement::Begin,
                        select("t", None, vec![]),
                        add(1),
                        Statement::Commit,
                    ],
                ),
                explicit(rr, vec![Statement::Begin, add(10), Statement::Commit]),
            ],
        ),
        &[0, 0, 1, 1, 1, 0, 0],
    )
}

/// The three runs' verdicts on MariaDB with `innodb_snapshot_isolation` as
/// given, or `None` when the server is unreachable.
fn on_mariadb(case: &TestCase, snapshot_isolation: bool) -> Option<Vec<String>> {
    let shipped =
        std::fs::read_to_string(common::repo_root().join("configs/troc-mariadb.toml")).unwrap();
    let off = "snapshot_isolation = false";
    assert!(shipped.contains(off));
    let text = shipped.replacen(
        off,
        &format!("snapshot_isolation = {snapshot_isolation}"),
        1,
    );
    replay_pipeline(ServerKind::Mysql, &text, "troc", case).map(|t| verdicts(&t))
}

fn on_postgres(case: &TestCase) -> Option<Vec<String>> {
    replay_case(
        ServerKind::Postgres,
        "configs/troc-postgres.toml",
        "troc",
        "",
        case,
    )
    .map(|t| verdicts(&t))
}

/// Checks that `case` is the vendor-permitted anomaly `named` on MariaDB with
/// `innodb_snapshot_isolation` OFF, and a pass with it ON and on PostgreSQL.
fn permitted_only_without_snapshot_isolation(case: &TestCase, named: &str) {
    for v in on_mariadb(case, false).into_iter().flatten() {
        assert!(
            v.contains("vendor-permitted anomaly") && v.contains(named),
            "{v}"
        );
    }
    for v in on_mariadb(case, true)
        .into_iter()
        .flatten()
        .chain(on_postgres(case).into_iter().flatten())
    {
        assert!(v.ends_with(": pass"), "{v}");
    }
}

#[test]
fn a_lost_update_is_a_vendor_permitted_anomaly_on_mariadb_only_without_snapshot_isolation() {
    permitted_only_without_snapshot_isolation(&lost_update(), "lost update");
}

fn f3() -> TestCase {
    let t = table(
        "t",
        vec![col("c1", ColumnType::Int), col("c2", ColumnType::Int)],
        &[],
    );
    let ints = |r: [i64; 2]| r.iter().map(|v| Value::Int(*v)).collect::<Vec<_>>();
    let rr = IsolationLevel::RepeatableRead;
    let case = case_of(
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
    submitted(case, &[0, 0, 1, 1, 1, 0, 0, 0, 0])
}

#[test]
fn mdev_26642_is_a_vendor_permitted_anomaly_on_mariadb_only_without_snapshot_isolation() {
    permitted_only_without_snapshot_isolation(&f3(), "MDEV-26642");
}

/// MDEV-26643's case (Troc's fixture F2) at READ COMMITTED: T1 sets every c1
/// to 10; T2's `UPDATE … SET c2 = 20 WHERE c1 IS NOT NULL` waits for it.
fn mdev_26643() -> TestCase {
    let t = table(
        "t",
        vec![col("c1", ColumnType::Int), col("c2", ColumnType::Int)],
        &[],
    );
    let v = |x: Option<i64>| x.map_or(Value::Null, Value::Int);
    let rc = IsolationLevel::ReadCommitted;
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(
            &t,
            [
                (None, Some(1)),
                (Some(2), Some(2)),
                (None, None),
                (None, Some(3)),
                (Some(4), None),
            ]
            .into_iter()
            .map(|(a, b)| vec![v(a), v(b)])
            .collect(),
        )],
        vec![
            explicit(
                rc,
                vec![
                    Statement::Begin,
                    update("t", vec![("c1", int(10))], None),
                    Statement::Commit,
                ],
            ),
            explicit(
                rc,
                vec![
                    Statement::Begin,
                    update(
                        "t",
                        vec![("c2", int(20))],
                        Some(Expr::IsNull {
                            operand: Box::new(c("c1")),
                            negated: true,
                        }),
                    ),
                    Statement::Commit,
                ],
            ),
        ],
    );
    submitted(case, &[0, 0, 1, 1, 0, 1])
}

/// MariaDB 10.11 skips the first row (its committed c1 is NULL), waits at
/// the second and reads the rest after T1's commit: InnoDB's semi-consistent
/// read, a vendor-permitted anomaly; with `innodb_snapshot_isolation` ON it
/// waits at the first row and updates all five (pass). PostgreSQL 15 finds
/// only the two rows its snapshot matches and re-checks them: the documented
/// re-check after a wait, also vendor-permitted.
#[test]
fn mdev_26643_is_the_vendors_rule_for_a_wait_on_both_servers() {
    let case = mdev_26643();
    for v in on_mariadb(&case, false).into_iter().flatten() {
        assert!(
            v.contains("vendor-permitted anomaly") && v.contains("semi-consistent read"),
            "{v}"
        );
    }
    for v in on_mariadb(&case, true).into_iter().flatten() {
        assert!(v.ends_with(": pass"), "{v}");
    }
    for v in on_postgres(&case).into_iter().flatten() {
        assert!(
            v.contains("vendor-permitted anomaly") && v.contains("re-check after a wait"),
            "{v}"
        );
    }
}

/// Found by a campaign (configs/troc-mariadb.toml, seed 21, case 2712),
/// reduced and simplified: at READ UNCOMMITTED T2 inserts row 3, then
/// `UPDATE … SET k = 16` fails on a duplicate key after it changed row 3 and
/// locked row 12; T1's `UPDATE … SET v = 'x'` skips row 3 (T2's insert has
/// no committed version: semi-consistent read) and waits at row 12, which
/// the failed UPDATE still holds ("Locks are not released in a rollback of
/// a single SQL statement", MySQL manual, innodb-error-handling), and
/// updates rows 12 and 14 once T2 commits: two rows, where the model's
/// latest committed rows have three.
fn locks_of_a_failed_update() -> TestCase {
    let t = table(
        "t",
        vec![col("k", ColumnType::Int), col("v", ColumnType::Text)],
        &["k"],
    );
    let ru = IsolationLevel::ReadUncommitted;
    let row = |k: i64, v: &str| vec![Value::Int(k), Value::Text(v.into())];
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![row(14, "a"), row(12, "b")])],
        vec![
            explicit(
                ru,
                vec![
                    Statement::Begin,
                    update("t", vec![("v", text("x"))], None),
                    Statement::Commit,
                ],
            ),
            explicit(
                ru,
                vec![
                    Statement::Begin,
                    insert("t", &["k", "v"], vec![row(3, "c")], OnConflict::Error),
                    update("t", vec![("k", int(16))], None),
                    Statement::Commit,
                ],
            ),
        ],
    );
    submitted(case, &[1, 1, 1, 0, 0, 1, 0])
}

/// Without the failed UPDATE's locks the vendor's rule finds no row to wait
/// at, and the difference was reported as a finding.
#[test]
fn a_wait_at_a_row_a_failed_update_locked_is_the_semi_consistent_read_on_mariadb() {
    let case = locks_of_a_failed_update();
    for v in on_mariadb(&case, false).into_iter().flatten() {
        assert!(
            v.contains("vendor-permitted anomaly") && v.contains("semi-consistent read"),
            "{v}"
        );
    }
}
