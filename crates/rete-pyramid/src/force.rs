//! Members placed by their links: a force-directed layout of one level-0 community from its own
//! links (Fruchterman and Reingold 1991), so that clusters and hubs show when the community opens.
//!
//! It starts coarse to fine (Walshaw 2003): the community's graph is coarsened by matching
//! ([`crate::coarsen`]) to at most 8 nodes, which start from the sunflower by degree rank (hubs
//! in the middle, as files without positions draw) and relax for the full rounds; each finer
//! level starts at its coarse nodes' positions and is only refined, for a few rounds. A round
//! relaxes: linked members attract (`d² / k`, times √ of the triples linking them), all members
//! repel (`k² / d`, fading to nothing at two ideal distances) but only the neighbours found on a
//! grid, an even sample of at most [`NEAR`] of them counting for all, and a weak gravity keeps
//! the community round. A round therefore costs O(members + links), and the rounds of all levels
//! are capped by [`WORK`]: the layout of a community is bounded whatever its shape (a star's
//! spokes pile up in a few cells; the cap keeps that linear).
//!
//! Only `+ - * / sqrt` are used, in a fixed order (nodes and edges in index order, a grid cell's
//! nodes in index order), so the positions, and the file, are reproducible on any platform.

use crate::layout::{phyllotaxis, Circle};

/// Neighbours a member is pushed away from in one round, at most: where the 3 × 3 cells around
/// it hold more (a pile, a star's spokes), an even sample of them counts for all.
const NEAR: usize = 8;
/// Node and edge visits one community's layout may spend over all its rounds and levels (a
/// community of more than about 50,000 members gets fewer rounds on its own graph).
const WORK: usize = 2_000_000;
/// Gravity towards the centre: at the disc's edge, this share of a link's pull at the ideal
/// distance (0.3 kept a ring of 12 cliques a ring, linked pairs at 0.25 of the mean distance;
/// 0.05 and 1 gave 0.28 and 0.31).
const GRAVITY: f64 = 0.3;

/// Positions in the unit disc (the farthest at distance 1 from the centre) of `n` members with
/// `edges` `(a, b, triples)` between them (local indices, `a != b`); `rank[i]` is member `i`'s
/// degree rank, which places it on the starting sunflower. `None` when there is nothing to lay
/// out (no links, or too many members for even one round): the sunflower stays.
///
/// Coarse to fine: the graph is coarsened ([`crate::coarsen`]) to at most
/// [`crate::coarsen::COARSEST`] nodes, which are laid out from the sunflower for `rounds`
/// rounds; each finer level starts with its nodes at their coarse node's position (the two of
/// a pair a quarter of an ideal distance apart) and is refined for [`LEVEL_ROUNDS`] rounds, the
/// community's own graph for [`FINE_ROUNDS`]. All within [`WORK`] visits, the finest level's
/// rounds first.
pub(crate) fn by_links(
    n: usize,
    edges: &[(u32, u32, u32)],
    rank: &[u32],
    rounds: usize,
) -> Option<Vec<(f64, f64)>> {
    multilevel(n, edges, rank, rounds, &PLAN)
}

/// How a layout is carried out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// Whether to coarsen first.
    pub coarse: bool,
    /// Coarsen down to this many nodes.
    pub coarsest: usize,
    /// Rounds on the community's own graph after the coarser levels.
    pub fine: usize,
    /// Rounds on each level between.
    pub level: usize,
    /// Neighbours a member is pushed away from in a round, at most.
    pub near: usize,
}

/// The plan of [`by_links`].
pub(crate) const PLAN: Plan = Plan {
    coarse: true,
    coarsest: crate::coarsen::COARSEST,
    fine: FINE_ROUNDS,
    level: LEVEL_ROUNDS,
    near: NEAR,
};

/// [`by_links`] as `how` says; with `coarse` false, the layout of the community's own graph alone
/// from the sunflower (as files built before the coarse-to-fine start; the tests compare the two).
fn multilevel(
    n: usize,
    edges: &[(u32, u32, u32)],
    rank: &[u32],
    rounds: usize,
    how: &Plan,
) -> Option<Vec<(f64, f64)>> {
    if n < 2 || edges.is_empty() || rounds == 0 {
        return None;
    }
    let levels = if how.coarse {
        crate::coarsen::levels(n, edges, how.coarsest)
    } else {
        Vec::new()
    };
    // Each level's graph, finest first, and the rounds each gets within the budget.
    let mut graphs: Vec<(usize, Edges)> = vec![(n, edges)];
    graphs.extend(levels.iter().map(|l| (l.n, l.edges.as_slice())));
    let cost = |g: &(usize, Edges)| (g.0 * (how.near + 1) + g.1.len()).max(1);
    let last = graphs.len() - 1;
    let mut left = WORK;
    let mut plan = vec![0usize; graphs.len()];
    for (l, g) in graphs.iter().enumerate() {
        let want = if l == last {
            rounds
        } else if l == 0 {
            how.fine.min(rounds)
        } else {
            how.level.min(rounds)
        };
        plan[l] = want.min(left / cost(g));
        left -= plan[l] * cost(g);
    }
    if plan[0] == 0 {
        return None;
    }
    // The coarsest level starts on the sunflower, its nodes ranked by their best-ranked member.
    let coarse_n = graphs[last].0;
    let mut best = rank.to_vec();
    for l in &levels {
        let mut up = vec![u32::MAX; l.n];
        for (i, &p) in l.parent.iter().enumerate() {
            up[p as usize] = up[p as usize].min(best[i]);
        }
        best = up;
    }
    let mut order: Vec<u32> = (0..coarse_n as u32).collect();
    order.sort_by_key(|&i| (best[i as usize], i));
    let unit = Circle {
        x: 0.0,
        y: 0.0,
        r: 1.0,
    };
    let spots = phyllotaxis(coarse_n, unit);
    let mut start = vec![(0.0, 0.0); coarse_n];
    for (r, &i) in order.iter().enumerate() {
        start[i as usize] = spots[r];
    }
    let mut work = Work::default();
    let mut px: Vec<f64> = start.iter().map(|s| s.0).collect();
    let mut py: Vec<f64> = start.iter().map(|s| s.1).collect();
    work.relax(
        &mut px,
        &mut py,
        &start,
        graphs[last].1,
        Rounds {
            count: plan[last],
            step: 0.1,
            near: how.near,
        },
    );
    for l in (0..last).rev() {
        // Level `l`'s nodes at their coarse node's position, a pair apart along a direction of
        // the coarse node's own.
        let (fine_n, fine_edges) = graphs[l];
        let parent = &levels[l].parent;
        let k = ideal(fine_n);
        let mut seen = vec![false; graphs[l + 1].0];
        start = (0..fine_n)
            .map(|i| {
                let p = parent[i] as usize;
                let (ux, uy) = direction(p as u64);
                let s = if std::mem::replace(&mut seen[p], true) {
                    -0.125 * k
                } else {
                    0.125 * k
                };
                (px[p] + ux * s, py[p] + uy * s)
            })
            .collect();
        px = start.iter().map(|s| s.0).collect();
        py = start.iter().map(|s| s.1).collect();
        work.relax(
            &mut px,
            &mut py,
            &start,
            fine_edges,
            Rounds {
                count: plan[l],
                step: REFINE_STEP * k,
                near: how.near,
            },
        );
    }
    Some(fit(px, py))
}

/// Rounds on the coarsest graph (the default of `PyramidOptions::member_rounds`).
pub const ROUNDS: usize = 40;
/// Rounds on the community's own graph after the coarser levels.
const FINE_ROUNDS: usize = 3;
/// Rounds on each level between the coarsest and the community's own graph.
const LEVEL_ROUNDS: usize = 1;
/// The first step of a refining round, in ideal distances of its level (the step shrinks to
/// nothing over the level's rounds).
const REFINE_STEP: f64 = 1.0;

/// Links `(a, b, weight)` of one level's graph.
type Edges<'a> = &'a [(u32, u32, u32)];

/// The rounds of one level: how many, the first step (it shrinks to nothing), and how many
/// neighbours a node is pushed away from at most.
#[derive(Debug, Clone, Copy)]
struct Rounds {
    count: usize,
    step: f64,
    near: usize,
}

/// The ideal distance between `n` nodes: `n` squares of side `k` fill the unit disc.
fn ideal(n: usize) -> f64 {
    (std::f64::consts::PI / n as f64).sqrt()
}

/// A unit vector drawn from `seed` (splitmix64), the same on every platform.
fn direction(seed: u64) -> (f64, f64) {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let x = f64::from((z >> 32) as u32) / f64::from(u32::MAX) * 2.0 - 1.0;
    let y = f64::from(z as u32) / f64::from(u32::MAX) * 2.0 - 1.0;
    let len = (x * x + y * y).sqrt();
    if len > 1e-9 {
        (x / len, y / len)
    } else {
        (1.0, 0.0)
    }
}

/// The buffers of the rounds, kept from one level to the next.
#[derive(Debug, Default)]
struct Work {
    dx: Vec<f64>,
    dy: Vec<f64>,
    grid: Grid,
}

impl Work {
    /// The rounds of the force-directed layout of the nodes at `px`, `py` (started at `start`)
    /// with `edges` between them.
    fn relax(
        &mut self,
        px: &mut [f64],
        py: &mut [f64],
        start: &[(f64, f64)],
        edges: Edges,
        rounds: Rounds,
    ) {
        let Rounds {
            count: rounds,
            step,
            near: most,
        } = rounds;
        let n = px.len();
        let k = ideal(n);
        let k2 = k * k;
        // Repulsion within two ideal distances, the width of a grid cell.
        let reach = 2.0 * k;
        let wf: Vec<f64> = edges.iter().map(|e| f64::from(e.2.max(1)).sqrt()).collect();
        let Work { dx, dy, grid } = self;
        dx.clear();
        dx.resize(n, 0.0);
        dy.clear();
        dy.resize(n, 0.0);
        for round in 0..rounds {
            // The step shrinks to nothing (simulated cooling).
            let t = step * (1.0 - round as f64 / rounds as f64);
            dx.iter_mut().for_each(|v| *v = 0.0);
            dy.iter_mut().for_each(|v| *v = 0.0);
            grid.fill(px, py, reach);
            for i in 0..n {
                grid.near(i, px, py, most, |j, scale| {
                    let (ex, ey) = (px[i] - px[j], py[i] - py[j]);
                    let d2 = ex * ex + ey * ey;
                    if d2 >= reach * reach {
                        return;
                    }
                    if d2 < 1e-18 {
                        // Same spot (members linked alike converge to one): apart along the
                        // line between their starting spots, distinct on the sunflower, so that
                        // a pile spreads evenly rather than along one axis.
                        let (sx, sy) = (start[i].0 - start[j].0, start[i].1 - start[j].1);
                        let s = scale * k / (sx * sx + sy * sy).sqrt().max(1e-12);
                        dx[i] += sx * s;
                        dy[i] += sy * s;
                    } else {
                        // k² / d along the unit vector (k² / d²), fading to nothing at the
                        // reach: a force cut off sharply there lined members up on a lattice.
                        let f = scale * k2 / d2 * (1.0 - d2 / (reach * reach));
                        dx[i] += ex * f;
                        dy[i] += ey * f;
                    }
                });
            }
            for (e, &w) in edges.iter().zip(&wf) {
                let (a, b) = (e.0 as usize, e.1 as usize);
                let (ex, ey) = (px[b] - px[a], py[b] - py[a]);
                let d = (ex * ex + ey * ey).sqrt();
                // d² / k along the unit vector: d / k.
                let f = w * d / k;
                dx[a] += ex * f;
                dy[a] += ey * f;
                dx[b] -= ex * f;
                dy[b] -= ey * f;
            }
            for i in 0..n {
                let gx = dx[i] - GRAVITY * k * px[i];
                let gy = dy[i] - GRAVITY * k * py[i];
                let len = (gx * gx + gy * gy).sqrt();
                if len > 0.0 {
                    let step = len.min(t) / len;
                    px[i] += gx * step;
                    py[i] += gy * step;
                }
            }
        }
    }
}

/// Centres the points on their bounding box and scales them so the farthest is at distance 1.
fn fit(mut px: Vec<f64>, mut py: Vec<f64>) -> Vec<(f64, f64)> {
    let (mut minx, mut maxx, mut miny, mut maxy) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (&x, &y) in px.iter().zip(&py) {
        minx = minx.min(x);
        maxx = maxx.max(x);
        miny = miny.min(y);
        maxy = maxy.max(y);
    }
    let (cx, cy) = ((minx + maxx) / 2.0, (miny + maxy) / 2.0);
    let mut far = 0.0f64;
    for (x, y) in px.iter_mut().zip(py.iter_mut()) {
        *x -= cx;
        *y -= cy;
        far = far.max((*x * *x + *y * *y).sqrt());
    }
    let s = if far > 0.0 { 1.0 / far } else { 0.0 };
    px.into_iter()
        .zip(py)
        .map(|(x, y)| (x * s, y * s))
        .collect()
}

/// Half the side of the grid's square: twice the unit disc the layout starts in.
const BOX: f64 = 2.0;

/// Nodes bucketed by a square grid of cells one reach wide, each cell's nodes in index order.
#[derive(Debug, Default)]
struct Grid {
    minx: f64,
    miny: f64,
    cell: f64,
    cols: usize,
    rows: usize,
    /// Start of each cell's run in `nodes`, plus the end.
    start: Vec<u32>,
    nodes: Vec<u32>,
    of: Vec<u32>,
}

impl Grid {
    fn fill(&mut self, px: &[f64], py: &[f64], reach: f64) {
        let n = px.len();
        // A fixed square around the disc, members outside it in its border cells: cells as wide
        // as the reach, so that the 3 × 3 cells around a member hold its neighbours within reach
        // and little more (cells grown to fit a member flung far away held dozens, the cap on
        // visits was reached in the member's own cell, and members lined up on cell borders).
        let mut cell = reach;
        while (2.0 * BOX / cell + 1.0) * (2.0 * BOX / cell + 1.0) > (8 * n).max(1) as f64 {
            cell *= 2.0;
        }
        self.minx = -BOX;
        self.miny = -BOX;
        self.cell = cell;
        self.cols = (2.0 * BOX / cell) as usize + 1;
        self.rows = self.cols;
        let cells = self.cols * self.rows;
        self.start.clear();
        self.start.resize(cells + 1, 0);
        self.of.clear();
        for i in 0..n {
            let c = self.cell_of(px[i], py[i]);
            self.of.push(c as u32);
            self.start[c + 1] += 1;
        }
        for c in 0..cells {
            self.start[c + 1] += self.start[c];
        }
        self.nodes.clear();
        self.nodes.resize(n, 0);
        let mut next: Vec<u32> = self.start[..cells].to_vec();
        for (i, &c) in self.of.iter().enumerate() {
            self.nodes[next[c as usize] as usize] = i as u32;
            next[c as usize] += 1;
        }
    }

    fn cell_of(&self, x: f64, y: f64) -> usize {
        // `as` saturates: a member left of or above the square is in its first column or row.
        let col = (((x - self.minx) / self.cell).max(0.0) as usize).min(self.cols - 1);
        let row = (((y - self.miny) / self.cell).max(0.0) as usize).min(self.rows - 1);
        row * self.cols + col
    }

    /// Calls `visit(j, scale)` with the nodes `j` other than `i` in the 3 × 3 cells around `i`'s:
    /// all of them, or where they are more than [`NEAR`], every `scale`-th of them (a pile), the
    /// force then counted `scale` times. Sampling the whole neighbourhood evenly matters: visiting
    /// the nearest cells first up to a cap left members lined up on the cell borders.
    fn near(
        &self,
        i: usize,
        px: &[f64],
        py: &[f64],
        most: usize,
        mut visit: impl FnMut(usize, f64),
    ) {
        let c = self.cell_of(px[i], py[i]);
        let (col, row) = ((c % self.cols) as isize, (c / self.cols) as isize);
        let mut runs = [(0usize, 0usize); 9];
        let mut total = 0;
        for (k, (ox, oy)) in [-1isize, 0, 1]
            .into_iter()
            .flat_map(|oy| [-1isize, 0, 1].map(|ox| (ox, oy)))
            .enumerate()
        {
            let (x, y) = (col + ox, row + oy);
            if x < 0 || y < 0 || x as usize >= self.cols || y as usize >= self.rows {
                continue;
            }
            let cc = y as usize * self.cols + x as usize;
            runs[k] = (self.start[cc] as usize, self.start[cc + 1] as usize);
            total += runs[k].1 - runs[k].0;
        }
        let stride = total.div_ceil(most).max(1);
        // The sample starts at an offset of `i`'s own, so members of one pile see different ones.
        let mut at = i % stride;
        for (s, e) in runs {
            while s + at < e {
                let j = self.nodes[s + at] as usize;
                if j != i {
                    visit(j, stride as f64);
                }
                at += stride;
            }
            at -= e - s;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn ranks(n: usize) -> Vec<u32> {
        (0..n as u32).collect()
    }

    #[test]
    fn inside_the_unit_disc_and_deterministic() {
        // Two cliques of 20 joined by one link, and a few members without links.
        let mut edges = Vec::new();
        for base in [0u32, 20] {
            for a in base..base + 20 {
                for b in a + 1..base + 20 {
                    edges.push((a, b, 1));
                }
            }
        }
        edges.push((0, 20, 1));
        let n = 45;
        let out = by_links(n, &edges, &ranks(n), ROUNDS).unwrap();
        assert_eq!(Some(&out), by_links(n, &edges, &ranks(n), ROUNDS).as_ref());
        let far = out
            .iter()
            .map(|&(x, y)| (x * x + y * y).sqrt())
            .fold(0.0f64, f64::max);
        assert!((far - 1.0).abs() < 1e-9, "{far}");
        // Each clique is tight next to the distance between the two.
        let centre = |r: std::ops::Range<usize>| {
            let k = r.len() as f64;
            let (sx, sy) = r
                .clone()
                .fold((0.0, 0.0), |s, i| (s.0 + out[i].0, s.1 + out[i].1));
            (sx / k, sy / k)
        };
        // Mean distance of a clique's members to its centre.
        let spread = |r: std::ops::Range<usize>, c: (f64, f64)| {
            let k = r.len() as f64;
            r.map(|i| ((out[i].0 - c.0).powi(2) + (out[i].1 - c.1).powi(2)).sqrt())
                .sum::<f64>()
                / k
        };
        let (a, b) = (centre(0..20), centre(20..40));
        let apart = ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
        assert!(
            spread(0..20, a) < apart / 2.0,
            "{} vs {apart}",
            spread(0..20, a)
        );
        assert!(
            spread(20..40, b) < apart / 2.0,
            "{} vs {apart}",
            spread(20..40, b)
        );
    }

    #[test]
    fn degenerate_groups() {
        // Nothing to lay out: the sunflower stays.
        assert_eq!(by_links(0, &[], &[], ROUNDS), None);
        assert_eq!(by_links(1, &[], &[0], ROUNDS), None);
        assert_eq!(by_links(10, &[], &ranks(10), ROUNDS), None);
        assert_eq!(by_links(2, &[(0, 1, 1)], &ranks(2), 0), None);
        // A star of 3,000 spokes stays finite, inside the disc, the hub near the middle.
        let edges: Vec<(u32, u32, u32)> = (1..3001).map(|i| (0, i, 1)).collect();
        let out = by_links(3001, &edges, &ranks(3001), ROUNDS).unwrap();
        assert!(out.iter().all(|p| p.0 * p.0 + p.1 * p.1 <= 1.0 + 1e-9));
        assert!(out[0].0 * out[0].0 + out[0].1 * out[0].1 < 0.1);
    }

    /// Cliques of `m` in a ring, each linked to the next by one link (the coarsening's tests too).
    pub(crate) fn ring(cliques: u32, m: u32) -> (usize, Vec<(u32, u32, u32)>) {
        let mut edges = Vec::new();
        for c in 0..cliques {
            for a in 0..m {
                for b in a + 1..m {
                    edges.push((c * m + a, c * m + b, 1));
                }
            }
            edges.push((c * m, (c + 1) % cliques * m + m - 1, 1));
        }
        ((cliques * m) as usize, edges)
    }

    /// A `w` × `h` grid of links.
    fn lattice(w: u32, h: u32) -> (usize, Vec<(u32, u32, u32)>) {
        let mut edges = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                if x + 1 < w {
                    edges.push((i, i + 1, 1));
                }
                if y + 1 < h {
                    edges.push((i, i + w, 1));
                }
            }
        }
        ((w * h) as usize, edges)
    }

    /// Mean distance of linked members over that of all pairs.
    fn linked_ratio(out: &[(f64, f64)], edges: &[(u32, u32, u32)]) -> f64 {
        let d = |a: usize, b: usize| {
            ((out[a].0 - out[b].0).powi(2) + (out[a].1 - out[b].1).powi(2)).sqrt()
        };
        let linked = edges
            .iter()
            .map(|e| d(e.0 as usize, e.1 as usize))
            .sum::<f64>()
            / edges.len() as f64;
        let n = out.len();
        let mut all = 0.0;
        for a in 0..n {
            for b in a + 1..n {
                all += d(a, b);
            }
        }
        linked / (all / (n * (n - 1) / 2) as f64)
    }

    #[test]
    fn coarse_to_fine_keeps_the_structure() {
        // Linked members nearer each other than members in general, more so than by the
        // sunflower start alone (its ratios: 0.22, 0.38, 0.45), and the same bytes each time.
        for ((n, edges), most) in [
            (ring(12, 20), 0.2),
            (ring(40, 4), 0.25),
            (lattice(30, 30), 0.25),
        ] {
            assert!(!crate::coarsen::levels(n, &edges, crate::coarsen::COARSEST).is_empty());
            let out = by_links(n, &edges, &ranks(n), ROUNDS).unwrap();
            assert_eq!(Some(&out), by_links(n, &edges, &ranks(n), ROUNDS).as_ref());
            let flat = multilevel(
                n,
                &edges,
                &ranks(n),
                ROUNDS,
                &Plan {
                    coarse: false,
                    ..PLAN
                },
            )
            .unwrap();
            let (ml, flat) = (linked_ratio(&out, &edges), linked_ratio(&flat, &edges));
            assert!(ml < most && ml < flat, "{n}: {ml} vs {flat}");
        }
    }
}
