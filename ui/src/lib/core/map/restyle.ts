// Which of the map's nodes and links a change of the highlight restyles. Restyling runs sigma's
// reducers: over a whole map of 10 k nodes and 20 k links that took 60–150 ms in software GL, while
// one query's results replacing another's change a few dozen nodes.
import type Graph from 'graphology';

/** How a node was last styled: lit (`true`), dimmed (`false`) or with no highlight (`null`). */
export type Lit = boolean | null;

/**
 * What to restyle now that `lit` gives each node's state, against `styled`, the state each node
 * was last drawn with: `'all'` when a highlight comes or goes (every node changes) or a node on
 * the map was never styled; else the nodes whose state changed and the links touching them (a
 * link hides when both its ends are dimmed).
 */
export function restyleSet(
  graph: Graph,
  styled: ReadonlyMap<string, Lit>,
  lit: (key: string) => Lit,
): 'all' | { nodes: string[]; edges: string[] } {
  const nodes: string[] = [];
  let all = false;
  graph.forEachNode((k) => {
    if (all) return;
    const was = styled.get(k);
    const now = lit(k);
    if (was === undefined || (was === null) !== (now === null)) all = true;
    else if (was !== now) nodes.push(k);
  });
  if (all) return 'all';
  const edges = new Set<string>();
  for (const k of nodes) graph.forEachEdge(k, (e) => { edges.add(e); });
  return { nodes, edges: [...edges] };
}
