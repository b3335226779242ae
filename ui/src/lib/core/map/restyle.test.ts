import { describe, expect, it } from 'vitest';
import Graph from 'graphology';
import { restyleSet, type Lit } from './restyle';

function graph(): Graph {
  const g = new Graph({ type: 'directed' });
  for (const k of ['a', 'b', 'c', 'd']) g.addNode(k);
  g.addEdgeWithKey('ab', 'a', 'b');
  g.addEdgeWithKey('bc', 'b', 'c');
  g.addEdgeWithKey('cd', 'c', 'd');
  return g;
}

const state = (o: Record<string, Lit>) => new Map(Object.entries(o));

describe('restyleSet', () => {
  it('restyles everything when a highlight comes or goes', () => {
    const g = graph();
    const none = state({ a: null, b: null, c: null, d: null });
    expect(restyleSet(g, none, (k) => k === 'a')).toBe('all');
    const some = state({ a: true, b: false, c: false, d: false });
    expect(restyleSet(g, some, () => null)).toBe('all');
  });

  it('restyles everything when a node on the map was never styled', () => {
    const g = graph();
    expect(restyleSet(g, state({ a: true, b: false, c: false }), (k) => k === 'a')).toBe('all');
  });

  it('restyles only the nodes whose state changed and their links', () => {
    const g = graph();
    const was = state({ a: true, b: false, c: false, d: false });
    const out = restyleSet(g, was, (k) => k === 'd');
    expect(out).not.toBe('all');
    if (out === 'all') return;
    expect(out.nodes.sort()).toEqual(['a', 'd']);
    expect(out.edges.sort()).toEqual(['ab', 'cd']);
    // Nothing changed: nothing to restyle.
    expect(restyleSet(g, was, (k) => k === 'a')).toEqual({ nodes: [], edges: [] });
  });
});
