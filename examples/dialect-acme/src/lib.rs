//! An example of a vendor dialect built on a shipped one: `acme`, for AcmeDB, an
//! invented server that is compatible with MariaDB 10.11.
//!
//! [`AcmeDialect`] wraps `txlab_mysql::MariadbDialect` and delegates every method
//! to it, so it renders the same SQL, sets sessions up the same way, classifies
//! errors the same way and declares the same semantics: with the same seed, a run
//! on `acme` gives the same verdicts as one on `mariadb`. What it changes is its
//! own: the entry's name and description, and a vendor note and reference on every
//! isolation level in [`Dialect::info`]. A real vendor would change more in the
//! same places, e.g. match its own error numbers before passing the rest to
//! `txlab_mysql::errors::class_and_scope`.
//!
//! The crate is a workspace member but not a default member: `cargo build -p
//! txlab-dialect-acme` builds it, and `host/tests/vendor_dialect.rs` loads it into
//! the `txlab` binary.

use txlab_mysql::{MariadbConfig, MariadbDialect};
use txlab_plugin_api::prelude::*;

/// AcmeDB's documentation of its transactions (an invented vendor, hence the
/// reserved `.example` domain).
pub const ACME_TRANSACTIONS: &str = "https://docs.acme.example/transactions";

/// The note `acme` adds to every isolation level.
pub const ACME_NOTE: &str = "AcmeDB runs MariaDB 10.11's InnoDB unchanged, so every fact above \
     holds on AcmeDB as documented for MariaDB (https://docs.acme.example/transactions).";

/// The `acme` dialect: MariaDB's, under AcmeDB's name.
#[derive(Clone, Debug)]
pub struct AcmeDialect {
    mariadb: MariadbDialect,
}

impl DialectPlugin for AcmeDialect {
    const NAME: &'static str = "acme";
    const DESCRIPTION: &'static str = "AcmeDB, a MariaDB-compatible server";
    // AcmeDB takes MariaDB's options (`snapshot_isolation`), passed through as
    // they are; `txlab plugins show acme` prints MariaDB's defaults.
    const DEFAULT_CONFIG: &'static str = <MariadbDialect as DialectPlugin>::DEFAULT_CONFIG;
    type Config = MariadbConfig;

    fn new(config: MariadbConfig) -> Result<Self, PluginError> {
        Ok(AcmeDialect {
            mariadb: MariadbDialect::new(config)?,
        })
    }
}

impl Dialect for AcmeDialect {
    /// MariaDB's levels and features under AcmeDB's name, each level with the
    /// vendor's note and reference at the end.
    fn info(&self) -> DialectInfo {
        let mut info = self.mariadb.info();
        info.name = Self::NAME.to_string();
        for level in &mut info.levels {
            level.notes.push(ACME_NOTE.to_string());
            level.references.push(ACME_TRANSACTIONS.to_string());
        }
        info
    }

    fn create_table(&self, table: &Table) -> Result<Vec<String>, PluginError> {
        self.mariadb.create_table(table)
    }

    fn drop_table(&self, table: &Table) -> Result<String, PluginError> {
        self.mariadb.drop_table(table)
    }

    fn render(
        &self,
        statement: &Statement,
        ctx: &RenderContext<'_>,
    ) -> Result<String, PluginError> {
        self.mariadb.render(statement, ctx)
    }

    fn session_setup(&self, request: &SessionRequest) -> Result<SessionSetup, PluginError> {
        self.mariadb.session_setup(request)
    }

    fn classify_error(&self, error: &RawDbError) -> DbError {
        self.mariadb.classify_error(error)
    }

    // Methods with a default must be delegated too, or the SDK's default runs
    // instead of MariaDB's: its lock probe is `SHOW ENGINE INNODB STATUS`,
    // which only MariaDB's reading understands.
    fn read_lock_probe(&self, reading: &LockProbeReading) -> Option<bool> {
        self.mariadb.read_lock_probe(reading)
    }

    fn transaction_control(&self) -> TransactionControl {
        self.mariadb.transaction_control()
    }

    fn render_case(
        &self,
        case: &TestCase,
        limits: &SessionLimits,
    ) -> Result<RenderedCase, PluginError> {
        self.mariadb.render_case(case, limits)
    }
}

export_plugin! {
    dialects: [AcmeDialect],
    generators: [],
    oracles: [],
}

#[cfg(test)]
mod tests {
    use super::*;
    use txlab_testkit::cases::two_transaction_case;
    use txlab_testkit::dialect::LIMITS;

    /// Both dialects from the same pipeline options.
    fn both(config: &str) -> (AcmeDialect, MariadbDialect) {
        (
            AcmeDialect::new(parse_config(config).unwrap()).unwrap(),
            MariadbDialect::new(parse_config(config).unwrap()).unwrap(),
        )
    }

    const CONFIGS: [&str; 3] = [
        "{}",
        r#"{"snapshot_isolation": false}"#,
        r#"{"snapshot_isolation": true}"#,
    ];

    #[test]
    fn info_is_mariadbs_under_acmes_name_with_the_vendor_note() {
        for config in CONFIGS {
            let (acme, mariadb) = both(config);
            let acme = acme.info();
            let mut expected = mariadb.info();
            assert_eq!(acme.name, "acme");
            assert_eq!(acme.levels.len(), 4);
            expected.name = "acme".to_string();
            for level in &mut expected.levels {
                level.notes.push(ACME_NOTE.to_string());
                level.references.push(ACME_TRANSACTIONS.to_string());
            }
            assert_eq!(acme, expected, "{config}");
        }
    }

    #[test]
    fn the_lock_probe_is_read_as_mariadb_reads_it() {
        let (acme, mariadb) = both("{}");
        let status = include_str!("../../../dialects/mysql/tests/data/innodb-status-lock-wait.txt");
        for session in ["141", "142", "7"] {
            let reading = LockProbeReading {
                session: session.to_string(),
                columns: vec!["Type".into(), "Name".into(), "Status".into()],
                rows: vec![vec![
                    Value::Text("InnoDB".into()),
                    Value::Text(String::new()),
                    Value::Text(status.into()),
                ]],
            };
            assert_eq!(
                acme.read_lock_probe(&reading),
                mariadb.read_lock_probe(&reading),
                "{session}"
            );
        }
        // 142 waits in the captured status: the reading is MariaDB's parser,
        // not the SDK's default (which would say yes for every session).
        let waits = |id: &str| {
            acme.read_lock_probe(&LockProbeReading {
                session: id.into(),
                columns: vec!["Status".into()],
                rows: vec![vec![Value::Text(status.into())]],
            })
        };
        assert_eq!((waits("142"), waits("141")), (Some(true), Some(false)));
        assert_eq!(acme.transaction_control(), mariadb.transaction_control());
    }

    #[test]
    fn sql_and_session_set_up_are_mariadbs_at_every_level() {
        for config in CONFIGS {
            let (acme, mariadb) = both(config);
            for level in mariadb.info().levels.iter().map(|l| l.level) {
                let case = two_transaction_case(level, IsolationLevel::ReadCommitted);
                let ours = acme.render_case(&case, &LIMITS).unwrap();
                assert_eq!(ours, mariadb.render_case(&case, &LIMITS).unwrap());
                assert!(!ours.transactions[0].session.statements.is_empty());
            }
        }
        // The option reaches the sessions.
        let (acme, _) = both(r#"{"snapshot_isolation": true}"#);
        let setup = acme
            .session_setup(&SessionRequest {
                isolation: IsolationLevel::RepeatableRead,
                limits: LIMITS,
            })
            .unwrap();
        assert!(setup
            .statements
            .contains(&"SET SESSION innodb_snapshot_isolation = ON".to_string()));
    }

    #[test]
    fn errors_are_classified_as_on_mariadb() {
        let (acme, mariadb) = both("{}");
        // Deadlock, lock-wait timeout, snapshot conflict, duplicate key, statement
        // timeout, lost connection, and a number no table lists.
        for code in [1213, 1205, 1020, 1062, 1969, 2013, 4242] {
            let raw = RawDbError {
                code: Some(code),
                message: format!("error {code}"),
                ..RawDbError::default()
            };
            assert_eq!(acme.classify_error(&raw), mariadb.classify_error(&raw));
        }
    }

    #[test]
    fn options_are_mariadbs() {
        assert_eq!(
            <AcmeDialect as DialectPlugin>::DEFAULT_CONFIG,
            <MariadbDialect as DialectPlugin>::DEFAULT_CONFIG
        );
        let e = parse_config::<MariadbConfig>(r#"{"snapshot_isolaton": true}"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::INVALID_CONFIG);
    }
}
