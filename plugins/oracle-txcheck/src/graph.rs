//! The statement dependency graph (§2 of the paper): which unit must come
//! before which, read off the versions the units' reads returned and the
//! versions their writes installed.
//!
//! Item dependencies are exact (Lemmas 1–3): a unit that read a version
//! depends on the unit that installed it (read, or write when the read is the
//! before-write read), and a unit that overwrote a version depends on every
//! unit that read it (anti). Predicate dependencies over-approximate (Lemmas
//! 4–7): version-set reads stand for what a predicate may have looked at, and
//! an INSERT (a DELETE) a version-set read of its table did not see (still
//! saw none of) orders the two. Extra edges cost only sortability, never
//! correctness: every topological order of a supergraph is one of the graph.

use crate::instrument::KeyColumns;
use crate::units::{Role, Unit};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use txlab_plugin_api::prelude::*;

/// A row version: (item key, version key).
pub type Version = (i64, i64);

/// The seven statement dependencies of the paper (Definitions 2–8), as this
/// oracle infers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dependency {
    /// S_j read a version S_i installed.
    ItemRead,
    /// S_j overwrote a version S_i installed.
    ItemWrite,
    /// S_j overwrote a version S_i read.
    ItemAnti,
    /// S_j, a read, has in its version set a version S_i installed (or S_i
    /// deleted rows S_j's version set no longer holds).
    PredicateRead,
    /// S_j, a write, has in its version set a version S_i installed; or S_j
    /// overwrote a version the version set of S_i, a write, held.
    PredicateWrite,
    /// S_j overwrote a version the version set of S_i, a read, held, or
    /// inserted a row it did not hold.
    PredicateAnti,
    /// S_j's values read a version S_i installed, through a subquery
    /// (INSERT … VALUES ((SELECT …)), SET c = (SELECT …)): the version-set
    /// read of a table the values read holds it.
    ValueWrite,
}

impl fmt::Display for Dependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dependency::ItemRead => "item-read",
            Dependency::ItemWrite => "item-write",
            Dependency::ItemAnti => "item-anti",
            Dependency::PredicateRead => "predicate-read",
            Dependency::PredicateWrite => "predicate-write",
            Dependency::PredicateAnti => "predicate-anti",
            Dependency::ValueWrite => "value-write",
        })
    }
}

/// Who installed a version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Installer {
    Initial,
    /// A unit, by its index in the unit list.
    Unit(usize),
}

/// What the units' statements returned, as versions.
#[derive(Debug, Default)]
pub struct Observed {
    /// Per unit: the versions each of its reads returned, with its role and
    /// the table it read.
    pub reads: Vec<Vec<(Role, String, BTreeSet<Version>)>>,
    /// Per unit: the versions its after-write read returned.
    pub installed: Vec<BTreeSet<Version>>,
    /// Per unit: the versions its before-write read returned, when its
    /// statement succeeded (a failed write overwrote nothing).
    pub overwritten: Vec<BTreeSet<Version>>,
    /// Per unit: the items it removed (deleted, or replaced by a new row).
    pub removed: Vec<BTreeSet<i64>>,
    /// Who installed each version, the initial rows included.
    pub installer: BTreeMap<Version, Installer>,
}

/// The item and version keys of every row `outcome` returned; `Err` when the
/// columns are missing or not integers.
pub fn versions_of(outcome: &Outcome, keys: &KeyColumns) -> Result<BTreeSet<Version>, String> {
    let Outcome::Rows { columns, rows } = outcome else {
        return Ok(BTreeSet::new());
    };
    // A driver may name no columns for an empty result.
    if rows.is_empty() {
        return Ok(BTreeSet::new());
    }
    let find = |name: &str| {
        columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
            .ok_or_else(|| format!("the result has no column `{name}`"))
    };
    let (i, v) = (find(&keys.item)?, find(&keys.version)?);
    rows.iter()
        .map(|row| match (&row[i], &row[v]) {
            (Value::Int(item), Value::Int(version)) => Ok((*item, *version)),
            (a, b) => Err(format!("a row with item key {a:?} and version key {b:?}")),
        })
        .collect()
}

/// Reads every unit's outputs. `keys` gives each unit's table's columns.
pub fn observe(
    case: &TestCase,
    history: &History,
    units: &[Unit],
    keys: &dyn Fn(&str) -> Option<KeyColumns>,
) -> Result<Observed, String> {
    let mut observed = Observed::default();
    for rows in &case.initial_rows {
        let k = keys(&rows.table).ok_or_else(|| format!("no keys for `{}`", rows.table))?;
        let pos = |name: &str| rows.columns.iter().position(|c| *c == name);
        let (Some(i), Some(v)) = (pos(&k.item), pos(&k.version)) else {
            return Err(format!(
                "the initial rows of `{}` lack the keys",
                rows.table
            ));
        };
        for row in &rows.rows {
            if let (Value::Int(item), Value::Int(version)) = (&row[i], &row[v]) {
                observed
                    .installer
                    .insert((*item, *version), Installer::Initial);
            }
        }
    }
    for (u, unit) in units.iter().enumerate() {
        let mut reads = Vec::new();
        let mut installed = BTreeSet::new();
        let mut overwritten = BTreeSet::new();
        for &(at, role) in &unit.members {
            let record = history.record(at).ok_or("the history lacks a statement")?;
            let Some(Statement::Select(select)) = case.statement(at) else {
                continue;
            };
            let table = select.table.clone();
            let k = keys(&table).ok_or_else(|| format!("no keys for `{table}`"))?;
            let seen = versions_of(&record.outcome, &k).map_err(|e| format!("{at}: {e}"))?;
            match role {
                Role::AfterWrite => {
                    for &version in &seen {
                        observed.installer.insert(version, Installer::Unit(u));
                    }
                    installed = seen;
                }
                Role::BeforeWrite => {
                    overwritten = seen.clone();
                    reads.push((role, table, seen));
                }
                _ => reads.push((role, table, seen)),
            }
        }
        let failed = history
            .record(unit.main)
            .is_some_and(|r| r.outcome.error().is_some());
        if failed {
            // A write that failed overwrote nothing: its before-write read
            // is a plain read of the versions it found.
            overwritten.clear();
            for (role, _, _) in reads.iter_mut() {
                if *role == Role::BeforeWrite {
                    *role = Role::Statement;
                }
            }
        }
        let reinstalled: BTreeSet<i64> = installed.iter().map(|v| v.0).collect();
        observed.removed.push(
            overwritten
                .iter()
                .map(|v| v.0)
                .filter(|item| !reinstalled.contains(item))
                .collect(),
        );
        observed.reads.push(reads);
        observed.installed.push(installed);
        observed.overwritten.push(overwritten);
    }
    Ok(observed)
}

/// The graph over the units of committed transactions, with every inferred
/// dependency on its edge.
pub struct Sdg {
    pub graph: DiGraph<usize, BTreeSet<Dependency>>,
    pub node: BTreeMap<usize, NodeIndex>,
}

impl Sdg {
    fn add(&mut self, from: usize, to: usize, kind: Dependency) {
        if from == to {
            return;
        }
        let (Some(&a), Some(&b)) = (self.node.get(&from), self.node.get(&to)) else {
            return;
        };
        match self.graph.find_edge(a, b) {
            Some(e) => {
                self.graph[e].insert(kind);
            }
            None => {
                self.graph.add_edge(a, b, BTreeSet::from([kind]));
            }
        }
    }

    /// The dependencies from unit `from` to unit `to`.
    pub fn edge(&self, from: usize, to: usize) -> Option<&BTreeSet<Dependency>> {
        let e = self.graph.find_edge(self.node[&from], self.node[&to])?;
        Some(&self.graph[e])
    }
}

/// When things happened in the run, for the dependencies that only the
/// order of events can give.
pub struct Timing<'a> {
    /// A statement's position in the actual execution order.
    pub completed: &'a dyn Fn(StatementRef) -> Option<usize>,
    /// Locking reads that read the latest committed rows when they ran
    /// (their version-set read is the snapshot, possibly older): they are
    /// ordered after every transaction that committed before the read
    /// completed and before every other, among the writers of their table.
    pub read_at_end: &'a BTreeSet<usize>,
    /// Where each transaction's end (COMMIT) completed.
    pub ended: &'a dyn Fn(usize) -> Option<usize>,
}

/// The tables the values a statement writes read: through subqueries, an
/// INSERT's rows and an UPDATE's assignments; every table an INSERT …
/// SELECT's query reads.
fn value_tables(statement: &Statement) -> Vec<String> {
    let exprs: Vec<&Expr> = match statement {
        Statement::Insert(insert) => insert.rows.iter().flatten().collect(),
        Statement::Update(update) => update.assignments.iter().map(|a| &a.value).collect(),
        Statement::InsertSelect(insert) => {
            return insert
                .query
                .tables()
                .into_iter()
                .map(str::to_string)
                .collect()
        }
        _ => Vec::new(),
    };
    exprs
        .into_iter()
        .flat_map(|e| e.tables())
        .map(str::to_string)
        .collect()
}

/// Builds the graph over `included` units (those of committed transactions).
pub fn build(
    units: &[Unit],
    case: &TestCase,
    observed: &Observed,
    included: &[usize],
    timing: &Timing<'_>,
) -> Sdg {
    let completed = timing.completed;
    let mut sdg = Sdg {
        graph: DiGraph::new(),
        node: BTreeMap::new(),
    };
    for &u in included {
        let n = sdg.graph.add_node(u);
        sdg.node.insert(u, n);
    }
    let kind_of = |u: usize| case.statement(units[u].main);
    let is_write = |u: usize| kind_of(u).is_some_and(Statement::is_write);
    let is_insert = |u: usize| {
        matches!(
            kind_of(u),
            Some(Statement::Insert(_) | Statement::InsertSelect(_))
        )
    };
    // Who read each version, with the role of the read.
    let mut readers: BTreeMap<Version, Vec<(usize, Role, &str)>> = BTreeMap::new();
    for &u in included {
        for (role, table, seen) in &observed.reads[u] {
            if *role == Role::VersionSet && timing.read_at_end.contains(&u) {
                continue;
            }
            for &v in seen {
                readers
                    .entry(v)
                    .or_default()
                    .push((u, *role, table.as_str()));
            }
        }
    }
    // The tables a write's values read through subqueries.
    let value_tables: BTreeMap<usize, Vec<String>> = included
        .iter()
        .map(|&u| {
            (
                u,
                case.statement(units[u].main)
                    .map(value_tables)
                    .unwrap_or_default(),
            )
        })
        .collect();
    let mut overwriters: BTreeMap<Version, Vec<usize>> = BTreeMap::new();
    for &u in included {
        for &v in &observed.overwritten[u] {
            overwriters.entry(v).or_default().push(u);
        }
    }
    for (&v, list) in &readers {
        // Read and write dependencies: the installer comes first.
        if let Some(Installer::Unit(i)) = observed.installer.get(&v) {
            for &(u, role, table) in list {
                let kind = match role {
                    Role::BeforeWrite => Dependency::ItemWrite,
                    Role::VersionSet if value_tables[&u].iter().any(|t| t == table) => {
                        Dependency::ValueWrite
                    }
                    Role::VersionSet if is_write(u) => Dependency::PredicateWrite,
                    Role::VersionSet => Dependency::PredicateRead,
                    _ => Dependency::ItemRead,
                };
                sdg.add(*i, u, kind);
            }
        }
        // Anti dependencies: whoever read a version comes before whoever
        // overwrote it.
        for &w in overwriters.get(&v).into_iter().flatten() {
            for &(r, role, _) in list {
                let kind = match role {
                    Role::Statement => Dependency::ItemAnti,
                    Role::VersionSet if is_write(r) => Dependency::PredicateWrite,
                    Role::VersionSet => Dependency::PredicateAnti,
                    // Two writers of one version: the write dependencies
                    // through the installer already order them.
                    Role::BeforeWrite | Role::AfterWrite => continue,
                };
                sdg.add(r, w, kind);
            }
        }
    }
    // Rows inserted or removed, against every version set of their table.
    let read_at = |r: usize| {
        units[r]
            .with_role(Role::VersionSet)
            .next()
            .and_then(completed)
    };
    let installed_at = |i: usize| {
        units[i]
            .with_role(Role::AfterWrite)
            .next()
            .and_then(completed)
    };
    for &w in included {
        let inserted: BTreeSet<i64> = if is_insert(w) {
            observed.installed[w].iter().map(|v| v.0).collect()
        } else {
            BTreeSet::new()
        };
        let removed = &observed.removed[w];
        if inserted.is_empty() && removed.is_empty() {
            continue;
        }
        for &r in included {
            if r == w || timing.read_at_end.contains(&r) {
                continue;
            }
            for (role, table, seen) in &observed.reads[r] {
                if *role != Role::VersionSet || *table != units[w].table {
                    continue;
                }
                let saw = |items: &BTreeSet<i64>| seen.iter().any(|v| items.contains(&v.0));
                if !inserted.is_empty() && !saw(&inserted) {
                    // The version set did not hold the new rows: it came
                    // before the INSERT, or after a removal of them. Either
                    // order gives the read the same rows; the one the run
                    // took keeps the graph free of cycles it did not have.
                    let removed_before = included.iter().copied().find(|&d| {
                        d != r
                            && observed.removed[d].iter().any(|i| inserted.contains(i))
                            && completed(units[d].main)
                                .zip(read_at(r))
                                .is_some_and(|(del, read)| del < read)
                    });
                    match removed_before {
                        Some(d) => sdg.add(d, r, Dependency::PredicateRead),
                        None => sdg.add(r, w, Dependency::PredicateAnti),
                    }
                }
                if !removed.is_empty() && !saw(removed) {
                    // The rows were gone already, or not there yet: only
                    // when they were installed before the read did the
                    // removal come first (else the INSERT's edge orders them).
                    let there_before =
                        observed.overwritten[w]
                            .iter()
                            .any(|v| match observed.installer.get(v) {
                                Some(Installer::Unit(i)) => installed_at(*i)
                                    .zip(read_at(r))
                                    .is_some_and(|(installed, read)| installed < read),
                                _ => true,
                            });
                    if there_before {
                        sdg.add(w, r, Dependency::PredicateRead);
                    }
                }
            }
        }
    }
    // Locking reads of the latest committed rows: after what committed
    // before them, before the rest.
    for &r in timing.read_at_end {
        let done = completed(units[r].main);
        for &w in included {
            let writes = !observed.installed[w].is_empty() || !observed.removed[w].is_empty();
            if w == r || units[w].table != units[r].table || !writes {
                continue;
            }
            let before = if units[w].txn == units[r].txn {
                units[w].main.stmt() < units[r].main.stmt()
            } else {
                (timing.ended)(units[w].txn)
                    .zip(done)
                    .is_some_and(|(end, read)| end < read)
            };
            if before {
                sdg.add(w, r, Dependency::PredicateRead);
            } else {
                sdg.add(r, w, Dependency::PredicateAnti);
            }
        }
    }
    sdg
}
