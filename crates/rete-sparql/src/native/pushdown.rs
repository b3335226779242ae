//! Filter pushdown into a basic graph pattern. A FILTER over a BGP holds for a row as soon as
//! the variables it reads are bound, so each conjunct of it runs right after the patterns that
//! bind them, and the patterns after it are probed only for the rows it keeps. BSBM's Q5 (products
//! similar to a product) at 100 M triples: 39,265 rows after the shared-feature join, 2,968
//! after the first numeric filter, 545 after the second; without the pushdown every one of the
//! 39,265 probed the second numeric property and the label before any filter ran.

use super::plan::{ex_slots, tp_slots, Ex, Plan, Tp};
use std::rc::Rc;

/// `tps` (in their join order) with `expr` split into its `&&` conjuncts, each applied after the
/// shortest prefix of `tps` binding all its variables; `None` when every conjunct needs the
/// whole BGP (the plain `Filter` over it is then the same plan). The caller makes sure every
/// variable of `expr` is bound by `tps`. A conjunct holding `EXISTS` stays at the end: its
/// pattern sees the row's bindings, which must be the whole BGP's.
pub(super) fn push_into_bgp(tps: &[Tp], expr: &Ex) -> Option<Plan> {
    let n = tps.len();
    if n < 2 {
        return None; // nothing to run a filter part-way through
    }
    let mut conjuncts = Vec::new();
    split_and(expr, &mut conjuncts);
    // `after[k]`: the conjuncts that run once the first k patterns have bound their variables.
    let mut after: Vec<Vec<Ex>> = vec![Vec::new(); n + 1];
    for c in conjuncts {
        let k = if has_exists(&c) {
            n
        } else {
            let mut used = Vec::new();
            ex_slots(&c, &mut used);
            let mut bound = Vec::new();
            let mut k = 0;
            while k < n && !used.iter().all(|s| bound.contains(s)) {
                bound.extend(tp_slots(&tps[k]));
                k += 1;
            }
            k.max(1)
        };
        after[k].push(c);
    }
    if after[..n].iter().all(Vec::is_empty) {
        return None;
    }
    let mut plan: Option<Rc<Plan>> = None;
    let mut start = 0;
    for (k, here) in after.into_iter().enumerate().skip(1) {
        if here.is_empty() && k < n {
            continue;
        }
        let segment = Rc::new(Plan::Bgp(tps[start..k].to_vec()));
        // The segment after a filter is probed with each row the filter kept.
        let joined = match plan {
            None => segment,
            Some(p) => Rc::new(Plan::Join(p, segment)),
        };
        plan = Some(
            match here.into_iter().reduce(|a, b| Ex::And(a.into(), b.into())) {
                Some(expr) => Rc::new(Plan::Filter {
                    inner: joined,
                    expr,
                    risky: Vec::new(),
                }),
                None => joined,
            },
        );
        start = k;
    }
    plan.and_then(|p| Rc::try_unwrap(p).ok())
}

/// The conjuncts of `e`: a row passes `a && b` exactly when it passes `a` and `b` (an error in
/// either drops it either way).
fn split_and(e: &Ex, out: &mut Vec<Ex>) {
    match e {
        Ex::And(a, b) => {
            split_and(a, out);
            split_and(b, out);
        }
        e => out.push(e.clone()),
    }
}

fn has_exists(e: &Ex) -> bool {
    let mut found = matches!(e, Ex::Exists(_));
    e.children(&mut |c| found |= has_exists(c));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::plan::PTerm;

    fn tp(s: usize, p: u64, o: usize) -> Tp {
        Tp {
            s: PTerm::Var(s),
            p: PTerm::Const(p),
            o: PTerm::Var(o),
        }
    }

    fn less(a: usize, b: usize) -> Ex {
        Ex::Cmp(
            Box::new(Ex::Var(a)),
            Box::new(Ex::Var(b)),
            [true, false, false],
        )
    }

    /// The shape of a plan: `B<n>` a BGP of n patterns, `F(..)` a filter of so many conjuncts.
    fn shape(p: &Plan) -> String {
        match p {
            Plan::Bgp(t) => format!("B{}", t.len()),
            Plan::Join(a, b) => format!("J({},{})", shape(a), shape(b)),
            Plan::Filter { inner, expr, .. } => {
                let mut c = Vec::new();
                split_and(expr, &mut c);
                format!("F{}({})", c.len(), shape(inner))
            }
            _ => "?".into(),
        }
    }

    #[test]
    fn each_conjunct_runs_after_the_patterns_binding_its_variables() {
        // ?a p ?b . ?a q ?c . ?a r ?d  FILTER(?b < ?a && ?c < ?b && ?d < ?c)
        let tps = [tp(0, 1, 1), tp(0, 2, 2), tp(0, 3, 3)];
        let expr = Ex::And(
            Box::new(Ex::And(Box::new(less(1, 0)), Box::new(less(2, 1)))),
            Box::new(less(3, 2)),
        );
        let plan = push_into_bgp(&tps, &expr).expect("pushed");
        assert_eq!(shape(&plan), "F1(J(F1(J(F1(B1),B1)),B1))");
        // A conjunct that needs the last pattern stays at the end: nothing moves.
        assert!(push_into_bgp(&tps, &less(3, 0)).is_none());
        // EXISTS waits for the whole BGP, even when its row variables are bound early.
        let exists = Ex::Exists(Rc::new(Plan::Bgp(vec![tp(0, 4, 5)])));
        let expr = Ex::And(Box::new(less(1, 0)), Box::new(exists));
        assert_eq!(
            shape(&push_into_bgp(&tps, &expr).expect("pushed")),
            "F1(J(F1(B1),B2))"
        );
        // One pattern or none: nothing to run part-way through.
        assert!(push_into_bgp(&tps[..1], &less(1, 0)).is_none());
        assert!(push_into_bgp(&[], &less(1, 0)).is_none());
    }
}
