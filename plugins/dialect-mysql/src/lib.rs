//! txlab dialect plugin for the MySQL family: the entries `mysql` (MySQL 8.0 to
//! 9.x), `mariadb` (MariaDB 10.11 and 11.x), `galera` (MariaDB on a Galera
//! cluster's nodes) and `tidb` (TiDB 7.x and 8.x).
//!
//! Everything they do is in the library `txlab-mysql`; this crate only exports
//! its three dialects as the shared library the host loads.

txlab_plugin_api::export_plugin! {
    dialects: [
        txlab_mysql::MysqlDialect,
        txlab_mysql::MariadbDialect,
        txlab_mysql::GaleraDialect,
        txlab_mysql::TidbDialect,
    ],
    generators: [],
    oracles: [],
}
