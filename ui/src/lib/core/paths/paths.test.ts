import { describe, expect, it } from 'vitest';
import { PathsState } from './paths.svelte';
import { HighlightState } from '../highlight/highlight.svelte';
import { MemoryBackend } from '../../../test/memory-backend';
import type { TermView } from '../types';

const t = (id: number, label: string): TermView => ({ id, nt: `<http://ex.org/${label}>`, label, kind: 'iri' });

describe('paths state', () => {
  it('connects the remembered entity to another, lists the paths and lights up where they run', async () => {
    const b = new MemoryBackend();
    const [ada, alan, grace] = [t(1, 'ada'), t(2, 'alan'), t(3, 'grace')];
    const knows = { predicate: t(9, 'knows'), forward: true };
    b.pathAnswer = {
      paths: [{ hops: 2, nodes: [ada, alan, grace], steps: [{ links: [knows], more_links: 0 }, { links: [knows], more_links: 0 }] }],
      stop: 'exhausted', reason: 'no other path exists (under the filters)', elapsed_ms: 3,
    };
    for (const n of [ada, alan, grace]) b.places.set(n.nt, ['c0:1', `e:${n.id}`]);
    const hl = new HighlightState();
    const p = new PathsState(b, hl);
    p.reset(1);
    expect(await p.connect(grace)).toBeNull(); // nothing remembered yet
    p.start(ada);
    const out = await p.connect(grace);
    expect(out?.paths[0].hops).toBe(2);
    expect(b.calls).toContain('paths 1 1 3 5 6');
    expect(p.result?.paths[0].nodes.map((n) => n.label)).toEqual(['ada', 'alan', 'grace']);
    expect(hl.source).toBe('paths');
    expect(hl.matches('c0:1', [])).toBe(true);
    expect(hl.matches('e:2', [])).toBe(true);
    // Filters go with the search; a predicate is in one list at a time.
    p.addPredicate('via', '<http://ex.org/knows>');
    p.addPredicate('without', '<http://ex.org/knows>');
    p.filters.max_degree = 100;
    await p.again();
    expect(b.pathFilters.at(-1)).toEqual({ via: [], without: ['<http://ex.org/knows>'], include_schema: false, max_degree: 100 });
    p.removePredicate('without', '<http://ex.org/knows>');
    expect(p.filters.without).toEqual([]);
    p.reset(2);
    expect(p.from).toBeNull();
    expect(hl.source).toBeNull();
  });
});
