import { describe, expect, it } from 'vitest';
import { HighlightState } from '../highlight/highlight.svelte';
import { componentName, pathName, shapeName, ShapesState } from './shapes.svelte';
import { MemoryBackend } from '../../../test/memory-backend';
import type { ShapesProgress } from '../types';

const SH = 'http://www.w3.org/ns/shacl#';

describe('shapes', () => {
  it('names components and shapes for people', () => {
    expect(componentName(`${SH}MinCountConstraintComponent`)).toBe('MinCount');
    expect(shapeName('<http://example.org/shapes/Person>')).toBe('Person');
    expect(shapeName('_:b0')).toBe('_:b0');
    // Brick's `<https://brickschema.org/schema/Brick#hasQUDTReference>` filled the row.
    expect(pathName('<https://brickschema.org/schema/Brick#hasQUDTReference>')).toBe('hasQUDTReference');
    expect(pathName('^<http://ex.org/knows>/<http://ex.org/name>')).toBe('^knows/name');
  });

  it('validates with the picked file and lights up a group\'s focus nodes on the map', async () => {
    const b = new MemoryBackend();
    b.shapesFile = '/data/shapes.ttl';
    b.shapes = {
      status: 'ok', source: '/data/shapes.ttl', conforms: false, results: 3, elapsed_ms: 4, rules_not_run: 6098,
      groups: [{ shape: '<http://ex.org/PersonShape>', component: `${SH}MinCountConstraintComponent`, severity: `${SH}Violation`, path: '<http://ex.org/name>', count: 3, focus_count: 2, focus_nodes: ['<http://ex.org/a>', '<http://ex.org/b>'], messages: [] }],
    };
    b.places.set('<http://ex.org/a>', ['c1']);
    const hl = new HighlightState();
    const s = new ShapesState(b, hl);
    s.reset(1);
    await s.pickAndRun();
    expect(b.calls).toContain('shapesRun 1 2 /data/shapes.ttl');
    expect(s.outcome?.results).toBe(3);
    // Brick's shapes: its rules said, not run.
    expect(s.rulesText).toBe('The shapes hold 6,098 SHACL-AF rules (sh:rule), which infer triples and were not run: the data was validated as given.');
    await s.select(0);
    expect(hl.label).toBe('PersonShape · MinCount');
    expect(hl.matches('c1', [])).toBe(true);
    await s.select(-1);
    expect(hl.active).toBe(false);
  });

  it('shows where a long validation is, and stops it on cancel', async () => {
    const b = new MemoryBackend();
    b.shapes = { status: 'ok', source: 'the shapes in the file', conforms: true, results: 0, elapsed_ms: 1, rules_not_run: 0, groups: [] };
    b.shapesSlow = true;
    const s = new ShapesState(b, new HighlightState());
    b.onShapesProgress((p) => s.onProgress(p));
    s.reset(1);
    const running = s.run(null);
    expect(s.progressText).toBe('Validating…');
    const emit = (p: Omit<ShapesProgress, 'run'>) => { for (const h of b.shapesProgressHandlers) h({ ...p, run: 2 }); };
    emit({ shapes_done: 0, shapes_total: 4, focus_nodes_done: 16384, shape_focus_nodes: 65536, shape_focus_nodes_done: 16384, results: 7 });
    expect(s.progressText).toBe('Validating shape 1 of 4 · 16,384 of 65,536 focus nodes · 7 results so far');
    expect(s.fraction).toBeCloseTo(0.0625);
    emit({ shapes_done: 1, shapes_total: 4, focus_nodes_done: 65536, shape_focus_nodes: 65536, shape_focus_nodes_done: 65536, results: 12 });
    expect(s.progressText).toBe('Validating shape 2 of 4 · 12 results so far');
    expect(s.fraction).toBeCloseTo(0.25);
    expect(s.running).toBe(true);
    // Another run's report is not this one's.
    s.onProgress({ run: 99, shapes_done: 3, shapes_total: 4, focus_nodes_done: 1, shape_focus_nodes: 1, shape_focus_nodes_done: 1, results: 0 });
    expect(s.fraction).toBeCloseTo(0.25);
    await s.cancel();
    await running;
    expect(s.running).toBe(false);
    expect(s.outcome?.status).toBe('cancelled');
    expect(s.progress).toBe(null);
    expect(s.error).toBe('');
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
