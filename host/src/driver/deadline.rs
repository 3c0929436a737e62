//! Client-side deadlines on what the host asks of a server, and the run's
//! request to stop.
//!
//! A server that stops answering (a frozen process, a host that dropped off
//! the network) holds every await on its connections forever: the server's
//! own limits (`statement_timeout`, `lock_wait_timeout`) cannot fire when
//! the server does not run. Every interaction the host starts therefore runs
//! within a deadline derived from those limits ([`Deadlines`]), and passing
//! it is a [`NoAnswer`]: a tool error that says what was asked and for how
//! long.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A server that did not answer in time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the server did not answer within {} ({what})", humantime::format_duration(*.within))]
pub struct NoAnswer {
    /// What the host asked ("the lock-wait probe", "resetting the case's tables").
    pub what: String,
    pub within: Duration,
}

/// How long the host waits for a server's answer, derived from the limits
/// the server itself enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// One operation of statements the host runs itself (a table reset, a
    /// session's set-up, the final-state read, a scratch replay's statement,
    /// a ROLLBACK): the server ends a statement after `statement_timeout` and
    /// a lock wait after `lock_wait_timeout`, so an answering server has
    /// replied by their sum; two seconds more for the round trip.
    pub statement: Duration,
    /// A query on the monitor connection (the lock-wait probe, a cancel):
    /// it neither waits for locks nor runs long, so `statement_timeout`
    /// bounds it, and at least a second.
    pub monitor: Duration,
}

/// The margin on top of the server's own limits.
const MARGIN: Duration = Duration::from_secs(2);

impl Deadlines {
    pub fn from_limits(statement_timeout: Duration, lock_wait_timeout: Duration) -> Self {
        Deadlines {
            statement: statement_timeout + lock_wait_timeout + MARGIN,
            monitor: statement_timeout.max(Duration::from_secs(1)),
        }
    }
}

impl Default for Deadlines {
    /// The deadlines of the pipeline's default limits (5 s, 8 s).
    fn default() -> Self {
        Deadlines::from_limits(Duration::from_secs(5), Duration::from_secs(8))
    }
}

/// `work` cut off after `deadline`; `what` names it in the error.
pub async fn within<T>(
    deadline: Duration,
    what: impl FnOnce() -> String,
    work: impl Future<Output = T>,
) -> Result<T, NoAnswer> {
    tokio::time::timeout(deadline, work)
        .await
        .map_err(|_| NoAnswer {
            what: what(),
            within: deadline,
        })
}

/// The run's request to stop (Ctrl-C, SIGTERM, SIGHUP), seen from async
/// code: what waits on a server gives up when it is set. A default value is
/// never set.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Option<Arc<AtomicBool>>);

/// How often [`Interrupt::wait`] looks at the flag.
const INTERRUPT_POLL: Duration = Duration::from_millis(20);

impl Interrupt {
    pub fn new(flag: Arc<AtomicBool>) -> Self {
        Interrupt(Some(flag))
    }

    pub fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// Returns once the stop is requested; never, for a default value.
    pub async fn wait(&self) {
        match &self.0 {
            None => std::future::pending().await,
            Some(flag) => {
                while !flag.load(Ordering::SeqCst) {
                    tokio::time::sleep(INTERRUPT_POLL).await;
                }
            }
        }
    }

    /// `work`, unless the stop comes first (`None`).
    pub async fn or_stop<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        tokio::select! {
            r = work => Some(r),
            () = self.wait() => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_silent_server_is_an_error_that_says_what_and_how_long() {
        let e = within(
            Duration::from_secs(3),
            || "the lock-wait probe".into(),
            std::future::pending::<()>(),
        )
        .await
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the server did not answer within 3s (the lock-wait probe)"
        );
        assert_eq!(
            within(Duration::from_secs(3), String::new, async { 7 }).await,
            Ok(7)
        );
    }

    #[test]
    fn deadlines_follow_the_servers_limits() {
        let d = Deadlines::from_limits(Duration::from_secs(5), Duration::from_secs(8));
        assert_eq!(d.statement, Duration::from_secs(15));
        assert_eq!(d.monitor, Duration::from_secs(5));
        let short = Deadlines::from_limits(Duration::from_millis(100), Duration::from_millis(100));
        assert_eq!(short.monitor, Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn an_interrupt_ends_a_wait() {
        let flag = Arc::new(AtomicBool::new(false));
        let interrupt = Interrupt::new(flag.clone());
        assert!(!interrupt.is_set());
        let setter = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            flag.store(true, Ordering::SeqCst);
        });
        assert_eq!(interrupt.or_stop(std::future::pending::<()>()).await, None);
        setter.await.unwrap();
        assert!(interrupt.is_set());
        assert_eq!(Interrupt::default().or_stop(async { 1 }).await, Some(1));
    }
}
