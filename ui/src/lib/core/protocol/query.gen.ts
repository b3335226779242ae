// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// The protocol's types of SPARQL: the editor's context, a query's cost, status and answer.
import type { TermView, ReadView } from './document.gen';
import type { MapView } from './map.gen';

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
