import { describe, expect, it } from 'vitest';
import Graph from 'graphology';
import { toSvg } from './export';
import type { EdgeAttrs, NodeAttrs } from '../map/map.svelte';

const n = (x: number, label: string, color = '#4e79a7'): NodeAttrs => ({ x, y: 0, size: 10, r: 10, color, label, kind: 'class', expandable: true, cls: null, classes: [], count: 1, id: 1, parent: null });

describe('SVG export', () => {
  it('draws visible nodes, edges and escaped labels with the styles of the reducers', () => {
    const g = new Graph<NodeAttrs, EdgeAttrs>();
    g.addNode('a', n(0, 'A & <B>'));
    g.addNode('b', n(100, 'b'));
    g.addNode('far', n(100000, 'far'));
    g.addNode('dim', n(50, 'dim'));
    g.addEdge('a', 'b', { size: 1, weight: 1, predicate: 'p', color: '#999999', between: false });
    const svg = toSvg(g, { toScreen: (x, y) => ({ x: x + 10, y: y + 50 }), width: 300, height: 100 }, {
      scale: 1, background: '#fff',
      node: (k, a) => (k === 'dim' ? { color: '#ddd', label: '' } : { color: a.color }),
      edge: (_k, a) => ({ color: a.color }),
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"')).toBe(true);
    expect(svg.match(/<circle/g)?.length).toBe(3);
    expect(svg).toContain('A &amp; &lt;B&gt;');
    expect(svg).toContain('<line x1="10.0" y1="50.0" x2="110.0" y2="50.0"');
    expect(svg).not.toContain('>far<');
    expect(svg).not.toContain('>dim</text>');
    expect(new DOMParser().parseFromString(svg, 'image/svg+xml').querySelector('parsererror')).toBeNull();
  });
});
