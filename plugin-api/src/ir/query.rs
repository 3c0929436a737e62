//! Queries over one table or a join of up to three, with aggregates and
//! GROUP BY: the top-level [`Statement::Query`](super::Statement::Query), the
//! source of [`InsertSelect`](super::InsertSelect), and the body of every
//! subquery ([`Expr::InSubquery`], [`Expr::Exists`], [`Expr::ScalarSubquery`]).
//! IR 1.1.

use super::Expr;
use serde::{Deserialize, Serialize};

/// `SELECT projection FROM table [AS alias] [joins] [WHERE filter]
/// [GROUP BY group_by] [ORDER BY order_by]`. IR 1.1.
///
/// Names: each table in the FROM clause is known by its alias if it has one,
/// by its name otherwise ([`Query::names`]); the names in one query differ.
/// Where more than one table is in scope (a join), every column is qualified
/// (`ColumnRef.table` = that name). A bare column refers to the query's own
/// FROM table when it has no join; a subquery reads a column of an enclosing
/// statement (a correlated subquery) only qualified by the enclosing table's
/// name or alias.
///
/// Aggregates ([`Expr::Aggregate`]) may appear in the projection and ORDER BY;
/// with `group_by` empty, a query with an aggregate returns one row. A query
/// with aggregates or GROUP BY projects only GROUP BY keys and aggregates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Query {
    /// The first table of the FROM clause.
    pub table: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// Up to two joins, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<Join>,
    /// The result columns; at least one.
    pub projection: Vec<Expr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Expr>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_by: Vec<Expr>,
    /// Meaningful only at the top level, where it makes the result's order
    /// deterministic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order_by: Vec<Expr>,
}

/// `[INNER | LEFT] JOIN table [AS alias] ON on`. IR 1.1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Join {
    pub kind: JoinKind,
    pub table: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    pub on: Expr,
}

/// IR 1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum JoinKind {
    Inner,
    /// LEFT OUTER JOIN: a left row without a match is kept once, the joined
    /// table's columns NULL.
    Left,
}

impl JoinKind {
    /// The join in standard SQL spelling, shared by every dialect so far.
    pub fn sql(self) -> &'static str {
        match self {
            JoinKind::Inner => "INNER JOIN",
            JoinKind::Left => "LEFT JOIN",
        }
    }
}

/// The aggregate functions, with SQL's NULL rules: COUNT(expr) counts the
/// non-NULL values and COUNT(*) the rows (0 for none); SUM, MIN and MAX ignore
/// NULLs and are NULL over no value. IR 1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AggregateFunc {
    Count,
    Sum,
    Min,
    Max,
}

impl AggregateFunc {
    pub fn sql(self) -> &'static str {
        match self {
            AggregateFunc::Count => "COUNT",
            AggregateFunc::Sum => "SUM",
            AggregateFunc::Min => "MIN",
            AggregateFunc::Max => "MAX",
        }
    }
}

impl Join {
    /// The name the joined table is known by in the query: its alias, or its name.
    pub fn name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.table)
    }
}

impl Query {
    /// A query over one table, no alias, projecting `projection`.
    pub fn from_table(table: impl Into<String>, projection: Vec<Expr>) -> Query {
        Query {
            table: table.into(),
            alias: None,
            joins: Vec::new(),
            projection,
            filter: None,
            group_by: Vec::new(),
            order_by: Vec::new(),
        }
    }

    /// The name the FROM table is known by: its alias, or its name.
    pub fn name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.table)
    }

    /// Every table in the FROM clause as (name in the query, table), FROM
    /// table first, then the joins in order.
    pub fn names(&self) -> Vec<(&str, &str)> {
        std::iter::once((self.name(), self.table.as_str()))
            .chain(self.joins.iter().map(|j| (j.name(), j.table.as_str())))
            .collect()
    }

    /// Whether the query aggregates: an aggregate in its projection or ORDER
    /// BY, or a GROUP BY.
    pub fn is_aggregate(&self) -> bool {
        !self.group_by.is_empty()
            || self
                .projection
                .iter()
                .chain(&self.order_by)
                .any(Expr::has_aggregate)
    }

    /// The query's own expressions: projection, join conditions, filter,
    /// GROUP BY and ORDER BY (not looking into subqueries).
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.projection
            .iter()
            .chain(self.joins.iter().map(|j| &j.on))
            .chain(self.filter.iter())
            .chain(self.group_by.iter())
            .chain(self.order_by.iter())
    }

    /// Every table the query reads, each once, in order of appearance: the
    /// FROM table, the joined tables, then the tables of its subqueries.
    pub fn tables(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_tables(&mut out);
        out
    }

    pub(crate) fn collect_tables<'a>(&'a self, out: &mut Vec<&'a str>) {
        for (_, table) in self.names() {
            if !out.contains(&table) {
                out.push(table);
            }
        }
        for e in self.exprs() {
            e.collect_tables(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::*;

    fn qcol(table: &str, column: &str) -> Expr {
        Expr::Column(ColumnRef {
            table: Some(table.into()),
            column: column.into(),
        })
    }

    fn count_star() -> Expr {
        Expr::Aggregate {
            func: AggregateFunc::Count,
            arg: None,
        }
    }

    /// `SELECT a.k, COUNT(*) FROM t1 AS a INNER JOIN t2 AS b ON a.k = b.k
    /// LEFT JOIN t3 ON … WHERE EXISTS (SELECT … FROM t3) GROUP BY a.k`.
    fn join_query() -> Query {
        Query {
            table: "t1".into(),
            alias: Some("a".into()),
            joins: vec![
                Join {
                    kind: JoinKind::Inner,
                    table: "t2".into(),
                    alias: Some("b".into()),
                    on: Expr::eq(qcol("a", "k"), qcol("b", "k")),
                },
                Join {
                    kind: JoinKind::Left,
                    table: "t3".into(),
                    alias: None,
                    on: Expr::eq(qcol("b", "k"), qcol("t3", "k")),
                },
            ],
            projection: vec![qcol("a", "k"), count_star()],
            filter: Some(Expr::Exists {
                query: Box::new(Query::from_table("t4", vec![Expr::column("x")])),
                negated: true,
            }),
            group_by: vec![qcol("a", "k")],
            order_by: vec![qcol("a", "k")],
        }
    }

    #[test]
    fn every_new_form_round_trips_through_json() {
        let scalar = Expr::ScalarSubquery(Box::new(Query::from_table(
            "t2",
            vec![Expr::Aggregate {
                func: AggregateFunc::Max,
                arg: Some(Box::new(Expr::column("v"))),
            }],
        )));
        let statements = vec![
            Statement::Query(Box::new(join_query())),
            Statement::InsertSelect(Box::new(InsertSelect {
                table: "t1".into(),
                columns: vec!["k".into(), "n".into()],
                query: join_query(),
                on_conflict: OnConflict::Ignore,
            })),
            Statement::Update(Update {
                table: "t1".into(),
                assignments: vec![Assignment {
                    column: "v".into(),
                    value: scalar.clone(),
                }],
                filter: Some(Expr::InSubquery {
                    operand: Box::new(Expr::column("k")),
                    query: Box::new(Query::from_table("t2", vec![Expr::column("k")])),
                    negated: false,
                }),
            }),
        ];
        for s in statements {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(
                serde_json::from_str::<Statement>(&json).unwrap(),
                s,
                "{json}"
            );
        }
        // Optional parts are left out, and read back as absent.
        let json = serde_json::to_string(&Query::from_table("t", vec![count_star()])).unwrap();
        assert_eq!(
            json,
            r#"{"table":"t","projection":[{"aggregate":{"func":"count"}}]}"#
        );
    }

    #[test]
    fn an_ir_1_0_reader_fails_only_on_the_new_forms() {
        // A statement of IR 1.0 reads as before; the new variants are unknown
        // to an older reader, which refuses them (tested here by their tags).
        let old = r#"{"delete":{"table":"t","filter":{"column":{"column":"id"}}}}"#;
        assert!(matches!(
            serde_json::from_str::<Statement>(old).unwrap(),
            Statement::Delete(_)
        ));
        let json = serde_json::to_value(Statement::Query(Box::new(join_query()))).unwrap();
        assert!(json.get("query").is_some(), "{json}");
        // Unknown fields in a query are skipped, as for every IR type.
        let newer = r#"{"table":"t","projection":[{"literal":{"int":1}}],"window":[]}"#;
        assert!(serde_json::from_str::<Query>(newer).is_ok());
    }

    #[test]
    fn statements_list_the_tables_they_read() {
        let q = Statement::Query(Box::new(join_query()));
        assert_eq!(q.tables_read(), ["t1", "t2", "t3", "t4"]);
        assert_eq!(q.table(), Some("t1"));
        assert!(q.has_subquery() && q.uses_query_forms());
        let update = Statement::Update(Update {
            table: "t1".into(),
            assignments: vec![Assignment {
                column: "v".into(),
                value: Expr::ScalarSubquery(Box::new(Query::from_table(
                    "t2",
                    vec![Expr::column("v")],
                ))),
            }],
            filter: Some(Expr::Exists {
                query: Box::new(Query::from_table("t1", vec![Expr::column("v")])),
                negated: false,
            }),
        });
        assert_eq!(update.tables_read(), ["t1", "t2"]);
        assert_eq!(update.table(), Some("t1"));
        assert!(update.has_subquery());
        let insert = Statement::InsertSelect(Box::new(InsertSelect {
            table: "t9".into(),
            columns: vec!["k".into()],
            query: Query::from_table("t2", vec![Expr::column("k")]),
            on_conflict: OnConflict::Error,
        }));
        assert_eq!(insert.tables_read(), ["t2"]);
        assert_eq!(insert.table(), Some("t9"));
        assert!(insert.is_write() && !insert.has_subquery() && insert.uses_query_forms());
        let plain = Statement::Delete(Delete {
            table: "t".into(),
            filter: Some(Expr::column("id")),
        });
        assert_eq!(plain.tables_read(), ["t"]);
        assert!(!plain.uses_query_forms());
    }

    #[test]
    fn columns_and_visits_stay_out_of_subqueries() {
        let e = Expr::and(
            Expr::InSubquery {
                operand: Box::new(Expr::column("a")),
                query: Box::new(Query::from_table("t2", vec![Expr::column("b")])),
                negated: false,
            },
            Expr::Aggregate {
                func: AggregateFunc::Sum,
                arg: Some(Box::new(Expr::column("c"))),
            },
        );
        let names: Vec<&str> = e.columns().iter().map(|c| c.column.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert!(e.has_subquery() && e.has_aggregate());
        assert_eq!(e.subqueries().len(), 1);
        assert_eq!(e.tables(), ["t2"]);
        assert!(join_query().is_aggregate());
        assert!(!Query::from_table("t", vec![Expr::column("a")]).is_aggregate());
    }

    #[test]
    fn query_forms_are_named_for_undecided_reasons() {
        assert_eq!(
            Statement::Query(Box::new(join_query()))
                .query_form()
                .unwrap(),
            "is a query over `t1`, `t2`, `t3`, `t4` with aggregates"
        );
        let delete = Statement::Delete(Delete {
            table: "t1".into(),
            filter: Some(Expr::InSubquery {
                operand: Box::new(Expr::column("k")),
                query: Box::new(Query::from_table("t1", vec![Expr::column("k")])),
                negated: false,
            }),
        });
        assert_eq!(
            delete.query_form().unwrap(),
            "(DELETE) reads `t1` through a subquery"
        );
        let insert = Statement::InsertSelect(Box::new(InsertSelect {
            table: "t1".into(),
            columns: vec!["k".into()],
            query: Query::from_table("t2", vec![Expr::column("k")]),
            on_conflict: OnConflict::Error,
        }));
        assert_eq!(
            insert.query_form().unwrap(),
            "is an INSERT … SELECT into `t1` reading `t2`"
        );
        assert_eq!(Statement::Commit.query_form(), None);
        let case = TestCase {
            seed: 0,
            generator: "test".into(),
            schema: Schema::default(),
            initial_rows: vec![],
            transactions: vec![Transaction {
                isolation: IsolationLevel::ReadCommitted,
                kind: TxnKind::Explicit,
                statements: vec![Statement::Begin, delete, Statement::Commit],
            }],
            submitted_order: (0..3).map(|s| StatementRef::new(0, s)).collect(),
            intent: None,
            pace_ms: None,
        };
        assert_eq!(
            case.first_query_form().unwrap(),
            "T1.2 (DELETE) reads `t1` through a subquery"
        );
    }
}
