//! txlab oracle plugin: IsoRel (Yang et al., "Detecting Isolation Anomalies in
//! Relational DBMSs", ISSTA 2025).
//!
//! `prepare` adds two auxiliary columns to every table, a row identity and the
//! list of the transactions that wrote the row, and instruments every statement
//! so that reads return both and writes append their transaction
//! ([`instrument`]). `check` reads the dependencies between transactions off
//! what the reads returned (wr, ww, rw with their evidence), finds the minimal
//! dependency cycles and cycle-free phenomena (G0 … G2-item and the SQL
//! anomalies: lost update, write skew, …) with `txlab-history`, and judges each
//! by two models: the standard model of the isolation level the transactions
//! ran under (Adya), and the vendor's documented semantics from the dialect's
//! profile. An anomaly the vendor forbids is a finding; one only the standard
//! model forbids is a vendor-permitted anomaly.

pub mod config;
pub mod instrument;
pub mod observe;
pub mod txn_ids;

pub use config::{FindingsFrom, IsorelConfig, DEFAULT_CONFIG};

use txlab_plugin_api::prelude::*;

/// How IsoRel's verdicts say where their dependencies come from.
const SOURCE: txlab_history::verdict::Source<'static> = txlab_history::verdict::Source {
    oracle: "IsoRel",
    provenance: "The dependencies come from what the reads returned: each row's identity and the list of the transactions that wrote it, in installation order (IsoRel).",
    guarantees: "every write appends its transaction to the row's writers in the same statement, so every version of a row has its own writer list, and any two lists a committed transaction saw are prefixes of one another.",
    assumes: "none beyond atomic statements: a write and its writer-list append are one statement",
};

pub struct IsorelOracle {
    config: IsorelConfig,
    dialect: DialectInfo,
}

impl OraclePlugin for IsorelOracle {
    const NAME: &'static str = "isorel";
    const DESCRIPTION: &'static str =
        "IsoRel: writer lists reveal who wrote what; dependency cycles are anomalies, judged by the \
        standard model of the level (Adya) and by the vendor's documented semantics";
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    type Config = IsorelConfig;

    fn new(config: IsorelConfig, ctx: OracleContext) -> Result<Self, PluginError> {
        config.validate()?;
        Ok(IsorelOracle {
            config,
            dialect: ctx.dialect,
        })
    }
}

impl Oracle for IsorelOracle {
    fn requirements(&self) -> OracleRequirements {
        // The dependencies come from what the reads returned: no replay. The
        // final state is one more read, after every transaction: it shows
        // the next writer after every version a transaction read (IsoRel's
        // advice to read all data often).
        OracleRequirements {
            scratch_db: false,
            final_state: true,
            modes: vec![ExecutorMode::Schedule],
        }
    }

    fn prepare(&mut self, case: TestCase) -> Result<TestCase, PluginError> {
        instrument::instrument(
            case,
            &self.config.row_id_column,
            &self.config.writers_column,
            &self.dialect.features,
        )
    }

    fn check(&mut self, input: &CheckInput, _db: &mut dyn HostDb) -> Result<Verdict, PluginError> {
        input.history.check_shape(&input.case)?;
        // What a join, an aggregate or a subquery reads comes back without the
        // rows' identities and writers (or not at all), and INSERT … SELECT
        // inserts rows `prepare` could not number: the dependencies would be
        // incomplete.
        if let Some(form) = input.case.first_query_form() {
            return Ok(Verdict::Undecided {
                reason: format!(
                    "outside what IsoRel observes: {form}; the rows a query form reads or \
                     inserts carry no row identity and writers IsoRel can follow"
                ),
            });
        }
        let observed =
            match observe::observe(&input.case, &input.history, &self.dialect, &self.config) {
                Ok(o) => o,
                Err(observe::Unreadable(reason)) => return Ok(Verdict::Undecided { reason }),
            };
        let report = txlab_history::check(
            &observed.history,
            &txlab_history::Options {
                exempt_locking_reads: self.config.exempt_locking_reads,
                // Across a cluster's nodes real time says nothing about what
                // a snapshot holds: a node may not yet have applied another
                // node's commit (Galera reads the node's own state), so no
                // claim rests on start order (G-SIa, G-SIb).
                start_order: !input.history.spans_nodes(),
                ..txlab_history::Options::default()
            },
        );
        Ok(txlab_history::verdict::verdict(
            &observed.history,
            &report,
            &self.dialect,
            self.config.findings,
            &SOURCE,
        ))
    }
}

export_plugin! {
    dialects: [],
    generators: [],
    oracles: [IsorelOracle],
}
