//! What oracles that instrument a case share: naming the columns they add
//! without clashing with the case's own, and splicing the statements they add
//! around the case's statements, in each transaction and in the submitted
//! order.

use crate::ir::*;

/// `base`, or `base_1`, `base_2`, … when the table already has a column of that name.
pub fn free_column_name(table: &Table, base: &str) -> String {
    let taken = |name: &str| {
        table
            .columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(name))
    };
    std::iter::once(base.to_string())
        .chain((1..).map(|k| format!("{base}_{k}")))
        .find(|n| !taken(n))
        .expect("some suffix is free")
}

/// Whether `name` is `base` or `base_<k>`, as [`free_column_name`] makes names.
pub fn named_like(name: &str, base: &str) -> bool {
    name == base
        || name
            .strip_prefix(base)
            .and_then(|rest| rest.strip_prefix('_'))
            .is_some_and(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()))
}

/// The rows a REPLACE of `insert` may remove: those equal to a new row on
/// the primary key or on a UNIQUE key (an OR over rows and keys). `None` when
/// the table has no key the INSERT sets, so nothing can collide.
pub fn replaced_rows(table: &Table, insert: &Insert) -> Option<Expr> {
    let keys = std::iter::once(&table.primary_key)
        .chain(&table.unique)
        .filter(|k| !k.is_empty());
    let mut alternatives = Vec::new();
    for key in keys {
        let positions: Option<Vec<usize>> = key
            .iter()
            .map(|c| insert.columns.iter().position(|ic| ic == c))
            .collect();
        let Some(positions) = positions else {
            continue; // a key column left to its default: NULL never collides
        };
        for row in &insert.rows {
            let mut conjunction: Option<Expr> = None;
            for (column, &at) in key.iter().zip(&positions) {
                let eq = Expr::eq(Expr::column(column), row[at].clone());
                conjunction = Some(match conjunction {
                    None => eq,
                    Some(c) => Expr::and(c, eq),
                });
            }
            alternatives.extend(conjunction);
        }
    }
    alternatives
        .into_iter()
        .reduce(|a, b| Expr::binary(BinaryOp::Or, a, b))
}

/// The rows a REPLACE … SELECT may remove: those whose primary or UNIQUE key
/// is among the query's values for that key (an OR of `key IN (SELECT …)`
/// over the keys), `Ok(None)` when the statement sets no key. `Err` when a
/// key it sets has several columns, which one `IN` cannot compare.
pub fn replaced_rows_by_query(
    table: &Table,
    insert: &InsertSelect,
) -> Result<Option<Expr>, String> {
    let keys = std::iter::once(&table.primary_key)
        .chain(&table.unique)
        .filter(|k| !k.is_empty());
    let mut alternatives = Vec::new();
    for key in keys {
        let positions: Option<Vec<usize>> = key
            .iter()
            .map(|c| insert.columns.iter().position(|ic| ic == c))
            .collect();
        let Some(positions) = positions else {
            continue; // a key column left to its default: NULL never collides
        };
        let [at] = positions[..] else {
            return Err(format!("its key ({}) has several columns", key.join(", ")));
        };
        let values = Query {
            projection: vec![insert.query.projection[at].clone()],
            order_by: Vec::new(),
            ..insert.query.clone()
        };
        alternatives.push(Expr::InSubquery {
            operand: Box::new(Expr::column(&key[0])),
            query: Box::new(values),
            negated: false,
        });
    }
    Ok(alternatives
        .into_iter()
        .reduce(|a, b| Expr::binary(BinaryOp::Or, a, b)))
}

/// The statements an oracle puts right before and right after one statement
/// of the case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Around {
    pub before: Vec<Statement>,
    pub after: Vec<Statement>,
}

/// Puts `around[t][s]` before and after statement `s` of transaction `t`, in
/// the transaction and in the submitted order, so that each added statement
/// is submitted right next to its statement. Returns the new position of
/// every original statement, by its old one.
///
/// # Panics
/// When `around` does not have an entry per statement of the case.
pub fn splice(case: &mut TestCase, mut around: Vec<Vec<Around>>) -> Vec<Vec<usize>> {
    assert_eq!(
        around.len(),
        case.transactions.len(),
        "one list per transaction"
    );
    let mut new_position: Vec<Vec<usize>> = Vec::new();
    // The range of new positions each original statement now spans.
    let mut span: Vec<Vec<(usize, usize)>> = Vec::new();
    for (t, txn) in case.transactions.iter_mut().enumerate() {
        assert_eq!(
            around[t].len(),
            txn.statements.len(),
            "one entry per statement"
        );
        let mut statements = Vec::new();
        let mut positions = Vec::new();
        let mut spans = Vec::new();
        for (s, statement) in std::mem::take(&mut txn.statements).into_iter().enumerate() {
            let added = std::mem::take(&mut around[t][s]);
            let from = statements.len();
            statements.extend(added.before);
            positions.push(statements.len());
            statements.push(statement);
            statements.extend(added.after);
            spans.push((from, statements.len() - 1));
        }
        txn.statements = statements;
        new_position.push(positions);
        span.push(spans);
    }
    let mut order = Vec::new();
    for at in &case.submitted_order {
        let (from, to) = span[at.txn()][at.stmt()];
        order.extend((from..=to).map(|k| StatementRef::new(at.txn(), k)));
    }
    case.submitted_order = order;
    new_position
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(table: &str) -> Statement {
        Statement::Select(Select {
            table: table.into(),
            projection: Projection::All,
            filter: None,
            order_by: vec![],
            lock: RowLock::None,
        })
    }

    #[test]
    fn added_statements_sit_next_to_theirs_in_both_orders() {
        let txn = |statements| Transaction {
            isolation: IsolationLevel::Serializable,
            kind: TxnKind::Explicit,
            statements,
        };
        let at = StatementRef::new;
        let mut case = TestCase {
            seed: 0,
            generator: "test".into(),
            schema: Schema::default(),
            initial_rows: vec![],
            transactions: vec![
                txn(vec![Statement::Begin, select("a"), Statement::Commit]),
                txn(vec![Statement::Begin, Statement::Commit]),
            ],
            submitted_order: vec![at(0, 0), at(1, 0), at(0, 1), at(1, 1), at(0, 2)],
            intent: None,
            pace_ms: None,
        };
        let mut around = vec![vec![Around::default(); 3], vec![Around::default(); 2]];
        around[0][1] = Around {
            before: vec![select("before")],
            after: vec![select("after1"), select("after2")],
        };
        let positions = splice(&mut case, around);
        assert_eq!(positions, vec![vec![0, 2, 5], vec![0, 1]]);
        assert_eq!(case.transactions[0].statements.len(), 6);
        assert_eq!(case.transactions[0].statements[1], select("before"));
        assert_eq!(case.transactions[0].statements[4], select("after2"));
        assert_eq!(
            case.submitted_order,
            vec![
                at(0, 0),
                at(1, 0),
                at(0, 1),
                at(0, 2),
                at(0, 3),
                at(0, 4),
                at(1, 1),
                at(0, 5)
            ]
        );
        case.validate().unwrap();
    }

    #[test]
    fn a_replace_select_removes_rows_whose_key_its_query_returns() {
        let col = |name: &str| Column {
            name: name.into(),
            ty: ColumnType::Int,
            not_null: true,
        };
        let mut table = Table {
            name: "t".into(),
            columns: vec![col("id"), col("u"), col("v")],
            primary_key: vec!["id".into()],
            unique: vec![vec!["u".into()]],
            indexes: vec![],
        };
        let insert = InsertSelect {
            table: "t".into(),
            columns: vec!["id".into(), "u".into()],
            query: Query {
                filter: Some(Expr::eq(Expr::column("a"), Expr::Literal(Value::Int(1)))),
                order_by: vec![Expr::column("b")],
                ..Query::from_table("s", vec![Expr::column("b"), Expr::column("a")])
            },
            on_conflict: OnConflict::Replace,
        };
        let key_in = |key: &str, value: &str| Expr::InSubquery {
            operand: Box::new(Expr::column(key)),
            query: Box::new(Query {
                filter: insert.query.filter.clone(),
                ..Query::from_table("s", vec![Expr::column(value)])
            }),
            negated: false,
        };
        assert_eq!(
            replaced_rows_by_query(&table, &insert),
            Ok(Some(Expr::binary(
                BinaryOp::Or,
                key_in("id", "b"),
                key_in("u", "a")
            )))
        );
        // A key of two columns: one IN cannot compare it.
        table.unique = vec![vec!["u".into(), "v".into()]];
        let mut both = insert.clone();
        both.columns.push("v".into());
        both.query.projection.push(Expr::column("a"));
        assert!(replaced_rows_by_query(&table, &both).is_err());
        // A key it leaves to its default never collides.
        assert_eq!(
            replaced_rows_by_query(&table, &insert),
            Ok(Some(key_in("id", "b")))
        );
    }

    #[test]
    fn free_names_skip_taken_ones_and_are_recognised() {
        let table = Table {
            name: "t".into(),
            columns: ["x", "X_1"]
                .iter()
                .map(|n| Column {
                    name: n.to_string(),
                    ty: ColumnType::Int,
                    not_null: false,
                })
                .collect(),
            primary_key: vec![],
            unique: vec![],
            indexes: vec![],
        };
        assert_eq!(free_column_name(&table, "x"), "x_2");
        assert_eq!(free_column_name(&table, "y"), "y");
        assert!(named_like("x_2", "x") && named_like("x", "x"));
        assert!(!named_like("x_", "x") && !named_like("xy", "x") && !named_like("x_a", "x"));
    }
}
