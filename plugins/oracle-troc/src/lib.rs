//! txlab oracle plugin: Troc (Dou et al., "Detecting Isolation Bugs via
//! Transaction Oracle Construction", ICSE 2023).
//!
//! `prepare` adds an auxiliary row-id column so the oracle can follow rows
//! without interpreting WHERE clauses. `check` walks the real run's execution
//! order, keeps a version chain per row, builds for every statement the view its
//! isolation level allows (from the dialect's semantics profile), runs the
//! statement alone on that view on the scratch database, and compares query
//! results, statement outcomes, affected-row counts and the final table with the
//! real run. It also reports a statement that did not wait for a row lock the
//! other running transaction held, and a write that succeeded where the profile
//! says the second writer must fail. Anything the model cannot decide soundly is
//! undecided.

pub mod config;
pub mod instrument;
pub mod report;
pub mod scope;
pub mod scratch;
pub mod versions;
pub mod walk;

pub use config::{SameValueSetting, TrocConfig, DEFAULT_CONFIG};

use config::FindingsFrom;
use txlab_plugin_api::prelude::*;
use walk::{Walk, WalkOutcome};

pub struct TrocOracle {
    config: TrocConfig,
    dialect: DialectInfo,
}

impl OraclePlugin for TrocOracle {
    const NAME: &'static str = "troc";
    const DESCRIPTION: &'static str =
        "Troc: every statement run alone on the view its isolation level allows (row version \
        chains, visibility rules V1-V4) must return and change what it did in the concurrent run";
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    type Config = TrocConfig;

    fn new(config: TrocConfig, ctx: OracleContext) -> Result<Self, PluginError> {
        config.validate()?;
        Ok(TrocOracle {
            config,
            dialect: ctx.dialect,
        })
    }
}

impl Oracle for TrocOracle {
    fn requirements(&self) -> OracleRequirements {
        OracleRequirements {
            scratch_db: true,
            final_state: true,
            modes: vec![ExecutorMode::Schedule],
        }
    }

    fn prepare(&mut self, case: TestCase) -> Result<TestCase, PluginError> {
        instrument::instrument(case, &self.config.rid_column)
    }

    fn check(&mut self, input: &CheckInput, db: &mut dyn HostDb) -> Result<Verdict, PluginError> {
        let case = &input.case;
        let history = &input.history;
        history.check_shape(case)?;
        let missing = history.unobserved_reasons(case);
        if !missing.is_empty() {
            return Ok(Verdict::Undecided {
                reason: format!("the run was not fully observed: {}", missing.join("; ")),
            });
        }
        if let Some(reason) = scope::outside(case, &self.dialect) {
            return Ok(Verdict::Undecided { reason });
        }
        if history.spans_nodes() {
            return Ok(Verdict::Undecided {
                reason: "outside the model: the transactions ran on different nodes of a cluster, and Troc models one node's locks and views".into(),
            });
        }
        let table = &case.schema.tables[0];
        let Some(rid) = instrument::rid_column(table, &self.config.rid_column) else {
            return Ok(Verdict::Undecided {
                reason: format!(
                    "outside the model: table `{}` has no row-id column `{}`, so the case was not prepared by troc",
                    table.name, self.config.rid_column
                ),
            });
        };
        let walk = Walk {
            case,
            history,
            dialect: &self.dialect,
            config: &self.config,
            table,
            rid,
        };
        let outcome = walk.run(db)?;
        // A walk that found something had an order to walk in.
        let order = || {
            walk.order()
                .unwrap_or_else(|| history.completion_order.clone())
        };
        Ok(match outcome {
            WalkOutcome::Agrees => Verdict::Pass,
            WalkOutcome::Undecided(reason) => Verdict::Undecided { reason },
            WalkOutcome::Differs(differences) => {
                report::finding(case, history, &order(), &self.dialect, &differences)
            }
            WalkOutcome::Permitted(differences) => {
                let first = differences[0].kind;
                let verdict = report::finding(case, history, &order(), &self.dialect, &differences);
                match (verdict, self.config.findings) {
                    (Verdict::Finding(f), FindingsFrom::Vendor) => {
                        Verdict::VendorPermitted(report::permitted(f, first))
                    }
                    (other, _) => other,
                }
            }
        })
    }
}

export_plugin! {
    dialects: [],
    generators: [],
    oracles: [TrocOracle],
}
