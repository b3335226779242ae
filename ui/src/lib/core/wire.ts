// A map view as the app sends it (crates/rete-explore/src/wire.rs): columns, a table of strings, links by
// node index. Turned back into the objects the map works with; wire.fixture.json is the contract
// both sides test against.
import type { Counted, MapEdge, MapNode, MapView, NodeKind } from './types';

const KINDS: NodeKind[] = ['community', 'class', 'entity'];

export interface WireView {
  kind: MapView['kind']; note: string; truncated: boolean; strings: string[];
  nodes: {
    key: string[]; kind: number[]; label: string[]; size: number[]; class: (number | null)[];
    x: (number | null)[]; y: (number | null)[]; r: (number | null)[]; expandable: number[];
    level: (number | null)[]; id: number[]; classes: Counted[][];
  };
  /** A link's end: a node's index in this view, or the key of a node already on the map. */
  edges: { source: (number | string)[]; target: (number | string)[]; weight: number[]; label: number[] };
}

export function decodeView(w: WireView): MapView {
  const c = w.nodes, s = w.strings;
  const nodes: MapNode[] = new Array(c.key.length);
  for (let i = 0; i < nodes.length; i++) {
    const cls = c.class[i];
    nodes[i] = {
      key: c.key[i], kind: KINDS[c.kind[i]] ?? 'entity', label: c.label[i], size: c.size[i],
      class: cls === null ? null : s[cls], x: c.x[i], y: c.y[i], r: c.r[i],
      expandable: c.expandable[i] === 1, level: c.level[i], id: c.id[i], classes: c.classes[i],
    };
  }
  const e = w.edges;
  const end = (v: number | string) => (typeof v === 'number' ? c.key[v] : v);
  const edges: MapEdge[] = new Array(e.source.length);
  for (let i = 0; i < edges.length; i++) {
    edges[i] = { source: end(e.source[i]), target: end(e.target[i]), weight: e.weight[i], label: s[e.label[i]] };
  }
  return { kind: w.kind, note: w.note, truncated: w.truncated, nodes, edges };
}
