//! Tier 1: the `rdf:type`, `owl:sameAs` and `owl:differentFrom` slices.

use super::{clash_key, Cause, Ctx, Result, Src, MAX_LISTED};
use crate::logic::Clash;
use crate::render;
use crate::Step;
use oxrdf::NamedNodeRef;
use rete_core::{Id, Pattern, Perm, QuadIter};
use rete_schema::vocab::*;
use rete_schema::{Parts, Schema};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use super::provenance::{Full, PAx};

/// State of Tier 1 kept for Tier 2.
#[derive(Default)]
pub(super) struct Selective {
    pub(super) same: UnionFind,
    pub(super) same_edges: HashSet<(Id, Id)>,
    pub(super) same_adj: HashMap<Id, Vec<Id>>,
    pub(super) different: HashSet<(Id, Id)>,
    pub(super) typesets: Vec<Vec<u32>>,
    pub(super) interned: HashMap<Vec<u32>, u32>,
    /// Relevant asserted types per individual (kept only when Tier 2 follows).
    pub(super) asserted: HashMap<Id, u32>,
    /// sameAs components: root → members with their typesets.
    pub(super) components: BTreeMap<Id, Vec<(Id, u32)>>,
    /// Roots of components that already clashed.
    pub(super) clashed: HashSet<Id>,
    /// Individuals that already clashed.
    pub(super) clashed_individuals: HashSet<Id>,
}

impl Selective {
    pub(super) fn intern(&mut self, v: Vec<u32>) -> u32 {
        if let Some(&i) = self.interned.get(&v) {
            return i;
        }
        let i = self.typesets.len() as u32;
        self.typesets.push(v.clone());
        self.interned.insert(v, i);
        i
    }

    /// The `owl:sameAs` triples linking `a` to `b` (breadth-first, so a shortest chain).
    pub(super) fn same_path(&self, a: Id, b: Id) -> Vec<(Id, Id)> {
        if a == b {
            return Vec::new();
        }
        let mut prev: HashMap<Id, Id> = HashMap::new();
        let mut q = VecDeque::from([a]);
        prev.insert(a, a);
        while let Some(x) = q.pop_front() {
            if x == b {
                break;
            }
            for &y in self.same_adj.get(&x).map(Vec::as_slice).unwrap_or_default() {
                if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(y) {
                    e.insert(x);
                    q.push_back(y);
                }
            }
        }
        let mut out = Vec::new();
        let mut x = b;
        while x != a {
            let Some(&p) = prev.get(&x) else {
                return Vec::new();
            };
            out.push(if self.same_edges.contains(&(p, x)) {
                (p, x)
            } else {
                (x, p)
            });
            x = p;
        }
        out.reverse();
        out
    }
}

/// Union-find over the individuals named in `owl:sameAs` triples.
#[derive(Default)]
pub(super) struct UnionFind {
    pub(super) parent: HashMap<Id, Id>,
}

impl UnionFind {
    pub(super) fn find(&mut self, x: Id) -> Option<Id> {
        let mut r = *self.parent.get(&x)?;
        while let Some(&p) = self.parent.get(&r) {
            if p == r {
                break;
            }
            r = p;
        }
        // Path compression.
        let mut y = x;
        while let Some(&p) = self.parent.get(&y) {
            if p == r {
                break;
            }
            self.parent.insert(y, r);
            y = p;
        }
        Some(r)
    }

    pub(super) fn canon(&mut self, x: Id) -> Id {
        self.find(x).unwrap_or(x)
    }

    pub(super) fn union(&mut self, a: Id, b: Id) {
        self.parent.entry(a).or_insert(a);
        self.parent.entry(b).or_insert(b);
        let (ra, rb) = (self.canon(a), self.canon(b));
        if ra != rb {
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            self.parent.insert(hi, lo);
        }
    }
}

impl Ctx<'_> {
    pub(super) fn vocab_id(&self, iri: &str) -> Result<Option<Id>> {
        Ok(self.rete.id_of(NamedNodeRef::new_unchecked(iri).into())?)
    }

    /// `(s, o)` of the triples of predicate `p` in `perm` order, duplicates across graphs removed.
    pub(super) fn pairs(&mut self, p: Id, perm: Perm) -> Result<Vec<(Id, Id)>> {
        let mut v = Vec::new();
        for q in self.rete.scan(perm, &Pattern::new(None, Some(p), None))? {
            self.tick()?;
            let q = q?;
            if v.last() != Some(&(q[0], q[2])) {
                v.push((q[0], q[2]));
            }
        }
        Ok(v)
    }

    /// Whether the classes that can clash have at most half of the type assertions (from the
    /// schema block's counts), so that reading their slices beats reading all of `rdf:type`.
    pub(super) fn few_relevant_instances(&mut self) -> Result<bool> {
        let Some(s) = Schema::open_parts(self.rete, Parts::ALL)? else {
            return Ok(false);
        };
        let all: u64 = s.classes.iter().map(|c| c.direct_instances).sum();
        let relevant: u64 = s
            .classes
            .iter()
            .filter(|c| self.logic.relevant(c.index))
            .map(|c| c.direct_instances)
            .sum();
        Ok(relevant.saturating_mul(2) <= all)
    }

    pub(super) fn tier1(&mut self, keep_for_tier2: bool, from_block: bool) -> Result<Selective> {
        let mut sel = Selective::default();
        let same_id = self.vocab_id(OWL_SAME_AS)?;
        let diff_id = self.vocab_id(OWL_DIFFERENT_FROM)?;
        let type_id = self.vocab_id(RDF_TYPE)?;
        if let Some(p) = same_id {
            for (a, b) in self.pairs(p, Perm::Pso)? {
                sel.same.union(a, b);
                sel.same_edges.insert((a, b));
                sel.same_adj.entry(a).or_default().push(b);
                sel.same_adj.entry(b).or_default().push(a);
            }
        }
        let differents = match diff_id {
            Some(p) => self.pairs(p, Perm::Pso)?,
            None => Vec::new(),
        };
        for &(a, b) in &differents {
            sel.different.insert((a.min(b), a.max(b)));
        }

        // Individuals' types, only for classes that can take part in a contradiction.
        let mut class_of: HashMap<Id, u32> = HashMap::new();
        if !self.inconsistent {
            let relevant: Vec<u32> = self.logic.relevant_classes().collect();
            for c in relevant {
                self.tick()?;
                let iri = self.class_iri(c);
                if let Some(id) = self.vocab_id(&iri)? {
                    class_of.insert(id, c);
                }
            }
        }
        let per_class = !class_of.is_empty() && from_block && self.few_relevant_instances()?;
        if let (Some(t), true) = (type_id, per_class) {
            // Few individuals have a type that can clash: read only those classes' slices of
            // POS instead of the whole rdf:type slice.
            let mut types: BTreeMap<Id, Vec<u32>> = BTreeMap::new();
            let mut ids: Vec<(Id, u32)> = class_of.iter().map(|(&id, &c)| (id, c)).collect();
            ids.sort_unstable();
            for (id, c) in ids {
                for q in self.rete.quads(&Pattern::new(None, Some(t), Some(id)))? {
                    self.tick()?;
                    types.entry(q?[0]).or_default().push(c);
                }
            }
            for (x, v) in types {
                self.tick()?;
                self.subject_types(&mut sel, x, v, keep_for_tier2)?;
            }
        } else if let (Some(t), false) = (type_id, class_of.is_empty()) {
            let mut cur: Option<(Id, Vec<u32>)> = None;
            let it: QuadIter = self.rete.quads(&Pattern::new(None, Some(t), None))?;
            for q in it {
                self.tick()?;
                let [s, _, o, _] = q?;
                let c = class_of.get(&o).copied();
                match &mut cur {
                    Some((cs, v)) if *cs == s => v.extend(c),
                    _ => {
                        if let Some((x, v)) = cur.take() {
                            self.subject_types(&mut sel, x, v, keep_for_tier2)?;
                        }
                        cur = Some((s, c.into_iter().collect()));
                    }
                }
            }
            if let Some((x, v)) = cur.take() {
                self.subject_types(&mut sel, x, v, keep_for_tier2)?;
            }
        }
        let roots: Vec<Id> = sel.components.keys().copied().collect();
        for root in roots {
            self.tick()?;
            self.judge_component(&mut sel, root)?;
        }

        // owl:differentFrom between individuals that owl:sameAs makes one.
        for (a, b) in differents {
            self.tick()?;
            if (a == b || sel.same.canon(a) == sel.same.canon(b))
                && self.admit("same-different-clash")
            {
                let (na, nb) = (self.name(a)?, self.name(b)?);
                let mut steps = vec![render::triple(
                    &na,
                    &render::vocab(&self.schema, OWL_DIFFERENT_FROM),
                    &nb,
                )];
                steps.extend(self.same_steps(&sel, a, b)?);
                self.push_error(
                    "same-different-clash",
                    format!(
                        "{} is declared different from {}, but owl:sameAs makes them the same individual",
                        na.text, nb.text
                    ),
                    Vec::new(),
                    vec![na.nt, nb.nt],
                    steps,
                );
            }
        }
        self.all_different(&mut sel)?;
        Ok(sel)
    }

    /// `owl:AllDifferent` with `owl:members` or `owl:distinctMembers`.
    pub(super) fn all_different(&mut self, sel: &mut Selective) -> Result<()> {
        let (Some(t), Some(ad)) = (self.vocab_id(RDF_TYPE)?, self.vocab_id(OWL_ALL_DIFFERENT)?)
        else {
            return Ok(());
        };
        let mut nodes = Vec::new();
        for q in self.rete.quads(&Pattern::new(None, Some(t), Some(ad)))? {
            nodes.push(q?[0]);
        }
        nodes.dedup();
        let first = self.vocab_id(RDF_FIRST)?;
        let rest = self.vocab_id(RDF_REST)?;
        let nil = self.vocab_id(RDF_NIL)?;
        for node in nodes {
            for list_p in [OWL_MEMBERS, OWL_DISTINCT_MEMBERS] {
                let Some(lp) = self.vocab_id(list_p)? else {
                    continue;
                };
                let heads: Vec<Id> = self
                    .rete
                    .quads(&Pattern::new(Some(node), Some(lp), None))?
                    .map(|q| q.map(|q| q[2]))
                    .collect::<std::result::Result<_, _>>()?;
                for head in heads {
                    let members = self.list(head, first, rest, nil)?;
                    let mut by_root: HashMap<Id, Id> = HashMap::new();
                    for m in members.iter().copied() {
                        self.tick()?;
                        let r = sel.same.canon(m);
                        let Some(&other) = by_root.get(&r) else {
                            by_root.insert(r, m);
                            continue;
                        };
                        if !self.admit("same-different-clash") {
                            continue;
                        }
                        let (na, nb) = (self.name(other)?, self.name(m)?);
                        let mut listed = Vec::new();
                        for &x in members.iter().take(MAX_LISTED) {
                            listed.push(self.name(x)?.text);
                        }
                        if members.len() > MAX_LISTED {
                            listed.push("…".into());
                        }
                        let mut steps = vec![Step {
                            text: format!(
                                "[] a owl:AllDifferent ; {} ( {} )",
                                self.schema.compact(list_p),
                                listed.join(" ")
                            ),
                            triple: None,
                            graphs: Vec::new(),
                            default_graph: false,
                        }];
                        steps.extend(self.same_steps(sel, other, m)?);
                        self.push_error(
                            "same-different-clash",
                            format!(
                                "{} and {} are declared all different, but owl:sameAs makes them the same individual",
                                na.text, nb.text
                            ),
                            Vec::new(),
                            vec![na.nt, nb.nt],
                            steps,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn list(
        &mut self,
        head: Id,
        first: Option<Id>,
        rest: Option<Id>,
        nil: Option<Id>,
    ) -> Result<Vec<Id>> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut node = head;
        while Some(node) != nil && seen.insert(node) {
            self.tick()?;
            if let Some(f) = first {
                if let Some(q) = self
                    .rete
                    .quads(&Pattern::new(Some(node), Some(f), None))?
                    .next()
                {
                    out.push(q?[2]);
                }
            }
            let next = match rest {
                Some(r) => self
                    .rete
                    .quads(&Pattern::new(Some(node), Some(r), None))?
                    .next(),
                None => None,
            };
            match next {
                Some(q) => node = q?[2],
                None => break,
            }
        }
        Ok(out)
    }

    pub(super) fn same_steps(&mut self, sel: &Selective, a: Id, b: Id) -> Result<Vec<Step>> {
        let mut steps = Vec::new();
        let same = render::vocab(&self.schema, OWL_SAME_AS);
        for (x, y) in sel.same_path(a, b) {
            let (nx, ny) = (self.name(x)?, self.name(y)?);
            steps.push(render::triple(&nx, &same, &ny));
        }
        Ok(steps)
    }

    pub(super) fn subject_types(
        &mut self,
        sel: &mut Selective,
        x: Id,
        mut classes: Vec<u32>,
        keep: bool,
    ) -> Result<()> {
        if classes.is_empty() {
            return Ok(());
        }
        classes.sort_unstable();
        classes.dedup();
        let ts = sel.intern(classes);
        if keep {
            sel.asserted.insert(x, ts);
        }
        if let Some(root) = sel.same.find(x) {
            sel.components.entry(root).or_default().push((x, ts));
            return Ok(());
        }
        let classes = sel.typesets[ts as usize].clone();
        let owners: Vec<(u32, Src)> = classes.iter().map(|&c| (c, Src::Asserted(x))).collect();
        if self.judge(sel, &[x], &owners, None)? {
            sel.clashed_individuals.insert(x);
        }
        Ok(())
    }

    /// Judges the types of one individual or one sameAs component. `inferred` is `None` in
    /// Tier 1; in Tier 2 it holds the provenance records behind `Src::Inferred`. Returns whether
    /// a finding was made.
    pub(super) fn judge(
        &mut self,
        sel: &Selective,
        members: &[Id],
        types: &[(u32, Src)],
        inferred: Option<&Full>,
    ) -> Result<bool> {
        if self.inconsistent || types.is_empty() {
            return Ok(false);
        }
        let mut asserted: Vec<u32> = types
            .iter()
            .filter(|t| matches!(t.1, Src::Asserted(_)))
            .map(|t| t.0)
            .collect();
        asserted.sort_unstable();
        asserted.dedup();
        let owner = |c: u32, inferred_ok: bool| -> Option<Src> {
            types
                .iter()
                .find(|t| t.0 == c && (inferred_ok || matches!(t.1, Src::Asserted(_))))
                .map(|t| t.1)
        };
        if inferred.is_none() {
            // Tier 1: members of unsatisfiable classes first, then the set as a whole.
            if let Some(&c) = asserted.iter().find(|&&c| self.unsat[c as usize]) {
                if let Some(Src::Asserted(x)) = owner(c, false) {
                    if self.admit("unsatisfiable-member") {
                        let nx = self.name(x)?;
                        let mut steps = vec![render::type_step(&self.schema, &nx, c)];
                        if let Some(cl) = self.unsat_clash.get(&c) {
                            steps.extend(self.axiom_steps(cl));
                        }
                        let f = render::finding(
                            "unsatisfiable-member",
                            "error",
                            format!(
                                "{} is an instance of the unsatisfiable class {}",
                                nx.text,
                                self.class_text(c)
                            ),
                            vec![self.class_iri(c)],
                            vec![nx.nt],
                            steps,
                        );
                        self.causes.push((self.findings.len(), Cause::Member(c)));
                        self.findings.push(f);
                    }
                }
                return Ok(true);
            }
            let Some(clash) = self.check_set(&asserted) else {
                return Ok(false);
            };
            self.push_clash("disjoint-class-clash", sel, members, &clash, &owner, None)?;
            return Ok(true);
        }
        // Tier 2: only what the inferred types add; an inferred type that the asserted ones
        // already entail adds nothing (and would make a longer explanation).
        if self.check_set(&asserted).is_some() {
            return Ok(false);
        }
        let entailed = self.logic.closure(&asserted);
        let mut all: Vec<u32> = types
            .iter()
            .filter(|t| matches!(t.1, Src::Asserted(_)) || !entailed.contains(&t.0))
            .map(|t| t.0)
            .collect();
        all.sort_unstable();
        all.dedup();
        let Some(clash) = self.check_set(&all) else {
            return Ok(false);
        };
        self.push_clash("domain-range-clash", sel, members, &clash, &owner, inferred)?;
        Ok(true)
    }

    /// Records the finding of `clash` (under the cap of `kind`) with the clash as its cause.
    fn push_clash(
        &mut self,
        kind: &'static str,
        sel: &Selective,
        members: &[Id],
        clash: &Clash,
        owner: &dyn Fn(u32, bool) -> Option<Src>,
        full: Option<&Full>,
    ) -> Result<()> {
        if !self.admit(kind) {
            return Ok(());
        }
        let mut steps = Vec::new();
        let mut involved: Vec<Id> = Vec::new();
        let mut why: Vec<String> = Vec::new();
        // Asserted types first, then the triples that implied the others.
        let mut seeds: Vec<(u32, Option<Src>)> = clash
            .seeds
            .iter()
            .map(|&c| (c, owner(c, full.is_some())))
            .collect();
        seeds.sort_by_key(|s| !matches!(s.1, Some(Src::Asserted(_))));
        for (seed, src) in seeds {
            match src {
                Some(Src::Asserted(x)) => {
                    let nx = self.name(x)?;
                    steps.push(render::type_step(&self.schema, &nx, seed));
                    involved.push(x);
                }
                Some(Src::Inferred(k)) => {
                    if let Some(full) = full {
                        let prov = full.provs[k as usize];
                        let (ns, no) = (self.name(prov.s)?, self.name(prov.o)?);
                        let np = render::property(&self.schema, prov.prop);
                        steps.push(render::triple(&ns, &np, &no));
                        let c = &full.constraints[prov.prop as usize][prov.constraint as usize];
                        for ax in &c.chain {
                            steps.push(self.pax_step(*ax));
                        }
                        let x = if c.on_object { prov.o } else { prov.s };
                        involved.push(x);
                        why.push(format!(
                            "{} of {}",
                            if matches!(c.chain.last(), Some(PAx::Domain(..))) {
                                "rdfs:domain"
                            } else {
                                "rdfs:range"
                            },
                            np.text
                        ));
                    }
                }
                None => {}
            }
        }
        involved.dedup();
        if involved.len() == 2 && involved[0] != involved[1] {
            steps.extend(self.same_steps(sel, involved[0], involved[1])?);
        }
        steps.extend(self.axiom_steps(clash));
        let mut entities = Vec::new();
        let mut texts = Vec::new();
        let shown: Vec<Id> = if involved.is_empty() {
            members.to_vec()
        } else {
            involved.clone()
        };
        for x in shown {
            let n = self.name(x)?;
            if !entities.contains(&n.nt) {
                texts.push(n.text);
                entities.push(n.nt);
            }
        }
        let who = texts.join(" = ");
        let message = if why.is_empty() {
            format!("{who} is {}", self.conflict_text(clash))
        } else {
            format!(
                "{who} is {} once the {} applies",
                self.conflict_text(clash),
                why.join(" and the ")
            )
        };
        let f = render::finding(
            kind,
            "error",
            message,
            self.clash_classes(&[], clash),
            entities,
            steps,
        );
        self.causes
            .push((self.findings.len(), Cause::Clash(clash_key(clash))));
        self.findings.push(f);
        Ok(())
    }

    pub(super) fn judge_component(&mut self, sel: &mut Selective, root: Id) -> Result<()> {
        let members = sel.components.get(&root).cloned().unwrap_or_default();
        let mut types: Vec<(u32, Src)> = Vec::new();
        for &(m, ts) in &members {
            for &c in &sel.typesets[ts as usize] {
                types.push((c, Src::Asserted(m)));
            }
        }
        let ids: Vec<Id> = members.iter().map(|m| m.0).collect();
        if self.judge(sel, &ids, &types, None)? {
            sel.clashed.insert(root);
        }
        Ok(())
    }
}
