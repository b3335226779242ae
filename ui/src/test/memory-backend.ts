// An in-memory Backend for unit tests of the core modules: it answers from the small fixed views
// given to it and records the calls, so the state logic can be tested without the Tauri shell.
import type { Backend } from '../lib/core/backend';
import type {
  CacheStats, Cell, CoherenceOutcome, CoherenceProgress, CostEstimate, DocInfo, EntityDetails, GroupDetails, ImportView,
  HitKind, Legend, Located, MapView, OpenedView, PathsView, QueryOutcome, ReadView, SavedView, SearchHit, SearchView, SpreadView, ShapesOutcome, ShapesProgress, SparqlContext,
} from '../lib/core/types';

export class MemoryBackend implements Backend {
  calls: string[] = [];
  docs = new Map<string, DocInfo>();
  views = new Map<string, MapView>();
  entities = new Map<number, EntityDetails>();
  groups = new Map<string, GroupDetails>();
  legends = new Map<number, Legend>();
  pending: string[] = [];
  recent: string[] = [];
  openHandlers: (() => void)[] = [];
  /** Where terms live: N-Triples → map keys. */
  places = new Map<string, string[]>();
  reads: ReadView = { bytes: 0, requests: 0, remote: false, budget: null, fetched: 0 };
  contexts = new Map<number, SparqlContext>();
  /** Query answers by query text; rows beyond the first page come from `allRows`. */
  answers = new Map<string, Omit<QueryOutcome, 'run'>>();
  allRows = new Map<string, Cell[][]>();
  costs = new Map<string, CostEstimate>();
  /** A query that only ends when cancelled. */
  slowQuery = '';
  cancelled = new Set<number>();
  /** Time limits the runs were sent with. */
  timeouts: number[] = [];
  /** The switch "all graphs" of each run. */
  allGraphs: boolean[] = [];
  coherence: CoherenceProgress['report'][] = [];
  progressHandlers: ((p: CoherenceProgress) => void)[] = [];
  exported: string[] = [];
  private runs = new Map<number, string>();
  importHandlers: ((v: ImportView) => void)[] = [];
  cacheFiles = 0;
  savedTo: string | null = null;

  private log(s: string) { this.calls.push(s); }
  async openPath(path: string) { this.log(`openPath ${path}`); const d = this.docs.get(path); if (!d) throw `${path}: not a .rete file (bad magic bytes)`; this.recent.unshift(path); return d; }
  async openUrl(url: string) { this.log(`openUrl ${url}`); const d = this.docs.get(url); if (!d) throw `${url}: HTTP 404`; return d; }
  async openDialog() { this.log('openDialog'); return null; }
  async takePending() { const p = this.pending; this.pending = []; return p; }
  notice: string | null = null;
  async takeNotice() { const n = this.notice; this.notice = null; return n; }
  /** Languages handed over by setLanguages, and when (the length of `calls` then). */
  languages: string[] | null = null;
  languagesAt = -1;
  async setLanguages(languages: string[]) { this.languages = [...languages]; this.languagesAt = this.calls.length; }
  async recentFiles() { return [...this.recent]; }
  async closeDoc(doc: number) { this.log(`close ${doc}`); }
  async overview(doc: number) { this.log(`overview ${doc}`); return this.view(`overview:${doc}`); }
  async expand(doc: number, key: string) { this.log(`expand ${key}`); return this.view(`expand:${key}`); }
  async entity(doc: number, id: number) { const e = this.entities.get(id); if (!e) throw `term id ${id} is out of range`; return e; }
  async neighbourhood(doc: number, id: number) { return this.view(`nb:${id}`); }
  async group(doc: number, key: string) { const g = this.groups.get(key); if (!g) throw `map node ${key} is not a group`; return g; }
  async legend(doc: number) { const l = this.legends.get(doc); if (!l) throw 'no legend'; return l; }
  async exportView() { return null; }
  async onOpenRequested(cb: () => void) { this.openHandlers.push(cb); return () => {}; }
  async onMenu() { return () => {}; }
  async locate(doc: number, terms: string[]): Promise<Located[]> {
    this.log(`locate ${terms.length}`);
    return terms.map((nt) => ({ nt, id: this.places.has(nt) ? 1 : null, keys: this.places.get(nt) ?? [] }));
  }
  async readStats() { return { ...this.reads }; }
  /** The user's answer to the shell's native question before the budget is raised. */
  budgetAgreed = true;
  async raiseReadBudget(doc: number, bytes: number) {
    this.log(`raiseReadBudget ${doc} ${bytes}`);
    if (!this.budgetAgreed) throw { kind: 'cancelled', message: 'not run: the read budget was kept' };
    const fetched = this.reads.fetched ?? 0;
    if (this.reads.budget != null) this.reads = { ...this.reads, budget: Math.max(this.reads.budget, fetched + bytes) };
    return { ...this.reads };
  }
  /** Whether search answers come from an index (false: a label scan), and one of an older layout. */
  searchIndexed = true;
  searchOutdated = false;
  /** Search answers by text (the hits of the first key the text contains). */
  searchHits = new Map<string, SearchHit[]>();
  async search(doc: number, run: number, text: string, kind: HitKind | null, within: string | null, limit: number): Promise<SearchView> {
    this.log(`search ${run} ${text}${within ? ` within ${within}` : ''}`);
    const hits = [...this.searchHits.entries()].find(([k]) => text.includes(k))?.[1] ?? [];
    return { hits: hits.filter((h) => !kind || h.kind === kind).slice(0, limit), indexed: this.searchIndexed, outdated: this.searchOutdated };
  }
  async searchCancel(run: number) { this.log(`search-cancel ${run}`); }
  /** "Show all matches" answers by text (the first key the text contains); none: nothing found. */
  spreads = new Map<string, SpreadView>();
  async searchSpread(doc: number, run: number, text: string, kind: HitKind | null, within: string | null): Promise<SpreadView> {
    this.log(`search-spread ${run} ${text}${within ? ` within ${within}` : ''}`);
    const found = [...this.spreads.entries()].find(([k]) => text.includes(k))?.[1];
    return found ?? { text, entities: 0, placed: 0, schema_terms: 0, communities: [], entity_keys: [], complete: true };
  }
  /** The answer of every path search. */
  pathAnswer: PathsView = { paths: [], stop: 'exhausted', reason: 'no path exists (under the filters)', elapsed_ms: 1 };
  /** The filters of each path search. */
  pathFilters: import('../lib/core/types').PathFilters[] = [];
  async paths(doc: number, run: number, from: number, to: number, k: number, maxHops: number, filters: import('../lib/core/types').PathFilters = { via: [], without: [], include_schema: false, max_degree: null }): Promise<PathsView> {
    this.pathFilters.push(filters);
    this.log(`paths ${run} ${from} ${to} ${k} ${maxHops}`);
    return structuredClone(this.pathAnswer);
  }
  async pathsCancel(run: number) { this.log(`paths-cancel ${run}`); }
  async sparqlContext(doc: number) { const c = this.contexts.get(doc); if (!c) throw 'no context'; return structuredClone(c); }
  async sparqlRun(doc: number, run: number, query: string, timeoutMs = 0, allGraphs = false): Promise<QueryOutcome> {
    this.log(`run ${run} ${query}`);
    this.allGraphs.push(allGraphs);
    this.runs.set(run, query);
    this.timeouts.push(timeoutMs);
    if (query.includes(this.slowQuery) && this.slowQuery) {
      const started = Date.now();
      while (!this.cancelled.has(run)) {
        if (timeoutMs > 0 && Date.now() - started >= timeoutMs) {
          return { run, status: 'timeout', kind: 'select', columns: [], total: 0, rows: [], boolean: null, graph: null, truncated: false, elapsed_ms: timeoutMs, error: { message: `the query was stopped at its time limit of ${timeoutMs / 1000} s`, line: 0, column: 0 }, read: this.reads, hint: null };
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    if (this.cancelled.has(run)) {
      return { run, status: 'cancelled', kind: 'select', columns: [], total: 0, rows: [], boolean: null, graph: null, truncated: false, elapsed_ms: 1, error: { message: 'the query was cancelled', line: 0, column: 0 }, read: this.reads, hint: null };
    }
    const a = [...this.answers.entries()].find(([q]) => query.includes(q));
    if (!a) return { run, status: 'error', kind: 'select', columns: [], total: 0, rows: [], boolean: null, graph: null, truncated: false, elapsed_ms: 1, error: { message: 'expected [_]', line: 1, column: query.length }, read: this.reads, hint: null };
    return { run, ...structuredClone(a[1]) };
  }
  async sparqlRows(run: number, offset: number, limit: number) {
    this.log(`rows ${run} ${offset} ${limit}`);
    const q = this.runs.get(run) ?? '';
    const rows = [...this.allRows.entries()].find(([k]) => q.includes(k))?.[1] ?? [];
    return rows.slice(offset, offset + limit);
  }
  async sparqlCancel(run: number) { this.log(`cancel ${run}`); this.cancelled.add(run); }
  async sparqlCost(doc: number, query: string, allGraphs = false): Promise<CostEstimate> {
    this.log(`cost${allGraphs ? ' all graphs' : ''}`);
    const c = [...this.costs.entries()].find(([q]) => query.includes(q));
    return c ? c[1] : { bytes: 0, requests: 0, blocks: 0, patterns: 0, absent: 0, partial: false, error: null };
  }
  async sparqlExport(run: number, format: string) { this.exported.push(`${run}.${format}`); return `/tmp/results.${format}`; }
  async coherenceRun(doc: number, run: number): Promise<CoherenceOutcome> {
    for (const report of this.coherence) {
      if (this.cancelled.has(-run)) return { run, status: 'cancelled', report: null };
      for (const h of this.progressHandlers) h({ run, tier: report.tier, report });
      await new Promise((r) => setTimeout(r, 1));
    }
    return { run, status: 'ok', report: this.coherence[this.coherence.length - 1] ?? null };
  }
  async coherenceCancel(run: number) { this.cancelled.add(-run); }
  /** What shapesPick answers, and shapesRun's outcome (its run set from the call). */
  shapesFile: string | null = null;
  shapes: Omit<ShapesOutcome, 'run'> | null = null;
  /** Progress shapesRun reports before answering (its run set from the call); with
   * `shapesSlow` it then waits for shapesCancel, as a long validation does. */
  shapesSteps: Omit<ShapesProgress, 'run'>[] = [];
  shapesSlow = false;
  shapesProgressHandlers: ((p: ShapesProgress) => void)[] = [];
  async shapesPick() { return this.shapesFile; }
  async shapesRun(doc: number, run: number, shapes: string | null): Promise<ShapesOutcome> {
    this.log(`shapesRun ${doc} ${run} ${shapes}`);
    if (!this.shapes) throw { kind: 'invalid', message: `${shapes}: not a shapes file` };
    for (const step of this.shapesSteps) {
      for (const h of this.shapesProgressHandlers) h({ ...step, run });
      await new Promise((r) => setTimeout(r, 1));
    }
    while (this.shapesSlow && !this.cancelled.has(-1000 - run)) await new Promise((r) => setTimeout(r, 1));
    if (this.cancelled.has(-1000 - run)) return { ...this.shapes, run, status: 'cancelled', conforms: null, results: 0, groups: [] };
    return { ...this.shapes, run };
  }
  async onShapesProgress(cb: (p: ShapesProgress) => void) { this.shapesProgressHandlers.push(cb); return () => {}; }
  async shapesCancel(run: number) { this.cancelled.add(-1000 - run); }
  async coherenceExport(doc: number, format: string) { this.exported.push(`report.${format}`); return `/tmp/report.${format}`; }
  async onCoherenceProgress(cb: (p: CoherenceProgress) => void) { this.progressHandlers.push(cb); return () => {}; }
  async onImportProgress(cb: (v: ImportView) => void) { this.importHandlers.push(cb); return () => {}; }
  emitImport(v: ImportView) { for (const h of this.importHandlers) h(v); }
  async importCancel(job: number) { this.log(`importCancel ${job}`); }
  async cacheStats(): Promise<CacheStats> { return { dir: '/cache', files: this.cacheFiles, bytes: this.cacheFiles * 1000, limit: 1 << 30 }; }
  async cacheClear(): Promise<CacheStats> { const s = await this.cacheStats(); this.cacheFiles = 0; this.log('cacheClear'); return s; }
  async saveRete(doc: number, name: string) { this.log(`saveRete ${doc} ${name}`); return this.savedTo; }
  /** What indexAdd opens (null: the user cancelled the save dialog). It sends one progress event
   *  of job `indexJob` (then the next number), then waits until `indexRelease()` or a cancel. */
  indexResult: DocInfo | null = null;
  indexJob = 5;
  indexRelease: (() => void) | null = null;
  indexHandlers: ((v: ImportView) => void)[] = [];
  emitIndex(v: ImportView) { for (const h of this.indexHandlers) h(v); }
  async onIndexProgress(cb: (v: ImportView) => void) { this.indexHandlers.push(cb); return () => {}; }
  async indexAdd(doc: number): Promise<DocInfo | null> {
    this.log(`indexAdd ${doc}`);
    const job = this.indexJob++;
    this.indexRelease = null;
    const view = (status: ImportView['status'], phase: string): ImportView => ({
      job, source: '/data/people.rete', name: 'people.rete', status, phase, done: 30, total: 60, triples: 0, read_bytes: 0,
      source_bytes: 1000, elapsed_ms: 5, phases: [['labels', 1]], error: null,
    });
    this.emitIndex(view('running', 'degrees'));
    await new Promise<void>((r) => { this.indexRelease = r; });
    if (this.cancelled.has(-2000 - job)) {
      this.emitIndex(view('cancelled', ''));
      throw { kind: 'cancelled', message: 'people.rete: adding the search index was cancelled' };
    }
    this.emitIndex(view('built', ''));
    return this.indexResult;
  }
  async indexCancel(job: number) { this.log(`indexCancel ${job}`); this.cancelled.add(-2000 - job); this.indexRelease?.(); }
  /** Views saved with saveView; the view openViewFile and openLink give. */
  savedViews: SavedView[] = [];
  viewToOpen: SavedView | null = null;
  async openLink(link: string): Promise<OpenedView> {
    this.log(`openLink ${link}`);
    const view = this.viewToOpen;
    if (!view || !link.startsWith('rete://open?')) throw { kind: 'invalid', message: 'This link cannot be opened: not a rete link' };
    return { doc: await this.openPath(view.source), view };
  }
  async copyLink(view: SavedView) { return `rete://open?v=1&source=${encodeURIComponent(view.source)}`; }
  async saveView(view: SavedView, name: string) { this.log(`saveView ${name}`); this.savedViews.push(view); return `/tmp/${name}.rete-view.json`; }
  async openViewFile(): Promise<OpenedView | null> {
    const view = this.viewToOpen;
    return view ? { doc: await this.openPath(view.source), view } : null;
  }
  launched: Record<string, number>[] = [];
  async launchDrawn(marks: Record<string, number>) { this.log('launchDrawn'); this.launched.push(marks); }
  private view(k: string): MapView { const v = this.views.get(k); if (!v) throw `no view ${k}`; return structuredClone(v); }
}

export function node(key: string, o: Partial<import('../lib/core/types').MapNode> = {}): import('../lib/core/types').MapNode {
  return { key, kind: 'class', label: key, size: 10, class: `<http://ex.org/${key}>`, x: 0, y: 0, r: 10, expandable: true, level: null, id: 1, classes: [], ...o };
}

export function doc(id: number, name: string, classes: string[] = []): DocInfo {
  return {
    doc: id, source: `/data/${name}`, name, bytes: 1000, quads: 10, terms: 5, subjects: 3, predicates: 2, objects: 4, graphs: 0,
    classes: classes.map((c, i) => ({ nt: c, label: c, count: 10 - i })), top_predicates: [],
    has_pyramid: false, has_schema: false, levels: 0, remote: false, built_by: 'rete 0.1', materialized: false,
  };
}

/**
 * A backend holding one file, `/a.rete` (document 1, of `classes`), whose top level is `nodes`,
 * with an empty legend and query context, handed over by the shell as at launch.
 */
export function oneFile(nodes: import('../lib/core/types').MapNode[], classes: string[] = []): MemoryBackend {
  const b = new MemoryBackend();
  b.docs.set('/a.rete', doc(1, 'a.rete', classes));
  b.views.set('overview:1', { kind: 'pyramid', note: '', truncated: false, nodes, edges: [] });
  b.legends.set(1, { source: 'schema', note: '', classes: [], relations: [] });
  b.contexts.set(1, { classes: [], predicates: [], prefixes: [], examples: [] });
  b.pending = ['/a.rete'];
  return b;
}
