//! The end of a case: winding a stalled case down, and leaving every
//! session outside a transaction.

use super::{success_outcome, within, ExecError, Phase, Run, Tag};
use std::time::{Duration, Instant};
use tokio::time::timeout;
use txlab_plugin_api::ir::*;

impl Run<'_, '_> {
    /// Ends a stalled case: cancel every waiting statement, record what comes
    /// back, and roll back what is open.
    pub(super) async fn wind_down(&mut self) -> Result<(), ExecError> {
        let stuck: Vec<StatementRef> = self
            .txns
            .iter()
            .filter_map(|t| match t.phase {
                Phase::Blocked(at) | Phase::Running(at) => Some(at),
                _ => None,
            })
            .collect();
        for &at in &stuck {
            // A cancel that fails leaves the statement to the deadline below;
            // one the server does not answer ends the case.
            let cancel = within(
                self.exec.settings.deadlines.monitor,
                || "cancelling a stalled statement".into(),
                self.exec.monitor.cancel(&self.keys[at.txn()]),
            );
            if let Err(e) = cancel.await? {
                self.note(format!("cancelling {at} failed: {e}"));
            }
        }
        for at in stuck {
            let deadline = Instant::now() + Duration::from_secs(2);
            while !self.has_queued_reply(at) {
                let left = deadline.saturating_duration_since(Instant::now());
                match timeout(left, self.events.recv()).await {
                    Ok(Some(r)) => self.queue.push_back(r),
                    Ok(None) => return Err(ExecError::SessionGone),
                    Err(_) => {
                        self.give_up(at);
                        break;
                    }
                }
            }
        }
        // Record the cancelled statements without letting their errors drive
        // further scheduling: the case is over.
        while let Some(reply) = self.queue.pop_front() {
            if let Tag::Statement(at) = reply.tag {
                let completed = self.micros(reply.at);
                let statement = self
                    .case
                    .statement(at)
                    .expect("replies only come for submitted statements");
                let outcome = match reply.result {
                    Ok(r) => success_outcome(r, statement),
                    Err(raw) => Outcome::Error(self.exec.classifier.classify(&raw)?),
                };
                let rec = &mut self.history.statements[at.txn()][at.stmt()];
                rec.completed_us = Some(completed);
                rec.outcome = outcome;
                self.history.completion_order.push(at);
                if self.txns[at.txn()].phase != Phase::Finished {
                    self.txns[at.txn()].phase = Phase::Idle;
                }
            }
        }
        for t in &mut self.txns {
            if t.phase != Phase::Finished {
                t.phase = Phase::Finished;
            }
        }
        Ok(())
    }

    /// Leaves every session outside a transaction so it can serve the next case.
    pub(super) async fn close_open_transactions(&mut self) -> Result<(), ExecError> {
        for txn in 0..self.txns.len() {
            if self.txns[txn].open && !self.abandoned.contains(&txn) {
                self.send(txn, Tag::Cleanup, self.rendered.control.rollback.clone())?;
                if self.wait_cleanup_reply(txn).await?.is_none() {
                    self.abandoned.push(txn);
                }
                self.txns[txn].open = false;
                crate::phases::charge(
                    crate::phases::Phase::Statements,
                    crate::phases::Phase::Commits,
                );
            }
        }
        for (i, t) in self.history.transactions.iter().enumerate() {
            if t.end == TxnEnd::Unfinished {
                let text = format!("{} did not finish", txn_label(i));
                if !self.history.unobserved.contains(&text) {
                    self.history.unobserved.push(text);
                }
            }
        }
        Ok(())
    }
}
