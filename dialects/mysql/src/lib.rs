//! The MySQL family of txlab dialects as a library: four dialects, `mysql` (MySQL
//! 8.0 to 9.x), `mariadb` (MariaDB 10.11 and 11.x), `galera` (MariaDB on the
//! nodes of a Galera cluster) and `tidb` (TiDB 7.x and 8.x),
//! that share one renderer and one error classifier and differ in what the vendors
//! document.
//!
//! The plugin `txlab-dialect-mysql` exports these three types as they are. A
//! dialect for a server of the family (a fork, a cloud service) can build on them:
//! wrap one, delegate what stays the same and change the rest, then export the
//! wrapper from a plugin crate of its own (`examples/dialect-acme` wraps
//! [`MariadbDialect`]). The modules are the pieces to reuse:
//!
//! - [`flavor`]: the three DBMSs, their options, and the [`Target`] (a flavor with
//!   its options) that rendering, session set-up and the semantics depend on;
//! - [`semantics`]: the isolation levels each flavor offers and what they mean, with
//!   sources;
//! - [`session`]: the statements that set a session up for a level and its limits;
//! - [`literal`]: identifiers, literals and type names;
//! - [`syntax`]: what each flavor spells its own way in statements, expressions and
//!   table DDL ([`Target`] implements the SDK's `SqlSyntax`); the SDK's shared
//!   renderer writes the rest;
//! - [`errors`]: classification of MySQL error numbers;
//! - [`probe`]: the lock-wait probes, among them the parser of
//!   `SHOW ENGINE INNODB STATUS` that the host applies on MariaDB.

#![warn(missing_docs)]
// Vendor pages are cited as plain URLs in parentheses, in the docs as in the code.
#![allow(rustdoc::bare_urls)]

pub mod errors;
pub mod flavor;
pub mod literal;
pub mod probe;
pub mod semantics;
pub mod session;
pub mod syntax;

pub use flavor::{Flavor, SettingBasis, Target, TxnMode};
pub use probe::innodb_status_waits;

use serde::Deserialize;
use txlab_plugin_api::prelude::*;

/// The `mysql` dialect: MySQL 8.0 and 8.4 with InnoDB. It has no options. Build
/// it with `DialectPlugin::new`.
#[derive(Clone, Debug)]
pub struct MysqlDialect(Target, Option<ServerFacts>);

/// The `mariadb` dialect: MariaDB 10.11 and 11.x with InnoDB. Build it with
/// `DialectPlugin::new` from a [`MariadbConfig`].
#[derive(Clone, Debug)]
pub struct MariadbDialect(Target, Option<ServerFacts>);

/// The `galera` dialect: MariaDB 10.11 and 11.x as the nodes of a Galera 4
/// cluster, the case's transactions on different nodes (a pipeline's
/// `[target] nodes`). Build it with `DialectPlugin::new` from a
/// [`MariadbConfig`].
#[derive(Clone, Debug)]
pub struct GaleraDialect(Target, Option<ServerFacts>);

/// The `tidb` dialect: TiDB 7.x and 8.x. Build it with `DialectPlugin::new` from a
/// [`TidbConfig`].
#[derive(Clone, Debug)]
pub struct TidbDialect(Target, Option<ServerFacts>);

/// The options of the `mysql` dialect: none; unknown keys are rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MysqlConfig {}

/// The options of the `mariadb` dialect, the pipeline's `[target.config]`; unknown
/// keys are rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MariadbConfig {
    /// Sets `innodb_snapshot_isolation` for every session; it changes what
    /// REPEATABLE READ means, so the declared semantics follow it. `None`:
    /// the server's own setting, read before the first case.
    pub snapshot_isolation: Option<bool>,
}

/// The options of the `tidb` dialect, the pipeline's `[target.config]`; unknown
/// keys are rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TidbConfig {
    /// The transaction mode of every transaction, explicit and autocommit.
    pub txn_mode: TxnMode,
}

impl DialectPlugin for MysqlDialect {
    const NAME: &'static str = semantics::MYSQL;
    const DESCRIPTION: &'static str =
        "MySQL 8.0/8.4 with InnoDB: all four isolation levels, row and next-key locks";
    const DEFAULT_CONFIG: &'static str = "# The mysql dialect has no options.\n";
    type Config = MysqlConfig;

    fn new(_config: MysqlConfig) -> Result<Self, PluginError> {
        Ok(MysqlDialect(Target::mysql(), None))
    }

    fn for_server(_config: MysqlConfig, server: &ServerFacts) -> Result<Self, PluginError> {
        refuse_other_flavor(Flavor::Mysql, server)?;
        Ok(MysqlDialect(Target::mysql(), Some(server.clone())))
    }
}

impl DialectPlugin for MariadbDialect {
    const NAME: &'static str = semantics::MARIADB;
    const DESCRIPTION: &'static str =
        "MariaDB 10.11/11.x with InnoDB: all four isolation levels, optional snapshot isolation";
    const DEFAULT_CONFIG: &'static str = "\
# Run every session with innodb_snapshot_isolation = ON (true) or OFF (false).
# ON makes REPEATABLE READ snapshot isolation: a write to a row that another
# transaction changed after the snapshot fails with error 1020 and rolls the
# transaction back. SERIALIZABLE behaves the same from the first statement on,
# and READ COMMITTED loses its semi-consistent reads. The variable exists from
# MariaDB 10.6.18, 10.11.8 and 11.4.2, and from 11.6.2 the server's default is
# ON. Left out, every session runs with the server's own global setting, read
# before the first case (OFF where the server has no such variable), and the
# declared semantics follow it.
# snapshot_isolation = false
";
    type Config = MariadbConfig;

    fn new(config: MariadbConfig) -> Result<Self, PluginError> {
        let target = match config.snapshot_isolation {
            Some(on) => Target::mariadb(on),
            None => Target::mariadb_with(false, SettingBasis::Assumed),
        };
        Ok(MariadbDialect(target, None))
    }

    fn for_server(config: MariadbConfig, server: &ServerFacts) -> Result<Self, PluginError> {
        refuse_other_flavor(Flavor::Mariadb, server)?;
        let found = server.flag(semantics::SNAPSHOT_ISOLATION_VARIABLE);
        let target = match (config.snapshot_isolation, found) {
            (Some(true), None) => {
                return Err(PluginError::config(format!(
                    "snapshot_isolation = true, but the server (MariaDB {}) has no \
                     innodb_snapshot_isolation: it exists from MariaDB 10.6.18, 10.11.8 and \
                     11.4.2 ({})",
                    server.version,
                    semantics::MARIADB_SNAPSHOT_ISOLATION
                )))
            }
            (Some(false), None) => Target::mariadb_with(false, SettingBasis::Absent),
            (Some(on), Some(_)) => Target::mariadb(on),
            (None, Some(on)) => Target::mariadb_with(on, SettingBasis::Server),
            (None, None) => Target::mariadb_with(false, SettingBasis::Absent),
        };
        Ok(MariadbDialect(target, Some(server.clone())))
    }
}

impl DialectPlugin for GaleraDialect {
    const NAME: &'static str = semantics::GALERA;
    const DESCRIPTION: &'static str =
        "MariaDB Galera Cluster 4: REPEATABLE READ between nodes, first committer wins (certification)";
    const DEFAULT_CONFIG: &'static str = "\
# A Galera cluster of MariaDB nodes. Name every node in the pipeline's
# `[target] nodes = [\"mysql://…:4401\", \"mysql://…:4402\", …]`: each transaction
# of a case runs on its own node where there are enough.
#
# innodb_snapshot_isolation on every node's sessions, as for the mariadb
# dialect: left out, the server's own setting (ON from MariaDB 11.6.2).
# snapshot_isolation = true
";
    type Config = MariadbConfig;

    fn new(config: MariadbConfig) -> Result<Self, PluginError> {
        let target = match config.snapshot_isolation {
            Some(on) => Target::galera(on, SettingBasis::Pipeline),
            None => Target::galera(false, SettingBasis::Assumed),
        };
        Ok(GaleraDialect(target, None))
    }

    fn for_server(config: MariadbConfig, server: &ServerFacts) -> Result<Self, PluginError> {
        if server.flag("wsrep_on") != Some(true) {
            return Err(PluginError::config(format!(
                "the server (MariaDB {}) is not a node of a Galera cluster: wsrep_on is {}",
                server.version,
                server.setting("wsrep_on").unwrap_or("not set")
            )));
        }
        let MariadbDialect(mariadb, _) = MariadbDialect::for_server(config, server)?;
        let target = Target::galera(mariadb.snapshot_isolation, mariadb.snapshot_isolation_basis);
        Ok(GaleraDialect(target, Some(server.clone())))
    }
}

impl DialectPlugin for TidbDialect {
    const NAME: &'static str = semantics::TIDB;
    const DESCRIPTION: &'static str =
        "TiDB 7.x/8.x: snapshot isolation (REPEATABLE READ) and READ COMMITTED, no gap locks";
    const DEFAULT_CONFIG: &'static str = "\
# \"pessimistic\": writes lock rows as they run and wait for each other (READ
# COMMITTED and REPEATABLE READ). \"optimistic\": write conflicts surface at
# COMMIT, and TiDB offers only REPEATABLE READ (snapshot isolation).
txn_mode = \"pessimistic\"
";
    type Config = TidbConfig;

    fn new(config: TidbConfig) -> Result<Self, PluginError> {
        Ok(TidbDialect(Target::tidb(config.txn_mode), None))
    }

    fn for_server(config: TidbConfig, server: &ServerFacts) -> Result<Self, PluginError> {
        refuse_other_flavor(Flavor::Tidb, server)?;
        Ok(TidbDialect(
            Target::tidb(config.txn_mode),
            Some(server.clone()),
        ))
    }
}

/// The flavor a server's version string names: MariaDB and TiDB say so
/// (`11.8.9-MariaDB-…`, `8.0.11-TiDB-v8.5.1`), MySQL does not.
pub fn flavor_of(server: &ServerFacts) -> Flavor {
    if server.version.contains("MariaDB") {
        Flavor::Mariadb
    } else if server.version.contains("TiDB") {
        Flavor::Tidb
    } else {
        Flavor::Mysql
    }
}

/// A dialect built for a server of another flavor would declare the wrong
/// semantics for every case: refused, naming the entry that fits.
fn refuse_other_flavor(wanted: Flavor, server: &ServerFacts) -> Result<(), PluginError> {
    let found = flavor_of(server);
    if found == wanted {
        return Ok(());
    }
    let entry = match found {
        Flavor::Mysql => semantics::MYSQL,
        Flavor::Mariadb => semantics::MARIADB,
        Flavor::Tidb => semantics::TIDB,
    };
    Err(PluginError::config(format!(
        "the server is {found} ({}), and this dialect declares {wanted}'s semantics: use the `{entry}` dialect for it",
        server.version
    )))
}

/// The entries share their implementation: the target knows its flavor.
macro_rules! delegate_to_target {
    ($($dialect:ty),*) => {$(
        impl $dialect {
            /// The flavor and options everything this dialect does depends on: pass
            /// it to the functions of this crate's modules, or to the SDK's `sql`
            /// renderer as the `SqlSyntax`.
            pub fn target(&self) -> &Target {
                &self.0
            }

            /// The server this dialect was built for, if it was built for one.
            pub fn server(&self) -> Option<&ServerFacts> {
                self.1.as_ref()
            }
        }

        impl Dialect for $dialect {
            fn info(&self) -> DialectInfo {
                let mut info = semantics::info(&self.0);
                info.server = self.1.clone();
                info
            }

            fn create_table(&self, table: &Table) -> Result<Vec<String>, PluginError> {
                sql::create_table(&self.0, table)
            }

            fn drop_table(&self, table: &Table) -> Result<String, PluginError> {
                sql::drop_table(&self.0, table)
            }

            fn render(
                &self,
                statement: &Statement,
                ctx: &RenderContext<'_>,
            ) -> Result<String, PluginError> {
                sql::render_statement(&self.0, statement, ctx)
            }

            fn session_setup(
                &self,
                request: &SessionRequest,
            ) -> Result<SessionSetup, PluginError> {
                session::setup(&self.0, request)
            }

            fn classify_error(&self, error: &RawDbError) -> DbError {
                if self.0.galera {
                    errors::classify_on_galera(error)
                } else {
                    errors::classify(error)
                }
            }

            fn read_lock_probe(&self, reading: &LockProbeReading) -> Option<bool> {
                probe::read(self.0.flavor, reading)
            }
        }
    )*};
}

delegate_to_target!(MysqlDialect, MariadbDialect, GaleraDialect, TidbDialect);
