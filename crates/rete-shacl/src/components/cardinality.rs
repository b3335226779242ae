//! Cardinality components: `sh:minCount`, `sh:maxCount` (one result without a value).

use super::Check;
use crate::shapes::Constraint;

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) {
    let n = at.values.len() as u64;
    let fails = match c {
        Constraint::MinCount(min) => n < *min,
        Constraint::MaxCount(max) => n > *max,
        _ => false,
    };
    if fails {
        v.emit(sink, at, c, None);
    }
}
