//! RDFS and OWL-RL-subset materialization over dictionary ids: a semi-naive fixpoint over the
//! statements the rules can touch, with the schema closed up front.

use crate::rules::{MaterializeOptions, Rule};
use crate::schema::{Cliques, Schema, Vocab};
use crate::terms::Terms;
use crate::Result;
use oxrdf::Quad;
use rayon::prelude::*;
use rete_core::extension::{BoxError, Inference};
use rete_core::{Id, IdQuad, Pattern, Rete, DEFAULT_GRAPH};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Quads one rule group derived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    /// The group.
    pub rule: Rule,
    /// The RDFS / OWL 2 RL rules it covers.
    pub spec: &'static str,
    /// New quads it was first to derive.
    pub quads: u64,
}

/// What a materialization did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MaterializeReport {
    /// The options used (after normalization).
    pub options: Option<MaterializeOptions>,
    /// New quads (not in the input).
    pub inferred: u64,
    /// New quads per rule group, in [`Rule`] order; groups that derived nothing are left out.
    pub rules: Vec<RuleCount>,
    /// Input quads read into the working set (schema, statements of relevant predicates and
    /// classes, statements about members of copied sameAs cliques).
    pub loaded_quads: u64,
    /// Semi-naive rounds, summed over passes.
    pub rounds: u32,
    /// Passes: a pass reruns when instance rules derive new schema or sameAs statements.
    pub passes: u32,
    /// Classes with at least one strict superclass.
    pub classes_with_superclasses: u64,
    /// Properties with at least one strict superproperty.
    pub properties_with_superproperties: u64,
    /// sameAs cliques (two or more members).
    pub same_as_cliques: u64,
    /// Members of the largest clique.
    pub same_as_largest_clique: u64,
    /// Cliques too large for their closure (`same_as_closure_limit`).
    pub same_as_cliques_not_closed: u64,
    /// Cliques too large for statement copying (`same_as_copy_limit`).
    pub same_as_cliques_not_copied: u64,
    /// Time reading input statements (schema and working set).
    pub load_ms: f64,
    /// Time applying rules.
    pub rules_ms: f64,
    /// Time turning the conclusions into terms.
    pub output_ms: f64,
    /// Wall time.
    pub elapsed_ms: f64,
}

/// The result of [`materialize`].
#[derive(Debug, Clone)]
pub struct Materialized {
    /// The new quads, sorted by dictionary id order.
    pub quads: Vec<Quad>,
    /// What was done.
    pub report: MaterializeReport,
}

/// Computes the quads the enabled rules entail from `rete` that it does not already hold.
///
/// Graphs: the schema (subClassOf, subPropertyOf, domain, range, inverseOf, equivalentClass,
/// equivalentProperty, property characteristics) and `owl:sameAs` statements are global — they
/// apply to statements of every graph. An instance conclusion goes into the graph of its instance
/// premise; a transitive chain combines statements of one named graph with those of the default
/// graph (the conclusion goes to the named graph) but never two different named graphs. Schema
/// conclusions go to the graph holding all schema statements if there is exactly one, else to
/// the default graph; sameAs closures likewise.
pub fn materialize(rete: &Rete, options: &MaterializeOptions) -> Result<Materialized> {
    let t0 = Instant::now();
    let opts = options.clone().normalized();
    let mut terms = Terms::new(rete)?;
    let vocab = Vocab::resolve(&mut terms)?;
    let mut report = MaterializeReport {
        options: Some(opts.clone()),
        ..Default::default()
    };
    let t = Instant::now();
    let base_structural = load_structural(rete, &vocab, &terms)?;
    report.load_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut prior: Vec<(IdQuad, Rule)> = Vec::new();
    let inferred = loop {
        report.passes += 1;
        let mut structural = base_structural.clone();
        structural.extend(
            prior
                .iter()
                .filter(|(q, _)| vocab.is_structural(q))
                .map(|(q, _)| *q),
        );
        let schema = Schema::build(&structural, &vocab, &opts);
        let cliques = if opts.same_as {
            Cliques::build(&structural, vocab.same_as)
        } else {
            Cliques::default()
        };
        report.classes_with_superclasses = schema.sup_class.len() as u64;
        report.properties_with_superproperties = schema.sup_prop.len() as u64;
        let mut engine = Engine::new(&opts, &vocab, &schema, &terms);
        let mut seeds = schema.conclusions.clone();
        report.same_as_cliques = cliques.cliques.len() as u64;
        report.same_as_largest_clique =
            cliques.cliques.iter().map(|c| c.len()).max().unwrap_or(0) as u64;
        report.same_as_cliques_not_closed = 0;
        report.same_as_cliques_not_copied = 0;
        for c in &cliques.cliques {
            if c.len() > opts.same_as_closure_limit {
                report.same_as_cliques_not_closed += 1;
                continue;
            }
            for &a in c.iter() {
                for &b in c.iter().filter(|&&b| b != a) {
                    seeds.push(([a, vocab.same_as, b, cliques.graph], Rule::SameAsClosure));
                }
            }
            if c.len() > opts.same_as_copy_limit {
                report.same_as_cliques_not_copied += 1;
                continue;
            }
            for &m in c.iter() {
                engine.copy.insert(m, c.clone());
            }
        }
        // The working set: statements of the predicates and classes rules read or write,
        // statements about copied clique members, conclusions of earlier passes (premises
        // again), and every structural statement (known, for deduplication).
        let mut delta = Vec::new();
        let t = Instant::now();
        let loaded = load_relevant(rete, &vocab, &schema, &engine.copy, &terms)?;
        report.load_ms += t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        report.loaded_quads = (base_structural.len() + loaded.len()) as u64;
        for q in loaded.into_iter().chain(prior.iter().map(|(q, _)| *q)) {
            if engine.all.insert(q) {
                engine.index(&q);
                delta.push(q);
            }
        }
        for q in &structural {
            if engine.all.insert(*q) {
                engine.index(q);
            }
        }
        let mut inferred = prior.clone();
        for (q, rule) in seeds {
            if terms.valid(&q) && engine.all.insert(q) {
                engine.index(&q);
                inferred.push((q, rule));
                delta.push(q);
            }
        }
        while !delta.is_empty() {
            report.rounds += 1;
            delta = engine.round(&delta, &mut inferred);
        }
        report.rules_ms += t.elapsed().as_secs_f64() * 1e3;
        // Instance rules may have derived schema or sameAs statements (say through
        // subPropertyOf or sameAs copying); if any is new, the schema changed: run again.
        let known: HashSet<[Id; 3]> = structural
            .iter()
            .chain(schema.conclusions.iter().map(|(q, _)| q))
            .map(|q| [q[0], q[1], q[2]])
            .collect();
        let changed = inferred.iter().any(|(q, r)| {
            !r.schema_level() && vocab.is_structural(q) && !known.contains(&[q[0], q[1], q[2]])
        });
        if !changed {
            break inferred;
        }
        prior = inferred;
    };

    let mut counts: HashMap<Rule, u64> = HashMap::new();
    for (_, r) in &inferred {
        *counts.entry(*r).or_default() += 1;
    }
    let mut rules: Vec<RuleCount> = counts
        .into_iter()
        .map(|(rule, quads)| RuleCount {
            rule,
            spec: rule.spec(),
            quads,
        })
        .collect();
    rules.sort_by_key(|r| r.rule);
    report.rules = rules;
    let t = Instant::now();
    let mut ids: Vec<IdQuad> = inferred.into_iter().map(|(q, _)| q).collect();
    ids.sort_unstable();
    let quads = terms.quads(&ids, opts.parallel)?;
    report.inferred = quads.len() as u64;
    report.output_ms = t.elapsed().as_secs_f64() * 1e3;
    report.elapsed_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(Materialized { quads, report })
}

/// Structural statements of the file: the schema predicates and the property characteristics.
fn load_structural(rete: &Rete, vocab: &Vocab, terms: &Terms) -> Result<Vec<IdQuad>> {
    let mut out = Vec::new();
    for p in vocab.structural_predicates() {
        if terms.stored(p) {
            for q in rete.quads(&Pattern::new(None, Some(p), None))? {
                out.push(q?);
            }
        }
    }
    if terms.stored(vocab.type_) {
        for c in [vocab.transitive, vocab.symmetric] {
            if terms.stored(c) {
                for q in rete.quads(&Pattern::new(None, Some(vocab.type_), Some(c)))? {
                    out.push(q?);
                }
            }
        }
    }
    Ok(out)
}

/// Statements the instance rules read or may write, read with bound predicates (PSO) or bound
/// predicate and class (POS for `rdf:type`), plus everything about copied sameAs members.
fn load_relevant(
    rete: &Rete,
    vocab: &Vocab,
    schema: &Schema,
    copy: &FxHashMap<Id, Arc<[Id]>>,
    terms: &Terms,
) -> Result<Vec<IdQuad>> {
    let mut out = Vec::new();
    let preds = schema.relevant_predicates();
    let scan = |pat: Pattern, out: &mut Vec<IdQuad>| -> Result<()> {
        for q in rete.quads(&pat)? {
            out.push(q?);
        }
        Ok(())
    };
    for &p in preds
        .iter()
        .filter(|&&p| terms.stored(p) && p != vocab.type_)
    {
        scan(Pattern::new(None, Some(p), None), &mut out)?;
    }
    if terms.stored(vocab.type_) {
        if preds.contains(&vocab.type_) {
            scan(Pattern::new(None, Some(vocab.type_), None), &mut out)?;
        } else if schema.types_anything() {
            for c in schema.relevant_classes() {
                if terms.stored(c) {
                    scan(Pattern::new(None, Some(vocab.type_), Some(c)), &mut out)?;
                }
            }
        }
    }
    let mut members: Vec<Id> = copy.keys().copied().filter(|&m| terms.stored(m)).collect();
    members.sort_unstable();
    for m in members {
        scan(Pattern::new(Some(m), None, None), &mut out)?;
        scan(Pattern::new(None, Some(m), None), &mut out)?;
        scan(Pattern::new(None, None, Some(m)), &mut out)?;
    }
    Ok(out)
}

/// Below this delta size rules run on the calling thread: rayon's fork/join costs more.
const PARALLEL_MIN: usize = 16_384;

struct Engine<'a> {
    opts: &'a MaterializeOptions,
    vocab: &'a Vocab,
    schema: &'a Schema,
    terms: &'a Terms,
    /// Members of copied sameAs cliques → their clique.
    copy: FxHashMap<Id, Arc<[Id]>>,
    /// Every known quad: loaded input and conclusions.
    all: FxHashSet<IdQuad>,
    /// Transitive properties: (p, s) → [(o, g)] and (p, o) → [(s, g)].
    tr_out: FxHashMap<(Id, Id), Vec<(Id, Id)>>,
    tr_in: FxHashMap<(Id, Id), Vec<(Id, Id)>>,
}

/// The graph of a conclusion from premises in `a` and `b`: the default graph is visible from
/// every named graph; two different named graphs do not combine.
fn combine(a: Id, b: Id) -> Option<Id> {
    if a == b || b == DEFAULT_GRAPH {
        Some(a)
    } else if a == DEFAULT_GRAPH {
        Some(b)
    } else {
        None
    }
}

impl<'a> Engine<'a> {
    fn new(
        opts: &'a MaterializeOptions,
        vocab: &'a Vocab,
        schema: &'a Schema,
        terms: &'a Terms,
    ) -> Self {
        Self {
            opts,
            vocab,
            schema,
            terms,
            copy: FxHashMap::default(),
            all: FxHashSet::default(),
            tr_out: FxHashMap::default(),
            tr_in: FxHashMap::default(),
        }
    }

    /// Adds a known quad to the transitive-property indexes.
    fn index(&mut self, q: &IdQuad) {
        if self.schema.transitive.contains(&q[1]) {
            self.tr_out
                .entry((q[1], q[0]))
                .or_default()
                .push((q[2], q[3]));
            self.tr_in
                .entry((q[1], q[2]))
                .or_default()
                .push((q[0], q[3]));
        }
    }

    /// One semi-naive round: conclusions of `delta` (with everything known, delta included);
    /// the new ones are recorded and returned as the next delta.
    fn round(&mut self, delta: &[IdQuad], inferred: &mut Vec<(IdQuad, Rule)>) -> Vec<IdQuad> {
        let derive = |chunk: &[IdQuad]| {
            let mut out = Vec::new();
            for q in chunk {
                self.apply(q, &mut out);
            }
            out.retain(|(q, _)| !self.all.contains(q));
            out
        };
        let batches: Vec<Vec<(IdQuad, Rule)>> = if self.opts.parallel && delta.len() >= PARALLEL_MIN
        {
            delta.par_chunks(4096).map(derive).collect()
        } else {
            vec![derive(delta)]
        };
        let mut next = Vec::new();
        for (q, rule) in batches.into_iter().flatten() {
            if self.all.insert(q) {
                self.index(&q);
                inferred.push((q, rule));
                next.push(q);
            }
        }
        next
    }

    /// Every one-step conclusion of `q` (the schema is already closed).
    fn apply(&self, q: &IdQuad, out: &mut Vec<(IdQuad, Rule)>) {
        let [s, p, o, g] = *q;
        let (v, sc) = (self.vocab, self.schema);
        let mut emit = |c: IdQuad, r: Rule| {
            if self.terms.valid(&c) && !(c[1] == v.same_as && c[0] == c[2]) {
                out.push((c, r));
            }
        };
        let o_resource = !self.terms.is_literal(o);
        if self.opts.rdfs {
            if p == v.type_ {
                for &d in sc.sup_class.get(&o).into_iter().flatten() {
                    emit([s, v.type_, d, g], Rule::Type);
                }
            }
            for &r in sc.sup_prop.get(&p).into_iter().flatten() {
                emit([s, r, o, g], Rule::SubProperty);
            }
            for &c in sc.dom.get(&p).into_iter().flatten() {
                emit([s, v.type_, c, g], Rule::Domain);
            }
            if o_resource {
                for &c in sc.rng.get(&p).into_iter().flatten() {
                    emit([o, v.type_, c, g], Rule::Range);
                }
            }
        }
        if self.opts.owl_properties && o_resource {
            for &r in sc.inv.get(&p).into_iter().flatten() {
                emit([o, r, s, g], Rule::Inverse);
            }
            if sc.symmetric.contains(&p) {
                emit([o, p, s, g], Rule::Symmetric);
            }
        }
        // A literal can end a transitive chain (x p y, y p "v" → x p "v"), so no o_resource test.
        if self.opts.owl_properties && sc.transitive.contains(&p) {
            for &(z, g2) in self.tr_out.get(&(p, o)).into_iter().flatten() {
                if let Some(gc) = combine(g, g2) {
                    emit([s, p, z, gc], Rule::Transitive);
                }
            }
            for &(w, g2) in self.tr_in.get(&(p, s)).into_iter().flatten() {
                if let Some(gc) = combine(g, g2) {
                    emit([w, p, o, gc], Rule::Transitive);
                }
            }
        }
        if !self.copy.is_empty() {
            let (cs, cp, co) = (self.copy.get(&s), self.copy.get(&p), self.copy.get(&o));
            if cs.is_some() || cp.is_some() || co.is_some() {
                let (one_s, one_p, one_o) = ([s], [p], [o]);
                let ss: &[Id] = cs.map_or(&one_s, |c| c);
                let ps: &[Id] = cp.map_or(&one_p, |c| c);
                let os: &[Id] = co.map_or(&one_o, |c| c);
                for &s2 in ss {
                    for &p2 in ps {
                        for &o2 in os {
                            if (s2, p2, o2) != (s, p, o) {
                                emit([s2, p2, o2, g], Rule::SameAsReplacement);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The builder hook: `rete build --materialize` passes one of these as its
/// [`rete_core::extension::Inference`]; [`Materializer::last_report`] then tells what it did.
#[derive(Debug, Default)]
pub struct Materializer {
    /// Rule sets and limits.
    pub options: MaterializeOptions,
    report: Mutex<Option<MaterializeReport>>,
}

impl Materializer {
    /// A materializer with `options`.
    pub fn new(options: MaterializeOptions) -> Self {
        Self {
            options,
            report: Mutex::new(None),
        }
    }

    /// The report of the last [`Inference::infer`] call.
    pub fn last_report(&self) -> Option<MaterializeReport> {
        self.report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl Inference for Materializer {
    fn name(&self) -> &str {
        "materialize"
    }

    fn infer(&self, base: &Rete) -> std::result::Result<Vec<Quad>, BoxError> {
        let m = materialize(base, &self.options)?;
        *self.report.lock().unwrap_or_else(|p| p.into_inner()) = Some(m.report);
        Ok(m.quads)
    }
}
