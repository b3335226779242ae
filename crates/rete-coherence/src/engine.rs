//! The three tiers.

use crate::logic::{Clash, Logic, Scratch};
use crate::render::{self, Name};
use crate::{CheckOptions, CoherenceError, Finding, Phase, Report, Step, Tier};
use oxrdf::{NamedNodeRef, Term};
use rete_core::{Id, Pattern, Perm, QuadIter, ReadStats, Rete};
use rete_schema::vocab::*;
use rete_schema::{extract, subclass_cycles, ExtractOptions, Parts, Schema};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

type Result<T> = std::result::Result<T, CoherenceError>;

/// At most this many values or members are spelled out in one explanation.
const MAX_LISTED: usize = 8;

pub(crate) fn run(
    rete: &Rete,
    tier: Tier,
    cancel: &AtomicBool,
    opts: &CheckOptions,
    stats: Option<&dyn Fn() -> ReadStats>,
    base: ReadStats,
    start: Instant,
) -> Result<Report> {
    let read = || stats.map(|f| f()).unwrap_or_default();
    let mut phases = Vec::new();
    let mut last = (base, start, 0usize);
    let mut close = |n: u8, findings: usize, phases: &mut Vec<Phase>| {
        let now = (read(), Instant::now(), findings);
        phases.push(Phase {
            tier: n,
            bytes_read: now.0.bytes.saturating_sub(last.0.bytes),
            requests: now.0.requests.saturating_sub(last.0.requests),
            elapsed_ms: now.1.duration_since(last.1).as_secs_f64() * 1e3,
            findings: findings - last.2,
        });
        last = now;
    };

    // Tier 0: the schema block (or, without one, the axiom triples).
    let (schema, source) = match Schema::open_parts(rete, Parts::CLASSES)? {
        Some(s) => (s, "block"),
        None => (
            extract(rete, &ExtractOptions { statistics: false })?,
            "triples",
        ),
    };
    let mut ctx = Ctx::new(rete, cancel, opts, schema);
    ctx.tier0()?;
    close(0, ctx.findings.len(), &mut phases);
    if tier >= Tier::Selective {
        let mut sel = ctx.tier1(tier == Tier::Full, source == "block")?;
        close(1, ctx.findings.len(), &mut phases);
        if tier == Tier::Full {
            ctx.tier2(&mut sel, source == "block")?;
            close(2, ctx.findings.len(), &mut phases);
        }
    }
    for (kind, n) in std::mem::take(&mut ctx.omitted) {
        ctx.findings.push(render::finding(
            "omitted",
            "info",
            format!("{n} more {kind} findings were not listed"),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        ));
    }
    let total = read();
    Ok(Report {
        tier: tier as u8,
        classes: ctx.schema.classes.len(),
        findings: ctx.findings,
        bytes_read: total.bytes.saturating_sub(base.bytes),
        requests: total.requests.saturating_sub(base.requests),
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
        phases,
        schema_source: source.to_owned(),
        measured: stats.is_some(),
    })
}

struct Ctx<'a> {
    rete: &'a Rete,
    cancel: &'a AtomicBool,
    max_per_kind: usize,
    schema: Schema,
    logic: Logic,
    sc: Scratch,
    memo: HashMap<Vec<u32>, Option<Clash>>,
    unsat: Vec<bool>,
    unsat_clash: HashMap<u32, Clash>,
    inconsistent: bool,
    findings: Vec<Finding>,
    per_kind: HashMap<&'static str, usize>,
    omitted: BTreeMap<&'static str, usize>,
    names: HashMap<Id, Name>,
    ticks: u64,
}

/// Where a type of an individual comes from.
#[derive(Debug, Clone, Copy)]
enum Src {
    /// `x rdf:type C`.
    Asserted(Id),
    /// Index into [`Full::provs`].
    Inferred(u32),
}

/// State of Tier 1 kept for Tier 2.
#[derive(Default)]
struct Selective {
    same: UnionFind,
    same_edges: HashSet<(Id, Id)>,
    same_adj: HashMap<Id, Vec<Id>>,
    different: HashSet<(Id, Id)>,
    typesets: Vec<Vec<u32>>,
    interned: HashMap<Vec<u32>, u32>,
    /// Relevant asserted types per individual (kept only when Tier 2 follows).
    asserted: HashMap<Id, u32>,
    /// sameAs components: root → members with their typesets.
    components: BTreeMap<Id, Vec<(Id, u32)>>,
    /// Roots of components that already clashed.
    clashed: HashSet<Id>,
    /// Individuals that already clashed.
    clashed_individuals: HashSet<Id>,
}

impl Selective {
    fn intern(&mut self, v: Vec<u32>) -> u32 {
        if let Some(&i) = self.interned.get(&v) {
            return i;
        }
        let i = self.typesets.len() as u32;
        self.typesets.push(v.clone());
        self.interned.insert(v, i);
        i
    }

    /// The `owl:sameAs` triples linking `a` to `b` (breadth-first, so a shortest chain).
    fn same_path(&self, a: Id, b: Id) -> Vec<(Id, Id)> {
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
struct UnionFind {
    parent: HashMap<Id, Id>,
}

impl UnionFind {
    fn find(&mut self, x: Id) -> Option<Id> {
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

    fn canon(&mut self, x: Id) -> Id {
        self.find(x).unwrap_or(x)
    }

    fn union(&mut self, a: Id, b: Id) {
        self.parent.entry(a).or_insert(a);
        self.parent.entry(b).or_insert(b);
        let (ra, rb) = (self.canon(a), self.canon(b));
        if ra != rb {
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            self.parent.insert(hi, lo);
        }
    }
}

/// A property axiom on the way from a triple to a type it implies.
#[derive(Debug, Clone, Copy)]
enum PAx {
    Sub(u32, u32),
    Inverse(u32, u32),
    Domain(u32, u32),
    Range(u32, u32),
}

/// A class implied for the subject (or object) of a property's triples.
#[derive(Debug, Clone)]
struct Constraint {
    class: u32,
    on_object: bool,
    chain: Vec<PAx>,
}

/// One triple that implied a type.
#[derive(Debug, Clone, Copy)]
struct Prov {
    prop: u32,
    s: Id,
    o: Id,
    constraint: u32,
}

impl<'a> Ctx<'a> {
    fn new(rete: &'a Rete, cancel: &'a AtomicBool, opts: &CheckOptions, schema: Schema) -> Self {
        let logic = Logic::new(&schema);
        Self {
            rete,
            cancel,
            max_per_kind: opts.max_findings_per_kind,
            unsat: vec![false; schema.classes.len()],
            schema,
            logic,
            sc: Scratch::default(),
            memo: HashMap::new(),
            unsat_clash: HashMap::new(),
            inconsistent: false,
            findings: Vec::new(),
            per_kind: HashMap::new(),
            omitted: BTreeMap::new(),
            names: HashMap::new(),
            ticks: 0,
        }
    }

    fn tick(&mut self) -> Result<()> {
        self.ticks += 1;
        if self.ticks % 1024 == 0 && self.cancel.load(Ordering::Relaxed) {
            return Err(CoherenceError::Cancelled);
        }
        Ok(())
    }

    /// Counts a finding of `kind`; `false` when it is over the cap (and must not be built).
    fn admit(&mut self, kind: &'static str) -> bool {
        let n = self.per_kind.entry(kind).or_default();
        *n += 1;
        if *n > self.max_per_kind {
            *self.omitted.entry(kind).or_default() += 1;
            false
        } else {
            true
        }
    }

    fn check_set(&mut self, set: &[u32]) -> Option<Clash> {
        if let Some(c) = self.memo.get(set) {
            return c.clone();
        }
        let c = self.logic.check(set, &mut self.sc);
        self.memo.insert(set.to_vec(), c.clone());
        c
    }

    fn name(&mut self, id: Id) -> Result<Name> {
        if let Some(n) = self.names.get(&id) {
            return Ok(n.clone());
        }
        let n = render::term_name(&self.schema, &self.rete.term(id)?);
        self.names.insert(id, n.clone());
        Ok(n)
    }

    fn class_iri(&self, c: u32) -> String {
        self.schema
            .classes
            .get(c as usize)
            .map(|x| x.iri.clone())
            .unwrap_or_default()
    }

    fn class_text(&self, c: u32) -> String {
        render::class(&self.schema, c).text
    }

    fn axiom_steps(&self, clash: &Clash) -> Vec<Step> {
        clash
            .axioms
            .iter()
            .map(|&a| render::axiom(&self.schema, a))
            .collect()
    }

    /// "disjoint classes :A and :B" / "owl:Nothing".
    fn conflict_text(&self, clash: &Clash) -> String {
        let (a, b) = clash.conflict;
        if a == b {
            if Some(a) == self.logic.nothing() {
                "a subclass of owl:Nothing".to_owned()
            } else {
                format!("disjoint with itself ({})", self.class_text(a))
            }
        } else if self
            .schema
            .complement
            .iter()
            .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
        {
            format!(
                "in complementary classes {} and {}",
                self.class_text(a),
                self.class_text(b)
            )
        } else {
            format!(
                "in disjoint classes {} and {}",
                self.class_text(a),
                self.class_text(b)
            )
        }
    }

    fn clash_classes(&self, extra: &[u32], clash: &Clash) -> Vec<String> {
        let mut v: Vec<u32> = extra.to_vec();
        v.extend(clash.seeds.iter().copied());
        v.extend([clash.conflict.0, clash.conflict.1]);
        let mut out: Vec<String> = Vec::new();
        for c in v {
            let iri = self.class_iri(c);
            if !out.contains(&iri) {
                out.push(iri);
            }
        }
        out
    }

    // ---------------------------------------------------------------- Tier 0

    fn tier0(&mut self) -> Result<()> {
        if let Some(clash) = self.logic.check(&[], &mut self.sc) {
            self.inconsistent = true;
            if self.admit("inconsistent-ontology") {
                let f = render::finding(
                    "inconsistent-ontology",
                    "error",
                    format!(
                        "owl:Thing is unsatisfiable ({}): the ontology is inconsistent and every class is empty",
                        self.conflict_text(&clash)
                    ),
                    self.clash_classes(&[], &clash),
                    Vec::new(),
                    self.axiom_steps(&clash),
                );
                self.findings.push(f);
            }
        } else {
            let candidates: Vec<u32> = self.logic.relevant_classes().collect();
            let mut unsat = Vec::new();
            for c in candidates {
                self.tick()?;
                if Some(c) == self.logic.nothing() {
                    continue;
                }
                if let Some(clash) = self.check_set(&[c]) {
                    self.unsat[c as usize] = true;
                    unsat.push((c, clash));
                }
            }
            // owl:Nothing is empty by definition; typing something with it is a member clash.
            if let Some(n) = self.logic.nothing() {
                self.unsat[n as usize] = true;
                self.unsat_clash.insert(
                    n,
                    Clash {
                        seeds: vec![n],
                        conflict: (n, n),
                        axioms: Vec::new(),
                    },
                );
            }
            // `a ≡ ¬b` makes `a ⊔ b` cover everything: if both are empty, so is owl:Thing.
            let both = self
                .schema
                .complement
                .iter()
                .copied()
                .find(|&(a, b)| self.unsat[a as usize] && self.unsat[b as usize]);
            if let Some((a, b)) = both {
                self.inconsistent = true;
                let mut steps = vec![render::axiom(
                    &self.schema,
                    crate::logic::Axiom::Complement(a, b),
                )];
                for (c, clash) in &unsat {
                    if *c == a || *c == b {
                        for st in self.axiom_steps(clash) {
                            if !steps.contains(&st) {
                                steps.push(st);
                            }
                        }
                    }
                }
                if self.admit("inconsistent-ontology") {
                    let f = render::finding(
                        "inconsistent-ontology",
                        "error",
                        format!(
                            "{} and its complement {} are both unsatisfiable, so owl:Thing is: the ontology is inconsistent and every class is empty",
                            self.class_text(a),
                            self.class_text(b)
                        ),
                        vec![self.class_iri(a), self.class_iri(b)],
                        Vec::new(),
                        steps,
                    );
                    self.findings.push(f);
                }
            } else {
                for (c, clash) in unsat {
                    if self.admit("unsatisfiable-class") {
                        let f = render::finding(
                            "unsatisfiable-class",
                            "error",
                            format!(
                                "{} is unsatisfiable: every instance would be {}",
                                self.class_text(c),
                                self.conflict_text(&clash)
                            ),
                            self.clash_classes(&[c], &clash),
                            Vec::new(),
                            self.axiom_steps(&clash),
                        );
                        self.findings.push(f);
                    }
                    self.unsat_clash.insert(c, clash);
                }
            }
        }
        let parents: Vec<Vec<u32>> = self
            .schema
            .classes
            .iter()
            .map(|c| c.parents.clone())
            .collect();
        for cycle in subclass_cycles(&parents) {
            self.tick()?;
            if !self.admit("subclass-cycle") {
                continue;
            }
            let mut steps = Vec::new();
            for &c in &cycle {
                for &p in &parents[c as usize] {
                    if cycle.binary_search(&p).is_ok() {
                        steps.push(render::axiom(
                            &self.schema,
                            crate::logic::Axiom::SubClass(c, p),
                        ));
                    }
                }
            }
            let names: Vec<String> = cycle.iter().map(|&c| self.class_text(c)).collect();
            let f = render::finding(
                "subclass-cycle",
                "info",
                format!(
                    "{} are subclasses of each other through a cycle, so they are equivalent",
                    names.join(", ")
                ),
                cycle.iter().map(|&c| self.class_iri(c)).collect(),
                Vec::new(),
                steps,
            );
            self.findings.push(f);
        }
        Ok(())
    }

    // ---------------------------------------------------------------- Tier 1

    fn vocab_id(&self, iri: &str) -> Result<Option<Id>> {
        Ok(self.rete.id_of(NamedNodeRef::new_unchecked(iri).into())?)
    }

    /// `(s, o)` of the triples of predicate `p` in `perm` order, duplicates across graphs removed.
    fn pairs(&mut self, p: Id, perm: Perm) -> Result<Vec<(Id, Id)>> {
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
    fn few_relevant_instances(&mut self) -> Result<bool> {
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

    fn tier1(&mut self, keep_for_tier2: bool, from_block: bool) -> Result<Selective> {
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
                let f = render::finding(
                    "same-different-clash",
                    "error",
                    format!(
                        "{} is declared different from {}, but owl:sameAs makes them the same individual",
                        na.text, nb.text
                    ),
                    Vec::new(),
                    vec![na.nt, nb.nt],
                    steps,
                );
                self.findings.push(f);
            }
        }
        self.all_different(&mut sel)?;
        Ok(sel)
    }

    /// `owl:AllDifferent` with `owl:members` or `owl:distinctMembers`.
    fn all_different(&mut self, sel: &mut Selective) -> Result<()> {
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
                        }];
                        steps.extend(self.same_steps(sel, other, m)?);
                        let f = render::finding(
                            "same-different-clash",
                            "error",
                            format!(
                                "{} and {} are declared all different, but owl:sameAs makes them the same individual",
                                na.text, nb.text
                            ),
                            Vec::new(),
                            vec![na.nt, nb.nt],
                            steps,
                        );
                        self.findings.push(f);
                    }
                }
            }
        }
        Ok(())
    }

    fn list(
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

    fn same_steps(&mut self, sel: &Selective, a: Id, b: Id) -> Result<Vec<Step>> {
        let mut steps = Vec::new();
        let same = render::vocab(&self.schema, OWL_SAME_AS);
        for (x, y) in sel.same_path(a, b) {
            let (nx, ny) = (self.name(x)?, self.name(y)?);
            steps.push(render::triple(&nx, &same, &ny));
        }
        Ok(steps)
    }

    fn subject_types(
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
    fn judge(
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
                        self.findings.push(f);
                    }
                }
                return Ok(true);
            }
            let Some(clash) = self.check_set(&asserted) else {
                return Ok(false);
            };
            if self.admit("disjoint-class-clash") {
                let f =
                    self.clash_finding("disjoint-class-clash", sel, members, &clash, &owner, None)?;
                self.findings.push(f);
            }
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
        if self.admit("domain-range-clash") {
            let f =
                self.clash_finding("domain-range-clash", sel, members, &clash, &owner, inferred)?;
            self.findings.push(f);
        }
        Ok(true)
    }

    fn clash_finding(
        &mut self,
        kind: &'static str,
        sel: &Selective,
        members: &[Id],
        clash: &Clash,
        owner: &dyn Fn(u32, bool) -> Option<Src>,
        full: Option<&Full>,
    ) -> Result<Finding> {
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
        Ok(render::finding(
            kind,
            "error",
            message,
            self.clash_classes(&[], clash),
            entities,
            steps,
        ))
    }

    fn judge_component(&mut self, sel: &mut Selective, root: Id) -> Result<()> {
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

    // ---------------------------------------------------------------- Tier 2

    fn pax_step(&self, ax: PAx) -> Step {
        let (a, pred, b) = match ax {
            PAx::Sub(a, b) => (
                render::property(&self.schema, a),
                RDFS_SUB_PROPERTY_OF,
                render::property(&self.schema, b),
            ),
            PAx::Inverse(a, b) => (
                render::property(&self.schema, a),
                OWL_INVERSE_OF,
                render::property(&self.schema, b),
            ),
            PAx::Domain(p, c) => (
                render::property(&self.schema, p),
                RDFS_DOMAIN,
                render::class(&self.schema, c),
            ),
            PAx::Range(p, c) => (
                render::property(&self.schema, p),
                RDFS_RANGE,
                render::class(&self.schema, c),
            ),
        };
        render::triple(&a, &render::vocab(&self.schema, pred), &b)
    }

    fn characteristic_step(&self, p: u32, class_iri: &str) -> Step {
        render::triple(
            &render::property(&self.schema, p),
            &render::vocab(&self.schema, RDF_TYPE),
            &render::vocab(&self.schema, class_iri),
        )
    }

    fn tier2(&mut self, sel: &mut Selective, from_block: bool) -> Result<()> {
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
    fn constraints(&self) -> Vec<Vec<Constraint>> {
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
    fn functional(&mut self, sel: &mut Selective, p: u32, id: Id, inverse: bool) -> Result<()> {
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

    fn functional_finding(
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

    fn reflexive_and_asymmetric(
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
                let f = render::finding(
                    "irreflexive-violation",
                    "error",
                    format!(
                        "{} is related to itself by the irreflexive property {}",
                        ns.text, np.text
                    ),
                    Vec::new(),
                    if s == o {
                        vec![ns.nt]
                    } else {
                        vec![ns.nt, no.nt]
                    },
                    steps,
                );
                self.findings.push(f);
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
        let (mut i, mut j) = (0, 0);
        while i < forward.len() && j < backward.len() {
            self.tick()?;
            match forward[i].cmp(&backward[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let (s, o) = forward[i];
                    i += 1;
                    j += 1;
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
                    let f = render::finding(
                        "asymmetric-violation",
                        "error",
                        message,
                        Vec::new(),
                        if s == o {
                            vec![ns.nt]
                        } else {
                            vec![ns.nt, no.nt]
                        },
                        steps,
                    );
                    self.findings.push(f);
                }
            }
        }
        Ok(())
    }

    fn disjoint_properties(&mut self, a: u32, ia: Id, b: u32, ib: Id) -> Result<()> {
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
            }
        };
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            self.tick()?;
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let (s, o) = x[i];
                    i += 1;
                    j += 1;
                    if !self.admit("disjoint-property-violation") {
                        continue;
                    }
                    let (ns, no) = (self.name(s)?, self.name(o)?);
                    let steps = vec![
                        axiom.clone(),
                        render::triple(&ns, &na, &no),
                        render::triple(&ns, &nb, &no),
                    ];
                    let f = render::finding(
                        "disjoint-property-violation",
                        "error",
                        format!(
                            "{} is related to {} by both {} and {}, which are disjoint properties",
                            ns.text, no.text, na.text, nb.text
                        ),
                        Vec::new(),
                        vec![ns.nt, no.nt],
                        steps,
                    );
                    self.findings.push(f);
                }
            }
        }
        Ok(())
    }

    fn domain_range(
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

/// Tier-2 provenance of inferred types.
struct Full {
    constraints: Vec<Vec<Constraint>>,
    provs: Vec<Prov>,
}
