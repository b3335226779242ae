import { describe, expect, it } from 'vitest';
import { MapState } from './map.svelte';
import { ClassColors, NO_CLASS, PALETTE } from './colors';
import { MemoryBackend, node } from '../../../test/memory-backend';
import { MAX_NODES } from './zoom';

function setup() {
  const b = new MemoryBackend();
  b.views.set('overview:1', {
    kind: 'classes', note: 'n', truncated: false,
    nodes: [node('k:1', { x: 0, y: 0, r: 100, size: 300 }), node('k:2', { x: 300, y: 0, r: 50, size: 30, class: null })],
    edges: [{ source: 'k:1', target: 'k:2', weight: 7, label: 'knows' }],
  });
  b.views.set('expand:k:1', {
    kind: 'members', note: '', truncated: true,
    nodes: [node('e:10', { kind: 'entity', x: -20, y: 0, r: 2, expandable: false }), node('e:11', { kind: 'entity', x: 20, y: 0, r: 2, expandable: false })],
    edges: [{ source: 'e:10', target: 'e:11', weight: 1, label: 'knows' }, { source: 'e:10', target: 'k:2', weight: 10, label: 'knows' }],
  });
  const colors = new ClassColors();
  colors.setClasses(['<http://ex.org/k:1>']);
  return { b, m: new MapState(b, colors) };
}

describe('map state', () => {
  it('loads the overview with colours, counts, a square frame and a root crumb', async () => {
    const { m } = setup();
    await m.load(1);
    expect(m.nodeCount).toBe(2);
    expect(m.edgeCount).toBe(1);
    expect(m.graph.getNodeAttribute('k:1', 'color')).toBe(PALETTE[0]);
    expect(m.graph.getNodeAttribute('k:2', 'color')).toBe(NO_CLASS);
    expect(m.graph.getNodeAttribute('k:1', 'label')).toBe('k:1 (300)');
    const bb = m.bbox!;
    expect(bb.x[1] - bb.x[0]).toBeCloseTo(bb.y[1] - bb.y[0]);
    expect(bb.x[0]).toBeLessThanOrEqual(-100);
    expect(bb.x[1]).toBeGreaterThanOrEqual(350);
    expect(m.crumbs.map((c) => c.label)).toEqual(['Overview']);
  });

  it('expands a group into its members and collapses it back with its edges', async () => {
    const { m } = setup();
    await m.load(1);
    expect(await m.expand('k:1')).toBe(true);
    expect(m.graph.hasNode('k:1')).toBe(false);
    expect(m.graph.nodes().sort()).toEqual(['e:10', 'e:11', 'k:2']);
    expect(m.open).toEqual(['k:1']);
    expect(m.note).toContain('first 2 members');
    // Links sized by their thinner end and weight, to a member just added or a node already shown.
    expect(m.graph.getEdgeAttribute('e:10', 'e:11', 'size')).toBeCloseTo(2 * 0.12);
    expect(m.graph.getEdgeAttribute('e:10', 'k:2', 'size')).toBeCloseTo(2 * 0.12 * 2);
    expect(m.graph.getEdgeAttribute('e:10', 'k:2', 'between')).toBe(false);
    expect(await m.expand('k:1')).toBe(false);
    m.collapse('k:1');
    expect(m.graph.nodes().sort()).toEqual(['k:1', 'k:2']);
    expect(m.graph.hasEdge('k:1', 'k:2')).toBe(true);
    expect(m.open).toEqual([]);
  });

  it('expands through the camera when a group fills the screen and sets the breadcrumbs', async () => {
    const { m, b } = setup();
    await m.load(1);
    const zoomed = { toScreen: (x: number, y: number) => ({ x: x * 4 + 500, y: y * 4 + 400 }), width: 1000, height: 800 };
    await m.onCamera(zoomed);
    expect(b.calls).toContain('expand k:1');
    expect(m.crumbs.map((c) => c.label)).toEqual(['Overview', 'k:1 (300)']);
    const out = { toScreen: (x: number, y: number) => ({ x: x * 0.2 + 500, y: y * 0.2 + 400 }), width: 1000, height: 800 };
    await m.onCamera(out);
    expect(m.open).toEqual([]);
    expect(m.graph.hasNode('k:1')).toBe(true);
  });

  it('zooms into a group at once, without waiting for the camera, and points the breadcrumbs at it', async () => {
    const { m, b } = setup();
    await m.load(1);
    expect(await m.zoomInto('k:1')).toBe(true);
    expect(b.calls).toContain('expand k:1');
    expect(m.open).toEqual(['k:1']);
    expect(m.crumbs.map((c) => c.label)).toEqual(['Overview', 'k:1 (300)']);
    // Back to the overview: every group closes and the crumbs go back to the root.
    m.collapseAll();
    expect(m.open).toEqual([]);
    expect(m.crumbs.map((c) => c.label)).toEqual(['Overview']);
  });

  it('keeps a group Zoom in opened and its breadcrumbs while the camera still flies there, and decides once it landed', async () => {
    const { m } = setup();
    await m.load(1);
    let land!: () => void;
    const landed = new Promise<void>((r) => { land = r; });
    expect(await m.zoomInto('k:1', landed)).toBe(true);
    // A frame far out in the flight (frames may come further apart than the camera's debounce):
    // the group is still small on screen but stays open.
    const far = { toScreen: (x: number, y: number) => ({ x: x * 0.2 + 500, y: y * 0.2 + 400 }), width: 1000, height: 800 };
    await m.onCamera(far);
    expect(m.open).toEqual(['k:1']);
    expect(m.crumbs.map((c) => c.label)).toEqual(['Overview', 'k:1 (300)']);
    // Landed (or replaced by another camera move): the same view closes it.
    land();
    await landed;
    await m.onCamera(far);
    expect(m.open).toEqual([]);
  });

  it('drops nodes and edges only inside a batch, so the renderer re-indexes once per change', async () => {
    const { m } = setup();
    let inside = false;
    let batches = 0;
    m.batcher = { start: () => { inside = true; batches++; }, end: () => { inside = false; } };
    const outside: string[] = [];
    m.graph.on('nodeDropped', ({ key }) => { if (!inside) outside.push(key); });
    m.graph.on('edgeDropped', ({ key }) => { if (!inside) outside.push(key); });
    await m.load(1);
    await m.zoomInto('k:1');
    const afterExpand = batches;
    m.collapseAll();
    expect(outside).toEqual([]);
    // Closing every group is one batch, however many groups and members.
    expect(batches - afterExpand).toBe(1);
    expect(m.graph.nodes().sort()).toEqual(['k:1', 'k:2']);
  });

  it('sets the open groups before the renderer re-indexes, and marks links between groups', async () => {
    const { m } = setup();
    const openAtEnd: string[][] = [];
    m.batcher = { start: () => {}, end: () => { openAtEnd.push([...m.open]); } };
    await m.load(1);
    expect(m.graph.getEdgeAttribute('k:1', 'k:2', 'between')).toBe(true);
    await m.expand('k:1');
    // The reducers fade links between groups while a group is open: they read it at the re-index.
    expect(openAtEnd.at(-1)).toEqual(['k:1']);
    expect(m.graph.getEdgeAttribute('e:10', 'e:11', 'between')).toBe(false);
    m.collapse('k:1');
    expect(openAtEnd.at(-1)).toEqual([]);
  });

  it('refuses to put more than MAX_NODES nodes on the map', async () => {
    const { m, b } = setup();
    b.views.set('expand:k:1', {
      kind: 'members', note: '', truncated: false, edges: [],
      nodes: Array.from({ length: MAX_NODES }, (_, i) => node(`e:${i}`, { kind: 'entity', expandable: false })),
    });
    await m.load(1);
    expect(await m.expand('k:1')).toBe(false);
    expect(m.graph.hasNode('k:1')).toBe(true);
    expect(m.note).toContain('more than');
  });

  it('shows an engine error and ignores answers for a document no longer shown', async () => {
    const { m, b } = setup();
    await m.load(2);
    expect(m.error).toContain('no view');
    b.views.set('overview:3', { kind: 'classes', note: '', truncated: false, nodes: [node('k:9')], edges: [] });
    const first = m.load(1);
    const second = m.load(3);
    await Promise.all([first, second]);
    expect(m.graph.nodes()).toEqual(['k:9']);
  });

  it('lays out a neighbourhood around its entity', async () => {
    const { m, b } = setup();
    await m.load(1);
    await m.expand('k:1');
    b.views.set('nb:10', {
      kind: 'neighbourhood', note: '', truncated: false,
      nodes: [node('e:10', { kind: 'entity', x: null, y: null, r: null }), node('e:20', { kind: 'entity', x: null, y: null, r: null }), node('e:21', { kind: 'entity', x: null, y: null, r: null })],
      edges: [{ source: 'e:10', target: 'e:20', weight: 1, label: 'p' }, { source: 'e:21', target: 'e:10', weight: 1, label: 'q' }],
    });
    await m.showNeighbourhood(10);
    expect(m.graph.hasNode('e:20') && m.graph.hasNode('e:21')).toBe(true);
    expect(m.graph.hasEdge('e:10', 'e:20')).toBe(true);
    const a = m.graph.getNodeAttributes('e:20');
    expect(Math.hypot(a.x + 20, a.y)).toBeLessThanOrEqual(2 * 12);
    // Closing the group removes the neighbourhood added inside it.
    m.collapse('k:1');
    expect(m.graph.hasNode('e:20')).toBe(false);
  });

  it('does not count again a label that counts its members', async () => {
    const b = new MemoryBackend();
    b.views.set('overview:1', {
      kind: 'classes', note: 'n', truncated: false,
      nodes: [
        node('c0:1', { x: 0, y: 0, r: 100, size: 9015, label: 'DBpedia ontology · 9,015 terms' }),
        node('c0:2', { x: 300, y: 0, r: 50, size: 40, label: 'Marie Curie' }),
        // In the reader's language (the shell translates what a community holds).
        node('c0:3', { x: 600, y: 0, r: 50, size: 2735, label: 'The DBpedia Ontology · 2.735 Eigenschaften' }),
        node('c0:4', { x: 900, y: 0, r: 50, size: 2735, label: 'The DBpedia Ontology · 2\u202f735 propriétés' }),
      ],
      edges: [],
    });
    const m = new MapState(b, new ClassColors());
    await m.load(1);
    expect(m.graph.getNodeAttribute('c0:1', 'label')).toBe('DBpedia ontology · 9,015 terms');
    expect(m.graph.getNodeAttribute('c0:2', 'label')).toBe('Marie Curie (40)');
    expect(m.graph.getNodeAttribute('c0:3', 'label')).toBe('The DBpedia Ontology · 2.735 Eigenschaften');
    expect(m.graph.getNodeAttribute('c0:4', 'label')).toBe('The DBpedia Ontology · 2\u202f735 propriétés');
  });
  it("fetches a selected group's children ahead, and opens the group with them once", async () => {
    const { m, b } = setup();
    const asked = () => b.calls.filter((c) => c === 'expand k:1').length;
    await m.load(1);
    m.prefetch('k:1');
    m.prefetch('k:1');
    // In the background: nothing drawn, the map not busy.
    expect(m.busy).toBe(0);
    expect(m.graph.hasNode('k:1')).toBe(true);
    expect(asked()).toBe(1);
    expect(await m.expand('k:1')).toBe(true);
    expect(m.graph.nodes().sort()).toEqual(['e:10', 'e:11', 'k:2']);
    expect(asked()).toBe(1);
    // Used once: opened again later, the group asks the engine again.
    m.collapse('k:1');
    expect(await m.expand('k:1')).toBe(true);
    expect(asked()).toBe(2);
    // Nothing ahead for an open group, an entity or a node not on the map.
    m.prefetch('k:1');
    m.prefetch('e:10');
    m.prefetch('k:9');
    expect(b.calls.filter((c) => c.startsWith('expand')).length).toBe(2);
  });

  it('asks again when the fetch ahead failed, and drops what was fetched for another document', async () => {
    const { m, b } = setup();
    const asked = () => b.calls.filter((c) => c === 'expand k:1').length;
    const members = b.views.get('expand:k:1')!;
    b.views.delete('expand:k:1');
    await m.load(1);
    m.prefetch('k:1');
    b.views.set('expand:k:1', members);
    expect(await m.expand('k:1')).toBe(true);
    expect(asked()).toBe(2);
    expect(m.error).toBe('');
    m.collapse('k:1');
    m.prefetch('k:1');
    expect(asked()).toBe(3);
    b.views.set('overview:2', b.views.get('overview:1')!);
    await m.load(2);
    expect(await m.expand('k:1')).toBe(true);
    expect(asked()).toBe(4);
  });

  it('keeps the children of the last three groups selected', async () => {
    const b = new MemoryBackend();
    const keys = ['k:1', 'k:2', 'k:3', 'k:4'];
    b.views.set('overview:1', { kind: 'classes', note: '', truncated: false, nodes: keys.map((k, i) => node(k, { x: 300 * i, y: 0, r: 100 })), edges: [] });
    for (const [i, k] of keys.entries()) {
      b.views.set(`expand:${k}`, { kind: 'members', note: '', truncated: false, nodes: [node(`e:${i}`, { kind: 'entity', x: 300 * i, y: 0, r: 2, expandable: false })], edges: [] });
    }
    const m = new MapState(b, new ClassColors());
    await m.load(1);
    for (const k of keys) m.prefetch(k);
    for (const k of keys) expect(await m.expand(k)).toBe(true);
    // The first one selected was dropped: it alone was asked for twice.
    expect(keys.map((k) => b.calls.filter((c) => c === `expand ${k}`).length)).toEqual([2, 1, 1, 1]);
  });

  it('opens a path of groups down the pyramid in one batch: one re-indexing, the crumbs on the deepest', async () => {
    const b = new MemoryBackend();
    const group = (k: string, level: number, x = 0) => node(k, { kind: 'community', level, x, y: 0, r: 100 / (3 - level) });
    b.views.set('overview:1', { kind: 'pyramid', note: '', truncated: false, nodes: [group('c2:0', 2), group('c2:1', 2, 500)], edges: [] });
    b.views.set('expand:c2:0', { kind: 'children', note: '', truncated: false, nodes: [group('c1:0', 1), group('c1:1', 1, 60)], edges: [{ source: 'c1:0', target: 'c1:1', weight: 3, label: '' }] });
    b.views.set('expand:c1:0', { kind: 'children', note: '', truncated: false, nodes: [group('c0:0', 0)], edges: [] });
    b.views.set('expand:c0:0', { kind: 'members', note: '', truncated: false, nodes: [node('e:9', { kind: 'entity', id: 9, expandable: false })], edges: [] });
    const m = new MapState(b, new ClassColors());
    await m.load(1);
    let batches = 0;
    m.batcher = { start: () => batches++, end: () => {} };
    // Given in any order: each opens once its parent is open.
    expect(await m.openAll(['c0:0', 'c2:0', 'c1:0'])).toEqual(['c2:0', 'c1:0', 'c0:0']);
    expect(batches).toBe(1);
    expect(m.open).toEqual(['c2:0', 'c1:0', 'c0:0']);
    expect(m.graph.hasNode('e:9') && m.graph.hasNode('c1:1') && m.graph.hasNode('c2:1')).toBe(true);
    expect(m.graph.hasNode('c2:0') || m.graph.hasNode('c1:0') || m.graph.hasNode('c0:0')).toBe(false);
    m.pointAt('c0:0');
    expect(m.crumbs.map((c) => c.key)).toEqual([null, 'c2:0', 'c1:0', 'c0:0']);
    // Closing the top group closes those inside it, with their links back.
    m.collapse('c2:0');
    expect(m.open).toEqual([]);
    expect(m.nodeCount).toBe(2);
    // A group whose children would be too many is left closed, the groups above it opened.
    b.views.set('expand:c0:0', { kind: 'members', note: '', truncated: false, nodes: Array.from({ length: MAX_NODES }, (_, i) => node(`e:${i}`, { kind: 'entity', expandable: false })), edges: [] });
    expect(await m.openAll(['c2:0', 'c1:0', 'c0:0'])).toEqual(['c2:0', 'c1:0']);
    expect(m.note).toContain('more than');
  });
});
