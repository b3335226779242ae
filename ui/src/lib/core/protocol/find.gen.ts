// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// The protocol's types of search hits and the paths between two entities.
import type { TermView } from './document.gen';

export type HitKind = "entity" | "class" | "predicate";
export type SearchHit = { 
/**
 * 1 for the best.
 */
rank: number, 
/**
 * Its term id in the file (0: not in the dictionary).
 */
id: number, 
/**
 * The term in N-Triples syntax.
 */
nt: string, 
/**
 * What it is.
 */
kind: HitKind, 
/**
 * The label that matched.
 */
label: string, 
/**
 * The label's language, if it has one.
 */
lang: string | null, 
/**
 * Its most specific class (N-Triples), for the legend's colour.
 */
class: string | null, 
/**
 * That class, shortened.
 */
class_label: string | null, 
/**
 * The communities holding it, top level first (map keys); empty when it is not on the map.
 */
path: Array<string>, };
export type SearchView = { 
/**
 * Hits, best first.
 */
hits: Array<SearchHit>, 
/**
 * Whether the file's search index answered (`false`: its labels were scanned, slower).
 */
indexed: boolean, 
/**
 * Whether the index is of an older layout (slower than the current one, which adding the
 * index again writes).
 */
outdated: boolean, };
export type CommunityCount = { 
/**
 * The community's map key (`c<level>:<id>`).
 */
key: string, 
/**
 * Matched entities in it.
 */
count: number, };
export type SpreadView = { 
/**
 * The text searched.
 */
text: string, 
/**
 * Entities matched.
 */
entities: number, 
/**
 * Of them, those in the pyramid (the map's communities hold them).
 */
placed: number, 
/**
 * Classes and predicates matched (the legend and the schema hold them).
 */
schema_terms: number, 
/**
 * Every community holding matches, on every level, top level first, then most matches
 * first.
 */
communities: Array<CommunityCount>, 
/**
 * The matched entities' map keys (`e:<id>`), when at most [`crate::engine::MAX_SPREAD_KEYS`]
 * (else empty: the communities still show where they are).
 */
entity_keys: Array<string>, 
/**
 * Whether the counts are exact (`false`: a word so common that only its most important
 * labels were read: the counts are lower bounds).
 */
complete: boolean, };
export type PathLinkView = { 
/**
 * The predicate.
 */
predicate: TermView, 
/**
 * `true`: the step's first entity is the link's subject; `false`: its object.
 */
forward: boolean, };
export type PathStepView = { 
/**
 * The links (at least one).
 */
links: Array<PathLinkView>, 
/**
 * Links between the same two entities left out.
 */
more_links: number, };
export type PathView = { 
/**
 * Links along it.
 */
hops: number, 
/**
 * The entities along it, both ends included.
 */
nodes: Array<TermView>, 
/**
 * `steps[i]` joins `nodes[i]` and `nodes[i + 1]`.
 */
steps: Array<PathStepView>, };
export type PathsView = { 
/**
 * The paths, shortest first.
 */
paths: Array<PathView>, 
/**
 * Why the search ended: `found`, `exhausted`, `hop_limit`, `visited_limit`, `deadline` or
 * `cancelled`.
 */
stop: string, 
/**
 * The same for people ("no other path within 6 hops").
 */
reason: string, 
/**
 * Wall time of the search.
 */
elapsed_ms: number, };
export type PathFilters = { 
/**
 * Only links with these predicates (N-Triples IRIs), when not empty.
 */
via: Array<string>, 
/**
 * Never links with these predicates (N-Triples IRIs).
 */
without: Array<string>, 
/**
 * Also follow schema links (`rdf:type`, `rdfs:subClassOf`, …), left out by default.
 */
include_schema: boolean, 
/**
 * Never pass through entities with more links than this (the two ends are exempt).
 */
max_degree: number | null, };
