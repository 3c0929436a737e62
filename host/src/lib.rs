//! The txlab host: configuration, plugin discovery, drivers, the schedule
//! executor, the databases cases and oracles run on, the run loop, findings,
//! and their reduction.
//!
//! Modules depend downwards only (a test, `tests/layers.rs`, keeps it so):
//!
//! ```text
//! cli                      one file per subcommand (the `txlab` binary)
//! run, bench               the run loop, workers, case runner, reduction; measurements
//! setup                    resolved plugins and the run's environment
//! config, target           the pipeline file; case and scratch databases, server databases
//! executor                 the schedule executor
//! driver                   connections: SQLite, MySQL-wire, PostgreSQL-wire
//! io                       finding directories and reports
//! phases                   where a worker's time goes (`bench --throughput`)
//! ```

pub mod bench;
pub mod cli;
pub mod config;
pub mod driver;
pub mod executor;
pub mod io;
pub mod phases;
pub mod run;
pub mod semantics;
pub mod setup;
pub mod target;
