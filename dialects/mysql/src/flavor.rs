//! The three DBMSs of the family and the options that change what they do.

use serde::Deserialize;
use std::fmt;

/// Which member of the MySQL family a dialect entry renders for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// MySQL 8.0 and 8.4 with InnoDB.
    Mysql,
    /// MariaDB 10.11 and 11.x with InnoDB.
    Mariadb,
    /// TiDB 7.x and 8.x.
    Tidb,
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Flavor::Mysql => "MySQL",
            Flavor::Mariadb => "MariaDB",
            Flavor::Tidb => "TiDB",
        })
    }
}

/// TiDB's concurrency control for a transaction
/// (https://docs.pingcap.com/tidb/stable/system-variables#tidb_txn_mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TxnMode {
    /// Writes take row locks as they run (TiDB's default since v3.0.8).
    #[default]
    Pessimistic,
    /// Writes are buffered and conflicts are detected at COMMIT.
    Optimistic,
}

impl TxnMode {
    /// The value of `tidb_txn_mode` and the word after `BEGIN`.
    pub fn keyword(self) -> &'static str {
        match self {
            TxnMode::Pessimistic => "PESSIMISTIC",
            TxnMode::Optimistic => "OPTIMISTIC",
        }
    }
}

/// Where the value of a server setting that the declared semantics depend on
/// comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SettingBasis {
    /// The pipeline's configuration sets it; every session sets it so.
    Pipeline,
    /// The server's own global value, read before the first case; every
    /// session sets it so, in case another client changes the global value.
    Server,
    /// The server has no such variable: it behaves as with the setting OFF,
    /// and sessions leave it alone.
    Absent,
    /// Neither the pipeline nor a server said (the dialect was built without
    /// one, e.g. to print cases): the value older servers default to.
    Assumed,
}

impl SettingBasis {
    /// Words for notes: "set by the pipeline", "the server's own setting", ….
    pub fn describe(self) -> &'static str {
        match self {
            SettingBasis::Pipeline => "set by the pipeline",
            SettingBasis::Server => "the server's own setting, read before the first case",
            SettingBasis::Absent => "the server has no such variable and behaves as with OFF",
            SettingBasis::Assumed => "assumed: no server was read and the pipeline does not set it",
        }
    }
}

/// A flavor with the options of its entry: everything rendering, session set-up
/// and the declared semantics depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The DBMS.
    pub flavor: Flavor,
    /// MariaDB's `innodb_snapshot_isolation`; always false for the others.
    pub snapshot_isolation: bool,
    /// Where `snapshot_isolation` comes from.
    pub snapshot_isolation_basis: SettingBasis,
    /// TiDB's transaction mode; always pessimistic for the others, whose InnoDB
    /// locks rows as statements run.
    pub txn_mode: TxnMode,
    /// MariaDB as the nodes of a Galera cluster, the case's transactions on
    /// different nodes: certification between nodes, InnoDB on each.
    pub galera: bool,
}

impl Target {
    /// What the `mysql` dialect renders for.
    pub fn mysql() -> Target {
        Target {
            flavor: Flavor::Mysql,
            snapshot_isolation: false,
            snapshot_isolation_basis: SettingBasis::Absent,
            txn_mode: TxnMode::Pessimistic,
            galera: false,
        }
    }

    /// What the `mariadb` dialect renders for, with `innodb_snapshot_isolation`
    /// ON or OFF as the pipeline sets it.
    pub fn mariadb(snapshot_isolation: bool) -> Target {
        Target::mariadb_with(snapshot_isolation, SettingBasis::Pipeline)
    }

    /// [`Target::mariadb`] with the setting from `basis`.
    pub fn mariadb_with(snapshot_isolation: bool, basis: SettingBasis) -> Target {
        Target {
            flavor: Flavor::Mariadb,
            snapshot_isolation,
            snapshot_isolation_basis: basis,
            txn_mode: TxnMode::Pessimistic,
            galera: false,
        }
    }

    /// What the `galera` dialect renders for: MariaDB on a Galera cluster's
    /// nodes, with `innodb_snapshot_isolation` from `basis`.
    pub fn galera(snapshot_isolation: bool, basis: SettingBasis) -> Target {
        Target {
            galera: true,
            ..Target::mariadb_with(snapshot_isolation, basis)
        }
    }

    /// What the `tidb` dialect renders for, in one transaction mode.
    pub fn tidb(txn_mode: TxnMode) -> Target {
        Target {
            flavor: Flavor::Tidb,
            snapshot_isolation: false,
            snapshot_isolation_basis: SettingBasis::Absent,
            txn_mode,
            galera: false,
        }
    }
}
