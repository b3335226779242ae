//! The members sections: each level-0 community's entities, in columns (ids, classes, positions
//! on the sunflower, degrees …), in blocks of about [`super::BLOCK_BYTES`], and their positions
//! by the community's own links ([`crate::force`]).

use super::*;
use rayon::prelude::*;

/// Entities ordered by (level-0 community, id): the order of the member blocks.
pub(super) fn by_community(h: &Hierarchy) -> Vec<u32> {
    let comm = &h.node_comm[0];
    let mut by_comm: Vec<u32> = (0..comm.len() as u32).collect();
    by_comm.sort_unstable_by_key(|&i| (comm[i as usize], i));
    by_comm
}

/// Each member's rank by decreasing degree (ties by node), the order of the sunflower.
fn degree_ranks(members: &[u32], degree: &[u32], ranked: &mut Vec<u32>, rank: &mut Vec<u32>) {
    ranked.clear();
    ranked.extend_from_slice(members);
    ranked.sort_by_key(|&m| (std::cmp::Reverse(degree[m as usize]), m));
    rank.clear();
    rank.resize(members.len(), 0);
    for (r, &m) in ranked.iter().enumerate() {
        if let Ok(k) = members.binary_search(&m) {
            rank[k] = r as u32;
        }
    }
}

/// Positions by links of every member, in `by_comm`'s order: 12 bits of x and 12 of y in the
/// community's disc ([`layout::pack_spot`]), or [`NO_SPOT`] for the members of a community without
/// links between its members (drawn on the sunflower). `rounds` 0: all on the sunflower.
pub(super) fn member_spots(
    g: &UnitGraph,
    degree: &[u32],
    h: &Hierarchy,
    by_comm: &[u32],
    rounds: usize,
) -> Vec<u32> {
    let comm = &h.node_comm[0];
    let mut out = vec![NO_SPOT; by_comm.len()];
    if rounds == 0 {
        return out;
    }
    // Each community's run in `by_comm`, and the matching run of `out` to fill in parallel.
    let mut runs: Vec<(&[u32], &mut [u32])> = Vec::with_capacity(h.counts[0]);
    let mut rest: &mut [u32] = &mut out;
    let mut i = 0;
    while i < by_comm.len() {
        let c = comm[by_comm[i] as usize];
        let mut j = i;
        while j < by_comm.len() && comm[by_comm[j] as usize] == c {
            j += 1;
        }
        let (run, tail) = std::mem::take(&mut rest).split_at_mut(j - i);
        runs.push((&by_comm[i..j], run));
        rest = tail;
        i = j;
    }
    runs.into_par_iter().for_each(|(members, spots)| {
        let c = comm[members[0] as usize];
        let mut edges: Vec<(u32, u32, u32)> = Vec::new();
        for (a, &m) in members.iter().enumerate() {
            // Rows are sorted, a neighbour repeated once per triple: count the runs.
            let row = g.row(m as usize);
            let mut k = 0;
            while k < row.len() {
                let j = row[k];
                let mut w = 0u32;
                while k < row.len() && row[k] == j {
                    w += 1;
                    k += 1;
                }
                if j > m && comm[j as usize] == c {
                    if let Ok(b) = members.binary_search(&j) {
                        edges.push((a as u32, b as u32, w));
                    }
                }
            }
        }
        let (mut ranked, mut rank) = (Vec::new(), Vec::new());
        degree_ranks(members, degree, &mut ranked, &mut rank);
        if let Some(pos) = crate::force::by_links(members.len(), &edges, &rank, rounds) {
            for (s, (x, y)) in spots.iter_mut().zip(pos) {
                *s = layout::pack_spot(x, y);
            }
        }
    });
    out
}

/// A member's spot without a position by links.
pub(super) const NO_SPOT: u32 = u32::MAX;

/// Member blocks: each holds whole level-0 communities, stored column by column (ids, terms,
/// labels, classes, x, y) because like values compress better next to each other.
#[allow(clippy::too_many_arguments)]
pub(super) fn encode_members(
    eg: &EntityGraph,
    h: &Hierarchy,
    names: &NameStore,
    primary: &[u32],
    circles: &[Circle],
    by_comm: &[u32],
    spots: &[u32],
    w: &mut BatchWriter,
) -> Result<Vec<(u32, usize)>, PyramidError> {
    let mut blocks: Vec<(u32, usize)> = Vec::new();
    let mut cols = MemberColumns::default();
    let mut first = 0u32;
    let mut ranked: Vec<u32> = Vec::new();
    let mut rank: Vec<u32> = Vec::new();
    let mut i = 0;
    while i < by_comm.len() {
        let c = h.node_comm[0][by_comm[i] as usize];
        let mut j = i;
        while j < by_comm.len() && h.node_comm[0][by_comm[j] as usize] == c {
            j += 1;
        }
        let members = &by_comm[i..j];
        let circle = circles[c as usize];
        // Positions are computed from the circle as stored (f32) so that readers reproduce them.
        let (cx, cy, cr) = (circle.x as f32, circle.y as f32, circle.r as f32);
        // Members sit on a sunflower by degree rank: storing the rank (about one byte) instead of
        // two coordinates keeps this section small; readers place them with the same function.
        degree_ranks(members, &eg.degree, &mut ranked, &mut rank);
        // Positions by links go after the last group's head, where readers that do not know
        // them stop reading: they draw the sunflower from the ranks.
        let spots = &spots[i..j];
        if spots.first().is_some_and(|&s| s != NO_SPOT) {
            cols.positions.u8(1);
            for &s in spots {
                cols.positions.bytes(&s.to_le_bytes()[..3]);
            }
            cols.has_positions = true;
        } else {
            cols.positions.u8(0);
        }
        if cols.groups == 0 {
            first = c;
        }
        cols.head.varint(u64::from(c));
        cols.head.f32(cx);
        cols.head.f32(cy);
        cols.head.f32(cr);
        cols.head.varint(members.len() as u64);
        cols.head.u8(LAYOUT_SUNFLOWER);
        cols.groups += 1;
        let mut prev_id = 0u64;
        let mut prev_term = String::new();
        for (k, &m) in members.iter().enumerate() {
            let m = m as usize;
            let id = eg.ids[m];
            cols.ids.varint(id - prev_id);
            prev_id = id;
            // Read back from disk in (community, id) order: the members of one community are
            // near each other in the file when the ids are, and the page cache holds the rest.
            let name = names.get(m)?;
            let term = name.term.as_str();
            let shared = shared_prefix_str(&prev_term, term);
            cols.prefix.varint(shared as u64);
            cols.prefix.varint((term.len() - shared) as u64);
            cols.suffix.bytes(&term.as_bytes()[shared..]);
            match name.label.as_deref() {
                Some(label) => {
                    cols.label_len.varint(label.len() as u64 + 1);
                    cols.labels.bytes(label.as_bytes());
                }
                None => cols.label_len.varint(0),
            }
            cols.class.varint(match primary[m] {
                NO_CLASS => 0,
                c => u64::from(c) + 1,
            });
            cols.rank.varint(u64::from(rank[k]));
            prev_term = name.term;
        }
        if cols.raw_len() >= BLOCK_BYTES || j == by_comm.len() {
            blocks.push((first, w.push(cols.finish())?));
        }
        i = j;
    }
    Ok(blocks)
}

/// The columns of a member block being filled.
#[derive(Debug, Default)]
pub(super) struct MemberColumns {
    groups: u64,
    head: Buf,
    ids: Buf,
    prefix: Buf,
    suffix: Buf,
    label_len: Buf,
    labels: Buf,
    class: Buf,
    rank: Buf,
    /// Per group: 0 (sunflower), or 1 and three bytes a member ([`layout::pack_spot`]).
    positions: Buf,
    /// Whether a group of the block has positions by links (else the block is as before them).
    has_positions: bool,
}

impl MemberColumns {
    fn columns(&mut self) -> [&mut Buf; MEMBER_COLUMNS] {
        [
            &mut self.head,
            &mut self.ids,
            &mut self.prefix,
            &mut self.suffix,
            &mut self.label_len,
            &mut self.labels,
            &mut self.class,
            &mut self.rank,
        ]
    }

    fn raw_len(&mut self) -> usize {
        self.positions.len() + self.columns().iter().map(|c| c.len()).sum::<usize>()
    }

    /// The block: group count, then each column with its length; resets the columns.
    fn finish(&mut self) -> Vec<u8> {
        if std::mem::take(&mut self.has_positions) {
            self.head.u8(MEMBER_POSITIONS);
            self.head.bytes(&self.positions.0);
        }
        self.positions.0.clear();
        let mut out = Buf::default();
        out.varint(self.groups);
        self.groups = 0;
        for c in self.columns() {
            out.varint(c.len() as u64);
            out.bytes(&c.0);
            c.0.clear();
        }
        out.0
    }
}
