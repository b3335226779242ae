import { describe, expect, it } from 'vitest';
import { HighlightState } from './highlight.svelte';
import { SchemaState } from '../schema/schema.svelte';
import { ClassColors } from '../map/colors';
import { MemoryBackend } from '../../../test/memory-backend';

describe('highlight', () => {
  it('matches nothing when off, then keys or classes', () => {
    const h = new HighlightState();
    expect(h.matches('e:1', ['<A>'])).toBeNull();
    h.set({ source: 'results', label: 'r', keys: ['c0:1', 'e:1'] });
    expect(h.matches('c0:1', [])).toBe(true);
    expect(h.matches('c0:2', ['<A>'])).toBe(false);
    h.set({ source: 'finding', label: 'f', classes: ['<A>'] });
    expect(h.matches('c0:2', ['<B>', '<A>'])).toBe(true);
    h.clear('legend');
    expect(h.active).toBe(true);
    h.clear('finding');
    expect(h.active).toBe(false);
    // A search's matches count per key; a highlight without counts has none.
    h.set({ source: 'search', label: 's', keys: ['c0:1'], counts: new Map([['c0:1', 12]]) });
    expect([h.count('c0:1'), h.count('c0:2')]).toEqual([12, undefined]);
    h.set({ source: 'results', label: 'r', keys: ['c0:1'] });
    expect(h.count('c0:1')).toBeUndefined();
  });

  it('a legend class lights up its subclasses on the map', async () => {
    const b = new MemoryBackend();
    const cls = (nt: string, parents: number[]) => ({ nt, label: nt, parents, depth: parents.length, direct: 1, total: 1 });
    b.legends.set(1, { source: 'schema', note: '', relations: [], classes: [cls('<Person>', []), cls('<Patient>', [0]), cls('<Inpatient>', [1]), cls('<Org>', [])] });
    const h = new HighlightState();
    const s = new SchemaState(b, new ClassColors(), h);
    await s.load(1);
    s.toggle('<Person>');
    expect(s.highlighted).toBe('<Person>');
    expect(s.isMarked('<Person>')).toBe(true);
    expect(s.isMarked('<Patient>')).toBe(false);
    expect(h.matches('e:1', ['<Inpatient>'])).toBe(true);
    expect(h.matches('e:2', ['<Org>'])).toBe(false);
    s.toggle('<Person>');
    expect(h.active).toBe(false);
  });
});
