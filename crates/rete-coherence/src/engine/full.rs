//! Tier 2: the triples of every property that carries an axiom.

use super::{Ctx, Result, Src, MAX_LISTED};
use crate::render;
use crate::{Finding, Step};
use oxrdf::Term;
use rete_core::{Id, Pattern, Perm};
use rete_schema::vocab::*;
use rete_schema::{Parts, Schema};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use super::provenance::{Constraint, Full, PAx, Prov};
use super::selective::Selective;

/// `[a]` when the two are the same entity, else `[a, b]`.
fn one_or_both(same: bool, a: String, b: String) -> Vec<String> {
    if same {
        vec![a]
    } else {
        vec![a, b]
    }
}

impl Ctx<'_> {
    pub(super) fn characteristic_step(&self, p: u32, class_iri: &str) -> Step {
        render::triple(
            &render::property(&self.schema, p),
            &render::vocab(&self.schema, RDF_TYPE),
            &render::vocab(&self.schema, class_iri),
        )
    }

    pub(super) fn tier2(&mut self, sel: &mut Selective, from_block: bool) -> Result<()> {
        if from_block {
            if let Some(s) = Schema::open_parts(self.rete, Parts::AXIOMS)? {
                self.schema.properties = s.properties;
                self.schema.property_disjoint_groups = s.property_disjoint_groups;
            }
        }
        let np = self.schema.properties.len();
        let mut pid: Vec<Option<Id>> = vec![None; np];
        let constraints = self.constraints();
        let mut disjoint_pairs: Vec<(u32, u32)> = Vec::new();
        for pa in &self.schema.properties {
            for &q in &pa.disjoint_with {
                disjoint_pairs.push((pa.index, q));
            }
        }
        for g in &self.schema.property_disjoint_groups {
            for (i, &a) in g.iter().enumerate() {
                for &b in &g[i + 1..] {
                    disjoint_pairs.push((a, b));
                }
            }
        }
        disjoint_pairs.sort_unstable();
        disjoint_pairs.dedup();
        let in_pair: HashSet<u32> = disjoint_pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        for p in 0..np {
            let pa = &self.schema.properties[p];
            let wanted = pa.functional
                || pa.inverse_functional
                || pa.irreflexive
                || pa.asymmetric
                || in_pair.contains(&(p as u32))
                || !constraints[p].is_empty();
            if wanted {
                let iri = pa.iri.clone();
                pid[p] = self.vocab_id(&iri)?;
            }
        }
        for p in 0..np as u32 {
            let Some(id) = pid[p as usize] else { continue };
            let pa = self.schema.properties[p as usize].clone();
            if pa.functional {
                self.functional(sel, p, id, false)?;
            }
            if pa.inverse_functional {
                self.functional(sel, p, id, true)?;
            }
            if pa.irreflexive || pa.asymmetric {
                self.reflexive_and_asymmetric(sel, p, id, pa.irreflexive, pa.asymmetric)?;
            }
        }
        for (a, b) in disjoint_pairs {
            if let (Some(ia), Some(ib)) = (pid[a as usize], pid[b as usize]) {
                self.disjoint_properties(a, ia, b, ib)?;
            }
        }
        if !self.inconsistent {
            self.domain_range(sel, &pid, constraints)?;
        }
        Ok(())
    }

    /// The classes each property's triples imply for their subjects and objects, through
    /// sub-properties and inverses, limited to classes that can clash.
    pub(super) fn constraints(&self) -> Vec<Vec<Constraint>> {
        let props = &self.schema.properties;
        let mut inverse_of_me: Vec<Vec<u32>> = vec![Vec::new(); props.len()];
        for p in props {
            for &q in &p.inverse_of {
                if let Some(v) = inverse_of_me.get_mut(q as usize) {
                    v.push(p.index);
                }
            }
        }
        let mut out = Vec::with_capacity(props.len());
        for start in 0..props.len() as u32 {
            let mut found: Vec<Constraint> = Vec::new();
            let mut seen: HashSet<(u32, bool)> = HashSet::from([(start, false)]);
            let mut q: VecDeque<(u32, bool, Vec<PAx>)> =
                VecDeque::from([(start, false, Vec::new())]);
            while let Some((p, flipped, chain)) = q.pop_front() {
                let pa = &props[p as usize];
                for (classes, is_domain) in [(&pa.domain, true), (&pa.range, false)] {
                    for &c in classes {
                        if !self.logic.relevant(c) {
                            continue;
                        }
                        let on_object = is_domain == flipped;
                        if found
                            .iter()
                            .any(|f| f.class == c && f.on_object == on_object)
                        {
                            continue;
                        }
                        let mut ch = chain.clone();
                        ch.push(if is_domain {
                            PAx::Domain(p, c)
                        } else {
                            PAx::Range(p, c)
                        });
                        found.push(Constraint {
                            class: c,
                            on_object,
                            chain: ch,
                        });
                    }
                }
                let next = pa
                    .parents
                    .iter()
                    .map(|&r| (r, flipped, PAx::Sub(p, r)))
                    .chain(
                        pa.inverse_of
                            .iter()
                            .map(|&r| (r, !flipped, PAx::Inverse(p, r))),
                    )
                    .chain(
                        inverse_of_me[p as usize]
                            .iter()
                            .map(|&r| (r, !flipped, PAx::Inverse(r, p))),
                    );
                for (r, f, ax) in next {
                    if (r as usize) < props.len() && seen.insert((r, f)) {
                        let mut ch = chain.clone();
                        ch.push(ax);
                        q.push_back((r, f, ch));
                    }
                }
            }
            out.push(found);
        }
        out
    }

    /// Functional (`inverse == false`: one object per subject) or inverse functional (one
    /// subject per object) property.
    pub(super) fn functional(
        &mut self,
        sel: &mut Selective,
        p: u32,
        id: Id,
        inverse: bool,
    ) -> Result<()> {
        let kind = if inverse {
            "inverse-functional-violation"
        } else {
            "functional-violation"
        };
        let perm = if inverse { Perm::Pos } else { Perm::Pso };
        let mut group: Vec<Id> = Vec::new();
        let mut key: Option<Id> = None;
        let mut it = self.rete.scan(perm, &Pattern::new(None, Some(id), None))?;
        loop {
            let next = it.next().transpose()?;
            self.tick()?;
            let (k, v) = match next {
                Some(q) if inverse => (Some(q[2]), q[0]),
                Some(q) => (Some(q[0]), q[2]),
                None => (None, 0),
            };
            if k != key {
                if let Some(x) = key {
                    let mut canon: Vec<Id> = group.iter().map(|&v| sel.same.canon(v)).collect();
                    canon.sort_unstable();
                    canon.dedup();
                    if canon.len() > 1 && self.admit(kind) {
                        let f = self.functional_finding(sel, p, x, &group, inverse)?;
                        self.findings.push(f);
                    }
                }
                group.clear();
                key = k;
            }
            if k.is_none() {
                break;
            }
            if group.last() != Some(&v) {
                group.push(v);
            }
        }
        Ok(())
    }

    pub(super) fn functional_finding(
        &mut self,
        sel: &Selective,
        p: u32,
        x: Id,
        values: &[Id],
        inverse: bool,
    ) -> Result<Finding> {
        let np = render::property(&self.schema, p);
        let nx = self.name(x)?;
        let mut steps = vec![self.characteristic_step(
            p,
            if inverse {
                OWL_INVERSE_FUNCTIONAL_PROPERTY
            } else {
                OWL_FUNCTIONAL_PROPERTY
            },
        )];
        let mut names = Vec::new();
        let mut literals = 0;
        for &v in values.iter().take(MAX_LISTED) {
            let t = self.rete.term(v)?;
            literals += usize::from(matches!(t, Term::Literal(_)));
            let nv = self.name(v)?;
            steps.push(if inverse {
                render::triple(&nv, &np, &nx)
            } else {
                render::triple(&nx, &np, &nv)
            });
            names.push(nv);
        }
        let declared_different = values.iter().enumerate().any(|(i, &a)| {
            values[i + 1..]
                .iter()
                .any(|&b| sel.different.contains(&(a.min(b), a.max(b))))
        });
        let hard = literals >= 2 || declared_different;
        let listed: Vec<String> = names.iter().map(|n| n.text.clone()).collect();
        let message = match (inverse, hard) {
            (false, true) => format!(
                "{} has {} different values for the functional property {}",
                nx.text,
                values.len(),
                np.text
            ),
            (false, false) => format!(
                "{} has {} values for the functional property {}: OWL then infers that {} are the same individual",
                nx.text,
                values.len(),
                np.text,
                listed.join(", ")
            ),
            (true, true) => format!(
                "{} is the {} of {} different subjects, but {} is inverse functional",
                nx.text,
                np.text,
                values.len(),
                np.text
            ),
            (true, false) => format!(
                "{} is the {} of {} subjects, but {} is inverse functional: OWL then infers that {} are the same individual",
                nx.text,
                np.text,
                values.len(),
                np.text,
                listed.join(", ")
            ),
        };
        let mut entities = vec![nx.nt];
        entities.extend(names.into_iter().map(|n| n.nt));
        Ok(render::finding(
            if inverse {
                "inverse-functional-violation"
            } else {
                "functional-violation"
            },
            if hard { "error" } else { "warning" },
            message,
            Vec::new(),
            entities,
            steps,
        ))
    }

    pub(super) fn reflexive_and_asymmetric(
        &mut self,
        sel: &mut Selective,
        p: u32,
        id: Id,
        irreflexive: bool,
        asymmetric: bool,
    ) -> Result<()> {
        let np = render::property(&self.schema, p);
        let forward = self.pairs(id, Perm::Pso)?;
        for &(s, o) in &forward {
            self.tick()?;
            if irreflexive && (s == o || sel.same.canon(s) == sel.same.canon(o)) {
                if !self.admit("irreflexive-violation") {
                    continue;
                }
                let (ns, no) = (self.name(s)?, self.name(o)?);
                let mut steps = vec![
                    self.characteristic_step(p, OWL_IRREFLEXIVE_PROPERTY),
                    render::triple(&ns, &np, &no),
                ];
                steps.extend(self.same_steps(sel, s, o)?);
                self.push_error(
                    "irreflexive-violation",
                    format!(
                        "{} is related to itself by the irreflexive property {}",
                        ns.text, np.text
                    ),
                    Vec::new(),
                    one_or_both(s == o, ns.nt, no.nt),
                    steps,
                );
            }
        }
        if !asymmetric {
            return Ok(());
        }
        // Merge the (s, o) pairs with the (o, s) pairs of the reverse order.
        let backward: Vec<(Id, Id)> = self
            .pairs(id, Perm::Pos)?
            .into_iter()
            .map(|(s, o)| (o, s))
            .collect();
        for (s, o) in self.common_pairs(&forward, &backward)? {
            // Each pair once; self-loops here only when not reported as irreflexive.
            if s > o || (s == o && irreflexive) || !self.admit("asymmetric-violation") {
                continue;
            }
            let (ns, no) = (self.name(s)?, self.name(o)?);
            let mut steps = vec![
                self.characteristic_step(p, OWL_ASYMMETRIC_PROPERTY),
                render::triple(&ns, &np, &no),
            ];
            if s != o {
                steps.push(render::triple(&no, &np, &ns));
            }
            let message = if s == o {
                format!(
                    "{} is related to itself by the asymmetric (hence irreflexive) property {}",
                    ns.text, np.text
                )
            } else {
                format!(
                    "{} and {} are related both ways by the asymmetric property {}",
                    ns.text, no.text, np.text
                )
            };
            self.push_error(
                "asymmetric-violation",
                message,
                Vec::new(),
                one_or_both(s == o, ns.nt, no.nt),
                steps,
            );
        }
        Ok(())
    }

    pub(super) fn disjoint_properties(&mut self, a: u32, ia: Id, b: u32, ib: Id) -> Result<()> {
        let x = self.pairs(ia, Perm::Pso)?;
        let y = self.pairs(ib, Perm::Pso)?;
        let (na, nb) = (
            render::property(&self.schema, a),
            render::property(&self.schema, b),
        );
        let axiom = if self.schema.properties[a as usize]
            .disjoint_with
            .contains(&b)
        {
            render::triple(
                &na,
                &render::vocab(&self.schema, OWL_PROPERTY_DISJOINT_WITH),
                &nb,
            )
        } else if self.schema.properties[b as usize]
            .disjoint_with
            .contains(&a)
        {
            render::triple(
                &nb,
                &render::vocab(&self.schema, OWL_PROPERTY_DISJOINT_WITH),
                &na,
            )
        } else {
            let members: Vec<String> = self
                .schema
                .property_disjoint_groups
                .iter()
                .find(|g| g.contains(&a) && g.contains(&b))
                .map(|g| {
                    g.iter()
                        .map(|&p| render::property(&self.schema, p).text)
                        .collect()
                })
                .unwrap_or_default();
            Step {
                text: format!(
                    "[] a owl:AllDisjointProperties ; owl:members ( {} )",
                    members.join(" ")
                ),
                triple: None,
                graphs: Vec::new(),
                default_graph: false,
            }
        };
        for (s, o) in self.common_pairs(&x, &y)? {
            if !self.admit("disjoint-property-violation") {
                continue;
            }
            let (ns, no) = (self.name(s)?, self.name(o)?);
            let steps = vec![
                axiom.clone(),
                render::triple(&ns, &na, &no),
                render::triple(&ns, &nb, &no),
            ];
            self.push_error(
                "disjoint-property-violation",
                format!(
                    "{} is related to {} by both {} and {}, which are disjoint properties",
                    ns.text, no.text, na.text, nb.text
                ),
                Vec::new(),
                vec![ns.nt, no.nt],
                steps,
            );
        }
        Ok(())
    }

    /// The pairs in both sorted lists, in order (a merge join, one tick a step).
    fn common_pairs(&mut self, x: &[(Id, Id)], y: &[(Id, Id)]) -> Result<Vec<(Id, Id)>> {
        let mut both = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            self.tick()?;
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    both.push(x[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        Ok(both)
    }

    pub(super) fn domain_range(
        &mut self,
        sel: &mut Selective,
        pid: &[Option<Id>],
        constraints: Vec<Vec<Constraint>>,
    ) -> Result<()> {
        let mut full = Full {
            constraints,
            provs: Vec::new(),
        };
        let mut inferred: HashMap<Id, Vec<(u32, u32)>> = HashMap::new();
        for (p, &id) in pid.iter().enumerate() {
            let (Some(id), false) = (id, full.constraints[p].is_empty()) else {
                continue;
            };
            for (s, o) in self.pairs(id, Perm::Pso)? {
                self.tick()?;
                for (k, c) in full.constraints[p].iter().enumerate() {
                    let x = if c.on_object { o } else { s };
                    let entry = inferred.entry(x).or_default();
                    if entry.iter().any(|e| e.0 == c.class) {
                        continue;
                    }
                    entry.push((c.class, full.provs.len() as u32));
                    full.provs.push(Prov {
                        prop: p as u32,
                        s,
                        o,
                        constraint: k as u32,
                    });
                }
            }
        }
        let mut keys: Vec<Id> = inferred.keys().copied().collect();
        keys.sort_unstable();
        let mut by_component: BTreeMap<Id, Vec<(u32, Src)>> = BTreeMap::new();
        for x in keys {
            self.tick()?;
            let inf = inferred.remove(&x).unwrap_or_default();
            let extra: Vec<(u32, Src)> = inf.iter().map(|&(c, k)| (c, Src::Inferred(k))).collect();
            if let Some(root) = sel.same.find(x) {
                by_component.entry(root).or_default().extend(extra);
                continue;
            }
            if sel.clashed_individuals.contains(&x) {
                continue;
            }
            let mut types: Vec<(u32, Src)> = sel
                .asserted
                .get(&x)
                .map(|&ts| {
                    sel.typesets[ts as usize]
                        .iter()
                        .map(|&c| (c, Src::Asserted(x)))
                        .collect()
                })
                .unwrap_or_default();
            types.extend(extra);
            self.judge(sel, &[x], &types, Some(&full))?;
        }
        for (root, extra) in by_component {
            self.tick()?;
            if sel.clashed.contains(&root) {
                continue;
            }
            let members = sel.components.get(&root).cloned().unwrap_or_default();
            let mut types: Vec<(u32, Src)> = Vec::new();
            for &(m, ts) in &members {
                for &c in &sel.typesets[ts as usize] {
                    types.push((c, Src::Asserted(m)));
                }
            }
            types.extend(extra);
            let ids: Vec<Id> = members.iter().map(|m| m.0).collect();
            self.judge(sel, &ids, &types, Some(&full))?;
        }
        Ok(())
    }
}
