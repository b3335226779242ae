//! The legend of a file with a schema block: the class tree with instance counts and the
//! class → predicate → class relations counted at build time.

use super::{AppResult, Doc};
use crate::model::{Counted, Legend, LegendClass, LegendRelation, LegendSource};
use std::collections::HashMap;

/// Relations listed in the legend.
const LEGEND_RELATIONS: usize = 300;

impl Doc {
    /// The legend: from the schema block when the file has one, else from the card.
    pub fn legend(&self) -> AppResult<Legend> {
        let mut legend = match &self.schema {
            Some(_) => self.schema_legend()?,
            None => self.card_legend()?,
        };
        self.tell_apart(&mut legend.classes);
        Ok(legend)
    }

    /// Classes sharing a label (`owl:Class` and `rdfs:Class` are both "Class") get their
    /// prefixed name after it, `Class (owl:Class)`, or their namespace when no prefix is known.
    fn tell_apart(&self, classes: &mut [LegendClass]) {
        for c in classes.iter_mut() {
            if let Some(told) = self.told_apart().get(&c.nt) {
                c.label.clone_from(told);
            }
        }
    }

    /// The label of a class (N-Triples) that another class of the file shares, with what tells it
    /// apart (`Class (owl:Class)`); `None` for the other terms. The legend and the details panel
    /// show the same; search the same after the label it found ([`Self::told_apart_as`]).
    pub fn class_told_apart(&self, nt: &str) -> Option<&str> {
        self.told_apart().get(nt).map(String::as_str)
    }

    /// `label` (a label of the class `nt`, in any language) with what tells the class apart
    /// (`puesto (org:Post)`) when the legend tells it apart from another; `None` for the other
    /// terms. A search hit shows the label it was found by.
    pub fn told_apart_as(&self, nt: &str, label: &str) -> Option<String> {
        self.told_apart()
            .contains_key(nt)
            .then(|| format!("{label} ({})", self.telling_name(nt)))
    }

    /// [`Self::class_told_apart`] of every class whose label is shared, found once per document
    /// from the legend's classes.
    fn told_apart(&self) -> &HashMap<String, String> {
        self.told_apart.get_or_init(|| {
            let legend = match &self.schema {
                Some(_) => self.schema_legend(),
                None => self.card_legend(),
            };
            let Ok(legend) = legend else {
                return HashMap::new();
            };
            let mut count: HashMap<&str, usize> = HashMap::new();
            for c in &legend.classes {
                *count.entry(c.label.as_str()).or_default() += 1;
            }
            legend
                .classes
                .iter()
                .filter(|c| count.get(c.label.as_str()).is_some_and(|&n| n > 1))
                .map(|c| {
                    (
                        c.nt.clone(),
                        format!("{} ({})", c.label, self.telling_name(&c.nt)),
                    )
                })
                .collect()
        })
    }

    /// What tells a class apart from another of the same label: its prefixed name, else its
    /// namespace.
    fn telling_name(&self, nt: &str) -> String {
        let iri = nt.trim_start_matches('<').trim_end_matches('>');
        let short = self.short_iri(iri);
        let local = rete_core::vocab::local_name(iri);
        let ns = iri.strip_suffix(local).unwrap_or(iri);
        if short.contains(':') && !short.starts_with(':') {
            short
        } else if let Some(v) = rete_core::vocab::vocabulary(ns) {
            format!("{}:{local}", v.prefix)
        } else {
            let ns = ns.trim_end_matches(['/', '#']);
            ns.split_once("://").map_or(ns, |x| x.1).to_owned()
        }
    }

    /// The class tree and relations of the schema block.
    pub fn schema_legend(&self) -> AppResult<Legend> {
        let Some(schema) = &self.schema else {
            return self.card_legend();
        };
        // Most instances first; the tree is rebuilt from `parents` by the UI.
        let mut order: Vec<usize> = (0..schema.classes.len()).collect();
        order.sort_by(|&a, &b| {
            let (ca, cb) = (&schema.classes[a], &schema.classes[b]);
            cb.total_instances
                .cmp(&ca.total_instances)
                .then_with(|| ca.iri.cmp(&cb.iri))
        });
        let position: HashMap<usize, usize> =
            order.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        let classes = order
            .iter()
            .map(|&i| {
                let c = &schema.classes[i];
                LegendClass {
                    nt: format!("<{}>", c.iri),
                    label: c.label.clone().unwrap_or_else(|| self.short_iri(&c.iri)),
                    parents: c
                        .parents
                        .iter()
                        .filter_map(|p| position.get(&(*p as usize)).copied())
                        .collect(),
                    depth: c.depth,
                    direct: c.direct_instances,
                    total: c.total_instances,
                }
            })
            .collect();
        let class_nt = |i: u32| {
            schema
                .classes
                .get(i as usize)
                .map(|c| format!("<{}>", c.iri))
                .unwrap_or_default()
        };
        let mut rels: Vec<&rete_schema::Relation> = schema.relations.iter().collect();
        rels.sort_by_key(|r| std::cmp::Reverse(r.count));
        let relations = rels
            .into_iter()
            .take(LEGEND_RELATIONS)
            .map(|r| LegendRelation {
                domain: class_nt(r.domain),
                predicate: Counted {
                    nt: format!("<{}>", r.predicate),
                    label: self.short_iri(&r.predicate),
                    count: r.count,
                },
                range: class_nt(r.range),
            })
            .collect();
        Ok(Legend {
            source: LegendSource::Schema,
            classes,
            relations,
            note: format!(
                "From the schema block: {}, {} counted over all triples.",
                rete_core::human::plural(schema.classes.len(), "class", "classes"),
                rete_core::human::plural(
                    schema.relations.len(),
                    "class → predicate → class relation",
                    "class → predicate → class relations"
                )
            ),
        })
    }
}
