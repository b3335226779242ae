// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// The protocol's types of an open document: what it is, what it holds in memory, how it was imported.

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
