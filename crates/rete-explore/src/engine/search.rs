//! Finding an entity, a class or a predicate by its label as the user types: the file's search
//! index (`rete-search`; a scan of its labels for a file without one), each hit with what the map
//! needs to go to it (its term id and the communities holding it, top level first).

use super::{AppResult, Doc};
use crate::key::NodeKey;
use crate::model::{CommunityCount, HitKind, SearchHit, SearchView, SpreadView};
use rete_search::{Kind, Query, Searcher, Within};
use std::sync::atomic::AtomicBool;

/// Most hits one search returns.
pub const MAX_HITS: usize = 50;

/// Matched entities whose own map keys a spread lists at most (lit when their community is
/// open); past it only their communities are.
pub const MAX_SPREAD_KEYS: usize = 20_000;

/// What the search box asks.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    /// The typed text.
    pub text: String,
    /// Only entities, classes or predicates.
    pub kind: Option<HitKind>,
    /// Only inside this community (a map key `c<level>:<id>`).
    pub within: Option<String>,
    /// At most this many hits (capped at [`MAX_HITS`]).
    pub limit: usize,
}

impl Doc {
    fn searcher(&self) -> AppResult<&Searcher> {
        if let Some(s) = self.searcher.get() {
            return Ok(s);
        }
        let s = Searcher::open(&self.rete)?;
        Ok(self.searcher.get_or_init(|| s))
    }

    /// The query `req` asks for, in the file's terms.
    fn query(&self, req: &SearchRequest) -> AppResult<Query> {
        let within = match req.within.as_deref() {
            None => None,
            Some(key) => match key.parse::<NodeKey>() {
                Ok(NodeKey::Community { level, id }) => Some(Within {
                    level,
                    community: id,
                }),
                _ => {
                    return Err(super::AppError::Invalid(format!(
                        "{key} is not a community of the map"
                    )))
                }
            },
        };
        Ok(Query {
            kind: req.kind.map(|k| match k {
                HitKind::Entity => Kind::Entity,
                HitKind::Class => Kind::Class,
                HitKind::Predicate => Kind::Predicate,
            }),
            languages: self.languages.clone(),
            limit: req.limit.clamp(1, MAX_HITS),
            within,
            ..Query::new(req.text.as_str())
        })
    }

    /// Where all the matches of `req` are on the map: each community holding some, on every
    /// level, with how many (`req.limit` plays no part).
    pub fn spread(&self, req: &SearchRequest, cancel: &AtomicBool) -> AppResult<SpreadView> {
        let spread = self.searcher()?.spread(&self.query(req)?, cancel)?;
        let mut communities = Vec::new();
        for (level, held) in spread.levels.iter().enumerate().rev() {
            let mut held: Vec<(u32, u64)> = held.clone();
            held.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
            communities.extend(held.into_iter().map(|(id, count)| {
                CommunityCount {
                    key: NodeKey::Community {
                        level: u32::try_from(level).unwrap_or(u32::MAX),
                        id,
                    }
                    .to_string(),
                    count,
                }
            }));
        }
        let entity_keys = if spread.placed.len() <= MAX_SPREAD_KEYS {
            spread
                .placed
                .iter()
                .map(|&id| NodeKey::Entity(id).to_string())
                .collect()
        } else {
            Vec::new()
        };
        Ok(SpreadView {
            text: req.text.clone(),
            entities: spread.entities,
            placed: spread.placed.len() as u64,
            schema_terms: spread.schema_terms,
            communities,
            entity_keys,
            complete: spread.complete,
        })
    }

    /// The hits for `req`, best first; `cancel` stops a label scan (a file without an index).
    pub fn search(&self, req: &SearchRequest, cancel: &AtomicBool) -> AppResult<SearchView> {
        let searcher = self.searcher()?;
        let query = self.query(req)?;
        let answer = searcher.search(&query, cancel)?;
        let mut hits = Vec::with_capacity(answer.hits.len());
        for h in answer.hits {
            let id = self.resolve(&h.term)?.unwrap_or(0);
            let class_label = h.class.as_ref().map(|c| self.short_nt(c));
            // A class whose label another class shares: told apart as in the legend, after the
            // label it was found by (which may be another language's).
            let label = self.told_apart_as(&h.term, &h.label).unwrap_or(h.label);
            // The pyramid path comes finest first; the map opens it from the top.
            let path = h
                .path
                .unwrap_or_default()
                .iter()
                .enumerate()
                .rev()
                .map(|(level, c)| {
                    NodeKey::Community {
                        level: u32::try_from(level).unwrap_or(u32::MAX),
                        id: *c,
                    }
                    .to_string()
                })
                .collect();
            hits.push(SearchHit {
                rank: h.rank,
                id,
                nt: h.term,
                kind: match h.kind {
                    Kind::Entity => HitKind::Entity,
                    Kind::Class => HitKind::Class,
                    Kind::Predicate => HitKind::Predicate,
                },
                label,
                lang: h.lang,
                class: h.class,
                class_label,
                path,
            });
        }
        Ok(SearchView {
            hits,
            indexed: answer.indexed,
            outdated: searcher
                .index()
                .is_some_and(rete_search::Index::is_outdated),
        })
    }
}
