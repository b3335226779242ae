//! The class map, for files without a pyramid: the overview of classes as groups (packed as
//! circles, related through a sample of their instances), the members of one class laid out in
//! its group, the links among entities on the map, and the legend read from the card.

use super::{limits, nt_id, AppError, AppResult, Doc};
use crate::key::NodeKey;
use crate::model::{
    Counted, Legend, LegendClass, LegendRelation, LegendSource, MapEdge, MapNode, MapView,
    NodeKind, ViewKind,
};
use rete_core::{Id, Pattern};
use std::collections::{BTreeMap, HashMap, HashSet};

impl Doc {
    /// The first map when the file has no pyramid: its classes as groups sized by instances, placed
    /// without overlap, with the relations seen on a sample of each class's instances.
    pub fn class_overview(&self) -> AppResult<MapView> {
        let card = self.rete.card()?;
        let mut classes = Vec::new();
        for c in card.classes.iter().take(limits::OVERVIEW_CLASSES) {
            if let Some(id) = nt_id(&self.rete, &c.term)? {
                classes.push((id, c));
            }
        }
        let radii: Vec<f32> = classes.iter().map(|(_, c)| group_radius(c.count)).collect();
        let centres = pack_circles(&radii);
        let mut nodes = Vec::with_capacity(classes.len());
        for (i, (id, c)) in classes.iter().enumerate() {
            nodes.push(MapNode {
                key: NodeKey::Class(*id).to_string(),
                kind: NodeKind::Class,
                label: self.short_nt(&c.term),
                size: c.count,
                class: Some(c.term.clone()),
                x: Some(centres[i].0),
                y: Some(centres[i].1),
                r: Some(radii[i]),
                expandable: c.count > 0,
                level: None,
                id: *id,
                classes: vec![self.counted(&c.term, c.count)],
            });
        }
        let in_view: HashSet<Id> = classes.iter().map(|(id, _)| *id).collect();
        let mut pairs: BTreeMap<(Id, Id), BTreeMap<Id, u64>> = BTreeMap::new();
        let mut truncated = false;
        if let Some(t) = self.rdf_type {
            for (class, c) in &classes {
                truncated |= c.count as usize > limits::OVERVIEW_SAMPLE;
                for q in self
                    .rete
                    .quads(&Pattern::new(None, Some(t), Some(*class)))?
                    .take(limits::OVERVIEW_SAMPLE)
                {
                    let s = q?[0];
                    for l in self
                        .rete
                        .quads(&Pattern::new(Some(s), None, None))?
                        .take(limits::OVERVIEW_LINKS)
                    {
                        let [_, p, o, _] = l?;
                        if p == t {
                            continue;
                        }
                        if let Some(oc) = self.main_class(o)? {
                            if in_view.contains(&oc) {
                                *pairs.entry((*class, oc)).or_default().entry(p).or_default() += 1;
                            }
                        }
                    }
                }
            }
        }
        let mut edges = Vec::new();
        for ((a, b), preds) in pairs {
            if a == b {
                continue;
            }
            let weight = preds.values().sum();
            let mut top: Vec<(Id, u64)> = preds.into_iter().collect();
            top.sort_by_key(|t| std::cmp::Reverse(t.1));
            let label = top
                .iter()
                .take(2)
                .map(|(p, _)| self.term_view(*p, false).map(|v| v.label))
                .collect::<AppResult<Vec<_>>>()?
                .join(", ");
            edges.push(MapEdge {
                source: NodeKey::Class(a).to_string(),
                target: NodeKey::Class(b).to_string(),
                weight,
                label,
            });
        }
        Ok(MapView {
            kind: ViewKind::Classes,
            nodes,
            edges,
            note: format!(
                "Classes from the file's card, sized by instances. Relations between classes were counted on the first {} instances of each class.",
                limits::OVERVIEW_SAMPLE
            ),
            truncated: truncated || card.classes.len() > limits::OVERVIEW_CLASSES,
        })
    }

    /// The instances of a class (first [`limits::MEMBERS`]) placed inside its group circle
    /// `(x, y, r)`, with the links among them.
    pub fn class_members(&self, class: Id, centre: (f32, f32, f32)) -> AppResult<MapView> {
        let Some(t) = self.rdf_type else {
            return Err(AppError::Invalid("the file has no rdf:type triples".into()));
        };
        let mut ids = Vec::new();
        let mut truncated = false;
        for q in self.rete.quads(&Pattern::new(None, Some(t), Some(class)))? {
            if ids.len() == limits::MEMBERS {
                truncated = true;
                break;
            }
            ids.push(q?[0]);
        }
        self.entities_in_circle(&ids, centre, ViewKind::Members, truncated)
    }

    /// An entity's map node, at `(x, y, r)` or, without one, left for the UI to lay out.
    pub(super) fn entity_node(&self, id: Id, at: Option<(f32, f32, f32)>) -> AppResult<MapNode> {
        let term = self.term_view(id, true)?;
        Ok(MapNode {
            key: NodeKey::Entity(id).to_string(),
            kind: NodeKind::Entity,
            label: term.label,
            size: 1,
            class: self.class_nt(self.main_class(id)?)?,
            x: at.map(|a| a.0),
            y: at.map(|a| a.1),
            r: at.map(|a| a.2),
            expandable: false,
            level: None,
            id,
            classes: Vec::new(),
        })
    }

    /// Entity nodes for `ids`, laid out on a sunflower spiral inside `(x, y, r)`, plus the triples
    /// that link two of them.
    pub fn entities_in_circle(
        &self,
        ids: &[Id],
        (cx, cy, r): (f32, f32, f32),
        kind: ViewKind,
        truncated: bool,
    ) -> AppResult<MapView> {
        let n = ids.len().max(1) as f32;
        let mut nodes = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            let (x, y) = sunflower(i, n, r * 0.92);
            let at = (cx + x, cy + y, (r / n.sqrt() * 0.45).max(r * 0.002));
            nodes.push(self.entity_node(id, Some(at))?);
        }
        let edges = self.edges_among(ids)?;
        Ok(MapView {
            kind,
            nodes,
            edges,
            note: String::new(),
            truncated,
        })
    }

    /// Triples whose subject and object are both in `ids` (rdf:type excluded).
    pub fn edges_among(&self, ids: &[Id]) -> AppResult<Vec<MapEdge>> {
        let set: HashSet<Id> = ids.iter().copied().collect();
        // On a remote file: the members' blocks in one batch, not a round trip or two each.
        // Only a speed-up: if it fails (the read budget, a coalesced span a little over it),
        // the scans read what they need themselves and report what fails.
        let subjects: Vec<Pattern> = ids
            .iter()
            .map(|&s| Pattern::new(Some(s), None, None))
            .collect();
        let _ = self.rete.prefetch(&subjects);
        let mut agg: BTreeMap<(Id, Id), (u64, Id)> = BTreeMap::new();
        for &s in ids {
            for q in self.rete.quads(&Pattern::new(Some(s), None, None))? {
                let [_, p, o, _] = q?;
                if Some(p) != self.rdf_type && o != s && set.contains(&o) {
                    let e = agg.entry((s, o)).or_insert((0, p));
                    e.0 += 1;
                }
            }
        }
        let mut pred_labels: HashMap<Id, String> = HashMap::new();
        let mut edges = Vec::with_capacity(agg.len());
        for ((s, o), (w, p)) in agg {
            let label = match pred_labels.get(&p) {
                Some(l) => l.clone(),
                None => {
                    let l = self.term_view(p, false)?.label;
                    pred_labels.insert(p, l.clone());
                    l
                }
            };
            edges.push(MapEdge {
                source: NodeKey::Entity(s).to_string(),
                target: NodeKey::Entity(o).to_string(),
                weight: w,
                label,
            });
        }
        Ok(edges)
    }

    /// The legend from the card: classes by instances (flat) and the relations between them
    /// observed on the class overview's sample.
    pub fn card_legend(&self) -> AppResult<Legend> {
        let card = self.rete.card()?;
        let classes = card
            .classes
            .iter()
            .map(|c| LegendClass {
                nt: c.term.clone(),
                label: self.short_nt(&c.term),
                parents: Vec::new(),
                depth: 0,
                direct: c.count,
                total: c.count,
            })
            .collect();
        let overview = self.class_overview()?;
        let class_of: HashMap<&str, &str> = overview
            .nodes
            .iter()
            .filter_map(|n| n.class.as_deref().map(|c| (n.key.as_str(), c)))
            .collect();
        let mut relations = Vec::new();
        for e in &overview.edges {
            if let (Some(d), Some(r)) = (
                class_of.get(e.source.as_str()),
                class_of.get(e.target.as_str()),
            ) {
                relations.push(LegendRelation {
                    domain: (*d).to_owned(),
                    predicate: Counted {
                        nt: String::new(),
                        label: e.label.clone(),
                        count: e.weight,
                    },
                    range: (*r).to_owned(),
                });
            }
        }
        relations.sort_by_key(|r| std::cmp::Reverse(r.predicate.count));
        Ok(Legend {
            source: LegendSource::Card,
            classes,
            relations,
            note: overview.note,
        })
    }
}

/// Radius of a group holding `count` members: area proportional to the count.
fn group_radius(count: u64) -> f32 {
    (count.max(1) as f32).sqrt() * 10.0
}

/// Point `i` of `n` on a sunflower (Vogel) spiral filling a disc of radius `r` evenly.
fn sunflower(i: usize, n: f32, r: f32) -> (f32, f32) {
    const GOLDEN: f32 = 2.399_963;
    let rho = r * ((i as f32 + 0.5) / n).sqrt();
    let theta = i as f32 * GOLDEN;
    (rho * theta.cos(), rho * theta.sin())
}

/// Places circles (largest first, as given) without overlap, each as close to the origin as a
/// spiral search allows: a compact bubble chart.
pub fn pack_circles(radii: &[f32]) -> Vec<(f32, f32)> {
    let mut placed: Vec<(f32, f32, f32)> = Vec::with_capacity(radii.len());
    let gap = radii.iter().copied().fold(0.0f32, f32::max) * 0.08 + 1.0;
    for &r in radii {
        let mut pos = (0.0, 0.0);
        if !placed.is_empty() {
            let mut step = 0usize;
            loop {
                let t = step as f32 * 0.35;
                let rho = t * gap * 0.6;
                let cand = (rho * t.cos(), rho * t.sin());
                let free = placed.iter().all(|&(x, y, pr)| {
                    let (dx, dy) = (cand.0 - x, cand.1 - y);
                    (dx * dx + dy * dy).sqrt() >= pr + r + gap
                });
                if free || step > 200_000 {
                    pos = cand;
                    break;
                }
                step += 1;
            }
        }
        placed.push((pos.0, pos.1, r));
    }
    placed.into_iter().map(|(x, y, _)| (x, y)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_circles_do_not_overlap() {
        let radii = [50.0, 30.0, 30.0, 10.0, 5.0, 5.0, 1.0];
        let c = pack_circles(&radii);
        for i in 0..radii.len() {
            for j in i + 1..radii.len() {
                let d = ((c[i].0 - c[j].0).powi(2) + (c[i].1 - c[j].1).powi(2)).sqrt();
                assert!(d >= radii[i] + radii[j], "{i} and {j} overlap");
            }
        }
    }

    #[test]
    fn sunflower_stays_inside() {
        for i in 0..100 {
            let (x, y) = sunflower(i, 100.0, 10.0);
            assert!((x * x + y * y).sqrt() <= 10.0 + 1e-3);
        }
    }
}
