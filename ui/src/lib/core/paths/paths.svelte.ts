// How two entities are connected: "Connect to…" on one entity's details remembers it, and on
// another's the paths between them are found in the shell (cancellable, answering with what it
// found when it stops) and listed; the communities holding the entities along them light up.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { HighlightState } from '../highlight/highlight.svelte';
import type { PathFilters, PathsView, TermView } from '../types';

/** Paths asked for, shortest first. */
export const K = 5;
/** Links along a path at most. */
export const MAX_HOPS = 6;

export class PathsState {
  /** The entity "Connect to…" was chosen on. */
  from = $state.raw<TermView | null>(null);
  to = $state.raw<TermView | null>(null);
  result = $state.raw<PathsView | null>(null);
  /** Each path entity's map keys (outermost first): where the map draws the paths. */
  located = $state.raw<ReadonlyMap<string, readonly string[]>>(new Map());
  running = $state(false);
  error = $state('');
  /** What the search may follow: predicates only or never taken, schema links, hubs avoided. */
  filters = $state<PathFilters>({ via: [], without: [], include_schema: false, max_degree: null });

  private doc: number | null = null;
  private seq = 0;

  constructor(private backend: Backend, private highlight: HighlightState) {}

  reset(doc: number): void {
    this.doc = doc;
    this.from = null;
    this.to = null;
    this.result = null;
    this.located = new Map();
    this.error = '';
    this.highlight.clear('paths');
  }

  /** Remembers `t` as one end; the next `connect` finds the paths from it. */
  start(t: TermView): void {
    this.from = t;
    this.to = null;
    this.result = null;
    this.error = '';
  }

  /** The paths from the remembered entity to `t`. */
  async connect(t: TermView): Promise<PathsView | null> {
    if (this.doc === null || !this.from) return null;
    const doc = this.doc;
    const run = ++this.seq;
    this.to = t;
    this.running = true;
    this.error = '';
    this.result = null;
    this.located = new Map();
    try {
      const out = await this.backend.paths(doc, run, this.from.id, t.id, K, MAX_HOPS, $state.snapshot(this.filters));
      if (run !== this.seq || this.doc !== doc) return null;
      this.result = out;
      await this.light(out);
      return out;
    } catch (e) {
      if (run === this.seq) this.error = errorText(e);
      return null;
    } finally {
      if (run === this.seq) this.running = false;
    }
  }

  /** Searches the same two entities again (after the filters changed). */
  again(): Promise<PathsView | null> {
    return this.to ? this.connect(this.to) : Promise.resolve(null);
  }

  /** Adds predicate `nt` to the `list` filter (and takes it out of the other one). */
  addPredicate(list: 'via' | 'without', nt: string): void {
    const other = list === 'via' ? 'without' : 'via';
    this.filters[other] = this.filters[other].filter((p) => p !== nt);
    if (!this.filters[list].includes(nt)) this.filters[list] = [...this.filters[list], nt];
  }

  removePredicate(list: 'via' | 'without', nt: string): void {
    this.filters[list] = this.filters[list].filter((p) => p !== nt);
  }

  async cancel(): Promise<void> {
    if (this.running) await this.backend.pathsCancel(this.seq);
  }

  /** The entities along the paths, and the communities holding them, on the map. */
  private async light(out: PathsView): Promise<void> {
    const terms = [...new Set(out.paths.flatMap((p) => p.nodes.map((n) => n.nt)))];
    if (!terms.length || this.doc === null) {
      this.highlight.clear('paths');
      return;
    }
    const located = await this.backend.locate(this.doc, terms);
    this.located = new Map(located.map((l) => [l.nt, l.keys]));
    const keys = located.flatMap((l) => l.keys);
    const label = `${out.paths.length} path${out.paths.length === 1 ? '' : 's'} ${this.from?.label ?? ''} → ${this.to?.label ?? ''}`;
    if (keys.length) this.highlight.set({ source: 'paths', label, keys });
  }
}
