//! IR 1.1's forms: subqueries in predicates and assignments, queries over up
//! to three joined tables with aggregates and GROUP BY, INSERT … SELECT. Each
//! is drawn only under a weight or probability that defaults to 0.
//!
//! What every shipped dialect runs: compared and IN-listed columns have the
//! same type on both sides; MIN and MAX never take a BOOL (PostgreSQL has no
//! such aggregate), SUM only integers (its value is then exact everywhere); a
//! grouped query projects only its GROUP BY key and aggregates (MySQL's
//! ONLY_FULL_GROUP_BY); and the subquery of an UPDATE or DELETE never reads
//! the statement's own table (MySQL's error 1093), so subqueries always read
//! another table of the schema, and there are none in a one-table schema.

use super::{comparison, StatementGenerator};
use crate::schema::unique_keys;
use rand::seq::SliceRandom;
use rand::Rng;
use txlab_plugin_api::prelude::*;

const ALIASES: [&str; 3] = ["a", "b", "c"];
/// The alias of a subquery's table, and of an INSERT … SELECT's source.
const SUB: &str = "sq";

fn qc(table: &str, column: &str) -> Expr {
    Expr::Column(ColumnRef {
        table: Some(table.into()),
        column: column.into(),
    })
}

/// `e` with every bare column qualified by `name` (there are no subqueries
/// in what this is used on).
fn qualify(e: Expr, name: &str) -> Expr {
    match e {
        Expr::Column(ColumnRef {
            table: None,
            column,
        }) => qc(name, &column),
        Expr::Unary { op, operand } => Expr::Unary {
            op,
            operand: Box::new(qualify(*operand, name)),
        },
        Expr::Binary { op, left, right } => Expr::Binary {
            op,
            left: Box::new(qualify(*left, name)),
            right: Box::new(qualify(*right, name)),
        },
        Expr::IsNull { operand, negated } => Expr::IsNull {
            operand: Box::new(qualify(*operand, name)),
            negated,
        },
        Expr::InList {
            operand,
            list,
            negated,
        } => Expr::InList {
            operand: Box::new(qualify(*operand, name)),
            list: list.into_iter().map(|e| qualify(e, name)).collect(),
            negated,
        },
        Expr::Between {
            operand,
            low,
            high,
            negated,
        } => Expr::Between {
            operand: Box::new(qualify(*operand, name)),
            low: Box::new(qualify(*low, name)),
            high: Box::new(qualify(*high, name)),
            negated,
        },
        other => other,
    }
}

fn aggregate(func: AggregateFunc, arg: Expr) -> Expr {
    Expr::Aggregate {
        func,
        arg: Some(Box::new(arg)),
    }
}

fn count_star() -> Expr {
    Expr::Aggregate {
        func: AggregateFunc::Count,
        arg: None,
    }
}

fn single(table: &str, projection: Vec<Expr>, filter: Option<Expr>) -> Query {
    Query {
        table: table.into(),
        alias: Some(SUB.into()),
        joins: Vec::new(),
        projection,
        filter,
        group_by: Vec::new(),
        order_by: Vec::new(),
    }
}

impl StatementGenerator<'_> {
    /// The columns of table `u` whose type is `ty`.
    fn columns_of_type(&self, u: usize, ty: ColumnType) -> Vec<usize> {
        (0..self.table(u).columns.len())
            .filter(|&d| self.domain(u, d).ty == ty)
            .collect()
    }

    /// A table other than `t`, if the schema has one.
    fn other_table(&self, t: usize, rng: &mut impl Rng) -> Option<usize> {
        let others: Vec<usize> = (0..self.db.schema.tables.len())
            .filter(|&u| u != t)
            .collect();
        others.choose(rng).copied()
    }

    /// An atom over another table, read through a subquery: `t.c [NOT] IN
    /// (SELECT sq.d …)`, `[NOT] EXISTS (SELECT … WHERE sq.d = t.c …)` or `t.c
    /// op (SELECT MAX(sq.d) …)`. `None` in a one-table schema.
    pub(super) fn subquery_predicate(&self, t: usize, rng: &mut impl Rng) -> Option<Expr> {
        let u = self.other_table(t, rng)?;
        let outer_table = &self.table(t).name;
        let inner = &self.table(u);
        let c = rng.gen_range(0..self.table(t).columns.len());
        let ty = self.domain(t, c).ty;
        let outer = qc(outer_table, &self.table(t).columns[c].name);
        let matching = self.columns_of_type(u, ty);
        let inner_filter = rng.gen_bool(0.5).then(|| qualify(self.atom(u, rng), SUB));
        let d = matching
            .choose(rng)
            .map(|&d| qc(SUB, &inner.columns[d].name));
        let first = qc(SUB, &inner.columns[0].name);
        Some(match (rng.gen_range(0..3), d) {
            (0, Some(d)) => Expr::InSubquery {
                operand: Box::new(outer),
                query: Box::new(single(&inner.name, vec![d], inner_filter)),
                negated: rng.gen_bool(0.2),
            },
            (2, Some(d)) if ty != ColumnType::Bool => {
                let func = if rng.gen_bool(0.5) {
                    AggregateFunc::Max
                } else {
                    AggregateFunc::Min
                };
                let scalar = single(&inner.name, vec![aggregate(func, d)], inner_filter);
                Expr::binary(
                    comparison(true, rng),
                    outer,
                    Expr::ScalarSubquery(Box::new(scalar)),
                )
            }
            (_, d) => {
                // Correlated on a column of the same type where there is one.
                let correlation = d.filter(|_| rng.gen_bool(0.7)).map(|d| Expr::eq(d, outer));
                let filter = match (correlation, inner_filter) {
                    (Some(a), Some(b)) => Some(Expr::and(a, b)),
                    (a, b) => a.or(b),
                };
                Expr::Exists {
                    query: Box::new(single(&inner.name, vec![first], filter)),
                    negated: rng.gen_bool(0.3),
                }
            }
        })
    }

    /// `(SELECT MAX(sq.d) FROM u AS sq [WHERE …])` for a nullable column
    /// outside every key (an empty subquery gives NULL; a key would collide).
    pub(super) fn assigned_subquery(&self, t: usize, c: usize, rng: &mut impl Rng) -> Option<Expr> {
        let table = self.table(t);
        let in_key = unique_keys(table).iter().any(|k| k.contains(&c));
        let ty = self.domain(t, c).ty;
        if table.columns[c].not_null || in_key || ty == ColumnType::Bool {
            return None;
        }
        let u = self.other_table(t, rng)?;
        let d = *self.columns_of_type(u, ty).choose(rng)?;
        let func = if rng.gen_bool(0.5) {
            AggregateFunc::Max
        } else {
            AggregateFunc::Min
        };
        let filter = rng.gen_bool(0.5).then(|| qualify(self.atom(u, rng), SUB));
        let inner = self.table(u);
        Some(Expr::ScalarSubquery(Box::new(single(
            &inner.name,
            vec![aggregate(func, qc(SUB, &inner.columns[d].name))],
            filter,
        ))))
    }

    /// A query over `t` and up to two joined tables (any, `t` again too),
    /// every table aliased and every column qualified; half of them grouped.
    pub(super) fn query<R: Rng>(&self, t: usize, rng: &mut R) -> Query {
        let n = self.db.schema.tables.len();
        let joins = rng.gen_range(0..=2);
        let mut tables = vec![t];
        tables.extend((0..joins).map(|_| rng.gen_range(0..n)));
        let mut query = Query {
            table: self.table(t).name.clone(),
            alias: Some(ALIASES[0].into()),
            joins: Vec::new(),
            projection: Vec::new(),
            filter: None,
            group_by: Vec::new(),
            order_by: Vec::new(),
        };
        for k in 1..tables.len() {
            let u = tables[k];
            let j = rng.gen_range(0..k);
            let pairs: Vec<(usize, usize)> = (0..self.table(u).columns.len())
                .flat_map(|cu| {
                    self.columns_of_type(tables[j], self.domain(u, cu).ty)
                        .into_iter()
                        .map(move |cj| (cu, cj))
                })
                .collect();
            let on = match pairs.choose(rng) {
                Some(&(cu, cj)) => Expr::eq(
                    qc(ALIASES[k], &self.table(u).columns[cu].name),
                    qc(ALIASES[j], &self.table(tables[j]).columns[cj].name),
                ),
                None => qualify(self.atom(u, rng), ALIASES[k]),
            };
            query.joins.push(Join {
                kind: if rng.gen_bool(0.5) {
                    JoinKind::Inner
                } else {
                    JoinKind::Left
                },
                table: self.table(u).name.clone(),
                alias: Some(ALIASES[k].into()),
                on,
            });
        }
        if rng.gen_bool(0.6) {
            let k = rng.gen_range(0..tables.len());
            query.filter = Some(qualify(
                self.predicate(tables[k], 1, false, rng),
                ALIASES[k],
            ));
        }
        // A random column of a random table of the query: (alias, name, type).
        let pick = |rng: &mut R| {
            let k = rng.gen_range(0..tables.len());
            let c = rng.gen_range(0..self.table(tables[k]).columns.len());
            (
                qc(ALIASES[k], &self.table(tables[k]).columns[c].name),
                self.domain(tables[k], c).ty,
            )
        };
        if rng.gen_bool(0.5) {
            if rng.gen_bool(0.6) {
                let (key, _) = pick(rng);
                query.group_by.push(key.clone());
                query.projection.push(key);
            }
            query.projection.push(count_star());
            let (column, ty) = pick(rng);
            let mut funcs = vec![AggregateFunc::Count];
            if ty != ColumnType::Bool {
                funcs.extend([AggregateFunc::Min, AggregateFunc::Max]);
            }
            if matches!(ty, ColumnType::Int | ColumnType::BigInt) {
                funcs.push(AggregateFunc::Sum);
            }
            let func = *funcs.choose(rng).expect("COUNT is always there");
            query.projection.push(aggregate(func, column));
            query.order_by = query.group_by.clone();
        } else {
            let count = rng.gen_range(1..=3);
            query.projection = (0..count).map(|_| pick(rng).0).collect();
            query.order_by = query.projection.clone();
        }
        query
    }

    /// `INSERT INTO t (…) SELECT … FROM u AS sq [WHERE …]`: each column from a
    /// column of `u` of its type, or a literal where `u` has none.
    pub(super) fn insert_select(&mut self, t: usize, rng: &mut impl Rng) -> InsertSelect {
        let table = self.table(t);
        let keys = unique_keys(table);
        let in_key = |c: usize| keys.iter().any(|k| k.contains(&c));
        let mut columns: Vec<usize> = (0..table.columns.len())
            .filter(|&c| table.columns[c].not_null || in_key(c) || rng.gen_bool(0.8))
            .collect();
        if columns.is_empty() {
            columns.push(rng.gen_range(0..table.columns.len()));
        }
        let u = rng.gen_range(0..self.db.schema.tables.len());
        let source = self.table(u);
        let projection = columns
            .iter()
            .map(
                |&c| match self.columns_of_type(u, self.domain(t, c).ty).choose(rng) {
                    Some(&d) => qc(SUB, &source.columns[d].name),
                    None => Expr::lit(self.literal(t, c, rng)),
                },
            )
            .collect();
        let filter = rng.gen_bool(0.8).then(|| qualify(self.atom(u, rng), SUB));
        InsertSelect {
            table: table.name.clone(),
            columns: columns
                .iter()
                .map(|&c| table.columns[c].name.clone())
                .collect(),
            query: single(&source.name, projection, filter),
            on_conflict: if rng.gen_bool(0.6) {
                OnConflict::Error
            } else {
                *self
                    .conflicts
                    .choose(rng)
                    .expect("OnConflict::Error is always there")
            },
        }
    }
}
