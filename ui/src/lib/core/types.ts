// Mirrors of the Rust DTOs in crates/rete-explore/src/model.rs (serde field names).

export interface TermView { id: number; nt: string; label: string; kind: 'iri' | 'bnode' | 'literal' }
export interface Counted { nt: string; label: string; count: number }

export interface DocInfo {
  doc: number; source: string; name: string; bytes: number;
  quads: number; terms: number; subjects: number; predicates: number; objects: number; graphs: number;
  classes: Counted[]; top_predicates: Counted[];
  has_pyramid: boolean; has_schema: boolean; levels: number; remote: boolean;
  built_by: string; materialized: boolean;
}

export type NodeKind = 'community' | 'class' | 'entity';

export interface MapNode {
  key: string; kind: NodeKind; label: string; size: number; class: string | null;
  x: number | null; y: number | null; r: number | null;
  expandable: boolean; level: number | null; id: number; classes: Counted[];
}
export interface MapEdge { source: string; target: string; weight: number; label: string }
export interface MapView {
  kind: 'pyramid' | 'classes' | 'members' | 'neighbourhood' | 'children' | 'query-graph';
  nodes: MapNode[]; edges: MapEdge[]; note: string; truncated: boolean;
}

export interface Link { predicate: TermView; other: TermView }
export interface EntityDetails {
  term: TermView; types: TermView[]; properties: Link[]; out_links: Link[]; in_links: Link[];
  out_total: number; in_total: number;
}
export interface GroupLink { key: string; label: string; weight: number; predicates: string }
export interface GroupDetails {
  key: string; label: string; size: number; level: number | null; classes: Counted[]; top_predicates: Counted[];
  sample: TermView[]; children: Counted[]; links: GroupLink[];
}
export interface Located { nt: string; id: number | null; keys: string[] }

export interface LegendClass { nt: string; label: string; parents: number[]; depth: number; direct: number; total: number }
export interface LegendRelation { domain: string; predicate: Counted; range: string }
export interface Legend { source: 'schema' | 'card'; classes: LegendClass[]; relations: LegendRelation[]; note: string }

export interface ReadView {
  bytes: number; requests: number; remote: boolean;
  /** A remote file's byte budget (null: none); `fetched` is what it has counted so far. */
  budget?: number | null; fetched?: number;
}

export interface Vocab { iri: string; label: string; count: number }
export interface QueryExample { title: string; query: string }
export interface SparqlContext { prefixes: [string, string][]; classes: Vocab[]; predicates: Vocab[]; examples: QueryExample[] }
export interface QueryError { message: string; line: number; column: number }
export type Cell = TermView | null;
export interface QueryOutcome {
  run: number; status: 'ok' | 'error' | 'cancelled' | 'timeout'; kind: 'select' | 'ask' | 'graph';
  columns: string[]; total: number; rows: Cell[][]; boolean: boolean | null; graph: MapView | null;
  truncated: boolean; elapsed_ms: number; error: QueryError | null; read: ReadView;
}
export interface CostEstimate {
  bytes: number; requests: number; blocks: number; patterns: number; absent: number; partial: boolean; error: QueryError | null;
}

export interface Step { text: string; triple: [string, string, string] | null; graphs: string[]; default_graph: boolean }
export interface Finding {
  kind: string; severity: 'error' | 'warning' | 'info'; message: string; classes: string[]; entities: string[]; explanation: Step[];
}
export interface Phase { tier: number; bytes_read: number; requests: number; elapsed_ms: number; findings: number }
export interface CoherenceReport {
  tier: number; findings: Finding[]; bytes_read: number; requests: number; elapsed_ms: number; phases: Phase[];
  schema_source: string; classes: number; measured: boolean;
  /** `[prefix, namespace]` pairs the texts use. */
  prefixes: [string, string][];
  groups: CoherenceGroups;
  inputs: string[];
}
/** A root cause: indices into `findings`. */
export interface RootCause { roots: number[]; classes: string[]; derived: number[]; derived_classes: string[]; instances: number[] }
export interface ClashGroup { findings: number[]; classes: string[] }
export interface CoherenceGroups { roots: number; derived: number; instance_findings: number; causes: RootCause[]; clashes: ClashGroup[] }
export interface CoherenceProgress { run: number; tier: number; report: CoherenceReport }
export interface CoherenceOutcome { run: number; status: 'ok' | 'cancelled'; report: CoherenceReport | null }

/** A build of an RDF file into a .rete (crates/rete-explore/src/import.rs). */
export interface ImportView {
  job: number; source: string; name: string;
  status: 'running' | 'built' | 'cached' | 'cancelled' | 'failed';
  phase: string; done: number; total: number | null; triples: number; read_bytes: number; source_bytes: number;
  elapsed_ms: number; phases: [string, number][]; error: string | null;
}
/** The build cache (crates/rete-explore/src/cache.rs). */
export interface CacheStats { dir: string; files: number; bytes: number; limit: number }
