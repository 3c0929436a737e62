//! Differences at weak levels, explained by the vendor's documented rules.
//!
//! WriteCheck's Assumption 1 (every write-write conflict, predicate conflicts
//! included, is blocked or aborted) does not hold at every level: InnoDB's READ
//! COMMITTED reads a locked row's last committed version before it decides to
//! wait (semi-consistent read), PostgreSQL's READ COMMITTED re-checks only the
//! rows it waited for, and neither locks the ranges a write scans. Such a
//! level's difference from the serial run is a *vendor-permitted anomaly*
//! when the run shows the rule at work: a write that evaluated its rows while
//! another transaction's change to the same table was not yet committed (or
//! not in the write's snapshot), or that waited for that transaction and went
//! on by the level's `after_wait` rule. A difference no such write explains is
//! not what the vendor documents: it stays a finding.

use crate::compare::Differences;
use crate::report::Weakness;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;
use txlab_plugin_api::prelude::*;

/// The documented rule a difference is put down to, named as the other
/// oracles name the same anomalies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// InnoDB READ COMMITTED: an UPDATE skips a row another transaction holds
    /// when the row's last committed version does not match.
    SemiConsistentRead,
    /// PostgreSQL READ COMMITTED: a statement that waited re-checks only the
    /// rows it waited for, on their newest version (EvalPlanQual).
    RecheckAfterWait,
    /// InnoDB: a statement that waited reads the latest rows from where it
    /// waited on; rows that appeared before that position are not seen.
    PhantomBehindAWait,
    /// No predicate locks: a write does not conflict with, and does not see,
    /// rows another transaction inserted or changed into its range and had
    /// not committed when the write evaluated them.
    UncommittedChangeNotSeen,
    /// A write evaluated on the transaction's snapshot (snapshot isolation)
    /// does not see rows another transaction inserted or changed into its
    /// range and committed after the snapshot.
    ChangeAfterSnapshotNotSeen,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::SemiConsistentRead => "semi-consistent read",
            Rule::RecheckAfterWait => "re-check after a wait",
            Rule::PhantomBehindAWait => "phantom behind a wait",
            Rule::UncommittedChangeNotSeen => {
                "no predicate lock: a write missed an uncommitted change"
            }
            Rule::ChangeAfterSnapshotNotSeen => {
                "no predicate lock: a write missed a change after its snapshot"
            }
        }
    }

    /// The vendor's rule, one sentence, for reports.
    fn text(self) -> &'static str {
        match self {
            Rule::SemiConsistentRead => {
                "an UPDATE reads a row another transaction holds at its last committed version and \
                 skips it when that version does not match, without waiting"
            }
            Rule::RecheckAfterWait => {
                "a statement that waited evaluates its condition again only on the rows it waited for, \
                 on their newest version; rows only the newer state holds or matches are not seen"
            }
            Rule::PhantomBehindAWait => {
                "a statement that waited reads the latest committed rows from where it waited on; rows \
                 that appeared before that position in its scan are not seen"
            }
            Rule::UncommittedChangeNotSeen => {
                "a write locks only the rows it changes, not the range it scans, so rows another \
                 transaction inserted or changed into that range and had not committed are not seen \
                 and do not make it wait"
            }
            Rule::ChangeAfterSnapshotNotSeen => {
                "a write finds its rows in the transaction's snapshot and locks no range, so rows \
                 another transaction inserted or changed into that range and committed after the \
                 snapshot are not seen"
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A write that evaluated its rows while another transaction's change to the
/// same table was out of its sight, at a level whose rule allows that.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exposure {
    #[serde(serialize_with = "label")]
    pub write: StatementRef,
    pub table: String,
    /// The other transaction's first write on the table, whose transaction's
    /// changes the rule let this write miss.
    #[serde(serialize_with = "label")]
    pub other_write: StatementRef,
    pub rule: Rule,
    pub level: IsolationLevel,
}

/// Statements as reports name them: `T2.3`.
fn label<S: serde::Serializer>(at: &StatementRef, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&at.to_string())
}

impl Exposure {
    /// One line for reports.
    pub fn describe(&self, case: &TestCase, dialect: &DialectInfo) -> String {
        format!(
            "`{}` ({}) on `{}` evaluated its rows while the changes of {} (`{}`, {}) were not \
             in its sight: {} at {} — {} ({})",
            self.write,
            case.kind_name(self.write),
            self.table,
            txn_label(self.other_write.txn()),
            self.other_write,
            case.kind_name(self.other_write),
            dialect.name,
            self.level,
            self.rule.text(),
            self.rule.name()
        )
    }
}

/// What the rules explain of a run's differences.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The exposures that explain some difference, each once.
    pub used: Vec<Exposure>,
    /// Differences no exposure explains, one line each.
    pub unexplained: Vec<String>,
}

impl Explanation {
    /// The rules used, each once, in a fixed order.
    pub fn rules(&self) -> Vec<Rule> {
        let set: BTreeSet<Rule> = self.used.iter().map(|e| e.rule).collect();
        set.into_iter().collect()
    }
}

/// Microsecond times of one statement, when it was sent and when it replied.
fn times(history: &History, at: StatementRef) -> Option<(u64, u64)> {
    let r = history.record(at)?;
    Some((r.submitted_us?, r.completed_us?))
}

/// From when on a write evaluates its rows: its own start, or its
/// transaction's snapshot where writes read the snapshot (the first statement
/// after BEGIN was sent; earlier is the cautious side: more changes fall
/// after it).
fn evaluates_from(
    case: &TestCase,
    history: &History,
    at: StatementRef,
    semantics: &LevelSemantics,
) -> Option<u64> {
    let (sent, _) = times(history, at)?;
    let txn = &case.transactions[at.txn()];
    let point = txn.snapshot_point(semantics);
    if !writes_on_snapshot(semantics, point) {
        return Some(sent);
    }
    // The snapshot's statement: BEGIN where it takes the snapshot, else the
    // first statement after it.
    let first = txn
        .statements
        .iter()
        .position(|s| !s.is_begin() || point == SnapshotPoint::Begin)?;
    let snapshot = times(history, StatementRef::new(at.txn(), first)).map(|(s, _)| s);
    Some(snapshot.map_or(sent, |s| s.min(sent)))
}

/// Whether writes find their rows in a snapshot older than the statement.
fn writes_on_snapshot(semantics: &LevelSemantics, point: SnapshotPoint) -> bool {
    semantics.write_reads == WriteReads::Snapshot && point != SnapshotPoint::PerStatement
}

/// The rule of `semantics` that lets a write miss the other transaction's
/// change, if any: `waited` when the write waited for that transaction.
fn rule_for(
    statement: &Statement,
    semantics: &LevelSemantics,
    snapshot_writes: bool,
    waited: bool,
) -> Option<Rule> {
    let is_update = matches!(statement, Statement::Update(_));
    if semantics.semi_consistent_writes && is_update {
        return Some(Rule::SemiConsistentRead);
    }
    if waited {
        match semantics.after_wait {
            AfterWait::RecheckChanged => return Some(Rule::RecheckAfterWait),
            AfterWait::LatestRows if !semantics.predicate_conflicts => {
                return Some(Rule::PhantomBehindAWait)
            }
            _ => {}
        }
    }
    if semantics.predicate_conflicts {
        return None;
    }
    Some(if snapshot_writes {
        Rule::ChangeAfterSnapshotNotSeen
    } else {
        Rule::UncommittedChangeNotSeen
    })
}

/// Every write of the run that evaluated its rows while another transaction
/// that writes the same table had not committed (or committed after the
/// write's snapshot), at a level whose weakness (`weak`) is a rule that lets
/// the write miss that transaction's changes: its changes made before the
/// write ran (skipped, not waited for) and after it (no range lock made them
/// wait), which the serial run puts before the write when that transaction
/// commits first. Reads are left out: WSS constrains writes only.
pub fn exposures(
    case: &TestCase,
    history: &History,
    dialect: &DialectInfo,
    weak: &[Weakness],
) -> Vec<Exposure> {
    let weak_at = |level: IsolationLevel| weak.iter().any(|w| w.level == level && w.by_rule());
    // Only a transaction the serial run puts first can have changes the
    // write should have seen: one that committed before the write's own.
    let committed_first = |u: usize, t: usize| {
        let order = history.end_order();
        let position = |x: usize| order.iter().position(|&y| y == x);
        history.transactions[u].end == TxnEnd::Committed
            && matches!((position(u), position(t)), (Some(pu), Some(pt)) if pu < pt)
    };
    let mut out = Vec::new();
    for (t, txn) in case.transactions.iter().enumerate() {
        let Some(semantics) = dialect.level(txn.isolation) else {
            continue;
        };
        if !weak_at(txn.isolation) {
            continue;
        }
        let snapshot_writes = writes_on_snapshot(semantics, txn.snapshot_point(semantics));
        for (s, statement) in txn.statements.iter().enumerate() {
            let at = StatementRef::new(t, s);
            if !statement.is_write() {
                continue;
            }
            let Some(table) = statement.table() else {
                continue;
            };
            let Some(record) = history.record(at) else {
                continue;
            };
            let Some(from) = evaluates_from(case, history, at, semantics) else {
                continue;
            };
            // It waited for the transaction whose end let it go on, as the
            // executor recorded it, else the one that ended while it waited.
            let blocked = record.blocked.as_ref();
            let resumed_by = blocked.and_then(|b| b.resumed_after).map(StatementRef::txn);
            let wait = blocked.and(times(history, at));
            for (u, other) in case.transactions.iter().enumerate() {
                if u == t || !committed_first(u, t) {
                    continue;
                }
                // The other transaction's change is out of sight while it is
                // not committed, or committed after the write's snapshot.
                let other_ended = history.transactions[u].ended_us;
                if other_ended.is_some_and(|end| end <= from) {
                    continue;
                }
                let waited = match resumed_by {
                    Some(v) => v == u,
                    None => wait.is_some_and(|(sent, replied)| {
                        other_ended.is_some_and(|end| sent < end && end <= replied)
                    }),
                };
                let Some(rule) = rule_for(statement, semantics, snapshot_writes, waited) else {
                    continue;
                };
                let other_write = other.statements.iter().enumerate().find_map(|(i, x)| {
                    let x_at = StatementRef::new(u, i);
                    let sent = times(history, x_at).is_some();
                    (sent && x.is_write() && x.table() == Some(table)).then_some(x_at)
                });
                if let Some(other_write) = other_write {
                    out.push(Exposure {
                        write: at,
                        table: table.to_string(),
                        other_write,
                        rule,
                        level: txn.isolation,
                    });
                }
            }
        }
    }
    out
}

/// Whether one of the runs refused the statement because its transaction
/// had already failed (SQLSTATE 25P02 on PostgreSQL).
fn in_aborted_transaction(outcome: &crate::compare::OutcomeDiff) -> bool {
    [&outcome.serial, &outcome.concurrent].iter().any(|o| {
        o.error()
            .is_some_and(|e| e.class == ErrorClass::TransactionAborted)
    })
}

/// Puts each difference down to an exposure: a table that differs to a
/// write on it that missed a change; a write whose outcome differs to
/// itself, or to a write on the same table sent before it replied (of its
/// own transaction or another), which left that table other rows to act on.
pub fn explain(
    case: &TestCase,
    history: &History,
    differences: &[&Differences],
    exposures: &[Exposure],
) -> Explanation {
    let mut used: Vec<Exposure> = Vec::new();
    let mut unexplained = Vec::new();
    let mut take = |e: &Exposure| {
        if !used.contains(e) {
            used.push(e.clone());
        }
    };
    let sent = |at: StatementRef| times(history, at).map(|(sent, _)| sent);
    let replied = |at: StatementRef| times(history, at).map(|(_, replied)| replied);
    for d in differences {
        for table in &d.tables {
            let on_table: Vec<&Exposure> = exposures
                .iter()
                .filter(|e| e.table == table.table)
                .collect();
            if on_table.is_empty() {
                unexplained.push(format!(
                    "table `{}` differs, and no write on it missed another transaction's change",
                    table.table
                ));
            }
            on_table.into_iter().for_each(&mut take);
        }
        // The exposures behind a statement's own outcome: itself, or a write
        // on its table sent before it replied.
        let own = |at: StatementRef| -> Vec<&Exposure> {
            let table = case.statement(at).and_then(Statement::table);
            exposures
                .iter()
                .filter(|e| {
                    e.write == at
                        || (Some(e.table.as_str()) == table
                            && matches!((sent(e.write), replied(at)), (Some(s), Some(r)) if s < r))
                })
                .collect()
        };
        for outcome in &d.outcomes {
            let at = outcome.at;
            let mut behind = own(at);
            if behind.is_empty() && in_aborted_transaction(outcome) {
                // One run ended the transaction at an earlier statement whose
                // outcome differs (PostgreSQL aborts a transaction at any
                // error): this statement's outcome follows from that one's,
                // and so does its explanation.
                behind = d
                    .outcomes
                    .iter()
                    .filter(|o| o.at.txn() == at.txn() && o.at.stmt() < at.stmt())
                    .flat_map(|o| own(o.at))
                    .collect();
            }
            if behind.is_empty() {
                let line = format!(
                    "the outcome of `{at}` ({}) differs, and neither it nor a write on its table before it missed another transaction's change",
                    case.kind_name(at)
                );
                if !unexplained.contains(&line) {
                    unexplained.push(line);
                }
            }
            behind.into_iter().for_each(&mut take);
        }
    }
    used.sort_by_key(|e| (e.write, e.other_write));
    Explanation { used, unexplained }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{OutcomeDiff, OutcomeDiffKind};
    use txlab_testkit::build::*;
    use txlab_testkit::concurrent_history;

    fn failed(class: ErrorClass, sqlstate: &str) -> Outcome {
        Outcome::Error(DbError {
            class,
            scope: ErrorScope::Transaction,
            code: None,
            sqlstate: Some(sqlstate.into()),
            message: String::new(),
        })
    }

    /// PostgreSQL (campaign on 17.12, postgres-17 seed 2026120201 case 3243):
    /// T2's UPDATE missed T1's uncommitted rows (no predicate lock) and
    /// affected none; serially it collides with a key and PostgreSQL aborts
    /// the transaction, so T2's next write fails with "current transaction
    /// is aborted" (25P02) there. That second difference follows from the
    /// first and has its explanation, not a finding of its own.
    #[test]
    fn a_write_refused_because_an_earlier_difference_aborted_its_transaction_shares_its_explanation(
    ) {
        let t = table(
            "t",
            vec![col("id", ColumnType::Int), col("v", ColumnType::Int)],
            &["id"],
        );
        let u = table("u", vec![col("b", ColumnType::Int)], &[]);
        let case = case_of(
            Schema { tables: vec![t, u] },
            vec![],
            vec![
                explicit(
                    IsolationLevel::ReadCommitted,
                    vec![
                        Statement::Begin,
                        insert(
                            "t",
                            &["id", "v"],
                            vec![vec![Value::Int(2), Value::Int(8)]],
                            OnConflict::Error,
                        ),
                        Statement::Commit,
                    ],
                ),
                explicit(
                    IsolationLevel::ReadCommitted,
                    vec![
                        Statement::Begin,
                        update("t", vec![("v", int(8))], None),
                        delete("u", None),
                        Statement::Commit,
                    ],
                ),
            ],
        );
        // T1.1 T1.2 T2.1 T2.2 T1.3 (COMMIT) T2.3 T2.4
        let history = concurrent_history(&case, &[0, 0, 1, 1, 0, 1, 1])
            .outcomes([
                (StatementRef::new(0, 1), Outcome::Affected { rows: 1 }),
                (StatementRef::new(1, 1), Outcome::Affected { rows: 0 }),
                (StatementRef::new(1, 2), Outcome::Affected { rows: 0 }),
            ])
            .build();
        let differences = Differences {
            tables: vec![],
            outcomes: vec![
                OutcomeDiff {
                    at: StatementRef::new(1, 1),
                    kind: OutcomeDiffKind::SucceededOnlyConcurrently,
                    concurrent: Outcome::Affected { rows: 0 },
                    serial: failed(ErrorClass::Constraint, "23505"),
                },
                OutcomeDiff {
                    at: StatementRef::new(1, 2),
                    kind: OutcomeDiffKind::SucceededOnlyConcurrently,
                    concurrent: Outcome::Affected { rows: 0 },
                    serial: failed(ErrorClass::TransactionAborted, "25P02"),
                },
            ],
        };
        let exposure = Exposure {
            write: StatementRef::new(1, 1),
            table: "t".into(),
            other_write: StatementRef::new(0, 1),
            rule: Rule::UncommittedChangeNotSeen,
            level: IsolationLevel::ReadCommitted,
        };
        let explained = explain(
            &case,
            &history,
            &[&differences],
            std::slice::from_ref(&exposure),
        );
        assert!(explained.unexplained.is_empty(), "{explained:?}");
        assert_eq!(explained.used, vec![exposure.clone()]);
        // A refusal with no earlier difference in its transaction stays
        // unexplained.
        let alone = Differences {
            tables: vec![],
            outcomes: vec![differences.outcomes[1].clone()],
        };
        let explained = explain(&case, &history, &[&alone], &[exposure]);
        assert_eq!(explained.unexplained.len(), 1, "{explained:?}");
    }
}
