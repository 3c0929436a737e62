//! The txlab host: configuration, plugin discovery, drivers, the schedule
//! executor, the scratch database oracles replay on, the run loop, and findings.

pub mod bench;
pub mod config;
pub mod driver;
pub mod executor;
pub mod findings;
pub mod pipeline;
pub mod registry;
pub mod servers;
pub mod target;
