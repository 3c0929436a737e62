//! The dependency graph of the committed transactions, its strongly
//! connected components, and the shortest cycle of each class in a
//! component.
//!
//! The graph is a `petgraph` [`Csr`] over dense transaction indexes: one
//! graph edge per ordered pair of transactions, whose weight is the bundle
//! of the pair's typed edges (ww; wr into plain and into locking reads; rw
//! from plain and from locking reads; so; start). Start order (Adya's
//! start-dependencies, `Ti` committed before `Tj` started) would need an
//! edge for nearly every pair of transactions; it is kept linear with a
//! chain of virtual nodes: the timed transactions sorted by their latest
//! commit time `c`, virtual node `V_k` for the `k`-th, edges `T → V_k` from
//! the `k`-th transaction, `V_k → V_(k+1)`, and `V_K → T` where `K` is the
//! last transaction whose commit certainly came before `T` started. `Ti`
//! reaches `Tj` along the chain exactly when `Ti` committed before `Tj`
//! started; the chain's edges cost nothing and the last one costs one, so
//! path lengths count start edges as one edge each.
//!
//! petgraph's own `tarjan_scc` is recursive and overflows the stack on the
//! long chains a history of a million transactions makes (petgraph issue
//! #399); the components come from the iterative Tarjan below.

use crate::infer::NONE;
use petgraph::csr::Csr;

/// Edge kind bits.
pub(crate) const WW: u8 = 1;
pub(crate) const WR_PLAIN: u8 = 2;
pub(crate) const WR_LOCK: u8 = 4;
pub(crate) const RW_PLAIN: u8 = 8;
pub(crate) const RW_LOCK: u8 = 16;
pub(crate) const SO: u8 = 32;
/// Along the start chain (free).
pub(crate) const VSTART: u8 = 64;
/// The last step of a start-order path (one edge).
pub(crate) const START: u8 = 128;

pub(crate) const WR: u8 = WR_PLAIN | WR_LOCK;
pub(crate) const RW: u8 = RW_PLAIN | RW_LOCK;
pub(crate) const DSG: u8 = WW | WR | RW;

/// Path flags a search may require.
pub(crate) const F_WRITE: u8 = 1;
pub(crate) const F_RW: u8 = 2;
pub(crate) const F_START: u8 = 4;
pub(crate) const F_SO: u8 = 8;

fn flag_of(bit: u8) -> u8 {
    match bit {
        WW | WR_LOCK => F_WRITE,
        RW_PLAIN | RW_LOCK => F_RW,
        START => F_START,
        SO => F_SO,
        _ => 0,
    }
}

fn cost_of(bit: u8) -> u32 {
    u32::from(bit != VSTART)
}

/// One typed edge of a pair of transactions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GEdge {
    pub bit: u8,
    /// The distinct edges of this kind between the pair:
    /// `edges[raw..raw + raw_len]` (NONE for start edges).
    pub raw: u32,
    pub raw_len: u32,
    /// rw: the earliest statement (of `from`) that derived it.
    pub stmt_lo: u32,
    /// wr: the latest statement (of `to`) that derived it.
    pub stmt_hi: u32,
}

/// A pair's typed edges: `gedges[start..start + len]`, and their kinds.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Bundle {
    pub start: u32,
    pub len: u32,
    pub mask: u8,
}

/// The graph: transactions `0..txns`, then the start chain.
pub(crate) struct DepGraph {
    pub csr: Csr<(), Bundle, petgraph::Directed, u32>,
    pub gedges: Vec<GEdge>,
    /// Nodes (transactions and virtual).
    pub nodes: usize,
    /// Dense transactions; virtual nodes are `txns..nodes`.
    pub txns: usize,
}

impl DepGraph {
    /// Builds the graph from `pairs`, sorted by (from, to) and unique.
    pub fn new(
        pairs: &[(u32, u32, Bundle)],
        gedges: Vec<GEdge>,
        nodes: usize,
        txns: usize,
    ) -> DepGraph {
        let csr = Csr::from_sorted_edges(pairs).expect("edges sorted by (from, to) and unique");
        DepGraph {
            csr,
            gedges,
            nodes,
            txns,
        }
    }

    /// A node's successors and their bundles.
    #[inline]
    pub fn out(&self, n: u32) -> (&[u32], &[Bundle]) {
        if (n as usize) < self.csr.node_count() {
            (self.csr.neighbors_slice(n), self.csr.edges_slice(n))
        } else {
            (&[], &[])
        }
    }
}

/// Strongly connected components with more than one node.
pub(crate) struct Components {
    /// Node → component, or NONE.
    pub comp: Vec<u32>,
    /// Node → position in its component.
    pub local: Vec<u32>,
    /// Each component's nodes, ascending.
    pub members: Vec<Vec<u32>>,
    /// Node → the order in which Tarjan finished its component (trivial
    /// ones included; 0 for nodes it never visited). An edge between two
    /// components goes from a higher rank to a lower one, so a path from
    /// `v` to `u` only visits nodes ranked at least `u`'s.
    pub rank: Vec<u32>,
}

impl Components {
    /// All nodes as one component (for searches that need no components).
    pub fn whole(n: usize) -> Components {
        Components {
            comp: vec![0; n],
            local: (0..n as u32).collect(),
            members: vec![(0..n as u32).collect()],
            rank: Vec::new(),
        }
    }
}

/// What Tarjan's algorithm walks: numbered nodes, each with numbered
/// out-edges of some kinds.
pub(crate) trait Adjacency {
    fn node_count(&self) -> usize;
    /// How many out-edges `v` has (of any kind).
    fn degree(&self, v: u32) -> usize;
    /// The target of `v`'s `i`-th out-edge, if its kinds meet `mask`.
    fn succ(&self, v: u32, i: usize, mask: u8) -> Option<u32>;
}

impl Adjacency for DepGraph {
    fn node_count(&self) -> usize {
        self.nodes
    }

    fn degree(&self, v: u32) -> usize {
        self.out(v).0.len()
    }

    fn succ(&self, v: u32, i: usize, mask: u8) -> Option<u32> {
        let (succ, bundles) = self.out(v);
        (bundles[i].mask & mask != 0).then_some(succ[i])
    }
}

/// Tarjan's algorithm with an explicit stack, over the edges whose kinds
/// meet `mask`; with `within`, only inside its components (a component of
/// a subgraph lies inside one of the whole graph's).
pub(crate) fn tarjan<G: Adjacency + ?Sized>(
    g: &G,
    mask: u8,
    within: Option<&Components>,
) -> Components {
    let n = g.node_count();
    let inside = |v: u32, w: u32| within.is_none_or(|o| o.comp[v as usize] == o.comp[w as usize]);
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut calls: Vec<(u32, u32)> = Vec::new();
    let mut counter = 0u32;
    let mut comps = Components {
        comp: vec![NONE; n],
        local: vec![NONE; n],
        members: Vec::new(),
        rank: vec![0; n],
    };
    let mut finished = 1u32;
    // Latest transactions first: their searches stay short, and the ranks
    // follow time more closely.
    let roots: Box<dyn Iterator<Item = u32>> = match within {
        Some(o) => Box::new(o.members.iter().rev().flat_map(|m| m.iter().rev()).copied()),
        None => Box::new((0..n as u32).rev()),
    };
    for root in roots {
        if index[root as usize] != NONE {
            continue;
        }
        if !(0..g.degree(root)).any(|i| {
            g.succ(root, i, mask)
                .is_some_and(|w| w != root && inside(root, w))
        }) {
            continue; // no edge out: a component of its own
        }
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        calls.push((root, 0));
        while let Some(&mut (v, ref mut next)) = calls.last_mut() {
            let degree = g.degree(v);
            let mut descended = false;
            while (*next as usize) < degree {
                let i = *next as usize;
                *next += 1;
                let Some(w) = g.succ(v, i, mask) else {
                    continue;
                };
                if !inside(v, w) {
                    continue;
                }
                if index[w as usize] == NONE {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                    descended = true;
                    break;
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
            }
            if descended {
                continue;
            }
            calls.pop();
            if low[v as usize] == index[v as usize] {
                let mut members = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w as usize] = false;
                    comps.rank[w as usize] = finished;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                finished += 1;
                if members.len() > 1 {
                    members.sort_unstable();
                    let c = comps.members.len() as u32;
                    for (i, &w) in members.iter().enumerate() {
                        comps.comp[w as usize] = c;
                        comps.local[w as usize] = i as u32;
                    }
                    comps.members.push(members);
                }
            }
            if let Some(&(p, _)) = calls.last() {
                low[p as usize] = low[p as usize].min(low[v as usize]);
            }
        }
    }
    comps
}

/// A class of cycles: the kinds of the edge that defines it, the kinds a
/// path back may use, and the flags that path must collect.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spec {
    pub candidate: u8,
    pub path: u8,
    pub need: u8,
    /// Skip IsoRel's exempt two-transaction cycle.
    pub exempt: bool,
    /// G-SIb: only rw edges `u → v` where `v` may have committed before `u`
    /// started (both times known) are candidates. Through any other rw
    /// edge, a path back of ww, wr and start edges must hold a ww or wr edge
    /// into a transaction that started before its source committed: a G-SIa
    /// edge, reported on its own where the timing makes it certain.
    pub timed: bool,
}

/// A hop of a cycle: `from → to` by typed edge `gedge`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hop {
    pub from: u32,
    pub to: u32,
    pub gedge: u32,
}

/// A cycle and its length (start chains count as one edge).
pub(crate) struct Found {
    pub cost: u32,
    pub hops: Vec<Hop>,
}

/// The search's reusable state, sized for the largest component.
pub(crate) struct Searcher<'g> {
    g: &'g DepGraph,
    /// Per transaction: how many transactions of the start chain certainly
    /// committed before it started (its entry point on the chain).
    entry: &'g [u32],
    stamp: Vec<u32>,
    dist: Vec<u32>,
    pred: Vec<u32>,
    pred_edge: Vec<u32>,
    generation: u32,
    deque: std::collections::VecDeque<(u32, u32)>,
    /// States and edges the current search looked at.
    pub work: u64,
    /// A search stops once `work` passes this.
    pub budget: u64,
}

impl<'g> Searcher<'g> {
    pub fn new(g: &'g DepGraph, budget: u64, entry: &'g [u32]) -> Searcher<'g> {
        Searcher {
            g,
            entry,
            stamp: Vec::new(),
            dist: Vec::new(),
            pred: Vec::new(),
            pred_edge: Vec::new(),
            generation: 0,
            deque: std::collections::VecDeque::new(),
            work: 0,
            budget,
        }
    }

    /// The shortest cycle of `spec`'s class in component `c`, and whether
    /// the work bound cut the search short.
    ///
    /// With `rank` (the ranks of the subgraph of `spec.path`, which must
    /// not hold rw edges), a path back only visits nodes ranked at least
    /// the candidate's source.
    pub fn shortest(
        &mut self,
        comps: &Components,
        c: u32,
        spec: Spec,
        rank: Option<&[u32]>,
    ) -> (Vec<Found>, bool) {
        let states = comps.members[c as usize].len() << spec.need.count_ones();
        if self.stamp.len() < states {
            self.stamp.resize(states, 0);
            self.dist.resize(states, 0);
            self.pred.resize(states, 0);
            self.pred_edge.resize(states, 0);
        }
        self.work = 0;
        let (found, cut) = self.deepening(comps, c, spec, rank);
        (found.into_iter().collect(), cut)
    }

    /// The candidate edges of the class in the component, in order.
    fn candidates(&self, comps: &Components, c: u32, spec: Spec, rank: Option<&[u32]>) -> Vec<Hop> {
        let mut out = Vec::new();
        for &u in &comps.members[c as usize] {
            let (succ, bundles) = self.g.out(u);
            for (i, &v) in succ.iter().enumerate() {
                let b = bundles[i];
                if comps.comp[v as usize] != c || b.mask & spec.candidate == 0 {
                    continue;
                }
                if rank.is_some_and(|r| r[v as usize] < r[u as usize]) {
                    continue; // v cannot reach u without an rw edge
                }
                for k in b.start..b.start + b.len {
                    if self.g.gedges[k as usize].bit & spec.candidate != 0 {
                        out.push(Hop {
                            from: u,
                            to: v,
                            gedge: k,
                        });
                    }
                }
            }
        }
        out
    }

    /// The shortest cycle through any candidate, by rounds of growing
    /// length limits (3, 5, 8, 12, …): within a round every candidate's
    /// search stops at the limit or at the shortest cycle found so far, so
    /// the first round that finds a cycle proves it the shortest, and the
    /// searches never go far beyond it. A round in which no search reached
    /// its limit shows there is no cycle of the class.
    fn deepening(
        &mut self,
        comps: &Components,
        c: u32,
        spec: Spec,
        rank: Option<&[u32]>,
    ) -> (Option<Found>, bool) {
        if let Some(f) = self.two_edge_cycle(comps, c, spec) {
            return (Some(f), false);
        }
        let candidates = self.candidates(comps, c, spec, rank);
        let mut limit = 3u32;
        // No cycle is shorter than this (the rounds before found none).
        let mut least = 3u32;
        loop {
            let mut best: Option<Found> = None;
            let mut limited = false;
            for &cand in &candidates {
                if self.work > self.budget {
                    return (
                        best.or_else(|| self.any_cycle(comps, c, spec, &candidates, rank)),
                        true,
                    );
                }
                let bound = best.as_ref().map_or(limit + 1, |f| f.cost);
                let (found, hit) = self.closing(comps, c, spec, cand, bound, rank);
                limited |= hit;
                if let Some(f) = found {
                    let done = f.cost <= least;
                    best = Some(f);
                    if done {
                        break;
                    }
                }
            }
            if best.is_some() || !limited {
                return (best, false);
            }
            least = limit + 1;
            limit = limit + limit / 2 + 1;
        }
    }

    /// When the exact search ran out of work: the first cycle of the class
    /// that a few unbounded searches find (a cycle, not proven the
    /// shortest).
    fn any_cycle(
        &mut self,
        comps: &Components,
        c: u32,
        spec: Spec,
        candidates: &[Hop],
        rank: Option<&[u32]>,
    ) -> Option<Found> {
        for &cand in candidates.iter().take(8) {
            if let (Some(f), _) = self.closing(comps, c, spec, cand, u32::MAX, rank) {
                return Some(f);
            }
        }
        None
    }

    /// For each candidate, the shortest cycle of the class through it
    /// (the components are `Components::whole`; `rank` of `spec.path`).
    pub fn each_closing(
        &mut self,
        comps: &Components,
        spec: Spec,
        cands: &[Hop],
        rank: &[u32],
    ) -> (Vec<Found>, bool) {
        let states = comps.members[0].len() << spec.need.count_ones();
        if self.stamp.len() < states {
            self.stamp.resize(states, 0);
            self.dist.resize(states, 0);
            self.pred.resize(states, 0);
            self.pred_edge.resize(states, 0);
        }
        self.work = 0;
        let mut out = Vec::new();
        for &cand in cands {
            if rank[cand.to as usize] < rank[cand.from as usize] {
                continue;
            }
            if self.work > self.budget {
                return (out, true);
            }
            if let (Some(f), _) = self.closing(comps, 0, spec, cand, u32::MAX, Some(rank)) {
                out.push(f);
            }
        }
        (out, false)
    }

    /// The shortest cycle of the class through `cand` that costs less than
    /// `bound`, and whether the search reached the bound.
    fn closing(
        &mut self,
        comps: &Components,
        c: u32,
        spec: Spec,
        cand: Hop,
        bound: u32,
        rank: Option<&[u32]>,
    ) -> (Option<Found>, bool) {
        let ge = self.g.gedges[cand.gedge as usize];
        let (path, hit) = self.path_back(comps, c, spec, cand, bound, rank);
        let Some(path) = path else {
            return (None, hit);
        };
        // The search finds walks; a walk that passes a node twice strings a
        // loop onto the cycle. Without its loops the cycle must still be of
        // the class (else the loops carried what the class needs, and the
        // loop-free cycle belongs to a class searched for on its own).
        let path = erase_loops(path);
        let flags = path
            .iter()
            .fold(0, |f, h| f | flag_of(self.g.gedges[h.gedge as usize].bit));
        if flags & spec.need != spec.need || self.exempt_pair(spec, ge, &path) {
            return (None, hit);
        }
        let cost = 1 + path
            .iter()
            .map(|h| cost_of(self.g.gedges[h.gedge as usize].bit))
            .sum::<u32>();
        if cost >= bound {
            return (None, hit);
        }
        let mut hops = vec![cand];
        hops.extend(path);
        (Some(Found { cost, hops }), hit)
    }

    /// The first cycle of two edges of the class in the component: a
    /// candidate `u → v` and an edge `v → u` that the path may use and that
    /// collects what the class needs.
    fn two_edge_cycle(&self, comps: &Components, c: u32, spec: Spec) -> Option<Found> {
        for &u in &comps.members[c as usize] {
            let (succ, bundles) = self.g.out(u);
            for (i, &v) in succ.iter().enumerate() {
                if comps.comp[v as usize] != c || bundles[i].mask & spec.candidate == 0 {
                    continue;
                }
                let (back, back_bundles) = self.g.out(v);
                let Ok(j) = back.binary_search(&u) else {
                    continue;
                };
                if back_bundles[j].mask & spec.path == 0 {
                    continue;
                }
                let b = bundles[i];
                let bb = back_bundles[j];
                for k in b.start..b.start + b.len {
                    let ge = self.g.gedges[k as usize];
                    if ge.bit & spec.candidate == 0 {
                        continue;
                    }
                    for l in bb.start..bb.start + bb.len {
                        let back_edge = self.g.gedges[l as usize];
                        let hop = Hop {
                            from: v,
                            to: u,
                            gedge: l,
                        };
                        if back_edge.bit & spec.path != 0
                            && flag_of(back_edge.bit) & spec.need == spec.need
                            && !self.exempt_pair(spec, ge, &[hop])
                        {
                            let cand = Hop {
                                from: u,
                                to: v,
                                gedge: k,
                            };
                            return Some(Found {
                                cost: 2,
                                hops: vec![cand, hop],
                            });
                        }
                    }
                }
            }
        }
        None
    }

    /// Whether the cycle is IsoRel's exempt pair: an rw edge from a plain
    /// read closed by a wr edge into a later locking read of the same
    /// transaction.
    fn exempt_pair(&self, spec: Spec, cand: GEdge, path: &[Hop]) -> bool {
        match path {
            [back] => {
                let ge = self.g.gedges[back.gedge as usize];
                spec.exempt
                    && cand.bit == RW_PLAIN
                    && ge.bit == WR_LOCK
                    && cand.stmt_lo < ge.stmt_hi
            }
            _ => false,
        }
    }

    /// The cheapest path from `cand.to` back to `cand.from` inside the
    /// component that collects `spec.need`, if one makes a cycle cheaper
    /// than `bound`.
    fn path_back(
        &mut self,
        comps: &Components,
        c: u32,
        spec: Spec,
        cand: Hop,
        bound: u32,
        rank: Option<&[u32]>,
    ) -> (Option<Vec<Hop>>, bool) {
        let cand_edge = self.g.gedges[cand.gedge as usize];
        let floor = rank.map_or(0, |r| r[cand.from as usize]);
        let need = spec.need;
        let bits = need.count_ones();
        let pack = |flags: u8| -> u32 {
            // the flags of `need`, packed into `bits` bits
            let mut out = 0u32;
            let mut j = 0;
            for b in 0..8 {
                if need & (1 << b) != 0 {
                    if flags & (1 << b) != 0 {
                        out |= 1 << j;
                    }
                    j += 1;
                }
            }
            out
        };
        let full = (1u32 << bits) - 1;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
        let gen = self.generation;
        let state = |node: u32, packed: u32| {
            ((comps.local[node as usize] as usize) << bits) | packed as usize
        };
        let (u, v) = (cand.from, cand.to);
        let s0 = state(v, 0);
        self.stamp[s0] = gen;
        self.dist[s0] = 0;
        self.pred[s0] = NONE;
        self.deque.clear();
        self.deque.push_back((v, 0));
        let exempt_rw = spec.exempt && cand_edge.bit == RW_PLAIN;
        // The start chain is walked no further than the node that enters
        // `u`: a path that goes further and still comes back to `u` holds an
        // edge against start order (see `Spec::timed`).
        let txns = self.g.txns as u32;
        let chain_end = match self.entry.get(u as usize) {
            Some(&k) if spec.timed && k > 0 => Some(txns + k - 1),
            _ => None,
        };
        while let Some((node, packed)) = self.deque.pop_front() {
            self.work += 1;
            if self.work > 2 * self.budget {
                return (None, true); // not even the fallback may go further
            }
            let s = state(node, packed);
            let d = self.dist[s];
            // States come out in order of cost, and a cycle through this
            // one costs at least d + 1 (the candidate): nothing left beats
            // `bound`.
            if d.saturating_add(1) >= bound {
                return (None, true);
            }
            if node == u {
                if packed == full {
                    return (Some(self.unwind(comps, bits, u, packed)), false);
                }
                continue; // a walk through `u` is no simple cycle
            }
            let (succ, bundles) = self.g.out(node);
            for (i, &w) in succ.iter().enumerate() {
                let b = bundles[i];
                if comps.comp[w as usize] != c || b.mask & spec.path == 0 {
                    continue;
                }
                if w == v || (w >= txns && chain_end.is_none_or(|end| w > end)) {
                    continue; // nor is a walk back through `v`
                }
                if rank.is_some_and(|r| r[w as usize] < floor) {
                    continue;
                }
                for k in b.start..b.start + b.len {
                    self.work += 1;
                    let ge = self.g.gedges[k as usize];
                    if ge.bit & spec.path == 0 {
                        continue;
                    }
                    if exempt_rw
                        && node == v
                        && w == u
                        && ge.bit == WR_LOCK
                        && cand_edge.stmt_lo < ge.stmt_hi
                    {
                        continue; // IsoRel's locking-read exemption
                    }
                    let np = packed | pack(flag_of(ge.bit));
                    let nd = d + cost_of(ge.bit);
                    let t = state(w, np);
                    if self.stamp[t] == gen && self.dist[t] <= nd {
                        continue;
                    }
                    self.stamp[t] = gen;
                    self.dist[t] = nd;
                    self.pred[t] = s as u32;
                    self.pred_edge[t] = k;
                    if nd == d {
                        self.deque.push_front((w, np));
                    } else {
                        self.deque.push_back((w, np));
                    }
                }
            }
        }
        (None, false)
    }

    /// The path to `(u, packed)` read back from the predecessors.
    fn unwind(&self, comps: &Components, bits: u32, u: u32, packed: u32) -> Vec<Hop> {
        let members = &comps.members[comps.comp[u as usize] as usize];
        let node_of = |s: usize| members[s >> bits];
        let mut s = ((comps.local[u as usize] as usize) << bits) | packed as usize;
        let mut hops = Vec::new();
        while self.pred[s] != NONE {
            let p = self.pred[s] as usize;
            hops.push(Hop {
                from: node_of(p),
                to: node_of(s),
                gedge: self.pred_edge[s],
            });
            s = p;
        }
        hops.reverse();
        hops
    }
}

/// The path without its loops: where a node comes again, the hops between
/// its two visits go.
fn erase_loops(path: Vec<Hop>) -> Vec<Hop> {
    let mut out: Vec<Hop> = Vec::with_capacity(path.len());
    // node → index of the hop in `out` that leaves it
    let mut leaves: crate::fx::FxMap<u32, usize> = crate::fx::FxMap::default();
    for hop in path {
        if let Some(&i) = leaves.get(&hop.to) {
            for h in out.drain(i..) {
                leaves.remove(&h.from);
            }
            continue;
        }
        leaves.insert(hop.from, out.len());
        out.push(hop);
    }
    out
}
