//! The txlab host: configuration, plugin discovery, drivers, the schedule
//! executor, the scratch database oracles replay on, the run loop, findings,
//! and their reduction.

pub mod bench;
pub mod config;
pub mod driver;
pub mod executor;
pub mod findings;
pub mod pipeline;
pub mod reduction;
pub mod runner;
pub mod servers;
pub mod target;
