//! The drivers this txlab has, looked up by the name a dialect declares in
//! `DialectInfo::driver`. This is the only place that reads that name.

use std::fmt;

/// A host driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DriverKind {
    /// The embedded SQLite library: database files in a directory of the run.
    Sqlite,
    /// A server reached over its wire protocol: databases the run creates there.
    Server(ServerKind),
}

/// The server protocols the host speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerKind {
    /// MySQL, MariaDB, TiDB and anything else MySQL-wire.
    Mysql,
    /// PostgreSQL, CockroachDB and anything else PostgreSQL-wire.
    Postgres,
}

/// A dialect named a driver this txlab does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the dialect needs the `{name}` driver, which this txlab does not have; it has {}",
    DriverKind::ALL.map(|k| format!("`{}`", k.name())).join(", ")
)]
pub struct UnknownDriver {
    pub name: String,
}

impl DriverKind {
    pub const ALL: [DriverKind; 3] = [
        DriverKind::Sqlite,
        DriverKind::Server(ServerKind::Mysql),
        DriverKind::Server(ServerKind::Postgres),
    ];

    /// The name dialects use for it.
    pub fn name(self) -> &'static str {
        match self {
            DriverKind::Sqlite => "sqlite",
            DriverKind::Server(ServerKind::Mysql) => "mysql",
            DriverKind::Server(ServerKind::Postgres) => "postgres",
        }
    }

    pub fn lookup(name: &str) -> Result<DriverKind, UnknownDriver> {
        DriverKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| UnknownDriver {
                name: name.to_string(),
            })
    }
}

impl ServerKind {
    /// The environment variable that holds the server URL when neither the
    /// command line nor the pipeline names one.
    pub fn url_env(self) -> &'static str {
        match self {
            ServerKind::Mysql => "TXLAB_MYSQL_URL",
            ServerKind::Postgres => "TXLAB_PG_URL",
        }
    }
}

impl fmt::Display for DriverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_driver_is_found_by_its_name() {
        for kind in DriverKind::ALL {
            assert_eq!(DriverKind::lookup(kind.name()), Ok(kind));
        }
    }

    #[test]
    fn an_unknown_driver_lists_the_ones_there_are() {
        let e = DriverKind::lookup("odbc").unwrap_err().to_string();
        assert_eq!(
            e,
            "the dialect needs the `odbc` driver, which this txlab does not have; it has `sqlite`, `mysql`, `postgres`"
        );
    }
}
