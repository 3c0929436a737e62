//! The cycle search on hand-made graphs: its bound and its fallback.

use crate::graph::*;
use crate::infer::NONE;

/// A graph of typed edges `(from, to, bit)` over `n` transactions.
fn graph(n: usize, edges: &[(u32, u32, u8)]) -> DepGraph {
    let mut sorted = edges.to_vec();
    sorted.sort_unstable();
    let mut pairs = Vec::new();
    let mut gedges = Vec::new();
    for &(f, t, bit) in &sorted {
        gedges.push(GEdge {
            bit,
            raw: NONE,
            raw_len: 0,
            stmt_lo: NONE,
            stmt_hi: 0,
        });
        pairs.push((
            f,
            t,
            Bundle {
                start: gedges.len() as u32 - 1,
                len: 1,
                mask: bit,
            },
        ));
    }
    DepGraph::new(&pairs, gedges, n, n)
}

const G2: Spec = Spec {
    candidate: RW,
    path: DSG,
    need: F_RW,
    exempt: false,
    timed: false,
};

/// Two rw edges only in a cycle of five; one-rw cycles of two beside it.
fn five() -> DepGraph {
    graph(
        6,
        &[
            (0, 1, RW_PLAIN),
            (1, 2, WW),
            (2, 3, RW_PLAIN),
            (3, 4, WW),
            (4, 0, WW),
            (1, 0, WW),
            (3, 2, WR_PLAIN),
            (5, 0, WW),
        ],
    )
}

#[test]
fn the_shortest_cycle_with_two_rw_edges_is_found_past_the_first_rounds() {
    let g = five();
    let comps = tarjan(&g, DSG, None);
    assert_eq!(comps.members, vec![vec![0, 1, 2, 3, 4]]);
    let mut s = Searcher::new(&g, u64::MAX / 4, &[]);
    let (found, cut) = s.shortest(&comps, 0, G2, None);
    assert!(!cut);
    let [f] = found.as_slice() else {
        panic!("{}", found.len())
    };
    assert_eq!(f.cost, 5);
    let nodes: Vec<u32> = f.hops.iter().map(|h| h.from).collect();
    assert_eq!(nodes, vec![0, 1, 2, 3, 4]);
}

#[test]
fn a_search_cut_by_its_bound_still_reports_a_cycle_of_the_class() {
    let g = five();
    let comps = tarjan(&g, DSG, None);
    let mut cut_with_cycle = 0;
    for budget in 0..60 {
        let mut s = Searcher::new(&g, budget, &[]);
        let (found, cut) = s.shortest(&comps, 0, G2, None);
        for f in &found {
            let rw = f
                .hops
                .iter()
                .filter(|h| g.gedges[h.gedge as usize].bit & RW != 0)
                .count();
            assert!(rw >= 2, "budget {budget}: {:?}", f.hops);
        }
        if cut && !found.is_empty() {
            cut_with_cycle += 1;
        }
    }
    assert!(cut_with_cycle > 0, "no budget made the fallback report");
}

#[test]
fn tarjan_ranks_order_the_components() {
    // 0 → 1 → 2 ⇄ 3: every edge between components goes down in rank.
    let g = graph(4, &[(0, 1, WW), (1, 2, WW), (2, 3, WW), (3, 2, WW)]);
    let c = tarjan(&g, WW, None);
    assert_eq!(c.members, vec![vec![2, 3]]);
    assert!(c.rank[0] > c.rank[1] && c.rank[1] > c.rank[2]);
    assert_eq!(c.rank[2], c.rank[3]);
}
