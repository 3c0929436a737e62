//! txlab dialect plugin for PostgreSQL (15, 16, 17) and CockroachDB (23.2, 24.x):
//! the entries `postgres` and `cockroachdb`.
//!
//! Everything they do is in the library `txlab-postgres`; this crate only exports
//! its two dialects as the shared library the host loads.

txlab_plugin_api::export_plugin! {
    dialects: [txlab_postgres::PostgresDialect, txlab_postgres::CockroachDialect],
    generators: [],
    oracles: [],
}
