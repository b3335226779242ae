//! Searching sorted keys by their leading id: a guess interpolated from the ids at both ends,
//! then a gallop from it and a binary search over what the gallop brackets. The leading ids of
//! a block's keys, or of a directory's block keys, spread about evenly over their range, so the
//! guess lands within a few entries of the answer and the search touches a few cache lines
//! instead of one per halving (a binary search over a decoded block of 4,096 keys or a
//! directory of 24,000 blocks misses the cache a dozen times or more).

use crate::Id;

/// Entries below this many are binary searched directly.
const SMALL: usize = 16;

/// The number of leading `items` for which `before` holds (it must hold for a prefix of them,
/// as for [`slice::partition_point`]), where `target` is the leading id of the boundary's key:
/// `lead(item) < target` implies `before(item)` and `lead(item) > target` implies the
/// opposite. The same answer as `items.partition_point(before)`.
pub(crate) fn partition_by_lead<T>(
    items: &[T],
    target: Id,
    lead: impl Fn(&T) -> Id,
    before: impl Fn(&T) -> bool,
) -> usize {
    let n = items.len();
    if n <= SMALL {
        return items.partition_point(before);
    }
    let (first, last) = (lead(&items[0]), lead(&items[n - 1]));
    let guess = if target <= first {
        0
    } else if target >= last {
        n - 1
    } else {
        // A guess needs no exact arithmetic: floating point, not a 128-bit division.
        let at = (target - first) as f64 / (last - first) as f64 * (n - 1) as f64;
        (at as usize).min(n - 1)
    };
    gallop_from(items, guess, before)
}

/// The number of leading `items` for which `before` holds, searched from the start: a few
/// probes when the answer is near it (the end of a short range in a block).
pub(crate) fn gallop<T>(items: &[T], before: impl Fn(&T) -> bool) -> usize {
    if items.is_empty() {
        return 0;
    }
    gallop_from(items, 0, before)
}

/// [`slice::partition_point`] of `items` (not empty) searched outwards from `guess`.
fn gallop_from<T>(items: &[T], guess: usize, before: impl Fn(&T) -> bool) -> usize {
    let n = items.len();
    if before(&items[guess]) {
        // The boundary is after the guess: gallop right.
        let mut known = guess; // `before` holds here
        let mut step = 1;
        loop {
            let probe = known + step;
            if probe >= n {
                return known + 1 + items[known + 1..].partition_point(before);
            }
            if !before(&items[probe]) {
                return known + 1 + items[known + 1..probe].partition_point(before);
            }
            known = probe;
            step *= 2;
        }
    } else {
        // At or before the guess: gallop left.
        let mut known = guess; // `before` fails here
        let mut step = 1;
        loop {
            if step > known {
                return items[..known].partition_point(before);
            }
            let probe = known - step;
            if before(&items[probe]) {
                return probe + 1 + items[probe + 1..known].partition_point(before);
            }
            known = probe;
            step *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn same_as_partition_point(
            mut keys in proptest::collection::vec((0u64..50, 0u64..4), 0..200),
            target in (0u64..55, 0u64..5),
        ) {
            keys.sort_unstable();
            let t = [target.0, target.1];
            let lead = |k: &(u64, u64)| k.0;
            let want = keys.partition_point(|k| [k.0, k.1] < t);
            prop_assert_eq!(partition_by_lead(&keys, t[0], lead, |k| [k.0, k.1] < t), want);
            let want = keys.partition_point(|k| [k.0, k.1] <= t);
            prop_assert_eq!(partition_by_lead(&keys, t[0], lead, |k| [k.0, k.1] <= t), want);
        }

        #[test]
        fn gallop_is_partition_point(
            mut keys in proptest::collection::vec(0u64..100, 0..200),
            t in 0u64..105,
        ) {
            keys.sort_unstable();
            prop_assert_eq!(gallop(&keys, |&k| k < t), keys.partition_point(|&k| k < t));
        }

        #[test]
        fn skewed_ids_too(
            mut keys in proptest::collection::vec(0u64..u64::MAX, 0..300),
            pick in 0usize..300,
        ) {
            keys.sort_unstable();
            let t = keys.get(pick).copied().unwrap_or(u64::MAX / 2);
            let want = keys.partition_point(|&k| k < t);
            prop_assert_eq!(partition_by_lead(&keys, t, |&k| k, |&k| k < t), want);
        }
    }
}
