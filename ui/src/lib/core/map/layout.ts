// Client-side layout for views the engine does not place (an entity's neighbourhood):
// ForceAtlas2 on the small subgraph, then fitted into a circle so it sits on the map like a group.
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import type { MapEdge, MapNode } from '../types';

/** Positions for `nodes` inside the circle (cx, cy, R); `centre` (if given) stays in the middle. */
export function layoutInCircle(
  nodes: MapNode[], edges: MapEdge[], cx: number, cy: number, R: number, centre?: string,
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
