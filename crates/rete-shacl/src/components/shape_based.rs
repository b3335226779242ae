//! Shape-based components: `sh:node`, `sh:property` (its results are reported as they are),
//! `sh:qualifiedValueShape` with `sh:qualifiedMinCount` / `sh:qualifiedMaxCount` and
//! `sh:qualifiedValueShapesDisjoint`.

use super::Check;
use crate::error::Result;
use crate::shapes::Constraint;

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) -> Result<()> {
    match c {
        Constraint::Node(s) => {
            for value in at.values {
                if !v.conforms(*s, value)? {
                    v.emit(sink, at, c, Some(value.clone()));
                }
            }
        }
        Constraint::Property(s) => {
            for value in at.values {
                v.validate_shape(*s, value, sink)?;
                if sink.done() {
                    break;
                }
            }
        }
        Constraint::Qualified {
            shape,
            min,
            max,
            siblings,
        } => {
            let mut n = 0u64;
            for value in at.values {
                if !v.conforms(*shape, value)? {
                    continue;
                }
                let mut in_sibling = false;
                for s in siblings {
                    if v.conforms(*s, value)? {
                        in_sibling = true;
                        break;
                    }
                }
                if !in_sibling {
                    n += 1;
                }
            }
            let fails = min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m);
            if fails {
                v.emit(sink, at, c, None);
            }
        }
        _ => {}
    }
    Ok(())
}
