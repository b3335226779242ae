//! Cardinality components: `sh:minCount`, `sh:maxCount` (one result without a value).

use crate::shapes::Constraint;
use crate::validate::{Focus, Sink, Validator};

pub(super) fn check(v: &Validator<'_>, at: &Focus<'_>, c: &Constraint, sink: &mut Sink) {
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
