//! What the tests against live database servers share: whether a missing server
//! skips them or fails them, and names for the throw-away databases they create.
//!
//! Connecting, creating and dropping stay with each dialect's tests, which own
//! their database client.

use std::sync::atomic::{AtomicU32, Ordering};

/// Set to `1` to make a missing server fail the live tests instead of skipping
/// them, so that a run meant to cover them cannot pass without them.
pub const REQUIRE_LIVE: &str = "TXLAB_REQUIRE_LIVE";

/// Whether [`REQUIRE_LIVE`] asks for the live tests to run.
pub fn live_required() -> bool {
    std::env::var(REQUIRE_LIVE).is_ok_and(|v| v == "1")
}

/// The server URL in the environment variable `var`, or `default`.
pub fn server_url(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

/// `None` after saying on stderr why the test is skipped; a panic instead when
/// [`REQUIRE_LIVE`] is set.
pub fn unavailable<T>(server: &str, why: &str) -> Option<T> {
    if live_required() {
        panic!("the live {server} is required ({REQUIRE_LIVE}=1): {why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// A database name no other test of any running process uses:
/// `txlab_test_<tag>_<process id>_<counter>`. The tag is lowercased, cut to 24
/// characters, and anything but ASCII letters and digits becomes `_`, so the name
/// needs no quoting on any server.
pub fn unique_database_name(tag: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let safe_tag: String = tag
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(24)
        .collect();
    format!(
        "txlab_test_{safe_tag}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::unique_database_name;

    #[test]
    fn database_names_are_unique_and_need_no_quoting() {
        let a = unique_database_name("Busy-Snapshot");
        let b = unique_database_name("Busy-Snapshot");
        assert_ne!(a, b);
        assert!(a.starts_with("txlab_test_busy_snapshot_"), "{a}");
        let long = unique_database_name(&"x".repeat(100));
        assert!(long.starts_with(&format!("txlab_test_{}_", "x".repeat(24))));
        for name in [a, b, long] {
            assert!(name.len() <= 63, "{name}");
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{name}"
            );
        }
    }
}
