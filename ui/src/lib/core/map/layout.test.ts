import { describe, expect, it } from 'vitest';
import { layout, layoutInCircle } from './layout';
import type { MapEdge, MapNode } from '../types';

const node = (key: string): MapNode => ({
  key, kind: 'entity', label: key, size: 1, class: null, x: null, y: null, r: null,
  expandable: false, level: null, id: 1, classes: [],
});

describe('layout', () => {
  const nodes = ['e:1', 'e:2', 'e:3', 'e:4', 'e:5'].map(node);
  const edges: MapEdge[] = [
    { source: 'e:1', target: 'e:2', weight: 1, label: 'p' },
    { source: 'e:1', target: 'e:3', weight: 1, label: 'p' },
    { source: 'e:3', target: 'e:4', weight: 1, label: 'p' },
    { source: 'e:4', target: 'e:5', weight: 1, label: 'p' },
  ];

  it('places every node inside the circle, the centre in its middle', () => {
    const pos = layoutInCircle(nodes, edges, 10, -5, 50, 'e:1');
    expect([...pos.keys()].sort()).toEqual(nodes.map((n) => n.key));
    expect(pos.get('e:1')).toEqual({ x: 10, y: -5 });
    for (const p of pos.values()) expect(Math.hypot(p.x - 10, p.y + 5)).toBeLessThanOrEqual(50 * 0.9 + 1e-9);
  });

  it('gives the same places without a worker (here) as the worker computes', async () => {
    expect(typeof Worker).toBe('undefined');
    expect(await layout(nodes, edges, 0, 0, 100, 'e:1')).toEqual(layoutInCircle(nodes, edges, 0, 0, 100, 'e:1'));
  });
});
