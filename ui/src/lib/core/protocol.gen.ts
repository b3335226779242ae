// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// One file, one subject (in place of one algorithm: it holds no code): the app's command
// protocol as TypeScript types, ts-rs's translation of each Rust type the shell and the
// page exchange. Its length is the protocol's size. It stays one file because it is
// generated, written and compared with the Rust types as one unit: split by domain, each
// part would need imports of the others' types that the generator does not track. The
// code using these types lives in core/<domain>.
import type { CoherenceReport } from './types';

export type ErrorKind = "file" | "not_open" | "invalid" | "cancelled";
export type TermKind = "iri" | "bnode" | "literal";
export type TermView = { 
/**
 * Dictionary id within the open document (0 for literals that are not looked up by id).
 */
id: number, 
/**
 * The term in N-Triples syntax.
 */
nt: string, 
/**
 * A short human label: `rdfs:label`-like literal, prefixed name or local name.
 */
label: string, 
/**
 * What the term is.
 */
kind: TermKind, };
export type Counted = { 
/**
 * The term in N-Triples syntax.
 */
nt: string, 
/**
 * Short label.
 */
label: string, 
/**
 * Count.
 */
count: number, };
export type DocInfo = { 
/**
 * Handle to pass back to the other commands.
 */
doc: number, 
/**
 * Path or URL it was opened from.
 */
source: string, 
/**
 * File name (last path segment).
 */
name: string, 
/**
 * Size in bytes.
 */
bytes: number, 
/**
 * Distinct quads.
 */
quads: number, 
/**
 * Dictionary terms.
 */
terms: number, 
/**
 * Distinct subjects / predicates / objects.
 */
subjects: number, 
/**
 * Distinct predicates.
 */
predicates: number, 
/**
 * Distinct objects.
 */
objects: number, 
/**
 * Named graphs.
 */
graphs: number, 
/**
 * Classes by instance count (the card's list).
 */
classes: Array<Counted>, 
/**
 * Predicates by use count (the card's list, first 50).
 */
top_predicates: Array<Counted>, 
/**
 * Whether the file carries a community pyramid.
 */
has_pyramid: boolean, 
/**
 * Whether the file carries a schema block.
 */
has_schema: boolean, 
/**
 * Number of pyramid levels (0 without a pyramid).
 */
levels: number, 
/**
 * Whether the file is read over HTTP (range requests).
 */
remote: boolean, 
/**
 * Tool and version that built the file.
 */
built_by: string, 
/**
 * Whether RDFS/OWL-RL materialization was applied at build time.
 */
materialized: boolean, };
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
export type Vocab = { 
/**
 * The IRI.
 */
iri: string, 
/**
 * Label or short name.
 */
label: string, 
/**
 * Instances (classes) or triples (predicates).
 */
count: number, };
export type QueryExample = { 
/**
 * What it shows.
 */
title: string, 
/**
 * The query (it may use the file's prefixes without declaring them).
 */
query: string, };
export type SparqlContext = { 
/**
 * Prefix → namespace: the file's (card, schema) and a few well-known ones.
 */
prefixes: Array<[string, string]>, 
/**
 * Classes with instance counts.
 */
classes: Array<Vocab>, 
/**
 * Predicates with triple counts.
 */
predicates: Array<Vocab>, 
/**
 * Example queries built from the card.
 */
examples: Array<QueryExample>, };
export type QueryError = { 
/**
 * The engine's message.
 */
message: string, 
/**
 * Line of a syntax error.
 */
line: number, 
/**
 * Column of a syntax error.
 */
column: number, };
export type MemoryView = { 
/**
 * Each open document's caches, by handle.
 */
docs: Array<DocMemory>, 
/**
 * Query results kept for paging and export.
 */
kept_results: number, 
/**
 * The most results kept.
 */
max_kept_results: number, 
/**
 * Bytes of the kept results' rows together.
 */
kept_result_bytes: number, 
/**
 * The most bytes kept together (the newest result is kept whatever its size).
 */
max_kept_result_bytes: number, };
export type DocMemory = { 
/**
 * The document's handle.
 */
doc: number, 
/**
 * Decoded blocks (dictionary and permutations) in the file's block cache.
 */
blocks: number, 
/**
 * Their weight as the cache counts it (bytes).
 */
block_bytes: number, 
/**
 * The block cache's bound in bytes.
 */
max_block_bytes: number, 
/**
 * Block directory entries loaded (bytes): at most the file's directories.
 */
directory_bytes: number, 
/**
 * A remote file's fetched ranges held (bytes; 0 for a local file).
 */
range_bytes: number, 
/**
 * The range cache's bound in bytes (0 for a local file).
 */
max_range_bytes: number, 
/**
 * Decoded pyramid blocks (communities, super-edges, members) held.
 */
pyramid_blocks: number, 
/**
 * Their bytes.
 */
pyramid_bytes: number, 
/**
 * The most pyramid blocks held.
 */
max_pyramid_blocks: number, 
/**
 * Communities and super-edges kept for the details panel.
 */
seen_items: number, 
/**
 * About what they take in memory (bytes).
 */
seen_bytes: number, 
/**
 * The most kept before they are dropped.
 */
max_seen_items: number, };
export type ReadView = { 
/**
 * Bytes read.
 */
bytes: number, 
/**
 * Read requests (HTTP requests for a remote file).
 */
requests: number, 
/**
 * Whether the file is read over HTTP.
 */
remote: boolean, 
/**
 * A remote file's byte budget: fetching beyond it fails until the user agrees to more.
 */
budget: number | null, 
/**
 * Bytes fetched since the file was opened (what the budget counts).
 */
fetched: number, };
export type QueryStatus = "ok" | "error" | "cancelled" | "timeout";
export type QueryKind = "select" | "ask" | "graph";
export type QueryOutcome = { 
/**
 * The run's handle (for pages and export).
 */
run: number, 
/**
 * How it ended.
 */
status: QueryStatus, 
/**
 * What it answers with.
 */
kind: QueryKind, 
/**
 * Column names.
 */
columns: Array<string>, 
/**
 * Rows in the result.
 */
total: number, 
/**
 * The first rows.
 */
rows: Array<Array<TermView | null>>, 
/**
 * ASK answer.
 */
boolean: boolean | null, 
/**
 * A CONSTRUCT/DESCRIBE result as a graph to draw.
 */
graph: MapView | null, 
/**
 * Whether the result was cut at the row limit.
 */
truncated: boolean, 
/**
 * Evaluation time.
 */
elapsed_ms: number, 
/**
 * The error, for `error`.
 */
error: QueryError | null, 
/**
 * What the query read.
 */
read: ReadView, 
/**
 * Why an empty answer is empty when the default graph is to blame (the file's data is in
 * named graphs), and what to do about it.
 */
hint: string | null, };
export type CostEstimate = { 
/**
 * Bytes to fetch.
 */
bytes: number, 
/**
 * Requests to make.
 */
requests: number, 
/**
 * Permutation blocks to decode.
 */
blocks: number, 
/**
 * Triple patterns (and path steps) counted.
 */
patterns: number, 
/**
 * Patterns with a constant the file does not have (they cost nothing).
 */
absent: number, 
/**
 * Whether part of the query (complex property paths, DESCRIBE) was bounded coarsely.
 */
partial: boolean, 
/**
 * The syntax error, if the query does not parse.
 */
error: QueryError | null, };
export type RunStatus = "ok" | "cancelled";
export type CoherenceProgress = { 
/**
 * Run handle.
 */
run: number, 
/**
 * The tier that just finished.
 */
tier: number, 
/**
 * Its report (findings of this tier and the ones below).
 */
report: CoherenceReport, };
export type CoherenceOutcome = { 
/**
 * Run handle.
 */
run: number, 
/**
 * How it ended.
 */
status: RunStatus, 
/**
 * The report of the last tier that finished.
 */
report: CoherenceReport | null, };
export type ShapesGroup = { 
/**
 * The source shape (N-Triples form: `<iri>` or `_:b`).
 */
shape: string, 
/**
 * The constraint component's IRI.
 */
component: string, 
/**
 * The severity's IRI.
 */
severity: string, 
/**
 * The result path (SPARQL path syntax), when the shape has one.
 */
path: string | null, 
/**
 * Number of results.
 */
count: number, 
/**
 * Number of distinct focus nodes.
 */
focus_count: number, 
/**
 * The first focus nodes (N-Triples form), in first-seen order.
 */
focus_nodes: Array<string>, 
/**
 * The first distinct messages.
 */
messages: Array<string>, };
export type ShapesProgress = { 
/**
 * Run handle.
 */
run: number, 
/**
 * Shapes with targets validated so far.
 */
shapes_done: number, 
/**
 * Shapes with targets in all.
 */
shapes_total: number, 
/**
 * Focus nodes validated so far (all shapes).
 */
focus_nodes_done: number, 
/**
 * Focus nodes of the shape being validated.
 */
shape_focus_nodes: number, 
/**
 * How many of those are done.
 */
shape_focus_nodes_done: number, 
/**
 * Results so far.
 */
results: number, };
export type ShapesOutcome = { 
/**
 * Run handle.
 */
run: number, 
/**
 * How it ended.
 */
status: RunStatus, 
/**
 * Where the shapes came from: the shapes file, or the dataset.
 */
source: string, 
/**
 * Whether the data conforms (none when cancelled).
 */
conforms: boolean | null, 
/**
 * Number of results.
 */
results: number, 
/**
 * Results grouped by shape and constraint component, most results first.
 */
groups: Array<ShapesGroup>, 
/**
 * Time taken.
 */
elapsed_ms: number, };
export type ImportStatus = "running" | "built" | "cached" | "cancelled" | "failed";
export type ImportView = { 
/**
 * Build number (pass it to `import_cancel`).
 */
job: number, 
/**
 * The source path (or URL).
 */
source: string, 
/**
 * Its file name.
 */
name: string, 
/**
 * Where the build stands.
 */
status: ImportStatus, 
/**
 * The current phase: `parse`, `dictionary`, `sort`, `permutations`, `pyramid`, `schema`,
 * `write` (or `open` once built).
 */
phase: string, 
/**
 * Work done in the phase.
 */
done: number, 
/**
 * Work of the phase, if known (for `parse`: the input's bytes).
 */
total: number | null, 
/**
 * Triples (quads) parsed so far.
 */
triples: number, 
/**
 * Bytes of the source the parser has read so far (compare with `total` in `parse`).
 */
read_bytes: number, 
/**
 * Size of the source file.
 */
source_bytes: number, 
/**
 * Time since the build began.
 */
elapsed_ms: number, 
/**
 * Finished phases with their time in milliseconds, in order.
 */
phases: Array<[string, number]>, 
/**
 * Why it failed (`failed` only).
 */
error: string | null, };
export type CacheStats = { 
/**
 * The cache folder.
 */
dir: string, 
/**
 * Built files.
 */
files: number, 
/**
 * Their total size.
 */
bytes: number, 
/**
 * The size limit.
 */
limit: number, };
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
 * Whether the index is of an older layout (larger and slower than the current one, which
 * adding the index again writes).
 */
outdated: boolean, };
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
export type Camera = { 
/**
 * The centre, across (0..1 of the frame).
 */
x: number, 
/**
 * The centre, down (0..1 of the frame).
 */
y: number, 
/**
 * The zoom ratio (1: the whole frame; smaller: closer).
 */
ratio: number, };
export type SavedView = { 
/**
 * Always [`VIEW_FORMAT`].
 */
format: string, 
/**
 * [`VIEW_VERSION`] when written by this build.
 */
version: number, 
/**
 * The file's path or URL.
 */
source: string, 
/**
 * The map's camera (sigma's state: the frame's centre in 0..1 and the zoom ratio).
 */
camera: Camera, 
/**
 * The groups opened, outermost first (map keys such as `c2:40`).
 */
open: Array<string>, 
/**
 * The selected map node (`e:12`, `c1:3`), if any.
 */
selected: string | null, 
/**
 * The class highlighted from the legend (N-Triples), if any.
 */
class: string | null, 
/**
 * The query pane's text, if the pane was open.
 */
query: string | null, 
/**
 * The query's default graph is the union of all graphs.
 */
allGraphs: boolean | null, 
/**
 * The coherence report's selected row: `cause:K` (a root cause) or `finding:I` (a finding),
 * indices into the report, which is the same for the same file.
 */
finding: string | null, };
export type OpenedView = { 
/**
 * The document, open.
 */
doc: DocInfo, 
/**
 * The view to restore on it.
 */
view: SavedView, };
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
