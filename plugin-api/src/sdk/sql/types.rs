//! The column types dialects offer to generators.

use crate::ir::ColumnType;

/// Every [`ColumnType`] in the shapes the shipped dialects offer in
/// [`Features::column_types`](crate::ir::Features::column_types). Decimals come
/// in two shapes: one whose values a double holds exactly (10,2) and one beyond
/// a double's 15 exact digits (30,10), which tells exact arithmetic from
/// floating point. A dialect lists the subset its DBMS stores faithfully.
pub const COLUMN_TYPES: [ColumnType; 8] = [
    ColumnType::Int,
    ColumnType::BigInt,
    ColumnType::Double,
    ColumnType::Decimal {
        precision: 10,
        scale: 2,
    },
    ColumnType::Decimal {
        precision: 30,
        scale: 10,
    },
    ColumnType::Varchar { len: 16 },
    ColumnType::Text,
    ColumnType::Bool,
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Numbers the variants. The match has no wildcard, so a type added to the
    /// IR fails to compile here, and then the test fails until it is listed.
    fn variant(ty: ColumnType) -> usize {
        match ty {
            ColumnType::Int => 0,
            ColumnType::BigInt => 1,
            ColumnType::Double => 2,
            ColumnType::Decimal { .. } => 3,
            ColumnType::Varchar { .. } => 4,
            ColumnType::Text => 5,
            ColumnType::Bool => 6,
        }
    }

    #[test]
    fn every_column_type_is_listed() {
        let listed: BTreeSet<usize> = COLUMN_TYPES.into_iter().map(variant).collect();
        assert_eq!(listed, (0..=6).collect());
    }

    #[test]
    fn decimals_fall_on_both_sides_of_a_doubles_precision() {
        let precisions: Vec<u8> = COLUMN_TYPES
            .iter()
            .filter_map(|t| match t {
                ColumnType::Decimal { precision, .. } => Some(*precision),
                _ => None,
            })
            .collect();
        assert!(precisions.iter().any(|&p| p <= 15), "{precisions:?}");
        assert!(precisions.iter().any(|&p| p > 15), "{precisions:?}");
    }
}
