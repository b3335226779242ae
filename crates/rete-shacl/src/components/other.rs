//! Other components: `sh:closed` (with `sh:ignoredProperties`), `sh:hasValue`, `sh:in`.

use super::Check;
use crate::error::Result;
use crate::paths::Path;
use crate::shapes::Constraint;

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) -> Result<()> {
    match c {
        Constraint::Closed(allowed) => {
            for value in at.values {
                for (p, o) in v.data().outgoing(value)? {
                    if !allowed.contains(&p) {
                        v.emit_result(
                            sink,
                            at,
                            c,
                            Some(o),
                            Some(Path::Predicate(p)),
                            Vec::new(),
                            None,
                        );
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
