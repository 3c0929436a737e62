//! txlab oracle plugin: TxCheck (Jiang et al., "Detecting Transactional Bugs
//! in Database Engines via Graph-Based Oracle Construction", OSDI 2023).
//!
//! `prepare` gives every row an item key and a version key and surrounds each
//! data statement with reads that show the versions it looked at, overwrote
//! and installed ([`instrument`]). `check` reads the statement dependency
//! graph off those reads ([`graph`]), sorts it topologically and runs the
//! sorted statements without transactions on the scratch database
//! ([`replay`]): on a correct DBMS every statement gives the same result and
//! the database ends the same (the paper's Theorem 1, which holds at every
//! isolation level). A run that cannot be judged because of one statement
//! (it waited inside its added reads, or closes a cycle) runs again without
//! it ([`rerun`]); a cycle is never a TxCheck finding of its own ([`judge`]).

pub mod classify;
pub mod config;
pub mod explain;
pub mod graph;
pub mod instrument;
pub mod judge;
pub mod replay;
pub mod rerun;
pub mod units;

pub use config::{TxcheckConfig, DEFAULT_CONFIG};

use txlab_plugin_api::prelude::*;

pub struct TxcheckOracle {
    config: TxcheckConfig,
    dialect: DialectInfo,
}

impl OraclePlugin for TxcheckOracle {
    const NAME: &'static str = "txcheck";
    const DESCRIPTION: &'static str =
        "TxCheck: the statement dependency graph, read off added reads of item and version keys, \
        sorted and run without transactions; every statement must give the same result and the \
        database must end the same";
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    type Config = TxcheckConfig;

    fn new(config: TxcheckConfig, ctx: OracleContext) -> Result<Self, PluginError> {
        config.validate()?;
        Ok(TxcheckOracle {
            config,
            dialect: ctx.dialect,
        })
    }
}

impl Oracle for TxcheckOracle {
    fn requirements(&self) -> OracleRequirements {
        OracleRequirements {
            scratch_db: true,
            final_state: true,
            modes: vec![ExecutorMode::Schedule],
        }
    }

    fn prepare(&mut self, case: TestCase) -> Result<TestCase, PluginError> {
        instrument::instrument(case, &self.config)
    }

    fn check(&mut self, input: &CheckInput, db: &mut dyn HostDb) -> Result<Verdict, PluginError> {
        input.history.check_shape(&input.case)?;
        if input.history.spans_nodes() {
            return Ok(Verdict::Undecided {
                reason: "outside the model: the transactions ran on different nodes of a cluster, and TxCheck's added reads and replay model one node".into(),
            });
        }
        rerun::judge(&input.case, &input.history, &self.dialect, &self.config, db)
    }
}

export_plugin! {
    dialects: [],
    generators: [],
    oracles: [TxcheckOracle],
}
