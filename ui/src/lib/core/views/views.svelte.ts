// Saved views: where the user is in a file (camera, opened groups, selection, highlighted class
// or coherence finding, query) captured, restored, and remembered per file so that reopening a file comes back to it.
// The file and link formats are the shell's (crates/rete-explore/src/view.rs); here they are data.
import type { Session } from '../session.svelte';
import type { Camera, SavedView } from '../types';

const LAST = 'rete.view:';
const INDEX = 'rete.views';
/** Files whose last view is kept (the oldest is forgotten first). */
const KEEP = 50;

interface Store { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void }

export class ViewsState {
  /** Set by the map component: its camera now, and a way to put it somewhere. */
  camera: { get(): Camera; set(c: Camera): Promise<unknown> } | null = null;
  /** Counts the map camera's moves: the last view is remembered after them. */
  moved = $state(0);
  /** While a view is restored nothing is remembered: half a view is not where the user was. */
  restoring = $state(false);
  /** Settles once the view last restored has landed: its groups open and the camera on it. */
  private landing: Promise<unknown> = Promise.resolve();

  constructor(private store: Store | null) {}

  /** The view the session shows now; null without a document or a map. */
  capture(s: Session): SavedView | null {
    const doc = s.source.doc;
    const camera = this.camera?.get();
    if (!doc || !camera) return null;
    return {
      format: 'rete-view',
      version: 1,
      source: doc.source,
      camera: { x: camera.x, y: camera.y, ratio: camera.ratio },
      open: [...s.map.open],
      selected: s.selection.selected,
      class: s.schema.highlighted,
      query: s.dock === 'query' ? s.sparql.text : null,
      allGraphs: s.sparql.namedGraphs > 0 ? s.sparql.allGraphs : null,
      finding: s.coherence.cause >= 0 ? `cause:${s.coherence.cause}` : s.coherence.selected >= 0 ? `finding:${s.coherence.selected}` : null,
    };
  }

  /** Keeps `view` as its file's last view. */
  remember(view: SavedView): void {
    if (!this.store || this.restoring) return;
    try {
      this.store.setItem(LAST + view.source, JSON.stringify(view));
      const order = [view.source, ...this.index().filter((s) => s !== view.source)];
      for (const gone of order.slice(KEEP)) this.store.removeItem(LAST + gone);
      this.store.setItem(INDEX, JSON.stringify(order.slice(0, KEEP)));
    } catch {
      // Storage full or refused: the view is not remembered, nothing else is lost.
    }
  }

  /** The last view of `source`, if one was kept and still reads as a view. */
  last(source: string): SavedView | null {
    try {
      const v = JSON.parse(this.store?.getItem(LAST + source) ?? 'null') as SavedView | null;
      return v && v.format === 'rete-view' && v.version === 1 && v.source === source && v.camera && Array.isArray(v.open) ? v : null;
    } catch {
      return null;
    }
  }

  private index(): string[] {
    try {
      const i = JSON.parse(this.store?.getItem(INDEX) ?? '[]');
      return Array.isArray(i) ? i.filter((s): s is string => typeof s === 'string') : [];
    } catch {
      return [];
    }
  }

  /**
   * Puts the session where `view` was: its groups opened (each once its parent is on the map),
   * the camera, the highlighted class, the selection, the query. What no longer exists in the file
   * (a group of an older build) is left out; the rest is restored.
   */
  async restore(s: Session, view: SavedView): Promise<void> {
    this.restoring = true;
    let landed: Promise<unknown> = Promise.resolve();
    let finish: () => void = () => {};
    this.landing = new Promise<void>((r) => { finish = r; });
    try {
      // Groups open now that the view does not have (a bookmark chosen mid-session) close first.
      for (const k of [...s.map.open].reverse()) if (!view.open.includes(k) && s.map.open.includes(k)) s.map.collapse(k);
      // Opened in place, the camera still: it moves once, to the view's (a flight to each group
      // would end after the camera was set, somewhere else).
      await s.map.openAll(view.open);
      const deepest = [...view.open].reverse().find((k) => s.map.open.includes(k));
      if (deepest) s.map.pointAt(deepest);
      // The groups open are the view's: the semantic zoom does not decide on the camera it lands
      // on (its debounce runs out meanwhile); the user's next move does.
      const moved = this.camera?.set(view.camera);
      if (moved) {
        landed = moved.then(() => new Promise((r) => setTimeout(r, 400)));
        s.map.hold('', landed);
        // The breadcrumbs then follow the group in view, as after any move of the camera.
        void landed.then(() => s.map.refocus());
      }
      const shown = s.schema.highlighted;
      if (shown !== (view.class ?? null)) s.schema.toggle(view.class ?? shown!);
      if (view.finding) await restoreFinding(s, view.finding);
      else if (s.coherence.selected >= 0 || s.coherence.cause >= 0) await s.coherence.select(-1);
      if (view.query != null) {
        s.sparql.use(view.query);
        if (view.allGraphs != null && s.sparql.namedGraphs > 0) s.sparql.setAllGraphs(view.allGraphs);
        s.dock = 'query';
      }
      const sel = view.selected;
      if (sel && s.map.graph.hasNode(sel)) await s.selection.select(sel);
      else if (sel?.startsWith('e:')) await s.selection.selectEntity(Number(sel.slice(2)));
      else if (!sel && s.selection.selected) await s.selection.select(null);
    } finally {
      this.restoring = false;
      void landed.then(finish, finish);
    }
  }

  /**
   * Settles once a view being restored has landed (at once when none is): a group double-clicked
   * meanwhile opens after it, on the map and camera the view left. Opened during it, its flight
   * would be ended by the view's camera, set as an animation that ends any under way.
   */
  settled(): Promise<unknown> {
    return this.landing;
  }
}

/** Selects a coherence report's row (`cause:K`, `finding:I`), running the report first if needed:
 * it is the same report for the same file, so the indices still point at the same rows. */
async function restoreFinding(s: Session, finding: string): Promise<void> {
  const m = /^(cause|finding):(\d+)$/.exec(finding);
  if (!m) return;
  s.dock = 'coherence';
  if (!s.coherence.report && !s.coherence.running) await s.coherence.run();
  const n = Number(m[2]);
  if (m[1] === 'cause') await s.coherence.selectCause(n);
  else await s.coherence.select(n);
}
