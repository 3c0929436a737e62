//! `prepare`: the auxiliary row-identity column.
//!
//! Every table gets one more column, last, holding a row id that is unique in the
//! case: the initial rows are numbered from 1, and every row an INSERT lists gets
//! the next free id as a literal, in transaction and statement order. The oracle
//! follows rows by this id instead of interpreting WHERE clauses (Troc, §III-B).
//! The column has no constraint and no index, so it takes no locks of its own.

use txlab_plugin_api::prelude::*;

/// The name `prepare` gives the row-id column of a table: `base`, or `base_1`,
/// `base_2`, ... when the table already has a column of that name.
pub fn rid_name(table: &Table, base: &str) -> String {
    let taken = |name: &str| {
        table
            .columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(name))
    };
    if !taken(base) {
        return base.to_string();
    }
    (1..)
        .map(|k| format!("{base}_{k}"))
        .find(|n| !taken(n))
        .expect("some suffix is free")
}

/// Adds the row-id column to every table and gives every row a unique id.
pub fn instrument(mut case: TestCase, base: &str) -> Result<TestCase, PluginError> {
    let mut names = Vec::new();
    for table in &mut case.schema.tables {
        let name = rid_name(table, base);
        table.columns.push(Column {
            name: name.clone(),
            ty: ColumnType::BigInt,
            not_null: false,
        });
        names.push((table.name.clone(), name));
    }
    let rid_of = |table: &str| {
        names
            .iter()
            .find(|(t, _)| t == table)
            .map(|(_, n)| n.clone())
    };
    let mut next: i64 = 1;
    for rows in &mut case.initial_rows {
        let Some(name) = rid_of(&rows.table) else {
            return Err(PluginError::invalid_input(format!(
                "initial rows name table `{}`, which is not in the schema",
                rows.table
            )));
        };
        rows.columns.push(name);
        for row in &mut rows.rows {
            row.push(Value::Int(next));
            next += 1;
        }
    }
    for txn in &mut case.transactions {
        for statement in &mut txn.statements {
            if let Statement::Insert(insert) = statement {
                let Some(name) = rid_of(&insert.table) else {
                    continue;
                };
                if insert.columns.iter().any(|c| c == &name) {
                    return Err(PluginError::invalid_input(format!(
                        "an INSERT already names the row-id column `{name}`"
                    )));
                }
                insert.columns.push(name);
                for row in &mut insert.rows {
                    row.push(Expr::Literal(Value::Int(next)));
                    next += 1;
                }
            }
        }
    }
    Ok(case)
}

/// The row-id column of a prepared table: the column `prepare` added, named
/// as `prepare` names it for the columns before it (oracles that prepare the
/// case later may add columns after it). `None` when the table was not
/// prepared by this oracle.
pub fn rid_column(table: &Table, base: &str) -> Option<usize> {
    (0..table.columns.len()).rev().find(|&i| {
        let column = &table.columns[i];
        let before = Table {
            columns: table.columns[..i].to_vec(),
            ..table.clone()
        };
        column.name == rid_name(&before, base)
            && matches!(column.ty, ColumnType::BigInt | ColumnType::Int)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: &[&str]) -> Table {
        Table {
            name: "t".into(),
            columns: columns
                .iter()
                .map(|c| Column {
                    name: c.to_string(),
                    ty: ColumnType::Int,
                    not_null: false,
                })
                .collect(),
            primary_key: vec![],
            unique: vec![],
            indexes: vec![],
        }
    }

    #[test]
    fn names_avoid_existing_columns() {
        assert_eq!(rid_name(&table(&["a"]), "rid"), "rid");
        assert_eq!(rid_name(&table(&["a", "RID"]), "rid"), "rid_1");
        assert_eq!(rid_name(&table(&["rid", "rid_1"]), "rid"), "rid_2");
    }

    #[test]
    fn initial_rows_and_inserted_rows_get_unique_ids() {
        let t = table(&["a", "rid"]);
        let case = TestCase {
            seed: 1,
            generator: "test".into(),
            schema: Schema {
                tables: vec![t.clone()],
            },
            initial_rows: vec![TableRows {
                table: "t".into(),
                columns: vec!["a".into(), "rid".into()],
                rows: vec![
                    vec![Value::Int(1), Value::Int(7)],
                    vec![Value::Int(2), Value::Int(7)],
                ],
            }],
            transactions: vec![Transaction {
                isolation: IsolationLevel::ReadCommitted,
                kind: TxnKind::Explicit,
                statements: vec![
                    Statement::Begin,
                    Statement::Insert(Insert {
                        table: "t".into(),
                        columns: vec!["a".into()],
                        rows: vec![
                            vec![Expr::Literal(Value::Int(3))],
                            vec![Expr::Literal(Value::Int(4))],
                        ],
                        on_conflict: OnConflict::Error,
                    }),
                    Statement::Commit,
                ],
            }],
            submitted_order: vec![
                StatementRef::new(0, 0),
                StatementRef::new(0, 1),
                StatementRef::new(0, 2),
            ],
            intent: None,
            pace_ms: None,
        };
        let prepared = instrument(case, "rid").unwrap();
        let unprepared = table(&["a", "b"]);
        let table = &prepared.schema.tables[0];
        assert_eq!(table.columns.last().unwrap().name, "rid_1");
        assert_eq!(rid_column(table, "rid"), Some(2));
        assert_eq!(rid_column(&unprepared, "rid"), None);
        // Another oracle's columns after it (IsoRel's, TxCheck's) do not hide it.
        let mut later = table.clone();
        later.columns.push(Column {
            name: "txc_item".into(),
            ty: ColumnType::BigInt,
            not_null: false,
        });
        assert_eq!(rid_column(&later, "rid"), Some(2));
        assert_eq!(prepared.initial_rows[0].rows[0][2], Value::Int(1));
        assert_eq!(prepared.initial_rows[0].rows[1][2], Value::Int(2));
        let Statement::Insert(insert) = &prepared.transactions[0].statements[1] else {
            panic!()
        };
        assert_eq!(insert.columns, vec!["a", "rid_1"]);
        assert_eq!(insert.rows[0][1], Expr::Literal(Value::Int(3)));
        assert_eq!(insert.rows[1][1], Expr::Literal(Value::Int(4)));
        prepared.validate().unwrap();
    }
}
