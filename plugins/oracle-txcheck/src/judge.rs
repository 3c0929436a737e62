//! From a run to a verdict: the checks TxCheck needs before it may sort
//! (the run was fully observed, every unit ran as one block, no read saw a
//! version no committed write installed, every write overwrote what its
//! before-write read saw), then the graph, the order, the run without
//! transactions and the comparison.

use crate::classify::classify;
use crate::config::TxcheckConfig;
use crate::explain::{finding, label, semantics, MODEL};
use crate::graph::{self, Installer, Observed, Sdg, Version};
use crate::instrument::{insert_select_keys, key_columns};
use crate::replay::{compare_states, replay, same_outcome};
use crate::units::{first_split, units, Role, Unit};
use petgraph::algo::tarjan_scc;
use petgraph::Direction;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use txlab_plugin_api::prelude::*;

fn undecided(reason: impl Into<String>) -> Verdict {
    Verdict::Undecided {
        reason: reason.into(),
    }
}

/// What one run tells.
#[derive(Debug)]
pub enum Judged {
    Decided(Verdict),
    /// The run cannot be judged as it ran, because of one unit (it waited
    /// inside its added reads, read newer rows than they show, or closes a
    /// cycle): TxCheck runs the case again without it (decycling, Fig. 11).
    Without {
        unit: Unit,
        reason: String,
    },
}

impl From<Verdict> for Judged {
    fn from(v: Verdict) -> Self {
        Judged::Decided(v)
    }
}

fn without(unit: &Unit, reason: String) -> Judged {
    Judged::Without {
        unit: unit.clone(),
        reason,
    }
}

/// What one run tells: a verdict, or the unit to run the case again without.
pub fn judge_run(
    case: &TestCase,
    history: &History,
    dialect: &DialectInfo,
    config: &TxcheckConfig,
    db: &mut dyn HostDb,
) -> Result<Judged, PluginError> {
    if let Some(reason) = history.unobserved_reasons(case).into_iter().next() {
        return Ok(undecided(reason).into());
    }
    for &at in &case.submitted_order {
        if let Err(why) = insert_select_keys(case, at) {
            return Ok(undecided(format!(
                "{} is an INSERT … SELECT whose rows get no item keys of their own: {why}",
                label(case, at)
            ))
            .into());
        }
    }
    for (t, txn) in case.transactions.iter().enumerate() {
        let dirty = dialect
            .level(txn.isolation)
            .is_none_or(|l| l.snapshot == SnapshotPoint::None);
        if dirty {
            return Ok(undecided(format!(
                "{} runs at {}, where {} reads may see uncommitted rows; TxCheck's added reads show what a statement saw only where dirty reads are impossible",
                txn_label(t),
                txn.isolation,
                dialect.name
            ))
            .into());
        }
        if txn.kind == TxnKind::Autocommit && txn.statements.iter().any(|s| s.table().is_some()) {
            return Ok(undecided(format!(
                "{} is an autocommit statement, so the reads added around it run as transactions of their own",
                txn_label(t)
            ))
            .into());
        }
    }
    let units = units(case, config).map_err(PluginError::invalid_input)?;
    let committed: Vec<usize> = (0..units.len())
        .filter(|&u| history.transactions[units[u].txn].end == TxnEnd::Committed)
        .collect();
    for &u in &committed {
        for at in units[u].refs() {
            if let Some(e) = history.record(at).and_then(|r| r.outcome.error()) {
                if e.class.is_concurrency() {
                    return Ok(without(
                        &units[u],
                        format!(
                            "{} failed with {} and its transaction went on to commit; run without transactions it cannot fail so",
                            label(case, at),
                            e.class
                        ),
                    ));
                }
            }
        }
    }
    let keys = |table: &str| {
        case.schema
            .table(table)
            .and_then(|t| key_columns(t, config))
    };
    let observed =
        graph::observe(case, history, &units, &keys).map_err(PluginError::invalid_input)?;
    if let Some(verdict) = versions_nobody_installed(case, &units, &committed, &observed, dialect) {
        return Ok(verdict.into());
    }
    let chains = version_chains(history, &units, &committed, &observed);
    let read_at_end = match units_as_one_block(
        case, history, &units, &committed, &observed, &chains, dialect,
    ) {
        Ok(units) => units,
        Err(judged) => return Ok(*judged),
    };
    let completed = |at: StatementRef| history.completion_order.iter().position(|x| *x == at);
    let ended = |t: usize| {
        history
            .completion_order
            .iter()
            .rposition(|x| x.txn() == t && case.statement(*x).is_some_and(Statement::is_end))
    };
    let timing = graph::Timing {
        completed: &completed,
        read_at_end: &read_at_end,
        ended: &ended,
    };
    let sdg = graph::build(&units, case, &observed, &committed, &timing);
    if let Some(cycle) = a_cycle(&sdg) {
        // Not sortable; the transactions' dependencies may still show an
        // anomaly a model forbids (never a TxCheck finding of its own).
        if let Some(verdict) = classify(
            case,
            history,
            &units,
            &observed,
            &chains,
            dialect,
            config.findings,
        ) {
            return Ok(verdict.into());
        }
        let path: Vec<String> = cycle.iter().map(|&u| label(case, units[u].main)).collect();
        let u = most_connected(&sdg, &cycle);
        return Ok(without(
            &units[u],
            format!(
                "the statement dependency graph has a cycle ({}), which cannot be sorted",
                path.join(" → ")
            ),
        ));
    }
    let order = topological_order(&sdg, case.seed);
    let replayed = replay(db, case, &units, &order)?;
    let mut differing = Vec::new();
    for &u in &order {
        for (at, role) in units[u].members.iter().copied() {
            // A version-set read taken before the unit waited shows an older
            // state than its place in the order.
            if role == Role::VersionSet && read_at_end.contains(&u) {
                continue;
            }
            let transactional = &history.record(at).expect("shape checked").outcome;
            let alone = &replayed.outcomes[&at];
            if !same_outcome(transactional, alone) {
                differing.push((at, transactional.clone(), alone.clone()));
            }
        }
    }
    let final_state = history.final_state.as_ref().expect("unobserved checked");
    let mut transactional_state = final_state.clone();
    transactional_state.canonicalize();
    let tables = compare_states(&transactional_state, &replayed.state);
    if differing.is_empty() && tables.is_empty() {
        return Ok(Verdict::Pass.into());
    }
    if let Some(at) = differing
        .iter()
        .find(|(at, t, a)| case.row_order_collision(&dialect.engine, *at, t, a))
        .map(|(at, _, _)| *at)
    {
        return Ok(undecided(format!(
            "{} changes a key column of several rows: it succeeded in one run and collided with a key in the other, which depends on the order the DBMS visits the rows (unique keys are checked row by row), not on isolation",
            label(case, at)
        ))
        .into());
    }
    // An INSERT IGNORE / REPLACE … SELECT whose source rows collide with
    // each other on a key keeps the first or the last of them: which one
    // depends on the order the DBMS visits the source rows (its plan and the
    // table's layout), not on isolation.
    if let Some(u) = order.iter().copied().find(|&u| {
        let unit = &units[u];
        let ignores = matches!(case.statement(unit.main),
            Some(Statement::InsertSelect(i)) if i.on_conflict != OnConflict::Error);
        let counted_alike = history
            .record(unit.main)
            .is_some_and(|r| same_outcome(&r.outcome, &replayed.outcomes[&unit.main]));
        ignores
            && counted_alike
            && differing
                .iter()
                .any(|(at, _, _)| unit.refs().any(|m| m == *at))
    }) {
        return Ok(undecided(format!(
            "{} inserted as many rows in both runs but not the same ones: its source rows collide on a key, and which of them it keeps depends on the order the DBMS visits them, not on isolation",
            label(case, units[u].main)
        ))
        .into());
    }
    Ok(Verdict::Finding(finding(
        case, &units, &order, &sdg, &differing, &tables, dialect,
    ))
    .into())
}

/// A committed read returned a version that no statement installed, or that
/// only an aborted transaction did.
fn versions_nobody_installed(
    case: &TestCase,
    units: &[Unit],
    committed: &[usize],
    observed: &Observed,
    dialect: &DialectInfo,
) -> Option<Verdict> {
    for &u in committed {
        for (role, _, seen) in &observed.reads[u] {
            for &v in seen {
                let reader = units[u].main;
                let what = match observed.installer.get(&v) {
                    None => "no statement installed",
                    Some(Installer::Unit(i))
                        if !committed.contains(i) && units[*i].txn != units[u].txn =>
                    {
                        "only an aborted transaction installed"
                    }
                    _ => continue,
                };
                let title = format!(
                    "a read returned a row version {what}: {} saw item {} at version {}",
                    label(case, reader),
                    v.0,
                    v.1
                );
                return Some(Verdict::Finding(Finding {
                    title,
                    signature: format!("a read of a version {what}"),
                    model: MODEL.to_string(),
                    assumed_semantics: semantics(case, dialect),
                    explanation: format!(
                        "Every row version carries the version key of the statement that wrote it, and each write's after-write read shows the versions it installed. The {} read of {} returned item {} with version {}, which {what}: a committed transaction saw data that no committed write produced (an aborted transaction's write, or a row the DBMS made up).",
                        role_name(*role),
                        label(case, reader),
                        v.0,
                        v.1
                    ),
                    summary: format!(
                        "every row version a committed transaction reads must come from a committed write; here `{reader}` {} returned item {} at version {}, which {what}",
                        case.statement(reader).map_or("?", Statement::kind_name),
                        v.0,
                        v.1
                    ),
                    evidence: json!({ "reader": reader.to_string(), "item": v.0, "version": v.1 }),
                    files: Vec::new(),
                }));
            }
        }
    }
    None
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::VersionSet => "version-set",
        Role::BeforeWrite => "before-write",
        Role::Statement => "statement's own",
        Role::AfterWrite => "after-write",
    }
}

/// Each item's committed versions in the order they were installed: the
/// initial version, then in the order the installing statements' after-write
/// reads completed (the DBMS serializes the writers of a row), each with
/// that position.
pub(crate) fn version_chains(
    history: &History,
    units: &[Unit],
    committed: &[usize],
    observed: &Observed,
) -> BTreeMap<i64, Vec<(usize, Version)>> {
    let position = |at: StatementRef| history.completion_order.iter().position(|x| *x == at);
    let mut chains: BTreeMap<i64, Vec<(usize, Version)>> = BTreeMap::new();
    for (&v, installer) in &observed.installer {
        let at = match installer {
            // An aborted transaction's versions are no link of the chain.
            Installer::Unit(u) if !committed.contains(u) => continue,
            Installer::Initial => 0,
            Installer::Unit(u) => units[*u]
                .with_role(Role::AfterWrite)
                .next()
                .and_then(position)
                .map_or(usize::MAX, |p| p + 1),
        };
        chains.entry(v.0).or_default().push((at, v));
    }
    for chain in chains.values_mut() {
        chain.sort();
    }
    chains
}

/// Where a write did something other than its before-write read (a plain
/// SELECT with the same WHERE right before it) shows: an UPDATE must write
/// exactly the rows it returned, over the versions it returned, and a DELETE
/// must remove exactly those rows, at the versions that were the latest when
/// it completed. Empty when they agree, and for statements that failed or
/// have no before-write read.
#[allow(clippy::too_many_arguments)]
fn past_the_read(
    case: &TestCase,
    history: &History,
    units: &[Unit],
    u: usize,
    committed: &[usize],
    observed: &Observed,
    chains: &BTreeMap<i64, Vec<(usize, Version)>>,
) -> Vec<String> {
    let unit = &units[u];
    let record = history.record(unit.main).expect("shape checked");
    if record.outcome.error().is_some() {
        return Vec::new();
    }
    let before: BTreeMap<i64, i64> = observed.overwritten[u].iter().copied().collect();
    let mut past = Vec::new();
    match case.statement(unit.main) {
        Some(Statement::Update(_)) => {
            let after: BTreeSet<i64> = observed.installed[u].iter().map(|v| v.0).collect();
            for (&item, &seen) in &before {
                if !after.contains(&item) {
                    past.push(format!(
                        "item {item} (read at version {seen}) was not written"
                    ));
                }
            }
            for &(item, version) in &observed.installed[u] {
                let chain = &chains[&item];
                let mine = chain.iter().position(|(_, v)| *v == (item, version));
                let replaced = mine.and_then(|i| i.checked_sub(1)).map(|i| chain[i].1 .1);
                match (before.get(&item), replaced) {
                    (None, _) => past.push(format!("item {item} was written without being read")),
                    (Some(&seen), Some(over)) if seen != over => past.push(format!(
                        "item {item} was read at version {seen} but the write replaced version {over}"
                    )),
                    _ => {}
                }
            }
        }
        Some(
            statement @ (Statement::Delete(_) | Statement::Insert(_) | Statement::InsertSelect(_)),
        ) => {
            // A REPLACE removes the rows its keys collide with; it counts
            // affected rows its own way, so only a DELETE's count is checked.
            let counted = matches!(statement, Statement::Delete(_));
            if let (true, Outcome::Affected { rows }) = (counted, &record.outcome) {
                let rows = *rows;
                if rows != before.len() as u64 {
                    past.push(format!(
                        "it deleted {rows} rows, its read returned {}",
                        before.len()
                    ));
                }
            }
            let done = history
                .completion_order
                .iter()
                .position(|x| *x == unit.main)
                .unwrap_or(usize::MAX);
            for (&item, &seen) in &before {
                if let Some(by) = removed_before(units, u, item, observed, committed, history, done)
                {
                    past.push(format!("item {item} was already removed by {by}"));
                    continue;
                }
                let latest = chains
                    .get(&item)
                    .and_then(|chain| chain.iter().rfind(|(at, _)| *at <= done).map(|(_, v)| v.1));
                if latest.is_some_and(|l| l != seen) {
                    past.push(format!(
                        "item {item} was read at version {seen} but version {} was the latest when it was deleted",
                        latest.unwrap_or_default()
                    ));
                }
            }
        }
        _ => {}
    }
    past
}

/// Another committed unit that removed `item` before position `done`.
fn removed_before(
    units: &[Unit],
    u: usize,
    item: i64,
    observed: &Observed,
    committed: &[usize],
    history: &History,
    done: usize,
) -> Option<StatementRef> {
    committed.iter().copied().find_map(|d| {
        let at = units[d].main;
        (d != u
            && observed.removed[d].contains(&item)
            && history
                .completion_order
                .iter()
                .position(|x| *x == at)
                .is_some_and(|p| p < done))
        .then_some(at)
    })
}

/// Whether the unit's version-set read shows an older state of its table
/// than the latest committed one when its statement completed: a version it
/// holds was replaced or removed by then, or another transaction's row was
/// added. A statement that reads the latest committed rows (a current read)
/// then saw rows its unit's reads do not show.
fn stale_view(
    history: &History,
    units: &[Unit],
    u: usize,
    committed: &[usize],
    observed: &Observed,
    chains: &BTreeMap<i64, Vec<(usize, Version)>>,
) -> bool {
    let unit = &units[u];
    let Some(done) = history
        .completion_order
        .iter()
        .position(|x| *x == unit.main)
    else {
        return true;
    };
    let latest = |item: i64| {
        chains
            .get(&item)
            .and_then(|chain| chain.iter().rfind(|(at, _)| *at <= done))
            .map(|(_, v)| *v)
    };
    observed.reads[u]
        .iter()
        .filter(|(role, _, _)| *role == Role::VersionSet)
        .any(|(_, table, seen)| {
            let replaced = seen.iter().any(|&(item, version)| {
                latest(item).is_some_and(|v| v.1 != version)
                    || removed_before(units, u, item, observed, committed, history, done).is_some()
            });
            let seen_items: BTreeSet<i64> = seen.iter().map(|v| v.0).collect();
            let added = committed.iter().any(|&w| {
                units[w].table == *table
                    && units[w].txn != unit.txn
                    && observed.installed[w].iter().any(|v| {
                        !seen_items.contains(&v.0)
                            && latest(v.0) == Some(*v)
                            && removed_before(units, u, v.0, observed, committed, history, done)
                                .is_none()
                    })
            });
            replaced || added
        })
}

/// A unit must stand for what its statement did. One that ran as one block
/// does, unless its write went past its read: a finding, or where the level's
/// writes read the latest committed rows while its reads read a snapshot
/// (InnoDB's REPEATABLE READ "current read"), a vendor-permitted anomaly. One
/// that waited for a lock midway (another transaction's statement completed
/// inside it) still does when its write did exactly what its read showed, or
/// it is an INSERT that put in every row; otherwise the case is undecided
/// (TxCheck runs such a case again without the statement).
fn units_as_one_block(
    case: &TestCase,
    history: &History,
    units: &[Unit],
    committed: &[usize],
    observed: &Observed,
    chains: &BTreeMap<i64, Vec<(usize, Version)>>,
    dialect: &DialectInfo,
) -> Result<BTreeSet<usize>, Box<Judged>> {
    let mut read_at_end = BTreeSet::new();
    for &u in committed {
        let unit = &units[u];
        let past = past_the_read(case, history, units, u, committed, observed, chains);
        let statement = case.statement(unit.main);
        let level = case.transactions[unit.txn].isolation;
        // Locking reads read like writes: at such a level the latest
        // committed rows when they run, not the snapshot plain reads see.
        let current_read = dialect
            .level(level)
            .is_some_and(|l| l.write_reads == WriteReads::LatestCommitted);
        let split = first_split(unit, history);
        let outcome = &history.record(unit.main).expect("shape checked").outcome;
        // Where locking reads and writes read the latest committed rows,
        // a locking read is ordered by time (its version-set read may be
        // older), and a write that failed or an INSERT (whose key check
        // read the latest rows) cannot be placed when its version-set read
        // is older than the rows it checked.
        if current_read && past.is_empty() {
            match statement {
                // One that waited read part of its rows before the wait and
                // part after (InnoDB goes on scanning where it stopped;
                // PostgreSQL re-checks only what its snapshot found): left
                // to the split rule below.
                Some(s) if s.is_locking_read() && split.is_none() && !s.has_subquery() => {
                    if read_the_latest(history, unit, u, observed, chains) {
                        read_at_end.insert(u);
                        continue;
                    }
                    return Err(Box::new(without(
                        unit,
                        format!(
                            "{} read rows that were not the latest committed ones when it completed, and its reads read the latest committed rows",
                            label(case, unit.main)
                        ),
                    )));
                }
                Some(s)
                    if ((s.is_write() && (outcome.error().is_some() || s.has_subquery()))
                        || matches!(s, Statement::Insert(_) | Statement::InsertSelect(_))
                        || s.is_locking_read())
                        && stale_view(history, units, u, committed, observed, chains) =>
                {
                    return Err(Box::new(without(
                        unit,
                        format!(
                            "{} checked keys or rows on the latest committed data, newer than what its transaction's reads show; which rows it saw is unknown",
                            label(case, unit.main)
                        ),
                    )));
                }
                _ => {}
            }
        }
        if let Some((at, intruder)) = split {
            let explained = match statement {
                Some(Statement::Update(_) | Statement::Delete(_)) => past.is_empty(),
                Some(Statement::Insert(insert)) => {
                    insert.on_conflict != OnConflict::Replace
                        && matches!(outcome, Outcome::Affected { rows } if *rows == insert.rows.len() as u64)
                }
                _ => false,
            };
            if explained {
                continue;
            }
            return Err(Box::new(without(
                unit,
                format!(
                    "{} and the reads added around {} did not run as one block: {} completed in between (a statement waited for a lock){}",
                    label(case, at),
                    label(case, unit.main),
                    label(case, intruder),
                    past.first().map(|p| format!(", and {p}")).unwrap_or_default()
                ),
            )));
        }
        if past.is_empty() {
            continue;
        }
        let at = unit.main;
        let reads_latest = dialect
            .level(level)
            .is_some_and(|l| l.write_reads == WriteReads::LatestCommitted);
        let mut finding = Finding {
            title: format!(
                "{} did not do what its before-write read with the same WHERE returned: {}",
                label(case, at),
                past[0]
            ),
            signature: "a write went past its read".to_string(),
            model: MODEL.to_string(),
            assumed_semantics: semantics(case, dialect),
            explanation: format!(
                "The before-write read, a plain SELECT with the statement's own WHERE run right before it in the same transaction with nothing in between, shows the rows and versions the write changes if it reads what the transaction's reads see. Here: {}.",
                past.join("; ")
            ),
            summary: format!(
                "`{at}` {} should change the rows and versions its before-write read with the same WHERE returned; here {}",
                case.statement(at).map_or("?", Statement::kind_name),
                past[0]
            ),
            evidence: json!({ "statement": at.to_string(), "mismatches": past }),
            files: Vec::new(),
        };
        if reads_latest {
            finding.signature =
                "current read (UPDATE/DELETE read the latest rows, SELECT the snapshot)".into();
            finding.explanation.push_str(&format!(
                "\n\nAt {level} the dialect declares that UPDATE and DELETE read the latest committed rows while plain reads read the transaction's snapshot (InnoDB's \"current read\"): a write may change rows its transaction's reads do not show. The SQL standard's model of the level forbids the lost update this allows; the vendor documents it."
            ));
            return Err(Box::new(Verdict::VendorPermitted(finding).into()));
        }
        return Err(Box::new(Verdict::Finding(finding).into()));
    }
    Ok(read_at_end)
}

/// Whether a locking read returned, for every row it returned, the latest
/// committed version when it ran (or its own transaction's): what a read of
/// the latest committed rows returns.
fn read_the_latest(
    history: &History,
    unit: &Unit,
    u: usize,
    observed: &Observed,
    chains: &BTreeMap<i64, Vec<(usize, Version)>>,
) -> bool {
    let Some(done) = history
        .completion_order
        .iter()
        .position(|x| *x == unit.main)
    else {
        return false;
    };
    if history
        .record(unit.main)
        .is_some_and(|r| r.outcome.error().is_some())
    {
        return false;
    }
    let returned = observed.reads[u]
        .iter()
        .find(|(role, _, _)| *role == Role::Statement)
        .map(|(_, _, seen)| seen);
    returned.into_iter().flatten().all(|&(item, version)| {
        chains
            .get(&item)
            .and_then(|chain| chain.iter().rfind(|(at, _)| *at <= done))
            .is_some_and(|(_, latest)| latest.1 == version)
    })
}

/// One cycle of the graph, as unit indices, if it has one.
fn a_cycle(sdg: &Sdg) -> Option<Vec<usize>> {
    let scc = tarjan_scc(&sdg.graph).into_iter().find(|c| c.len() > 1)?;
    // Walk inside the component until a node repeats.
    let inside: BTreeSet<_> = scc.iter().copied().collect();
    let mut path = vec![scc[0]];
    loop {
        let last = *path.last().expect("non-empty");
        let next = sdg
            .graph
            .neighbors_directed(last, Direction::Outgoing)
            .find(|n| inside.contains(n))
            .expect("a strongly connected component has an edge out of every node");
        if let Some(i) = path.iter().position(|n| *n == next) {
            let mut cycle: Vec<usize> = path[i..].iter().map(|n| sdg.graph[*n]).collect();
            cycle.push(sdg.graph[next]);
            return Some(cycle);
        }
        path.push(next);
    }
}

/// The unit of a cycle's strongly connected component with the most
/// dependencies in and out, ties to the later unit: the one TxCheck's
/// artifact removes to break the cycle.
fn most_connected(sdg: &Sdg, cycle: &[usize]) -> usize {
    let edges = |u: usize| {
        let n = sdg.node[&u];
        sdg.graph.neighbors_directed(n, Direction::Incoming).count()
            + sdg.graph.neighbors_directed(n, Direction::Outgoing).count()
    };
    cycle
        .iter()
        .copied()
        .max_by_key(|&u| (edges(u), u))
        .expect("a cycle has units")
}

/// Kahn's algorithm, choosing among the ready units at random (the paper's
/// Algorithm 1), seeded by the case so that a rerun sorts the same way.
fn topological_order(sdg: &Sdg, seed: u64) -> Vec<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut indegree: BTreeMap<_, usize> = sdg
        .graph
        .node_indices()
        .map(|n| {
            (
                n,
                sdg.graph.neighbors_directed(n, Direction::Incoming).count(),
            )
        })
        .collect();
    let mut ready: Vec<_> = indegree
        .iter()
        .filter(|(_, d)| **d == 0)
        .map(|(n, _)| *n)
        .collect();
    let mut order = Vec::new();
    while !ready.is_empty() {
        ready.sort_by_key(|n| sdg.graph[*n]);
        let n = ready.swap_remove(rng.gen_range(0..ready.len()));
        order.push(sdg.graph[n]);
        for m in sdg.graph.neighbors_directed(n, Direction::Outgoing) {
            let d = indegree.get_mut(&m).expect("every node counted");
            *d -= 1;
            if *d == 0 {
                ready.push(m);
            }
        }
    }
    order
}
