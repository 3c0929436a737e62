//! From one SQL statement's text to the IR: the translator every script
//! format shares. The schema grows as CREATE TABLE and CREATE INDEX come by,
//! and every later statement's names are checked against it.

mod ddl;
mod expr;
pub mod literal;
mod query;

use crate::error::{Problem, Translated};
use sqlparser::ast as sql;
use sqlparser::dialect::{Dialect, GenericDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;
use txlab_plugin_api::ir::{Index, IsolationLevel, Schema, Statement, Table};

/// The SQL grammar a script is read with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Family {
    #[default]
    Generic,
    Sqlite,
    /// MySQL, MariaDB, TiDB.
    Mysql,
    /// PostgreSQL, CockroachDB.
    Postgres,
}

impl Family {
    /// The family of a txlab dialect name (`sqlite`, `mariadb`, `postgres`, …).
    pub fn of_dialect(name: &str) -> Option<Family> {
        Some(match name {
            "sqlite" => Family::Sqlite,
            "mariadb" | "mysql" | "tidb" | "galera" => Family::Mysql,
            "postgres" | "postgresql" | "cockroachdb" => Family::Postgres,
            "generic" => Family::Generic,
            _ => return None,
        })
    }

    fn parser(self) -> Box<dyn Dialect> {
        match self {
            Family::Generic => Box::new(GenericDialect {}),
            Family::Sqlite => Box::new(SQLiteDialect {}),
            Family::Mysql => Box::new(MySqlDialect {}),
            Family::Postgres => Box::new(PostgreSqlDialect {}),
        }
    }
}

/// What one statement of a script is.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    CreateTable(Table),
    CreateIndex {
        table: String,
        index: Index,
    },
    /// BEGIN / START TRANSACTION, with the level it names, and whether it
    /// takes the snapshot at once (WITH CONSISTENT SNAPSHOT).
    Begin {
        level: Option<IsolationLevel>,
        snapshot: bool,
    },
    /// SET [SESSION] TRANSACTION ISOLATION LEVEL … and its equivalents.
    SetLevel(IsolationLevel),
    /// A statement that changes nothing txlab models (`SET NAMES`, a
    /// timeout, DROP TABLE in the set-up); its kind for messages.
    Ignored(String),
    Statement(Statement),
}

/// Translates statements against the schema built so far.
pub struct Translator {
    pub family: Family,
    pub schema: Schema,
}

impl Translator {
    pub fn new(family: Family) -> Self {
        Translator {
            family,
            schema: Schema::default(),
        }
    }

    /// One statement's text (without `;`).
    pub fn statement(&self, text: &str) -> Translated<Parsed> {
        let words = normalized(text);
        if let Some(parsed) = self.by_words(&words)? {
            return Ok(parsed);
        }
        // MariaDB's shared lock, which the parser does not know.
        let (text, share_mode) = match words.strip_suffix(" LOCK IN SHARE MODE") {
            Some(_) => (strip_share_mode(text), true),
            None => (text.to_string(), false),
        };
        let dialect = self.family.parser();
        let parsed = Parser::parse_sql(dialect.as_ref(), &text).map_err(|e| {
            if known_kind(&words) {
                Problem::new(format!("cannot parse `{}`: {e}", first_line(&text)))
            } else {
                // A statement the parser does not know is one the IR lacks.
                Problem::unsupported(kind_words(&words))
            }
        })?;
        let [stmt] = parsed.as_slice() else {
            return Err(Problem::new(format!(
                "`{}` is {} statements; end each with `;`",
                first_line(&text),
                parsed.len()
            )));
        };
        let out = self.translate(stmt, &words)?;
        if share_mode {
            return query::with_share_lock(out);
        }
        Ok(out)
    }

    /// Statements recognised by their words: those the parser does not know
    /// or reads into forms that lose what matters here.
    fn by_words(&self, words: &str) -> Translated<Option<Parsed>> {
        if words == "START TRANSACTION WITH CONSISTENT SNAPSHOT" {
            return Ok(Some(Parsed::Begin {
                level: None,
                snapshot: true,
            }));
        }
        if words == "BEGIN PESSIMISTIC" || words == "BEGIN OPTIMISTIC" {
            return Ok(Some(Parsed::Begin {
                level: None,
                snapshot: false,
            }));
        }
        if let Some(rest) = words.strip_prefix("SET ") {
            return set_statement(rest).map(Some);
        }
        // PostgreSQL's spellings of ROLLBACK and COMMIT.
        if matches!(words, "ABORT" | "ABORT WORK" | "ABORT TRANSACTION") {
            return Ok(Some(Parsed::Statement(Statement::Rollback)));
        }
        if matches!(words, "END" | "END WORK" | "END TRANSACTION") {
            return Ok(Some(Parsed::Statement(Statement::Commit)));
        }
        if words.starts_with("PRAGMA ") {
            return Ok(Some(Parsed::Ignored("PRAGMA".into())));
        }
        Ok(None)
    }

    fn translate(&self, stmt: &sql::Statement, words: &str) -> Translated<Parsed> {
        use sql::Statement as S;
        Ok(match stmt {
            S::StartTransaction {
                modes, statements, ..
            } if statements.is_empty() => {
                let mut level = None;
                for mode in modes {
                    match mode {
                        sql::TransactionMode::IsolationLevel(l) => level = Some(isolation(l)),
                        other => return Err(Problem::unsupported(format!("BEGIN … {other}"))),
                    }
                }
                Parsed::Begin {
                    level,
                    snapshot: false,
                }
            }
            S::Commit {
                chain: false,
                end: false,
                ..
            } => Parsed::Statement(Statement::Commit),
            S::Rollback {
                chain: false,
                savepoint: None,
            } => Parsed::Statement(Statement::Rollback),
            S::Rollback {
                savepoint: Some(_), ..
            } => return Err(Problem::unsupported("ROLLBACK TO SAVEPOINT")),
            S::CreateTable(create) => Parsed::CreateTable(ddl::create_table(create, self.family)?),
            S::CreateIndex(create) => {
                let (table, index) = ddl::create_index(create, &self.schema, self.family)?;
                Parsed::CreateIndex { table, index }
            }
            S::Drop { .. } => Parsed::Ignored("DROP".into()),
            S::Query(q) => Parsed::Statement(self.top_query(q)?),
            S::Insert(insert) => Parsed::Statement(self.insert(insert)?),
            S::Update {
                table,
                assignments,
                from,
                selection,
                returning,
                or,
                limit,
            } => {
                if from.is_some() || returning.is_some() || or.is_some() || limit.is_some() {
                    return Err(Problem::unsupported(
                        "UPDATE with FROM, RETURNING, OR … or LIMIT",
                    ));
                }
                Parsed::Statement(self.update(table, assignments, selection.as_ref())?)
            }
            S::Delete(delete) => Parsed::Statement(self.delete(delete)?),
            _ => return Err(Problem::unsupported(kind_words(words))),
        })
    }
}

/// The statement's words in capitals, runs of blanks as one space, for
/// recognising statements by their words.
fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_uppercase()
}

fn strip_share_mode(text: &str) -> String {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    words.truncate(words.len().saturating_sub(4));
    words.join(" ")
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > 60 {
        format!("{}…", line.chars().take(60).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Whether the statement starts like one the IR has a form for.
fn known_kind(words: &str) -> bool {
    let first = words.split(' ').next().unwrap_or("");
    matches!(
        first,
        "SELECT"
            | "INSERT"
            | "REPLACE"
            | "UPDATE"
            | "DELETE"
            | "BEGIN"
            | "START"
            | "COMMIT"
            | "ROLLBACK"
            | "END"
            | "CREATE"
            | "WITH"
            | "("
    )
}

/// A statement kind for "… is not supported": its first word, two for
/// CREATE, DROP, ALTER and LOCK.
fn kind_words(words: &str) -> String {
    let mut it = words.split(' ');
    let first = it.next().unwrap_or("");
    match first {
        "CREATE" | "DROP" | "ALTER" | "LOCK" => {
            format!("{first} {}", it.next().unwrap_or(""))
        }
        _ => first.to_string(),
    }
}

fn isolation(level: &sql::TransactionIsolationLevel) -> IsolationLevel {
    use sql::TransactionIsolationLevel as L;
    match level {
        L::ReadUncommitted => IsolationLevel::ReadUncommitted,
        L::ReadCommitted => IsolationLevel::ReadCommitted,
        L::RepeatableRead => IsolationLevel::RepeatableRead,
        L::Serializable => IsolationLevel::Serializable,
        L::Snapshot => IsolationLevel::Snapshot,
    }
}

/// A level from its SQL words (`REPEATABLE READ`) or its setting spelling
/// (`repeatable-read`, `READ-COMMITTED`).
pub fn level_named(text: &str) -> Option<IsolationLevel> {
    let words = text
        .trim()
        .trim_matches(['\'', '"'])
        .replace(['-', '_'], " ")
        .to_ascii_uppercase();
    IsolationLevel::ALL.into_iter().find(|l| l.sql() == words)
}

/// `SET …` (given without SET): a session's isolation level in any of its
/// spellings, autocommit, or a setting txlab leaves alone.
fn set_statement(rest: &str) -> Translated<Parsed> {
    if let Some((_, level)) = rest.split_once("TRANSACTION ISOLATION LEVEL ") {
        // Access modes may follow after a comma.
        let level = level.split(',').next().unwrap_or("");
        return level_named(level)
            .map(Parsed::SetLevel)
            .ok_or_else(|| Problem::new(format!("unknown isolation level `{level}`")));
    }
    let assignment = rest
        .trim_start_matches("SESSION ")
        .trim_start_matches("LOCAL ")
        .trim_start_matches("@@SESSION.")
        .trim_start_matches("@@");
    let (name, value) = assignment
        .split_once(['=', ' '])
        .map(|(n, v)| {
            (
                n.trim(),
                v.trim().trim_start_matches("TO ").trim_start_matches("= "),
            )
        })
        .unwrap_or((assignment, ""));
    match name {
        "DEFAULT_TRANSACTION_ISOLATION" | "TRANSACTION_ISOLATION" | "TX_ISOLATION" => {
            level_named(value)
                .map(Parsed::SetLevel)
                .ok_or_else(|| Problem::new(format!("unknown isolation level {value}")))
        }
        "AUTOCOMMIT" if matches!(value, "0" | "OFF" | "FALSE") => Err(Problem::unsupported(
            "turning autocommit off (write BEGIN … COMMIT instead)",
        )),
        _ => Ok(Parsed::Ignored(format!("SET {name}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_session_level() {
        let t = Translator::new(Family::Generic);
        for (sql, level) in [
            (
                "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                IsolationLevel::ReadCommitted,
            ),
            (
                "set transaction isolation level serializable, read write",
                IsolationLevel::Serializable,
            ),
            (
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                IsolationLevel::RepeatableRead,
            ),
            (
                "SET default_transaction_isolation TO 'serializable'",
                IsolationLevel::Serializable,
            ),
            (
                "SET default_transaction_isolation = 'read committed'",
                IsolationLevel::ReadCommitted,
            ),
            (
                "SET SESSION transaction_isolation = 'READ-UNCOMMITTED'",
                IsolationLevel::ReadUncommitted,
            ),
            (
                "SET @@tx_isolation='REPEATABLE-READ'",
                IsolationLevel::RepeatableRead,
            ),
        ] {
            assert_eq!(t.statement(sql), Ok(Parsed::SetLevel(level)), "{sql}");
        }
        assert_eq!(
            t.statement("SET NAMES utf8mb4"),
            Ok(Parsed::Ignored("SET NAMES".into()))
        );
        assert!(t.statement("SET autocommit = 0").is_err());
        assert_eq!(
            t.statement("abort"),
            Ok(Parsed::Statement(Statement::Rollback))
        );
        assert_eq!(
            t.statement("START TRANSACTION WITH CONSISTENT SNAPSHOT"),
            Ok(Parsed::Begin {
                level: None,
                snapshot: true
            })
        );
    }
}
