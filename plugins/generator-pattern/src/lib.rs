//! txlab generator plugin `pattern`: concurrent transactions instantiated from
//! the anomaly patterns of APTrans (Liu et al., "Anomaly Pattern-guided
//! Transaction Bug Testing in Relational Databases", SIGMOD 2026).
//!
//! The [`catalogue`] holds every pattern of the paper's Table 2 and Table 3
//! with the errata applied. For each case the generator draws the isolation
//! levels, then a pattern among those the config selects (by default the ones
//! the levels forbid), and [`instantiate`]s it: a small schema, initial rows
//! that hold the pattern's items among filler rows, one statement per
//! operation that touches exactly its item's row, filler statements on rows of
//! their own, and the pattern's interleaving as the submitted order. The case
//! carries its pattern as its intent. docs/generator-pattern.md describes it.

pub mod catalogue;
mod config;
pub mod instantiate;
mod select;

pub use catalogue::{Pattern, PatternSpec, CATALOGUE};
pub use config::{Config, Weights, DEFAULT_CONFIG};
pub use instantiate::{Instance, Role, RowInfo};
pub use select::{distinct_patterns, Selection};

use instantiate::Types;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use txlab_plugin_api::prelude::*;

/// The entry's name.
pub const NAME: &str = "pattern";

pub struct PatternGenerator {
    config: Config,
    levels: Vec<IsolationLevel>,
    features: Features,
    types: Types,
    selection: Selection,
}

impl GeneratorPlugin for PatternGenerator {
    const NAME: &'static str = NAME;
    const DESCRIPTION: &'static str =
        "transactions instantiated from APTrans's anomaly patterns (Table 2 and 3), interleaved as each pattern says";
    const DEFAULT_CONFIG: &'static str = config::DEFAULT_CONFIG;
    type Config = Config;

    fn new(config: Config, ctx: GeneratorContext) -> Result<Self, PluginError> {
        config.validate()?;
        ctx.require_levels()?;
        let features = ctx.dialect.features;
        let types = Types::from_features(&features).ok_or_else(|| {
            PluginError::config(format!(
                "dialect `{}` offers neither INT nor BIGINT, which the pattern generator keys its tables with",
                ctx.dialect.name
            ))
        })?;
        let selection = Selection::new(&config.patterns)?;
        let generator = PatternGenerator {
            config,
            levels: ctx.levels,
            features,
            types,
            selection,
        };
        generator.check_every_level_has_patterns()?;
        Ok(generator)
    }
}

impl PatternGenerator {
    /// Every level (or, with mixed levels, every combination) the cases may
    /// draw must leave some pattern to choose.
    fn check_every_level_has_patterns(&self) -> Result<(), PluginError> {
        let n = self.selection.max_txns();
        if n == 0 {
            return Err(PluginError::config("patterns: no pattern selected"));
        }
        let combinations: Vec<Vec<IsolationLevel>> = if self.config.mixed_isolation {
            let mut out: Vec<Vec<IsolationLevel>> = vec![Vec::new()];
            for _ in 0..n {
                out = out
                    .into_iter()
                    .flat_map(|c| {
                        self.levels.iter().map(move |&l| {
                            let mut c = c.clone();
                            c.push(l);
                            c
                        })
                    })
                    .collect();
            }
            out
        } else {
            self.levels.iter().map(|&l| vec![l; n]).collect()
        };
        for levels in combinations {
            if self.selection.candidates(&levels).is_empty() {
                let names: Vec<&str> = levels.iter().map(|l| l.name()).collect();
                return Err(PluginError::config(format!(
                    "patterns: {:?} selects no pattern for transactions at {}",
                    self.config.patterns,
                    names.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// The case for `request` with what it was made from. The same request
    /// gives the same instance.
    pub fn instance(&self, request: CaseRequest) -> Instance {
        let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
        let n = self.selection.max_txns();
        let levels: Vec<IsolationLevel> = if self.config.mixed_isolation {
            (0..n)
                .map(|_| *self.levels.choose(&mut rng).expect("levels exist"))
                .collect()
        } else {
            vec![*self.levels.choose(&mut rng).expect("levels exist"); n]
        };
        let candidates = self.selection.candidates(&levels);
        let pattern = *candidates
            .choose(&mut rng)
            .expect("checked at construction: every level has patterns");
        instantiate::instantiate(
            pattern,
            &levels[..pattern.txns],
            &self.config,
            &self.features,
            &self.types,
            request.seed,
            &mut rng,
        )
    }
}

impl Generator for PatternGenerator {
    fn next_case(&mut self, request: CaseRequest) -> Result<TestCase, PluginError> {
        let case = self.instance(request).case;
        case.validate().map_err(|e| {
            PluginError::internal(format!("generated an invalid case for {request:?}: {e}"))
        })?;
        Ok(case)
    }
}

txlab_plugin_api::export_plugin! {
    dialects: [],
    generators: [PatternGenerator],
    oracles: [],
}
