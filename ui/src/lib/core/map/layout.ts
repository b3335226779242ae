// Client-side layout for views the engine does not place (an entity's neighbourhood, a query's
// result graph): ForceAtlas2 on the small subgraph, then fitted into a circle so it sits on the map
// like a group. `layout` runs it on a worker (layout.worker.ts): up to 2,000 triples would hold
// the UI thread for a frame or more; without workers (unit tests) it runs here.
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import type { MapEdge, MapNode } from '../types';

/** Positions for `nodes` inside the circle (cx, cy, R); `centre` (if given) stays in the middle. */
export function layoutInCircle(
  nodes: Pick<MapNode, 'key'>[], edges: Pick<MapEdge, 'source' | 'target' | 'weight'>[],
  cx: number, cy: number, R: number, centre?: string,
): Map<string, { x: number; y: number }> {
  const g = new Graph({ type: 'undirected', multi: false });
  const n = nodes.length;
  nodes.forEach((node, i) => {
    const a = (2 * Math.PI * i) / Math.max(n, 1);
    g.addNode(node.key, { x: node.key === centre ? 0 : Math.cos(a) * 100, y: node.key === centre ? 0 : Math.sin(a) * 100 });
  });
  for (const e of edges) {
    if (e.source !== e.target && g.hasNode(e.source) && g.hasNode(e.target) && !g.hasEdge(e.source, e.target)) {
      g.addEdge(e.source, e.target, { weight: e.weight });
    }
  }
  // Small graphs (a neighbourhood is at most ~150 nodes) lay out synchronously in milliseconds.
  if (n > 2) forceAtlas2.assign(g, { iterations: 200, settings: { ...forceAtlas2.inferSettings(g), gravity: 1, scalingRatio: 10 } });
  const ox = centre && g.hasNode(centre) ? g.getNodeAttribute(centre, 'x') : 0;
  const oy = centre && g.hasNode(centre) ? g.getNodeAttribute(centre, 'y') : 0;
  let far = 0;
  g.forEachNode((_, a) => { far = Math.max(far, Math.hypot(a.x - ox, a.y - oy)); });
  const k = far > 0 ? (R * 0.9) / far : 0;
  const out = new Map<string, { x: number; y: number }>();
  g.forEachNode((key, a) => out.set(key, { x: cx + (a.x - ox) * k, y: cy + (a.y - oy) * k }));
  return out;
}

/** Positions as they cross from the worker: key, x, y. */
export type Placed = [string, number, number][];

/** What the worker is asked: `layoutInCircle`'s arguments. */
export interface LayoutRequest {
  id: number;
  nodes: Pick<MapNode, 'key'>[];
  edges: Pick<MapEdge, 'source' | 'target' | 'weight'>[];
  cx: number; cy: number; R: number;
  centre?: string;
}

let worker: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, (placed: Placed) => void>();

function layoutWorker(): Worker | null {
  if (typeof Worker === 'undefined') return null;
  if (!worker) {
    worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<{ id: number; placed: Placed }>) => {
      waiting.get(e.data.id)?.(e.data.placed);
      waiting.delete(e.data.id);
    };
  }
  return worker;
}

/** `layoutInCircle` off the UI thread (on the layout worker when the page has workers). */
export async function layout(
  nodes: MapNode[], edges: MapEdge[], cx: number, cy: number, R: number, centre?: string,
): Promise<Map<string, { x: number; y: number }>> {
  const w = layoutWorker();
  if (!w) return layoutInCircle(nodes, edges, cx, cy, R, centre);
  const id = ++nextId;
  // Only what the layout reads, as plain objects (a Svelte state proxy cannot cross).
  const req: LayoutRequest = {
    id, cx, cy, R, centre,
    nodes: nodes.map((n) => ({ key: n.key })),
    edges: edges.map((e) => ({ source: e.source, target: e.target, weight: e.weight })),
  };
  const placed = await new Promise<Placed>((resolve) => {
    waiting.set(id, resolve);
    w.postMessage(req);
  });
  return new Map(placed.map(([k, x, y]) => [k, { x, y }]));
}
