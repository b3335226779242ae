import { flushSync } from 'svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Session } from '../session.svelte';
import { ViewsState } from './views.svelte';
import { BookmarksState, MAX_BOOKMARKS } from './bookmarks.svelte';
import { MemoryBackend, node, oneFile } from '../../../test/memory-backend';
import type { Camera, CoherenceReport, Finding, SavedView } from '../types';

function memory() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k), m };
}

const view = (source: string, o: Partial<SavedView> = {}): SavedView => ({
  format: 'rete-view', version: 1, source, camera: { x: 0.3, y: 0.6, ratio: 0.2 }, open: [], selected: null, class: null, query: null, allGraphs: null, finding: null, ...o,
});

/** A session on a file of two communities, c1 holding c1.1 and the entity e:5, c2 holding e:7,
 * with a camera. */
function session(b: MemoryBackend = pyramid()): { s: Session; camera: { now: Camera } } {
  const s = new Session(b);
  const camera = { now: { x: 0.5, y: 0.5, ratio: 1 } };
  s.views.camera = { get: () => camera.now, set: async (c) => { camera.now = c; } };
  s.focuser = (key) => (key ? s.map.zoomInto(key, Promise.resolve()) : undefined);
  return { s, camera };
}
function pyramid(): MemoryBackend {
  const b = oneFile([node('c1'), node('c2')], ['<http://ex.org/P>']);
  b.views.set('expand:c1', { kind: 'pyramid', note: '', truncated: false, nodes: [node('c1.1'), node('e:5', { kind: 'entity', expandable: false, id: 5 })], edges: [] });
  b.views.set('expand:c2', { kind: 'pyramid', note: '', truncated: false, nodes: [node('e:7', { kind: 'entity', expandable: false, id: 7 })], edges: [] });
  b.views.set('expand:c1.1', { kind: 'pyramid', note: '', truncated: false, nodes: [node('e:6', { kind: 'entity', expandable: false, id: 6 })], edges: [] });
  return b;
}

/** A session two levels down in c1, the camera moved and entity 6 selected. */
async function deepInC1(): Promise<{ s: Session; camera: { now: Camera } }> {
  const { s, camera } = session();
  await s.start();
  await s.focus('c1');
  await s.focus('c1.1');
  camera.now = { x: 0.41, y: 0.62, ratio: 0.05 };
  await s.selection.select('e:6');
  return { s, camera };
}

describe('saved views', () => {
  beforeEach(() => localStorage.clear());

  it("remembers each file's last view, the most recent files first, and ignores a damaged entry", () => {
    const store = memory();
    const v = new ViewsState(store);
    v.remember(view('/a.rete', { open: ['c1'] }));
    expect(v.last('/a.rete')?.open).toEqual(['c1']);
    expect(v.last('/b.rete')).toBeNull();
    for (let i = 0; i < 60; i++) v.remember(view(`/f${i}.rete`));
    expect(v.last('/a.rete')).toBeNull(); // forgotten: 50 files are kept
    expect(v.last('/f59.rete')).not.toBeNull();
    store.setItem('rete.view:/f59.rete', '{"format": "rete-view", "version": 1, "sour');
    expect(v.last('/f59.rete')).toBeNull();
    store.setItem('rete.view:/f58.rete', JSON.stringify({ ...view('/f58.rete'), version: 2 }));
    expect(v.last('/f58.rete')).toBeNull();
  });

  it('captures where the user is and restores it on the file: groups, camera, class, selection, query', async () => {
    const { s, camera } = await deepInC1();
    s.schema.toggle('<http://ex.org/P>');
    s.sparql.use('SELECT * WHERE { ?s ?p ?o }');
    s.dock = 'query';
    const v = s.views.capture(s)!;
    expect(v).toEqual(view('/data/a.rete', {
      camera: { x: 0.41, y: 0.62, ratio: 0.05 }, open: ['c1', 'c1.1'], selected: 'e:6', class: '<http://ex.org/P>', query: 'SELECT * WHERE { ?s ?p ?o }',
    }));

    // A fresh window on the same file, given the view (as a link or a view file gives it).
    const b = pyramid();
    b.viewToOpen = { ...v, source: '/a.rete' }; // the memory backend's name of the file
    const fresh = session(b);
    await fresh.s.openLink('rete://open?v=1&source=%2Fa.rete');
    expect(fresh.s.map.open).toEqual(['c1', 'c1.1']);
    expect(fresh.camera.now).toEqual(v.camera);
    expect(fresh.s.selection.selected).toBe('e:6');
    expect(fresh.s.schema.highlighted).toBe('<http://ex.org/P>');
    expect(fresh.s.sparql.text).toBe('SELECT * WHERE { ?s ?p ?o }');
    expect(fresh.s.dock).toBe('query');
  });

  it('reopening a file comes back to where the user was', async () => {
    vi.useFakeTimers();
    try {
      const { s, camera } = session();
      await s.start();
      await s.focus('c1');
      camera.now = { x: 0.2, y: 0.7, ratio: 0.1 };
      s.views.moved++;
      flushSync();
      vi.advanceTimersByTime(1000);
      const again = session();
      again.s.source.linkOpener = null;
      await again.s.start();
      expect(again.s.map.open).toEqual(['c1']);
      expect(again.camera.now).toEqual({ x: 0.2, y: 0.7, ratio: 0.1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('points the breadcrumbs at the group in view once a restored view lands, not at the last one opened, and says when it has landed', async () => {
    // c1 in view, c2 opened after it beside it (by the semantic zoom, as it opens a large
    // neighbour): the breadcrumbs said c2 while the map showed c1.
    const b = oneFile([node('c1', { x: 0, y: 0, r: 10 }), node('c2', { x: 100, y: 0, r: 10 })], []);
    b.views.set('expand:c1', { kind: 'pyramid', note: '', truncated: false, nodes: [node('e:5', { kind: 'entity', expandable: false, id: 5 })], edges: [] });
    b.views.set('expand:c2', { kind: 'pyramid', note: '', truncated: false, nodes: [node('e:7', { kind: 'entity', expandable: false, id: 7 })], edges: [] });
    const { s } = session(b);
    await s.start();
    await s.views.restore(s, view('/data/a.rete', { open: ['c1', 'c2'] }));
    expect(s.map.open).toEqual(['c1', 'c2']);
    // A group double-clicked meanwhile waits for the view to land.
    let settled = false;
    void s.views.settled().then(() => { settled = true; });
    await Promise.resolve();
    expect(settled).toBe(false);
    // The camera's last stop, reported while the view lands: c1 at the viewport's centre.
    await s.map.onCamera({ toScreen: (x, y) => ({ x: x + 400, y: y + 300 }), width: 800, height: 600 });
    await new Promise((r) => setTimeout(r, 500));
    expect(s.map.crumbs.map((c) => c.key)).toEqual([null, 'c1']);
    expect(settled).toBe(true);
  });

  it('leaves out what the file no longer has, and says why a link cannot be opened', async () => {
    const b = pyramid();
    b.pending = ['rete://open?v=1&source=%2Fa.rete'];
    b.viewToOpen = view('/a.rete', { open: ['c9', 'c1'], selected: 'e:404' });
    const { s } = session(b);
    await s.start();
    expect(b.calls).toContain('openLink rete://open?v=1&source=%2Fa.rete');
    expect(s.map.open).toEqual(['c1']);
    b.viewToOpen = null;
    expect(await s.openLink('rete://nonsense')).toBe(false);
    expect(s.source.error).toBe('This link cannot be opened: not a rete link');
    // The document open before stays open.
    expect(s.source.doc?.name).toBe('a.rete');
  });

  it('bookmarks views of a file by name, goes back to one mid-session, and keeps them for the next session', async () => {
    const { s, camera } = await deepInC1();
    s.bookmark('Deep in c1');
    expect(s.message).toBe('Bookmarked “Deep in c1”');
    // Elsewhere: another group, a class highlighted, nothing selected.
    s.map.collapseAll();
    await s.focus('c2');
    camera.now = { x: 0.9, y: 0.1, ratio: 0.5 };
    await s.selection.select(null);
    s.schema.toggle('<http://ex.org/P>');
    s.bookmark('');
    expect(s.bookmarks.list.map((b) => b.name)).toEqual(['View 2', 'Deep in c1']);
    await s.goToBookmark('Deep in c1');
    expect(s.map.open).toEqual(['c1', 'c1.1']);
    expect(camera.now).toEqual({ x: 0.41, y: 0.62, ratio: 0.05 });
    expect(s.selection.selected).toBe('e:6');
    expect(s.schema.highlighted).toBeNull();
    await s.goToBookmark('View 2');
    expect(s.map.open).toEqual(['c2']);
    expect(s.selection.selected).toBeNull();
    expect(s.schema.highlighted).toBe('<http://ex.org/P>');
    // The same name replaces; a rename takes another's name over; removal.
    s.bookmark('Deep in c1');
    expect(s.bookmarks.list.map((b) => b.name)).toEqual(['Deep in c1', 'View 2']);
    expect(s.bookmarks.list[0].view.open).toEqual(['c2']);
    s.bookmarks.rename('View 2', 'Overview of c2');
    expect(s.bookmarks.list.map((b) => b.name)).toEqual(['Deep in c1', 'Overview of c2']);
    // The next session on the file lists them.
    const again = session();
    again.s.source.linkOpener = null;
    await again.s.start();
    expect(again.s.bookmarks.list.map((b) => b.name)).toEqual(['Deep in c1', 'Overview of c2']);
    again.s.bookmarks.remove('Deep in c1');
    expect(new BookmarksState(localStorage).list).toEqual([]);
    const other = new BookmarksState(localStorage);
    other.load('/data/a.rete');
    expect(other.list.map((b) => b.name)).toEqual(['Overview of c2']);
  });

  it('keeps at most 100 bookmarks a file, skips a damaged entry, and says when storage refuses', () => {
    const store = memory();
    const bm = new BookmarksState(store);
    bm.load('/a.rete');
    for (let i = 0; i < MAX_BOOKMARKS + 5; i++) bm.add(view('/a.rete'), `b${i}`, i);
    expect(bm.list.length).toBe(MAX_BOOKMARKS);
    expect(bm.list[0].name).toBe(`b${MAX_BOOKMARKS + 4}`);
    store.setItem('rete.bookmarks:/a.rete', JSON.stringify([{ name: 'ok', at: 1, view: view('/a.rete') }, { name: 'bad', at: 1, view: { format: 'x' } }, null, { name: 'other file', at: 1, view: view('/b.rete') }]));
    bm.load('/a.rete');
    expect(bm.list.map((b) => b.name)).toEqual(['ok']);
    store.setItem('rete.bookmarks:/a.rete', '[{"name": "half');
    bm.load('/a.rete');
    expect(bm.list).toEqual([]);
    const full = new BookmarksState({ ...store, setItem: () => { throw new Error('QuotaExceededError'); } });
    full.load('/a.rete');
    full.add(view('/a.rete'), 'x');
    expect(full.list.map((b) => b.name)).toEqual(['x']);
    expect(full.error).toMatch(/could not be stored/);
  });

  it('captures the selected coherence finding and selects it again, running the report first', async () => {
    const M = 'http://example.org/m#';
    const finding: Finding = { kind: 'unsatisfiable-class', severity: 'error', message: ':A is unsatisfiable', classes: [`${M}A`], entities: [], explanation: [] };
    const report: CoherenceReport = {
      tier: 0, findings: [finding, { ...finding, message: ':B is unsatisfiable', classes: [`${M}B`] }], bytes_read: 1, requests: 1, elapsed_ms: 1, phases: [], schema_source: 'block', classes: 2, measured: true,
      prefixes: [], inputs: [], groups: { roots: 0, derived: 0, instance_findings: 0, causes: [], clashes: [] },
    };
    const b = pyramid();
    b.coherence = [report];
    const { s } = session(b);
    await s.start();
    await s.coherence.run();
    await s.coherence.select(1);
    const v = s.views.capture(s)!;
    expect(v.finding).toBe('finding:1');
    const b2 = pyramid();
    b2.coherence = [report];
    b2.viewToOpen = { ...v, source: '/a.rete' };
    const fresh = session(b2);
    await fresh.s.openLink('rete://open?v=1&source=%2Fa.rete');
    expect(fresh.s.dock).toBe('coherence');
    expect(fresh.s.coherence.selected).toBe(1);
    expect(fresh.s.highlight.label).toBe('unsatisfiable-class');
    expect([...fresh.s.highlight.classes]).toEqual([`<${M}B>`]);
  });
});
