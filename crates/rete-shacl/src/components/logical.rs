//! Logical components: `sh:not`, `sh:and`, `sh:or`, `sh:xone`.

use crate::error::Result;
use crate::shapes::Constraint;
use crate::validate::{Focus, Sink, Validator};

pub(super) fn check(
    v: &mut Validator<'_>,
    at: &Focus<'_>,
    c: &Constraint,
    sink: &mut Sink,
) -> Result<()> {
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
