//! `txlab generate`: the cases a pipeline would run, without running them.

use super::setup::PipelineSetup;
use super::{out, Cli, EXIT_CLEAN};
use std::path::PathBuf;
use txlab_plugin_api::ir::*;

#[derive(clap::Args)]
pub(super) struct GenerateArgs {
    pipeline: PathBuf,
    /// How many cases, from case 0.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    cases: u64,
    /// The run seed (overrides the pipeline; without either, a random one,
    /// printed on stderr): the same seed prints the same cases.
    #[arg(long)]
    seed: Option<u64>,
    /// Print each case as the dialect renders it, session by session, instead
    /// of one JSON document per line.
    #[arg(long)]
    sql: bool,
    /// Apply the pipeline's oracles' instrumentation first, so the cases are
    /// printed as they would run.
    #[arg(long)]
    prepared: bool,
}

pub(super) fn run(cli: &Cli, args: &GenerateArgs) -> anyhow::Result<u8> {
    let setup = PipelineSetup::load(cli, &args.pipeline)?;
    let resolved = setup.resolve()?;
    let p = &setup.loaded.pipeline;
    let seed = match args.seed.or(p.run.seed) {
        Some(seed) => seed,
        None => {
            let seed = crate::run::random_seed();
            eprintln!("seed {seed}");
            seed
        }
    };
    let mut generator = resolved.new_generator()?;
    let mut oracles = if args.prepared {
        resolved.new_oracles()?
    } else {
        Vec::new()
    };
    let limits = p.executor.session_limits();
    for index in 0..args.cases {
        let request = CaseRequest::new(seed, index);
        let mut case = generator.next_case(request)?;
        case.validate().map_err(|e| {
            anyhow::anyhow!("{} made an invalid case {index}: {e}", generator.label())
        })?;
        for o in &mut oracles {
            case = o.handle.prepare(&case)?;
        }
        if !args.sql {
            out!("{}", serde_json::to_string(&case)?);
            continue;
        }
        let rendered = resolved.dialect.render_case(&case, &limits)?;
        out!(
            "-- case {index} (run seed {seed}, case seed {}), dialect {}",
            request.seed,
            resolved.info.name
        );
        for sql in rendered.create.iter().chain(&rendered.populate) {
            out!("{sql};");
        }
        for (t, (txn, sqls)) in case
            .transactions
            .iter()
            .zip(&rendered.transactions)
            .enumerate()
        {
            out!("-- session {} ({}):", txn_label(t), txn.isolation);
            for sql in &sqls.session.statements {
                out!("{sql};");
            }
        }
        out!("-- statements in submitted order:");
        for at in &case.submitted_order {
            out!(
                "/* {at} */ {};",
                rendered.transactions[at.txn()].statements[at.stmt()]
            );
        }
        out!();
    }
    Ok(EXIT_CLEAN)
}
