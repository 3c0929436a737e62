//! Dependency inference: IsoRel's Algorithm 1 with the corrections of the
//! digest's §7.3, computed per row from the row's branches (its maximal
//! observed version lists) instead of over every pair of query results, and
//! the runtime checks of the assumptions the inference rests on (§9).
//!
//! For a row, every observed list is a prefix of one of its branches, and
//! each branch is itself an observed list. So "some observed list extends
//! `L` and its next writer after `L` is `T`" (Algorithm 1's lines 20–34)
//! holds exactly when some branch extends `L` with `T` after it: the pairs
//! of query results collapse to one pass over the row's observations.

use crate::history::{History, ReadKind, TxnId, TxnOutcome};
use crate::report::{DepKind, Sighting, Survival, Violation};

/// No index.
pub(crate) const NONE: u32 = u32::MAX;

/// How an edge was derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Via {
    /// ww from adjacent writers of a list, wr from a list's last writer, rw
    /// from a list that a longer list extends (Algorithm 1, lines 14–19,
    /// 31–34).
    List,
    /// ww into a deleter from its before-delete read (lines 11–13); rw from
    /// a read of the exact version a deleter deleted (lines 26–30).
    Delete,
    /// rw from an intermediate read to the next writer other than the
    /// intermediate version's writer (Adya: the reader anti-depends on the
    /// writer of the version after the one it read).
    NextOther,
    /// A write recorded apart from the reads that no read returned
    /// ([`History::write`](crate::History::write)): it follows the row's
    /// longest observed list, so ww from that list's last writer, rw from
    /// the reads of that list (Elle's rule for appends never read). `b` is
    /// the write's index.
    Write,
    /// rw from an intermediate read to its own writer, which wrote the row
    /// again (Algorithm 1's edge; the read is G1b). Listed, never in cycles.
    Intermediate,
    /// Session order.
    Session,
    /// rw from a read of a version to its writer, whose recorded writes show
    /// it wrote the row again later (the read is G1b). `b` is that later
    /// write's index. Listed, never in cycles.
    IntermediateWrite,
}

impl Via {
    /// Whether an edge derived this way may be on a cycle: not the edges of
    /// intermediate reads, which show G1b.
    pub(crate) fn in_cycles(self) -> bool {
        !matches!(self, Via::Intermediate | Via::IntermediateWrite)
    }
}

/// An edge between dense transaction indexes, with what it was derived
/// from: `a` (and `b`) are observations, `pos` a position in a list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawEdge {
    pub from: u32,
    pub to: u32,
    /// Dense row index, [`NONE`] for session order.
    pub row: u32,
    pub a: u32,
    pub b: u32,
    pub pos: u32,
    /// The reading statement's index in its transaction (wr, rw).
    pub stmt_index: u32,
    pub kind: DepKind,
    /// 0 none, else [`read_code`].
    pub read: u8,
    pub via: Via,
}

/// The code of a read kind in [`RawEdge::read`].
pub(crate) fn read_code(k: ReadKind) -> u8 {
    match k {
        ReadKind::Plain => 1,
        ReadKind::Locking => 2,
        ReadKind::BeforeDelete => 3,
    }
}

/// The read kind of a [`RawEdge::read`] code.
pub(crate) fn read_of(code: u8) -> Option<ReadKind> {
    match code {
        1 => Some(ReadKind::Plain),
        2 => Some(ReadKind::Locking),
        3 => Some(ReadKind::BeforeDelete),
        _ => None,
    }
}

/// The transactions by dense index: the history's (index 0 is T0), then
/// writers that version lists name but the history lacks.
pub(crate) struct Txns {
    pub ids: Vec<TxnId>,
    pub outcome: Vec<TxnOutcome>,
    /// Dense indexes below this are the history's.
    pub known: usize,
    /// For each unknown writer (dense `known + i`): the row and an
    /// observation that named it.
    pub unknown_seen: Vec<(u32, u32)>,
    /// [`Options::intermediate_reads_in_cycles`](crate::Options).
    pub intermediate_cycles: bool,
}

impl Txns {
    /// Whether edges derived this way may be on a cycle.
    pub fn usable_via(&self, via: Via) -> bool {
        self.intermediate_cycles || via.in_cycles()
    }

    pub fn committed(&self, d: u32) -> bool {
        self.outcome[d as usize] == TxnOutcome::Committed
    }

    pub fn label(&self, h: &History, d: u32) -> String {
        h.label(self.ids[d as usize])
    }
}

/// Every branch of every row as dense transaction indexes.
pub(crate) struct Dense {
    pub lists: Vec<u32>,
    /// Global branch `g`'s list is `lists[off[g]..off[g + 1]]`.
    pub off: Vec<usize>,
    /// Row `r`'s branches are the global branches
    /// `row_branch[r]..row_branch[r + 1]`.
    pub row_branch: Vec<u32>,
}

impl Dense {
    pub fn list(&self, g: u32) -> &[u32] {
        &self.lists[self.off[g as usize]..self.off[g as usize + 1]]
    }
}

/// Maps every id in the version lists to a dense index, adding the writers
/// the history lacks (their outcome is unknown).
pub(crate) fn resolve(h: &History) -> (Txns, Dense) {
    let mut txns = Txns {
        ids: h.txns.iter().map(|t| t.id).collect(),
        outcome: h.txns.iter().map(|t| t.outcome).collect(),
        known: h.txns.len(),
        unknown_seen: Vec::new(),
        intermediate_cycles: false,
    };
    let mut extra = crate::fx::FxMap::default();
    let total: usize = h
        .rows
        .iter()
        .flat_map(|r| r.branches.iter().map(|b| b.list.len()))
        .sum();
    let mut dense = Dense {
        lists: Vec::with_capacity(total),
        off: Vec::new(),
        row_branch: Vec::with_capacity(h.rows.len() + 1),
    };
    let mut cache: Option<(TxnId, u32)> = None;
    for (r, row) in h.rows.iter().enumerate() {
        dense.row_branch.push(dense.off.len() as u32);
        for b in &row.branches {
            dense.off.push(dense.lists.len());
            for &id in &b.list {
                let d = match cache {
                    Some((c, d)) if c == id => d,
                    _ => {
                        let d = match h.txn_index.get(&id) {
                            Some(&d) => d,
                            None => *extra.entry(id).or_insert_with(|| {
                                txns.ids.push(id);
                                txns.outcome.push(TxnOutcome::Unknown);
                                txns.unknown_seen.push((r as u32, b.obs));
                                (txns.ids.len() - 1) as u32
                            }),
                        };
                        cache = Some((id, d));
                        d
                    }
                };
                dense.lists.push(d);
            }
        }
    }
    dense.off.push(dense.lists.len());
    dense.row_branch.push(dense.off.len() as u32 - 1);
    (txns, dense)
}

/// The read of the aborted version, and the reader.
pub(crate) struct G1a {
    pub writer: u32,
    pub reader: u32,
    pub obs: u32,
}

/// An intermediate read: the read, and the later list in which the writer
/// wrote the row again (`via` [`Via::Intermediate`]), or the writer's later
/// recorded write (`via` [`Via::IntermediateWrite`], `later` the write).
pub(crate) struct G1b {
    pub writer: u32,
    pub reader: u32,
    pub obs: u32,
    pub later: u32,
    pub pos: u32,
    pub via: Via,
}

/// What inference found.
pub(crate) struct Inference {
    /// Every derivation, duplicates included.
    pub edges: Vec<RawEdge>,
    pub g1a: Vec<G1a>,
    pub g1b: Vec<G1b>,
    pub violations: Vec<Violation>,
}

/// Infers every edge and checks the version lists, row by row.
/// With `keep_all` false, edges that can be on no cycle (from T0, or
/// touching a transaction that did not commit) are not kept.
pub(crate) fn infer(h: &History, t: &Txns, d: &Dense, keep_all: bool) -> Inference {
    let nrows = h.rows.len();
    let mut start = vec![0u32; nrows + 1];
    for o in &h.obs {
        start[o.row as usize + 1] += 1;
    }
    for r in 0..nrows {
        start[r + 1] += start[r];
    }
    // Each row's observations together, with what the pass needs of them
    // (one sequential pass over the observations and their statements).
    let mut fill = start.clone();
    let mut order = vec![RowObs::default(); h.obs.len()];
    for (i, o) in h.obs.iter().enumerate() {
        let st = &h.stmts[o.stmt as usize];
        order[fill[o.row as usize] as usize] = RowObs {
            o: i as u32,
            txn: st.txn,
            index: st.index,
            branch: o.branch,
            len: o.len,
            kind: o.kind,
        };
        fill[o.row as usize] += 1;
    }
    drop(fill);
    // Each row's recorded writes together: (writer, write), by writer, each
    // writer's in the order recorded.
    let mut wstart = vec![0u32; nrows + 1];
    for w in &h.writes {
        wstart[w.row as usize + 1] += 1;
    }
    for r in 0..nrows {
        wstart[r + 1] += wstart[r];
    }
    let mut wfill = wstart.clone();
    let mut worder = vec![(0u32, 0u32); h.writes.len()];
    for (i, w) in h.writes.iter().enumerate() {
        worder[wfill[w.row as usize] as usize] = (h.stmts[w.stmt as usize].txn, i as u32);
        wfill[w.row as usize] += 1;
    }
    drop(wfill);
    for r in 0..nrows {
        worder[wstart[r] as usize..wstart[r + 1] as usize].sort_by_key(|&(t, _)| t);
    }
    let mut inf = Inference {
        edges: Vec::with_capacity(h.obs.len() * 3),
        g1a: Vec::new(),
        g1b: Vec::new(),
        violations: Vec::new(),
    };
    let mut scratch = Scratch::default();
    for r in 0..nrows {
        let obs = &order[start[r] as usize..start[r + 1] as usize];
        RowPass {
            h,
            t,
            d,
            r: r as u32,
            obs,
            writes: &worder[wstart[r] as usize..wstart[r + 1] as usize],
            inf: &mut inf,
            s: &mut scratch,
            keep_all,
        }
        .run();
    }
    for (i, &(row, obs)) in t.unknown_seen.iter().enumerate() {
        let rr = &h.rows[row as usize];
        inf.violations.push(Violation::UnknownWriter {
            txn: t.ids[t.known + i],
            table: h.tables[rr.table as usize].clone(),
            row: rr.id,
            seen: sighting(h, obs, None),
        });
    }
    for c in &h.clashes {
        let rr = &h.rows[c.row as usize];
        inf.violations.push(Violation::RowInTwoTables {
            row: rr.id,
            first_table: h.tables[rr.table as usize].clone(),
            second_table: h.tables[c.table as usize].clone(),
            statement: h.stmt_label(h.obs[c.obs as usize].stmt),
        });
    }
    inf
}

/// What a read returned, for a violation.
pub(crate) fn sighting(h: &History, obs: u32, deleted_by: Option<TxnId>) -> Sighting {
    Sighting {
        statement: h.stmt_label(h.obs[obs as usize].stmt),
        versions: h.obs_list(obs).to_vec(),
        deleted_by,
    }
}

/// An observation as the row pass reads it.
#[derive(Clone, Copy, Debug)]
struct RowObs {
    o: u32,
    /// The reader (dense).
    txn: u32,
    /// The reading statement's index.
    index: u32,
    branch: u32,
    len: u32,
    kind: ReadKind,
}

impl Default for RowObs {
    fn default() -> Self {
        RowObs {
            o: NONE,
            txn: NONE,
            index: NONE,
            branch: 0,
            len: 0,
            kind: ReadKind::Plain,
        }
    }
}

/// Buffers reused from row to row.
#[derive(Default)]
struct Scratch {
    /// Before-delete reads: (branch, len, obs, deleter).
    dels: Vec<(u32, u32, u32, u32)>,
    /// Fork candidates: (global branch, len, deleter or NONE, obs).
    cands: Vec<(u32, u32, u32, u32)>,
    /// Per branch of the row: the longest list ending with a committed
    /// writer, and an observation of it.
    eff: Vec<(u32, u32)>,
    /// (reader, statement index, obs).
    own: Vec<(u32, u32, u32)>,
    /// Aborted transactions already reported for this row.
    reported: Vec<u32>,
    /// Whether the row's branch holds an aborted writer.
    has_aborted: Vec<bool>,
    /// With recorded writes: for each entry of each branch of the row (in
    /// the order of the dense lists), how often its writer appears up to
    /// and including it.
    occ: Vec<u32>,
}

struct RowPass<'a> {
    h: &'a History,
    t: &'a Txns,
    d: &'a Dense,
    r: u32,
    obs: &'a [RowObs],
    /// The row's recorded writes: (writer, write), by writer.
    writes: &'a [(u32, u32)],
    inf: &'a mut Inference,
    s: &'a mut Scratch,
    keep_all: bool,
}

impl RowPass<'_> {
    fn run(mut self) {
        let first = self.d.row_branch[self.r as usize];
        let end = self.d.row_branch[self.r as usize + 1];
        self.s.reported.clear();
        self.s.has_aborted.clear();
        for g in first..end {
            let has = self.list_ww(g);
            self.s.has_aborted.push(has);
        }
        if !self.writes.is_empty() {
            self.occurrences(first, end);
        }
        for i in 0..self.obs.len() {
            self.observation(self.obs[i], first, end);
        }
        self.deletes();
        self.forks(first, end);
        self.own_writes(first);
        if !self.writes.is_empty() {
            self.unread_writes(first, end);
        }
    }

    /// The recorded writes of `w` to this row.
    fn written(&self, w: u32) -> &[(u32, u32)] {
        let lo = self.writes.partition_point(|&(t, _)| t < w);
        let hi = self.writes.partition_point(|&(t, _)| t <= w);
        &self.writes[lo..hi]
    }

    /// Fills [`Scratch::occ`] for the row's branches.
    fn occurrences(&mut self, first: u32, end: u32) {
        self.s.occ.clear();
        let mut seen: crate::fx::FxMap<u32, u32> = crate::fx::FxMap::default();
        for g in first..end {
            seen.clear();
            for &w in self.d.list(g) {
                let n = seen.entry(w).or_insert(0);
                *n += 1;
                self.s.occ.push(*n);
            }
        }
    }

    /// How often the last writer of branch `g`'s first `len` entries
    /// appears in them.
    fn occurrence(&self, first: u32, g: u32, len: usize) -> u32 {
        let base = self.d.off[g as usize] - self.d.off[first as usize];
        self.s.occ[base + len - 1]
    }

    /// Recorded writes that no read returned (Elle's rule for appends never
    /// read): each follows the row's longest observed list, so it is
    /// preceded by that list's last writer (ww) and by every read of that
    /// whole list (rw). Only where the row's lists form one chain: a forked
    /// row has no longest list (and is a violation already); a row no read
    /// returned has none either.
    fn unread_writes(&mut self, first: u32, end: u32) {
        if end - first != 1 {
            return;
        }
        let g = first;
        let l = self.d.list(g);
        let last = l[l.len() - 1];
        let bobs = self.h.rows[self.r as usize].branches[0].obs;
        // How often each writer appears in the list, and the reads of the
        // whole list (one pass each, not one per writer).
        let mut shown: crate::fx::FxMap<u32, usize> = crate::fx::FxMap::default();
        for &x in l {
            *shown.entry(x).or_insert(0) += 1;
        }
        let full: Vec<RowObs> = self
            .obs
            .iter()
            .filter(|rec| rec.len as usize == l.len() && rec.kind != ReadKind::BeforeDelete)
            .copied()
            .collect();
        let mut i = 0;
        while i < self.writes.len() {
            let w = self.writes[i].0;
            let mine = self.written(w);
            i += mine.len();
            let seen = shown.get(&w).copied().unwrap_or(0);
            if mine.len() <= seen {
                continue;
            }
            // The first write of `w` that no read returned.
            let write = mine[seen].1;
            if last != w {
                self.edge(RawEdge {
                    from: last,
                    to: w,
                    row: self.r,
                    a: bobs,
                    b: write,
                    pos: l.len() as u32,
                    stmt_index: NONE,
                    kind: DepKind::WW,
                    read: 0,
                    via: Via::Write,
                });
            }
            // A read of `w`'s own version is an intermediate read, found by
            // `observation` from the write counts.
            if last == w {
                continue;
            }
            for rec in &full {
                if rec.txn == w {
                    continue;
                }
                self.edge(RawEdge {
                    from: rec.txn,
                    to: w,
                    row: self.r,
                    a: rec.o,
                    b: write,
                    pos: l.len() as u32,
                    stmt_index: rec.index,
                    kind: DepKind::RW,
                    read: read_code(rec.kind),
                    via: Via::Write,
                });
            }
        }
    }

    fn edge(&mut self, e: RawEdge) {
        if self.keep_all || (e.from != 0 && self.t.committed(e.from) && self.t.committed(e.to)) {
            self.inf.edges.push(e);
        }
    }

    fn table(&self) -> String {
        self.h.tables[self.h.rows[self.r as usize].table as usize].clone()
    }

    fn row_id(&self) -> u64 {
        self.h.rows[self.r as usize].id
    }

    /// ww edges between adjacent writers of branch `g` (lines 16–19), and
    /// aborted writers followed by another (assumption (g)). Returns whether
    /// the branch holds an aborted writer.
    fn list_ww(&mut self, g: u32) -> bool {
        let first = self.d.row_branch[self.r as usize];
        let bobs = self.h.rows[self.r as usize].branches[(g - first) as usize].obs;
        let l = self.d.list(g);
        let mut has_aborted = self.t.outcome[l[0] as usize] == TxnOutcome::Aborted;
        for i in 1..l.len() {
            let (p, n) = (l[i - 1], l[i]);
            if self.t.outcome[n as usize] == TxnOutcome::Aborted {
                has_aborted = true;
            }
            if p == n {
                continue;
            }
            self.edge(RawEdge {
                from: p,
                to: n,
                row: self.r,
                a: bobs,
                b: NONE,
                pos: i as u32,
                stmt_index: NONE,
                kind: DepKind::WW,
                read: 0,
                via: Via::List,
            });
            if self.t.outcome[p as usize] == TxnOutcome::Aborted && !self.s.reported.contains(&p) {
                self.s.reported.push(p);
                let v = Violation::AbortedWriteSurvived {
                    txn: self.t.ids[p as usize],
                    table: self.table(),
                    row: self.row_id(),
                    how: Survival::FollowedBy {
                        writer: self.t.ids[n as usize],
                        seen: sighting(self.h, bobs, None),
                    },
                };
                self.inf.violations.push(v);
            }
        }
        has_aborted
    }

    /// wr, ww-by-delete and rw-by-prefix edges of one observation, G1a and
    /// G1b, and reads of aborted writes after their rollback.
    fn observation(&mut self, rec: RowObs, first: u32, end: u32) {
        let o = rec.o;
        let reader = rec.txn;
        let g = first + rec.branch;
        let len = rec.len as usize;
        let l = self.d.list(g);
        let last = l[len - 1];
        let read = read_code(rec.kind);
        if rec.kind == ReadKind::BeforeDelete {
            if last != reader {
                self.edge(RawEdge {
                    from: last,
                    to: reader,
                    row: self.r,
                    a: o,
                    b: NONE,
                    pos: len as u32,
                    stmt_index: rec.index,
                    kind: DepKind::WW,
                    read,
                    via: Via::Delete,
                });
            }
        } else if last != reader {
            self.edge(RawEdge {
                from: last,
                to: reader,
                row: self.r,
                a: o,
                b: NONE,
                pos: len as u32,
                stmt_index: rec.index,
                kind: DepKind::WR,
                read,
                via: Via::List,
            });
        }
        if last != reader
            && self.t.outcome[last as usize] == TxnOutcome::Aborted
            && self.t.committed(reader)
        {
            self.inf.g1a.push(G1a {
                writer: last,
                reader,
                obs: o,
            });
        }
        let mut intermediate = false;
        if rec.kind != ReadKind::BeforeDelete {
            for g2 in first..end {
                let l2 = self.d.list(g2);
                if l2.len() <= len || (g2 != g && l2[..len] != l[..len]) {
                    continue;
                }
                let next = l2[len];
                if next == reader {
                    continue;
                }
                let later = self.h.rows[self.r as usize].branches[(g2 - first) as usize].obs;
                let mut rw = RawEdge {
                    from: reader,
                    to: next,
                    row: self.r,
                    a: o,
                    b: later,
                    pos: len as u32,
                    stmt_index: rec.index,
                    kind: DepKind::RW,
                    read,
                    via: Via::List,
                };
                if next == last {
                    // The writer of the version read wrote the row again:
                    // an intermediate read.
                    rw.via = Via::Intermediate;
                    self.edge(rw);
                    intermediate = true;
                    if self.t.committed(last) && self.t.committed(reader) {
                        self.inf.g1b.push(G1b {
                            writer: last,
                            reader,
                            obs: o,
                            later,
                            pos: len as u32,
                            via: Via::Intermediate,
                        });
                    }
                    if let Some(j) = (len + 1..l2.len()).find(|&j| l2[j] != last) {
                        if l2[j] != reader {
                            rw.via = Via::NextOther;
                            rw.to = l2[j];
                            rw.pos = j as u32;
                            self.edge(rw);
                        }
                    }
                } else {
                    self.edge(rw);
                }
            }
        }
        if !intermediate
            && !self.writes.is_empty()
            && rec.kind != ReadKind::BeforeDelete
            && last != reader
        {
            // The writer's recorded writes show it wrote the row again
            // after the version read, though no read shows that write
            // right after it.
            let seen = self.occurrence(first, g, len) as usize;
            if let Some(&(_, again)) = self.written(last).get(seen) {
                let rw = RawEdge {
                    from: reader,
                    to: last,
                    row: self.r,
                    a: o,
                    b: again,
                    pos: len as u32,
                    stmt_index: rec.index,
                    kind: DepKind::RW,
                    read,
                    via: Via::IntermediateWrite,
                };
                self.edge(rw);
                if self.t.committed(last) && self.t.committed(reader) {
                    self.inf.g1b.push(G1b {
                        writer: last,
                        reader,
                        obs: o,
                        later: again,
                        pos: len as u32,
                        via: Via::IntermediateWrite,
                    });
                }
            }
        }
        if rec.kind == ReadKind::BeforeDelete {
            self.s.dels.push((g, len as u32, o, reader));
        }
        if self.s.has_aborted[(g - first) as usize] {
            self.seen_after_rollback(o, g, len, reader);
        }
    }

    /// A read certainly sent after an aborted writer's rollback ended that
    /// still returns its write (assumption (g)).
    fn seen_after_rollback(&mut self, o: u32, g: u32, len: usize, reader: u32) {
        let Some(&at) = self.h.stmt_at.get(&self.h.obs[o as usize].stmt) else {
            return;
        };
        for i in 0..len {
            let w = self.d.list(g)[i];
            if w == reader
                || self.t.outcome[w as usize] != TxnOutcome::Aborted
                || self.s.reported.contains(&w)
                || (w as usize) >= self.t.known
            {
                continue;
            }
            let Some(ended) = self.h.txns[w as usize].ended else {
                continue;
            };
            if at.earliest > ended.latest {
                self.s.reported.push(w);
                let v = Violation::AbortedWriteSurvived {
                    txn: self.t.ids[w as usize],
                    table: self.table(),
                    row: self.row_id(),
                    how: Survival::SeenAfterRollback {
                        seen: sighting(self.h, o, None),
                        rolled_back_by: ended.latest,
                        read_from: at.earliest,
                    },
                };
                self.inf.violations.push(v);
            }
        }
    }

    /// rw from every other read of exactly the version a deleter deleted
    /// (lines 26–30).
    fn deletes(&mut self) {
        if self.s.dels.is_empty() {
            return;
        }
        self.s.dels.sort_unstable();
        let first = self.d.row_branch[self.r as usize];
        for i in 0..self.obs.len() {
            let rec = self.obs[i];
            let o = rec.o;
            if rec.kind == ReadKind::BeforeDelete {
                continue;
            }
            let key = (first + rec.branch, rec.len);
            let lo = self.s.dels.partition_point(|d| (d.0, d.1) < key);
            let mut j = lo;
            while j < self.s.dels.len() && (self.s.dels[j].0, self.s.dels[j].1) == key {
                let (_, len, del, deleter) = self.s.dels[j];
                if deleter != rec.txn {
                    self.edge(RawEdge {
                        from: rec.txn,
                        to: deleter,
                        row: self.r,
                        a: o,
                        b: del,
                        pos: len,
                        stmt_index: rec.index,
                        kind: DepKind::RW,
                        read: read_code(rec.kind),
                        via: Via::Delete,
                    });
                }
                j += 1;
            }
        }
    }

    /// The version lists that count (those not ending with an aborted or
    /// unfinished writer, and a committed deleter's list followed by its
    /// delete) must form one chain (assumption (f)).
    fn forks(&mut self, first: u32, end: u32) {
        let nb = (end - first) as usize;
        self.s.eff.clear();
        self.s.eff.resize(nb, (0, NONE));
        self.s.cands.clear();
        for i in 0..self.obs.len() {
            let rec = self.obs[i];
            let o = rec.o;
            let g = first + rec.branch;
            let l = self.d.list(g);
            let last = l[rec.len as usize - 1];
            let reader = rec.txn;
            if rec.kind == ReadKind::BeforeDelete
                && self.t.committed(reader)
                && last != reader
                && self.t.committed(last)
            {
                self.s.cands.push((g, rec.len, reader, o));
            }
            if self.t.committed(last) {
                let e = &mut self.s.eff[rec.branch as usize];
                if rec.len > e.0 {
                    *e = (rec.len, o);
                }
            }
        }
        for (b, &(len, o)) in self.s.eff.iter().enumerate() {
            if len > 0 {
                self.s.cands.push((first + b as u32, len, NONE, o));
            }
        }
        if self.s.cands.len() < 2 {
            self.s.dels.clear();
            return;
        }
        let total = |c: &(u32, u32, u32, u32)| c.1 + u32::from(c.2 != NONE);
        self.s
            .cands
            .sort_unstable_by_key(|c| (total(c), c.0, c.2, c.3));
        let d = self.d;
        let at = |c: &(u32, u32, u32, u32), i: u32| {
            if i < c.1 {
                d.list(c.0)[i as usize]
            } else {
                c.2
            }
        };
        for w in 0..self.s.cands.len() - 1 {
            let (a, b) = (self.s.cands[w], self.s.cands[w + 1]);
            let prefix = (0..total(&a)).all(|i| at(&a, i) == at(&b, i));
            if !prefix {
                let seen = |c: &(u32, u32, u32, u32)| {
                    sighting(self.h, c.3, (c.2 != NONE).then(|| self.t.ids[c.2 as usize]))
                };
                let v = Violation::ForkedVersions {
                    table: self.table(),
                    row: self.row_id(),
                    first: seen(&a),
                    second: seen(&b),
                };
                self.inf.violations.push(v);
                break;
            }
        }
        self.s.dels.clear();
    }

    /// A transaction's later reads of the row must show the writes its
    /// earlier reads showed (every level shows a transaction its own
    /// writes).
    fn own_writes(&mut self, first: u32) {
        self.s.own.clear();
        for (k, rec) in self.obs.iter().enumerate() {
            self.s.own.push((rec.txn, rec.index, k as u32));
        }
        self.s.own.sort_unstable();
        let mut i = 0;
        while i < self.s.own.len() {
            let reader = self.s.own[i].0;
            // (branch, length that must be kept, obs)
            let mut effective: Option<(u32, u32, u32)> = None;
            let mut pending: Option<(u32, u32, u32)> = None;
            let mut current = NONE;
            let mut reported = false;
            while i < self.s.own.len() && self.s.own[i].0 == reader {
                let (_, index, k) = self.s.own[i];
                let rec = self.obs[k as usize];
                let o = rec.o;
                i += 1;
                if index != current {
                    if let Some(p) = pending.take() {
                        if effective.is_none_or(|e| p.1 > e.1) {
                            effective = Some(p);
                        }
                    }
                    current = index;
                }
                let g = first + rec.branch;
                let l = &self.d.list(g)[..rec.len as usize];
                if let (false, Some((ge, need, oe))) = (reported, effective) {
                    let kept = l.len() >= need as usize
                        && self.d.list(ge)[..need as usize] == l[..need as usize];
                    if !kept {
                        reported = true;
                        let v = Violation::OwnWriteLost {
                            txn: self.t.ids[reader as usize],
                            table: self.table(),
                            row: self.row_id(),
                            earlier: sighting(self.h, oe, None),
                            later: sighting(self.h, o, None),
                        };
                        self.inf.violations.push(v);
                    }
                }
                if let Some(p) = l.iter().rposition(|&w| w == reader) {
                    let need = p as u32 + 1;
                    if pending.is_none_or(|q| need > q.1) {
                        pending = Some((g, need, o));
                    }
                }
            }
        }
    }
}
