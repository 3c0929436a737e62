//! What the history's clock says: the execution order, where a statement that
//! waited was sent, and which statements of the two transactions overlapped.

use super::{Stop, Walk};
use txlab_plugin_api::prelude::*;

impl Walk<'_> {
    /// The execution order: the completion order, with every statement that
    /// waited placed after the statement that ended the other transaction
    /// and so released what it waited for.
    ///
    /// Servers release locks before they answer COMMIT, so a statement that
    /// waited may reply while the other transaction's COMMIT or ROLLBACK is
    /// still in flight and be recorded before it; it ran after it. A deadlock
    /// victim's transaction is rolled back, and its locks released, before the
    /// statement that waited for them goes on, but the victim's error may
    /// reach the client later: MySQL 8.0.18 and later detect deadlocks in a
    /// background thread, and the victim's own thread rolls back and answers
    /// after the survivor's statement replied, often after the survivor ran
    /// its next statements or its COMMIT. The ending statement is moved back
    /// to just before the statement that waited, never the statement that
    /// waited forward past its own transaction's later statements.
    ///
    /// A waiting statement that replied while another kind of statement of
    /// the other transaction was in flight has no known place.
    pub(super) fn execution_order(&self) -> Result<Vec<StatementRef>, Stop> {
        let mut order = self.history.completion_order.clone();
        let mut k = 0;
        while k < order.len() {
            let at = order[k];
            let Some(done) = self.placed_by_its_reply(at) else {
                k += 1;
                continue;
            };
            let in_flight = order[k + 1..].iter().position(|e| {
                e.txn() != at.txn()
                    && self
                        .history
                        .record(*e)
                        .and_then(|r| r.submitted_us)
                        .is_some_and(|sent| sent < done)
            });
            let Some(offset) = in_flight else {
                k += 1;
                continue;
            };
            let e = order[k + 1 + offset];
            // The other transaction's end (COMMIT, ROLLBACK, or the statement it
            // was aborted at) released the locks.
            if !self.ends_its_transaction(e) {
                return Err(Stop::Undecided(format!(
                    "a statement that waited replied while a statement of the other transaction was running, so their order is unknown: {at} and {e}"
                )));
            }
            // Two ends that each waited and replied while the other was running
            // (a COMMIT the lock-wait probe took for a wait): neither released
            // the other, and moving one before the other would go on forever.
            if self.ends_its_transaction(at) && self.placed_by_its_reply(e).is_some() {
                return Err(Stop::Undecided(format!(
                    "two statements that ended their transactions waited and each replied while the other was running, so their order is unknown: {at} and {e}"
                )));
            }
            // Between `at` and `e` lie only statements of `at`'s transaction: one
            // of the other transaction's would have been sent before `e`, so
            // before `at` replied, and found first. They were sent after `at`
            // replied, so `e` came before them as well.
            let released_by = order.remove(k + 1 + offset);
            order.insert(k, released_by);
            // `e` is now at `k` and `at` at `k + 1`: both are looked at again.
            // `e` cannot be moved again (it is passed before anything after it
            // is looked at), nor `at` before it (the check above), so the loop
            // ends.
        }
        Ok(order)
    }

    /// When `at`'s reply marks its place in the execution order: it waited,
    /// completed, and did not fail with a deadlock, lock-wait timeout or
    /// serialization failure (such a statement has no effect, and its place
    /// does not matter). The time of the reply.
    fn placed_by_its_reply(&self, at: StatementRef) -> Option<u64> {
        let record = self.history.record(at)?;
        let (Some(_), Some(done)) = (&record.blocked, record.completed_us) else {
            return None;
        };
        match &record.outcome {
            Outcome::Error(e) if e.class.is_concurrency() => None,
            _ => Some(done),
        }
    }

    /// Whether `at` ended its transaction: a COMMIT or ROLLBACK, or the
    /// statement the transaction was aborted at.
    fn ends_its_transaction(&self, at: StatementRef) -> bool {
        self.case.statement(at).is_some_and(Statement::is_end)
            || matches!(
                self.history.transactions[at.txn()].end,
                TxnEnd::Aborted { by, .. } if by == at
            )
    }

    /// The completion-order position before which a blocked statement was sent.
    pub(super) fn submission_point(
        &self,
        order: &[StatementRef],
        i: usize,
        record: &StatementRecord,
    ) -> Result<usize, Stop> {
        let Some(sent) = record.submitted_us else {
            return Err(Stop::Undecided(format!(
                "the history does not say when a statement that waited was sent: {}",
                record.at
            )));
        };
        let mut point = 0;
        for (j, at) in order[..i].iter().enumerate() {
            match self.history.record(*at).and_then(|r| r.completed_us) {
                Some(done) if done <= sent => point = j + 1,
                Some(_) => {}
                None => {
                    return Err(Stop::Undecided(format!(
                        "the history does not say when a statement completed: {at}"
                    )))
                }
            }
        }
        Ok(point)
    }

    /// Whether the other transaction may already have been rolled back as a
    /// deadlock victim (or by another concurrency error) while `record` ran:
    /// one of its statements that waited ends with such an error, sent before
    /// `record` replied. The server detects the deadlock when this statement
    /// asks for the victim's lock, rolls the victim back, and lets this one
    /// go on; the victim's error can reach the client after this reply, so
    /// the history may show the victim's locks as still held.
    pub(super) fn other_may_be_a_victim_already(
        &self,
        at: StatementRef,
        record: &StatementRecord,
    ) -> bool {
        let Some(end) = record.completed_us else {
            return false;
        };
        let other = 1 - at.txn();
        self.history.statements.get(other).is_some_and(|records| {
            records.iter().any(|r| {
                r.blocked.is_some()
                    && r.submitted_us.is_some_and(|s| s < end)
                    && matches!(&r.outcome, Outcome::Error(e) if e.class.is_concurrency())
            })
        })
    }

    /// A write of the other transaction that waited for a lock and was in
    /// progress while `record` ran: where the dialect declares
    /// `dirty_reads_see_partial_writes` (InnoDB applies a statement row by
    /// row), such a write may have changed some rows before it waited.
    pub(super) fn write_in_flight(
        &self,
        at: StatementRef,
        record: &StatementRecord,
    ) -> Option<StatementRef> {
        let (start, end) = (record.submitted_us?, record.completed_us?);
        let other = 1 - at.txn();
        self.history.statements.get(other)?.iter().find_map(|r| {
            let write = self.case.statement(r.at).is_some_and(Statement::is_write);
            let overlaps =
                r.submitted_us.is_some_and(|s| s < end) && r.completed_us.is_none_or(|c| c > start);
            (write && r.blocked.is_some() && overlaps).then_some(r.at)
        })
    }
}
