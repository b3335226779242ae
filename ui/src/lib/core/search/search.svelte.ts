// The search box: matches as the user types (each keystroke a search run in the shell; a newer
// one cancels the one before and an older answer never replaces a newer one), the list moved
// through with Up/Down, and the chosen hit handed to `go` (the session takes the map to it).
import type { Backend } from '../backend';
import { errorText, isCancelled } from '../backend';
import type { SearchHit } from '../types';

/** Hits shown in the list. */
export const HITS = 12;

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

  private doc: number | null = null;
  private seq = 0;
  private running = 0;

  constructor(private backend: Backend, private go: (hit: SearchHit) => Promise<void>) {}

  reset(doc: number): void {
    this.doc = doc;
    this.text = '';
    this.hits = [];
    this.active = -1;
    this.open = false;
    this.error = '';
    this.within = null;
  }

  /** The text changed: search it. */
  async input(text: string): Promise<void> {
    this.text = text;
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

  /** Goes to hit `i` (Enter: the highlighted one). */
  async choose(i = this.active): Promise<void> {
    const hit = this.hits[i];
    if (!hit) return;
    this.open = false;
    await this.go(hit);
  }

  close(): void {
    this.open = false;
  }
}
