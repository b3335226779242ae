// The only way the UI reaches data: the app's Tauri commands (see src-tauri/src/commands.rs, each
// a wrapper over crates/rete-explore/src/ops.rs).
import { invoke } from '@tauri-apps/api/core';
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import { mark, traced } from './perf/perf';
import type {
  CacheStats, Cell, CoherenceOutcome, ErrorKind, CoherenceProgress, CostEstimate, DocInfo, EntityDetails, GroupDetails, ImportView,
  HitKind, Legend, Located, MapView, OpenedView, PathFilters, PathsView, QueryOutcome, ReadView, SavedView, SearchView, SpreadView, ShapesOutcome, ShapesProgress, SparqlContext,
} from './types';
import { decodeView, type WireView } from './wire';

export interface Backend {
  openPath(path: string): Promise<DocInfo>;
  openUrl(url: string): Promise<DocInfo>;
  openDialog(): Promise<DocInfo | null>;
  takePending(): Promise<string[]>;
  /** What happened before this page started (its webview process ended), told once. */
  takeNotice(): Promise<string | null>;
  /** The user's languages (BCP 47), most preferred first: community labels follow them. */
  setLanguages(languages: string[]): Promise<void>;
  recentFiles(): Promise<string[]>;
  closeDoc(doc: number): Promise<void>;
  overview(doc: number): Promise<MapView>;
  expand(doc: number, key: string, x: number, y: number, r: number): Promise<MapView>;
  entity(doc: number, id: number): Promise<EntityDetails>;
  neighbourhood(doc: number, id: number): Promise<MapView>;
  group(doc: number, key: string): Promise<GroupDetails>;
  legend(doc: number): Promise<Legend>;
  exportView(format: 'png' | 'svg', data: string, name: string): Promise<string | null>;
  onOpenRequested(cb: () => void): Promise<UnlistenFn>;
  onMenu(cb: (id: string) => void): Promise<UnlistenFn>;
  locate(doc: number, terms: string[]): Promise<Located[]>;
  readStats(doc: number): Promise<ReadView>;
  /** Lets a remote document fetch `bytes` more than so far (the user agreed). */
  raiseReadBudget(doc: number, bytes: number): Promise<ReadView>;
  /** Labels matching `text` as search run `run` (a newer run cancels it with `searchCancel`). */
  search(doc: number, run: number, text: string, kind: HitKind | null, within: string | null, limit: number): Promise<SearchView>;
  searchCancel(run: number): Promise<void>;
  /** Where all the matches of `text` are on the map, as search run `run` (`searchCancel` stops it). */
  searchSpread(doc: number, run: number, text: string, kind: HitKind | null, within: string | null): Promise<SpreadView>;
  /** The `k` shortest paths between two entities as path run `run`. */
  paths(doc: number, run: number, from: number, to: number, k: number, maxHops: number, filters: PathFilters): Promise<PathsView>;
  pathsCancel(run: number): Promise<void>;
  sparqlContext(doc: number): Promise<SparqlContext>;
  /** `timeoutMs`: the query's time limit (0: none); `allGraphs`: the default graph is the union of all graphs. */
  sparqlRun(doc: number, run: number, query: string, timeoutMs: number, allGraphs: boolean): Promise<QueryOutcome>;
  sparqlRows(run: number, offset: number, limit: number): Promise<Cell[][]>;
  sparqlCancel(run: number): Promise<void>;
  sparqlCost(doc: number, query: string, allGraphs: boolean): Promise<CostEstimate>;
  sparqlExport(run: number, format: 'csv' | 'tsv' | 'json' | 'nt'): Promise<string | null>;
  coherenceRun(doc: number, run: number): Promise<CoherenceOutcome>;
  coherenceCancel(run: number): Promise<void>;
  /** The native dialog for a shapes file; its path, or null if cancelled. */
  shapesPick(): Promise<string | null>;
  /** Validates against the shapes file `shapes` (one the user picked), or the dataset's shapes. */
  shapesRun(doc: number, run: number, shapes: string | null): Promise<ShapesOutcome>;
  shapesCancel(run: number): Promise<void>;
  /** Where a validation is: after each shape and every few thousand focus nodes. */
  onShapesProgress(cb: (p: ShapesProgress) => void): Promise<UnlistenFn>;
  coherenceExport(doc: number, format: 'json' | 'md'): Promise<string | null>;
  onCoherenceProgress(cb: (p: CoherenceProgress) => void): Promise<UnlistenFn>;
  /** The first view is on screen (launch marks for the benchmark; see core/launch). */
  launchDrawn(marks: Record<string, number>, originUnixMs: number): Promise<void>;
  /** Builds of RDF files (see core/import). */
  onImportProgress(cb: (v: ImportView) => void): Promise<UnlistenFn>;
  importCancel(job: number): Promise<void>;
  cacheStats(): Promise<CacheStats>;
  cacheClear(): Promise<CacheStats>;
  saveRete(doc: number, name: string): Promise<string | null>;
  /** Adds a search index to the open document (a file the app built: its cache entry; else the
   *  shell asks where to save) and opens the result; null if the user cancelled the dialog. */
  indexAdd(doc: number): Promise<DocInfo | null>;
  indexCancel(job: number): Promise<void>;
  /** Where adding a search index stands (phases as `ImportView`s). */
  onIndexProgress(cb: (v: ImportView) => void): Promise<UnlistenFn>;
  /** Opens a rete:// link's file (once the user agreed, in a native dialog) and returns its view. */
  openLink(link: string): Promise<OpenedView>;
  /** Puts the rete:// link to a view on the clipboard, and returns it. */
  copyLink(view: SavedView): Promise<string>;
  /** Saves a view file where the user says; null if cancelled. */
  saveView(view: SavedView, name: string): Promise<string | null>;
  /** Opens a view file the user picks, and its file (once the user agreed); null if cancelled. */
  openViewFile(): Promise<OpenedView | null>;
}

/** A command of the shell; its round trip is a span of the benchmark's trace (core/perf). */
function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  return traced(cmd, () => invoke<T>(cmd, args));
}

export const tauriBackend: Backend = {
  openPath: (path) => call('open_path', { path }),
  openUrl: (url) => call('open_url', { url }),
  openDialog: () => call('open_dialog'),
  takePending: () => call('take_pending'),
  takeNotice: () => call('take_notice'),
  setLanguages: (languages) => call('set_languages', { languages }),
  recentFiles: () => call('recent_files'),
  closeDoc: (doc) => call('close_doc', { doc }),
  overview: (doc) => call<WireView>('overview', { doc }).then(decodeView),
  expand: (doc, key, x, y, r) => call<WireView>('expand', { doc, key, x, y, r }).then(decodeView),
  entity: (doc, id) => call('entity', { doc, id }),
  neighbourhood: (doc, id) => call<WireView>('neighbourhood', { doc, id }).then(decodeView),
  group: (doc, key) => call('group', { doc, key }),
  legend: (doc) => call('legend', { doc }),
  exportView: (format, data, name) => call('export_view', { format, data, name }),
  onOpenRequested: (cb) => listen('open-requested', () => cb()),
  onMenu: (cb) => listen<string>('menu', (e) => cb(e.payload)),
  locate: (doc, terms) => call('locate', { doc, terms }),
  readStats: (doc) => call('read_stats', { doc }),
  raiseReadBudget: (doc, bytes) => call('raise_read_budget', { doc, bytes }),
  search: (doc, run, text, kind, within, limit) => call('search', { doc, run, text, kind, within, limit }),
  searchCancel: (run) => call('search_cancel', { run }),
  searchSpread: (doc, run, text, kind, within) => call('search_spread', { doc, run, text, kind, within }),
  paths: (doc, run, from, to, k, maxHops, filters) => call('paths', { doc, run, from, to, k, maxHops , filters }),
  pathsCancel: (run) => call('paths_cancel', { run }),
  sparqlContext: (doc) => call('sparql_context', { doc }),
  sparqlRun: (doc, run, query, timeoutMs, allGraphs) =>
    call<Omit<QueryOutcome, 'graph'> & { graph: WireView | null }>('sparql_run', { doc, run, query, timeoutMs, allGraphs })
      .then((o) => ({ ...o, graph: o.graph && decodeView(o.graph) })),
  sparqlRows: (run, offset, limit) => call('sparql_rows', { run, offset, limit }),
  sparqlCancel: (run) => call('sparql_cancel', { run }),
  sparqlCost: (doc, query, allGraphs) => call('sparql_cost', { doc, query, allGraphs }),
  sparqlExport: (run, format) => call('sparql_export', { run, format }),
  coherenceRun: (doc, run) => call('coherence_run', { doc, run }),
  coherenceCancel: (run) => call('coherence_cancel', { run }),
  shapesPick: () => call('shapes_pick'),
  shapesRun: (doc, run, shapes) => call('shapes_run', { doc, run, shapes }),
  shapesCancel: (run) => call('shapes_cancel', { run }),
  onShapesProgress: (cb) => listen<ShapesProgress>('shapes-progress', (e) => cb(e.payload)),
  coherenceExport: (doc, format) => call('coherence_export', { doc, format }),
  onCoherenceProgress: (cb) => listen<CoherenceProgress>('coherence-progress', (e) => { mark('coherence-progress'); cb(e.payload); }),
  launchDrawn: (marks, originUnixMs) => call('launch_drawn', { marks, originUnixMs }),
  onImportProgress: (cb) => listen<ImportView>('import-progress', (e) => cb(e.payload)),
  importCancel: (job) => call('import_cancel', { job }),
  cacheStats: () => call('cache_stats'),
  cacheClear: () => call('cache_clear'),
  saveRete: (doc, name) => call('save_rete', { doc, name }),
  indexAdd: (doc) => call('index_add', { doc }),
  indexCancel: (job) => call('index_cancel', { job }),
  onIndexProgress: (cb) => listen<ImportView>('index-progress', (e) => cb(e.payload)),
  openLink: (link) => call('open_link', { link }),
  copyLink: (view) => call('copy_link', { view }),
  saveView: (view, name) => call('save_view', { view, name }),
  openViewFile: () => call('open_view_file'),
};

/** A failed command as the shell sends it (`AppError` in crates/rete-explore/src/engine.rs). */
export interface AppErrorView {
  kind: ErrorKind;
  message: string;
}

function isAppError(e: unknown): e is AppErrorView {
  return typeof e === 'object' && e !== null && typeof (e as AppErrorView).kind === 'string'
    && typeof (e as AppErrorView).message === 'string';
}

/** The text of a failed command: the engine's own message. */
export function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (isAppError(e)) return e.message;
  if (e instanceof Error) return e.message;
  return JSON.stringify(e);
}

/** Whether a failed command was work the user stopped (its kind, not its wording). */
export function isCancelled(e: unknown): boolean {
  return isAppError(e) && e.kind === 'cancelled';
}
