//! The transaction ids written into the writers column (shared with
//! `txlab-history`'s IR reading, where they live).

pub use txlab_history::ir::TxnIds;
