//! A pattern made into a test case: a small schema, initial rows that hold the
//! pattern's items among filler rows, one statement per operation that touches
//! exactly its item's row, filler statements on rows of their own, and the
//! pattern's interleaving as the submitted order.

use crate::catalogue::{OpKind, Pattern};
use crate::config::Config;
use rand::distributions::WeightedIndex;
use rand::prelude::Distribution;
use rand::seq::SliceRandom;
use rand::Rng;
use txlab_plugin_api::prelude::*;

/// Keys and tags of the rows filler statements insert start here, above every
/// key and tag of the layout, so that no predicate of the pattern matches them.
pub const FRESH_BASE: i64 = 10_000;
/// The key column, the value column and the tag column.
pub const KEY: &str = "id";
pub const VAL: &str = "val";
pub const TAG: &str = "tag";

const NULL_PROBABILITY: f64 = 0.1;
const ASSIGN_FILLER_PROBABILITY: f64 = 0.3;

/// The column types the generator uses, from those the dialect offers.
#[derive(Clone, Debug, PartialEq)]
pub struct Types {
    /// Of `id`, `val` and `tag`: INT, else BIGINT.
    pub integer: ColumnType,
    /// Of the filler columns.
    pub filler: Vec<ColumnType>,
}

impl Types {
    /// None when the dialect offers neither INT nor BIGINT.
    pub fn from_features(features: &Features) -> Option<Types> {
        let offered = |t: ColumnType| features.column_types.contains(&t);
        let integer = [ColumnType::Int, ColumnType::BigInt]
            .into_iter()
            .find(|&t| offered(t))?;
        let mut filler: Vec<ColumnType> = Vec::new();
        for &ty in &features.column_types {
            if fillable(ty) && !filler.contains(&ty) {
                filler.push(ty);
            }
        }
        Some(Types { integer, filler })
    }
}

/// Whether filler values of `ty` fit on every dialect that offers it.
fn fillable(ty: ColumnType) -> bool {
    match ty {
        ColumnType::Int
        | ColumnType::BigInt
        | ColumnType::Double
        | ColumnType::Text
        | ColumnType::Bool => true,
        // Values below 1000 with one significant fractional digit.
        ColumnType::Decimal { precision, scale } => {
            precision <= 38 && scale <= 10 && precision >= scale + 4
        }
        // At most four characters ("s999").
        ColumnType::Varchar { len } => len >= 4,
        _ => false,
    }
}

/// What a row of the layout is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The row of a pattern item.
    Item(char),
    /// A filler row, touched only by the filler statements of its owner (a
    /// transaction index), or by nothing.
    Filler(Option<usize>),
}

/// One row of the layout: a pattern item or a filler row.
#[derive(Clone, Debug, PartialEq)]
pub struct RowInfo {
    pub table: usize,
    pub key: i64,
    pub tag: i64,
    pub role: Role,
    /// In the initial rows; an item whose first write INSERTs it is not.
    pub initial: bool,
}

/// A generated case with what it was made from, for tests and reports.
#[derive(Clone, Debug)]
pub struct Instance {
    pub case: TestCase,
    pub pattern: Pattern,
    /// Per operation of the pattern (index-aligned with `pattern.ops`), the
    /// statement that realises it.
    pub sites: Vec<StatementRef>,
    /// Every row of the layout, by table and key.
    pub rows: Vec<RowInfo>,
    /// The filler statements.
    pub fillers: Vec<StatementRef>,
    /// Rows filler statements insert: table, key and the inserting transaction.
    pub inserted: Vec<(usize, i64, usize)>,
}

impl Instance {
    /// The layout row of `item`.
    pub fn item_row(&self, item: char) -> &RowInfo {
        self.rows
            .iter()
            .find(|r| r.role == Role::Item(item))
            .expect("every item has a row")
    }
}

struct Builder<'a> {
    config: &'a Config,
    types: &'a Types,
    pattern: &'a Pattern,
    schema: Schema,
    rows: Vec<RowInfo>,
    /// Filler column types per table.
    fillers: Vec<Vec<ColumnType>>,
    next_val: i64,
    next_fresh: i64,
    locks: Vec<RowLock>,
}

/// Builds the case for `pattern` with transactions at `levels`.
pub fn instantiate(
    pattern: &Pattern,
    levels: &[IsolationLevel],
    config: &Config,
    features: &Features,
    types: &Types,
    seed: u64,
    rng: &mut impl Rng,
) -> Instance {
    let mut locks = Vec::new();
    if features.select_for_update {
        locks.push(RowLock::ForUpdate);
    }
    if features.select_for_share {
        locks.push(RowLock::ForShare);
    }
    let mut b = Builder {
        config,
        types,
        pattern,
        schema: Schema::default(),
        rows: Vec::new(),
        fillers: Vec::new(),
        next_val: 1,
        next_fresh: FRESH_BASE,
        locks,
    };
    b.schema_and_layout(rng);
    let initial_rows = b.initial_rows(rng);

    // Filler statements: per transaction, how many, and before which of its
    // operations (the last slot is before its COMMIT or ROLLBACK).
    let n = pattern.txns;
    let ops_of = |t: usize| pattern.ops.iter().filter(|o| o.txn == t).count();
    let mut slots: Vec<Vec<usize>> = (0..n)
        .map(|t| {
            let count = rng.gen_range(config.filler_statements[0]..=config.filler_statements[1]);
            let mut s: Vec<usize> = (0..count).map(|_| rng.gen_range(0..ops_of(t))).collect();
            s.sort_unstable();
            s
        })
        .collect();
    let mut live: Vec<Vec<(usize, i64)>> = (0..n)
        .map(|t| {
            b.rows
                .iter()
                .filter(|r| r.role == Role::Filler(Some(t)))
                .map(|r| (r.table, r.key))
                .collect()
        })
        .collect();
    let kinds = (config.filler_statements[1] > 0)
        .then(|| WeightedIndex::new(config.filler_weights.as_array()).expect("validated"));

    let mut statements: Vec<Vec<Statement>> = (0..n)
        .map(|t| {
            let at_once = config.consistent_snapshot_start
                && features.snapshot_begin_levels.contains(&levels[t]);
            vec![if at_once {
                Statement::BeginSnapshot
            } else {
                Statement::Begin
            }]
        })
        .collect();
    let mut order: Vec<StatementRef> = (0..n).map(|t| StatementRef::new(t, 0)).collect();
    let mut sites = Vec::with_capacity(pattern.ops.len());
    let mut fillers = Vec::new();
    let mut inserted = Vec::new();
    let mut local = vec![0usize; n];
    for (index, op) in pattern.ops.iter().enumerate() {
        let t = op.txn;
        while slots[t].first() == Some(&local[t]) {
            slots[t].remove(0);
            let kinds = kinds.as_ref().expect("filler statements are allowed");
            let (statement, insert) = b.filler(&mut live[t], kinds, rng);
            if let Some((table, key)) = insert {
                inserted.push((table, key, t));
            }
            statements[t].push(statement);
            let at = StatementRef::new(t, statements[t].len() - 1);
            order.push(at);
            fillers.push(at);
        }
        let statement = b.operation(index, rng);
        statements[t].push(statement);
        let at = StatementRef::new(t, statements[t].len() - 1);
        order.push(at);
        sites.push(at);
        local[t] += 1;
    }

    let transactions = statements
        .into_iter()
        .zip(levels)
        .map(|(statements, &isolation)| Transaction {
            isolation,
            kind: TxnKind::Explicit,
            statements,
        })
        .collect();
    let case = TestCase {
        seed,
        generator: crate::NAME.to_string(),
        schema: b.schema,
        initial_rows,
        transactions,
        submitted_order: order,
        intent: Some(pattern.intent()),
        pace_ms: None,
    };
    Instance {
        case,
        pattern: pattern.clone(),
        sites,
        rows: b.rows,
        fillers,
        inserted,
    }
}

impl Builder<'_> {
    fn schema_and_layout(&mut self, rng: &mut impl Rng) {
        let config = self.config;
        let pattern = self.pattern;
        let table_count = rng.gen_range(config.tables[0]..=config.tables[1]) as usize;
        for t in 0..table_count {
            let name = format!("t{t}");
            let count = rng.gen_range(config.filler_columns[0]..=config.filler_columns[1]);
            let filler: Vec<ColumnType> = if self.types.filler.is_empty() {
                Vec::new()
            } else {
                (0..count)
                    .map(|_| *self.types.filler.choose(rng).expect("non-empty"))
                    .collect()
            };
            let integer = self.types.integer;
            let mut columns = vec![
                Column {
                    name: KEY.into(),
                    ty: integer,
                    not_null: true,
                },
                Column {
                    name: VAL.into(),
                    ty: integer,
                    not_null: true,
                },
                Column {
                    name: TAG.into(),
                    ty: integer,
                    not_null: true,
                },
            ];
            columns.extend(filler.iter().enumerate().map(|(i, &ty)| Column {
                name: format!("c{i}"),
                ty,
                not_null: false,
            }));
            let indexes = if rng.gen_bool(config.tag_index_probability) {
                vec![Index {
                    // Index names are per database in SQLite and PostgreSQL.
                    name: format!("{name}_tag"),
                    columns: vec![TAG.into()],
                    unique: false,
                }]
            } else {
                Vec::new()
            };
            self.schema.tables.push(Table {
                name,
                columns,
                primary_key: vec![KEY.into()],
                unique: Vec::new(),
                indexes,
            });
            self.fillers.push(filler);
        }

        // Where each item lives and whether its first write inserts it.
        let shared_table = rng.gen_range(0..table_count);
        let mut item_table = Vec::new();
        for &item in &pattern.items {
            let table = if pattern.spec.predicate_read {
                shared_table
            } else {
                rng.gen_range(0..table_count)
            };
            let first = pattern
                .ops
                .iter()
                .find(|o| o.item == Some(item))
                .expect("items are used");
            let read_initial = pattern
                .ops
                .iter()
                .any(|o| o.kind == OpKind::Read && o.item == Some(item) && o.version == 0);
            let insertable = first.kind == OpKind::Write && !read_initial;
            let absent = insertable
                && (pattern.spec.predicate_read || rng.gen_bool(config.insert_probability));
            item_table.push((item, table, !absent));
        }

        // Per table: the items (one block when a predicate read covers them all)
        // and the filler rows, in random key order with gaps between keys.
        let owners = pattern.txns;
        for table in 0..table_count {
            let items: Vec<(char, bool)> = item_table
                .iter()
                .filter(|(_, t, _)| *t == table)
                .map(|&(i, _, initial)| (i, initial))
                .collect();
            let mut units: Vec<Vec<Role>> = if pattern.spec.predicate_read {
                if items.is_empty() {
                    Vec::new()
                } else {
                    vec![items.iter().map(|&(i, _)| Role::Item(i)).collect()]
                }
            } else {
                items.iter().map(|&(i, _)| vec![Role::Item(i)]).collect()
            };
            let filler_rows = rng.gen_range(config.filler_rows[0]..=config.filler_rows[1]);
            for _ in 0..filler_rows {
                let owner = rng.gen_range(0..=owners);
                units.push(vec![Role::Filler((owner < owners).then_some(owner))]);
            }
            units.shuffle(rng);
            let roles: Vec<Role> = units.into_iter().flatten().collect();
            let mut tags: Vec<i64> = (0..roles.len() as i64)
                .map(|i| 100 + 10 * i + rng.gen_range(0..10))
                .collect();
            tags.shuffle(rng);
            let mut key: i64 = rng.gen_range(1..=5);
            for (role, tag) in roles.into_iter().zip(tags) {
                let initial = match role {
                    Role::Item(i) => items.iter().any(|&(j, initial)| j == i && initial),
                    Role::Filler(_) => true,
                };
                self.rows.push(RowInfo {
                    table,
                    key,
                    tag,
                    role,
                    initial,
                });
                key += rng.gen_range(1..=4);
            }
        }
    }

    fn fresh_val(&mut self) -> Value {
        let v = self.next_val;
        self.next_val += 1;
        Value::Int(v)
    }

    /// A full row: key, a fresh value, tag, filler values.
    fn row_values(&mut self, table: usize, key: i64, tag: i64, rng: &mut impl Rng) -> Vec<Value> {
        let mut row = vec![Value::Int(key), self.fresh_val(), Value::Int(tag)];
        for i in 0..self.fillers[table].len() {
            let ty = self.fillers[table][i];
            row.push(if rng.gen_bool(NULL_PROBABILITY) {
                Value::Null
            } else {
                filler_value(ty, rng)
            });
        }
        row
    }

    fn initial_rows(&mut self, rng: &mut impl Rng) -> Vec<TableRows> {
        let mut out = Vec::new();
        for t in 0..self.schema.tables.len() {
            let present: Vec<(i64, i64)> = self
                .rows
                .iter()
                .filter(|r| r.table == t && r.initial)
                .map(|r| (r.key, r.tag))
                .collect();
            let rows = present
                .into_iter()
                .map(|(key, tag)| self.row_values(t, key, tag, rng))
                .collect();
            out.push(TableRows {
                table: self.schema.tables[t].name.clone(),
                columns: self.schema.tables[t].column_names(),
                rows,
            });
        }
        out
    }

    fn table_name(&self, t: usize) -> String {
        self.schema.tables[t].name.clone()
    }

    /// The statement of operation `index` of the pattern.
    fn operation(&mut self, index: usize, rng: &mut impl Rng) -> Statement {
        let pattern = self.pattern;
        let op = pattern.ops[index];
        match op.kind {
            OpKind::Commit => Statement::Commit,
            OpKind::Abort => Statement::Rollback,
            OpKind::Read => {
                let item = op.item.expect("reads have items");
                let row = self.item(item).clone();
                let filter = if pattern.spec.predicate_read {
                    self.scan_filter(row.table, rng)
                } else {
                    self.row_filter(&row, rng)
                };
                Statement::Select(self.select(row.table, filter, rng))
            }
            OpKind::Write => {
                let item = op.item.expect("writes have items");
                let row = self.item(item).clone();
                let table = self.table_name(row.table);
                if op.version == 1 && !row.initial {
                    let values = self.row_values(row.table, row.key, row.tag, rng);
                    return Statement::Insert(Insert {
                        table,
                        columns: self.schema.tables[row.table].column_names(),
                        rows: vec![values.into_iter().map(Expr::lit).collect()],
                        on_conflict: OnConflict::Error,
                    });
                }
                let last_write = !pattern.ops[index + 1..]
                    .iter()
                    .any(|o| o.kind == OpKind::Write && o.item == Some(item));
                let read = pattern.ops.iter().any(|o| {
                    o.kind == OpKind::Read && o.item == Some(item) && o.version == op.version
                });
                let deletable = last_write && !read && !pattern.spec.predicate_read;
                let filter = Some(self.row_filter(&row, rng));
                if deletable && rng.gen_bool(self.config.delete_probability) {
                    Statement::Delete(Delete { table, filter })
                } else {
                    let assignments = self.assignments(row.table, rng);
                    Statement::Update(Update {
                        table,
                        assignments,
                        filter,
                    })
                }
            }
        }
    }

    fn item(&self, item: char) -> &RowInfo {
        self.rows
            .iter()
            .find(|r| r.role == Role::Item(item))
            .expect("every item has a row")
    }

    /// `val` gets a fresh value; some filler columns new values.
    fn assignments(&mut self, table: usize, rng: &mut impl Rng) -> Vec<Assignment> {
        let mut out = vec![Assignment {
            column: VAL.into(),
            value: Expr::lit(self.fresh_val()),
        }];
        for (i, &ty) in self.fillers[table].iter().enumerate() {
            if rng.gen_bool(ASSIGN_FILLER_PROBABILITY) {
                out.push(Assignment {
                    column: format!("c{i}"),
                    value: Expr::lit(filler_value(ty, rng)),
                });
            }
        }
        out
    }

    fn select(&self, table: usize, filter: Expr, rng: &mut impl Rng) -> Select {
        let projection = if rng.gen_bool(0.5) {
            Projection::All
        } else {
            Projection::Exprs(vec![Expr::column(KEY), Expr::column(VAL)])
        };
        let order_by = if rng.gen_bool(0.5) {
            vec![Expr::column(KEY)]
        } else {
            Vec::new()
        };
        let lock = if !self.locks.is_empty() && rng.gen_bool(self.config.locking_read_probability) {
            *self.locks.choose(rng).expect("non-empty")
        } else {
            RowLock::None
        };
        Select {
            table: self.table_name(table),
            projection,
            filter: Some(filter),
            order_by,
            lock,
        }
    }

    /// A WHERE clause that matches exactly `row` among every row the case may
    /// hold: by key, or by a predicate (a key range or the tag) that no other
    /// row of the layout, and no row a filler statement inserts, satisfies.
    fn row_filter(&self, row: &RowInfo, rng: &mut impl Rng) -> Expr {
        if !rng.gen_bool(self.config.predicate_probability) {
            return Expr::eq(Expr::column(KEY), int(row.key));
        }
        if rng.gen_bool(0.5) {
            self.key_range(row.table, row.key, row.key, rng)
        } else if rng.gen_bool(0.5) {
            Expr::eq(Expr::column(TAG), int(row.tag))
        } else {
            let tags: Vec<i64> = self
                .rows
                .iter()
                .filter(|r| r.table == row.table)
                .map(|r| r.tag)
                .collect();
            let (lo, hi) = around(&tags, row.tag, row.tag, rng);
            range(TAG, lo, hi, rng)
        }
    }

    /// The predicate of a predicate read: a key range that holds exactly the
    /// pattern's items (they lie next to each other in one table).
    fn scan_filter(&self, table: usize, rng: &mut impl Rng) -> Expr {
        let keys: Vec<i64> = self
            .rows
            .iter()
            .filter(|r| r.table == table && matches!(r.role, Role::Item(_)))
            .map(|r| r.key)
            .collect();
        let lo = *keys.iter().min().expect("the items share this table");
        let hi = *keys.iter().max().expect("the items share this table");
        self.key_range(table, lo, hi, rng)
    }

    fn key_range(&self, table: usize, lo: i64, hi: i64, rng: &mut impl Rng) -> Expr {
        let keys: Vec<i64> = self
            .rows
            .iter()
            .filter(|r| r.table == table)
            .map(|r| r.key)
            .collect();
        let (lo, hi) = around(&keys, lo, hi, rng);
        range(KEY, lo, hi, rng)
    }

    /// A filler statement on `live`, the rows of its transaction; returns the
    /// row it inserts, if it does.
    fn filler(
        &mut self,
        live: &mut Vec<(usize, i64)>,
        kinds: &WeightedIndex<u32>,
        rng: &mut impl Rng,
    ) -> (Statement, Option<(usize, i64)>) {
        let mut kind = kinds.sample(rng);
        if live.is_empty() && kind != 1 {
            // Nothing of its own to touch: insert a row (or, with inserts
            // disabled, read a key nobody holds).
            if self.config.filler_weights.insert > 0 {
                kind = 1;
            } else {
                let key = self.next_fresh;
                self.next_fresh += 1;
                let table = rng.gen_range(0..self.schema.tables.len());
                let filter = Expr::eq(Expr::column(KEY), int(key));
                return (Statement::Select(self.select(table, filter, rng)), None);
            }
        }
        match kind {
            0 => {
                let &(table, key) = live.choose(rng).expect("checked");
                let filter = Expr::eq(Expr::column(KEY), int(key));
                (Statement::Select(self.select(table, filter, rng)), None)
            }
            1 => {
                let table = rng.gen_range(0..self.schema.tables.len());
                let key = self.next_fresh;
                self.next_fresh += 1;
                let values = self.row_values(table, key, key, rng);
                live.push((table, key));
                (
                    Statement::Insert(Insert {
                        table: self.table_name(table),
                        columns: self.schema.tables[table].column_names(),
                        rows: vec![values.into_iter().map(Expr::lit).collect()],
                        on_conflict: OnConflict::Error,
                    }),
                    Some((table, key)),
                )
            }
            2 => {
                let &(table, key) = live.choose(rng).expect("checked");
                let assignments = self.assignments(table, rng);
                (
                    Statement::Update(Update {
                        table: self.table_name(table),
                        assignments,
                        filter: Some(Expr::eq(Expr::column(KEY), int(key))),
                    }),
                    None,
                )
            }
            _ => {
                let slot = rng.gen_range(0..live.len());
                let (table, key) = live.remove(slot);
                (
                    Statement::Delete(Delete {
                        table: self.table_name(table),
                        filter: Some(Expr::eq(Expr::column(KEY), int(key))),
                    }),
                    None,
                )
            }
        }
    }
}

fn int(v: i64) -> Expr {
    Expr::lit(Value::Int(v))
}

/// Bounds `lo' <= lo`, `hi' >= hi` that include no value of `taken` outside
/// `[lo, hi]`, up to two beyond the outermost values.
fn around(taken: &[i64], lo: i64, hi: i64, rng: &mut impl Rng) -> (i64, i64) {
    let below = taken.iter().copied().filter(|&v| v < lo).max();
    let above = taken.iter().copied().filter(|&v| v > hi).min();
    let lo = match below {
        Some(b) => rng.gen_range(b + 1..=lo),
        None => lo - rng.gen_range(0..=2),
    };
    let hi = match above {
        Some(a) => rng.gen_range(hi..a),
        None => hi + rng.gen_range(0..=2),
    };
    (lo, hi)
}

/// `column` in `[lo, hi]`, written one of three ways.
fn range(column: &str, lo: i64, hi: i64, rng: &mut impl Rng) -> Expr {
    let c = || Expr::column(column);
    match rng.gen_range(0..3) {
        0 => Expr::Between {
            operand: Box::new(c()),
            low: Box::new(int(lo)),
            high: Box::new(int(hi)),
            negated: false,
        },
        1 => Expr::and(
            Expr::binary(BinaryOp::GtEq, c(), int(lo)),
            Expr::binary(BinaryOp::LtEq, c(), int(hi)),
        ),
        _ => Expr::and(
            Expr::binary(BinaryOp::Gt, c(), int(lo - 1)),
            Expr::binary(BinaryOp::Lt, c(), int(hi + 1)),
        ),
    }
}

/// A value of a filler column of type `ty`.
fn filler_value(ty: ColumnType, rng: &mut impl Rng) -> Value {
    let n: i64 = rng.gen_range(0..1000);
    match ty {
        ColumnType::Int => Value::Int(n),
        // Beyond 32 bits.
        ColumnType::BigInt => Value::Int((1 << 32) + n),
        // Halves are exact in binary.
        ColumnType::Double => Value::Float(n as f64 / 2.0),
        ColumnType::Decimal { scale: 0, .. } => Value::Decimal(n.to_string()),
        ColumnType::Decimal { scale, .. } => Value::Decimal(format!(
            "{n}.{}{}",
            rng.gen_range(0..10),
            "0".repeat(usize::from(scale) - 1)
        )),
        ColumnType::Bool => Value::Bool(n % 2 == 1),
        ColumnType::Varchar { .. } => Value::Text(format!("s{n}")),
        _ => Value::Text(format!("text {n}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn ranges_stay_between_the_neighbours() {
        let taken = [3, 5, 9, 20];
        for seed in 0..200 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (lo, hi) = around(&taken, 9, 9, &mut rng);
            assert!((6..=9).contains(&lo) && (9..20).contains(&hi), "{lo} {hi}");
            let (lo, hi) = around(&taken, 3, 5, &mut rng);
            assert!((1..=3).contains(&lo) && (5..9).contains(&hi), "{lo} {hi}");
            let (lo, hi) = around(&taken, 20, 20, &mut rng);
            assert!(
                (10..=20).contains(&lo) && (20..=22).contains(&hi),
                "{lo} {hi}"
            );
        }
    }

    #[test]
    fn filler_values_fit_their_types() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..100 {
            match filler_value(
                ColumnType::Decimal {
                    precision: 10,
                    scale: 2,
                },
                &mut rng,
            ) {
                Value::Decimal(d) => {
                    let (int, frac) = d.split_once('.').unwrap();
                    assert!(int.len() <= 3 && frac.len() == 2, "{d}");
                }
                other => panic!("{other:?}"),
            }
            match filler_value(ColumnType::Varchar { len: 4 }, &mut rng) {
                Value::Text(s) => assert!(s.len() <= 4),
                other => panic!("{other:?}"),
            }
        }
    }
}
