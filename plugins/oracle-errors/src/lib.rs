//! txlab oracle plugin: explicit errors, the first detection phase of APTrans
//! (Liu et al., "Anomaly Pattern-guided Transaction Bug Testing in Relational
//! Databases", SIGMOD 2026).
//!
//! Some errors reveal a bug by themselves, whatever the transactions should
//! have seen: a server that went down during the case (`server-crash`), a
//! session the server dropped while it stayed up (`connection-lost`), an
//! internal error or failed assertion (`internal-error:<code>`), and an error
//! the dialect could not classify (`unclassified-error:<code>`). The errors a
//! concurrent run meets by design (deadlocks, lock-wait timeouts,
//! serialization failures, constraint and data errors, statement timeouts,
//! aborted transactions, syntax errors) pass, unless `also_findings` names
//! their class. When several apply, the most severe is the finding and the
//! others are listed in it.
//!
//! The oracle judges broken runs, so it never answers undecided because the
//! run was not fully observed; it needs no scratch database and no final
//! state, and runs the case unchanged.

pub mod config;
pub mod judge;

pub use config::{ErrorsConfig, DEFAULT_CONFIG};
pub use judge::{Kind, MODEL};

use txlab_plugin_api::prelude::*;

pub struct ErrorsOracle {
    also_findings: Vec<ErrorClass>,
    dialect: String,
}

impl OraclePlugin for ErrorsOracle {
    const NAME: &'static str = "errors";
    const DESCRIPTION: &'static str =
        "APTrans's explicit errors: a server that went down, a dropped connection, an internal \
        error or an error the dialect cannot classify is a bug by itself";
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    type Config = ErrorsConfig;

    fn new(config: ErrorsConfig, ctx: OracleContext) -> Result<Self, PluginError> {
        Ok(ErrorsOracle {
            also_findings: config.also_findings()?,
            dialect: ctx.dialect.name,
        })
    }
}

impl Oracle for ErrorsOracle {
    fn requirements(&self) -> OracleRequirements {
        // Only the statements' outcomes and the host's report of a lost
        // server: no replay, no final read (a server that went down may not
        // give one).
        OracleRequirements {
            scratch_db: false,
            final_state: false,
            modes: vec![ExecutorMode::Schedule],
        }
    }

    fn prepare(&mut self, case: TestCase) -> Result<TestCase, PluginError> {
        Ok(case)
    }

    fn check(&mut self, input: &CheckInput, _db: &mut dyn HostDb) -> Result<Verdict, PluginError> {
        // A history that does not fit its case is a host bug. What the run did
        // not observe (`unobserved_reasons`) is deliberately not consulted:
        // the runs this oracle exists for are the broken ones.
        input.history.check_shape(&input.case)?;
        Ok(judge::verdict(
            &input.case,
            &input.history,
            &self.dialect,
            &self.also_findings,
        ))
    }
}

export_plugin! {
    dialects: [],
    generators: [],
    oracles: [ErrorsOracle],
}
