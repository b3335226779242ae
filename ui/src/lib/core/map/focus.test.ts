import { describe, expect, it } from 'vitest';
import Graph from 'graphology';
import type { EdgeAttrs, NodeAttrs } from './map.svelte';
import { focusScene, MAX_FOCUS_LINKS, type Drawn } from './focus';

function graph(): Graph<NodeAttrs, EdgeAttrs> {
  const g = new Graph<NodeAttrs, EdgeAttrs>({ type: 'directed', multi: false, allowSelfLoops: false });
  const n = (key: string, x: number) => g.addNode(key, {
    x, y: 0, size: 2, r: 2, color: '#000', label: key.toUpperCase(), kind: 'entity', expandable: false,
    cls: null, classes: [], count: 1, id: 0, parent: null,
  });
  n('a', 0); n('b', 10); n('c', 20); n('d', 30);
  const e = (s: string, t: string, predicate: string) => g.addEdge(s, t, { size: 1, weight: 1, predicate, color: '#ccc', between: false });
  e('a', 'b', 'knows'); e('c', 'a', 'likes'); e('c', 'd', 'knows');
  return g;
}

// Viewport = graph coordinates doubled; node 'd' is not drawn (not in sigma yet).
const at = (g: Graph<NodeAttrs, EdgeAttrs>) => (k: string): Drawn | undefined =>
  k === 'd' ? undefined : { x: g.getNodeAttribute(k, 'x') * 2, y: 0, size: 4 };

describe('focus layer', () => {
  it('draws the focused node and its links, in their direction, with their predicates', () => {
    const g = graph();
    const s = focusScene(g, ['a', null], at(g), (w) => w * 3);
    expect(s.rings).toEqual([{ key: 'a', x: 0, y: 0, size: 4, label: 'A' }]);
    expect(s.lines).toEqual(expect.arrayContaining([
      { x1: 0, y1: 0, x2: 20, y2: 0, width: 3, label: 'knows' },
      { x1: 40, y1: 0, x2: 0, y2: 0, width: 3, label: 'likes' },
    ]));
    expect(s.lines).toHaveLength(2);
  });

  it('draws a link shared by the selected and the hovered node once, and skips what is not drawn', () => {
    const g = graph();
    const s = focusScene(g, ['a', 'c', 'gone'], at(g), (w) => w, (e) => g.getEdgeAttribute(e, 'predicate') === 'none');
    expect(s.rings.map((r) => r.label)).toEqual(['A', 'C']);
    // a–b, c–a; c–d is left out: d is not drawn.
    expect(s.lines.map((l) => l.label).sort()).toEqual(['knows', 'likes']);
    const hidden = focusScene(g, ['a'], at(g), (w) => w, (e) => g.getEdgeAttribute(e, 'predicate') === 'likes');
    expect(hidden.lines.map((l) => l.label)).toEqual(['knows']);
  });

  it('draws the focused node\'s links whatever the highlight: only links not yet indexed are skipped', () => {
    const g = graph();
    // The map view passes "not indexed by sigma" as the hidden test, so a link the highlight
    // hides (its display data exists, marked hidden) is still drawn for the focused node.
    const display = new Map<string, { hidden: boolean }>([[g.edge('a', 'b')!, { hidden: true }]]);
    const s = focusScene(g, ['a'], at(g), (w) => w, (e) => !display.get(e));
    expect(s.lines.map((l) => l.label)).toEqual(['knows']);
  });

  it('draws at most MAX_FOCUS_LINKS links of one node', () => {
    const g = graph();
    for (let i = 0; i < MAX_FOCUS_LINKS + 50; i++) {
      g.addNode(`m${i}`, { ...g.getNodeAttributes('b'), x: i });
      g.addEdge('a', `m${i}`, { size: 1, weight: 1, predicate: 'p', color: '#ccc', between: false });
    }
    expect(focusScene(g, ['a'], at(g), (w) => w).lines).toHaveLength(MAX_FOCUS_LINKS);
  });
});
