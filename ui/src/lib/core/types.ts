// Mirrors of the Rust DTOs in src-tauri/src/model.rs (serde field names).

export interface TermView { id: number; nt: string; label: string; kind: 'iri' | 'bnode' | 'literal' }
export interface Counted { nt: string; label: string; count: number }

export interface DocInfo {
  doc: number; source: string; name: string; bytes: number;
  quads: number; terms: number; subjects: number; predicates: number; objects: number; graphs: number;
  classes: Counted[]; top_predicates: Counted[];
  has_pyramid: boolean; has_schema: boolean; levels: number;
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
  kind: 'pyramid' | 'classes' | 'members' | 'neighbourhood' | 'children';
  nodes: MapNode[]; edges: MapEdge[]; note: string; truncated: boolean;
}

export interface Link { predicate: TermView; other: TermView }
export interface EntityDetails {
  term: TermView; types: TermView[]; properties: Link[]; out_links: Link[]; in_links: Link[];
  out_total: number; in_total: number;
}
export interface GroupDetails {
  key: string; label: string; size: number; classes: Counted[]; top_predicates: Counted[]; sample: TermView[];
}

export interface LegendClass { nt: string; label: string; parents: number[]; depth: number; direct: number; total: number }
export interface LegendRelation { domain: string; predicate: Counted; range: string }
export interface Legend { source: 'schema' | 'card'; classes: LegendClass[]; relations: LegendRelation[]; note: string }
