//! The three tiers: Tier 0 (`tier0`), Tier 1 (`selective`), Tier 2 (`full`), sharing one context.
//! Tier 2's provenance of inferred types, which Tier 1's judge explains clashes with, is in
//! `provenance`.

mod annotate;
mod full;
mod provenance;
mod selective;
mod tier0;

use crate::logic::{Clash, Logic, Scratch};
use crate::prefixes::Table;
use crate::render::{self, Name};
use crate::{CheckOptions, CoherenceError, Finding, Lookup, Phase, Report, Step, Tier};
use rete_core::{Id, ReadStats, Rete};
use rete_schema::{extract, ExtractOptions, Parts, Schema};
use std::collections::{BTreeMap, HashMap};
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
    let mut schema = schema;
    let mut table = Table::new(&schema);
    schema.prefixes.clone_from(&table.entries);
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
    let groups = ctx.group();
    // Annotations: declared prefixes and the steps' named graphs, measured apart.
    let (before, t) = (read(), Instant::now());
    let mut inputs = Vec::new();
    let annotate = opts.annotate && !ctx.findings.is_empty();
    let declared_default = if annotate {
        let card = rete.card()?;
        inputs = card.build.inputs.iter().map(|i| i.name.clone()).collect();
        Some(card.prefixes.get("").cloned().unwrap_or_default())
    } else {
        None
    };
    if let Some(name) = table.settle(declared_default.as_deref()) {
        annotate::settle_prefix(&mut ctx.findings, &name);
    }
    if annotate {
        ctx.sources()?;
    }
    let after = read();
    let lookup = Lookup {
        done: annotate,
        bytes_read: after.bytes.saturating_sub(before.bytes),
        requests: after.requests.saturating_sub(before.requests),
        elapsed_ms: t.elapsed().as_secs_f64() * 1e3,
    };
    let prefixes = table.used(ctx.findings.iter().flat_map(|f| {
        std::iter::once(f.message.as_str()).chain(f.explanation.iter().map(|s| s.text.as_str()))
    }));
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
    let total = before;
    Ok(Report {
        prefixes,
        groups,
        inputs,
        lookup,
        tier: tier as u8,
        classes: ctx.schema.classes.len(),
        findings: ctx.findings,
        bytes_read: total.bytes.saturating_sub(base.bytes),
        requests: total.requests.saturating_sub(base.requests),
        elapsed_ms: t.duration_since(start).as_secs_f64() * 1e3,
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
    /// What each grouped finding is about: `(index in findings, cause)`.
    causes: Vec<(usize, Cause)>,
}

/// What a finding follows from, for grouping.
#[derive(Debug, Clone)]
enum Cause {
    /// `unsatisfiable-class` of this class.
    Unsat(u32),
    /// `unsatisfiable-member` of this class.
    Member(u32),
    /// An individual's clash: the two classes in conflict.
    Clash((u32, u32)),
}

/// The key instance findings are grouped by: the conflicting pair, in order.
fn clash_key(clash: &Clash) -> (u32, u32) {
    let (a, b) = clash.conflict;
    (a.min(b), a.max(b))
}

/// Where a type of an individual comes from.
#[derive(Debug, Clone, Copy)]
enum Src {
    /// `x rdf:type C`.
    Asserted(Id),
    /// Index into [`Full::provs`].
    Inferred(u32),
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
            causes: Vec::new(),
        }
    }

    fn tick(&mut self) -> Result<()> {
        self.ticks += 1;
        if self.ticks % 1024 == 0 && self.cancel.load(Ordering::Relaxed) {
            return Err(CoherenceError::Cancelled);
        }
        Ok(())
    }

    /// Records an `error` finding of `kind`.
    fn push_error(
        &mut self,
        kind: &'static str,
        message: String,
        classes: Vec<String>,
        entities: Vec<String>,
        steps: Vec<Step>,
    ) {
        let f = render::finding(kind, "error", message, classes, entities, steps);
        self.findings.push(f);
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
}
