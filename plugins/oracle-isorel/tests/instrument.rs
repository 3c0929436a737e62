//! `prepare` as IsoRel's Table 1 says, rendered by every shipped dialect.

use txlab_oracle_isorel::instrument::{aux_columns, instrument, is_removal_read};
use txlab_plugin_api::prelude::*;
use txlab_testkit::build::*;
use txlab_testkit::cases::two_transaction_case;

const ROW: &str = "txlab_row";
const WRITERS: &str = "txlab_writers";

fn features(for_update: bool) -> Features {
    Features {
        select_for_update: for_update,
        ..Features::default()
    }
}

/// The shared case's statements in submitted order, as text.
fn statements(case: &TestCase) -> Vec<String> {
    case.submitted_order
        .iter()
        .map(|at| {
            format!(
                "{at} {}",
                txlab_testkit::render_statement(case.statement(*at).unwrap())
            )
        })
        .collect()
}

#[test]
fn every_statement_is_instrumented_and_deletes_read_first() {
    let case = two_transaction_case(
        IsolationLevel::RepeatableRead,
        IsolationLevel::ReadCommitted,
    );
    let prepared = instrument(case.clone(), ROW, WRITERS, &features(true)).unwrap();
    prepared.validate().unwrap();
    let t = &prepared.schema.tables[0];
    assert_eq!(
        aux_columns(t, ROW, WRITERS),
        Some(txlab_oracle_isorel::instrument::AuxColumns {
            row_id: ROW.into(),
            writers: WRITERS.into()
        })
    );
    // The initial rows: identities 1 and 2, written by T0.
    assert_eq!(
        prepared.initial_rows[0].rows,
        vec![
            vec![
                Value::Int(1),
                Value::Text("a".into()),
                Value::Int(1),
                Value::Text("0".into())
            ],
            vec![
                Value::Int(2),
                Value::Null,
                Value::Int(2),
                Value::Text("0".into())
            ],
        ]
    );
    insta::assert_snapshot!(statements(&prepared).join("\n"), @r"
    T1.1 BEGIN
    T2.1 BEGIN
    T1.2 UPDATE t SET v = 'b', txlab_writers = (txlab_writers || ',1') WHERE (id = 1)
    T2.2 SELECT * FROM t WHERE (v IS NULL)
    T2.3 SELECT txlab_row, txlab_writers FROM t WHERE (id > 1) ORDER BY txlab_row FOR UPDATE
    T2.4 DELETE FROM t WHERE (id > 1)
    T1.3 COMMIT
    T2.5 ROLLBACK
    ");
    let Statement::Select(read) = prepared.statement(StatementRef::new(1, 2)).unwrap() else {
        panic!("the read before the DELETE")
    };
    let aux = aux_columns(t, ROW, WRITERS).unwrap();
    assert!(is_removal_read(read, &aux));
    let Statement::Select(own) = prepared.statement(StatementRef::new(1, 1)).unwrap() else {
        panic!("the case's own SELECT")
    };
    assert!(!is_removal_read(own, &aux));
}

#[test]
fn inserts_get_fresh_identities_and_replace_reads_the_rows_it_may_remove() {
    let t = table(
        "t",
        vec![
            col("id", ColumnType::Int),
            col("v", ColumnType::Int),
            col("txlab_row", ColumnType::Int),
        ],
        &["id"],
    );
    let replace = insert(
        "t",
        &["id", "v"],
        vec![
            vec![Value::Int(1), Value::Int(5)],
            vec![Value::Int(3), Value::Int(6)],
        ],
        OnConflict::Replace,
    );
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(
            &t,
            vec![vec![Value::Int(1), Value::Int(1), Value::Int(9)]],
        )],
        vec![explicit(
            IsolationLevel::RepeatableRead,
            vec![
                Statement::Begin,
                insert(
                    "t",
                    &["id", "v"],
                    vec![vec![Value::Int(2), Value::Int(2)]],
                    OnConflict::Error,
                ),
                replace,
                Statement::Commit,
            ],
        )],
    );
    // No FOR UPDATE in the dialect: the read before REPLACE is a plain one.
    let prepared = instrument(case, ROW, WRITERS, &features(false)).unwrap();
    let t = &prepared.schema.tables[0];
    // The table has a column named like the identity: the next name is free.
    let aux = aux_columns(t, ROW, WRITERS).unwrap();
    assert_eq!(aux.row_id, "txlab_row_1");
    insta::assert_snapshot!(statements(&prepared).join("\n"), @r"
    T1.1 BEGIN
    T1.2 INSERT INTO t (id, v, txlab_row_1, txlab_writers) VALUES (2, 2, 2, '1')
    T1.3 SELECT txlab_row_1, txlab_writers FROM t WHERE ((id = 1) OR (id = 3)) ORDER BY txlab_row_1
    T1.4 REPLACE INTO t (id, v, txlab_row_1, txlab_writers) VALUES (1, 5, 3, '1'), (3, 6, 4, '1')
    T1.5 COMMIT
    ");
}

#[test]
fn autocommit_statements_are_transactions_of_their_own() {
    let t = table("t", vec![col("id", ColumnType::Int)], &["id"]);
    let case = case_of(
        Schema {
            tables: vec![t.clone()],
        },
        vec![rows_of(&t, vec![vec![Value::Int(1)]])],
        vec![
            Transaction {
                isolation: IsolationLevel::ReadCommitted,
                kind: TxnKind::Autocommit,
                statements: vec![update("t", vec![("id", int(2))], None), delete("t", None)],
            },
            explicit(
                IsolationLevel::ReadCommitted,
                vec![
                    Statement::Begin,
                    update("t", vec![("id", int(3))], None),
                    Statement::Commit,
                ],
            ),
        ],
    );
    let prepared = instrument(case, ROW, WRITERS, &features(true)).unwrap();
    // Ids 1 and 2 are the autocommit statements, 3 the explicit transaction;
    // an autocommit DELETE gets no read before it (it would be another
    // transaction).
    insta::assert_snapshot!(statements(&prepared).join("\n"), @r"
    T1.1 UPDATE t SET id = 2, txlab_writers = (txlab_writers || ',1')
    T1.2 DELETE FROM t
    T2.1 BEGIN
    T2.2 UPDATE t SET id = 3, txlab_writers = (txlab_writers || ',3')
    T2.3 COMMIT
    ");
}

#[test]
fn every_dialect_renders_the_instrumented_case() {
    use txlab_plugin_api::sdk::Dialect;
    let dialects: Vec<Box<dyn Dialect>> = vec![
        Box::new(<txlab_sqlite::SqliteDialect as DialectPlugin>::new(Default::default()).unwrap()),
        Box::new(<txlab_mysql::MariadbDialect as DialectPlugin>::new(Default::default()).unwrap()),
        Box::new(
            <txlab_postgres::PostgresDialect as DialectPlugin>::new(Default::default()).unwrap(),
        ),
    ];
    let mut out = Vec::new();
    for d in dialects {
        let info = d.info();
        let case = two_transaction_case(
            IsolationLevel::RepeatableRead,
            IsolationLevel::ReadCommitted,
        );
        let levels: Vec<IsolationLevel> = info.levels.iter().map(|l| l.level).collect();
        let mut case = case;
        for txn in &mut case.transactions {
            if !levels.contains(&txn.isolation) {
                txn.isolation = levels[0];
            }
        }
        let prepared = instrument(case, ROW, WRITERS, &info.features).unwrap();
        let rendered = d
            .render_case(&prepared, &txlab_testkit::dialect::LIMITS)
            .unwrap();
        out.push(format!("{}:", info.name));
        out.extend(rendered.create.iter().map(|s| format!("  {s}")));
        out.extend(rendered.populate.iter().map(|s| format!("  {s}")));
        for (t, txn) in rendered.transactions.iter().enumerate() {
            for (s, sql) in txn.statements.iter().enumerate() {
                out.push(format!("  {} {sql}", StatementRef::new(t, s)));
            }
        }
    }
    insta::assert_snapshot!(out.join("\n"));
}
