import { describe, expect, it } from 'vitest';
import { HighlightState } from '../highlight/highlight.svelte';
import { componentName, shapeName, ShapesState } from './shapes.svelte';
import { MemoryBackend } from '../../../test/memory-backend';

const SH = 'http://www.w3.org/ns/shacl#';

describe('shapes', () => {
  it('names components and shapes for people', () => {
    expect(componentName(`${SH}MinCountConstraintComponent`)).toBe('MinCount');
    expect(shapeName('<http://example.org/shapes/Person>')).toBe('Person');
    expect(shapeName('_:b0')).toBe('_:b0');
  });

  it('validates with the picked file and lights up a group\'s focus nodes on the map', async () => {
    const b = new MemoryBackend();
    b.shapesFile = '/data/shapes.ttl';
    b.shapes = {
      status: 'ok', source: '/data/shapes.ttl', conforms: false, results: 3, elapsed_ms: 4,
      groups: [{ shape: '<http://ex.org/PersonShape>', component: `${SH}MinCountConstraintComponent`, severity: `${SH}Violation`, path: '<http://ex.org/name>', count: 3, focus_count: 2, focus_nodes: ['<http://ex.org/a>', '<http://ex.org/b>'], messages: [] }],
    };
    b.places.set('<http://ex.org/a>', ['c1']);
    const hl = new HighlightState();
    const s = new ShapesState(b, hl);
    s.reset(1);
    await s.pickAndRun();
    expect(b.calls).toContain('shapesRun 1 2 /data/shapes.ttl');
    expect(s.outcome?.results).toBe(3);
    await s.select(0);
    expect(hl.label).toBe('PersonShape · MinCount');
    expect(hl.matches('c1', [])).toBe(true);
    await s.select(-1);
    expect(hl.active).toBe(false);
  });

  it('shows why shapes cannot be used', async () => {
    const b = new MemoryBackend();
    const s = new ShapesState(b, new HighlightState());
    s.reset(1);
    await s.run('/data/bad.ttl');
    expect(s.error).toBe('/data/bad.ttl: not a shapes file');
    expect(s.running).toBe(false);
  });
});
