//! The case a person reproduces: the case as it ran, without the auxiliary
//! columns the oracles added (row ids, writer lists, version keys) where no
//! statement needs them. The statements the oracles added (extra reads)
//! stay: they take snapshots and locks, and the run depends on them.

use txlab_plugin_api::ir::*;

/// A case without the auxiliary columns it can do without.
#[derive(Clone, Debug, PartialEq)]
pub struct PlainCase {
    pub case: TestCase,
    /// The columns left out, as `table.column`.
    pub left_out: Vec<String>,
}

/// `prepared` (the case as it ran) without the columns `generated` (the
/// case before the oracles' `prepare`) does not have, each where nothing
/// but the places instrumentation puts it uses it: its own value in INSERT
/// and in the initial rows, assignments to it, and plain mentions in a
/// projection or ORDER BY. A column in a WHERE clause, a key, an index or
/// an expression stays, and so does a column whose removal would leave an
/// INSERT without columns or an UPDATE without assignments. A projection
/// left empty becomes `*` (a locking read still locks the same rows).
pub fn without_auxiliary_columns(generated: &TestCase, prepared: &TestCase) -> PlainCase {
    let mut case = prepared.clone();
    let mut left_out = Vec::new();
    for table in &prepared.schema.tables {
        let Some(original) = generated.schema.table(&table.name) else {
            continue;
        };
        for column in &table.columns {
            if original.column(&column.name).is_some() {
                continue;
            }
            if let Some(next) = remove_column(&case, &table.name, &column.name) {
                case = next;
                left_out.push(format!("{}.{}", table.name, column.name));
            }
        }
    }
    PlainCase { case, left_out }
}

fn is_column(e: &Expr, name: &str) -> bool {
    matches!(e, Expr::Column(c) if c.column == name)
}

/// `case` without `table.column`, or `None` when something needs it.
fn remove_column(case: &TestCase, table: &str, column: &str) -> Option<TestCase> {
    let mut case = case.clone();
    let t = case.schema.tables.iter_mut().find(|t| t.name == table)?;
    t.columns.retain(|c| c.name != column);
    let constrained = t.primary_key.iter().any(|c| c == column)
        || t.unique.iter().flatten().any(|c| c == column)
        || serde_json::to_string(&t.indexes)
            .ok()?
            .contains(&format!("\"{column}\""));
    if constrained {
        return None;
    }
    for rows in case.initial_rows.iter_mut().filter(|r| r.table == table) {
        if let Some(i) = rows.columns.iter().position(|c| c == column) {
            rows.columns.remove(i);
            for row in &mut rows.rows {
                if i < row.len() {
                    row.remove(i);
                }
            }
        }
    }
    for txn in &mut case.transactions {
        for statement in &mut txn.statements {
            if !remove_from(statement, table, column) {
                return None;
            }
        }
    }
    // Anything still naming the column needs it.
    let rest = serde_json::to_string(&case.transactions).ok()?;
    if rest.contains(&format!("\"{column}\"")) {
        return None;
    }
    Some(case)
}

/// Removes the column's instrumentation from one statement; false when the
/// statement cannot do without it.
fn remove_from(statement: &mut Statement, table: &str, column: &str) -> bool {
    match statement {
        Statement::Insert(insert) if insert.table == table => {
            if let Some(i) = insert.columns.iter().position(|c| c == column) {
                insert.columns.remove(i);
                for row in &mut insert.rows {
                    if i < row.len() {
                        row.remove(i);
                    }
                }
            }
            !insert.columns.is_empty()
        }
        Statement::Update(update) if update.table == table => {
            update.assignments.retain(|a| a.column != column);
            !update.assignments.is_empty()
        }
        Statement::Select(select) if select.table == table => {
            if let Projection::Exprs(items) = &mut select.projection {
                items.retain(|e| !is_column(e, column));
                if items.is_empty() {
                    select.projection = Projection::All;
                }
            }
            select.order_by.retain(|e| !is_column(e, column));
            true
        }
        Statement::Query(query) if query.table == table && query.joins.is_empty() => {
            query.projection.retain(|e| !is_column(e, column));
            query.order_by.retain(|e| !is_column(e, column));
            !query.projection.is_empty()
        }
        _ => true,
    }
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
            primary_key: vec!["id".into()],
            unique: vec![],
            indexes: vec![],
        }
    }

    fn case(columns: &[&str], statements: Vec<Statement>) -> TestCase {
        let n = statements.len();
        TestCase {
            seed: 1,
            generator: "test".into(),
            schema: Schema {
                tables: vec![table(columns)],
            },
            initial_rows: vec![TableRows {
                table: "t".into(),
                columns: columns.iter().map(|c| c.to_string()).collect(),
                rows: vec![columns
                    .iter()
                    .enumerate()
                    .map(|(i, _)| Value::Int(i as i64))
                    .collect()],
            }],
            transactions: vec![Transaction {
                isolation: IsolationLevel::RepeatableRead,
                kind: TxnKind::Explicit,
                statements,
            }],
            submitted_order: (0..n).map(|i| StatementRef::new(0, i)).collect(),
            intent: None,
            pace_ms: None,
        }
    }

    fn select(projection: &[&str], filter: Option<Expr>) -> Statement {
        Statement::Select(Select {
            table: "t".into(),
            projection: Projection::Exprs(projection.iter().map(|c| Expr::column(*c)).collect()),
            filter,
            order_by: vec![Expr::column("rid")],
            lock: RowLock::ForUpdate,
        })
    }

    fn update(assignments: &[&str]) -> Statement {
        Statement::Update(Update {
            table: "t".into(),
            assignments: assignments
                .iter()
                .map(|c| Assignment {
                    column: c.to_string(),
                    value: Expr::lit(Value::Int(5)),
                })
                .collect(),
            filter: None,
        })
    }

    #[test]
    fn instrumentation_columns_go_where_only_instrumentation_uses_them() {
        let generated = case(&["id", "v"], vec![Statement::Begin, update(&["v"])]);
        let prepared = case(
            &["id", "v", "rid"],
            vec![
                Statement::Begin,
                select(&["rid"], None),
                update(&["v", "rid"]),
            ],
        );
        let plain = without_auxiliary_columns(&generated, &prepared);
        assert_eq!(plain.left_out, vec!["t.rid".to_string()]);
        assert_eq!(plain.case.schema, generated.schema);
        assert_eq!(plain.case.initial_rows, generated.initial_rows);
        // The added read stays, reading every column, locking as before.
        let Statement::Select(s) = &plain.case.transactions[0].statements[1] else {
            panic!()
        };
        assert_eq!((&s.projection, s.order_by.len()), (&Projection::All, 0));
        assert_eq!(plain.case.transactions[0].statements[2], update(&["v"]));
        assert!(plain.case.validate().is_ok());
    }

    #[test]
    fn a_column_a_filter_or_a_lone_assignment_needs_stays() {
        let generated = case(&["id", "v"], vec![Statement::Begin]);
        let filtered = case(
            &["id", "v", "rid"],
            vec![
                Statement::Begin,
                select(
                    &["v"],
                    Some(Expr::eq(Expr::column("rid"), Expr::lit(Value::Int(1)))),
                ),
            ],
        );
        assert!(without_auxiliary_columns(&generated, &filtered)
            .left_out
            .is_empty());
        let lone = case(
            &["id", "v", "rid"],
            vec![Statement::Begin, update(&["rid"])],
        );
        let plain = without_auxiliary_columns(&generated, &lone);
        assert!(plain.left_out.is_empty());
        assert_eq!(plain.case, lone);
    }
}
