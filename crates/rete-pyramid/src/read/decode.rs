//! Decoding the pyramid's blocks: a level's sibling groups, a community's members (columns), and
//! the membership index (entity → level-0 community), each checked against what the writer can
//! produce (a damaged block is an error, never a panic).

use super::*;

impl Pyramid {
    /// Finds `community` in a member block whose first community is `first`.
    pub(super) fn parse_members(
        &self,
        bytes: &[u8],
        first: u32,
        community: u32,
    ) -> Result<Vec<Member>, PyramidError> {
        let name = self.name();
        let section = "pyramid members";
        let mut r = SectionReader::new(bytes, name, section);
        let groups = r.count(MEMBER_COLUMNS)?;
        let mut cols: Vec<SectionReader<'_>> = Vec::with_capacity(MEMBER_COLUMNS);
        for _ in 0..MEMBER_COLUMNS {
            let len = usize::try_from(r.varint()?).unwrap_or(usize::MAX);
            cols.push(SectionReader::new(r.bytes(len)?, name, section));
        }
        r.expect_end()?;
        let [head, ids, prefix, suffix, label_len, labels, class, rank] = &mut cols[..] else {
            return Err(PyramidError::internal("member columns"));
        };
        let k0 = self.count(0);
        let terms = self.inner.rete.term_count();
        let classes = &self.inner.classes;
        // The group heads first: the positions by links, if any, follow the last one.
        let mut heads: Vec<(u64, f32, f32, f32, usize)> = Vec::with_capacity(prealloc(groups));
        for g in 0..groups {
            let c = head.below(k0, "community")?;
            if (g == 0 && c != u64::from(first)) || heads.last().is_some_and(|p| c <= p.0) {
                return Err(head.err("member groups out of order"));
            }
            let (cx, cy, cr) = (head.f32()?, head.f32()?, head.f32()?);
            // Every member takes at least one byte of the id column.
            let n = ids.count_items(head.varint()?)?;
            if head.u8()? != LAYOUT_SUNFLOWER {
                return Err(head.err("unknown member layout"));
            }
            heads.push((c, cx, cy, cr, n));
        }
        let Some(wanted_group) = heads.iter().position(|h| h.0 == u64::from(community)) else {
            return Err(PyramidError::corrupt(
                name,
                section,
                format!("community {community} is missing from its block"),
            ));
        };
        let (_, cx, cy, cr, wanted_n) = heads[wanted_group];
        let circle = Circle {
            x: f64::from(cx),
            y: f64::from(cy),
            r: f64::from(cr),
        };
        let (spots, linked) = match self.positions_by_links(head, &heads, wanted_group)? {
            Some(packed) => {
                let spot = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], 0]);
                let spots = packed.chunks_exact(3);
                (
                    spots
                        .map(|b| layout::unpack_spot(spot(b), circle))
                        .collect(),
                    true,
                )
            }
            None => (layout::phyllotaxis(wanted_n, circle), false),
        };
        for (g, &(_, cx, cy, _, n)) in heads.iter().enumerate() {
            let wanted = g == wanted_group;
            // With positions by links, a member's spot is its own (by index), else its rank's.
            let by_index = wanted && linked;
            let mut seen = vec![false; n];
            let mut out = Vec::with_capacity(if wanted { prealloc(n) } else { 0 });
            let mut prev_id: Id = 0;
            let mut chain = Expander::new(prefix.remaining() + suffix.remaining());
            for _ in 0..n {
                let delta = ids.varint()?;
                let id = prev_id
                    .checked_add(delta)
                    .filter(|&id| delta > 0 && id <= terms)
                    .ok_or_else(|| {
                        ids.err::<PyramidError>("member id out of range or out of order")
                    })?;
                prev_id = id;
                let shared = prefix.varint()?;
                let len = usize::try_from(prefix.varint()?).unwrap_or(usize::MAX);
                let prev = chain.prev();
                let splits_char = usize::try_from(shared)
                    .ok()
                    .and_then(|k| prev.get(k))
                    .is_some_and(|b| b & 0xc0 == 0x80);
                if shared > prev.len() as u64 || splits_char {
                    return Err(prefix.err("bad shared prefix in member terms"));
                }
                let tail = suffix.bytes(len)?;
                if std::str::from_utf8(tail).is_err() {
                    return Err(suffix.err("term is not UTF-8"));
                }
                let term = chain
                    .next(shared, tail)
                    .map_err(|e| prefix.err::<PyramidError>(e.to_string()))?;
                let label = match label_len.varint()? {
                    0 => None,
                    l => {
                        let len = usize::try_from(l - 1).unwrap_or(usize::MAX);
                        Some(
                            std::str::from_utf8(labels.bytes(len)?)
                                .map_err(|_| labels.err::<PyramidError>("label is not UTF-8"))?
                                .to_owned(),
                        )
                    }
                };
                let class = match class.below(classes.len() as u64 + 1, "class")? {
                    0 => None,
                    k => Some(classes[(k - 1) as usize].clone()),
                };
                let k = rank.below(n as u64, "member rank")? as usize;
                if std::mem::replace(&mut seen[k], true) {
                    return Err(rank.err("member ranks repeat"));
                }
                let spot = if by_index { out.len() } else { k };
                let (x, y) = spots
                    .get(spot)
                    .map_or((cx, cy), |&(x, y)| (x as f32, y as f32));
                if wanted {
                    out.push(Member {
                        id,
                        term: String::from_utf8_lossy(term).into_owned(),
                        label,
                        class,
                        x,
                        y,
                    });
                }
            }
            if wanted {
                return Ok(out);
            }
        }
        Err(PyramidError::internal("member group not reached"))
    }

    /// The packed positions by links of group `wanted` (three bytes a member), read from what
    /// follows the group heads; `None` when the block has none or the group is on the sunflower.
    fn positions_by_links<'a>(
        &self,
        head: &mut SectionReader<'a>,
        heads: &[(u64, f32, f32, f32, usize)],
        wanted: usize,
    ) -> Result<Option<&'a [u8]>, PyramidError> {
        if head.remaining() == 0 {
            return Ok(None);
        }
        if head.u8()? != MEMBER_POSITIONS {
            return Err(head.err("unknown member positions"));
        }
        for (g, h) in heads.iter().enumerate() {
            let packed = match head.u8()? {
                0 => None,
                1 => Some(head.bytes(h.4.saturating_mul(3))?),
                _ => return Err(head.err("bad member positions flag")),
            };
            if g == wanted {
                return Ok(packed);
            }
        }
        Err(head.err("member positions missing"))
    }

    /// The path of each of `entities` (increasing) in a membership block whose first entity is
    /// `first`, in one pass over the block.
    pub(super) fn parse_membership(
        &self,
        bytes: &[u8],
        first: Id,
        entities: &[Id],
    ) -> Result<Vec<Option<Vec<u32>>>, PyramidError> {
        let mut out = vec![None; entities.len()];
        let mut r = SectionReader::new(bytes, self.name(), "pyramid membership");
        let levels = self.levels();
        let n = r.count(1 + levels)?;
        let mut prev: Id = 0;
        let mut want = 0;
        for k in 0..n {
            let delta = r.varint()?;
            let id = prev
                .checked_add(delta)
                .filter(|&id| (k == 0 && id == first) || (k > 0 && delta > 0))
                .ok_or_else(|| r.err::<PyramidError>("entity ids out of order"))?;
            prev = id;
            let mut path = Vec::with_capacity(levels);
            for l in 0..levels {
                path.push(r.below(self.count(l), "community")? as u32);
            }
            while entities.get(want).is_some_and(|&e| e < id) {
                want += 1;
            }
            if entities.get(want) == Some(&id) {
                out[want] = Some(path);
                want += 1;
            }
            if want == entities.len() {
                return Ok(out);
            }
        }
        r.expect_end()?;
        Ok(out)
    }

    /// Parses a block of sibling groups of `level`; `first` is the directory's first parent.
    pub(super) fn parse_level_block(
        &self,
        bytes: &[u8],
        level: usize,
        first: u32,
    ) -> Result<Vec<Group>, PyramidError> {
        let mut r = SectionReader::new(bytes, self.name(), "pyramid levels");
        let k = self.count(level);
        let k_parent = self.count(level + 1);
        let n = r.count(3 + MIN_COMMUNITY)?;
        let mut out: Vec<Group> = Vec::with_capacity(prealloc(n));
        for g in 0..n {
            let parent = r.below(k_parent, "parent")? as u32;
            if (g == 0 && parent != first) || out.last().is_some_and(|p| parent <= p.parent) {
                return Err(r.err("groups out of order"));
            }
            let first_child = r.below(k, "first child")?;
            let nc = r.count(MIN_COMMUNITY)?;
            if nc == 0 || first_child + nc as u64 > k {
                return Err(r.err(format!("bad child range {first_child}+{nc}")));
            }
            let communities = (0..nc)
                .map(|_| CommRec::read(&mut r, self.inner.classes.len(), self.inner.version >= 2))
                .collect::<Result<Vec<_>, _>>()?;
            let ne = r.count(MIN_EDGE)?;
            let hi = first_child + nc as u64;
            let edges = (0..ne)
                .map(|_| EdgeRec::read(&mut r, first_child, hi, self.inner.predicates.len()))
                .collect::<Result<Vec<_>, _>>()?;
            out.push(Group {
                parent,
                first: first_child as u32,
                communities,
                edges,
            });
        }
        r.expect_end()?;
        Ok(out)
    }
}
