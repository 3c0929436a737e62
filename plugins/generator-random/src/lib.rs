//! txlab generator plugin: random schemas, rows and concurrent transactions.
//!
//! Each case is a schema of a few small tables, initial rows that satisfy every
//! constraint, a handful of explicit transactions and a random interleaving of their
//! statements. Literals come mostly from the values already in the tables, so that
//! transactions touch the same rows and conflict.

mod case;
mod config;
mod schema;
mod statements;
mod values;

pub use config::{Config, Weights, DEFAULT_CONFIG, MAX_ROWS};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use schema::ColumnTypes;
use txlab_plugin_api::prelude::*;

pub struct RandomGenerator {
    config: Config,
    levels: Vec<IsolationLevel>,
    features: Features,
    types: ColumnTypes,
}

impl GeneratorPlugin for RandomGenerator {
    const NAME: &'static str = "random";
    const DESCRIPTION: &'static str =
        "random small schemas and rows, and interleaved transactions that mostly touch the same rows";
    const DEFAULT_CONFIG: &'static str = config::DEFAULT_CONFIG;
    type Config = Config;

    fn new(config: Config, ctx: GeneratorContext) -> Result<Self, PluginError> {
        config.validate()?;
        ctx.require_levels()?;
        let features = ctx.dialect.features;
        let types = ColumnTypes::from_features(&features).ok_or_else(|| {
            PluginError::config(format!(
                "dialect `{}` offers no column type the random generator can fill (it offers {:?})",
                ctx.dialect.name, features.column_types
            ))
        })?;
        Ok(RandomGenerator {
            config,
            levels: ctx.levels,
            features,
            types,
        })
    }
}

impl RandomGenerator {
    /// The seed of the schema and initial rows: shared by the `cases_per_schema`
    /// consecutive cases of a group, otherwise the case's own seed.
    fn schema_seed(&self, request: CaseRequest) -> u64 {
        if self.config.cases_per_schema > 1 {
            splitmix64(request.run_seed ^ (request.index / self.config.cases_per_schema))
        } else {
            request.seed
        }
    }

    pub fn generate(&self, request: CaseRequest) -> TestCase {
        let mut schema_rng = ChaCha8Rng::seed_from_u64(self.schema_seed(request));
        let db = schema::generate(&self.config, &self.types, &mut schema_rng);
        // A separate stream, so that a shared seed does not tie transactions to the schema draws.
        let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
        rng.set_stream(1);
        let transactions =
            case::transactions(&db, &self.config, &self.features, &self.levels, &mut rng);
        let submitted_order = case::submitted_order(&transactions, &mut rng);
        TestCase {
            seed: request.seed,
            generator: Self::NAME.to_string(),
            schema: db.schema,
            initial_rows: db.initial_rows,
            transactions,
            submitted_order,
            intent: None,
            pace_ms: None,
        }
    }
}

impl Generator for RandomGenerator {
    fn next_case(&mut self, request: CaseRequest) -> Result<TestCase, PluginError> {
        let case = self.generate(request);
        case.validate().map_err(|e| {
            PluginError::internal(format!("generated an invalid case for {request:?}: {e}"))
        })?;
        Ok(case)
    }
}

txlab_plugin_api::export_plugin! {
    dialects: [],
    generators: [RandomGenerator],
    oracles: [],
}
