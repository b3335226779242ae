//! The map of a file with a community pyramid: the top level first, then communities opening into
//! their children and, at level 0, into their member entities; group details; and where entities
//! live in the pyramid.

use super::{limits, AppError, AppResult, Doc, SeenCommunity};
use crate::key::NodeKey;
use crate::model::{
    Counted, GroupDetails, GroupLink, Located, MapEdge, MapNode, MapView, NodeKind, TermKind,
    TermView, ViewKind,
};
use rete_core::Id;
use rete_pyramid::{Community, Level, Pyramid, SuperEdge};
use std::collections::{BTreeMap, HashMap};

/// Map key of community `id` on `level`.
pub fn community_key(level: u32, id: u32) -> String {
    NodeKey::Community { level, id }.to_string()
}

/// Bounds what is kept for the details panel: when `incoming` more (communities and super-edges)
/// would pass `max`, the map forgets what it kept (read again from the file when asked about).
fn make_room<K, V>(
    seen: &mut HashMap<K, V>,
    weight: impl Fn(&V) -> usize,
    incoming: usize,
    max: usize,
) {
    if seen.values().map(weight).sum::<usize>() + incoming > max {
        *seen = HashMap::new();
    }
}

/// About what a kept community takes in memory: its record, strings and vectors (the allocator's
/// own overhead not counted).
fn seen_bytes(c: &SeenCommunity) -> usize {
    let pairs = |v: &[(String, u64)]| {
        v.iter()
            .map(|(s, _)| s.len() + size_of::<(String, u64)>())
            .sum::<usize>()
    };
    let k = &c.community;
    size_of::<SeenCommunity>()
        + k.label.len()
        + k.default_label.len()
        + k.labels_by_language
            .iter()
            .map(|(a, b)| a.len() + b.len() + size_of::<(String, String)>())
            .sum::<usize>()
        + k.dominant_class.as_ref().map_or(0, String::len)
        + pairs(&k.classes)
        + c.edges
            .iter()
            .map(|e| size_of::<SuperEdge>() + pairs(&e.top_predicates))
            .sum::<usize>()
        + c.others
            .values()
            .map(|l| l.len() + size_of::<(u32, String)>())
            .sum::<usize>()
}

impl Doc {
    /// Shows community labels in `languages` (most preferred first), then English, then any.
    pub fn set_languages(&mut self, languages: &[String]) {
        languages.clone_into(&mut self.languages);
        let langs: Vec<&str> = languages.iter().map(String::as_str).collect();
        if let Some(p) = &mut self.pyramid {
            *p = p.with_languages(&langs);
        }
    }

    fn pyramid(&self) -> AppResult<&Pyramid> {
        self.pyramid
            .as_ref()
            .ok_or_else(|| AppError::Invalid("the file has no community pyramid".into()))
    }

    /// The first map of a file with a pyramid: its top level.
    pub fn pyramid_overview(&self) -> AppResult<MapView> {
        let p = self.pyramid()?;
        let top = p.levels() - 1;
        let level = p.level(top)?;
        let info = &p.level_info()[top];
        let note = format!(
            "Community pyramid: {} levels, {} entities; top level of {} communities (modularity {:.2}). Zoom into a community to open it.",
            p.levels(),
            p.entity_count(),
            info.communities,
            level.modularity
        );
        Ok(self.level_view(ViewKind::Pyramid, &level, note))
    }

    /// Communities (and super-edges) of a level or of a community's children as map nodes.
    fn level_view(&self, kind: ViewKind, level: &Level, note: String) -> MapView {
        self.remember(level, None);
        let nodes = level
            .communities
            .iter()
            .map(|c| self.community_node(c))
            .collect();
        let edges = level
            .edges
            .iter()
            .map(|e| MapEdge {
                source: community_key(level.level, e.source),
                target: community_key(level.level, e.target),
                weight: e.weight,
                label: self.predicates_label(&e.top_predicates),
            })
            .collect();
        MapView {
            kind,
            nodes,
            edges,
            note,
            truncated: false,
        }
    }

    fn community_node(&self, c: &Community) -> MapNode {
        MapNode {
            key: community_key(c.level, c.id),
            kind: NodeKind::Community,
            label: c.label.clone(),
            size: c.size,
            class: c.dominant_class.clone(),
            x: Some(c.x),
            y: Some(c.y),
            r: Some(c.r),
            expandable: c.size > 0,
            level: Some(c.level),
            id: u64::from(c.id),
            classes: c
                .classes
                .iter()
                .map(|(nt, n)| self.counted(nt, *n))
                .collect(),
        }
    }

    fn predicates_label(&self, preds: &[(String, u64)]) -> String {
        preds
            .iter()
            .take(2)
            .map(|(p, _)| self.short_nt(p))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Keeps the communities of `level` (or only community `only`) with their super-edges for the
    /// details panel.
    fn remember(&self, level: &Level, only: Option<u32>) {
        let labels: HashMap<u32, &str> = level
            .communities
            .iter()
            .map(|c| (c.id, c.label.as_str()))
            .collect();
        // Each community's super-edges in one pass (a level may hold thousands of both).
        let mut by_community: HashMap<u32, Vec<SuperEdge>> = HashMap::new();
        let wanted = |c: u32| only.is_none_or(|o| o == c);
        for e in &level.edges {
            if wanted(e.source) {
                by_community.entry(e.source).or_default().push(e.clone());
            }
            if e.target != e.source && wanted(e.target) {
                by_community.entry(e.target).or_default().push(e.clone());
            }
        }
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let incoming = by_community.len() + by_community.values().map(Vec::len).sum::<usize>();
        make_room(
            &mut seen,
            |c| 1 + c.edges.len(),
            incoming,
            limits::SEEN_ITEMS,
        );
        for c in level.communities.iter().filter(|c| wanted(c.id)) {
            let edges: Vec<SuperEdge> = by_community.remove(&c.id).unwrap_or_default();
            let others = edges
                .iter()
                .map(|e| if e.source == c.id { e.target } else { e.source })
                .map(|o| (o, labels.get(&o).copied().unwrap_or_default().to_owned()))
                .collect();
            seen.insert(
                (c.level, c.id),
                SeenCommunity {
                    community: c.clone(),
                    edges,
                    others,
                },
            );
        }
    }

    /// What the document holds in its caches now, with their bounds.
    pub fn memory(&self, doc: u32) -> crate::model::DocMemory {
        let blocks = self.rete.memory_use();
        let (range_bytes, max_range_bytes) = self.bytes.cache_use();
        let pyramid = self
            .pyramid
            .as_ref()
            .map(Pyramid::cache_use)
            .unwrap_or_default();
        let (seen_items, seen_bytes) = self
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .fold((0, 0), |(n, b), c| {
                (n + 1 + c.edges.len(), b + seen_bytes(c))
            });
        crate::model::DocMemory {
            doc,
            blocks: blocks.cached_blocks,
            block_bytes: blocks.cached_bytes,
            max_block_bytes: blocks.cache_limit,
            directory_bytes: blocks.directory_bytes,
            range_bytes,
            max_range_bytes,
            pyramid_blocks: pyramid.blocks,
            pyramid_bytes: pyramid.bytes,
            max_pyramid_blocks: pyramid.max_blocks,
            seen_items,
            seen_bytes,
            max_seen_items: limits::SEEN_ITEMS,
        }
    }

    /// What community `(level, id)` opens into: its sub-communities, or at level 0 its members
    /// placed inside its circle with the links among them; a community of one child opens into
    /// what that child opens into.
    pub fn community_expand(&self, level: u32, id: u32) -> AppResult<MapView> {
        let p = self.pyramid()?;
        if level > 0 {
            let children = p.children(level as usize, id)?;
            if let [only] = children.communities.as_slice() {
                // One child holding all of its members (a group small enough keeps a copy of
                // itself on a level of split pieces): opened through, no view of one circle.
                let (l, c) = (only.level, only.id);
                self.remember(&children, None);
                return self.community_expand(l, c);
            }
            let note = format!(
                "{} sub-communities on level {}.",
                children.communities.len(),
                level - 1
            );
            return Ok(self.level_view(ViewKind::Children, &children, note));
        }
        let circle = self
            .seen_community(0, id)?
            .map(|c| (c.community.r, c.community.size));
        let members = p.members(id)?;
        let total = members.len();
        let truncated = total > limits::COMMUNITY_MEMBERS;
        let members = &members[..total.min(limits::COMMUNITY_MEMBERS)];
        let r = circle.map_or(10.0, |c| c.0);
        let node_r = (r / (members.len().max(1) as f32).sqrt() * 0.45).max(r * 0.002);
        let nodes: Vec<MapNode> = members
            .iter()
            .map(|m| MapNode {
                key: NodeKey::Entity(m.id).to_string(),
                kind: NodeKind::Entity,
                label: m.label.clone().unwrap_or_else(|| self.short_nt(&m.term)),
                size: 1,
                class: m.class.clone(),
                x: Some(m.x),
                y: Some(m.y),
                r: Some(node_r),
                expandable: false,
                level: None,
                id: m.id,
                classes: Vec::new(),
            })
            .collect();
        let ids: Vec<Id> = members
            .iter()
            .take(limits::COMMUNITY_EDGES)
            .map(|m| m.id)
            .collect();
        let edges = self.edges_among(&ids)?;
        Ok(MapView {
            kind: ViewKind::Members,
            nodes,
            edges,
            note: if truncated {
                format!("Showing {} of {total} members.", members.len())
            } else {
                String::new()
            },
            truncated,
        })
    }

    /// The community as received by the map, else read from its level.
    fn seen_community(&self, level: u32, id: u32) -> AppResult<Option<SeenCommunity>> {
        if let Some(c) = self
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(level, id))
        {
            return Ok(Some(c.clone()));
        }
        let p = self.pyramid()?;
        if level as usize >= p.levels() {
            return Ok(None);
        }
        // A whole level may hold a million super-edges (level 0 at 30 M triples): keep only this
        // community's.
        let l = p.level(level as usize)?;
        self.remember(&l, Some(id));
        Ok(self
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(level, id))
            .cloned())
    }

    /// Details of a community: size, classes, super-edges, sub-communities or members.
    pub fn community_group(&self, level: u32, id: u32) -> AppResult<GroupDetails> {
        let p = self.pyramid()?;
        let Some(seen) = self.seen_community(level, id)? else {
            return Err(AppError::Invalid(format!(
                "community {id} does not exist on level {level}"
            )));
        };
        let c = &seen.community;
        let mut preds: BTreeMap<&str, u64> = BTreeMap::new();
        for e in &seen.edges {
            for (pr, n) in &e.top_predicates {
                *preds.entry(pr.as_str()).or_default() += n;
            }
        }
        let mut top: Vec<(&str, u64)> = preds.into_iter().collect();
        top.sort_by_key(|t| std::cmp::Reverse(t.1));
        let mut links: Vec<GroupLink> = seen
            .edges
            .iter()
            .map(|e| {
                let other = if e.source == id { e.target } else { e.source };
                GroupLink {
                    key: community_key(level, other),
                    label: seen.others.get(&other).cloned().unwrap_or_default(),
                    weight: e.weight,
                    predicates: self.predicates_label(&e.top_predicates),
                }
            })
            .collect();
        links.sort_by_key(|l| std::cmp::Reverse(l.weight));
        links.truncate(12);
        let (mut sample, mut children) = (Vec::new(), Vec::new());
        if level == 0 {
            for m in p.members(id)?.iter().take(12) {
                sample.push(TermView {
                    id: m.id,
                    label: m.label.clone().unwrap_or_else(|| self.short_nt(&m.term)),
                    kind: if m.term.starts_with("_:") {
                        TermKind::Bnode
                    } else {
                        TermKind::Iri
                    },
                    nt: m.term.clone(),
                });
            }
        } else {
            let kids = p.children(level as usize, id)?;
            let mut kids: Vec<&Community> = kids.communities.iter().collect();
            kids.sort_by_key(|k| std::cmp::Reverse(k.size));
            for k in kids.into_iter().take(12) {
                children.push(Counted {
                    nt: community_key(k.level, k.id),
                    label: k.label.clone(),
                    count: k.size,
                });
            }
        }
        Ok(GroupDetails {
            key: community_key(level, id),
            label: c.label.clone(),
            size: c.size,
            level: Some(level),
            classes: c
                .classes
                .iter()
                .map(|(nt, n)| self.counted(nt, *n))
                .collect(),
            top_predicates: top
                .into_iter()
                .take(10)
                .map(|(pr, n)| self.counted(pr, n))
                .collect(),
            sample,
            children,
            links,
        })
    }

    /// Where each term (N-Triples) lives on the map: its map keys from the coarsest group down
    /// to the entity itself (`c<level>:<id>`… `e:<id>` with a pyramid, `k:<class>` `e:<id>`
    /// without). Terms not in the file come back with no keys.
    pub fn locate(&self, terms: &[String]) -> AppResult<Vec<Located>> {
        let mut out = Vec::with_capacity(terms.len());
        for nt in terms.iter().take(limits::LOCATE) {
            let id = self.resolve(nt)?;
            let mut keys = Vec::new();
            if let Some(id) = id {
                match &self.pyramid {
                    Some(p) => {
                        if let Some(path) = p.community_path(id)? {
                            for (level, c) in path.iter().enumerate().rev() {
                                keys.push(community_key(level as u32, *c));
                            }
                        }
                    }
                    None => {
                        if let Some(c) = self.main_class(id)? {
                            keys.push(format!("k:{c}"));
                        }
                    }
                }
                keys.push(format!("e:{id}"));
            }
            out.push(Located {
                nt: nt.clone(),
                id,
                keys,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::make_room;
    use std::collections::HashMap;

    #[test]
    fn kept_communities_stay_bounded() {
        // Each value weighs itself (a community and its super-edges).
        let mut seen: HashMap<u32, usize> = (0..4).map(|i| (i, 2)).collect();
        make_room(&mut seen, |w| *w, 2, 10);
        assert_eq!(seen.len(), 4, "room left: nothing forgotten");
        make_room(&mut seen, |w| *w, 3, 10);
        assert!(
            seen.is_empty(),
            "over the bound: the kept views are forgotten"
        );
        seen.extend((0..3).map(|i| (i, 1)));
        make_room(&mut seen, |w| *w, 12, 10);
        assert!(
            seen.is_empty(),
            "a level larger than the bound is still kept on its own"
        );
    }
}
