import { describe, expect, it, vi } from 'vitest';
import { SelectionState, SHOW_ALONE_MS } from './selection.svelte';
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

  it("shows a quick answer with its selection at once, and a slow answer's selection first", async () => {
    vi.useFakeTimers();
    try {
      const b = new MemoryBackend();
      b.entities.set(1, { term: term(1, 'one'), types: [], properties: [], out_links: [], in_links: [], out_total: 0, in_total: 0 });
      b.entities.set(2, { term: term(2, 'two'), types: [], properties: [], out_links: [], in_links: [], out_total: 0, in_total: 0 });
      let release = () => {};
      const gate = new Promise<void>((r) => { release = r; });
      const entity = b.entity.bind(b);
      b.entity = async (doc: number, id: number) => { if (id === 2) await gate; return entity(doc, id); };
      const s = new SelectionState(b);
      const quick = s.select('e:1');
      // Asked for at once (what is fetched ahead follows it); shown with its answer.
      expect(s.requested).toBe('e:1');
      expect(s.selected).toBeNull();
      expect(s.loading).toBe(false);
      await quick;
      expect(s.selected).toBe('e:1');
      expect(s.details?.kind === 'entity' && s.details.data.term.label).toBe('one');
      const slow = s.select('e:2');
      await vi.advanceTimersByTimeAsync(SHOW_ALONE_MS - 1);
      expect([s.requested, s.selected, s.loading]).toEqual(['e:2', 'e:1', false]);
      await vi.advanceTimersByTimeAsync(1);
      expect([s.selected, s.loading]).toEqual(['e:2', true]);
      release();
      await slow;
      expect([s.selected, s.loading]).toEqual(['e:2', false]);
      expect(s.details?.kind === 'entity' && s.details.data.term.label).toBe('two');
      // A failure is shown with its selection; the next answer clears it.
      await s.selectEntity(99);
      expect([s.selected, s.details]).toEqual(['e:99', null]);
      expect(s.error).toContain('out of range');
      await s.selectEntity(1);
      expect(s.error).toBe('');
      await s.select(null);
      expect([s.requested, s.selected, s.details]).toEqual([null, null, null]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("uses an entity's details fetched ahead, and asks again if that failed; a new file forgets them", async () => {
    const b = new MemoryBackend();
    b.entities.set(1, { term: term(1, 'one'), types: [], properties: [], out_links: [], in_links: [], out_total: 0, in_total: 0 });
    const asked: number[] = [];
    const entity = b.entity.bind(b);
    b.entity = (doc, id) => { asked.push(id); return entity(doc, id); };
    const s = new SelectionState(b);
    s.reset(1);
    s.prefetch('e:1');
    s.prefetch('e:1');
    s.prefetch('k:3');
    expect(asked).toEqual([1]);
    await s.select('e:1');
    expect(asked).toEqual([1]);
    expect(s.details?.kind === 'entity' && s.details.data.term.label).toBe('one');
    // Taken once: selected again, it is asked for.
    await s.select('e:1');
    expect(asked).toEqual([1, 1]);
    // A failed fetch ahead (the entity was not there yet) is asked again when selected.
    s.prefetch('e:2');
    b.entities.set(2, { term: term(2, 'two'), types: [], properties: [], out_links: [], in_links: [], out_total: 0, in_total: 0 });
    await s.select('e:2');
    expect(s.details?.kind === 'entity' && s.details.data.term.label).toBe('two');
    expect(asked).toEqual([1, 1, 2, 2]);
    s.prefetch('e:1');
    s.reset(2);
    await s.select('e:1');
    expect(asked).toEqual([1, 1, 2, 2, 1, 1]);
  });
});
