//! Running an oracle's check as the host does, on a [`MemoryDb`].

use crate::MemoryDb;
use txlab_plugin_api::prelude::*;

/// Runs `oracle`'s check of `case` and `history` on a fresh [`MemoryDb`].
///
/// # Panics
/// When the check fails (a tool error), or leaves a scratch session open.
pub fn check<O: Oracle>(oracle: &mut O, case: &TestCase, history: &History) -> Verdict {
    let mut db = MemoryDb::new();
    let verdict = oracle
        .check(
            &CheckInput {
                case: case.clone(),
                history: history.clone(),
            },
            &mut db,
        )
        .unwrap();
    assert_eq!(db.open_sessions(), 0, "the oracle left sessions open");
    verdict
}

/// The finding of `verdict`.
///
/// # Panics
/// When the verdict is not a finding.
pub fn expect_finding(verdict: Verdict) -> Finding {
    match verdict {
        Verdict::Finding(f) => f,
        other => panic!("expected a finding, got {other:?}"),
    }
}

/// The anomaly of a vendor-permitted `verdict`.
///
/// # Panics
/// When the verdict is anything else.
pub fn expect_vendor_permitted(verdict: Verdict) -> Finding {
    match verdict {
        Verdict::VendorPermitted(f) => f,
        other => panic!("expected a vendor-permitted anomaly, got {other:?}"),
    }
}

/// The reason of an undecided `verdict`.
///
/// # Panics
/// When the verdict is not undecided.
pub fn expect_undecided(verdict: Verdict) -> String {
    match verdict {
        Verdict::Undecided { reason } => reason,
        other => panic!("expected undecided, got {other:?}"),
    }
}
