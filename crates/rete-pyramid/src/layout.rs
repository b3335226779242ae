//! Build-time layout: sibling communities are packed as circles (area ∝ size) inside their
//! parent's circle, members are spread on a sunflower (phyllotaxis) inside their community, most
//! connected first at the centre.
//!
//! Only `+ - * / sqrt` are used (no `sin`/`cos`, whose results vary between math libraries), in
//! a fixed order, so the layout and therefore the file are reproducible.

/// A circle in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Circle {
    pub x: f64,
    pub y: f64,
    pub r: f64,
}

/// Radius of the world circle the top level is laid out in.
pub(crate) const WORLD_RADIUS: f64 = 1000.0;
/// Share of the parent's radius the children may use (keeps a margin for the parent's label).
const FILL: f64 = 0.92;
/// Share of a community's radius its members use.
const MEMBER_FILL: f64 = 0.9;
/// Upper bound on pairwise checks per layout, to keep huge sibling sets cheap.
const WORK_BUDGET: usize = 4_000_000;

/// cos and sin of the golden angle π(3 − √5), as literals so no trigonometry runs at build time.
const GOLDEN_COS: f64 = -0.737_368_878_078_319_7;
const GOLDEN_SIN: f64 = 0.675_490_294_261_523_8;

/// Unit vectors turning by the golden angle at each step, starting at (1, 0).
struct Spiral {
    c: f64,
    s: f64,
}

impl Spiral {
    fn new() -> Self {
        Self { c: 1.0, s: 0.0 }
    }

    fn next_dir(&mut self) -> (f64, f64) {
        let out = (self.c, self.s);
        let c = self.c * GOLDEN_COS - self.s * GOLDEN_SIN;
        let s = self.s * GOLDEN_COS + self.c * GOLDEN_SIN;
        let norm = (c * c + s * s).sqrt();
        self.c = c / norm;
        self.s = s / norm;
        out
    }
}

/// Packs circles of area proportional to `sizes` inside `parent`. `edges` are `(a, b, weight)`
/// between siblings: linked siblings are pulled together. The result lies inside `parent`.
pub(crate) fn pack(
    sizes: &[u64],
    edges: &[(u32, u32, f64)],
    parent: Circle,
    iterations: usize,
) -> Vec<Circle> {
    let n = sizes.len();
    match n {
        0 => return Vec::new(),
        1 => {
            return vec![Circle {
                x: parent.x,
                y: parent.y,
                r: parent.r * FILL,
            }]
        }
        _ => {}
    }
    let rad: Vec<f64> = sizes.iter().map(|&s| (s.max(1) as f64).sqrt()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then(a.cmp(&b)));
    let (mut px, mut py) = (vec![0.0f64; n], vec![0.0f64; n]);
    // Start on a spiral by cumulative area, largest at the centre.
    let mut cum = 0.0f64;
    let mut spiral = Spiral::new();
    for (rank, &i) in order.iter().enumerate() {
        if rank > 0 {
            let (c, s) = spiral.next_dir();
            let d = cum.sqrt() * 1.1 + rad[i];
            px[i] = c * d;
            py[i] = s * d;
        }
        cum += rad[i] * rad[i];
    }
    let iters = iterations.min((WORK_BUDGET / n).max(4));
    let wmax = edges.iter().map(|e| e.2).fold(0.0f64, f64::max);
    // Each circle's pull is shared among its links, so dense sibling sets do not collapse.
    let mut links = vec![0u32; n];
    for &(a, b, _) in edges {
        if a != b && (a as usize) < n && (b as usize) < n {
            links[a as usize] += 1;
            links[b as usize] += 1;
        }
    }
    let mut by_x: Vec<usize> = (0..n).collect();
    for it in 0..iters {
        let cool = 1.0 - it as f64 / iters as f64;
        if wmax > 0.0 {
            for &(a, b, w) in edges {
                let (a, b) = (a as usize, b as usize);
                if a == b || a >= n || b >= n {
                    continue;
                }
                let (dx, dy) = (px[b] - px[a], py[b] - py[a]);
                let d = (dx * dx + dy * dy).sqrt();
                let gap = d - rad[a] - rad[b];
                if gap > 0.0 && d > 0.0 {
                    let f = 0.5 * cool * gap * (w / wmax).sqrt() / d;
                    let share_a = area_share(rad[b], rad[a]) / f64::from(links[a]);
                    let share_b = area_share(rad[a], rad[b]) / f64::from(links[b]);
                    px[a] += dx * f * share_a;
                    py[a] += dy * f * share_a;
                    px[b] -= dx * f * share_b;
                    py[b] -= dy * f * share_b;
                }
            }
        }
        // Gravity towards the centre keeps the pack round.
        let g = 1.0 - 0.03 * cool;
        for i in 0..n {
            px[i] *= g;
            py[i] *= g;
        }
        separate(&mut px, &mut py, &rad, &mut by_x);
    }
    // Then only collisions, until nothing overlaps (or the budget is spent).
    for _ in 0..iters.max(1) * 4 {
        if separate(&mut px, &mut py, &rad, &mut by_x) < 1e-6 {
            break;
        }
    }
    // Fit into the parent: centre the bounding box, scale the enclosing radius to the parent's.
    let (mut minx, mut maxx, mut miny, mut maxy) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for i in 0..n {
        minx = minx.min(px[i] - rad[i]);
        maxx = maxx.max(px[i] + rad[i]);
        miny = miny.min(py[i] - rad[i]);
        maxy = maxy.max(py[i] + rad[i]);
    }
    let (cx, cy) = ((minx + maxx) / 2.0, (miny + maxy) / 2.0);
    let mut big_r = 0.0f64;
    for i in 0..n {
        let (dx, dy) = (px[i] - cx, py[i] - cy);
        big_r = big_r.max((dx * dx + dy * dy).sqrt() + rad[i]);
    }
    let s = if big_r > 0.0 {
        parent.r * FILL / big_r
    } else {
        0.0
    };
    (0..n)
        .map(|i| Circle {
            x: parent.x + (px[i] - cx) * s,
            y: parent.y + (py[i] - cy) * s,
            r: rad[i] * s,
        })
        .collect()
}

/// One pass of pairwise overlap removal (sweep and prune along x; circles keep a 3 % gap).
/// Returns the largest overlap found, relative to the smaller radius.
fn separate(px: &mut [f64], py: &mut [f64], rad: &[f64], by_x: &mut [usize]) -> f64 {
    let n = rad.len();
    by_x.sort_by(|&a, &b| {
        (px[a] - rad[a])
            .total_cmp(&(px[b] - rad[b]))
            .then(a.cmp(&b))
    });
    let mut worst = 0.0f64;
    for ii in 0..n {
        let a = by_x[ii];
        for &b in &by_x[ii + 1..] {
            if px[b] - rad[b] > px[a] + rad[a] {
                break;
            }
            let (dx, dy) = (px[b] - px[a], py[b] - py[a]);
            let d = (dx * dx + dy * dy).sqrt();
            let min = (rad[a] + rad[b]) * 1.03;
            if d < min {
                let (ux, uy) = if d > 1e-9 {
                    (dx / d, dy / d)
                } else if a < b {
                    (1.0, 0.0)
                } else {
                    (-1.0, 0.0)
                };
                let push = min - d;
                worst = worst.max(push / rad[a].min(rad[b]));
                let share_a = area_share(rad[b], rad[a]);
                px[a] -= ux * push * share_a;
                py[a] -= uy * push * share_a;
                px[b] += ux * push * (1.0 - share_a);
                py[b] += uy * push * (1.0 - share_a);
            }
        }
    }
    worst
}

/// Share of a push taken by the circle of radius `mine` against one of radius `other`: the
/// smaller circle moves more.
fn area_share(other: f64, mine: f64) -> f64 {
    let (o, m) = (other * other, mine * mine);
    if o + m > 0.0 {
        o / (o + m)
    } else {
        0.5
    }
}

/// `n` points on a sunflower inside `c`: point 0 at the centre, later ones further out, evenly
/// spread. Callers order members by degree so hubs sit in the middle.
pub(crate) fn phyllotaxis(n: usize, c: Circle) -> Vec<(f64, f64)> {
    let mut spiral = Spiral::new();
    (0..n)
        .map(|i| {
            let (dx, dy) = spiral.next_dir();
            let d = c.r * MEMBER_FILL * ((i as f64 + 0.5) / n as f64).sqrt();
            (c.x + dx * d, c.y + dy * d)
        })
        .collect()
}

/// Largest 12-bit coordinate of a position by links: 0 is −1, this is +1.
const SPOT_STEPS: u32 = 4095;

/// A point of the unit disc as 12 bits of x and 12 of y (4,096 steps across the disc), as member
/// blocks store positions by links.
pub(crate) fn pack_spot(x: f64, y: f64) -> u32 {
    let q = |v: f64| ((v.clamp(-1.0, 1.0) + 1.0) * 0.5 * f64::from(SPOT_STEPS) + 0.5) as u32;
    (q(x).min(SPOT_STEPS) << 12) | q(y).min(SPOT_STEPS)
}

/// The point of `c` a packed position stands for, in the same share of the radius as the
/// sunflower's.
pub(crate) fn unpack_spot(s: u32, c: Circle) -> (f64, f64) {
    let v = |q: u32| f64::from(q.min(SPOT_STEPS)) / f64::from(SPOT_STEPS) * 2.0 - 1.0;
    let r = c.r * MEMBER_FILL;
    (c.x + v((s >> 12) & 0xfff) * r, c.y + v(s & 0xfff) * r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inside(child: &Circle, parent: &Circle) -> bool {
        let (dx, dy) = (child.x - parent.x, child.y - parent.y);
        (dx * dx + dy * dy).sqrt() + child.r <= parent.r * (1.0 + 1e-9)
    }

    #[test]
    fn children_inside_parent_and_apart() {
        let parent = Circle {
            x: 10.0,
            y: -5.0,
            r: 50.0,
        };
        let sizes: Vec<u64> = (0..40).map(|i| 1 + (i * 37 % 23) as u64 * 10).collect();
        let edges: Vec<(u32, u32, f64)> = (0..39).map(|i| (i, i + 1, 1.0 + i as f64)).collect();
        let out = pack(&sizes, &edges, parent, 80);
        assert_eq!(out.len(), 40);
        for c in &out {
            assert!(inside(c, &parent), "{c:?}");
            assert!(c.r > 0.0);
        }
        for i in 0..out.len() {
            for j in i + 1..out.len() {
                let (dx, dy) = (out[i].x - out[j].x, out[i].y - out[j].y);
                assert!(
                    (dx * dx + dy * dy).sqrt() >= out[i].r + out[j].r,
                    "circles {i} and {j} overlap"
                );
            }
        }
        // Area ∝ size.
        let ratio = out[0].r * out[0].r / sizes[0] as f64;
        for (c, &s) in out.iter().zip(&sizes) {
            assert!((c.r * c.r / s as f64 - ratio).abs() < 1e-9 * ratio.max(1.0));
        }
    }

    #[test]
    fn deterministic_and_degenerate() {
        let p = Circle {
            x: 0.0,
            y: 0.0,
            r: 1.0,
        };
        let sizes = [5, 5, 5, 5, 1, 1];
        assert_eq!(pack(&sizes, &[], p, 50), pack(&sizes, &[], p, 50));
        assert!(pack(&[], &[], p, 10).is_empty());
        let one = pack(&[7], &[], p, 10);
        assert!(inside(&one[0], &p));
        // Identical positions separate deterministically.
        let many = pack(&[1; 200], &[], p, 30);
        assert!(many.iter().all(|c| inside(c, &p)));
    }

    #[test]
    fn packed_spots_round_trip() {
        let c = Circle {
            x: 10.0,
            y: -4.0,
            r: 2.0,
        };
        for (x, y) in [(0.0, 0.0), (1.0, -1.0), (-0.3, 0.7), (2.0, -5.0)] {
            let (px, py) = unpack_spot(pack_spot(x, y), c);
            let (ex, ey) = (
                c.x + x.clamp(-1.0, 1.0) * 1.8,
                c.y + y.clamp(-1.0, 1.0) * 1.8,
            );
            assert!((px - ex).abs() < 1e-3 && (py - ey).abs() < 1e-3, "{x},{y}");
        }
        assert!(pack_spot(1.0, 1.0) < 1 << 24);
    }

    #[test]
    fn sunflower_inside() {
        let c = Circle {
            x: 3.0,
            y: 4.0,
            r: 2.0,
        };
        for n in [1, 2, 10, 1000] {
            for (x, y) in phyllotaxis(n, c) {
                let d = ((x - c.x).powi(2) + (y - c.y).powi(2)).sqrt();
                assert!(d < c.r);
            }
        }
    }
}
