//! One entity or class group in detail: the details panel of an entity, its neighbourhood on
//! the map, and the details of a class group.

use super::{limits, AppResult, Doc};
use crate::key::NodeKey;
use crate::model::{Counted, EntityDetails, GroupDetails, Link, MapView, TermView, ViewKind};
use oxrdf::Term;
use rete_core::{Id, Pattern};
use std::collections::{BTreeMap, HashMap, HashSet};

impl Doc {
    /// Properties and links of one entity for the details panel: one scan of its triples (types
    /// included), one of its incoming links, each term decoded once and each predicate once.
    pub fn entity(&self, id: Id) -> AppResult<EntityDetails> {
        let mut term = self.term_view(id, true)?;
        // A class whose label another class shares: told apart as in the legend.
        if let Some(told) = self.class_told_apart(&term.nt) {
            term.label = told.to_owned();
        }
        let mut preds: HashMap<Id, TermView> = HashMap::new();
        let mut pred = |p: Id| -> AppResult<TermView> {
            if let Some(v) = preds.get(&p) {
                return Ok(v.clone());
            }
            let v = self.term_view(p, false)?;
            preds.insert(p, v.clone());
            Ok(v)
        };
        let (mut types, mut properties, mut out_links, mut in_links) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut type_ids: Vec<Id> = Vec::new();
        let mut out_total = 0;
        for q in self.rete.quads(&Pattern::new(Some(id), None, None))? {
            let [_, p, o, _] = q?;
            out_total += 1;
            if Some(p) == self.rdf_type {
                if !type_ids.contains(&o) {
                    type_ids.push(o);
                    types.push(self.term_view(o, false)?);
                }
                continue;
            }
            if out_links.len() >= limits::DETAIL_LINKS && properties.len() >= limits::DETAIL_LINKS {
                continue;
            }
            let t = self.rete.term(o)?;
            let list = if matches!(t, Term::Literal(_)) {
                &mut properties
            } else {
                &mut out_links
            };
            if list.len() < limits::DETAIL_LINKS {
                list.push(Link {
                    predicate: pred(p)?,
                    other: self.view_of(o, t, true)?,
                });
            }
        }
        let in_total = self.rete.count(&Pattern::new(None, None, Some(id)))?;
        for q in self
            .rete
            .quads(&Pattern::new(None, None, Some(id)))?
            .take(limits::DETAIL_LINKS)
        {
            let [s, p, _, _] = q?;
            in_links.push(Link {
                predicate: pred(p)?,
                other: self.term_view(s, true)?,
            });
        }
        Ok(EntityDetails {
            term,
            types,
            properties,
            out_links,
            in_links,
            out_total,
            in_total,
        })
    }

    /// An entity and its IRI/blank-node neighbours (both directions) with the links among them,
    /// laid out by the UI.
    pub fn neighbourhood(&self, id: Id) -> AppResult<MapView> {
        let mut ids = vec![id];
        let mut seen: HashSet<Id> = HashSet::from([id]);
        let mut truncated = false;
        let mut push = |other: Id, ids: &mut Vec<Id>| {
            if seen.insert(other) {
                if ids.len() > limits::NEIGHBOURS {
                    truncated = true;
                } else {
                    ids.push(other);
                }
            }
        };
        for q in self.rete.quads(&Pattern::new(Some(id), None, None))? {
            let [_, p, o, _] = q?;
            if Some(p) != self.rdf_type && !matches!(self.rete.term(o)?, Term::Literal(_)) {
                push(o, &mut ids);
            }
        }
        for q in self.rete.quads(&Pattern::new(None, None, Some(id)))? {
            push(q?[0], &mut ids);
        }
        let mut nodes = Vec::with_capacity(ids.len());
        for &n in &ids {
            nodes.push(self.entity_node(n, None)?);
        }
        let edges = self.edges_among(&ids)?;
        Ok(MapView {
            kind: ViewKind::Neighbourhood,
            nodes,
            edges,
            note: String::new(),
            truncated,
        })
    }

    /// Details of a class group: its size, a sample of members, and the predicates they use.
    pub fn class_group(&self, class: Id) -> AppResult<GroupDetails> {
        let nt = self.rete.term(class)?.to_string();
        let size = match self.rdf_type {
            Some(t) => self.rete.count(&Pattern::new(None, Some(t), Some(class)))?,
            None => 0,
        };
        let mut sample = Vec::new();
        let mut preds: BTreeMap<Id, u64> = BTreeMap::new();
        if let Some(t) = self.rdf_type {
            for q in self
                .rete
                .quads(&Pattern::new(None, Some(t), Some(class)))?
                .take(limits::OVERVIEW_SAMPLE)
            {
                let s = q?[0];
                if sample.len() < 12 {
                    sample.push(self.term_view(s, true)?);
                }
                for l in self
                    .rete
                    .quads(&Pattern::new(Some(s), None, None))?
                    .take(limits::OVERVIEW_LINKS)
                {
                    let p = l?[1];
                    if p != t {
                        *preds.entry(p).or_default() += 1;
                    }
                }
            }
        }
        let mut top: Vec<(Id, u64)> = preds.into_iter().collect();
        top.sort_by_key(|t| std::cmp::Reverse(t.1));
        let top_predicates = top
            .into_iter()
            .take(10)
            .map(|(p, n)| {
                Ok(Counted {
                    nt: self.rete.term(p)?.to_string(),
                    label: self.term_view(p, false)?.label,
                    count: n,
                })
            })
            .collect::<AppResult<Vec<_>>>()?;
        Ok(GroupDetails {
            key: NodeKey::Class(class).to_string(),
            label: self.short_nt(&nt),
            size,
            level: None,
            children: Vec::new(),
            links: Vec::new(),
            classes: vec![self.counted(&nt, size)],
            top_predicates,
            sample,
        })
    }
}
