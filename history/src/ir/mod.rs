//! From txlab's IR to a [`History`](crate::History): an executed case that
//! IsoRel's instrumentation prepared (every table with a row identity and a
//! writers column, every read returning both) gives one observation per
//! row each read returned. Shared by the `isorel` oracle and `txlab history
//! export`.

mod observe;
mod txn_ids;

pub use observe::{observe, Observed, Unreadable};
pub use txn_ids::TxnIds;

use txlab_plugin_api::prelude::*;
use txlab_plugin_api::sdk::instrument::named_like;

/// The names of a table's two columns after `prepare`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuxColumns {
    /// The row identity's column.
    pub row_id: String,
    /// The writers' column.
    pub writers: String,
}

/// The two columns of a table of a prepared case, found by name (another
/// oracle may have added columns after them): the last column named like the
/// row identity, with an integer type, and the last named like the writers,
/// with a text type. `None` when this oracle did not prepare the table.
pub fn aux_columns(table: &Table, row_id: &str, writers: &str) -> Option<AuxColumns> {
    let last = |base: &str, ok: &dyn Fn(ColumnType) -> bool| {
        table
            .columns
            .iter()
            .rev()
            .find(|c| named_like(&c.name, base) && ok(c.ty))
            .map(|c| c.name.clone())
    };
    Some(AuxColumns {
        row_id: last(row_id, &|t| {
            matches!(t, ColumnType::BigInt | ColumnType::Int)
        })?,
        writers: last(writers, &|t| matches!(t, ColumnType::Text))?,
    })
}

/// A read `prepare` puts before a DELETE or REPLACE: only the two columns,
/// ordered by the row identity (which no generated statement mentions), so
/// that `check` tells it from the case's own reads.
pub fn is_removal_read(select: &Select, aux: &AuxColumns) -> bool {
    let col = |name: &str| Expr::column(name);
    select.projection == Projection::Exprs(vec![col(&aux.row_id), col(&aux.writers)])
        && select.order_by == vec![col(&aux.row_id)]
}
