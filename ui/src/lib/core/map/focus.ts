// The focus layer: the selected and the hovered node, with their links and the links' predicates,
// drawn by the map view on sigma's edge-label canvas (another canvas would be one more full-size
// layer to composite), after each sigma frame and on a selection change. Restyling them through
// sigma's reducers made sigma redraw every layer: with a members view open (~7,500 nodes and
// ~21,000 links) one such frame in software GL was most of a details click.
import type Graph from 'graphology';
import type { EdgeAttrs, NodeAttrs } from './map.svelte';

/** Where a node is drawn (viewport pixels) and its drawn radius; undefined when it is not. */
export interface Drawn { x: number; y: number; size: number; hidden?: boolean }

export interface FocusLine { x1: number; y1: number; x2: number; y2: number; width: number; label: string }
export interface FocusRing { key: string; x: number; y: number; size: number; label: string }

export interface FocusScene { lines: FocusLine[]; rings: FocusRing[] }

/** Links drawn per focused node at most (a top community may have hundreds of super-edges). */
export const MAX_FOCUS_LINKS = 400;

/**
 * What the focus layer draws for the nodes `keys` (selected, hovered; null or absent ones are
 * skipped): a ring and the label of each, and each of their links not hidden on the map, `width`
 * giving a link's drawn width from its size.
 */
export function focusScene(
  graph: Graph<NodeAttrs, EdgeAttrs>,
  keys: readonly (string | null)[],
  at: (key: string) => Drawn | undefined,
  width: (size: number) => number,
  edgeHidden: (edge: string) => boolean = () => false,
): FocusScene {
  const lines: FocusLine[] = [];
  const rings: FocusRing[] = [];
  const done = new Set<string>();
  const edges = new Set<string>();
  for (const key of keys) {
    if (!key || done.has(key) || !graph.hasNode(key)) continue;
    done.add(key);
    const p = at(key);
    if (!p || p.hidden) continue;
    rings.push({ key, x: p.x, y: p.y, size: p.size, label: graph.getNodeAttribute(key, 'label') });
    let n = 0;
    graph.forEachEdge(key, (e, a, s, t) => {
      if (n >= MAX_FOCUS_LINKS || edges.has(e) || edgeHidden(e)) return;
      const q = at(s === key ? t : s);
      if (!q || q.hidden) return;
      edges.add(e);
      n++;
      const [from, to] = s === key ? [p, q] : [q, p];
      lines.push({ x1: from.x, y1: from.y, x2: to.x, y2: to.y, width: width(a.size), label: a.predicate });
    });
  }
  return { lines, rings };
}
