//! After the check: findings grouped by root cause, the named graphs of the explanation steps,
//! and the default prefix settled.

use super::{Cause, Ctx, Result};
use crate::logic::Axiom;
use crate::prefixes::PENDING;
use crate::{ClashGroup, Finding, Groups, RootCause};
use oxrdf::{BlankNodeRef, NamedNodeRef, TermRef};
use rete_core::{Id, Pattern, DEFAULT_GRAPH};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// Writes the default prefix's final name into the texts.
pub(super) fn settle_prefix(findings: &mut [Finding], name: &str) {
    for f in findings {
        f.message = f.message.replace(PENDING, name);
        for s in &mut f.explanation {
            s.text = s.text.replace(PENDING, name);
        }
    }
}

impl Ctx<'_> {
    /// The unsatisfiable classes (with a finding) that `c`'s explanation goes through and that
    /// are above `c` in the hierarchy.
    fn through(&self, c: u32, listed: &HashMap<u32, usize>, up: &HashSet<u32>) -> Vec<u32> {
        let Some(clash) = self.unsat_clash.get(&c) else {
            return Vec::new();
        };
        let mut v: Vec<u32> = clash.seeds.clone();
        v.extend([clash.conflict.0, clash.conflict.1]);
        for ax in &clash.axioms {
            match *ax {
                Axiom::SubClass(a, b)
                | Axiom::Equivalent(a, b)
                | Axiom::Disjoint(a, b)
                | Axiom::Complement(a, b) => v.extend([a, b]),
                Axiom::Group(_) => {}
            }
        }
        v.sort_unstable();
        v.dedup();
        v.retain(|&x| x != c && listed.contains_key(&x) && up.contains(&x));
        v
    }

    /// Root causes and clash groups, from what each finding follows from.
    pub(super) fn group(&self) -> Groups {
        let mut g = Groups {
            instance_findings: self
                .findings
                .iter()
                .filter(|f| !f.entities.is_empty())
                .count(),
            ..Groups::default()
        };
        let unsat: Vec<(usize, u32)> = self
            .causes
            .iter()
            .filter_map(|(i, c)| match c {
                Cause::Unsat(c) => Some((*i, *c)),
                _ => None,
            })
            .collect();
        let listed: HashMap<u32, usize> = unsat.iter().map(|&(i, c)| (c, i)).collect();
        let up: HashMap<u32, HashSet<u32>> = unsat
            .iter()
            .map(|&(_, c)| (c, self.logic.closure(&[c])))
            .collect();
        let through: HashMap<u32, Vec<u32>> = unsat
            .iter()
            .map(|&(_, c)| (c, self.through(c, &listed, &up[&c])))
            .collect();
        let equivalent = |a: u32, b: u32| up[&a].contains(&b) && up[&b].contains(&a);

        // Roots: every unsatisfiable class the explanation goes through is equivalent to it.
        let mut root_ids: Vec<Vec<u32>> = Vec::new();
        let mut causes: Vec<RootCause> = Vec::new();
        let mut group_of: HashMap<u32, usize> = HashMap::new();
        let add_root =
            |c: u32, i: usize, root_ids: &mut Vec<Vec<u32>>, causes: &mut Vec<RootCause>| {
                let k = root_ids
                    .iter()
                    .position(|r| r.iter().any(|&x| equivalent(x, c)))
                    .unwrap_or_else(|| {
                        root_ids.push(Vec::new());
                        causes.push(RootCause::default());
                        root_ids.len() - 1
                    });
                root_ids[k].push(c);
                causes[k].roots.push(i);
                causes[k].classes.push(self.class_iri(c));
                k
            };
        for &(i, c) in &unsat {
            if through[&c].iter().all(|&x| equivalent(c, x)) {
                let k = add_root(c, i, &mut root_ids, &mut causes);
                group_of.insert(c, k);
            }
        }
        // Derived: the first root reached through the classes the explanation goes through.
        for &(i, c) in &unsat {
            if group_of.contains_key(&c) {
                continue;
            }
            let mut seen = HashSet::from([c]);
            let mut q: VecDeque<u32> = through[&c].iter().copied().collect();
            let mut found = None;
            while let Some(x) = q.pop_front() {
                if let Some(&k) = group_of.get(&x) {
                    found = Some(k);
                    break;
                }
                if seen.insert(x) {
                    q.extend(through.get(&x).into_iter().flatten().copied());
                }
            }
            let k = match found {
                Some(k) => {
                    causes[k].derived.push(i);
                    causes[k].derived_classes.push(self.class_iri(c));
                    k
                }
                None => add_root(c, i, &mut root_ids, &mut causes),
            };
            group_of.insert(c, k);
        }
        let mut clashes: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        for (i, cause) in &self.causes {
            match *cause {
                Cause::Member(c) => {
                    if let Some(&k) = group_of.get(&c) {
                        causes[k].instances.push(*i);
                    }
                }
                Cause::Clash(key) => {
                    let k = *clashes.entry(key).or_insert_with(|| {
                        g.clashes.push(ClashGroup {
                            findings: Vec::new(),
                            classes: vec![self.class_iri(key.0), self.class_iri(key.1)],
                        });
                        g.clashes.len() - 1
                    });
                    g.clashes[k].findings.push(*i);
                }
                Cause::Unsat(_) => {}
            }
        }
        // Largest first; ties keep the findings' order.
        causes.sort_by_key(|c| std::cmp::Reverse(c.derived.len() + c.roots.len()));
        g.clashes
            .sort_by_key(|c| std::cmp::Reverse(c.findings.len()));
        g.roots = causes.len();
        g.derived = causes.iter().map(|c| c.derived.len()).sum();
        g.causes = causes;
        g
    }

    fn id_of_nt(&self, nt: &str, by_nt: &mut HashMap<String, Id>) -> Result<Option<Id>> {
        if let Some(&id) = by_nt.get(nt) {
            return Ok(Some(id));
        }
        let term: TermRef<'_> =
            if let Some(iri) = nt.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
                NamedNodeRef::new_unchecked(iri).into()
            } else if let Some(b) = nt.strip_prefix("_:") {
                BlankNodeRef::new_unchecked(b).into()
            } else {
                return Ok(None);
            };
        let id = self.rete.id_of(term)?;
        if let Some(id) = id {
            by_nt.insert(nt.to_owned(), id);
        }
        Ok(id)
    }

    /// Fills in the named graphs (and the default graph) holding each step's triple.
    pub(super) fn sources(&mut self) -> Result<()> {
        let mut by_nt: HashMap<String, Id> = self
            .names
            .iter()
            .map(|(&id, n)| (n.nt.clone(), id))
            .collect();
        let mut memo: HashMap<[String; 3], (Vec<String>, bool)> = HashMap::new();
        let mut findings = std::mem::take(&mut self.findings);
        for step in findings.iter_mut().flat_map(|f| f.explanation.iter_mut()) {
            let Some(t) = &step.triple else { continue };
            if let Some((g, d)) = memo.get(t) {
                step.graphs.clone_from(g);
                step.default_graph = *d;
                continue;
            }
            self.tick()?;
            let mut ids = [None; 3];
            for (k, nt) in t.iter().enumerate() {
                ids[k] = self.id_of_nt(nt, &mut by_nt)?;
            }
            let (mut graphs, mut default) = (Vec::new(), false);
            if let [Some(s), Some(p), Some(o)] = ids {
                let mut gids: Vec<Id> = Vec::new();
                for q in self.rete.quads(&Pattern::new(Some(s), Some(p), Some(o)))? {
                    let g = q?[3];
                    if !gids.contains(&g) {
                        gids.push(g);
                    }
                }
                gids.sort_unstable();
                for g in gids {
                    if g == DEFAULT_GRAPH {
                        default = true;
                    } else {
                        graphs.push(self.rete.graph_name(g)?.to_string());
                    }
                }
            }
            memo.insert(t.clone(), (graphs.clone(), default));
            step.graphs = graphs;
            step.default_graph = default;
        }
        self.findings = findings;
        Ok(())
    }
}
