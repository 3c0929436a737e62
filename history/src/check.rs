//! [`check`]: from a history to its report.

use crate::fx::FxMap;
use crate::graph::{
    tarjan, Adjacency, Bundle, Components, DepGraph, Found, GEdge, Hop, Searcher, Spec, DSG, F_RW,
    F_SO, F_START, F_WRITE, RW, RW_LOCK, RW_PLAIN, SO, START, VSTART, WR, WR_LOCK, WR_PLAIN, WW,
};
use crate::history::{History, Interval, ReadKind, TxnId, T0};
use crate::infer::{infer, read_code, read_of, resolve, RawEdge, Txns, Via, NONE};
use crate::report::{
    Anomaly, DepKind, Edge, Options, Phenomenon, Report, SqlAnomaly, StartOrder, Stats, Violation,
};

/// Infers the dependency edges of `history`, finds its anomalies (one
/// shortest cycle per class per strongly connected component, one G-SIb
/// cycle per rw edge that misses an effect, and the phenomena that are not
/// cycles) and the violations of what every level guarantees.
/// Deterministic: the same history gives the same report.
///
/// Costs O(n log n) in the size of the history (observations, version-list
/// entries, edges), plus the cycle searches inside strongly connected
/// components, each bounded by about twice the size of the graph it
/// searches (see [`Stats::searches_cut`]).
pub fn check(history: &History, options: &Options) -> Report {
    let (mut txns, dense) = resolve(history);
    txns.intermediate_cycles = options.intermediate_reads_in_cycles;
    let mut inf = infer(history, &txns, &dense, options.list_edges);
    drop(dense);
    if options.session_order {
        session_edges(history, &txns, &mut inf.edges);
    }
    let (edges, start) = distinct(std::mem::take(&mut inf.edges), txns.ids.len());
    let timing = Timing::new(history, &txns, options);
    let raw = RawGraph {
        edges: &edges,
        start: &start,
        t: &txns,
    };
    let ctx = Ctx {
        h: history,
        t: &txns,
        edges: &edges,
        timing: &timing,
    };
    let mut anomalies = Vec::new();
    let mut stats = Stats {
        transactions: history.len(),
        committed: 0,
        aborted: 0,
        unknown: 0,
        observations: history.obs.len(),
        rows: history.rows.len(),
        edges: edges.len(),
        graph_edges: 0,
        components: 0,
        largest_component: 0,
        exempted_cycles: 0,
        searches_cut: 0,
        start_order: timing.coverage,
    };
    for d in 1..txns.ids.len() {
        match txns.outcome[d] {
            crate::TxnOutcome::Committed => stats.committed += 1,
            crate::TxnOutcome::Aborted => stats.aborted += 1,
            crate::TxnOutcome::Unknown => stats.unknown += 1,
        }
    }
    let g_si = timing.coverage != StartOrder::Off;
    let scan = scan(&raw, &timing, options.exempt_locking_reads, g_si);
    stats.graph_edges = scan.typed_edges;
    stats.exempted_cycles = scan.exempted;

    // The dependency graph's strongly connected components, straight from
    // the sorted edges; the cycle classes are searched in a graph of only
    // the transactions in them.
    let dsg = tarjan(
        &raw,
        if options.session_order { DSG | SO } else { DSG },
        None,
    );
    stats.components = dsg.members.len();
    stats.largest_component = dsg.members.iter().map(Vec::len).max().unwrap_or(0);
    if !dsg.members.is_empty() {
        let core = build_graph(&edges, &txns, &timing, Some(&dsg));
        classes(&ctx, &core, &dsg, options, &mut anomalies, &mut stats);
    }
    drop(dsg);
    if g_si {
        g_si_b(&ctx, scan.direct, &scan.rest, &mut anomalies, &mut stats);
        ctx.g_si_a(&scan.g_si_a, &mut anomalies);
    }
    ctx.g1(&mut inf, &mut anomalies);

    sort_anomalies(&mut anomalies);
    let mut violations = inf.violations;
    violations.sort_by_key(violation_key);
    let edges = if options.list_edges {
        let mut out: Vec<Edge> = edges.iter().map(|e| ctx.edge(e)).collect();
        out.sort_by(|a, b| {
            (a.from, a.to, a.kind, a.row, a.read).cmp(&(b.from, b.to, b.kind, b.row, b.read))
        });
        out
    } else {
        Vec::new()
    };
    Report {
        edges,
        anomalies,
        violations,
        stats,
    }
}

/// The cycle classes, each searched in the components of the edges it may
/// use (inside the dependency graph's own components `dsg`), one shortest
/// cycle per class and component.
fn classes(
    ctx: &Ctx<'_>,
    graph: &DepGraph,
    dsg: &Components,
    options: &Options,
    anomalies: &mut Vec<Anomaly>,
    stats: &mut Stats,
) {
    let nodes: u64 = dsg.members.iter().map(|m| m.len() as u64).sum();
    // Each exact search may look at about twice the graph's size.
    let budget = 2 * (nodes + graph.gedges.len() as u64) + (1 << 22);
    let mut searcher = Searcher::new(graph, budget, &[]);
    let exempt = options.exempt_locking_reads;
    let spec = |candidate, path, need| Spec {
        candidate,
        path,
        need,
        exempt,
        timed: false,
    };
    let classes = [
        (Phenomenon::G0, spec(WW, WW, 0)),
        (Phenomenon::G1c, spec(WR, WW | WR, 0)),
        // G-single, in two families the vendor models tell apart: reads
        // only (rw plus wr into plain reads), and with a write (a ww edge or
        // a wr edge into a locking read).
        (Phenomenon::GSingle, spec(RW, WR_PLAIN, 0)),
        (Phenomenon::GSingle, spec(RW, WW | WR, F_WRITE)),
        (Phenomenon::G2Item, spec(RW, DSG, F_RW)),
    ];
    for (phenomenon, spec) in classes {
        let comps = tarjan(graph, spec.candidate | spec.path, Some(dsg));
        // Where the path back has no rw edge, its subgraph's ranks bound
        // the search.
        let ranks = (spec.path & RW == 0 && spec.path != spec.candidate)
            .then(|| tarjan(graph, spec.path, Some(dsg)).rank);
        let mut covered = vec![
            false;
            if options.session_order {
                graph.nodes
            } else {
                0
            }
        ];
        for c in 0..comps.members.len() as u32 {
            let (found, cut) = searcher.shortest(&comps, c, spec, ranks.as_deref());
            stats.searches_cut += usize::from(cut);
            if !found.is_empty() {
                for &m in &comps.members[c as usize] {
                    if let Some(x) = covered.get_mut(m as usize) {
                        *x = true;
                    }
                }
            }
            for f in found {
                anomalies.push(ctx.cycle(graph, phenomenon, &f, false));
            }
        }
        if !options.session_order {
            continue;
        }
        // Cycles of the class that need session order, in components
        // where the class has none without it.
        let session = Spec {
            path: spec.path | SO,
            need: spec.need | F_SO,
            ..spec
        };
        let comps = tarjan(graph, session.candidate | session.path, Some(dsg));
        let ranks = (session.path & RW == 0).then(|| tarjan(graph, session.path, Some(dsg)).rank);
        for c in 0..comps.members.len() as u32 {
            if comps.members[c as usize]
                .iter()
                .any(|&m| covered[m as usize])
            {
                continue;
            }
            let (found, cut) = searcher.shortest(&comps, c, session, ranks.as_deref());
            stats.searches_cut += usize::from(cut);
            for f in found {
                anomalies.push(ctx.cycle(graph, phenomenon, &f, true));
            }
        }
    }
}

/// G-SIb, in the two families of G-single, closing through start order,
/// from each rw edge whose writer may have committed before its reader
/// started (see `Spec::timed`). A writer that certainly committed before
/// its reader started makes the shortest cycle there is, the rw edge and a
/// start edge (the family with a write needs no cycle of its own there);
/// only the other candidates need the graph with the start chain, and a
/// search.
fn g_si_b(
    ctx: &Ctx<'_>,
    direct: Vec<(u32, u32, Vec<usize>)>,
    rest: &[(u32, u32)],
    anomalies: &mut Vec<Anomaly>,
    stats: &mut Stats,
) {
    let timing = ctx.timing;
    for (u, v, cands) in direct {
        let hops = vec![(u, v, cands), (v, u, Vec::new())];
        anomalies.push(ctx.cycle_of_hops(Phenomenon::GSIb, hops, false));
    }
    if rest.is_empty() {
        return;
    }
    let full = build_graph(ctx.edges, ctx.t, timing, None);
    if full.nodes == full.txns {
        return;
    }
    let entry: Vec<u32> = (0..ctx.t.ids.len() as u32)
        .map(|d| timing.before_start(d) as u32)
        .collect();
    let budget = 2 * (full.nodes as u64 + full.gedges.len() as u64) + (1 << 22);
    let mut searcher = Searcher::new(&full, budget, &entry);
    let hops: Vec<Hop> = rest
        .iter()
        .filter_map(|&(u, v)| {
            let (succ, bundles) = full.out(u);
            let i = succ.binary_search(&v).ok()?;
            let b = bundles[i];
            (b.start..b.start + b.len)
                .find(|&k| full.gedges[k as usize].bit & RW != 0)
                .map(|k| Hop {
                    from: u,
                    to: v,
                    gedge: k,
                })
        })
        .collect();
    let all = Components::whole(full.nodes);
    let spec = |path, need| Spec {
        candidate: RW,
        path,
        need,
        exempt: false,
        timed: true,
    };
    for spec in [
        spec(WR_PLAIN | VSTART | START, F_START),
        spec(WW | WR | VSTART | START, F_START | F_WRITE),
    ] {
        let ranks = tarjan(&full, spec.path, None).rank;
        let (found, cut) = searcher.each_closing(&all, spec, &hops, &ranks);
        stats.searches_cut += usize::from(cut);
        for f in found {
            anomalies.push(ctx.cycle(&full, Phenomenon::GSIb, &f, false));
        }
    }
}

/// The sorted distinct edges as an adjacency for Tarjan: only edges that
/// cycles may use (between committed transactions, not from T0, not an
/// intermediate read's rw edge to its own writer).
struct RawGraph<'a> {
    edges: &'a [RawEdge],
    /// Transaction `d`'s edges are `edges[start[d]..start[d + 1]]`.
    start: &'a [usize],
    t: &'a Txns,
}

impl RawGraph<'_> {
    fn usable(&self, e: &RawEdge) -> bool {
        self.t.usable_via(e.via)
            && e.from != 0
            && self.t.committed(e.from)
            && self.t.committed(e.to)
    }
}

/// What one pass over the sorted edges finds, pair of transactions by pair.
struct Scan {
    /// Typed edges between committed transactions (pair, kind, read kind).
    typed_edges: usize,
    /// Two-transaction cycles the locking-read exemption sets aside.
    exempted: usize,
    /// G-SIa: (from, to, its first ww or wr edge).
    g_si_a: Vec<(u32, u32, usize)>,
    /// G-SIb where the writer certainly committed before the reader
    /// started: (reader, writer, the rw edges).
    direct: Vec<(u32, u32, Vec<usize>)>,
    /// G-SIb candidates that need a search: (reader, writer).
    rest: Vec<(u32, u32)>,
}

fn scan(raw: &RawGraph<'_>, timing: &Timing, exempt: bool, g_si: bool) -> Scan {
    let edges = raw.edges;
    let mut out = Scan {
        typed_edges: 0,
        exempted: 0,
        g_si_a: Vec::new(),
        direct: Vec::new(),
        rest: Vec::new(),
    };
    let mut rw: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < edges.len() {
        let (f, to) = (edges[i].from, edges[i].to);
        let pair = f != 0 && raw.t.committed(f) && raw.t.committed(to);
        let mut last_bit = 0u8;
        let mut write_read = None;
        let mut lock_hi: Option<u32> = None;
        rw.clear();
        while i < edges.len() && edges[i].from == f && edges[i].to == to {
            let e = &edges[i];
            if pair && raw.t.usable_via(e.via) {
                let bit = bit_of(e);
                if bit != last_bit {
                    out.typed_edges += 1;
                    last_bit = bit;
                }
                match bit {
                    WW | WR_PLAIN => {
                        write_read.get_or_insert(i);
                    }
                    WR_LOCK => {
                        write_read.get_or_insert(i);
                        lock_hi = Some(lock_hi.map_or(e.stmt_index, |h| h.max(e.stmt_index)));
                    }
                    RW_PLAIN | RW_LOCK => rw.push(i),
                    _ => {}
                }
            }
            i += 1;
        }
        if !pair {
            continue;
        }
        if g_si {
            if let (Some(k), Some(ended), Some(started)) = (
                write_read,
                timing.ended[f as usize],
                timing.started[to as usize],
            ) {
                if started.certainly_before(&ended) {
                    out.g_si_a.push((f, to, k));
                }
            }
            if let (false, Some(started), Some(ended)) = (
                rw.is_empty(),
                timing.started[f as usize],
                timing.ended[to as usize],
            ) {
                if ended.certainly_before(&started) {
                    out.direct.push((f, to, rw.clone()));
                } else if !started.certainly_before(&ended) {
                    out.rest.push((f, to));
                }
            }
        }
        if let (true, Some(hi)) = (exempt, lock_hi) {
            // `to` read `f`'s write with a locking read; did an earlier
            // plain read of `to` miss a write of `f`?
            let back = &edges[raw.start[to as usize]..raw.start[to as usize + 1]];
            let first = back.partition_point(|e| e.to < f);
            let lo = back[first..]
                .iter()
                .take_while(|e| e.to == f)
                .filter(|e| bit_of(e) == RW_PLAIN && raw.usable(e))
                .map(|e| e.stmt_index)
                .min();
            if lo.is_some_and(|lo| lo < hi) {
                out.exempted += 1;
            }
        }
    }
    out
}

impl Adjacency for RawGraph<'_> {
    fn node_count(&self) -> usize {
        self.t.ids.len()
    }

    fn degree(&self, v: u32) -> usize {
        self.start[v as usize + 1] - self.start[v as usize]
    }

    fn succ(&self, v: u32, i: usize, mask: u8) -> Option<u32> {
        let e = &self.edges[self.start[v as usize] + i];
        (bit_of(e) & mask != 0 && self.usable(e)).then_some(e.to)
    }
}

/// Session-order edges between consecutive committed transactions of each
/// session (aborted and unfinished ones are skipped over).
fn session_edges(h: &History, t: &Txns, edges: &mut Vec<RawEdge>) {
    let mut last: FxMap<u64, u32> = FxMap::default();
    for d in 1..t.known as u32 {
        let txn = &h.txns[d as usize];
        let Some(s) = txn.session else { continue };
        if !t.committed(d) {
            continue;
        }
        if let Some(p) = last.insert(s, d) {
            edges.push(RawEdge {
                from: p,
                to: d,
                row: NONE,
                a: NONE,
                b: NONE,
                pos: NONE,
                stmt_index: NONE,
                kind: DepKind::SO,
                read: 0,
                via: Via::Session,
            });
        }
    }
}

/// The distinct edges, sorted by (from, to, kind, read, row); of several
/// derivations of one edge the first in (via, observations) order stays.
/// With each transaction's first edge (and one past the last).
fn distinct(raw: Vec<RawEdge>, n: usize) -> (Vec<RawEdge>, Vec<usize>) {
    let mut start = vec![0usize; n + 1];
    for e in &raw {
        start[e.from as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = raw.clone();
    for e in &raw {
        out[fill[e.from as usize]] = *e;
        fill[e.from as usize] += 1;
    }
    drop(raw);
    drop(fill);
    let key = |e: &RawEdge| (e.to, e.kind, e.read, e.row, e.via, e.a, e.b, e.pos);
    for f in 0..n {
        out[start[f]..start[f + 1]].sort_unstable_by_key(key);
    }
    out.dedup_by(|b, a| {
        (a.from, a.to, a.kind, a.read, a.row) == (b.from, b.to, b.kind, b.read, b.row)
    });
    let mut start = vec![0usize; n + 1];
    for e in &out {
        start[e.from as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    (out, start)
}

/// The transactions' timing, as G-SI uses it.
struct Timing {
    coverage: StartOrder,
    /// Per dense transaction: (started, ended) when usable.
    started: Vec<Option<Interval>>,
    ended: Vec<Option<Interval>>,
    /// The start chain: transactions with an end time, by latest end
    /// (made when a G-SIb search needs it).
    order: std::cell::OnceCell<Vec<u32>>,
}

impl Timing {
    fn new(h: &History, t: &Txns, options: &Options) -> Timing {
        let n = t.ids.len();
        let mut timing = Timing {
            coverage: StartOrder::Off,
            started: vec![None; n],
            ended: vec![None; n],
            order: std::cell::OnceCell::new(),
        };
        if !options.start_order {
            return timing;
        }
        let (mut timed, mut untimed) = (0, 0);
        for d in 1..t.known {
            if !t.committed(d as u32) {
                continue;
            }
            let txn = &h.txns[d];
            let sane = match (txn.started, txn.ended) {
                (Some(s), Some(e)) => e.latest >= s.earliest,
                _ => true,
            };
            if !sane {
                untimed += 1;
                continue;
            }
            timing.started[d] = txn.started;
            timing.ended[d] = txn.ended;
            if txn.started.is_some() && txn.ended.is_some() {
                timed += 1;
            } else {
                untimed += 1;
            }
        }
        timing.coverage = match (timed, untimed) {
            (0, _) => StartOrder::NoTiming,
            (timed, 0) => StartOrder::Full { timed },
            (timed, untimed) => StartOrder::Partial { timed, untimed },
        };

        timing
    }

    /// The start chain's transactions, by latest end.
    fn order(&self) -> &[u32] {
        self.order.get_or_init(|| {
            let mut order: Vec<u32> = (1..self.ended.len() as u32)
                .filter(|&d| self.ended[d as usize].is_some())
                .collect();
            order.sort_by_key(|&d| (self.ended[d as usize].map(|e| e.latest), d));
            order
        })
    }

    /// How many chain transactions certainly committed before `d` started.
    fn before_start(&self, d: u32) -> usize {
        match self.started[d as usize] {
            Some(s) => self.order().partition_point(|&o| {
                self.ended[o as usize].expect("in the chain").latest < s.earliest
            }),
            None => 0,
        }
    }
}

/// Builds the graph of committed transactions (T0 left out: nothing
/// enters it): with `core`, only the edges inside its components; else all,
/// with the start chain when there is timing.
fn build_graph(
    edges: &[RawEdge],
    t: &Txns,
    timing: &Timing,
    core: Option<&Components>,
) -> DepGraph {
    let n = t.ids.len();
    let in_graph = |d: u32| d != 0 && t.committed(d);
    let same_core = |f: u32, to: u32| {
        core.is_none_or(|c| c.comp[f as usize] != NONE && c.comp[f as usize] == c.comp[to as usize])
    };
    let mut pairs: Vec<(u32, u32, Bundle)> = Vec::new();
    let mut gedges: Vec<GEdge> = Vec::new();
    // start chain: position of each transaction in it, and who enters from
    // each chain node
    let order: &[u32] = if core.is_none() { timing.order() } else { &[] };
    let m = order.len();
    let mut chain_pos = vec![NONE; n];
    for (k, &d) in order.iter().enumerate() {
        chain_pos[d as usize] = k as u32;
    }
    let mut enter: Vec<(u32, u32)> = Vec::new(); // (chain index, transaction)
    for d in (1..n as u32).filter(|_| core.is_none()) {
        if timing.started[d as usize].is_some() {
            let k = timing.before_start(d);
            if k > 0 && m > 0 {
                enter.push((k as u32 - 1, d));
            }
        }
    }
    let chain = core.is_none() && !enter.is_empty();
    enter.sort_unstable();
    // The start chain's edges all share two typed edges.
    let shared = |bit| GEdge {
        bit,
        raw: NONE,
        raw_len: 0,
        stmt_lo: NONE,
        stmt_hi: 0,
    };
    gedges.push(shared(VSTART));
    gedges.push(shared(START));
    let start_gedge = |_: &mut Vec<GEdge>, bit: u8| Bundle {
        start: u32::from(bit == START),
        len: 1,
        mask: bit,
    };
    let mut i = 0;
    for f in 0..n as u32 {
        while i < edges.len() && edges[i].from == f {
            let to = edges[i].to;
            let mut j = i;
            while j < edges.len() && edges[j].from == f && edges[j].to == to {
                j += 1;
            }
            if in_graph(f) && in_graph(to) && f != to && same_core(f, to) {
                let start = gedges.len() as u32;
                let mut k = i;
                let mut mask = 0u8;
                while k < j {
                    let bit = bit_of(&edges[k]);
                    let mut l = k;
                    let mut ge = GEdge {
                        bit,
                        raw: k as u32,
                        raw_len: 0,
                        stmt_lo: NONE,
                        stmt_hi: 0,
                    };
                    let mut usable = false;
                    while l < j && bit_of(&edges[l]) == bit {
                        let e = &edges[l];
                        if t.usable_via(e.via) {
                            usable = true;
                            ge.stmt_lo = ge.stmt_lo.min(e.stmt_index);
                            if e.stmt_index != NONE {
                                ge.stmt_hi = ge.stmt_hi.max(e.stmt_index);
                            }
                        }
                        l += 1;
                    }
                    ge.raw_len = (l - k) as u32;
                    if usable {
                        mask |= bit;
                        gedges.push(ge);
                    }
                    k = l;
                }
                let len = gedges.len() as u32 - start;
                if len > 0 {
                    pairs.push((f, to, Bundle { start, len, mask }));
                }
            }
            i = j;
        }
        if chain && chain_pos[f as usize] != NONE && in_graph(f) {
            let b = start_gedge(&mut gedges, VSTART);
            pairs.push((f, n as u32 + chain_pos[f as usize], b));
        }
    }
    if chain {
        let mut e = 0;
        for k in 0..m as u32 {
            while e < enter.len() && enter[e].0 == k {
                let b = start_gedge(&mut gedges, START);
                pairs.push((n as u32 + k, enter[e].1, b));
                e += 1;
            }
            if (k as usize) + 1 < m {
                let b = start_gedge(&mut gedges, VSTART);
                pairs.push((n as u32 + k, n as u32 + k + 1, b));
            }
        }
    }
    DepGraph::new(&pairs, gedges, n + if chain { m } else { 0 }, n)
}

/// The graph kind of an edge.
fn bit_of(e: &RawEdge) -> u8 {
    match (e.kind, read_of(e.read)) {
        (DepKind::WW, _) => WW,
        (DepKind::WR, Some(ReadKind::Locking)) => WR_LOCK,
        (DepKind::WR, _) => WR_PLAIN,
        (DepKind::RW, Some(ReadKind::Locking)) => RW_LOCK,
        (DepKind::RW, _) => RW_PLAIN,
        (DepKind::SO, _) => SO,
        (DepKind::Start, _) => START,
    }
}

/// What the assembly of anomalies reads.
struct Ctx<'a> {
    h: &'a History,
    t: &'a Txns,
    edges: &'a [RawEdge],
    timing: &'a Timing,
}

impl Ctx<'_> {
    fn id(&self, d: u32) -> TxnId {
        self.t.ids[d as usize]
    }

    /// A found cycle as an anomaly: start chains collapse into start edges,
    /// and where the hops can all be on one row, they are.
    fn cycle(
        &self,
        graph: &DepGraph,
        phenomenon: Phenomenon,
        found: &Found,
        session: bool,
    ) -> Anomaly {
        let n = graph.txns as u32;
        // (from, to, candidates) per hop; candidates empty for start hops
        let mut hops: Vec<(u32, u32, Vec<usize>)> = Vec::new();
        let mut chain_from = NONE;
        for hop in &found.hops {
            if hop.to >= n {
                if hop.from < n {
                    chain_from = hop.from;
                }
                continue;
            }
            if hop.from >= n {
                hops.push((chain_from, hop.to, Vec::new()));
                continue;
            }
            let ge = graph.gedges[hop.gedge as usize];
            let cands: Vec<usize> = (ge.raw as usize..(ge.raw + ge.raw_len) as usize)
                .filter(|&k| self.t.usable_via(self.edges[k].via))
                .collect();
            hops.push((hop.from, hop.to, cands));
        }
        self.cycle_of_hops(phenomenon, hops, session)
    }

    /// A cycle given as hops `(from, to, candidate edges)` (no candidates: a
    /// start edge) as an anomaly.
    fn cycle_of_hops(
        &self,
        phenomenon: Phenomenon,
        hops: Vec<(u32, u32, Vec<usize>)>,
        session: bool,
    ) -> Anomaly {
        let row = common_row(self.edges, &hops);
        let cycle: Vec<Edge> = hops
            .iter()
            .map(|(from, to, cands)| {
                if cands.is_empty() {
                    self.start_edge(*from, *to)
                } else {
                    let k = row
                        .and_then(|r| cands.iter().copied().find(|&k| self.edges[k].row == r))
                        .unwrap_or(cands[0]);
                    self.edge(&self.edges[k])
                }
            })
            .collect();
        let subtype = subtype(phenomenon, &cycle);
        let mut transactions: Vec<TxnId> = cycle.iter().flat_map(|e| [e.from, e.to]).collect();
        transactions.sort_unstable();
        transactions.dedup();
        Anomaly {
            phenomenon,
            subtype,
            cycle,
            evidence: Vec::new(),
            transactions,
            needs_session_order: session,
        }
    }

    /// G-SIa: a ww or wr edge into a transaction that certainly started
    /// before its source committed. One anomaly per pair.
    fn g_si_a(&self, found: &[(u32, u32, usize)], out: &mut Vec<Anomaly>) {
        for &(u, v, k) in found {
            let ended = self.timing.ended[u as usize].expect("scanned with timing");
            let started = self.timing.started[v as usize].expect("scanned with timing");
            let mut edge = self.edge(&self.edges[k]);
            edge.evidence.push_str(&format!(
                "; {} started by {} µs, before {} committed (not before {} µs)",
                self.t.label(self.h, v),
                started.latest,
                self.t.label(self.h, u),
                ended.earliest
            ));
            let mut transactions = vec![self.id(u), self.id(v)];
            transactions.sort_unstable();
            out.push(Anomaly {
                phenomenon: Phenomenon::GSIa,
                subtype: None,
                cycle: Vec::new(),
                evidence: vec![edge],
                transactions,
                needs_session_order: false,
            });
        }
    }

    /// G1a and G1b, one anomaly per (writer, reader).
    fn g1(&self, inf: &mut crate::infer::Inference, out: &mut Vec<Anomaly>) {
        inf.g1a
            .sort_unstable_by_key(|g| (g.writer, g.reader, g.obs));
        inf.g1a.dedup_by_key(|g| (g.writer, g.reader));
        for g in &inf.g1a {
            let rec = self.h.obs[g.obs as usize];
            let stmt = &self.h.stmts[rec.stmt as usize];
            let delete = rec.kind == ReadKind::BeforeDelete;
            let e = RawEdge {
                from: g.writer,
                to: g.reader,
                row: rec.row,
                a: g.obs,
                b: NONE,
                pos: rec.len,
                stmt_index: stmt.index,
                kind: if delete { DepKind::WW } else { DepKind::WR },
                read: read_code(rec.kind),
                via: if delete { Via::Delete } else { Via::List },
            };
            let mut transactions = vec![self.id(g.writer), self.id(g.reader)];
            transactions.sort_unstable();
            out.push(Anomaly {
                phenomenon: Phenomenon::G1a,
                subtype: Some(SqlAnomaly::DirtyRead),
                cycle: Vec::new(),
                evidence: vec![self.edge(&e)],
                transactions,
                needs_session_order: false,
            });
        }
        inf.g1b
            .sort_unstable_by_key(|g| (g.writer, g.reader, g.obs, g.later));
        inf.g1b.dedup_by_key(|g| (g.writer, g.reader));
        for g in &inf.g1b {
            let rec = self.h.obs[g.obs as usize];
            let stmt = &self.h.stmts[rec.stmt as usize];
            let read = RawEdge {
                from: g.writer,
                to: g.reader,
                row: rec.row,
                a: g.obs,
                b: NONE,
                pos: rec.len,
                stmt_index: stmt.index,
                kind: DepKind::WR,
                read: read_code(rec.kind),
                via: Via::List,
            };
            let again = RawEdge {
                from: g.reader,
                to: g.writer,
                b: g.later,
                pos: g.pos,
                kind: DepKind::RW,
                via: g.via,
                ..read
            };
            let mut transactions = vec![self.id(g.writer), self.id(g.reader)];
            transactions.sort_unstable();
            out.push(Anomaly {
                phenomenon: Phenomenon::G1b,
                subtype: Some(SqlAnomaly::IntermediateRead),
                cycle: Vec::new(),
                evidence: vec![self.edge(&read), self.edge(&again)],
                transactions,
                needs_session_order: false,
            });
        }
    }

    /// A start-order edge.
    fn start_edge(&self, from: u32, to: u32) -> Edge {
        let ended = self.timing.ended[from as usize].expect("start edges leave timed transactions");
        let started =
            self.timing.started[to as usize].expect("start edges enter timed transactions");
        Edge {
            from: self.id(from),
            to: self.id(to),
            kind: DepKind::Start,
            row: None,
            table: None,
            read: None,
            evidence: format!(
                "{} committed by {} µs; {} started at {} µs or later",
                self.t.label(self.h, from),
                ended.latest,
                self.t.label(self.h, to),
                started.earliest
            ),
        }
    }

    /// A public edge with its evidence text.
    fn edge(&self, e: &RawEdge) -> Edge {
        let h = self.h;
        let label = |d: u32| self.t.label(h, d);
        if e.kind == DepKind::SO {
            let session = h.txns[e.from as usize].session.unwrap_or(0);
            return Edge {
                from: self.id(e.from),
                to: self.id(e.to),
                kind: DepKind::SO,
                row: None,
                table: None,
                read: None,
                evidence: format!(
                    "{} and {} ran one after the other on session {session}",
                    label(e.from),
                    label(e.to)
                ),
            };
        }
        let row = &h.rows[e.row as usize];
        let table = h.tables[row.table as usize].clone();
        let stmt_a = h.stmt_label(h.obs[e.a as usize].stmt);
        let list_a = list_text(h, h.obs_list(e.a));
        let values = h.obs_values(e.a);
        let shown = if values.is_empty() {
            String::new()
        } else {
            format!(" = {values}")
        };
        let later = || {
            (
                h.stmt_label(h.obs[e.b as usize].stmt),
                list_text(h, h.obs_list(e.b)),
            )
        };
        let (from, to) = (label(e.from), label(e.to));
        let evidence = match (e.kind, e.via) {
            (DepKind::WR, _) => format!(
                "{stmt_a} read {table} row {}{shown} [{list_a}], written by {from}",
                row.id
            ),
            (DepKind::WW, Via::Write) | (DepKind::RW, Via::Write) => {
                let stmt_w = h.stmt_label(h.writes[e.b as usize].stmt);
                let what = if e.kind == DepKind::WW {
                    format!("{stmt_a} saw {table} row {}{shown} [{list_a}], its longest list", row.id)
                } else {
                    format!(
                        "{stmt_a} read {table} row {}{shown} [{list_a}], its longest list",
                        row.id
                    )
                };
                format!("{what}; {to} wrote the row ({stmt_w}) in a version no read returned, so after it")
            }
            (DepKind::WW, Via::Delete) => format!(
                "{stmt_a} (before its DELETE) saw {table} row {}{shown} [{list_a}]: {to} deleted the version {from} wrote",
                row.id
            ),
            (DepKind::WW, _) => format!(
                "{stmt_a} saw {table} row {}{shown} [{list_a}]: {to} wrote the version after {from}'s",
                row.id
            ),
            (DepKind::RW, Via::Delete) => {
                let (stmt_b, _) = later();
                format!(
                    "{stmt_a} read {table} row {}{shown} [{list_a}]; {to} deleted that version ({stmt_b})",
                    row.id
                )
            }
            (DepKind::RW, Via::NextOther) => {
                let (stmt_b, list_b) = later();
                let writer = h.label(*h.obs_list(e.a).last().expect("lists are not empty"));
                format!(
                    "{stmt_a} read {table} row {}{shown} [{list_a}], an intermediate version of {writer}; {stmt_b} saw [{list_b}]: {to} wrote the version after {writer}'s",
                    row.id
                )
            }
            (DepKind::RW, Via::Intermediate) => {
                let (stmt_b, list_b) = later();
                format!(
                    "{stmt_a} read {table} row {}{shown} [{list_a}]; {stmt_b} saw [{list_b}]: {to} wrote the row again after the version that read returned",
                    row.id
                )
            }
            (DepKind::RW, Via::IntermediateWrite) => {
                let stmt_w = h.stmt_label(h.writes[e.b as usize].stmt);
                format!(
                    "{stmt_a} read {table} row {}{shown} [{list_a}]; {to} wrote the row again afterwards ({stmt_w})",
                    row.id
                )
            }
            (DepKind::RW, _) => {
                let (stmt_b, list_b) = later();
                format!(
                    "{stmt_a} read {table} row {}{shown} [{list_a}]; {stmt_b} saw [{list_b}]: {to} wrote the next version",
                    row.id
                )
            }
            (DepKind::SO | DepKind::Start, _) => unreachable!("handled above"),
        };
        Edge {
            from: self.id(e.from),
            to: self.id(e.to),
            kind: e.kind,
            row: Some(row.id),
            table: Some(table),
            read: read_of(e.read),
            evidence,
        }
    }
}

/// A row that every hop with row edges can use, if there is one.
fn common_row(edges: &[RawEdge], hops: &[(u32, u32, Vec<usize>)]) -> Option<u32> {
    let mut rows: Option<Vec<u32>> = None;
    for (_, _, cands) in hops {
        if cands.is_empty() {
            continue;
        }
        let mut these: Vec<u32> = cands.iter().map(|&k| edges[k].row).collect();
        these.sort_unstable();
        these.dedup();
        rows = Some(match rows {
            None => these,
            Some(prev) => prev
                .into_iter()
                .filter(|r| these.binary_search(r).is_ok())
                .collect(),
        });
    }
    rows.and_then(|r| r.first().copied())
}

/// The SQL-level name of a cycle.
fn subtype(phenomenon: Phenomenon, cycle: &[Edge]) -> Option<SqlAnomaly> {
    match phenomenon {
        Phenomenon::G0 => Some(SqlAnomaly::DirtyWrite),
        Phenomenon::G2Item => Some(SqlAnomaly::WriteSkew),
        Phenomenon::GSingle | Phenomenon::GSIb => {
            let data: Vec<&Edge> = cycle
                .iter()
                .filter(|e| matches!(e.kind, DepKind::WW | DepKind::WR | DepKind::RW))
                .collect();
            let one_row = data.windows(2).all(|w| w[0].row == w[1].row);
            if data.iter().any(|e| e.kind == DepKind::WW) {
                Some(if one_row {
                    SqlAnomaly::LostUpdate
                } else {
                    SqlAnomaly::ReadWriteSkew
                })
            } else if data.iter().any(|e| e.kind == DepKind::WR) {
                Some(if one_row {
                    SqlAnomaly::NonRepeatableRead
                } else {
                    SqlAnomaly::ReadSkew
                })
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A version list for evidence: labels, the middle elided when long.
fn list_text(h: &History, list: &[TxnId]) -> String {
    let names = |s: &[TxnId]| s.iter().map(|&t| h.label(t)).collect::<Vec<_>>().join(",");
    if list.len() <= 12 {
        names(list)
    } else {
        format!(
            "{},…({} more)…,{}",
            names(&list[..2]),
            list.len() - 8,
            names(&list[list.len() - 6..])
        )
    }
}

fn sort_anomalies(anomalies: &mut [Anomaly]) {
    anomalies.sort_by(|a, b| {
        let key = |x: &Anomaly| {
            (
                x.phenomenon,
                x.needs_session_order,
                x.transactions.clone(),
                x.subtype,
                x.edges()
                    .iter()
                    .map(|e| (e.from, e.to, e.kind, e.row))
                    .collect::<Vec<_>>(),
            )
        };
        key(a).cmp(&key(b))
    });
}

fn violation_key(v: &Violation) -> (u8, u64, TxnId) {
    match v {
        Violation::ForkedVersions { row, .. } => (0, *row, T0),
        Violation::AbortedWriteSurvived { row, txn, .. } => (1, *row, *txn),
        Violation::OwnWriteLost { row, txn, .. } => (2, *row, *txn),
        Violation::UnknownWriter { row, txn, .. } => (3, *row, *txn),
        Violation::RowInTwoTables { row, .. } => (4, *row, T0),
    }
}
