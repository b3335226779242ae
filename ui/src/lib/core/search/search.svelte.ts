// The search box: matches as the user types (each keystroke a search run in the shell; a newer
// one cancels the one before and an older answer never replaces a newer one), the list moved
// through with Up/Down, and the chosen hit handed to `go` (the session takes the map to it).
// When the answers come from a label scan (a file without an index) or an older index, it offers
// to add one: the shell writes the file again with it (progress, cancel), and the result is
// handed to `reopen` (the session opens it in place of the old one) and searched again.
// "Show all matches" lights every community holding a match, with its count, through the
// highlight: where the hits sit across the graph, at every level of the map.
import type { Backend } from '../backend';
import { errorText, isCancelled } from '../backend';
import { overallFraction } from '../import/import.svelte';
import type { HighlightState } from '../highlight/highlight.svelte';
import type { DocInfo, ImportView, SearchHit, SpreadView } from '../types';

/** Hits shown in the list. */
export const HITS = 12;

/** Rough share of adding an index each phase takes (rete_search::add_index_with's phases; the
 * degree scan reads every quad twice and dominates): what the bar fills per phase. */
export const INDEX_WEIGHTS: Record<string, number> = {
  labels: 0.1, degrees: 0.45, classes: 0.05, tokens: 0.15, encode: 0.15, write: 0.1,
};

export class SearchState {
  text = $state('');
  hits = $state.raw<SearchHit[]>([]);
  /** The highlighted row of the list (-1: none). */
  active = $state(-1);
  /** Whether the list is open. */
  open = $state(false);
  /** Whether the last answer came from the file's index (`false`: its labels were scanned). */
  indexed = $state(true);
  searching = $state(false);
  error = $state('');
  /** Only inside this community (the one in view), when the user asks. */
  within = $state<string | null>(null);
  /** Whether the index that answered has an older layout (adding it again makes it faster). */
  outdated = $state(false);
  /** Whether the open document is read over HTTP: no index is added to it here (that would
   *  read the whole file). */
  remote = $state(false);
  /** An index is being added. */
  adding = $state(false);
  /** Its progress (the last event of the job under way). */
  progress = $state<ImportView | null>(null);
  cancelling = $state(false);
  /** How the last addition ended ('' before any). */
  indexMessage = $state('');
  /** All the matches are being found (the run), 0 when not. */
  spreading = $state(0);
  /** Why the last "Show all matches" lit nothing ('' when it did, or before any): the banner
   *  over the map says what it lit. */
  spreadMessage = $state('');

  private doc: number | null = null;
  private seq = 0;
  private running = 0;
  /** The last job that ended: a late event of it does not bring its progress back. */
  private ended = 0;

  constructor(
    private backend: Backend,
    /** Takes the user to a hit; calls `shown` once what they see first of it is on the page. */
    private go: (hit: SearchHit, shown: () => void) => Promise<void>,
    private reopen: (doc: DocInfo) => Promise<boolean> = async () => false,
    private highlight: HighlightState | null = null,
  ) {}

  /** Whether the list offers to add an index: a scan (or an older index) answered, on a file
   *  the app can write, and none is being added. */
  get offer(): boolean {
    return (!this.indexed || this.outdated) && !this.remote && !this.adding;
  }

  /** How far adding the index is (0…1). */
  get fraction(): number {
    return this.progress ? overallFraction(this.progress, INDEX_WEIGHTS) : 0;
  }

  reset(doc: number, remote = false): void {
    this.doc = doc;
    this.remote = remote;
    this.indexed = true;
    this.outdated = false;
    this.text = '';
    this.hits = [];
    this.active = -1;
    this.open = false;
    this.error = '';
    this.within = null;
    this.spreading = 0;
    this.spreadMessage = '';
  }

  /** Whether the list offers to show all its matches on the map: some hit sits in a community. */
  get canSpread(): boolean {
    return this.highlight !== null && this.indexed && this.hits.some((h) => h.path.length > 0);
  }

  /**
   * Lights every community holding a match of the typed text on the map, at every level, with
   * how many it holds (and the matching entities themselves, when few enough to list): the
   * highlight until cleared or replaced. A newer one replaces one under way.
   */
  async showAll(): Promise<void> {
    const text = this.text.trim();
    if (this.doc === null || !text || !this.highlight) return;
    // The list closes with the answer: a keystroke's search still under way is dropped.
    const run = ++this.seq;
    if (this.running) void this.backend.searchCancel(this.running);
    this.running = 0;
    this.searching = false;
    if (this.spreading) void this.backend.searchCancel(this.spreading);
    this.spreading = run;
    this.spreadMessage = '';
    try {
      const out = await this.backend.searchSpread(this.doc, run, text, null, this.within);
      if (this.spreading !== run) return;
      this.open = false;
      if (!out.communities.length && !out.entity_keys.length) {
        // Nothing to light: said beside the box, and an earlier search's matches go.
        this.spreadMessage = spreadText(out);
        this.highlight.clear('search');
        return;
      }
      this.highlight.set({
        source: 'search',
        label: spreadText(out),
        keys: [...out.communities.map((c) => c.key), ...out.entity_keys],
        counts: new Map(out.communities.map((c) => [c.key, c.count])),
      });
    } catch (e) {
      if (this.spreading === run && !isCancelled(e)) this.spreadMessage = `Could not show all matches: ${errorText(e)}`;
    } finally {
      if (this.spreading === run) this.spreading = 0;
    }
  }

  /** The text changed: search it. */
  async input(text: string): Promise<void> {
    this.text = text;
    this.spreadMessage = '';
    if (this.doc === null) return;
    const run = ++this.seq;
    if (this.running) void this.backend.searchCancel(this.running);
    if (!text.trim()) {
      this.hits = [];
      this.active = -1;
      this.open = false;
      this.error = '';
      return;
    }
    this.running = run;
    this.searching = true;
    try {
      const out = await this.backend.search(this.doc, run, text, null, this.within, HITS);
      if (run !== this.seq) return;
      this.hits = out.hits;
      this.indexed = out.indexed;
      this.outdated = out.outdated;
      this.active = out.hits.length ? 0 : -1;
      this.open = true;
      this.error = '';
    } catch (e) {
      if (run === this.seq && !isCancelled(e)) {
        this.hits = [];
        this.error = errorText(e);
        this.open = true;
      }
    } finally {
      if (run === this.seq) this.searching = false;
      if (this.running === run) this.running = 0;
    }
  }

  /** Moves the highlighted row (Up: -1, Down: +1), wrapping around. */
  move(by: number): void {
    if (!this.hits.length) return;
    this.open = true;
    const n = this.hits.length;
    this.active = ((this.active < 0 ? (by > 0 ? -1 : 0) : this.active) + by + n) % n;
  }

  /** Searches only the community in view (`key`), or everywhere (`null`). */
  async restrict(key: string | null): Promise<void> {
    this.within = key;
    await this.input(this.text);
  }

  /**
   * Goes to hit `i` (Enter: the highlighted one). The list closes together with the hit's
   * details appearing: one change of the page, not two. Each frame is composited in software here
   * (40–80 ms); the list closed on its own took a frame the details then waited for.
   */
  async choose(i = this.active): Promise<void> {
    const hit = this.hits[i];
    if (!hit) return;
    const close = () => { this.open = false; };
    try {
      await this.go(hit, close);
    } finally {
      close();
    }
  }

  close(): void {
    this.open = false;
  }

  /** A progress event of adding an index. */
  onIndexProgress(v: ImportView): void {
    if (v.status === 'running') {
      if (v.job !== this.ended) this.progress = v;
      return;
    }
    this.ended = v.job;
    if (this.progress?.job === v.job) this.progress = null;
  }

  /** Adds a search index to the open document, opens the result in its place and searches the
   *  typed text again there. */
  async addIndex(): Promise<void> {
    if (this.doc === null || this.adding) return;
    const text = this.text;
    this.adding = true;
    this.cancelling = false;
    this.indexMessage = '';
    try {
      const doc = await this.backend.indexAdd(this.doc);
      // The save dialog was cancelled: nothing was written.
      if (!doc) return;
      this.adding = false;
      this.progress = null;
      if (!(await this.reopen(doc))) return;
      this.indexMessage = `Search index added: ${doc.name}`;
      if (text.trim()) await this.input(text);
    } catch (e) {
      this.indexMessage = isCancelled(e) ? 'Adding the search index was cancelled: nothing was written'
        : `Could not add a search index: ${errorText(e)}`;
    } finally {
      this.adding = false;
      this.cancelling = false;
      this.progress = null;
    }
  }

  /** Stops adding the index (nothing is written). */
  async cancelIndex(): Promise<void> {
    if (!this.adding || !this.progress) return;
    this.cancelling = true;
    await this.backend.indexCancel(this.progress.job);
  }
}

const fmt = (n: number) => n.toLocaleString('en');

/** What a spread found, in words: `“ada”: 1,234 matches in 12 communities`, with those not on
 * the map and the classes and predicates matched said apart. */
export function spreadText(out: SpreadView): string {
  const placed = out.placed;
  const top = out.communities[0]?.key.split(':')[0];
  const communities = out.communities.filter((c) => c.key.split(':')[0] === top).length;
  const parts = [`${out.complete ? '' : 'at least '}${fmt(placed)} match${placed === 1 ? '' : 'es'}${communities ? ` in ${fmt(communities)} ${communities === 1 ? 'community' : 'communities'}` : ''}`];
  const off = out.entities - placed;
  if (off > 0) parts.push(`${fmt(off)} not on the map`);
  if (out.schema_terms > 0) parts.push(`${fmt(out.schema_terms)} ${out.schema_terms === 1 ? 'class or predicate' : 'classes or predicates'}`);
  return `“${out.text}”: ${parts.join(', ')}`;
}
