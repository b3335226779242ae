import { flushSync } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { Session } from './session.svelte';
import { MemoryBackend, node, oneFile } from '../../test/memory-backend';

describe('Session', () => {
  it('listens to the shell, then opens the handed-over file: map and legend before the query context', async () => {
    const b = oneFile([node('c1'), node('c2')], ['<http://ex.org/P>']);
    const s = new Session(b);
    s.launch.mark('script');
    await s.start();
    expect(b.openHandlers).toHaveLength(1);
    expect(s.source.doc?.name).toBe('a.rete');
    expect(s.map.nodeCount).toBe(2);
    expect(s.schema.legend?.source).toBe('schema');
    expect(b.calls.slice(0, 2)).toEqual(['openPath /a.rete', 'overview 1']);
    // The first frame with the view on it reports the marks once.
    s.launch.drawn();
    expect(Object.keys(b.launched[0])).toEqual(['script', 'listening', 'opened', 'top-level', 'graph-built', 'drawn']);
  });

  it("shows the shell's notice once the page starts again after a crash", async () => {
    const b = new MemoryBackend();
    const told = "The window's web view crashed and was restarted.";
    b.notice = told;
    const s = new Session(b);
    await s.start();
    expect(s.notice).toBe(told);
    // Told once: a page started later says nothing.
    const later = new Session(b);
    await later.start();
    expect(later.notice).toBe('');
  });

  it('shows the spinner only while the map loads or reads run for a while', () => {
    vi.useFakeTimers();
    try {
      const s = new Session(new MemoryBackend());
      s.map.busy = 1;
      flushSync();
      vi.advanceTimersByTime(300);
      expect(s.working.shown).toBe(false);
      vi.advanceTimersByTime(100);
      expect(s.working.shown).toBe(true);
      s.map.busy = 0;
      s.reads.fetching = true;
      flushSync();
      expect(s.working.shown).toBe(true);
      s.reads.fetching = false;
      flushSync();
      expect(s.working.shown).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
  it("fetches a selected group's children ahead, not an entity's", async () => {
    const b = oneFile([node('c1'), node('e:5', { kind: 'entity', expandable: false })]);
    b.views.set('expand:c1', { kind: 'pyramid', note: '', truncated: false, nodes: [node('c1.1')], edges: [] });
    const s = new Session(b);
    await s.start();
    void s.selection.select('e:5');
    flushSync();
    void s.selection.select('c1');
    flushSync();
    expect(b.calls.filter((c) => c.startsWith('expand'))).toEqual(['expand c1']);
    expect(await s.map.zoomInto('c1')).toBe(true);
    expect(b.calls.filter((c) => c.startsWith('expand'))).toEqual(['expand c1']);
  });
});

describe('Session.reveal', () => {
  it("goes down a search hit's path past a group that opens straight into its one child", async () => {
    // c2:0 has one child, c1:0, so it opens straight into c1:0's pieces: c1:0 of the path is
    // never on the map, and the piece c0:0 after it is.
    const b = oneFile([node('c2:0', { kind: 'community', level: 2 })]);
    const piece = (k: string) => node(k, { kind: 'community', level: 0 });
    b.views.set('expand:c2:0', { kind: 'children', note: '', truncated: false, nodes: [piece('c0:0'), piece('c0:1')], edges: [] });
    b.views.set('expand:c0:0', { kind: 'members', note: '', truncated: false, nodes: [node('e:7', { kind: 'entity', id: 7, expandable: false })], edges: [] });
    const s = new Session(b);
    await s.start();
    s.focuser = (key) => (key ? s.map.expand(key) : undefined);
    await s.reveal({ rank: 1, id: 7, nt: '<http://ex.org/e7>', kind: 'entity', label: 'e7', lang: null, class: null, class_label: null, path: ['c2:0', 'c1:0', 'c0:0'] });
    expect(b.calls.filter((c) => c.startsWith('expand'))).toEqual(['expand c2:0', 'expand c0:0']);
    expect(s.map.graph.hasNode('e:7')).toBe(true);
  });

  it("shows a hit's details at once, while the map opens its way down to it", async () => {
    const b = oneFile([node('c1:0', { kind: 'community', level: 1 })]);
    b.views.set('expand:c1:0', { kind: 'children', note: '', truncated: false, nodes: [node('c0:0', { kind: 'community', level: 0 })], edges: [] });
    b.views.set('expand:c0:0', { kind: 'members', note: '', truncated: false, nodes: [node('e:7', { kind: 'entity', id: 7, expandable: false })], edges: [] });
    b.entities.set(7, { term: { id: 7, nt: '<http://ex.org/e7>', label: 'e7', kind: 'iri' } } as never);
    const s = new Session(b);
    await s.start();
    let release = () => {};
    const gate = new Promise<void>((r) => { release = r; });
    const expand = b.expand.bind(b);
    b.expand = async (doc, key) => { await gate; return expand(doc, key); };
    const focused: string[] = [];
    s.focuser = (key) => { if (key) focused.push(key); };
    let shownWith: string | undefined;
    const done = s.reveal({ rank: 1, id: 7, nt: '<http://ex.org/e7>', kind: 'entity', label: 'e7', lang: null, class: null, class_label: null, path: ['c1:0', 'c0:0'] }, () => { shownWith = s.selection.details?.key; });
    // The details are in (and the list told) before the map has anything of the path.
    await vi.waitFor(() => expect(shownWith).toBe('e:7'));
    expect(s.map.graph.hasNode('e:7')).toBe(false);
    release();
    await done;
    expect(s.map.open).toEqual(['c1:0', 'c0:0']);
    expect(s.map.graph.hasNode('e:7')).toBe(true);
    expect(s.selection.selected).toBe('e:7');
    // The camera flies once, to the entity's community.
    expect(focused).toEqual(['c0:0']);
  });

  it("goes to an ontology's class on the map, without the legend's highlight that would dim it", async () => {
    const b = oneFile([node('c1:0', { kind: 'community', level: 1 })]);
    b.views.set('expand:c1:0', { kind: 'children', note: '', truncated: false, nodes: [node('c0:0', { kind: 'community', level: 0 })], edges: [] });
    b.views.set('expand:c0:0', { kind: 'members', note: '', truncated: false, nodes: [node('e:7', { kind: 'entity', id: 7, expandable: false })], edges: [] });
    b.entities.set(7, { term: { id: 7, nt: '<http://ex.org/Sensor>', label: 'Sensor', kind: 'iri' } } as never);
    const s = new Session(b);
    await s.start();
    const focused: string[] = [];
    s.focuser = (key) => { if (key) focused.push(key); };
    const cls = { rank: 1, id: 7, nt: '<http://ex.org/Sensor>', kind: 'class' as const, label: 'Sensor', lang: null, class: '<http://www.w3.org/2002/07/owl#Class>', class_label: 'owl:Class' };
    await s.reveal({ ...cls, path: ['c1:0', 'c0:0'] });
    expect(s.map.open).toEqual(['c1:0', 'c0:0']);
    expect(s.selection.selected).toBe('e:7');
    expect(focused).toEqual(['c0:0']);
    expect(s.highlight.active).toBe(false);
    // A class only ever an object of rdf:type: not on the map, its instances lit as before.
    await s.reveal({ ...cls, id: 0, nt: '<http://ex.org/Thing>', path: [] });
    expect(s.schema.highlighted).toBe('<http://ex.org/Thing>');
  });

  it('fetches the details of the hit Enter would choose once the list rests on it, not over HTTP', async () => {
    vi.useFakeTimers();
    try {
      const b = oneFile([node('c1')]);
      const asked: number[] = [];
      b.entity = async (doc, id) => { asked.push(id); throw 'none'; };
      b.searchHits.set('ad', [7, 8].map((id) => ({ rank: 1, id, nt: `<http://ex.org/e${id}>`, kind: 'entity' as const, label: `Ada ${id}`, lang: null, class: null, class_label: null, path: [] })));
      const s = new Session(b);
      await s.start();
      await s.search.input('ad');
      flushSync();
      vi.advanceTimersByTime(100);
      s.search.move(1);
      flushSync();
      vi.advanceTimersByTime(199);
      expect(asked).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(asked).toEqual([8]);
      s.search.reset(1, true);
      await s.search.input('ada');
      flushSync();
      vi.advanceTimersByTime(1000);
      expect(asked).toEqual([8]);
    } finally {
      vi.useRealTimers();
    }
  });
});
