//! MINUS: the right side's rows indexed by the variables both sides share.

use crate::native::plan::Slot;
use crate::native::row::{Id, Row, UNBOUND};
use rustc_hash::FxHashMap;

/// Index of the right side of MINUS.
pub(super) struct MinusIndex {
    shared: Vec<Slot>,
    map: FxHashMap<Vec<Id>, Vec<usize>>,
}

impl MinusIndex {
    pub(super) fn new(rows: &[Row], shared: &[Slot]) -> Self {
        let mut map: FxHashMap<Vec<Id>, Vec<usize>> = FxHashMap::default();
        if !shared.is_empty() {
            for (i, r) in rows.iter().enumerate() {
                map.entry(shared.iter().map(|&s| r[s]).collect())
                    .or_default()
                    .push(i);
            }
        }
        Self {
            shared: shared.to_vec(),
            map,
        }
    }

    /// Whether some right row is compatible with `a` and shares a bound variable with it.
    pub(super) fn removes(&self, rows: &[Row], a: &Row) -> bool {
        let hit = |b: &Row| {
            let mut shared = false;
            for (x, y) in a.iter().zip(b) {
                if *x != UNBOUND && *y != UNBOUND {
                    if x != y {
                        return false;
                    }
                    shared = true;
                }
            }
            shared
        };
        if self.shared.is_empty() {
            return rows.iter().any(hit);
        }
        let key: Vec<Id> = self.shared.iter().map(|&s| a[s]).collect();
        self.map
            .get(&key)
            .is_some_and(|ix| ix.iter().any(|&i| hit(&rows[i])))
    }
}
