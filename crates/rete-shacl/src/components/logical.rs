//! Logical components: `sh:not`, `sh:and`, `sh:or`, `sh:xone`.

use super::Check;
use crate::error::Result;
use crate::shapes::Constraint;

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) -> Result<()> {
    for value in at.values {
        let ok = match c {
            Constraint::Not(s) => !v.conforms(*s, value)?,
            Constraint::And(shapes) => {
                let mut all = true;
                for s in shapes {
                    if !v.conforms(*s, value)? {
                        all = false;
                        break;
                    }
                }
                all
            }
            Constraint::Or(shapes) => {
                let mut any = false;
                for s in shapes {
                    if v.conforms(*s, value)? {
                        any = true;
                        break;
                    }
                }
                any
            }
            Constraint::Xone(shapes) => {
                let mut n = 0;
                for s in shapes {
                    if v.conforms(*s, value)? {
                        n += 1;
                    }
                }
                n == 1
            }
            _ => true,
        };
        if !ok {
            v.emit(sink, at, c, Some(value.clone()));
        }
    }
    Ok(())
}
