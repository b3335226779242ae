// The protocol's types: generated from the Rust types of crates/rete-explore into
// protocol.gen.ts (a Rust test fails when they drift apart), and re-exported here. The coherence
// report is rete-coherence's, written out by hand below.
export type {
  CacheStats, CoherenceOutcome, CoherenceProgress, CostEstimate, Counted, DocInfo, DocMemory, EntityDetails,
  ErrorKind, GroupDetails, GroupLink, HitKind, ImportStatus, ImportView, Legend, LegendClass, LegendRelation, LegendSource,
  Link, Located, MapEdge, MapNode, MapView, MemoryView, NodeKind, PathLinkView, PathStepView, PathView, PathsView, QueryError, QueryExample, QueryKind, QueryOutcome,
  QueryStatus, ReadView, RunStatus, SearchHit, SearchView, SpreadView, CommunityCount, SparqlContext, TermKind, TermView, ViewKind, Vocab,
  Camera, SavedView, OpenedView, ShapesGroup, ShapesOutcome, ShapesProgress, PathFilters,
} from './protocol.gen';
import type { TermView } from './protocol.gen';

export type Cell = TermView | null;

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
