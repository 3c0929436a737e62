//! txlab dialect plugin for SQLite, the embedded zero-setup default: the entry
//! `sqlite`.
//!
//! Everything it does is in the library `txlab-sqlite`; this crate only exports
//! its dialect as the shared library the host loads.

txlab_plugin_api::export_plugin! {
    dialects: [txlab_sqlite::SqliteDialect],
    generators: [],
    oracles: [],
}
