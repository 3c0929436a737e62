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

/// A flavor with the options of its entry: everything rendering, session set-up
/// and the declared semantics depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The DBMS.
    pub flavor: Flavor,
    /// MariaDB's `innodb_snapshot_isolation`; always false for the others.
    pub snapshot_isolation: bool,
    /// TiDB's transaction mode; always pessimistic for the others, whose InnoDB
    /// locks rows as statements run.
    pub txn_mode: TxnMode,
}

impl Target {
    /// What the `mysql` dialect renders for.
    pub fn mysql() -> Target {
        Target {
            flavor: Flavor::Mysql,
            snapshot_isolation: false,
            txn_mode: TxnMode::Pessimistic,
        }
    }

    /// What the `mariadb` dialect renders for, with `innodb_snapshot_isolation`
    /// ON or OFF.
    pub fn mariadb(snapshot_isolation: bool) -> Target {
        Target {
            flavor: Flavor::Mariadb,
            snapshot_isolation,
            txn_mode: TxnMode::Pessimistic,
        }
    }

    /// What the `tidb` dialect renders for, in one transaction mode.
    pub fn tidb(txn_mode: TxnMode) -> Target {
        Target {
            flavor: Flavor::Tidb,
            snapshot_isolation: false,
            txn_mode,
        }
    }
}
