//! txlab generator plugin: Elle's list-append workload (Kingsbury and
//! Alvaro, VLDB 2020) over an SQL table.
//!
//! Every key is a row `(k, v)` whose `v` holds the key's list as
//! comma-separated elements. A transaction reads whole lists
//! (`SELECT v … WHERE k = 3`) and appends elements (`UPDATE … SET v = v ||
//! ',7'`, `CONCAT` in the MySQL family); every element is appended once in a
//! run, so a read list fixes the order of every version before it. Keys come
//! in generations: the cases of one generation share `keys` keys, some hot;
//! the next generation uses new keys, so lists stay short and a stream
//! checker can retire transactions whose keys no one touches again. With
//! `workload = "rw-register"` the same rows hold registers instead: a write
//! sets `v` to one number (`UPDATE … SET v = '7'`), unique per key in a run,
//! and a read returns it (`''` the initial value). Each
//! case starts with an autocommit `INSERT … IGNORE` (`ON CONFLICT DO
//! NOTHING`) of empty rows for every key of its generation, which appends
//! nothing; its smallest key is the smallest the session touches from then on. The statements' shape is `txlab_history::formats::sql_list`,
//! which the stream executor reads them back with.

mod config;
mod workload;

pub use config::{Config, Workload, DEFAULT_CONFIG};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use txlab_history::formats::sql_list::{self, SqlMop};
use txlab_plugin_api::prelude::*;

pub struct ElleGenerator {
    config: Config,
    levels: Vec<IsolationLevel>,
}

impl GeneratorPlugin for ElleGenerator {
    const NAME: &'static str = "elle";
    const DESCRIPTION: &'static str =
        "Elle's list-append and rw-register workloads: appends to and reads of whole lists (or writes and reads of registers) in a text column, hot and cold keys, mixed isolation levels";
    const DEFAULT_CONFIG: &'static str = config::DEFAULT_CONFIG;
    type Config = Config;

    fn new(config: Config, ctx: GeneratorContext) -> Result<Self, PluginError> {
        config.validate()?;
        ctx.require_levels()?;
        if !ctx
            .dialect
            .features
            .column_types
            .contains(&ColumnType::Text)
        {
            return Err(PluginError::config(format!(
                "dialect `{}` offers no TEXT column for the lists (it offers {:?})",
                ctx.dialect.name, ctx.dialect.features.column_types
            )));
        }
        Ok(ElleGenerator {
            config,
            levels: ctx.levels,
        })
    }
}

impl ElleGenerator {
    pub fn generate(&self, request: CaseRequest) -> Result<TestCase, PluginError> {
        if request.index > self.config.max_index() {
            return Err(PluginError::invalid_input(format!(
                "case index {} is past the last one whose keys and elements fit ({})",
                request.index,
                self.config.max_index()
            )));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
        let plans = workload::plan(&self.config, &self.levels, request.index, &mut rng);
        let table = self.config.table();
        let mut transactions = Vec::with_capacity(plans.len() + 1);
        // Every key of the generation, so that its smallest key tells a
        // stream checker which keys this session will not touch again.
        let keys = workload::Keys::of_case(&self.config, request.index).all();
        transactions.push(Transaction {
            isolation: plans[0].isolation,
            kind: TxnKind::Autocommit,
            statements: vec![sql_list::statement(table, &SqlMop::Ensure { keys })],
        });
        for p in &plans {
            let mut statements = Vec::with_capacity(p.mops.len() + 2);
            statements.push(Statement::Begin);
            statements.extend(p.mops.iter().map(|m| sql_list::statement(table, m)));
            statements.push(Statement::Commit);
            transactions.push(Transaction {
                isolation: p.isolation,
                kind: TxnKind::Explicit,
                statements,
            });
        }
        // One transaction after another: the stream executor runs a case's
        // transactions back to back on one session, and the schedule
        // executor then runs them serially.
        let submitted_order = transactions
            .iter()
            .enumerate()
            .flat_map(|(t, txn)| (0..txn.statements.len()).map(move |s| StatementRef::new(t, s)))
            .collect();
        Ok(TestCase {
            seed: request.seed,
            generator: Self::NAME.to_string(),
            schema: Schema {
                tables: vec![sql_list::table(table, ColumnType::Text)],
            },
            initial_rows: Vec::new(),
            transactions,
            submitted_order,
            intent: None,
            pace_ms: None,
        })
    }
}

impl Generator for ElleGenerator {
    fn next_case(&mut self, request: CaseRequest) -> Result<TestCase, PluginError> {
        let case = self.generate(request)?;
        case.validate().map_err(|e| {
            PluginError::internal(format!("generated an invalid case for {request:?}: {e}"))
        })?;
        Ok(case)
    }
}

txlab_plugin_api::export_plugin! {
    dialects: [],
    generators: [ElleGenerator],
    oracles: [],
}
