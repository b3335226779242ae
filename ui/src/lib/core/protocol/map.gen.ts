// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// The protocol's types of the map: its views, nodes and links, and the details and legend beside it.
import type { TermView, Counted } from './document.gen';

export type NodeKind = "community" | "class" | "entity";
export type MapNode = { 
/**
 * Unique key on the map: `c<level>:<id>` for communities, `k:<class id>` for class groups,
 * `e:<term id>` for entities.
 */
key: string, 
/**
 * What the node stands for.
 */
kind: NodeKind, 
/**
 * Display label.
 */
label: string, 
/**
 * Members (communities, classes) or 1 (entities).
 */
size: number, 
/**
 * Class used for colour (N-Triples), if any.
 */
class: string | null, 
/**
 * Position in layout coordinates; `None` when the UI must lay the node out.
 */
x: number | null, 
/**
 * See `x`.
 */
y: number | null, 
/**
 * Radius in layout coordinates (communities); children lie inside it.
 */
r: number | null, 
/**
 * Whether zooming into the node can expand it.
 */
expandable: boolean, 
/**
 * Pyramid level (communities), otherwise `None`.
 */
level: number | null, 
/**
 * Community id (communities), class term id (class groups) or term id (entities).
 */
id: number, 
/**
 * Class breakdown (communities, top 8).
 */
classes: Array<Counted>, };
export type MapEdge = { 
/**
 * Key of the source node.
 */
source: string, 
/**
 * Key of the target node.
 */
target: string, 
/**
 * Number of triples it stands for.
 */
weight: number, 
/**
 * Label: the predicate, or the main predicates of a super-edge.
 */
label: string, };
export type ViewKind = "pyramid" | "classes" | "members" | "neighbourhood" | "children" | "query-graph";
export type MapView = { 
/**
 * What the view shows.
 */
kind: ViewKind, 
/**
 * Nodes.
 */
nodes: Array<MapNode>, 
/**
 * Edges among them.
 */
edges: Array<MapEdge>, 
/**
 * Explains what the view is, e.g. that it was computed from a sample.
 */
note: string, 
/**
 * Whether limits cut the view short.
 */
truncated: boolean, };
export type Link = { 
/**
 * The predicate.
 */
predicate: TermView, 
/**
 * The other end: the object of an outgoing triple or the subject of an incoming one.
 */
other: TermView, };
export type EntityDetails = { 
/**
 * The entity.
 */
term: TermView, 
/**
 * Its `rdf:type`s.
 */
types: Array<TermView>, 
/**
 * Outgoing triples whose object is a literal.
 */
properties: Array<Link>, 
/**
 * Outgoing triples whose object is an IRI or blank node.
 */
out_links: Array<Link>, 
/**
 * Incoming triples.
 */
in_links: Array<Link>, 
/**
 * Total outgoing triples (may exceed what is listed).
 */
out_total: number, 
/**
 * Total incoming triples.
 */
in_total: number, };
export type GroupLink = { 
/**
 * Map key of the other community.
 */
key: string, 
/**
 * Its label.
 */
label: string, 
/**
 * Triples between the two.
 */
weight: number, 
/**
 * Main predicates of those triples.
 */
predicates: string, };
export type Located = { 
/**
 * The term (N-Triples) as asked.
 */
nt: string, 
/**
 * Its dictionary id, if the file has it.
 */
id: number | null, 
/**
 * Map keys from the coarsest group down to the entity (`c<level>:<id>`…, `e:<id>`).
 */
keys: Array<string>, };
export type GroupDetails = { 
/**
 * Key on the map.
 */
key: string, 
/**
 * Label.
 */
label: string, 
/**
 * Members.
 */
size: number, 
/**
 * Pyramid level (communities).
 */
level: number | null, 
/**
 * Largest sub-communities (`nt` holds their map key).
 */
children: Array<Counted>, 
/**
 * Strongest super-edges to other communities.
 */
links: Array<GroupLink>, 
/**
 * Class breakdown.
 */
classes: Array<Counted>, 
/**
 * Main predicates of the edges leaving or entering the group.
 */
top_predicates: Array<Counted>, 
/**
 * A few members (first ones).
 */
sample: Array<TermView>, };
export type LegendClass = { 
/**
 * The class IRI in N-Triples syntax.
 */
nt: string, 
/**
 * Label.
 */
label: string, 
/**
 * Index of the parent entries in `Legend::classes` (a class tree).
 */
parents: Array<number>, 
/**
 * Depth in the tree.
 */
depth: number, 
/**
 * Direct instances.
 */
direct: number, 
/**
 * Instances including subclasses'.
 */
total: number, };
export type LegendRelation = { 
/**
 * Domain class (N-Triples).
 */
domain: string, 
/**
 * Predicate.
 */
predicate: Counted, 
/**
 * Range class (N-Triples).
 */
range: string, };
export type LegendSource = "schema" | "card";
export type Legend = { 
/**
 * Where the legend comes from.
 */
source: LegendSource, 
/**
 * Classes, most instances first.
 */
classes: Array<LegendClass>, 
/**
 * Relations, most used first.
 */
relations: Array<LegendRelation>, 
/**
 * Explains where the relations come from.
 */
note: string, };
