//! From an executed case to `txlab-history`'s history (the reading lives in
//! `txlab_history::ir`, which `txlab history export` shares).

pub use txlab_history::ir::{Observed, Unreadable};
use txlab_plugin_api::prelude::*;

/// The history of an executed, prepared case.
pub fn observe(
    case: &TestCase,
    history: &History,
    dialect: &DialectInfo,
    config: &crate::IsorelConfig,
) -> Result<Observed, Unreadable> {
    txlab_history::ir::observe(
        case,
        history,
        Some(dialect),
        &config.row_id_column,
        &config.writers_column,
    )
}
