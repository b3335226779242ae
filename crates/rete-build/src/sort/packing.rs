//! Key packing: how a permutation key is held as one `u64` or `u128` whose integer order is
//! the key order (node ids by their bits, predicates and graphs by rank). Separate from the
//! sort, which only compares and moves the packed integers.

use super::Key;
#[cfg(test)]
use super::ProvQuads;
use crate::BuildError;
use rete_core::Perm;

/// How keys are held while sorting: packed into one integer, fields from the most significant
/// bits down, so the integer order is the key order. Subjects and objects take the bits of the
/// largest of their ids; predicates and graphs, which are few, take the bits of their rank among
/// the distinct ones (a rank keeps the order of the ids). A `u64` when the fields take at most
/// 64 bits (half the bytes of a `u128`: at 100 M triples 24 + 24 + 4 bits), else a `u128`.
#[derive(Debug, Clone)]
pub(crate) struct Packing {
    /// Bits of a subject or object id.
    node_bits: u32,
    preds: Ranks,
    graphs: Ranks,
}

/// The distinct ids of one field, sorted, so a field packs as its rank; `None` when there are
/// more than [`RANK_LIMIT`] of them, then the field packs as the id itself.
#[derive(Debug, Clone)]
struct Ranks {
    pub(super) ids: Option<Vec<u32>>,
    pub(super) bits: u32,
}

/// Beyond this many distinct predicates or graphs, ranking them would cost more memory than the
/// bits it saves are worth.
pub(crate) const RANK_LIMIT: usize = 1 << 16;

pub(super) fn bits(v: u32) -> u32 {
    u32::BITS - v.leading_zeros()
}

impl Ranks {
    /// Ranks from the distinct ids seen (`None` past the limit) and the largest id.
    pub(super) fn new(seen: Option<std::collections::HashSet<u32>>, max: u32) -> Self {
        match seen {
            Some(set) => {
                let mut ids: Vec<u32> = set.into_iter().collect();
                ids.sort_unstable();
                let bits = bits(ids.len().saturating_sub(1) as u32);
                Self {
                    ids: Some(ids),
                    bits,
                }
            }
            None => Self {
                ids: None,
                bits: bits(max),
            },
        }
    }

    #[inline]
    fn rank(&self, id: u32) -> u32 {
        match &self.ids {
            // Every id packed was seen when the ranks were made.
            Some(ids) => ids.binary_search(&id).unwrap_or_else(|i| i) as u32,
            None => id,
        }
    }

    /// The rank of an id, `None` if it was not among those ranked; an unranked field's id.
    fn try_rank(&self, id: u32) -> Option<u32> {
        match &self.ids {
            Some(ids) => ids.binary_search(&id).ok().map(|r| r as u32),
            None => Some(id),
        }
    }

    #[inline]
    pub(super) fn id(&self, rank: u32) -> u32 {
        match &self.ids {
            // Ranks come only from `rank`: always in range.
            Some(ids) => ids.get(rank as usize).copied().unwrap_or(rank),
            None => rank,
        }
    }
}

/// Collects the distinct ids of a field until there are too many.
#[cfg(test)]
pub(super) fn see(
    seen: &mut Option<std::collections::HashSet<u32>>,
    last: &mut Option<u32>,
    id: u32,
) {
    if *last == Some(id) {
        return;
    }
    *last = Some(id);
    if let Some(set) = seen {
        set.insert(id);
        if set.len() > RANK_LIMIT {
            *seen = None;
        }
    }
}

impl Packing {
    /// The packing for ids up to `max`: predicates and graphs ranked among the distinct ones
    /// given (`None`: too many to rank, they pack as ids).
    pub(crate) fn new(
        max: u32,
        preds: Option<std::collections::HashSet<u32>>,
        graphs: Option<std::collections::HashSet<u32>>,
    ) -> Self {
        Self {
            node_bits: bits(max).max(1),
            preds: Ranks::new(preds, max),
            graphs: Ranks::new(graphs, max),
        }
    }

    /// The packing for `quads` (with final ids), read from the quads themselves.
    #[cfg(test)]
    pub(crate) fn of(quads: &ProvQuads) -> Result<Self, BuildError> {
        let (mut node, mut p, mut g) = (0u32, 0u32, 0u32);
        let (mut preds, mut graphs) = (Some(Default::default()), Some(Default::default()));
        let (mut last_p, mut last_g) = (None, None);
        quads.for_each(|q| {
            node = node.max(q[0]).max(q[2]);
            p = p.max(q[1]);
            g = g.max(q[3]);
            see(&mut preds, &mut last_p, q[1]);
            see(&mut graphs, &mut last_g, q[3]);
            Ok(())
        })?;
        Ok(Self {
            node_bits: bits(node).max(1),
            preds: Ranks::new(preds, p),
            graphs: Ranks::new(graphs, g),
        })
    }

    /// The packing of `perm`'s keys.
    pub(crate) fn of_perm(&self, perm: Perm) -> PermPacking<'_> {
        let o = perm.order();
        let pred_at = o.iter().position(|&i| i == 1).unwrap_or(1);
        let mut widths = [
            self.node_bits,
            self.node_bits,
            self.node_bits,
            self.graphs.bits,
        ];
        widths[pred_at] = self.preds.bits;
        PermPacking {
            packing: self,
            widths,
            pred_at,
            order: o,
        }
    }

    /// Bytes of a sort key in memory (the same for every permutation).
    pub(crate) fn key_bytes(&self) -> usize {
        self.of_perm(Perm::Spo).key_bytes()
    }
}

/// A [`Packing`] with its fields in one permutation's order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PermPacking<'a> {
    pub(super) packing: &'a Packing,
    /// Bits of each key field, in key order (the graph last).
    widths: [u32; 4],
    /// Which key field holds the predicate.
    pred_at: usize,
    /// The quad's positions in key order (the graph last, not listed).
    pub(super) order: [usize; 3],
}

impl PermPacking<'_> {
    /// Whether a key fits a `u64`.
    pub(super) fn fits64(self) -> bool {
        self.widths.iter().sum::<u32>() <= 64
    }

    pub(super) fn key_bytes(self) -> usize {
        if self.fits64() {
            size_of::<u64>()
        } else {
            size_of::<u128>()
        }
    }

    /// A quad's key: its fields in key order, the predicate and graph as ranks.
    #[inline]
    pub(super) fn pack(self, q: [u32; 4]) -> u128 {
        let p = self.packing;
        let o = self.order;
        let mut k = [q[o[0]], q[o[1]], q[o[2]], q[3]];
        k[self.pred_at] = p.preds.rank(k[self.pred_at]);
        k[3] = p.graphs.rank(k[3]);
        self.join(k)
    }

    /// [`Self::pack`] for a packing made before the quads were seen (the dictionary's): an id
    /// it has no room for is an error, not a wrong key.
    pub(super) fn pack_checked(self, q: [u32; 4]) -> Result<u128, BuildError> {
        let p = self.packing;
        let o = self.order;
        let mut k = [q[o[0]], q[o[1]], q[o[2]], q[3]];
        let pred = p.preds.try_rank(k[self.pred_at]);
        let graph = p.graphs.try_rank(k[3]);
        let (Some(pred), Some(graph)) = (pred, graph) else {
            return Err(BuildError::Invalid(format!(
                "internal: quad {q:?} outside the sort keys' packing"
            )));
        };
        k[self.pred_at] = pred;
        k[3] = graph;
        if k.iter()
            .zip(&self.widths)
            .any(|(&x, &w)| w < 32 && x >> w != 0)
        {
            return Err(BuildError::Invalid(format!(
                "internal: quad {q:?} outside the sort keys' packing"
            )));
        }
        Ok(self.join(k))
    }

    /// The key of `v`, a key of the same quad in `from`'s packing (the same [`Packing`]): its
    /// fields moved, ranks kept, no lookup.
    #[inline]
    pub(super) fn repack(self, from: PermPacking<'_>, v: u128) -> u128 {
        let f = from.split(v);
        // The fields of `from` by quad position.
        let mut q = [0u32; 4];
        for (i, &at) in from.order.iter().enumerate() {
            q[at] = f[i];
        }
        q[3] = f[3];
        let o = self.order;
        self.join([q[o[0]], q[o[1]], q[o[2]], q[3]])
    }

    /// Fields (key order, ranks as they are) into a key, from the most significant bits down.
    #[inline]
    pub(super) fn join(self, k: Key) -> u128 {
        let mut v = 0u128;
        for (&x, &w) in k.iter().zip(&self.widths) {
            // A zero-width field (one graph) shifts nothing in.
            v = (v << w) | u128::from(x);
        }
        v
    }

    /// [`Self::join`] undone.
    #[inline]
    fn split(self, mut v: u128) -> Key {
        let mut k = [0u32; 4];
        for i in (0..4).rev() {
            let w = self.widths[i];
            k[i] = (v & ((1u128 << w) - 1)) as u32;
            v >>= w;
        }
        k
    }

    /// The quad of a key (ids in key order).
    #[inline]
    pub(super) fn unpack(self, v: u128) -> Key {
        let p = self.packing;
        let mut k = self.split(v);
        k[self.pred_at] = p.preds.id(k[self.pred_at]);
        k[3] = p.graphs.id(k[3]);
        k
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// Packed keys sort like the keys they pack and unpack to them, in every permutation: in a
    /// `u64` down to the widest ids that fit, in a `u128` past them; predicates and graphs by
    /// rank, or as ids when there are too many to rank.
    #[test]
    fn packed_keys_keep_the_order() {
        let quads = |qs: &[[u32; 4]]| ProvQuads {
            mem: qs.to_vec(),
            total: qs.len() as u64,
            ..ProvQuads::default()
        };
        let check = |qs: &[[u32; 4]], fits64: bool| {
            let packing = Packing::of(&quads(qs)).unwrap();
            for perm in Perm::ALL {
                let p = packing.of_perm(perm);
                assert_eq!(p.fits64(), fits64, "{perm:?}");
                let o = perm.order();
                let mut keys: Vec<Key> = qs
                    .iter()
                    .map(|q| [q[o[0]], q[o[1]], q[o[2]], q[3]])
                    .collect();
                let mut packed: Vec<u128> = qs.iter().map(|&q| p.pack(q)).collect();
                if fits64 {
                    assert!(packed.iter().all(|&v| v <= u128::from(u64::MAX)));
                }
                let spo = packing.of_perm(Perm::Spo);
                for (&q, &v) in qs.iter().zip(&packed) {
                    assert_eq!(p.pack_checked(q).unwrap(), v);
                    // From the SPO key (a packed part) to this permutation's without lookups.
                    assert_eq!(p.repack(spo, spo.pack(q)), v, "{perm:?}");
                }
                keys.sort_unstable();
                packed.sort_unstable();
                let back: Vec<Key> = packed.iter().map(|&v| p.unpack(v)).collect();
                assert_eq!(back, keys, "{perm:?}");
            }
        };
        // Nodes up to 31 bits, predicates and graphs ranked: 31 + 31 + 1 + 1 bits.
        let wide = (1u32 << 31) - 1;
        let qs = [
            [wide, u32::MAX, 0, 7],
            [0, 5, wide, 0],
            [1, u32::MAX, 1, 0],
            [0, 5, 0, 7],
            [0, 5, 0, 0],
            [wide, 5, wide - 1, 7],
        ];
        check(&qs, true);
        // One predicate and one graph take no bits at all.
        check(&[[3, 9, 4, 2], [4, 9, 3, 2], [3, 9, 3, 2]], true);
        // Full-width nodes: a u128.
        check(
            &[
                [u32::MAX, 1, 0, 0],
                [0, 1, u32::MAX, 3],
                [5, 2, 5, u32::MAX],
            ],
            false,
        );
        // Too many predicates to rank: they pack as ids (3 + 32 + 3 bits).
        let many: Vec<[u32; 4]> = (0..=RANK_LIMIT as u32 + 1)
            .map(|i| [i % 7, u32::MAX - i, i % 5, 0])
            .collect();
        let packing = Packing::of(&quads(&many)).unwrap();
        assert!(packing.preds.ids.is_none() && packing.preds.bits == 32);
        assert!(packing.graphs.ids.is_some() && packing.graphs.bits == 0);
        check(&many, true);
    }
}
