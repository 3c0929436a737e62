//! What goes to disk and comes back: finding directories and reduction
//! reports. Nothing here runs a case.

mod findings;
mod reduction_report;

pub use findings::*;
pub use reduction_report::{ReductionOutcome, ReductionReport};
