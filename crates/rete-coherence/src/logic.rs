//! Satisfiability of class sets under the supported class axioms.
//!
//! With named classes and the axioms `A ⊑ B`, `A ≡ B`, `A disjointWith B`, `AllDisjointClasses`,
//! `A ≡ ¬B` and `owl:Thing`/`owl:Nothing`, every axiom is a clause of at most two literals, so the
//! question "can something be an instance of all classes in T?" is 2-SAT: T is unsatisfiable iff
//! in the implication graph some `t ∈ T` (or `owl:Thing`, which always holds) reaches `¬t'` for a
//! `t' ∈ T`, or reaches `owl:Nothing`. Paths in that graph are the explanations.
//!
//! The search is organised so that its cost follows the ancestors of T, not the whole graph:
//! positive literals only move up the hierarchy (`⊑`, `≡`) or jump to a negative literal
//! (disjointness, complement). A negative literal `¬x` only moves down the hierarchy, so it leads
//! to `¬t` exactly when `t ⊑* x`, i.e. when `x` is among the up-closure of T, which is checked
//! directly instead of walking down. Walking down is needed only to reach complement axioms
//! (`¬a → b`); it is done only below classes that have a complement axiom underneath.

use rete_schema::Schema;
use std::collections::VecDeque;

/// One axiom of the schema, as asserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Axiom {
    /// `a rdfs:subClassOf b`.
    SubClass(u32, u32),
    /// `a owl:equivalentClass b`.
    Equivalent(u32, u32),
    /// `a owl:disjointWith b`.
    Disjoint(u32, u32),
    /// `owl:AllDisjointClasses` number `g` of [`Schema::disjoint_groups`].
    Group(u32),
    /// `a owl:complementOf b` (or through an anonymous class).
    Complement(u32, u32),
}

/// A literal: class `c` (positive) or its negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Lit {
    pub(crate) class: u32,
    pub(crate) neg: bool,
}

impl Lit {
    fn slot(self) -> usize {
        self.class as usize * 2 + usize::from(self.neg)
    }
    fn pos(class: u32) -> Self {
        Self { class, neg: false }
    }
    fn neg(class: u32) -> Self {
        Self { class, neg: true }
    }
}

/// Why a set of classes cannot have a common instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Clash {
    /// The members of the checked set the contradiction starts from (one or two; `owl:Thing`
    /// is not listed).
    pub(crate) seeds: Vec<u32>,
    /// The two classes whose disjointness or complementarity is violated (both `owl:Nothing` when
    /// the set falls into `owl:Nothing`).
    pub(crate) conflict: (u32, u32),
    /// The axioms used, in reading order, without duplicates.
    pub(crate) axioms: Vec<Axiom>,
}

/// The implication graph of a schema.
#[derive(Debug)]
pub(crate) struct Logic {
    n: usize,
    up: Vec<Vec<(u32, Axiom)>>,
    down: Vec<Vec<(u32, Axiom)>>,
    jumps: Vec<Vec<(u32, Axiom)>>,
    back: Vec<Vec<(u32, Axiom)>>,
    groups: Vec<Vec<u32>>,
    groups_of: Vec<Vec<u32>>,
    useful: Vec<bool>,
    relevant: Vec<bool>,
    thing: Option<u32>,
    nothing: Option<u32>,
}

/// Reusable buffers of [`Logic::check`], stamped so that nothing is cleared between checks.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    epoch: u32,
    anc_seen: Vec<u32>,
    anc_prev: Vec<Option<(u32, Axiom)>>,
    lit_seen: Vec<u32>,
    lit_prev: Vec<Option<(Lit, Axiom)>>,
    queue: VecDeque<Lit>,
}

/// The classes of `edges` as literals (negative ones when `neg`), with their axioms.
fn lits(edges: &[(u32, Axiom)], neg: bool) -> impl Iterator<Item = (Lit, Axiom)> + '_ {
    edges
        .iter()
        .map(move |&(class, ax)| (Lit { class, neg }, ax))
}

/// Records the axiom `ax` between `a` and `b` in both directions of `edges`.
fn link(edges: &mut [Vec<(u32, Axiom)>], a: u32, b: u32, ax: Axiom) {
    edges[a as usize].push((b, ax));
    edges[b as usize].push((a, ax));
}

impl Logic {
    pub(crate) fn new(s: &Schema) -> Self {
        let n = s.classes.len();
        let mut up = vec![Vec::new(); n];
        let mut down = vec![Vec::new(); n];
        let mut jumps = vec![Vec::new(); n];
        let mut back = vec![Vec::new(); n];
        for c in &s.classes {
            for &p in &c.parents {
                up[c.index as usize].push((p, Axiom::SubClass(c.index, p)));
                down[p as usize].push((c.index, Axiom::SubClass(c.index, p)));
            }
        }
        for &(a, b) in &s.equivalent {
            let ax = Axiom::Equivalent(a, b);
            link(&mut up, a, b, ax);
            link(&mut down, a, b, ax);
        }
        for &(a, b) in &s.disjoint {
            link(&mut jumps, a, b, Axiom::Disjoint(a, b));
        }
        let mut groups_of = vec![Vec::new(); n];
        for (g, members) in s.disjoint_groups.iter().enumerate() {
            for &m in members {
                groups_of[m as usize].push(g as u32);
            }
        }
        let mut comp_members = Vec::new();
        for &(a, b) in &s.complement {
            let ax = Axiom::Complement(a, b);
            link(&mut jumps, a, b, ax);
            link(&mut back, a, b, ax);
            comp_members.extend([a, b]);
        }
        let thing = s.thing();
        let nothing = s.nothing();
        // Classes reachable from `start` along `edges`, start included.
        let reach = |edges: &[Vec<(u32, Axiom)>], start: &mut dyn Iterator<Item = u32>| {
            let mut mark = vec![false; n];
            let mut stack: Vec<u32> = Vec::new();
            for c in start {
                if !mark[c as usize] {
                    mark[c as usize] = true;
                    stack.push(c);
                }
            }
            while let Some(c) = stack.pop() {
                for &(d, _) in &edges[c as usize] {
                    if !mark[d as usize] {
                        mark[d as usize] = true;
                        stack.push(d);
                    }
                }
            }
            mark
        };
        // Walking down from `¬x` can only meet a complement axiom if one lies below `x`.
        let useful = reach(&up, &mut comp_members.iter().copied());
        let jumpers = (0..n as u32)
            .filter(|&c| !jumps[c as usize].is_empty() || !groups_of[c as usize].is_empty());
        let mut relevant = reach(&down, &mut jumpers.chain(nothing));
        if thing.is_some_and(|t| relevant[t as usize]) {
            relevant = vec![true; n];
        }
        Self {
            n,
            up,
            down,
            jumps,
            back,
            groups: s.disjoint_groups.clone(),
            groups_of,
            useful,
            relevant,
            thing,
            nothing,
        }
    }

    /// Whether class `c` can take part in a contradiction at all (it has an ancestor with a
    /// disjointness or complement axiom, or falls under `owl:Nothing`). Sets of irrelevant
    /// classes are always satisfiable, so only relevant types need to be looked at.
    pub(crate) fn relevant(&self, c: u32) -> bool {
        self.relevant.get(c as usize).copied().unwrap_or(false)
    }

    /// Classes that can take part in a contradiction.
    pub(crate) fn relevant_classes(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.n as u32).filter(|&c| self.relevant[c as usize])
    }

    /// The classes every common instance of `set` belongs to (through `⊑` and `≡`).
    pub(crate) fn closure(&self, set: &[u32]) -> std::collections::HashSet<u32> {
        let mut seen: std::collections::HashSet<u32> = set.iter().copied().collect();
        let mut stack: Vec<u32> = set.to_vec();
        while let Some(c) = stack.pop() {
            for &(p, _) in self
                .up
                .get(c as usize)
                .map(Vec::as_slice)
                .unwrap_or_default()
            {
                if seen.insert(p) {
                    stack.push(p);
                }
            }
        }
        seen
    }

    pub(crate) fn nothing(&self) -> Option<u32> {
        self.nothing
    }

    /// Why the classes of `set` have no common instance, or `None` if they can have one.
    pub(crate) fn check(&self, set: &[u32], sc: &mut Scratch) -> Option<Clash> {
        if sc.anc_seen.len() != self.n {
            sc.anc_seen = vec![0; self.n];
            sc.anc_prev = vec![None; self.n];
            sc.lit_seen = vec![0; self.n * 2];
            sc.lit_prev = vec![None; self.n * 2];
            sc.epoch = 0;
        }
        sc.epoch = sc.epoch.wrapping_add(1);
        if sc.epoch == 0 {
            sc.anc_seen.iter_mut().for_each(|x| *x = 0);
            sc.lit_seen.iter_mut().for_each(|x| *x = 0);
            sc.epoch = 1;
        }
        let e = sc.epoch;
        let seeds: Vec<u32> = set
            .iter()
            .copied()
            .chain(self.thing)
            .filter(|&c| (c as usize) < self.n)
            .collect();

        // 1. Up-closure of the set: the classes every common instance belongs to.
        let mut order = Vec::new();
        for &c in &seeds {
            if sc.anc_seen[c as usize] != e {
                sc.anc_seen[c as usize] = e;
                sc.anc_prev[c as usize] = None;
                order.push(c);
            }
        }
        let mut i = 0;
        while i < order.len() {
            let c = order[i];
            for &(p, ax) in &self.up[c as usize] {
                if sc.anc_seen[p as usize] != e {
                    sc.anc_seen[p as usize] = e;
                    sc.anc_prev[p as usize] = Some((c, ax));
                    order.push(p);
                }
            }
            i += 1;
        }
        if let Some(nothing) = self.nothing.filter(|&x| sc.anc_seen[x as usize] == e) {
            let (seed, chain) = anc_chain(sc, nothing);
            return Some(Clash {
                seeds: self.visible(&[seed]),
                conflict: (nothing, nothing),
                axioms: dedup(chain),
            });
        }

        // 2. Breadth-first search of the implication graph from the closure.
        sc.queue.clear();
        for &c in &order {
            let l = Lit::pos(c);
            sc.lit_seen[l.slot()] = e;
            sc.lit_prev[l.slot()] = sc.anc_prev[c as usize].map(|(p, ax)| (Lit::pos(p), ax));
            sc.queue.push_back(l);
        }
        while let Some(l) = sc.queue.pop_front() {
            let c = l.class;
            if !l.neg {
                if Some(c) == self.nothing {
                    let path = lit_path(sc, l);
                    let seed = path.first().map_or(c, |x| x.0.class);
                    return Some(Clash {
                        seeds: self.visible(&[seed]),
                        conflict: (c, c),
                        axioms: dedup(path.iter().map(|x| x.2).collect()),
                    });
                }
                let groups = self.groups_of[c as usize].iter().flat_map(|&g| {
                    self.groups[g as usize]
                        .iter()
                        .filter(move |&&m| m != c)
                        .map(move |&m| (Lit::neg(m), Axiom::Group(g)))
                });
                let next = lits(&self.up[c as usize], false)
                    .chain(lits(&self.jumps[c as usize], true))
                    .chain(groups);
                if let Some(clash) = self.reach(sc, l, next) {
                    return Some(clash);
                }
            } else if self.useful[c as usize] {
                let useful_down = self.down[c as usize]
                    .iter()
                    .filter(|(d, _)| self.useful[*d as usize])
                    .map(|&(d, ax)| (Lit::neg(d), ax));
                let next = lits(&self.back[c as usize], false).chain(useful_down);
                if let Some(clash) = self.reach(sc, l, next) {
                    return Some(clash);
                }
            }
        }
        None
    }

    /// `¬x` was reached and `x` is in the up-closure: the path to `¬x`, then the chain from a
    /// member of the set up to `x`, then the axiom that jumped to `¬x`.
    /// Queues the literals of `next` not seen in this search, each reached from `l`; a negative
    /// one whose class is in the closure is a clash.
    fn reach(
        &self,
        sc: &mut Scratch,
        l: Lit,
        next: impl Iterator<Item = (Lit, Axiom)>,
    ) -> Option<Clash> {
        let e = sc.epoch;
        for (m, ax) in next {
            if sc.lit_seen[m.slot()] != e {
                sc.lit_seen[m.slot()] = e;
                sc.lit_prev[m.slot()] = Some((l, ax));
                if m.neg && sc.anc_seen[m.class as usize] == e {
                    return Some(self.descent_clash(sc, m));
                }
                sc.queue.push_back(m);
            }
        }
        None
    }

    fn descent_clash(&self, sc: &Scratch, m: Lit) -> Clash {
        let path = lit_path(sc, m);
        let (seed2, chain) = anc_chain(sc, m.class);
        let seed1 = path.first().map_or(seed2, |x| x.0.class);
        // The violated pair: the last edge from a positive to a negative literal.
        let conflict = path
            .iter()
            .rev()
            .find(|(from, to, _)| !from.neg && to.neg)
            .map_or((m.class, m.class), |(from, to, _)| (from.class, to.class));
        let mut axioms: Vec<Axiom> = Vec::new();
        let (last, init) = match path.split_last() {
            Some((last, init)) => (Some(last.2), init),
            None => (None, &path[..]),
        };
        axioms.extend(init.iter().map(|x| x.2));
        axioms.extend(chain);
        axioms.extend(last);
        Clash {
            seeds: self.visible(&[seed1, seed2]),
            conflict,
            axioms: dedup(axioms),
        }
    }

    /// The seeds without `owl:Thing`, which is no member of the checked set.
    fn visible(&self, seeds: &[u32]) -> Vec<u32> {
        let mut v: Vec<u32> = seeds
            .iter()
            .copied()
            .filter(|&s| Some(s) != self.thing)
            .collect();
        v.dedup();
        v
    }
}

/// The seed a class of the up-closure was reached from and the subclass chain, seed first.
fn anc_chain(sc: &Scratch, mut c: u32) -> (u32, Vec<Axiom>) {
    let mut chain = Vec::new();
    while let Some((p, ax)) = sc.anc_prev[c as usize] {
        chain.push(ax);
        c = p;
        if chain.len() > sc.anc_prev.len() {
            break;
        }
    }
    chain.reverse();
    (c, chain)
}

/// The edges `(from, to, axiom)` of the search path to `l`, first edge first.
fn lit_path(sc: &Scratch, mut l: Lit) -> Vec<(Lit, Lit, Axiom)> {
    let mut path = Vec::new();
    while let Some((p, ax)) = sc.lit_prev[l.slot()] {
        path.push((p, l, ax));
        l = p;
        if path.len() > sc.lit_prev.len() {
            break;
        }
    }
    path.reverse();
    path
}

fn dedup(v: Vec<Axiom>) -> Vec<Axiom> {
    let mut out: Vec<Axiom> = Vec::with_capacity(v.len());
    for a in v {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rete_schema::{Class, Parts};

    fn schema(names: &[&str], parents: &[&[u32]]) -> Schema {
        let mut s = Schema::default();
        s.classes = names
            .iter()
            .zip(parents)
            .enumerate()
            .map(|(i, (n, p))| Class {
                index: i as u32,
                iri: n.to_string(),
                label: None,
                parents: p.to_vec(),
                depth: 0,
                direct_instances: 0,
                total_instances: 0,
            })
            .collect();
        s.parts = Parts::CLASSES;
        s
    }

    #[test]
    fn sets_relevance_and_scratch_reuse() {
        // 0 Sick, 1 Healthy, 2 Relapsed ⊑ 0, 1; 3 Chronic ⊑ 0; 4 Other; 0 disjoint 1.
        let mut s = schema(
            &[
                "urn:Sick",
                "urn:Healthy",
                "urn:Relapsed",
                "urn:Chronic",
                "urn:Other",
            ],
            &[&[], &[], &[0, 1], &[0], &[]],
        );
        s.disjoint = vec![(0, 1)];
        let l = Logic::new(&s);
        assert_eq!(l.relevant_classes().collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(!l.relevant(4) && !l.relevant(99));
        let mut sc = Scratch::default();
        let c = l.check(&[2], &mut sc).unwrap();
        assert_eq!(c.seeds, [2]);
        assert_eq!(c.conflict, (0, 1));
        assert_eq!(
            c.axioms,
            [
                Axiom::SubClass(2, 0),
                Axiom::SubClass(2, 1),
                Axiom::Disjoint(0, 1)
            ]
        );
        // The same scratch gives fresh answers.
        assert_eq!(l.check(&[3, 4], &mut sc), None);
        let c = l.check(&[1, 3], &mut sc).unwrap();
        assert_eq!(c.seeds.len(), 2);
        assert_eq!(l.check(&[0], &mut sc), None);
        assert_eq!(l.check(&[], &mut sc), None);
        assert!(l.closure(&[3]).contains(&0));
    }

    #[test]
    fn complement_walks_down_only_where_needed() {
        // 0 A ≡ ¬1 B; 2 X ⊑ … ; 3 Top with 0 ⊑ 3; 2 disjoint 3 and 2 disjoint 1: X is empty.
        let mut s = schema(
            &["urn:A", "urn:B", "urn:X", "urn:Top"],
            &[&[3], &[], &[], &[]],
        );
        s.complement = vec![(0, 1)];
        s.disjoint = vec![(2, 3), (2, 1)];
        let l = Logic::new(&s);
        assert!(l.useful[3] && l.useful[0] && !l.useful[2]);
        let mut sc = Scratch::default();
        let c = l.check(&[2], &mut sc).unwrap();
        assert!(c.axioms.contains(&Axiom::Complement(0, 1)));
        assert!(c.axioms.contains(&Axiom::SubClass(0, 3)));
        assert_eq!(l.check(&[0], &mut sc), None);
        // A and B are complementary: together they clash.
        assert_eq!(l.check(&[0, 1], &mut sc).unwrap().conflict.0, 0);
    }
}
