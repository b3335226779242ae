import { describe, expect, it } from 'vitest';
import { SelectionState } from './selection.svelte';
import { MemoryBackend } from '../../../test/memory-backend';

const term = (id: number, label: string) => ({ id, nt: `<http://ex.org/${label}>`, label, kind: 'iri' as const });

describe('selection and details', () => {
  it('loads entity details and group details by key', async () => {
    const b = new MemoryBackend();
    b.entities.set(7, { term: term(7, 'alice'), types: [], properties: [], out_links: [{ predicate: term(2, 'knows'), other: term(8, 'bob') }], in_links: [], out_total: 1, in_total: 0 });
    b.groups.set('k:3', { key: 'k:3', label: 'Person', size: 10, level: null, classes: [], top_predicates: [], sample: [], children: [], links: [] });
    const s = new SelectionState(b);
    s.reset(1);
    await s.select('e:7');
    expect(s.details?.kind).toBe('entity');
    await s.select('k:3');
    expect(s.details?.kind === 'group' && s.details.data.label).toBe('Person');
    await s.select(null);
    expect(s.details).toBeNull();
  });

  it('keeps only the answer of the last request and shows errors', async () => {
    const b = new MemoryBackend();
    b.entities.set(1, { term: term(1, 'one'), types: [], properties: [], out_links: [], in_links: [], out_total: 0, in_total: 0 });
    b.entities.set(2, { term: term(2, 'two'), types: [], properties: [], out_links: [], in_links: [], out_total: 0, in_total: 0 });
    const s = new SelectionState(b);
    await Promise.all([s.selectEntity(1), s.selectEntity(2)]);
    expect(s.details?.kind === 'entity' && s.details.data.term.label).toBe('two');
    await s.selectEntity(99);
    expect(s.error).toContain('out of range');
    expect(s.details).toBeNull();
  });
});
