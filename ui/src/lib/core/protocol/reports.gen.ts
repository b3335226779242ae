// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// The protocol's types of the coherence and shapes reports: their progress and outcome.
import type { CoherenceReport } from '../types';

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
 * The shapes' SHACL-AF rules (`sh:rule`), which infer triples and were not run: the data
 * was validated as given.
 */
rules_not_run: number, 
/**
 * Time taken.
 */
elapsed_ms: number, };
