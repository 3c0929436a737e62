//! The two DBMSs this crate speaks for. They share the wire protocol and almost all
//! of the SQL rendered here; where they differ, the code asks the flavor.

/// Which of the two DBMSs a dialect renders for; it implements the SDK's
/// `SqlSyntax` (see `syntax`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// PostgreSQL 15, 16 and 17.
    Postgres,
    /// CockroachDB 23.2 and 24.x.
    Cockroach,
}

impl Flavor {
    /// The registry name of the dialect entry.
    pub fn entry_name(self) -> &'static str {
        match self {
            Flavor::Postgres => "postgres",
            Flavor::Cockroach => "cockroachdb",
        }
    }

    /// The product name, for messages.
    pub fn dbms(self) -> &'static str {
        match self {
            Flavor::Postgres => "PostgreSQL",
            Flavor::Cockroach => "CockroachDB",
        }
    }
}
