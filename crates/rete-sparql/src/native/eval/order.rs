//! ORDER BY: rows sorted by their keys, the best `LIMIT` rows kept as they come.

use crate::native::expr;
use crate::native::interp::{Exists, Interp};
use crate::native::plan::Ex;
use crate::native::row::{row_bytes, Active, Held, Row, Rows, UNBOUND};
use crate::SparqlError;
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;
use std::rc::Rc;

/// The rows of `input` (`width` slots each) sorted by `keys` (descending where flagged), the
/// first `limit` of them.
pub(super) fn order_by<P: Exists>(
    interp: &Interp<'_, P>,
    width: usize,
    input: Rows,
    keys: &[(Ex, bool)],
    limit: Option<usize>,
    g: Active,
) -> Result<Vec<Row>, SparqlError> {
    let ctx = interp.ctx();
    // Sort keys, input position, row, and the bytes they hold.
    type Keyed = (Vec<Option<Rc<E>>>, u64, Row, usize);
    let cmp = |a: &Keyed, b: &Keyed| -> Ordering {
        for (i, (_, desc)) in keys.iter().enumerate() {
            let o = expr::order(a.0[i].as_deref(), b.0[i].as_deref());
            let o = if *desc { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        // Stable: input order breaks ties.
        a.1.cmp(&b.1)
    };
    let mut rows: Vec<Keyed> = Vec::new();
    let mut held = ctx.held("the rows and sort keys of ORDER BY");
    let base = row_bytes(width) + size_of::<Keyed>() + keys.len() * size_of::<Option<Rc<E>>>();
    let cut = |rows: &mut Vec<Keyed>, held: &mut Held, l: usize| {
        if rows.len() > l {
            held.shrink(rows[l..].iter().map(|k| k.3).sum());
            rows.truncate(l);
        }
    };
    for (n, r) in (0u64..).zip(input) {
        let r = r?;
        ctx.check()?;
        let mut k = Vec::with_capacity(keys.len());
        let mut bytes = base;
        for (e, _) in keys {
            k.push(match e {
                Ex::Var(s) if r[*s] == UNBOUND => None,
                Ex::Var(s) => Some(ctx.expr(r[*s])?),
                e => {
                    let v = interp.value(e, &r, g)?;
                    bytes += v.as_deref().map_or(0, expr::value_bytes);
                    v
                }
            });
        }
        held.grow(bytes)?;
        rows.push((k, n, r, bytes));
        if let Some(l) = limit {
            // Keep the best `l` rows: sort and cut whenever the buffer doubles.
            if rows.len() >= l.max(64).saturating_mul(2) {
                rows.sort_by(cmp);
                cut(&mut rows, &mut held, l);
            }
        }
    }
    rows.sort_by(cmp);
    if let Some(l) = limit {
        cut(&mut rows, &mut held, l);
    }
    Ok(rows.into_iter().map(|(_, _, r, _)| r).collect())
}
