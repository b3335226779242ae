//! Tier 0: unsatisfiable classes, inconsistency and subclass cycles from the schema alone.

use super::{Cause, Ctx, Result};
use crate::logic::Clash;
use crate::render;
use rete_schema::subclass_cycles;

impl Ctx<'_> {
    pub(super) fn tier0(&mut self) -> Result<()> {
        if let Some(clash) = self.logic.check(&[], &mut self.sc) {
            self.inconsistent = true;
            if self.admit("inconsistent-ontology") {
                self.push_error(
                    "inconsistent-ontology",
                    format!(
                        "owl:Thing is unsatisfiable ({}): the ontology is inconsistent and every class is empty",
                        self.conflict_text(&clash)
                    ),
                    self.clash_classes(&[], &clash),
                    Vec::new(),
                    self.axiom_steps(&clash),
                );
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
                    self.push_error(
                        "inconsistent-ontology",
                        format!(
                            "{} and its complement {} are both unsatisfiable, so owl:Thing is: the ontology is inconsistent and every class is empty",
                            self.class_text(a),
                            self.class_text(b)
                        ),
                        vec![self.class_iri(a), self.class_iri(b)],
                        Vec::new(),
                        steps,
                    );
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
                        self.causes.push((self.findings.len(), Cause::Unsat(c)));
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
}
