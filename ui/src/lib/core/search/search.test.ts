import { describe, expect, it } from 'vitest';
import { SearchState, spreadText } from './search.svelte';
import { HighlightState } from '../highlight/highlight.svelte';
import { MemoryBackend } from '../../../test/memory-backend';
import type { SearchHit } from '../types';

const hit = (label: string, kind: SearchHit['kind'] = 'entity', path: string[] = ['c1:0', 'c0:3']): SearchHit => ({
  rank: 1, id: 7, nt: `<http://ex.org/${label}>`, kind, label, lang: null, class: '<http://ex.org/C>', class_label: 'ex:C', path,
});

describe('search box state', () => {
  it('searches as the user types, moves through the list, and goes to the chosen hit', async () => {
    const b = new MemoryBackend();
    b.searchHits.set('alb', [hit('Albert Einstein'), hit('Albania'), hit('Physicist', 'class', [])]);
    const went: string[] = [];
    // The list stays until the hit's details are in: it closes with them, in the same frame.
    const open: boolean[] = [];
    const s: SearchState = new SearchState(b, async (h, shown) => { went.push(h.label); open.push(s.open); shown(); open.push(s.open); });
    s.reset(1);
    await s.input('alb ein');
    expect(s.open).toBe(true);
    expect(s.hits.map((h) => h.label)).toEqual(['Albert Einstein', 'Albania', 'Physicist']);
    expect(s.active).toBe(0);
    s.move(1);
    s.move(1);
    expect(s.active).toBe(2);
    s.move(1);
    expect(s.active).toBe(0);
    s.move(-1);
    expect(s.active).toBe(2);
    await s.choose();
    expect(went).toEqual(['Physicist']);
    expect(open).toEqual([true, false]);
    expect(s.open).toBe(false);
    await s.choose(1);
    expect(went).toEqual(['Physicist', 'Albania']);
  });

  it('keeps only the newest answer, cancels the search before it, and clears on an empty box', async () => {
    const b = new MemoryBackend();
    b.searchHits.set('par', [hit('Paris')]);
    b.searchHits.set('x', []);
    const s = new SearchState(b, async () => {});
    s.reset(1);
    const first = s.input('par');
    const second = s.input('parx');
    await Promise.all([first, second]);
    // The first answer came back after the second keystroke: it is dropped.
    expect(s.text).toBe('parx');
    expect(b.calls.filter((c) => c.startsWith('search '))).toEqual(['search 1 par', 'search 2 parx']);
    expect(b.calls).toContain('search-cancel 1');
    await s.input('   ');
    expect(s.hits).toEqual([]);
    expect(s.open).toBe(false);
    await s.input('nothing');
    expect(s.hits).toEqual([]);
    expect(s.open).toBe(true);
  });

  it('searches only the community in view when asked', async () => {
    const b = new MemoryBackend();
    b.searchHits.set('a', [hit('a')]);
    const s = new SearchState(b, async () => {});
    s.reset(1);
    await s.input('a');
    await s.restrict('c1:4');
    expect(b.calls.at(-1)).toBe('search 2 a within c1:4');
    await s.restrict(null);
    expect(b.calls.at(-1)).toBe('search 3 a');
  });

  it('offers an index after a scan or an older index, not on a remote file; a cancelled save dialog changes nothing', async () => {
    const b = new MemoryBackend();
    b.searchHits.set('a', [hit('a')]);
    const reopened: string[] = [];
    const s = new SearchState(b, async () => {}, async (d) => { reopened.push(d.name); return true; });
    await b.onIndexProgress((v) => s.onIndexProgress(v));
    s.reset(1);
    await s.input('a');
    expect(s.offer).toBe(false);
    b.searchOutdated = true;
    await s.input('ab');
    expect(s.offer).toBe(true);
    b.searchOutdated = false;
    b.searchIndexed = false;
    await s.input('abc');
    expect(s.offer).toBe(true);
    s.reset(1, true);
    await s.input('abc');
    expect([s.indexed, s.offer]).toEqual([false, false]);
    // The user cancels the save dialog: no file, nothing reopened, offered again.
    s.reset(1);
    await s.input('abc');
    b.indexResult = null;
    const adding = s.addIndex();
    expect(s.adding).toBe(true);
    expect(s.offer).toBe(false);
    b.indexRelease?.();
    await adding;
    expect(reopened).toEqual([]);
    expect([s.adding, s.offer, s.indexMessage]).toEqual([false, true, '']);
    // A late progress event of the ended job does not bring its progress back.
    s.onIndexProgress({ job: 5, source: '', name: '', status: 'running', phase: 'write', done: 0, total: null, triples: 0, read_bytes: 0, source_bytes: 0, elapsed_ms: 0, phases: [], error: null });
    expect(s.progress).toBeNull();
  });

  it('shows all the matches on the map: their communities lit with counts, until cleared or replaced', async () => {
    const b = new MemoryBackend();
    b.searchHits.set('ada', [hit('Ada Turing')]);
    b.spreads.set('ada', {
      text: 'ada', entities: 40, placed: 38, schema_terms: 1, complete: true, entity_keys: ['e:7', 'e:9'],
      communities: [{ key: 'c1:0', count: 30 }, { key: 'c1:2', count: 8 }, { key: 'c0:3', count: 21 }],
    });
    const h = new HighlightState();
    const s = new SearchState(b, async () => {}, async () => false, h);
    s.reset(1);
    await s.input('ada');
    expect(s.canSpread).toBe(true);
    await s.showAll();
    expect(b.calls).toContain('search-spread 2 ada');
    expect(s.open).toBe(false);
    expect(h.source).toBe('search');
    expect(h.label).toBe('“ada”: 38 matches in 2 communities, 2 not on the map, 1 class or predicate');
    expect([h.matches('c1:2', []), h.matches('c0:3', []), h.matches('e:9', []), h.matches('c1:1', [])]).toEqual([true, true, true, false]);
    expect([h.count('c1:0'), h.count('c0:3'), h.count('e:7')]).toEqual([30, 21, undefined]);
    // Nothing on the map: said, and the highlight of an earlier search goes.
    await s.input('zzz');
    await s.showAll();
    expect(h.active).toBe(false);
    expect(s.spreadMessage).toBe('“zzz”: 0 matches');
    await s.input('zzzz');
    expect(s.spreadMessage).toBe('');
    // Not offered without a hit in a community, nor after a label scan, nor without a highlight.
    b.searchHits.set('cls', [hit('Physicist', 'class', [])]);
    await s.input('cls');
    expect(s.canSpread).toBe(false);
    expect(new SearchState(b, async () => {}).canSpread).toBe(false);
  });

  it('words what a spread found, saying when the counts are lower bounds', () => {
    const out = { text: 'jo', entities: 1, placed: 1, schema_terms: 0, complete: false, entity_keys: [], communities: [{ key: 'c2:1', count: 1 }, { key: 'c1:5', count: 1 }] };
    expect(spreadText(out)).toBe('“jo”: at least 1 match in 1 community');
  });
});
