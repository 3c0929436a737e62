//! txlab oracle plugin: write-specific serializability (WriteCheck).
//!
//! WriteCheck (Cui et al., PVLDB 18(8) 2025) observes that even at weak isolation
//! levels a DBMS must block or abort conflicting writes, so the writes of a
//! concurrent run must have the effect of the serial run of its transactions in
//! FCRFS order (first commit/rollback first scheduled). The oracle replays that
//! serial run on the scratch database in two variants (tx-WSS, whole
//! transactions; stmt-WSS, committed transactions' statements in autocommit) and
//! compares final states and write outcomes with the concurrent run.

pub mod compare;
pub mod config;
pub mod observed;
pub mod orders;
pub mod replay;
pub mod report;
pub mod schedule;
pub mod weak;

pub use config::{Variant, WssConfig, DEFAULT_CONFIG};

use compare::{compare_outcomes, compare_states, Differences};
use report::{Judgement, VariantResult};
use txlab_plugin_api::prelude::*;

pub struct WssOracle {
    config: WssConfig,
    dialect: DialectInfo,
}

impl OraclePlugin for WssOracle {
    const NAME: &'static str = "wss";
    const DESCRIPTION: &'static str =
        "write-specific serializability (WriteCheck): the final state and write \
        outcomes must match the serial run in commit order (tx-WSS and stmt-WSS)";
    const DEFAULT_CONFIG: &'static str = DEFAULT_CONFIG;
    type Config = WssConfig;

    fn new(config: WssConfig, ctx: OracleContext) -> Result<Self, PluginError> {
        config.validate()?;
        Ok(WssOracle {
            config,
            dialect: ctx.dialect,
        })
    }
}

impl Oracle for WssOracle {
    fn requirements(&self) -> OracleRequirements {
        OracleRequirements {
            scratch_db: true,
            final_state: true,
            modes: vec![ExecutorMode::Schedule],
        }
    }

    fn check(&mut self, input: &CheckInput, db: &mut dyn HostDb) -> Result<Verdict, PluginError> {
        let case = &input.case;
        let history = &input.history;
        history.check_shape(case)?;
        let missing = history.unobserved_reasons(case);
        let final_state = match &history.final_state {
            Some(state) if missing.is_empty() => state,
            _ => {
                return Ok(Verdict::Undecided {
                    reason: format!("the run was not fully observed: {}", missing.join("; ")),
                })
            }
        };
        if let Some(reason) = write_reading_through_a_query(case) {
            return Ok(Verdict::Undecided { reason });
        }
        let outside = observed::outside_model(case, history);
        if !outside.is_empty() {
            return Ok(Verdict::Undecided {
                reason: format!(
                    "the run has outcomes no serial run can reproduce: {}",
                    outside.join("; ")
                ),
            });
        }
        let mut concurrent_state = final_state.clone();
        concurrent_state.canonicalize();
        let order = schedule::fcrfs_order(case, history)?;

        let mut results = Vec::new();
        for &variant in &self.config.variants {
            let serial = schedule::serial_schedule(variant, case, history, &order);
            // stmt-WSS after tx-WSS: read off tx-WSS's run where they must agree.
            let tx_run = results
                .iter()
                .find(|r: &&VariantResult| r.variant == Variant::Tx);
            let shared = match (variant, tx_run) {
                (Variant::Stmt, Some(tx))
                    if self.config.share_serial_runs
                        && self.dialect.engine.failed_statement_keeps_transaction =>
                {
                    replay::stmt_from_tx(case, &tx.replay, &tx.schedule, &serial)
                }
                _ => None,
            };
            let replay = match shared {
                Some(replay) => replay,
                None => replay::replay(db, case, &serial)?,
            };
            if let Some(problem) = replay.conflict_description(case) {
                return Ok(Verdict::Undecided {
                    reason: format!(
                        "the {variant} serial replay itself could not run as a model: {problem}; \
                         a serial run must not conflict"
                    ),
                });
            }
            let mut differences = Differences {
                tables: compare_states(&concurrent_state, &replay.state)?,
                outcomes: Vec::new(),
            };
            if self.config.compare_write_outcomes {
                differences.outcomes = compare_outcomes(
                    case,
                    history,
                    &serial,
                    &replay,
                    self.config.compare_affected_rows,
                );
            }
            results.push(VariantResult {
                variant,
                schedule: serial,
                replay,
                differences,
            });
        }
        if results.iter().all(|r| r.differences.is_empty()) {
            return Ok(Verdict::Pass);
        }
        // A multi-row UPDATE of a key that collided in one run only: the
        // order the DBMS visited the rows decided it, not isolation.
        for r in &results {
            for (&at, serial) in &r.replay.outcomes {
                let concurrent = history.record(at).map(|x| &x.outcome);
                if concurrent
                    .is_some_and(|c| case.row_order_collision(&self.dialect.engine, at, c, serial))
                {
                    return Ok(Verdict::Undecided {
                        reason: format!(
                            "{at} (UPDATE) changes a key column of several rows and collided with a key in one run only: unique keys are checked row by row, so the order the DBMS visits the rows decides it"
                        ),
                    });
                }
            }
        }
        let mut search_note = None;
        if self.config.search_serial_orders && orders::applies(&self.dialect, case) {
            match orders::search(db, case, history, &concurrent_state, &self.config)? {
                orders::Search::Explained { .. } => return Ok(Verdict::Pass),
                orders::Search::Unexplained { tried } => {
                    return Ok(report::serializability_finding(
                        case,
                        history,
                        &self.dialect,
                        &concurrent_state,
                        &tried,
                    ))
                }
                // Left to the commit-order verdict, which names the level.
                orders::Search::Undecided(reason) => search_note = Some(reason),
            }
        }
        let verdict = report::verdict(&Judgement {
            case,
            history,
            dialect: &self.dialect,
            config: &self.config,
            order: &order,
            concurrent_state: &concurrent_state,
            results: &results,
        });
        Ok(match (verdict, search_note) {
            (Verdict::Undecided { reason }, Some(note)) => Verdict::Undecided {
                reason: format!("{reason}; the search over serial orders did not decide: {note}"),
            },
            (verdict, _) => verdict,
        })
    }
}

/// Why the case is outside WSS's model, if a write in it reads through an IR
/// 1.1 query form (a subquery, INSERT … SELECT). WriteCheck's premise is that
/// the DBMS must serialise writes on the rows they change; what a subquery or
/// INSERT … SELECT reads is a plain read, which a DBMS may serve from a
/// snapshot (PostgreSQL evaluates an UPDATE's subquery once, on its snapshot),
/// so a serial replay may differ without a bug. Reads (a top-level query
/// included) are replayed but not compared, so they stay in the model.
pub fn write_reading_through_a_query(case: &TestCase) -> Option<String> {
    case.submitted_order.iter().find_map(|&at| {
        let statement = case.statement(at)?;
        if !statement.is_write() {
            return None;
        }
        let form = statement.query_form()?;
        Some(format!(
            "outside the model: {at} {form}; WSS constrains only the rows a write \
             changes, and what it reads through a query may come from a snapshot"
        ))
    })
}

export_plugin! {
    dialects: [],
    generators: [],
    oracles: [WssOracle],
}
