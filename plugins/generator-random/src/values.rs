//! Column types the generator can fill, the small value domain of each column, and
//! the cache of values that earlier rows and statements put into the database.

use rand::seq::SliceRandom;
use rand::Rng;
use std::cmp::Ordering;
use txlab_plugin_api::prelude::*;

/// Offset of BIGINT values, so that they need more than 32 bits.
const BIGINT_BASE: i64 = 1 << 32;
/// Distinct values of a column outside any key: few, so that predicates hit rows.
const SMALL_NUMERIC_DOMAIN: u32 = 10;
const SMALL_TEXT_DOMAIN: u32 = 5;
/// The smallest domain of a key column.
const MIN_KEY_DOMAIN: u32 = 20;

/// Whether the generator can make values of `ty` on every dialect that offers it.
pub fn is_usable(ty: ColumnType) -> bool {
    match ty {
        ColumnType::Int | ColumnType::BigInt | ColumnType::Double | ColumnType::Text => true,
        ColumnType::Bool => true,
        // Values reach about 10^3 (see `MAX_ROWS`), plus increments by UPDATEs.
        ColumnType::Decimal { precision, scale } => {
            precision <= 38 && scale <= 10 && precision >= scale + 4
        }
        // Strings are at most four characters long ("s999").
        ColumnType::Varchar { len } => len >= 4,
        _ => false,
    }
}

/// Whether a column of `ty` may form a key on its own: it has enough distinct values
/// for every row and every dialect can index it (MySQL indexes TEXT only by prefix).
pub fn is_key_type(ty: ColumnType) -> bool {
    is_usable(ty) && !matches!(ty, ColumnType::Bool | ColumnType::Text)
}

/// Whether a column of `ty` may appear in a secondary index.
pub fn is_indexable(ty: ColumnType) -> bool {
    is_usable(ty) && ty != ColumnType::Text
}

pub fn is_numeric(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int | ColumnType::BigInt | ColumnType::Double | ColumnType::Decimal { .. }
    )
}

/// The values one column draws from: `size` distinct non-NULL values of its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Domain {
    pub ty: ColumnType,
    pub size: u32,
}

impl Domain {
    /// A domain big enough that `rows` rows can all differ in this column.
    pub fn for_key(ty: ColumnType, rows: u32) -> Domain {
        Domain {
            ty,
            size: MIN_KEY_DOMAIN.max(2 * rows),
        }
    }

    pub fn small(ty: ColumnType) -> Domain {
        let size = match ty {
            ColumnType::Bool => 2,
            ColumnType::Varchar { .. } | ColumnType::Text => SMALL_TEXT_DOMAIN,
            _ => SMALL_NUMERIC_DOMAIN,
        };
        Domain { ty, size }
    }

    /// The `k`-th value of the domain; different `k` below `size` give different values.
    pub fn value(&self, k: u32) -> Value {
        match self.ty {
            ColumnType::Int => Value::Int(k.into()),
            ColumnType::BigInt => Value::Int(BIGINT_BASE + i64::from(k)),
            // Halves are exact in binary, so values survive every round trip.
            ColumnType::Double => Value::Float(f64::from(k) / 2.0),
            ColumnType::Decimal { scale, .. } => Value::Decimal(if scale == 0 {
                k.to_string()
            } else {
                decimal_halves(k.into(), scale)
            }),
            ColumnType::Bool => Value::Bool(k % 2 == 1),
            _ => Value::Text(format!("s{k}")),
        }
    }

    pub fn random(&self, rng: &mut impl Rng) -> Value {
        self.value(rng.gen_range(0..self.size))
    }

    /// A small positive amount to add to or subtract from a numeric column.
    pub fn step(&self, amount: u32) -> Option<Value> {
        match self.ty {
            ColumnType::Int | ColumnType::BigInt => Some(Value::Int(amount.into())),
            ColumnType::Double => Some(Value::Float(amount.into())),
            ColumnType::Decimal { scale, .. } => Some(Value::Decimal(if scale == 0 {
                amount.to_string()
            } else {
                decimal_halves(2 * u64::from(amount), scale)
            })),
            _ => None,
        }
    }
}

/// `halves / 2` as exact decimal text with `scale` (≥ 1) fractional digits.
fn decimal_halves(halves: u64, scale: u8) -> String {
    let fraction = if halves % 2 == 1 { "5" } else { "0" };
    format!(
        "{}.{fraction}{}",
        halves / 2,
        "0".repeat(usize::from(scale) - 1)
    )
}

/// Orders values of one column type the way SQL compares them: numerically for
/// numbers (DECIMAL text included), lexically for strings.
pub fn sql_cmp(a: &Value, b: &Value) -> Ordering {
    a.sql_cmp(b)
}

/// Values that exist in the initial rows or were written by earlier statements, per
/// column and as whole rows. Drawing literals from here makes different transactions
/// touch the same rows.
#[derive(Clone, Debug, Default)]
pub struct ValueCache {
    /// `columns[table][column]`: distinct non-NULL values, in the order first seen.
    columns: Vec<Vec<Vec<Value>>>,
    /// `rows[table]`: full rows in table column order.
    rows: Vec<Vec<Vec<Value>>>,
}

impl ValueCache {
    pub fn new(schema: &Schema) -> Self {
        ValueCache {
            columns: schema
                .tables
                .iter()
                .map(|t| vec![Vec::new(); t.columns.len()])
                .collect(),
            rows: vec![Vec::new(); schema.tables.len()],
        }
    }

    pub fn add_value(&mut self, table: usize, column: usize, value: &Value) {
        let seen = &mut self.columns[table][column];
        if !value.is_null() && !seen.contains(value) {
            seen.push(value.clone());
        }
    }

    pub fn add_row(&mut self, table: usize, row: Vec<Value>) {
        for (column, value) in row.iter().enumerate() {
            self.add_value(table, column, value);
        }
        self.rows[table].push(row);
    }

    pub fn contains(&self, table: usize, column: usize, value: &Value) -> bool {
        self.columns[table][column].contains(value)
    }

    pub fn value(&self, table: usize, column: usize, rng: &mut impl Rng) -> Option<Value> {
        self.columns[table][column].choose(rng).cloned()
    }

    pub fn row(&self, table: usize, rng: &mut impl Rng) -> Option<&[Value]> {
        self.rows[table].choose(rng).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const TYPES: [ColumnType; 8] = [
        ColumnType::Int,
        ColumnType::BigInt,
        ColumnType::Double,
        ColumnType::Decimal {
            precision: 10,
            scale: 2,
        },
        ColumnType::Decimal {
            precision: 6,
            scale: 0,
        },
        ColumnType::Varchar { len: 4 },
        ColumnType::Text,
        ColumnType::Bool,
    ];

    #[test]
    fn domain_values_are_distinct_and_typed() {
        for ty in TYPES {
            let domain = if ty == ColumnType::Bool {
                Domain::small(ty)
            } else {
                Domain::for_key(ty, crate::config::MAX_ROWS)
            };
            let values: Vec<Value> = (0..domain.size).map(|k| domain.value(k)).collect();
            for (i, v) in values.iter().enumerate() {
                assert!(!values[..i].contains(v), "{ty:?}: {v} repeats");
                let fits = match (ty, v) {
                    (ColumnType::Int, Value::Int(i)) => i32::try_from(*i).is_ok(),
                    (ColumnType::BigInt, Value::Int(i)) => *i > i64::from(i32::MAX),
                    (ColumnType::Double, Value::Float(f)) => f.fract() == 0.0 || f.fract() == 0.5,
                    (ColumnType::Decimal { precision, scale }, Value::Decimal(d)) => {
                        let (int, frac) = d.split_once('.').unwrap_or((d, ""));
                        frac.len() == usize::from(scale)
                            && int.len() + frac.len() <= usize::from(precision)
                    }
                    (ColumnType::Varchar { len }, Value::Text(s)) => s.len() <= usize::from(len),
                    (ColumnType::Text, Value::Text(_)) | (ColumnType::Bool, Value::Bool(_)) => true,
                    _ => false,
                };
                assert!(fits, "{ty:?} cannot hold {v:?}");
            }
        }
    }

    #[test]
    fn decimal_text_is_exact() {
        let ty = ColumnType::Decimal {
            precision: 10,
            scale: 3,
        };
        let domain = Domain::small(ty);
        assert_eq!(domain.value(0), Value::Decimal("0.000".into()));
        assert_eq!(domain.value(7), Value::Decimal("3.500".into()));
        assert_eq!(domain.step(2), Some(Value::Decimal("2.000".into())));
        assert_eq!(Domain::small(ColumnType::Text).step(1), None);
    }

    #[test]
    fn unusable_types_are_recognised() {
        assert!(!is_usable(ColumnType::Varchar { len: 3 }));
        assert!(!is_usable(ColumnType::Decimal {
            precision: 5,
            scale: 2
        }));
        assert!(is_usable(ColumnType::Decimal {
            precision: 6,
            scale: 2
        }));
        assert!(!is_key_type(ColumnType::Bool) && !is_key_type(ColumnType::Text));
        assert!(is_indexable(ColumnType::Bool) && !is_indexable(ColumnType::Text));
    }

    #[test]
    fn sql_order_is_numeric_for_decimal_text() {
        let nine = Value::Decimal("9.50".into());
        let ten = Value::Decimal("10.00".into());
        assert_eq!(sql_cmp(&nine, &ten), Ordering::Less);
        assert_eq!(
            sql_cmp(&Value::Text("s10".into()), &Value::Text("s9".into())),
            Ordering::Less
        );
    }

    #[test]
    fn cache_keeps_distinct_non_null_values() {
        let schema = Schema {
            tables: vec![Table {
                name: "t0".into(),
                columns: vec![
                    Column {
                        name: "c0".into(),
                        ty: ColumnType::Int,
                        not_null: false,
                    },
                    Column {
                        name: "c1".into(),
                        ty: ColumnType::Int,
                        not_null: false,
                    },
                ],
                primary_key: vec![],
                unique: vec![],
                indexes: vec![],
            }],
        };
        let mut cache = ValueCache::new(&schema);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(cache.value(0, 0, &mut rng), None);
        assert!(cache.row(0, &mut rng).is_none());
        cache.add_row(0, vec![Value::Int(1), Value::Null]);
        cache.add_row(0, vec![Value::Int(1), Value::Null]);
        for _ in 0..20 {
            assert_eq!(cache.value(0, 0, &mut rng), Some(Value::Int(1)));
            assert_eq!(cache.value(0, 1, &mut rng), None);
        }
        assert_eq!(
            cache.row(0, &mut rng).unwrap(),
            [Value::Int(1), Value::Null]
        );
    }
}
