//! The members sections: each level-0 community's entities, in columns (ids, classes, positions
//! on the sunflower, degrees …), in blocks of about [`super::BLOCK_BYTES`].

use super::*;

/// Member blocks: each holds whole level-0 communities, stored column by column (ids, terms,
/// labels, classes, x, y) because like values compress better next to each other.
pub(super) fn encode_members(
    eg: &EntityGraph,
    h: &Hierarchy,
    names: &NameStore,
    primary: &[u32],
    circles: &[Circle],
    w: &mut BlockWriter,
) -> Result<Vec<(u32, usize)>, PyramidError> {
    let mut by_comm: Vec<u32> = (0..eg.node_count() as u32).collect();
    by_comm.sort_unstable_by_key(|&i| (h.node_comm[0][i as usize], i));
    let mut blocks: Vec<(u32, usize)> = Vec::new();
    let mut cols = MemberColumns::default();
    let mut first = 0u32;
    let mut ranked: Vec<u32> = Vec::new();
    let mut rank: Vec<u64> = Vec::new();
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
        ranked.clear();
        ranked.extend_from_slice(members);
        ranked.sort_by_key(|&m| (std::cmp::Reverse(eg.degree[m as usize]), m));
        rank.clear();
        rank.resize(members.len(), 0);
        for (r, &m) in ranked.iter().enumerate() {
            if let Ok(k) = members.binary_search(&m) {
                rank[k] = r as u64;
            }
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
            cols.rank.varint(rank[k]);
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
        self.columns().iter().map(|c| c.len()).sum()
    }

    /// The block: group count, then each column with its length; resets the columns.
    fn finish(&mut self) -> Vec<u8> {
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
