//! Value range components: `sh:minExclusive`, `sh:minInclusive`, `sh:maxExclusive`,
//! `sh:maxInclusive`. A value that does not compare with the bound fails.

use super::Check;
use crate::shapes::{Bound, Constraint};
use crate::values::compare;
use std::cmp::Ordering;

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) {
    let Constraint::Range(bound, limit) = c else {
        return;
    };
    for value in at.values {
        let ok = match compare(value.as_ref(), limit.as_ref()) {
            None => false,
            Some(o) => match bound {
                Bound::MinExclusive => o == Ordering::Greater,
                Bound::MinInclusive => o != Ordering::Less,
                Bound::MaxExclusive => o == Ordering::Less,
                Bound::MaxInclusive => o != Ordering::Greater,
            },
        };
        if !ok {
            v.emit(sink, at, c, Some(value.clone()));
        }
    }
}
