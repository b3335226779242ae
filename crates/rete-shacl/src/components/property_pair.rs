//! Property pair components: `sh:equals`, `sh:disjoint`, `sh:lessThan`, `sh:lessThanOrEquals`,
//! comparing the value nodes with the focus node's values of another predicate.

use super::Check;
use crate::error::Result;
use crate::shapes::Constraint;
use crate::values::compare;
use std::cmp::Ordering;

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) -> Result<()> {
    let (Constraint::Equals(p)
    | Constraint::Disjoint(p)
    | Constraint::LessThan(p)
    | Constraint::LessThanOrEquals(p)) = c
    else {
        return Ok(());
    };
    let others = v.data().objects(at.node, p.as_ref())?;
    match c {
        Constraint::Equals(_) => {
            for value in at.values.iter().filter(|x| !others.contains(x)) {
                v.emit(sink, at, c, Some(value.clone()));
            }
            for other in others.iter().filter(|x| !at.values.contains(x)) {
                v.emit(sink, at, c, Some(other.clone()));
            }
        }
        Constraint::Disjoint(_) => {
            for value in at.values.iter().filter(|x| others.contains(x)) {
                v.emit(sink, at, c, Some(value.clone()));
            }
        }
        _ => {
            let strict = matches!(c, Constraint::LessThan(_));
            for value in at.values {
                for other in &others {
                    let ok = match compare(value.as_ref(), other.as_ref()) {
                        Some(Ordering::Less) => true,
                        Some(Ordering::Equal) => !strict,
                        _ => false,
                    };
                    if !ok {
                        v.emit(sink, at, c, Some(value.clone()));
                    }
                }
            }
        }
    }
    Ok(())
}
