//! Other components: `sh:closed` (with `sh:ignoredProperties`), `sh:hasValue`, `sh:in`.

use crate::error::Result;
use crate::paths::Path;
use crate::shapes::Constraint;
use crate::validate::{Focus, Sink, Validator};

pub(super) fn check(
    v: &mut Validator<'_>,
    at: &Focus<'_>,
    c: &Constraint,
    sink: &mut Sink,
) -> Result<()> {
    match c {
        Constraint::Closed(allowed) => {
            for value in at.values {
                for (p, o) in v.data.outgoing(value)? {
                    if !allowed.contains(&p) {
                        v.emit_path(sink, at, c, Some(o), Some(Path::Predicate(p)));
                    }
                }
            }
        }
        Constraint::HasValue(expected) if !at.values.contains(expected) => {
            v.emit(sink, at, c, None);
        }
        Constraint::In(members) => {
            for value in at.values.iter().filter(|x| !members.contains(x)) {
                v.emit(sink, at, c, Some(value.clone()));
            }
        }
        _ => {}
    }
    Ok(())
}
