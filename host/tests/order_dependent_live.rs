//! A multi-row UPDATE of a UNIQUE column whose success depends on the order
//! the server visits the rows (MySQL-family servers and PostgreSQL check
//! unique keys row by row; the oracle-truth issue's MariaDB false alarm),
//! run live through `txlab replay` with the shipped WSS pipelines while
//! another transaction writes one of its rows: never a finding.

mod common;

use common::replay::{replay_case, verdicts};
use txlab_host::driver::ServerKind;
use txlab_plugin_api::ir::*;
use txlab_testkit::build::*;

fn shift_keys_while_another_writes() -> TestCase {
    let mut t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("c1", ColumnType::Int),
            col("c2", ColumnType::Int),
        ],
        &["id"],
    );
    t.unique = vec![vec!["c1".into()]];
    let ints = |r: [i64; 3]| r.iter().map(|v| Value::Int(*v)).collect::<Vec<_>>();
    let rr = IsolationLevel::RepeatableRead;
    let mut case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(
            &t,
            vec![ints([1, 10, 0]), ints([2, 13, 0]), ints([3, 20, 0])],
        )],
        vec![
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    // Ascending 10→7, 13→10, 20→17 succeeds; descending, 13→10
                    // meets the row still holding 10.
                    update(
                        "t",
                        vec![("c1", Expr::binary(BinaryOp::Sub, c("c1"), int(3)))],
                        Some(Expr::binary(BinaryOp::Lt, c("c1"), int(31))),
                    ),
                    Statement::Commit,
                ],
            ),
            explicit(
                rr,
                vec![
                    Statement::Begin,
                    update("t", vec![("c2", int(1))], Some(eq(c("id"), int(3)))),
                    Statement::Commit,
                ],
            ),
        ],
    );
    case.submitted_order = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
        .iter()
        .map(|&(t, s)| StatementRef::new(t, s))
        .collect();
    case.validate().unwrap();
    case
}

#[test]
fn an_update_whose_key_collision_depends_on_row_order_is_never_a_finding() {
    let case = shift_keys_while_another_writes();
    for (kind, config) in [
        (ServerKind::Mysql, "configs/mariadb.toml"),
        (ServerKind::Postgres, "configs/postgres.toml"),
    ] {
        if let Some(text) = replay_case(kind, config, "wss", "", &case) {
            for v in verdicts(&text) {
                assert!(!v.contains("finding"), "{text}");
            }
        }
    }
}
