//! Random SELECT, INSERT, UPDATE and DELETE statements over a generated database,
//! and (IR 1.1, off by default) queries, INSERT … SELECT and subqueries
//! ([`queries`]).

mod queries;

use crate::config::Config;
use crate::schema::{unique_keys, Database};
use crate::values::{is_numeric, sql_cmp, Domain, ValueCache};
use rand::distributions::WeightedIndex;
use rand::prelude::Distribution;
use rand::seq::SliceRandom;
use rand::Rng;
use txlab_plugin_api::prelude::*;

/// How often a filter pins rows by equality with a row that exists or was written,
/// rather than being a random predicate.
const ROW_LOOKUP_PROBABILITY: f64 = 0.5;
/// How often a row lookup picks one of the case's few hot rows rather than any known
/// row: point conflicts between transactions need them to pick the same row.
const HOT_ROW_PROBABILITY: f64 = 0.6;
const HOT_ROWS_PER_TABLE: usize = 2;
/// How often a predicate node combines two predicates (or negates one) while depth remains.
const COMPOUND_PROBABILITY: f64 = 0.35;
const PREDICATE_DEPTH: u32 = 2;
/// Tries at finding a key value the table does not hold before settling for any.
const FRESH_KEY_TRIES: usize = 8;
const INSERT_NULL_PROBABILITY: f64 = 0.1;
const ASSIGN_NULL_PROBABILITY: f64 = 0.1;
const ASSIGN_ARITHMETIC_PROBABILITY: f64 = 0.4;
/// UPDATEs mostly leave the primary key alone, so they change rows rather than move them.
const ASSIGN_PRIMARY_KEY_PROBABILITY: f64 = 0.15;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Select,
    Insert,
    Update,
    Delete,
    Query,
    InsertSelect,
}

impl Kind {
    /// In the order of `Weights::as_array`.
    pub const ALL: [Kind; 6] = [
        Kind::Select,
        Kind::Insert,
        Kind::Update,
        Kind::Delete,
        Kind::Query,
        Kind::InsertSelect,
    ];
}

/// Draws statements one after another; every value it writes joins the value cache,
/// so later statements (of any transaction) can hit the same rows.
pub struct StatementGenerator<'a> {
    db: &'a Database,
    cache: ValueCache,
    /// `hot_rows[table]`: initial rows that row lookups favour.
    hot_rows: Vec<Vec<Vec<Value>>>,
    kinds: WeightedIndex<u32>,
    locks: Vec<RowLock>,
    conflicts: Vec<OnConflict>,
    cache_probability: f64,
    key_collision_probability: f64,
    /// IR 1.1; at 0 no draw is made for it, so IR 1.0 cases stay as they were.
    subquery_probability: f64,
}

impl<'a> StatementGenerator<'a> {
    pub fn new(db: &'a Database, config: &Config, features: &Features, rng: &mut impl Rng) -> Self {
        let mut cache = ValueCache::new(&db.schema);
        for (t, rows) in db.initial_rows.iter().enumerate() {
            for row in &rows.rows {
                cache.add_row(t, row.clone());
            }
        }
        let hot_rows = db
            .initial_rows
            .iter()
            .map(|rows| {
                rows.rows
                    .choose_multiple(rng, HOT_ROWS_PER_TABLE)
                    .cloned()
                    .collect()
            })
            .collect();
        let mut locks = vec![RowLock::None];
        if features.select_for_update {
            locks.push(RowLock::ForUpdate);
        }
        if features.select_for_share {
            locks.push(RowLock::ForShare);
        }
        let mut conflicts = vec![OnConflict::Error];
        if features.replace {
            conflicts.push(OnConflict::Replace);
        }
        if features.insert_ignore {
            conflicts.push(OnConflict::Ignore);
        }
        StatementGenerator {
            db,
            cache,
            hot_rows,
            kinds: WeightedIndex::new(config.weights.as_array())
                .expect("validated: some weight is above 0"),
            locks,
            conflicts,
            cache_probability: config.cache_probability,
            key_collision_probability: config.key_collision_probability,
            subquery_probability: config.subquery_probability,
        }
    }

    /// A key value for column `c` of table `t` that no row seen so far holds,
    /// if the domain has one left within a few tries.
    fn fresh_key(&self, t: usize, c: usize, rng: &mut impl Rng) -> Value {
        let domain = self.domain(t, c);
        let mut value = domain.random(rng);
        for _ in 1..FRESH_KEY_TRIES {
            if !self.cache.contains(t, c, &value) {
                break;
            }
            value = domain.random(rng);
        }
        value
    }

    pub fn statement(&mut self, rng: &mut impl Rng) -> Statement {
        let t = rng.gen_range(0..self.db.schema.tables.len());
        match Kind::ALL[self.kinds.sample(rng)] {
            Kind::Select => Statement::Select(self.select(t, rng)),
            Kind::Insert => Statement::Insert(self.insert(t, rng)),
            Kind::Update => Statement::Update(self.update(t, rng)),
            Kind::Delete => Statement::Delete(self.delete(t, rng)),
            Kind::Query => Statement::Query(Box::new(self.query(t, rng))),
            Kind::InsertSelect => Statement::InsertSelect(Box::new(self.insert_select(t, rng))),
        }
    }

    fn table(&self, t: usize) -> &'a Table {
        &self.db.schema.tables[t]
    }

    fn domain(&self, t: usize, c: usize) -> &'a Domain {
        &self.db.domains[t][c]
    }

    fn select(&mut self, t: usize, rng: &mut impl Rng) -> Select {
        let table = self.table(t);
        let projection = if rng.gen_bool(0.5) {
            Projection::All
        } else {
            let count = rng.gen_range(1..=table.columns.len());
            let mut columns: Vec<usize> = (0..table.columns.len())
                .collect::<Vec<_>>()
                .choose_multiple(rng, count)
                .copied()
                .collect();
            columns.sort_unstable();
            Projection::Exprs(
                columns
                    .iter()
                    .map(|&c| Expr::column(&table.columns[c].name))
                    .collect(),
            )
        };
        Select {
            table: table.name.clone(),
            projection,
            filter: self.filter(t, 0.9, rng),
            order_by: Vec::new(),
            lock: if rng.gen_bool(0.6) {
                RowLock::None
            } else {
                *self
                    .locks
                    .choose(rng)
                    .expect("RowLock::None is always there")
            },
        }
    }

    fn insert(&mut self, t: usize, rng: &mut impl Rng) -> Insert {
        let table = self.table(t);
        let keys = unique_keys(table);
        let in_key = |c: usize| keys.iter().any(|k| k.contains(&c));
        // Leaving out nullable columns outside keys stores NULL there: still deterministic.
        let mut columns: Vec<usize> = (0..table.columns.len())
            .filter(|&c| table.columns[c].not_null || in_key(c) || rng.gen_bool(0.8))
            .collect();
        if columns.is_empty() {
            // Not every dialect accepts an INSERT without columns.
            columns.push(rng.gen_range(0..table.columns.len()));
        }
        let row_count = if rng.gen_bool(0.8) { 1 } else { 2 };
        let mut rows = Vec::with_capacity(row_count);
        for _ in 0..row_count {
            let mut full_row = vec![Value::Null; table.columns.len()];
            for &c in &columns {
                full_row[c] = if in_key(c) {
                    if rng.gen_bool(self.key_collision_probability) {
                        self.cache
                            .value(t, c, rng)
                            .unwrap_or_else(|| self.domain(t, c).random(rng))
                    } else {
                        self.fresh_key(t, c, rng)
                    }
                } else if !table.columns[c].not_null && rng.gen_bool(INSERT_NULL_PROBABILITY) {
                    Value::Null
                } else {
                    self.literal(t, c, rng)
                };
            }
            rows.push(
                columns
                    .iter()
                    .map(|&c| Expr::lit(full_row[c].clone()))
                    .collect(),
            );
            self.cache.add_row(t, full_row);
        }
        Insert {
            table: table.name.clone(),
            columns: columns
                .iter()
                .map(|&c| table.columns[c].name.clone())
                .collect(),
            rows,
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

    fn update(&mut self, t: usize, rng: &mut impl Rng) -> Update {
        let table = self.table(t);
        let outside_primary_key: Vec<usize> = (0..table.columns.len())
            .filter(|&c| !table.primary_key.contains(&table.columns[c].name))
            .collect();
        let candidates: Vec<usize> =
            if outside_primary_key.is_empty() || rng.gen_bool(ASSIGN_PRIMARY_KEY_PROBABILITY) {
                (0..table.columns.len()).collect()
            } else {
                outside_primary_key
            };
        let count = rng.gen_range(1..=candidates.len().min(2));
        let mut targets: Vec<usize> = candidates.choose_multiple(rng, count).copied().collect();
        targets.sort_unstable();
        let assignments = targets
            .iter()
            .map(|&c| Assignment {
                column: table.columns[c].name.clone(),
                value: self.assigned_value(t, c, rng),
            })
            .collect();
        Update {
            table: table.name.clone(),
            assignments,
            filter: self.filter(t, 0.92, rng),
        }
    }

    fn assigned_value(&mut self, t: usize, c: usize, rng: &mut impl Rng) -> Expr {
        if self.subquery_probability > 0.0 && rng.gen_bool(self.subquery_probability) {
            if let Some(e) = self.assigned_subquery(t, c, rng) {
                return e;
            }
        }
        let column = &self.table(t).columns[c];
        let domain = self.domain(t, c);
        if !column.not_null && rng.gen_bool(ASSIGN_NULL_PROBABILITY) {
            return Expr::lit(Value::Null);
        }
        if let (true, Some(step)) = (
            rng.gen_bool(ASSIGN_ARITHMETIC_PROBABILITY),
            domain.step(rng.gen_range(1..=3)),
        ) {
            // Only + and -: repeated products would leave the column type's range.
            let op = if rng.gen_bool(0.7) {
                BinaryOp::Add
            } else {
                BinaryOp::Sub
            };
            return Expr::binary(op, Expr::column(&column.name), Expr::lit(step));
        }
        let value = self.literal(t, c, rng);
        self.cache.add_value(t, c, &value);
        Expr::lit(value)
    }

    fn delete(&mut self, t: usize, rng: &mut impl Rng) -> Delete {
        Delete {
            table: self.table(t).name.clone(),
            filter: self.filter(t, 0.95, rng),
        }
    }

    /// A literal for column `c`: mostly a value already in the column, else one from
    /// its domain.
    fn literal(&self, t: usize, c: usize, rng: &mut impl Rng) -> Value {
        if rng.gen_bool(self.cache_probability) {
            if let Some(v) = self.cache.value(t, c, rng) {
                return v;
            }
        }
        self.domain(t, c).random(rng)
    }

    fn filter(&self, t: usize, probability: f64, rng: &mut impl Rng) -> Option<Expr> {
        if !rng.gen_bool(probability) {
            return None;
        }
        if rng.gen_bool(ROW_LOOKUP_PROBABILITY) {
            if let Some(lookup) = self.row_lookup(t, rng) {
                return Some(lookup);
            }
        }
        Some(self.predicate(t, PREDICATE_DEPTH, true, rng))
    }

    /// Equality with a known row on its primary key (or on one or two columns when
    /// the table has none): the forced conflict, since other transactions' lookups
    /// favour the same hot rows.
    fn row_lookup(&self, t: usize, rng: &mut impl Rng) -> Option<Expr> {
        let table = self.table(t);
        let hot = &self.hot_rows[t];
        let row = if !hot.is_empty() && rng.gen_bool(HOT_ROW_PROBABILITY) {
            hot.choose(rng).map(Vec::as_slice)
        } else {
            self.cache.row(t, rng)
        }?;
        let columns: Vec<usize> = if table.primary_key.is_empty() {
            let count = rng.gen_range(1..=table.columns.len().min(2));
            let mut cs: Vec<usize> = (0..table.columns.len())
                .collect::<Vec<_>>()
                .choose_multiple(rng, count)
                .copied()
                .collect();
            cs.sort_unstable();
            cs
        } else {
            table
                .primary_key
                .iter()
                .map(|name| table.columns.iter().position(|c| &c.name == name))
                .collect::<Option<_>>()?
        };
        columns
            .iter()
            .map(|&c| {
                let column = Expr::column(&table.columns[c].name);
                match &row[c] {
                    Value::Null => Expr::IsNull {
                        operand: Box::new(column),
                        negated: false,
                    },
                    v => Expr::eq(column, Expr::lit(v.clone())),
                }
            })
            .reduce(Expr::and)
    }

    /// A predicate over table `t`'s bare columns; its atoms may be subqueries
    /// when `subqueries` is set and `subquery_probability` is above 0.
    fn predicate(&self, t: usize, depth: u32, subqueries: bool, rng: &mut impl Rng) -> Expr {
        if depth > 0 && rng.gen_bool(COMPOUND_PROBABILITY) {
            return match rng.gen_range(0..5) {
                0 => Expr::Unary {
                    op: UnaryOp::Not,
                    operand: Box::new(self.predicate(t, depth - 1, subqueries, rng)),
                },
                1 | 2 => Expr::and(
                    self.predicate(t, depth - 1, subqueries, rng),
                    self.predicate(t, depth - 1, subqueries, rng),
                ),
                _ => Expr::binary(
                    BinaryOp::Or,
                    self.predicate(t, depth - 1, subqueries, rng),
                    self.predicate(t, depth - 1, subqueries, rng),
                ),
            };
        }
        // Checked before drawing, so that at 0 the draws are IR 1.0's.
        if subqueries && self.subquery_probability > 0.0 && rng.gen_bool(self.subquery_probability)
        {
            if let Some(e) = self.subquery_predicate(t, rng) {
                return e;
            }
        }
        self.atom(t, rng)
    }

    fn atom(&self, t: usize, rng: &mut impl Rng) -> Expr {
        let c = rng.gen_range(0..self.table(t).columns.len());
        let ty = self.domain(t, c).ty;
        let column = Expr::column(&self.table(t).columns[c].name);
        let ordered = ty != ColumnType::Bool;
        match rng.gen_range(0..100) {
            0..=9 => Expr::IsNull {
                operand: Box::new(column),
                negated: rng.gen_bool(0.3),
            },
            10..=27 => {
                let count = rng.gen_range(1..=4);
                Expr::InList {
                    operand: Box::new(column),
                    list: (0..count)
                        .map(|_| Expr::lit(self.literal(t, c, rng)))
                        .collect(),
                    negated: rng.gen_bool(0.2),
                }
            }
            28..=39 if ordered => {
                let mut bounds = [self.literal(t, c, rng), self.literal(t, c, rng)];
                bounds.sort_by(sql_cmp);
                let [low, high] = bounds;
                Expr::Between {
                    operand: Box::new(column),
                    low: Box::new(Expr::lit(low)),
                    high: Box::new(Expr::lit(high)),
                    negated: rng.gen_bool(0.2),
                }
            }
            40..=51 if is_numeric(ty) => {
                // `c + 1 > v`: arithmetic inside a predicate.
                let step = self
                    .domain(t, c)
                    .step(rng.gen_range(1..=3))
                    .expect("numeric columns have steps");
                let op = *[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul]
                    .choose(rng)
                    .expect("non-empty");
                let shifted = Expr::binary(op, column, Expr::lit(step));
                Expr::binary(
                    comparison(ordered, rng),
                    shifted,
                    Expr::lit(self.literal(t, c, rng)),
                )
            }
            _ => Expr::binary(
                comparison(ordered, rng),
                column,
                Expr::lit(self.literal(t, c, rng)),
            ),
        }
    }
}

/// A comparison operator; `=` most often, since it pins rows. Unordered types (BOOL)
/// get only `=` and `<>`.
fn comparison(ordered: bool, rng: &mut impl Rng) -> BinaryOp {
    const ALL: [(BinaryOp, u32); 6] = [
        (BinaryOp::Eq, 4),
        (BinaryOp::NotEq, 1),
        (BinaryOp::Lt, 1),
        (BinaryOp::LtEq, 1),
        (BinaryOp::Gt, 1),
        (BinaryOp::GtEq, 1),
    ];
    let choices = if ordered { &ALL[..] } else { &ALL[..2] };
    choices
        .choose_weighted(rng, |(_, w)| *w)
        .expect("positive weights")
        .0
}
