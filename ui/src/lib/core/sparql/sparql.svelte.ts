// The query pane's state: the text, running (off the main thread, in the shell) with elapsed time
// and cancel, the result (paged in from the shell as the table scrolls), syntax errors mapped onto
// the typed text, the read-cost estimate for remote files, history, and "where do my results
// live": the result entities located in the pyramid and highlighted on the map.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { HighlightState } from '../highlight/highlight.svelte';
import type { Cell, CostEstimate, DocInfo, QueryError, QueryOutcome, SparqlContext } from '../types';
import { completionItems, History, userPosition, type CompletionItem } from './query-text';

/** Rows per page fetched from the shell (the first page comes with the outcome). */
export const PAGE = 200;
/** Result rows whose entities are located on the map. */
export const LOCATE_ROWS = 2000;
/** A query's time limit unless the user sets another (seconds; 0: none). */
export const DEFAULT_TIME_LIMIT = 60;
const TIME_LIMIT_KEY = 'rete.sparql.timeLimit';
/** Where the switch "all graphs" is remembered, per file. */
const ALL_GRAPHS_KEY = 'rete.sparql.allGraphs:';

export class SparqlState {
  context = $state.raw<SparqlContext | null>(null);
  completions: CompletionItem[] = [];
  text = $state('');
  running = $state(false);
  elapsed = $state(0);
  // Raw: results can be large, and identity checks must see the object that was stored.
  outcome = $state.raw<QueryOutcome | null>(null);
  error = $state<QueryError | null>(null);
  message = $state('');
  cost = $state.raw<CostEstimate | null>(null);
  history = $state<string[]>([]);
  /** Entities of the result found on the map. */
  located = $state(0);
  /** Bumped when a page of rows arrives. */
  rowsVersion = $state(0);
  /** Seconds a query may run before the shell stops it (0: no limit). */
  timeLimit = $state(DEFAULT_TIME_LIMIT);
  /** The limit the last query was stopped at, in seconds (null: it was not). */
  timedOut = $state<number | null>(null);
  /** The default graph is the union of all graphs (what the map shows), not only the file's own
   *  default graph: on by default when the file has named graphs, remembered per file. */
  allGraphs = $state(false);
  /** Why the last answer was empty when the default graph was to blame (the shell's words). */
  hint = $state<string | null>(null);

  private pages = new Map<number, Cell[][]>();
  private loadingPages = new Map<number, Promise<void>>();
  private doc: DocInfo | null = null;
  private seq = 0;
  private current = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private store: History;
  /** Asked before a remote query runs, with its estimate; `false` stops it (the read budget). */
  approve: ((cost: CostEstimate) => Promise<boolean>) | null = null;

  constructor(private backend: Backend, private highlight: HighlightState, private storage: Pick<Storage, 'getItem' | 'setItem'> | null = null) {
    this.store = new History(storage);
    this.history = this.store.items;
    const saved = Number(storage?.getItem(TIME_LIMIT_KEY) ?? NaN);
    if (Number.isFinite(saved) && saved >= 0) this.timeLimit = saved;
  }

  /** Sets the time limit of the next queries (seconds, 0: none) and remembers it. */
  setTimeLimit(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    this.timeLimit = seconds;
    this.storage?.setItem(TIME_LIMIT_KEY, String(seconds));
  }

  get remote(): boolean {
    return this.doc?.remote ?? false;
  }

  /** Whether the file has named graphs (the switch "all graphs" matters). */
  get namedGraphs(): number {
    return this.doc?.graphs ?? 0;
  }

  /** Sets the switch "all graphs" for this file and remembers it. */
  setAllGraphs(on: boolean): void {
    this.allGraphs = on;
    this.hint = null;
    if (this.doc) this.storage?.setItem(ALL_GRAPHS_KEY + this.doc.source, on ? '1' : '0');
  }

  /** A new document: its prefixes, vocabulary and examples; the first example as the text. */
  async load(doc: DocInfo): Promise<void> {
    this.doc = doc;
    const saved = this.storage?.getItem(ALL_GRAPHS_KEY + doc.source);
    this.allGraphs = saved == null ? doc.graphs > 0 : saved === '1';
    this.hint = null;
    this.context = null;
    this.completions = [];
    this.outcome = null;
    this.error = null;
    this.cost = null;
    this.message = '';
    this.pages.clear();
    this.located = 0;
    try {
      const ctx = await this.backend.sparqlContext(doc.doc);
      if (this.doc !== doc) return;
      this.context = ctx;
      this.completions = completionItems(ctx);
      const first = ctx.examples.find((e) => e.title.startsWith('Instances')) ?? ctx.examples[0];
      if (first && !this.text) this.text = first.query;
    } catch (e) {
      this.message = errorText(e);
    }
  }

  /** The query as sent: as typed, since the shell resolves the file's and the well-known
   *  prefixes itself (the CLI's definition), so error positions need no shift. */
  prepared(text = this.text): { query: string; shift: number } {
    return { query: text, shift: 0 };
  }

  /** What the query will read (worth asking for remote files). */
  async estimate(): Promise<CostEstimate | null> {
    if (!this.doc) return null;
    const doc = this.doc;
    const { query, shift } = this.prepared();
    try {
      const c = await this.backend.sparqlCost(doc.doc, query, this.allGraphs);
      if (this.doc !== doc) return null;
      this.cost = c.error ? { ...c, error: userPosition(c.error, shift) } : c;
      return this.cost;
    } catch (e) {
      this.message = errorText(e);
      return null;
    }
  }

  async run(): Promise<QueryOutcome | null> {
    if (!this.doc || this.running || !this.text.trim()) return null;
    const doc = this.doc;
    const { query, shift } = this.prepared();
    this.history = this.store.push(this.text);
    this.error = null;
    this.message = '';
    this.timedOut = null;
    this.hint = null;
    if (doc.remote) {
      // Show what the query will fetch before it fetches it.
      const c = await this.estimate();
      if (c?.error) {
        this.error = c.error;
        return null;
      }
      if (c && this.approve && !(await this.approve(c))) return null;
    }
    const run = ++this.seq;
    this.current = run;
    this.running = true;
    const started = Date.now();
    this.elapsed = 0;
    clearInterval(this.timer);
    this.timer = setInterval(() => { this.elapsed = Date.now() - started; }, 100);
    try {
      const limit = this.timeLimit;
      const out = await this.backend.sparqlRun(doc.doc, run, query, Math.round(limit * 1000), this.allGraphs);
      if (run !== this.current || this.doc !== doc) return null;
      this.outcome = out;
      this.hint = out.hint;
      this.pages.clear();
      this.loadingPages.clear();
      this.rowsVersion++;
      this.located = 0;
      // The last results' highlight stays until these are located, which replaces or clears it:
      // each change restyles the whole map (at 10 k nodes ~90 ms in software GL), and clearing
      // first cost a second restyle per query.
      if (out.status !== 'ok') this.highlight.clear('results');
      if (out.status === 'error' && out.error) this.error = userPosition(out.error, shift);
      if (out.status === 'timeout') {
        this.timedOut = limit;
        this.message = `Stopped after the time limit of ${limit} s. Raise the limit to let it run longer.`;
      }
      if (out.status === 'ok') {
        this.pages.set(0, out.rows);
        void this.locateResults(out);
      }
      return out;
    } catch (e) {
      this.message = errorText(e);
      return null;
    } finally {
      clearInterval(this.timer);
      if (run === this.current) {
        this.running = false;
        this.elapsed = Date.now() - started;
      }
    }
  }

  async cancel(): Promise<void> {
    if (this.running) await this.backend.sparqlCancel(this.current);
  }

  /** Row `i` of the result, or `undefined` while its page is on its way. */
  row(i: number): Cell[] | undefined {
    const p = Math.floor(i / PAGE);
    const page = this.pages.get(p);
    if (page) return page[i - p * PAGE];
    void this.fetchPage(p);
    return undefined;
  }

  fetchPage(p: number): Promise<void> {
    const out = this.outcome;
    if (!out || this.pages.has(p) || p * PAGE >= out.total) return Promise.resolve();
    const pending = this.loadingPages.get(p);
    if (pending) return pending;
    const job = this.loadPage(out, p);
    this.loadingPages.set(p, job);
    return job;
  }

  private async loadPage(out: QueryOutcome, p: number): Promise<void> {
    try {
      const rows = await this.backend.sparqlRows(out.run, p * PAGE, PAGE);
      if (this.outcome !== out) return;
      this.pages.set(p, rows);
      this.rowsVersion++;
    } catch (e) {
      this.message = errorText(e);
    } finally {
      this.loadingPages.delete(p);
    }
  }

  /**
   * Locates the result's entities in the pyramid and highlights them and their communities, in
   * place of the last results' highlight (cleared when nothing of this result is on the map).
   */
  async locateResults(out: QueryOutcome): Promise<void> {
    if (!this.doc) return;
    let rows = out.rows;
    if (out.total > rows.length) {
      try {
        rows = await this.backend.sparqlRows(out.run, 0, Math.min(out.total, LOCATE_ROWS));
      } catch {
        rows = out.rows;
      }
    }
    const terms = new Set<string>();
    for (const r of rows) for (const c of r) if (c && c.kind !== 'literal' && c.id > 0) terms.add(c.nt);
    let keys: string[] = [];
    try {
      if (terms.size) {
        const located = await this.backend.locate(this.doc.doc, [...terms]);
        if (this.outcome !== out) return;
        keys = located.flatMap((l) => l.keys);
        // An entity is placed when it has a group above it (predicates and classes have none).
        this.located = located.filter((l) => l.keys.length > 1).length;
      }
    } catch (e) {
      if (this.outcome === out) this.message = errorText(e);
    }
    if (this.outcome !== out) return;
    if (keys.length) this.highlight.set({ source: 'results', label: `${this.located.toLocaleString('en')} result entities`, keys });
    else this.highlight.clear('results');
  }

  /** Saves the result: a W3C result format, or N-Triples for a graph result. */
  async export(format: 'csv' | 'tsv' | 'json' | 'nt'): Promise<string | null> {
    const out = this.outcome;
    if (!out || out.status !== 'ok') return null;
    try {
      const path = await this.backend.sparqlExport(out.run, format);
      if (path) this.message = `Saved ${path}`;
      return path;
    } catch (e) {
      this.message = errorText(e);
      return null;
    }
  }

  use(query: string): void {
    this.text = query;
    this.error = null;
  }
}
