// Wires the domain modules together: opening a file loads its map, legend and resets selection.
import { untrack } from 'svelte';
import type { Backend } from './backend';
import { errorText } from './backend';
import { Activity } from './activity/activity.svelte';
import { ClassColors } from './map/colors';
import { CoherenceState } from './coherence/coherence.svelte';
import { HighlightState } from './highlight/highlight.svelte';
import { ImportState } from './import/import.svelte';
import { LaunchTrace } from './launch/launch';
import { LabelLanguages } from './pyramid/languages';
import { ReadsState } from './reads/reads.svelte';
import { SparqlState } from './sparql/sparql.svelte';
import { MapState } from './map/map.svelte';
import { SchemaState } from './schema/schema.svelte';
import { PathsState } from './paths/paths.svelte';
import { SearchState } from './search/search.svelte';
import { ShapesState } from './shapes/shapes.svelte';
import { SelectionState } from './selection/selection.svelte';
import { SourceState } from './source/source.svelte';
import { pageTheme } from './theme/theme.svelte';
import type { Action } from './keys/keys';
import { ViewsState } from './views/views.svelte';
import { BookmarksState } from './views/bookmarks.svelte';
import type { OpenedView, SavedView } from './types';
import type { DocInfo, SearchHit, TermView } from './types';

/** How long the search list rests on a hit before its details are fetched ahead: longer than
 *  the pause between keystrokes of most typing, so a word being typed costs no fetches. */
const HIT_AHEAD_MS = 200;

export type Panel = 'legend' | 'details' | 'info';
export type Dock = 'query' | 'coherence' | 'paths' | null;

export class Session {
  readonly colors = new ClassColors();
  /** Light or dark: the system's unless the user chose. */
  readonly theme = pageTheme();
  readonly highlight = new HighlightState();
  readonly map: MapState;
  readonly sparql: SparqlState;
  readonly coherence: CoherenceState;
  readonly reads: ReadsState;
  readonly launch: LaunchTrace;
  /** The bottom panel shown under the map. */
  dock = $state<Dock>(null);
  readonly schema: SchemaState;
  readonly selection: SelectionState;
  readonly source: SourceState;
  /** Builds of RDF files into .rete files, the build cache. */
  readonly importer: ImportState;
  /** The languages community labels are shown in. */
  readonly labelLanguages: LabelLanguages;
  showLegend = $state(true);
  urlPrompt = $state(false);
  /** Set by the map component: exports the current view. */
  exporter: ((format: 'png' | 'svg') => Promise<void>) | null = null;
  /** Set by the map component: frames a group (opening it; settles when it is open) or returns
   *  to the overview. */
  focuser: ((key: string | null) => Promise<boolean> | void) | null = null;
  /** The search box. */
  readonly search: SearchState;
  /** How two entities are connected. */
  readonly paths: PathsState;
  /** SHACL validation: the Shapes part of the report panel. */
  readonly shapes: ShapesState;
  /** The report panel's part shown. */
  reportPart = $state<'coherence' | 'shapes'>('coherence');
  /** Saved views: captured, restored, the last one per file remembered. */
  readonly views = new ViewsState(typeof localStorage === 'undefined' ? null : localStorage);
  /** Named views of the open file, kept across sessions. */
  readonly bookmarks = new BookmarksState(typeof localStorage === 'undefined' ? null : localStorage);
  /** The view to restore on the document being opened (from a link or a view file). */
  private pendingView: SavedView | null = null;
  /** The last link made by "Copy link to this view". */
  lastLink = $state('');
  /** The `?` overlay listing the shortcuts. */
  showShortcuts = $state(false);
  /** Set by the components that can take the keyboard focus for a shortcut. */
  readonly focusers: Partial<Record<'search' | 'map' | 'editor', () => void>> = {};
  message = $state('');
  /** Told by the shell when the page starts (a crash it recovered from), until dismissed. */
  notice = $state('');
  /** The status bar's spinner: reads under way or the map loading, once that lasts. */
  readonly working = new Activity();

  constructor(readonly backend: Backend) {
    this.map = new MapState(backend, this.colors);
    this.schema = new SchemaState(backend, this.colors, this.highlight);
    this.selection = new SelectionState(backend);
    this.sparql = new SparqlState(backend, this.highlight, typeof localStorage === 'undefined' ? null : localStorage);
    this.coherence = new CoherenceState(backend, this.highlight);
    this.reads = new ReadsState(backend);
    this.sparql.approve = (cost) => this.reads.approve(cost);
    this.launch = new LaunchTrace(backend);
    this.source = new SourceState(backend, (doc) => this.opened(doc));
    this.importer = new ImportState(backend);
    this.labelLanguages = new LabelLanguages(backend);
    // A file given a search index opens in place of the old one.
    this.search = new SearchState(backend, (hit, shown) => this.reveal(hit, shown), (doc) => this.source.run(doc.name, async () => doc, false), this.highlight);
    this.paths = new PathsState(backend, this.highlight);
    this.shapes = new ShapesState(backend, this.highlight);
    this.source.linkOpener = (link) => this.openLink(link);
    $effect.root(() => {
      // Where the user is, remembered for the file a moment after it changes.
      let timer: ReturnType<typeof setTimeout> | undefined;
      $effect(() => {
        void [this.views.moved, this.map.version, this.selection.selected, this.schema.highlighted, this.sparql.text, this.dock, this.sparql.allGraphs, this.coherence.selected, this.coherence.cause];
        if (this.views.restoring || !this.source.doc) return;
        clearTimeout(timer);
        timer = setTimeout(() => untrack(() => {
          const v = this.views.capture(this);
          if (v) this.views.remember(v);
        }), 800);
      });
      $effect(() => this.working.set(this.reads.fetching || this.map.busy > 0));
      // A group selected is often zoomed into next: its children are fetched meanwhile.
      $effect(() => {
        const key = this.selection.requested;
        if (key) untrack(() => this.map.prefetch(key));
      });
      // The search hit Enter would choose, once the list rests on it: its details fetched ahead
      // (not over HTTP, where each would cost requests the user did not ask for).
      $effect(() => {
        const hit = this.search.open ? this.search.hits[this.search.active] : undefined;
        if (!hit || hit.kind !== 'entity' || hit.id <= 0 || this.search.remote) return;
        const t = setTimeout(() => untrack(() => this.selection.prefetch(`e:${hit.id}`)), HIT_AHEAD_MS);
        return () => clearTimeout(t);
      });
    });
  }

  private async opened(doc: DocInfo): Promise<void> {
    this.colors.setClasses(doc.classes.map((c) => c.nt));
    this.selection.reset(doc.doc);
    this.search.reset(doc.doc, doc.remote);
    this.paths.reset(doc.doc);
    this.highlight.clear();
    this.coherence.reset(doc.doc);
    this.shapes.reset(doc.doc);
    this.reads.watch(doc.doc, doc.remote);
    this.launch.mark('opened');
    // The map and the legend first (they make the first view); the query context after them.
    const legend = this.schema.load(doc.doc);
    await this.map.load(doc.doc, (m) => this.launch.mark(m));
    await legend;
    await this.sparql.load(doc);
    this.bookmarks.load(doc.source);
    // A view asked for (a link, a view file), else where the user was when the file was last open.
    const view = this.pendingView ?? this.views.last(doc.source);
    this.pendingView = null;
    if (view) await this.views.restore(this, view);
  }

  /** Opens a document with a view to restore on it (`open` gives both, or null if cancelled). */
  private openWithView(label: string, open: () => Promise<OpenedView | null>): Promise<boolean> {
    return this.source.run(label, async () => {
      const o = await open();
      this.pendingView = o?.view ?? null;
      return o?.doc ?? null;
    }, false);
  }

  /** Opens a rete:// link: its file (the shell asks the user first) at the view it describes. */
  openLink(link: string): Promise<boolean> {
    return this.openWithView('a link', () => this.backend.openLink(link));
  }

  /** Opens a saved view file the user picks. */
  openViewFile(): Promise<boolean> {
    return this.openWithView('a view', () => this.backend.openViewFile());
  }

  /** Saves the current view as a file. */
  async saveView(): Promise<void> {
    const v = this.views.capture(this);
    if (!v) return;
    try {
      const path = await this.backend.saveView(v, (this.source.doc?.name ?? 'view').replace(/\.[^.]*$/, ''));
      if (path) this.message = `Saved the view to ${path}`;
    } catch (e) {
      this.message = `Could not save the view: ${errorText(e)}`;
    }
  }

  /** Bookmarks the current view of the file as `name` (made up when empty). */
  bookmark(name: string): void {
    const v = this.views.capture(this);
    if (!v) return;
    const n = this.bookmarks.add(v, name);
    this.message = this.bookmarks.error || `Bookmarked “${n}”`;
  }

  /** Goes to bookmark `name` of the open file. */
  async goToBookmark(name: string): Promise<void> {
    const b = this.bookmarks.list.find((x) => x.name === name);
    if (!b || !this.source.doc) return;
    this.bookmarks.shown = false;
    await this.views.restore(this, b.view);
  }

  /** A name for a bookmark of the current view: what is selected, else the group in view. */
  bookmarkName(): string {
    const d = this.selection.details;
    const label = d?.kind === 'entity' ? d.data.term.label : d?.kind === 'group' ? d.data.label : this.map.crumbs.at(-1)?.label;
    return label ?? this.source.doc?.name ?? '';
  }

  /** Puts a rete:// link to the current view on the clipboard (and shows it). */
  async copyLink(): Promise<void> {
    const v = this.views.capture(this);
    if (!v) return;
    try {
      const link = await this.backend.copyLink(v);
      this.lastLink = link;
      this.message = `Link copied: ${link}`;
    } catch (e) {
      this.message = `Could not copy a link: ${errorText(e)}`;
    }
  }

  /** Starts listening to the shell (queued files, menu) and opens what the command line gave. */
  async start(): Promise<void> {
    // Listen before draining so no hand-over is missed; the recent list does not hold up opening.
    await Promise.all([
      this.backend.onOpenRequested(() => void this.source.drainPending()),
      this.backend.onMenu((id) => void this.menu(id)),
      this.backend.onCoherenceProgress((p) => this.coherence.onProgress(p)),
      this.backend.onShapesProgress((p) => this.shapes.onProgress(p)),
      this.importer.listen(),
      this.backend.onIndexProgress((v) => this.search.onIndexProgress(v)),
      // Before any file opens: the shell names communities in these languages.
      this.labelLanguages.apply(),
      // After a crash of the webview's process the shell loaded this page again: say so.
      this.backend.takeNotice().then((n) => { if (n) this.notice = n; }),
    ]);
    this.launch.mark('listening');
    const recent = this.source.refreshRecent();
    await this.source.drainPending();
    await recent;
  }

  async menu(id: string): Promise<void> {
    switch (id) {
      case 'open': await this.source.openDialog(); break;
      case 'open-url': this.urlPrompt = true; break;
      case 'export-png': await this.export('png'); break;
      case 'export-svg': await this.export('svg'); break;
      case 'zoom-out': this.focus(null); break;
      case 'toggle-legend': this.showLegend = !this.showLegend; break;
      case 'save-rete': if (this.source.doc) this.message = await this.importer.saveAs(this.source.doc.doc, this.source.doc.name); break;
      case 'clear-cache': this.message = await this.importer.clearCache(); break;
      case 'query': this.toggleDock('query'); break;
      case 'coherence': this.toggleDock('coherence'); break;
    }
  }

  /** A page-wide shortcut (core/keys). */
  shortcut(a: Action): void {
    switch (a) {
      case 'help': this.showShortcuts = !this.showShortcuts; break;
      case 'search': this.focusers.search?.(); break;
      case 'map': this.focusers.map?.(); break;
      case 'query':
        this.toggleDock('query');
        // Opened from the keyboard: the editor takes the keys (it mounts on the next frames).
        if (this.dock === 'query') this.focusWhenReady('editor');
        else this.focusers.map?.();
        break;
      case 'coherence': this.toggleDock('coherence'); break;
      case 'legend': this.showLegend = !this.showLegend; break;
      case 'theme': this.theme.cycle(); break;
      case 'link': void this.copyLink(); break;
      case 'save-view': void this.saveView(); break;
      case 'open-view': void this.openViewFile(); break;
      case 'bookmarks': this.bookmarks.shown = !this.bookmarks.shown; break;
    }
  }

  /** Focuses `what` as soon as its component has mounted (the query pane loads on first use). */
  private focusWhenReady(what: 'editor', tries = 40): void {
    const f = this.focusers[what];
    if (f) f();
    else if (tries > 0) setTimeout(() => this.focusWhenReady(what, tries - 1), 50);
  }

  async export(format: 'png' | 'svg'): Promise<void> {
    if (!this.exporter) return;
    try {
      await this.exporter(format);
    } catch (e) {
      this.message = `Export failed: ${errorText(e)}`;
    }
  }

  /** Finds the paths from the entity "Connect to…" was chosen on to `t`, shown in the dock. */
  async connect(t: TermView): Promise<void> {
    this.dock = 'paths';
    await this.paths.connect(t);
  }

  toggleDock(d: Exclude<Dock, null>): void {
    this.dock = this.dock === d ? null : d;
  }

  focus(key: string | null): Promise<boolean> | void {
    return this.focuser?.(key);
  }

  /**
   * Takes the map to a search hit: an entity selected with its details first, then the map opened
   * down the pyramid to it (the levels' communities fetched, then drawn together) and the camera
   * flown to its community; a class highlighted as the legend does; a predicate's use shown in the
   * query pane; a class or predicate on the map (an ontology's) gone to as an entity is too.
   * `shown` is called once the details are in (the search list closes then).
   */
  async reveal(hit: SearchHit, shown: () => void = () => {}): Promise<void> {
    // A class or predicate described by triples of its own (an ontology's) is on the map too.
    const onMap = hit.path.length > 0;
    if (hit.kind === 'class') {
      shown();
      // Its instances lit as the legend does; an ontology's class without instances would only
      // dim the whole map, itself included.
      if ((!onMap || this.schema.instances(hit.nt) > 0) && this.schema.highlighted !== hit.nt) this.schema.toggle(hit.nt);
      if (hit.id > 0) await this.selection.selectEntity(hit.id);
    } else if (hit.kind === 'predicate') {
      shown();
      this.sparql.use(`SELECT ?subject ?object WHERE {\n  ?subject ${hit.nt} ?object\n} LIMIT 100`);
      this.dock = 'query';
      await this.sparql.run();
      if (hit.id > 0) await this.selection.selectEntity(hit.id);
    } else {
      // The details need no map: asked first and alone, they come as fast as a click's (the
      // map's node of the entity has the same key, so it shows selected once it is on the map).
      if (hit.id > 0) await this.selection.selectEntity(hit.id);
      shown();
    }
    if (!onMap) return;
    // The map's work starts once the details are painted: its answers are decoded and its graph
    // re-indexed on the page's thread, and the details' frame waited for them (one to three
    // frames of 40–80 ms in software GL here).
    await afterPaint();
    // A key of the path never on the map (a group of one child opens straight into that child's
    // contents) is passed over; the keys after it open.
    await this.map.openAll(hit.path);
    const deepest = [...hit.path].reverse().find((k) => this.map.open.includes(k));
    if (deepest) await this.focus(deepest);
  }
}

/** Settles once the page has painted its next frame (at once where there are no frames). */
function afterPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve();
  return new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
}
