//! Random schemas and initial rows that satisfy every key and NOT NULL constraint.

use crate::config::Config;
use crate::values::{is_indexable, is_key_type, is_usable, Domain};
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::HashSet;
use txlab_plugin_api::prelude::*;

const PRIMARY_KEY_PROBABILITY: f64 = 0.85;
/// Given a primary key, how often it is a single INT column.
const INT_PRIMARY_KEY_PROBABILITY: f64 = 0.75;
const COMPOSITE_KEY_PROBABILITY: f64 = 0.25;
const UNIQUE_PROBABILITY: f64 = 0.3;
const NOT_NULL_PROBABILITY: f64 = 0.3;
const UNIQUE_INDEX_PROBABILITY: f64 = 0.25;
/// NULLs among the initial values of nullable columns outside keys.
const NULL_PROBABILITY: f64 = 0.15;

/// The column types a dialect offers that the generator can fill, in the dialect's order.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnTypes {
    pub all: Vec<ColumnType>,
    pub keys: Vec<ColumnType>,
}

impl ColumnTypes {
    /// `None` when the dialect offers no usable type.
    pub fn from_features(features: &Features) -> Option<ColumnTypes> {
        let mut all: Vec<ColumnType> = Vec::new();
        for &ty in &features.column_types {
            if is_usable(ty) && !all.contains(&ty) {
                all.push(ty);
            }
        }
        let keys = all.iter().copied().filter(|&t| is_key_type(t)).collect();
        (!all.is_empty()).then_some(ColumnTypes { all, keys })
    }
}

/// A schema, its initial rows, and the value domain of every column.
#[derive(Clone, Debug, PartialEq)]
pub struct Database {
    pub schema: Schema,
    pub initial_rows: Vec<TableRows>,
    /// `domains[table][column]`.
    pub domains: Vec<Vec<Domain>>,
}

pub fn generate(config: &Config, types: &ColumnTypes, rng: &mut impl Rng) -> Database {
    let mut db = Database {
        schema: Schema::default(),
        initial_rows: Vec::new(),
        domains: Vec::new(),
    };
    for t in 0..rng.gen_range(config.tables[0]..=config.tables[1]) {
        let (table, domains) = random_table(format!("t{t}"), config, types, rng);
        let row_count = rng.gen_range(config.rows[0]..=config.rows[1]);
        db.initial_rows
            .push(random_rows(&table, &domains, row_count, rng));
        db.schema.tables.push(table);
        db.domains.push(domains);
    }
    db
}

/// Every set of columns whose values must differ between rows: the primary key,
/// UNIQUE constraints and unique indexes, as column positions.
pub fn unique_keys(table: &Table) -> Vec<Vec<usize>> {
    let position = |name: &String| {
        table
            .columns
            .iter()
            .position(|c| &c.name == name)
            .expect("key columns exist")
    };
    let mut keys: Vec<Vec<usize>> = Vec::new();
    if !table.primary_key.is_empty() {
        keys.push(table.primary_key.iter().map(position).collect());
    }
    keys.extend(
        table
            .unique
            .iter()
            .map(|u| u.iter().map(position).collect()),
    );
    keys.extend(
        table
            .indexes
            .iter()
            .filter(|i| i.unique)
            .map(|i| i.columns.iter().map(position).collect()),
    );
    keys
}

fn random_table(
    name: String,
    config: &Config,
    types: &ColumnTypes,
    rng: &mut impl Rng,
) -> (Table, Vec<Domain>) {
    let column_count = rng.gen_range(config.columns[0]..=config.columns[1]) as usize;
    let mut column_types: Vec<ColumnType> = (0..column_count)
        .map(|_| *types.all.choose(rng).expect("at least one usable type"))
        .collect();

    let mut primary_key: Vec<usize> = Vec::new();
    if !types.keys.is_empty() && rng.gen_bool(PRIMARY_KEY_PROBABILITY) {
        if types.keys.contains(&ColumnType::Int) && rng.gen_bool(INT_PRIMARY_KEY_PROBABILITY) {
            column_types[0] = ColumnType::Int;
            primary_key.push(0);
        } else {
            if !column_types.iter().any(|&t| is_key_type(t)) {
                column_types[0] = *types.keys.choose(rng).expect("checked non-empty");
            }
            primary_key = random_key(&column_types, &[], rng);
        }
    }

    let mut unique: Vec<Vec<usize>> = Vec::new();
    if rng.gen_bool(UNIQUE_PROBABILITY) {
        let key = random_key(&column_types, &primary_key, rng);
        if !key.is_empty() {
            unique.push(key);
        }
    }

    let mut indexes: Vec<(Vec<usize>, bool)> = Vec::new();
    let index_count = *[0, 0, 0, 1, 1, 2].choose(rng).expect("non-empty");
    let indexable: Vec<usize> = (0..column_count)
        .filter(|&c| is_indexable(column_types[c]))
        .collect();
    for _ in 0..index_count {
        let width = if indexable.len() >= 2 && rng.gen_bool(0.3) {
            2
        } else {
            1
        };
        let mut columns: Vec<usize> = indexable.choose_multiple(rng, width).copied().collect();
        if columns.is_empty() {
            break;
        }
        columns.sort_unstable();
        // A unique index needs a column with enough values for every row.
        let unique = columns.iter().any(|&c| is_key_type(column_types[c]))
            && rng.gen_bool(UNIQUE_INDEX_PROBABILITY);
        indexes.push((columns, unique));
    }

    let in_key = |c: usize| {
        primary_key.contains(&c)
            || unique.iter().any(|u| u.contains(&c))
            || indexes.iter().any(|(cols, u)| *u && cols.contains(&c))
    };
    let domains = (0..column_count)
        .map(|c| {
            let ty = column_types[c];
            if in_key(c) && is_key_type(ty) {
                Domain::for_key(ty, config.rows[1])
            } else {
                Domain::small(ty)
            }
        })
        .collect();

    let column_name = |c: &usize| format!("c{c}");
    let table = Table {
        columns: (0..column_count)
            .map(|c| Column {
                name: column_name(&c),
                ty: column_types[c],
                // Primary key columns are NOT NULL explicitly: SQLite would allow NULLs.
                not_null: primary_key.contains(&c) || rng.gen_bool(NOT_NULL_PROBABILITY),
            })
            .collect(),
        primary_key: primary_key.iter().map(column_name).collect(),
        unique: unique
            .iter()
            .map(|u| u.iter().map(column_name).collect())
            .collect(),
        indexes: indexes
            .iter()
            .enumerate()
            .map(|(i, (columns, unique))| Index {
                // Index names are per database in SQLite and PostgreSQL.
                name: format!("{name}_i{i}"),
                columns: columns.iter().map(column_name).collect(),
                unique: *unique,
            })
            .collect(),
        name,
    };
    (table, domains)
}

/// One or two key-typed columns, avoiding `taken` when possible; empty when there is
/// no candidate.
fn random_key(column_types: &[ColumnType], taken: &[usize], rng: &mut impl Rng) -> Vec<usize> {
    let candidates: Vec<usize> = (0..column_types.len())
        .filter(|&c| is_key_type(column_types[c]) && !taken.contains(&c))
        .collect();
    let width = if candidates.len() >= 2 && rng.gen_bool(COMPOSITE_KEY_PROBABILITY) {
        2
    } else {
        1
    };
    let mut key: Vec<usize> = candidates.choose_multiple(rng, width).copied().collect();
    key.sort_unstable();
    key
}

fn random_rows(table: &Table, domains: &[Domain], count: u32, rng: &mut impl Rng) -> TableRows {
    let keys = unique_keys(table);
    let in_key = |c: usize| keys.iter().any(|k| k.contains(&c));
    // Rows are drawn as domain positions (None for NULL), so that collisions are
    // checked on small integers; they become values at the end.
    let mut rows: Vec<Vec<Option<u32>>> = Vec::with_capacity(count as usize);
    let mut seen_keys: Vec<HashSet<Vec<Option<u32>>>> = vec![HashSet::new(); keys.len()];
    let mut used: Vec<Vec<bool>> = domains
        .iter()
        .map(|d| vec![false; d.size as usize])
        .collect();
    for _ in 0..count {
        let mut row: Vec<Option<u32>> = (0..table.columns.len())
            .map(|c| {
                // Keys stay free of NULLs: whether NULLs collide differs between DBMSs.
                if !table.columns[c].not_null && !in_key(c) && rng.gen_bool(NULL_PROBABILITY) {
                    None
                } else {
                    Some(rng.gen_range(0..domains[c].size))
                }
            })
            .collect();
        for (key, seen) in keys.iter().zip(&seen_keys) {
            let tuple: Vec<Option<u32>> = key.iter().map(|&c| row[c]).collect();
            if seen.contains(&tuple) {
                // A value no other row has in this column makes every key containing
                // the column unique, including the keys checked before.
                let c = *key
                    .iter()
                    .find(|&&c| is_key_type(domains[c].ty))
                    .expect("every key has a key-typed column");
                let unused: Vec<u32> = (0..domains[c].size)
                    .filter(|&k| !used[c][k as usize])
                    .collect();
                row[c] = Some(
                    *unused
                        .choose(rng)
                        .expect("key domains exceed the row count"),
                );
            }
        }
        for (key, seen) in keys.iter().zip(&mut seen_keys) {
            seen.insert(key.iter().map(|&c| row[c]).collect());
        }
        for (c, k) in row.iter().enumerate() {
            if let Some(k) = k {
                used[c][*k as usize] = true;
            }
        }
        rows.push(row);
    }
    TableRows {
        table: table.name.clone(),
        columns: table.column_names(),
        rows: rows
            .into_iter()
            .map(|row| {
                row.iter()
                    .zip(domains)
                    .map(|(k, d)| k.map_or(Value::Null, |k| d.value(k)))
                    .collect()
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn types(list: &[ColumnType]) -> ColumnTypes {
        ColumnTypes::from_features(&Features {
            column_types: list.to_vec(),
            ..Features::default()
        })
        .unwrap()
    }

    #[test]
    fn usable_types_keep_dialect_order_without_repeats() {
        let t = types(&[
            ColumnType::Text,
            ColumnType::Varchar { len: 2 },
            ColumnType::Int,
            ColumnType::Text,
            ColumnType::Bool,
        ]);
        assert_eq!(t.all, [ColumnType::Text, ColumnType::Int, ColumnType::Bool]);
        assert_eq!(t.keys, [ColumnType::Int]);
        assert!(ColumnTypes::from_features(&Features {
            column_types: vec![ColumnType::Varchar { len: 1 }],
            ..Features::default()
        })
        .is_none());
    }

    #[test]
    fn full_rows_of_a_tight_composite_key_stay_unique() {
        // Many rows over two key columns exercise the collision repair.
        let config = Config {
            rows: [500, 500],
            columns: [2, 2],
            ..Config::default()
        };
        let t = types(&[ColumnType::Int, ColumnType::Bool]);
        for seed in 0..20 {
            let db = generate(&config, &t, &mut ChaCha8Rng::seed_from_u64(seed));
            for (table, rows) in db.schema.tables.iter().zip(&db.initial_rows) {
                assert_eq!(rows.rows.len(), 500);
                for key in unique_keys(table) {
                    let tuples: HashSet<String> = rows
                        .rows
                        .iter()
                        .map(|r| format!("{:?}", key.iter().map(|&c| &r[c]).collect::<Vec<_>>()))
                        .collect();
                    assert_eq!(tuples.len(), 500, "seed {seed}: duplicate key {key:?}");
                }
            }
        }
    }

    #[test]
    fn only_bool_columns_give_keyless_tables() {
        let t = types(&[ColumnType::Bool]);
        let db = generate(&Config::default(), &t, &mut ChaCha8Rng::seed_from_u64(3));
        for table in &db.schema.tables {
            assert!(table.primary_key.is_empty() && table.unique.is_empty());
            assert!(table.indexes.iter().all(|i| !i.unique));
        }
    }
}
