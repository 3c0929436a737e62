//! How fast `check` is on large synthetic histories, and how much memory it
//! takes.
//!
//! ```sh
//! cargo bench -p txlab-history --bench throughput -- 10000 100000 1000000
//! ```
//!
//! Each history is simulated: 8 sessions run transactions of 2–6 operations
//! (plain and locking reads, updates, a few deletes, 3% rollbacks) over a
//! key space of a quarter as many rows as transactions,
//! one percent of them hot (a tenth of the operations), under snapshot
//! isolation with first-committer-wins, so its only anomalies are write
//! skews. A few anomalies are injected: lost updates (5% of the commits
//! that first-committer-wins would refuse go through), stale reads (a read that misses the latest
//! version its snapshot holds, committed at most 1000 commits before the
//! snapshot; `--stale-window=N` for N commits, which with a large N joins
//! much of the history into one strongly connected component) and dirty
//! reads of a write that is then rolled back. Every transaction has exact timing, so the G-SI checks run
//! too. A last transaction reads every row.
//!
//! Printed per size: the time to build the history (simulation included)
//! and to check it (wall and CPU), transactions checked per second, the
//! resident memory before the check (`VmRSS`: mostly the history), the
//! process's peak resident memory (`VmHWM`) after it, and the anomalies by
//! phenomenon with what was injected.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Instant;
use txlab_history::*;

const SESSIONS: usize = 8;
/// By default a stale read misses a version committed at most this many
/// commits before its snapshot (`--stale-window=N` changes it).
const STALE_WINDOW: u64 = 1_000;

/// A small deterministic generator (xorshift*), so runs are repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, per_million: u64) -> bool {
        self.below(1_000_000) < per_million
    }
}

/// A row: its committed versions (writer, commit number), whether deleted.
struct Row {
    committed: Vec<(TxnId, u64)>,
    deleted: bool,
}

/// A running transaction.
struct Running {
    id: TxnId,
    snapshot: u64,
    ops_left: u32,
    next_stmt: u32,
    /// Rows written, in order, with repeats.
    writes: Vec<u64>,
    deletes: Vec<u64>,
    started: u64,
    must_abort: bool,
}

#[derive(Default)]
struct Injected {
    lost_updates: usize,
    stale_reads: usize,
    dirty_reads: usize,
}

fn simulate(n: usize, seed: u64, stale_window: u64) -> (History, Injected) {
    let mut rng = Rng(seed | 1);
    let mut h = History::new();
    let mut injected = Injected::default();
    let keys = (n / 4).max(64) as u64;
    let hot = (keys / 100).max(8);
    let mut rows: Vec<Row> = (0..keys)
        .map(|_| Row {
            committed: vec![(0, 0)],
            deleted: false,
        })
        .collect();
    let mut commits = 0u64;
    let mut clock = 0u64;
    let mut started = 0usize;
    let mut sessions: Vec<Option<Running>> = (0..SESSIONS).map(|_| None).collect();
    let mut list: Vec<TxnId> = Vec::new();
    let mut values = String::new();
    let mut finished = 0usize;
    while finished < n {
        clock += 1;
        let s = rng.below(SESSIONS as u64) as usize;
        let Some(t) = sessions[s].as_mut() else {
            if started < n {
                started += 1;
                let id = started as TxnId;
                h.add_transaction(Transaction::new(id, TxnOutcome::Unknown).in_session(s as u64))
                    .unwrap();
                sessions[s] = Some(Running {
                    id,
                    snapshot: commits,
                    ops_left: 2 + rng.below(5) as u32,
                    next_stmt: 1,
                    writes: Vec::new(),
                    deletes: Vec::new(),
                    started: clock,
                    must_abort: false,
                });
            }
            continue;
        };
        if t.ops_left == 0 {
            // COMMIT or ROLLBACK; first committer wins, except that a few
            // conflicting commits go through (injected lost updates).
            let conflict = t
                .writes
                .iter()
                .chain(&t.deletes)
                .any(|&k| rows[k as usize].committed.last().unwrap().1 > t.snapshot);
            let mut abort = t.must_abort || rng.chance(30_000);
            if conflict && !abort {
                if rng.chance(50_000) {
                    injected.lost_updates += 1;
                } else {
                    abort = true;
                }
            }
            if !abort {
                commits += 1;
                for &k in &t.writes {
                    rows[k as usize].committed.push((t.id, commits));
                }
                for &k in &t.deletes {
                    rows[k as usize].deleted = true;
                }
            }
            let outcome = if abort {
                TxnOutcome::Aborted
            } else {
                TxnOutcome::Committed
            };
            h.set_outcome(t.id, outcome).unwrap();
            h.set_times(
                t.id,
                Some(Interval::new(t.started, t.started)),
                Some(Interval::new(clock, clock)),
            )
            .unwrap();
            sessions[s] = None;
            finished += 1;
            continue;
        }
        t.ops_left -= 1;
        let (tid, snapshot) = (t.id, t.snapshot);
        let stmt = StatementId::new(tid, t.next_stmt);
        t.next_stmt += 1;
        let dice = rng.below(100);
        let mut key = if rng.chance(100_000) {
            rng.below(hot)
        } else {
            rng.below(keys)
        };
        // An injected dirty read: a plain read of a row another running
        // transaction wrote, which then rolls back.
        let mut dirty = None;
        if (5..55).contains(&dice) && rng.chance(500) {
            if let Some((o, &k)) = sessions
                .iter()
                .enumerate()
                .filter(|&(o, _)| o != s)
                .filter_map(|(o, r)| r.as_ref().and_then(|r| r.writes.first().map(|k| (o, k))))
                .next()
            {
                dirty = Some(o);
                key = k;
            }
        }
        let t = sessions[s].as_ref().unwrap();
        let row = &rows[key as usize];
        if row.deleted || t.deletes.contains(&key) {
            continue;
        }
        // What the transaction sees: its snapshot, then its own writes.
        let visible = row.committed.partition_point(|&(_, c)| c <= snapshot);
        if visible == 0 {
            continue;
        }
        list.clear();
        list.extend(row.committed[..visible].iter().map(|&(w, _)| w));
        list.extend(t.writes.iter().filter(|&&k| k == key).map(|_| tid));
        values.clear();
        let _ = write!(values, "({key}, {})", list.len());
        if dice < 55 {
            let kind = if dice < 5 {
                ReadKind::Locking
            } else {
                ReadKind::Plain
            };
            let theirs = list.last() != Some(&tid);
            let recent = row.committed[..visible]
                .last()
                .is_some_and(|&(_, c)| c + stale_window > snapshot);
            if let Some(o) = dirty.filter(|_| theirs) {
                let other = sessions[o].as_mut().unwrap();
                other.must_abort = true;
                list.push(other.id);
                injected.dirty_reads += 1;
            } else if kind == ReadKind::Plain
                && theirs
                && list.len() > 1
                && recent
                && rng.chance(2_000)
            {
                list.pop(); // a stale read: a snapshot a little too old
                injected.stale_reads += 1;
            }
            h.observe_ref(ObservationRef {
                statement: &stmt,
                kind,
                table: "t",
                row: key,
                versions: &list,
                values: &values,
                at: None,
            })
            .unwrap();
        } else if dice < 97 {
            sessions[s].as_mut().unwrap().writes.push(key);
        } else {
            h.observe_ref(ObservationRef {
                statement: &stmt,
                kind: ReadKind::BeforeDelete,
                table: "t",
                row: key,
                versions: &list,
                values: &values,
                at: None,
            })
            .unwrap();
            sessions[s].as_mut().unwrap().deletes.push(key);
        }
    }
    // A last transaction reads every row.
    let reader = n as TxnId + 1;
    clock += 1;
    h.add_transaction(Transaction::committed(reader).timed(
        Interval::new(clock, clock),
        Interval::new(clock + 1, clock + 1),
    ))
    .unwrap();
    let stmt = StatementId::new(reader, 1);
    for (key, row) in rows.iter().enumerate() {
        if row.deleted {
            continue;
        }
        list.clear();
        list.extend(row.committed.iter().map(|&(w, _)| w));
        h.observe_ref(ObservationRef {
            statement: &stmt,
            kind: ReadKind::Plain,
            table: "t",
            row: key as u64,
            versions: &list,
            values: "",
            at: None,
        })
        .unwrap();
    }
    (h, injected)
}

/// A line of `/proc/self/status`, e.g. `VmHWM`, in kB.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// This process's CPU time (user and system) in seconds, from
/// `/proc/self/stat` (clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here.
    (ticks(11) + ticks(12)) as f64 / 100.0
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    let mut stale_window = STALE_WINDOW;
    let mut sizes: Vec<usize> = Vec::new();
    // `cargo bench` passes `--bench`; a plain run does not.
    for arg in std::env::args().skip(1).filter(|a| a != "--bench") {
        match arg.strip_prefix("--stale-window=") {
            Some(w) => stale_window = w.parse().expect("--stale-window=N"),
            None => sizes.push(arg.parse().expect("sizes are numbers of transactions")),
        }
    }
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    println!(
        "machine: {} cores (nproc), {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model()
    );
    println!(
        "{:>9} {:>12} {:>8} {:>8} {:>8} {:>11} {:>11} {:>10} {:>9} {:>9}  anomalies",
        "txns",
        "observations",
        "build s",
        "check s",
        "cpu s",
        "checked/s",
        "per cpu s",
        "history MB",
        "VmHWM MB",
        "MB/1k txn"
    );
    let options = Options {
        list_edges: false,
        ..Options::default()
    };
    for n in sizes {
        let t0 = Instant::now();
        let (h, injected) = simulate(n, 0x9e37_79b9_7f4a_7c15 ^ n as u64, stale_window);
        let build = t0.elapsed().as_secs_f64();
        let rss = status_kb("VmRSS").unwrap_or(0) as f64 / 1024.0;
        let t1 = Instant::now();
        let c1 = cpu_seconds();
        let report = check(&h, &options);
        let secs = t1.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - c1;
        let hwm = status_kb("VmHWM").unwrap_or(0) as f64 / 1024.0;
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for a in &report.anomalies {
            *by.entry(a.phenomenon.name().to_string()).or_default() += 1;
        }
        println!(
            "{:>9} {:>12} {:>8.3} {:>8.3} {:>8.2} {:>11.0} {:>11.0} {:>10.0} {:>9.0} {:>9.2}  {:?}; violations {}; injected: {} lost updates, {} stale reads, {} dirty reads; {} components, largest {}, searches cut {}",
            n,
            h.observation_count(),
            build,
            secs,
            cpu,
            n as f64 / secs,
            n as f64 / cpu.max(0.01),
            rss,
            hwm,
            hwm / (n as f64 / 1000.0),
            by,
            report.violations.len(),
            injected.lost_updates,
            injected.stale_reads,
            injected.dirty_reads,
            report.stats.components,
            report.stats.largest_component,
            report.stats.searches_cut,
        );
    }
}
