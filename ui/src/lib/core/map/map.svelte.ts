// The map's state: which nodes are on screen (a graphology graph that sigma draws), the groups the
// camera has opened (semantic zoom), breadcrumbs, and the actions that change them.
import Graph from 'graphology';
import type { Backend } from '../backend';
import { errorText } from '../backend';
import { span } from '../perf/perf';
import type { MapEdge, MapNode, MapView } from '../types';
import { ClassColors } from './colors';
import { layout } from './layout';
import { decide, focusPath, MAX_NODES, type Circle, type Projection } from './zoom';

export interface NodeAttrs {
  x: number; y: number; size: number; color: string; label: string;
  kind: MapNode['kind']; r: number; expandable: boolean; cls: string | null;
  classes: string[]; count: number; id: number; parent: string | null;
}
export interface EdgeAttrs {
  size: number; weight: number; predicate: string; color: string;
  /** Between two groups (no entity end): such links fade while a group is open. */
  between: boolean;
}
export interface Crumb { key: string | null; label: string }

interface Group { node: MapNode; attrs: NodeAttrs; parent: string | null; children: string[]; edges: [string, string, EdgeAttrs][] }

export class MapState {
  readonly graph = new Graph<NodeAttrs, EdgeAttrs>({ type: 'directed', multi: false, allowSelfLoops: false });
  kind = $state('');
  note = $state('');
  truncated = $state(false);
  nodeCount = $state(0);
  edgeCount = $state(0);
  crumbs = $state<Crumb[]>([]);
  /** Where the camera stopped last (`onCamera`), decided on or not. */
  private projection: Projection | null = null;
  busy = $state(0);
  error = $state('');
  /** Expanded group keys, parents before children. */
  open = $state<string[]>([]);
  /** Extent of the first view, so later additions do not re-frame the camera. */
  bbox = $state<{ x: [number, number]; y: [number, number] } | null>(null);
  /** Bumped after every change of the graph's structure. */
  version = $state(0);

  private groups = new Map<string, Group>();
  private doc = 0;
  private generation = 0;
  private pendingExpand = new Set<string>();
  /**
   * Children fetched ahead for groups the user selected (the next step is often Zoom in), by
   * group and place; the oldest dropped beyond `AHEAD`. On a cold or remote file the engine's
   * answer waits for the disk or the network: it then comes while the user reads the details.
   */
  private ahead = new Map<string, Promise<MapView>>();
  /** Groups the camera is flying into (Zoom in), with the number of flights to each. */
  private flying = new Map<string, number>();

  /**
   * Set by the map view: called around bulk changes of the graph. sigma re-indexes the whole
   * graph once per dropped node or edge; closing a group of 7,500 members hung the page for
   * minutes. The view detaches the renderer in `start` and re-indexes once in `end`.
   */
  batcher: { start(): void; end(): void } | null = null;
  private batchDepth = 0;

  constructor(private backend: Backend, readonly colors: ClassColors) {}

  /** Runs `fn` (synchronous graph changes) with the renderer detached. */
  private batch(fn: () => void): void {
    if (this.batchDepth++ === 0) this.batcher?.start();
    const t0 = performance.now();
    try {
      fn();
    } finally {
      if (--this.batchDepth === 0) {
        // The scale benchmark's trace: building the graph, then the renderer's re-indexing.
        span('graph', t0);
        const t1 = performance.now();
        this.batcher?.end();
        span('index', t1);
      }
    }
  }

  /** Loads the first view of document `doc`; `mark` notes when it arrived (launch trace). */
  async load(doc: number, mark?: (name: string) => void): Promise<void> {
    const gen = ++this.generation;
    this.doc = doc;
    this.clear();
    this.busy++;
    try {
      const view = await this.backend.overview(doc);
      mark?.('top-level');
      if (gen !== this.generation) return;
      this.kind = view.kind;
      this.note = view.note;
      this.truncated = view.truncated;
      this.batch(() => this.addView(view, null));
      this.bbox = extent(view.nodes);
      this.updateCrumbs([]);
      mark?.('graph-built');
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
    } finally {
      this.busy--;
      this.touch();
    }
  }

  clear(): void {
    this.batch(() => this.graph.clear());
    this.ahead.clear();
    this.groups.clear();
    this.open = [];
    this.bbox = null;
    this.error = '';
    this.note = '';
    this.kind = '';
    this.crumbs = [];
    this.touch();
  }

  private touch(): void {
    this.nodeCount = this.graph.order;
    this.edgeCount = this.graph.size;
    this.version++;
  }

  private attrs(n: MapNode, parent: string | null, x: number, y: number): NodeAttrs {
    const r = n.r ?? 1;
    const count = n.kind === 'entity' ? 1 : n.size;
    // A label that already counts its members ("DBpedia ontology · 9,015 terms", "… · 9.015
    // Begriffe", "… · 9 015 termes") gets no count.
    const counted = / · \d[\d,.\u202f]*( |$)/.test(n.label);
    const label = n.kind === 'entity' || counted ? n.label : `${n.label} (${count.toLocaleString('en')})`;
    return {
      x, y, size: r, r, label, kind: n.kind, expandable: n.expandable, cls: n.class, count, id: n.id, parent,
      color: this.colors.color(n.class),
      classes: n.classes.length ? n.classes.map((c) => c.nt) : n.class ? [n.class] : [],
    };
  }

  /** Adds a view's nodes that are not on the map yet, and its links; returns the nodes added. */
  private addView(view: MapView, parent: string | null): string[] {
    const added = new Map<string, NodeAttrs>();
    for (const n of view.nodes) {
      if (this.graph.hasNode(n.key) || this.groups.has(n.key)) continue;
      const a = this.attrs(n, parent, n.x ?? 0, n.y ?? 0);
      this.graph.addNode(n.key, a);
      added.set(n.key, a);
    }
    this.addEdges(view.edges, added);
    return [...added.keys()];
  }

  /**
   * Adds links between nodes on the map. `added`: the attributes of the nodes just added, most
   * links' ends (a large members view adds thousands: each graph lookup saved counts).
   */
  private addEdges(edges: MapEdge[], added: Map<string, NodeAttrs> = new Map()): void {
    const g = this.graph;
    const node = (k: string) => added.get(k) ?? (g.hasNode(k) ? g.getNodeAttributes(k) : undefined);
    for (const e of edges) {
      if (e.source === e.target) continue;
      const s = node(e.source);
      const t = node(e.target);
      if (!s || !t || g.hasEdge(e.source, e.target)) continue;
      const between = s.kind !== 'entity' && t.kind !== 'entity';
      const size = Math.min(s.r, t.r) * (s.kind === 'entity' ? 0.12 : 0.05) * (1 + Math.log10(Math.max(1, e.weight)));
      g.addEdge(e.source, e.target, { size, weight: e.weight, predicate: e.label, color: '#b8c0cc', between });
    }
  }

  /**
   * Fetches the children of group `key` in the background, for an `expand` to come. Nothing is
   * drawn and the map is not busy meanwhile; a failure is left to that expand, which asks again.
   */
  prefetch(key: string): void {
    if (this.groups.has(key) || this.pendingExpand.has(key) || !this.graph.hasNode(key)) return;
    const a = this.graph.getNodeAttributes(key);
    const k = aheadKey(key, a);
    if (!a.expandable || this.ahead.has(k)) return;
    const view = this.backend.expand(this.doc, key, a.x, a.y, a.r);
    view.catch(() => {});
    this.ahead.set(k, view);
    for (const old of this.ahead.keys()) {
      if (this.ahead.size <= AHEAD) break;
      this.ahead.delete(old);
    }
  }

  /** Opens group `key`: replaces it by its children, fetched from the engine. */
  async expand(key: string): Promise<boolean> {
    return (await this.openAll([key])).includes(key);
  }

  /**
   * Opens groups `keys` (each once its parent is open: a search hit's path down the pyramid, a
   * saved view's groups) and returns those opened. The children of all are fetched first, then
   * put on the map in one batch: the renderer re-indexes the graph once, not once a level (at
   * 100 M a search hit five levels down cost five re-indexings and frames, ~40 ms each).
   */
  async openAll(keys: string[]): Promise<string[]> {
    const gen = this.generation;
    // Nodes of the children fetched and not on the map yet: the groups among them open next.
    const coming = new Map<string, NodeAttrs>();
    const attrsOf = (k: string) => (this.graph.hasNode(k) ? this.graph.getNodeAttributes(k) : coming.get(k));
    const steps: { key: string; attrs: NodeAttrs; view: MapView }[] = [];
    let waiting = keys.filter((k) => !this.groups.has(k) && !this.pendingExpand.has(k));
    if (!waiting.length) return [];
    const claimed: string[] = [];
    this.busy++;
    try {
      let order = this.graph.order;
      for (let progress = true; waiting.length && progress; ) {
        progress = false;
        const ready = waiting.filter((k) => attrsOf(k)?.expandable && !this.pendingExpand.has(k));
        waiting = waiting.filter((k) => !ready.includes(k));
        for (const k of ready) this.pendingExpand.add(k);
        claimed.push(...ready);
        const views = await Promise.all(ready.map((k) => this.children(k, attrsOf(k)!)));
        if (gen !== this.generation) return [];
        for (const [i, key] of ready.entries()) {
          const view = views[i];
          const attrs = attrsOf(key)!;
          if (order - 1 + view.nodes.length > MAX_NODES) {
            this.note = `Not opening ${attrs.label}: the map would show more than ${MAX_NODES.toLocaleString('en')} nodes. Zoom out elsewhere first.`;
            continue;
          }
          order += view.nodes.length - 1;
          steps.push({ key, attrs, view });
          for (const n of view.nodes) if (!coming.has(n.key)) coming.set(n.key, this.attrs(n, key, n.x ?? 0, n.y ?? 0));
          progress = true;
        }
      }
      const opened: string[] = [];
      // The renderer re-indexes once, at the end of the batch: what its reducers read (the open
      // groups) is set before that, so no second full pass is needed.
      this.batch(() => {
        for (const { key, attrs, view } of steps) {
          // Closed or gone meanwhile (the user zoomed out, a parent was not opened).
          if (!this.graph.hasNode(key) || this.groups.has(key)) continue;
          const a = this.graph.getNodeAttributes(key);
          const edges: [string, string, EdgeAttrs][] = [];
          this.graph.forEachEdge(key, (_e, ea, s, t) => edges.push([s, t, ea]));
          this.graph.dropNode(key);
          const children = this.addView(view, key);
          this.groups.set(key, { node: nodeOf(key, a), attrs: a, parent: a.parent, children, edges });
          opened.push(key);
          if (view.truncated) this.note = `${attrs.label}: showing the first ${view.nodes.length.toLocaleString('en')} members.`;
        }
        if (opened.length) this.open = [...this.open, ...opened];
      });
      return opened;
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
      return [];
    } finally {
      for (const k of claimed) this.pendingExpand.delete(k);
      this.busy--;
      this.touch();
    }
  }

  /** Group `key`'s children: fetched ahead if they were (`prefetch`), else asked now. */
  private children(key: string, a: NodeAttrs): Promise<MapView> {
    const k = aheadKey(key, a);
    const early = this.ahead.get(k);
    this.ahead.delete(k);
    const fetch = () => this.backend.expand(this.doc, key, a.x, a.y, a.r);
    return early ? early.catch(fetch) : fetch();
  }

  /**
   * Zooms into group `key` (the Zoom in button, a double click): opens it at once, without
   * waiting for the camera to settle, and points the breadcrumbs at it. `landed` settles when the
   * camera's flight there ends: until then the semantic zoom decides nothing. In software GL frames
   * can come further apart than the camera's debounce, and a decision on a view still far out
   * closed the group just opened and reset the breadcrumbs.
   */
  async zoomInto(key: string, landed?: Promise<unknown>): Promise<boolean> {
    if (landed) this.hold(key, landed);
    const opened = await this.expand(key);
    this.pointAt(key);
    return opened;
  }

  /** Points the breadcrumbs at open group `key`: the groups from the top down to it. */
  pointAt(key: string): void {
    if (!this.groups.has(key)) return;
    const path: string[] = [];
    for (let k: string | null = key; k !== null && this.groups.has(k); k = this.groups.get(k)!.parent) path.unshift(k);
    this.updateCrumbs(path);
  }

  /** Closes group `key` (and any group opened inside it) back into one node. */
  collapse(key: string): void {
    const g = this.groups.get(key);
    if (!g) return;
    this.batch(() => {
      this.collapseNow(key, g);
      this.groups.delete(key);
      this.open = this.open.filter((k) => k !== key);
    });
    this.touch();
  }

  private collapseNow(key: string, g: Group): void {
    for (const child of g.children) {
      if (this.groups.has(child)) this.collapse(child);
    }
    for (const child of g.children) {
      if (this.graph.hasNode(child)) this.graph.dropNode(child);
    }
    // Neighbourhood nodes added inside the group go with it.
    this.graph.forEachNode((n, a) => { if (a.parent === key) this.graph.dropNode(n); });
    this.graph.addNode(key, g.attrs);
    for (const [s, t, ea] of g.edges) {
      if (this.graph.hasNode(s) && this.graph.hasNode(t) && !this.graph.hasEdge(s, t)) this.graph.addEdge(s, t, ea);
    }
  }

  /** Closes every open group (the renderer re-indexes once). */
  collapseAll(): void {
    this.batch(() => {
      for (const k of [...this.open].reverse()) this.collapse(k);
    });
    this.updateCrumbs([]);
  }

  circleOf(key: string): Circle | null {
    const g = this.groups.get(key);
    const a = g ? g.attrs : this.graph.hasNode(key) ? this.graph.getNodeAttributes(key) : null;
    return a ? { key, x: a.x, y: a.y, r: a.r } : null;
  }

  private closedCircles(): Circle[] {
    const out: Circle[] = [];
    this.graph.forEachNode((key, a) => { if (a.expandable) out.push({ key, x: a.x, y: a.y, r: a.r }); });
    return out;
  }

  private openCircles(): Circle[] {
    return this.open.map((k) => this.circleOf(k)).filter((c): c is Circle => c !== null);
  }

  /**
   * No semantic-zoom decision until `landed` settles: the camera is on its way (`key`: what it
   * flies to), or it lands on a view whose open groups were chosen already (a restored view).
   */
  hold(key: string, landed: Promise<unknown>): void {
    this.flying.set(key, (this.flying.get(key) ?? 0) + 1);
    const done = () => {
      const n = (this.flying.get(key) ?? 1) - 1;
      if (n > 0) this.flying.set(key, n);
      else this.flying.delete(key);
    };
    landed.then(done, done);
  }

  /** Semantic zoom: called when the camera stops moving. */
  async onCamera(p: Projection): Promise<void> {
    this.projection = p;
    // A view in the middle of a Zoom in flight is no view to decide on: the flight's last frame
    // moves the camera once more, and that pause decides.
    if (this.flying.size) return;
    const { expand, collapse } = decide(p, this.closedCircles(), this.openCircles());
    if (collapse.length) this.batch(() => { for (const k of collapse) this.collapse(k); });
    // One or two at a time: each expansion changes what is on screen.
    for (const k of expand.slice(0, 2)) await this.expand(k);
    this.updateCrumbs(focusPath(p, this.openCircles()));
  }

  /**
   * Points the breadcrumbs at the open groups under the viewport's centre, where the camera
   * stopped last: after a restored view lands, whose last opened group may be one the semantic
   * zoom opened beside the one in view.
   */
  refocus(): void {
    if (this.projection) this.updateCrumbs(focusPath(this.projection, this.openCircles()));
  }

  private updateCrumbs(path: string[]): void {
    const crumbs: Crumb[] = [{ key: null, label: 'Overview' }];
    for (const k of path) {
      const g = this.groups.get(k);
      if (g) crumbs.push({ key: k, label: g.attrs.label });
    }
    this.crumbs = crumbs;
  }

  /** Adds an entity's neighbourhood around it (or as a new view if it is not on the map). */
  async showNeighbourhood(id: number): Promise<void> {
    const gen = this.generation;
    this.busy++;
    try {
      const view = await this.backend.neighbourhood(this.doc, id);
      if (gen !== this.generation) return;
      const key = `e:${id}`;
      let cx = 0, cy = 0, R = 100, parent: string | null = null;
      if (this.graph.hasNode(key)) {
        const a = this.graph.getNodeAttributes(key);
        cx = a.x; cy = a.y; R = a.r * 12; parent = a.parent;
      } else if (this.bbox) {
        cx = (this.bbox.x[0] + this.bbox.x[1]) / 2;
        cy = (this.bbox.y[0] + this.bbox.y[1]) / 2;
        R = Math.max(this.bbox.x[1] - this.bbox.x[0], this.bbox.y[1] - this.bbox.y[0]) / 4;
      }
      if (this.graph.order + view.nodes.length > MAX_NODES) {
        this.note = `Not adding the neighbourhood: the map would show more than ${MAX_NODES.toLocaleString('en')} nodes.`;
        return;
      }
      const pos = await layout(view.nodes, view.edges, cx, cy, R, key);
      if (gen !== this.generation) return;
      const r = Math.max(R / Math.sqrt(view.nodes.length + 1) * 0.18, R * 0.01);
      for (const n of view.nodes) {
        if (this.graph.hasNode(n.key)) continue;
        const p = pos.get(n.key) ?? { x: cx, y: cy };
        this.graph.addNode(n.key, this.attrs({ ...n, r }, parent, p.x, p.y));
      }
      if (!this.bbox) this.bbox = extent(view.nodes.map((n) => ({ ...n, ...pos.get(n.key), r })));
      this.addEdges(view.edges);
      if (!this.kind) this.kind = 'neighbourhood';
      if (view.truncated) this.note = `Showing the first ${view.nodes.length} neighbours.`;
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
    } finally {
      this.busy--;
      this.touch();
    }
  }

  /** Whether node `key` belongs to class `cls` (entities) or holds members of it (groups). */
  hasClass(key: string, cls: string): boolean {
    return this.graph.getNodeAttribute(key, 'classes').includes(cls);
  }

  /** The biggest node on the map (by radius), e.g. to point at it. */
  largest(): string | null {
    let best: string | null = null;
    let br = -1;
    this.graph.forEachNode((k, a) => { if (a.r > br) { br = a.r; best = k; } });
    return best;
  }
}

/** Groups whose children are kept fetched ahead (the last ones selected). */
const AHEAD = 3;

/** A group's children depend on where it is drawn: the engine places them inside its circle. */
function aheadKey(key: string, a: NodeAttrs): string {
  return `${key} ${a.x} ${a.y} ${a.r}`;
}

function nodeOf(key: string, a: NodeAttrs): MapNode {
  return { key, kind: a.kind, label: a.label, size: a.count, class: a.cls, x: a.x, y: a.y, r: a.r, expandable: a.expandable, level: null, id: a.id, classes: [] };
}

function extent(nodes: { x: number | null; y: number | null; r: number | null }[]): { x: [number, number]; y: [number, number] } | null {
  if (!nodes.length) return null;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const n of nodes) {
    const r = n.r ?? 0, x = n.x ?? 0, y = n.y ?? 0;
    x0 = Math.min(x0, x - r); x1 = Math.max(x1, x + r); y0 = Math.min(y0, y - r); y1 = Math.max(y1, y + r);
  }
  // A square box keeps circles round whatever the window's aspect.
  const w = Math.max(x1 - x0, y1 - y0, 1);
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  return { x: [cx - w / 2, cx + w / 2], y: [cy - w / 2, cy + w / 2] };
}
