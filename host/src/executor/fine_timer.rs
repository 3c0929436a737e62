//! Sub-millisecond sleeps for the executor's probe timing. Tokio's timer
//! counts whole milliseconds (a 1 ms timeout fires after 1–2 ms); a blocked
//! statement shows on the servers after about 0.5 ms. Waits shorter than
//! [`COARSE`] are timed by one process-wide thread that sleeps on a
//! deadline (the kernel's high-resolution timers) and wakes the waiting
//! task; longer ones use tokio's timer.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::Future;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Waits at least this long go to tokio's timer (as every wait did before
/// the fine timer: `probe_after = "1ms"` behaves as it always did).
pub const COARSE: Duration = Duration::from_millis(1);

struct Entry {
    deadline: Instant,
    seq: u64,
    wake: oneshot::Sender<()>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.deadline, self.seq) == (other.deadline, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.deadline, self.seq).cmp(&(other.deadline, other.seq))
    }
}

/// A request to the timer thread: wake this waiter at that instant.
type Wake = (Instant, oneshot::Sender<()>);

fn timer() -> &'static Mutex<Sender<Wake>> {
    static TIMER: OnceLock<Mutex<Sender<Wake>>> = OnceLock::new();
    TIMER.get_or_init(|| {
        let (tx, rx) = channel::<Wake>();
        std::thread::Builder::new()
            .name("txlab-fine-timer".into())
            .spawn(move || {
                let mut due: BinaryHeap<Reverse<Entry>> = BinaryHeap::new();
                let mut seq = 0u64;
                loop {
                    let next = due.peek().map(|Reverse(e)| e.deadline);
                    let got = match next {
                        Some(deadline) => {
                            rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
                        }
                        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    };
                    match got {
                        Ok((deadline, wake)) => {
                            seq += 1;
                            due.push(Reverse(Entry {
                                deadline,
                                seq,
                                wake,
                            }));
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                    let now = Instant::now();
                    while due.peek().is_some_and(|Reverse(e)| e.deadline <= now) {
                        let Reverse(e) = due.pop().expect("peeked");
                        // The waiter may have gone (its reply came first).
                        let _ = e.wake.send(());
                    }
                }
            })
            .expect("the fine timer thread starts");
        Mutex::new(tx)
    })
}

/// Sleeps for `d`, to within the kernel's timer slack (about 50 µs) when
/// shorter than [`COARSE`].
pub async fn sleep(d: Duration) {
    if d >= COARSE || d.is_zero() {
        if !d.is_zero() {
            tokio::time::sleep(d).await;
        }
        return;
    }
    let (wake, woken) = oneshot::channel();
    let sent = timer()
        .lock()
        .map(|t| t.send((Instant::now() + d, wake)).is_ok())
        .unwrap_or(false);
    if !sent || woken.await.is_err() {
        // No timer thread: tokio's, which errs on the long side.
        tokio::time::sleep(d).await;
    }
}

/// `future`'s output, or `None` when `d` passes first.
pub async fn timeout<F: Future>(d: Duration, future: F) -> Option<F::Output> {
    tokio::select! {
        biased;
        out = future => Some(out),
        () = sleep(d) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn a_ready_future_wins_and_a_pending_one_times_out() {
        assert_eq!(
            timeout(Duration::from_micros(300), async { 7 }).await,
            Some(7)
        );
        let pending = std::future::pending::<()>();
        assert_eq!(timeout(Duration::from_micros(300), pending).await, None);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn many_waiters_all_wake() {
        let waits: Vec<_> = (0..20)
            .map(|i| sleep(Duration::from_micros(100 + 37 * i)))
            .collect();
        futures_util::future::join_all(waits).await;
    }
}
