//! Members placed by their links: a force-directed layout of one level-0 community from its own
//! links (Fruchterman and Reingold 1991), so that clusters and hubs show when the community opens.
//!
//! It starts from the sunflower by degree rank (hubs in the middle, as files without positions
//! draw), then relaxes: linked members attract (`d² / k`, times √ of the triples linking them),
//! all members repel (`k² / d`) but only within two ideal distances and from at most [`NEAR`]
//! neighbours found on a grid, and a weak gravity keeps the community round. A round therefore
//! costs O(members + links), and the rounds are capped by [`WORK`]: the layout of a community is
//! bounded whatever its shape (a star's spokes pile up in a few cells; the cap keeps that linear).
//!
//! Only `+ - * / sqrt` are used, in a fixed order (nodes and edges in index order, a grid cell's
//! nodes in index order), so the positions, and the file, are reproducible on any platform.

use crate::layout::{phyllotaxis, Circle};

/// At most this many rounds.
pub(crate) const ROUNDS: usize = 40;
/// Neighbours a member is pushed away from in one round, at most. On a ring of 250 4-cliques
/// (1,000 members) 8 neighbours and 40 rounds left linked pairs at 0.22 of the mean distance in
/// 9 ms; 24 and 50 at 0.23 in 15 times the time, 8 and 20 at 0.41.
const NEAR: usize = 8;
/// Node and edge visits one community's layout may spend over all its rounds (a community of
/// more than about 5,000 members gets fewer rounds).
const WORK: usize = 2_000_000;
/// Gravity towards the centre: at the disc's edge, this share of a link's pull at the ideal
/// distance (0.3 kept a ring of 12 cliques a ring, linked pairs at 0.25 of the mean distance;
/// 0.05 and 1 gave 0.28 and 0.31).
const GRAVITY: f64 = 0.3;

/// Positions in the unit disc (the farthest at distance 1 from the centre) of `n` members with
/// `edges` `(a, b, triples)` between them (local indices, `a != b`); `rank[i]` is member `i`'s
/// degree rank, which places it on the starting sunflower. `None` when there is nothing to lay
/// out (no links, or too many members for even one round): the sunflower stays.
pub(crate) fn by_links(
    n: usize,
    edges: &[(u32, u32, u32)],
    rank: &[u32],
    rounds: usize,
) -> Option<Vec<(f64, f64)>> {
    let rounds = rounds.min(WORK / (n * (NEAR + 1) + edges.len()).max(1));
    if n < 2 || edges.is_empty() || rounds == 0 {
        return None;
    }
    let unit = Circle {
        x: 0.0,
        y: 0.0,
        r: 1.0,
    };
    let spots = phyllotaxis(n, unit);
    let mut px = vec![0.0f64; n];
    let mut py = vec![0.0f64; n];
    for i in 0..n {
        let (x, y) = spots[rank[i] as usize % n];
        px[i] = x;
        py[i] = y;
    }
    // The ideal distance: n squares of side k fill the unit disc.
    let k = (std::f64::consts::PI / n as f64).sqrt();
    let k2 = k * k;
    let reach = 2.0 * k;
    let wf: Vec<f64> = edges.iter().map(|e| f64::from(e.2.max(1)).sqrt()).collect();
    let (mut dx, mut dy) = (vec![0.0f64; n], vec![0.0f64; n]);
    let mut grid = Grid::default();
    for round in 0..rounds {
        // The step shrinks from a tenth of the disc to nothing (simulated cooling).
        let t = 0.1 * (1.0 - round as f64 / rounds as f64);
        dx.iter_mut().for_each(|v| *v = 0.0);
        dy.iter_mut().for_each(|v| *v = 0.0);
        grid.fill(&px, &py, reach);
        for i in 0..n {
            let mut seen = 0;
            grid.near(i, &px, &py, |j| {
                if seen >= NEAR {
                    return false;
                }
                seen += 1;
                let (ex, ey) = (px[i] - px[j], py[i] - py[j]);
                let d2 = ex * ex + ey * ey;
                if d2 >= reach * reach {
                    return true;
                }
                if d2 < 1e-18 {
                    // Same spot: apart along x, the lower index to the left.
                    dx[i] += if i < j { -k } else { k };
                } else {
                    // k² / d along the unit vector: k² / d².
                    let f = k2 / d2;
                    dx[i] += ex * f;
                    dy[i] += ey * f;
                }
                true
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
    Some(fit(px, py))
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
        let (mut minx, mut maxx, mut miny, mut maxy) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for (&x, &y) in px.iter().zip(py) {
            minx = minx.min(x);
            maxx = maxx.max(x);
            miny = miny.min(y);
            maxy = maxy.max(y);
        }
        // At most about 4 cells a node: a spread-out pack gets wider cells, never more memory.
        let limit = (4 * n).max(1) as f64;
        let mut cell = reach;
        while ((maxx - minx) / cell + 1.0) * ((maxy - miny) / cell + 1.0) > limit {
            cell *= 2.0;
        }
        self.minx = minx;
        self.miny = miny;
        self.cell = cell;
        self.cols = ((maxx - minx) / cell) as usize + 1;
        self.rows = ((maxy - miny) / cell) as usize + 1;
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
        let col = (((x - self.minx) / self.cell) as usize).min(self.cols - 1);
        let row = (((y - self.miny) / self.cell) as usize).min(self.rows - 1);
        row * self.cols + col
    }

    /// Calls `visit` with the nodes other than `i` in `i`'s cell, then in the 8 around it, until
    /// it returns false.
    fn near(&self, i: usize, px: &[f64], py: &[f64], mut visit: impl FnMut(usize) -> bool) {
        let c = self.cell_of(px[i], py[i]);
        let (col, row) = ((c % self.cols) as isize, (c / self.cols) as isize);
        // The own cell first: with a cap on visits, the nearest matter most.
        const AROUND: [(isize, isize); 9] = [
            (0, 0),
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ];
        for (ox, oy) in AROUND {
            let (x, y) = (col + ox, row + oy);
            if x < 0 || y < 0 || x as usize >= self.cols || y as usize >= self.rows {
                continue;
            }
            let cc = y as usize * self.cols + x as usize;
            for &j in &self.nodes[self.start[cc] as usize..self.start[cc + 1] as usize] {
                if j as usize != i && !visit(j as usize) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
}
