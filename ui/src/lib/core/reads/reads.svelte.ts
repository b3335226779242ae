// Bytes and requests that reached the file or the server, polled from the shell while a document
// is open; `fetching` tells that the last poll saw new reads (the status bar shows progress).
// A remote file has a byte budget: a query whose estimate would pass it asks the user first.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { CostEstimate, ReadView } from '../types';

export const POLL_MS = 400;

export class ReadsState {
  bytes = $state(0);
  requests = $state(0);
  remote = $state(false);
  fetching = $state(false);
  /** The remote file's byte budget (null: none) and the bytes it counted so far. */
  budget = $state<number | null>(null);
  fetched = $state(0);
  /** Why the last query beyond the budget did not run (the user kept the budget). */
  declined = $state('');
  private doc = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private backend: Backend) {}

  /** Starts polling document `doc` (stops the previous one). */
  watch(doc: number, remote: boolean): void {
    this.stop();
    this.doc = doc;
    this.remote = remote;
    this.bytes = 0;
    this.requests = 0;
    this.fetching = false;
    this.budget = null;
    this.fetched = 0;
    this.declined = '';
    void this.poll();
    this.timer = setInterval(() => void this.poll(), POLL_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  async poll(): Promise<void> {
    const doc = this.doc;
    try {
      const s = await this.backend.readStats(doc);
      if (doc !== this.doc) return;
      this.fetching = s.bytes > this.bytes && this.bytes > 0;
      this.bytes = s.bytes;
      this.requests = s.requests;
      this.remote = s.remote;
      this.take(s);
    } catch {
      // The document was closed: nothing to count.
      this.stop();
    }
  }

  private take(s: ReadView): void {
    this.budget = s.budget ?? null;
    this.fetched = s.fetched ?? 0;
  }

  /** Bytes the budget still allows (null: no budget). */
  get left(): number | null {
    return this.budget === null ? null : Math.max(0, this.budget - this.fetched);
  }

  /** Whether a query with this estimate may fetch more than the budget allows. */
  overBudget(cost: CostEstimate): boolean {
    const left = this.left;
    return left !== null && !cost.error && cost.bytes > left;
  }

  /**
   * Before a query runs: within the budget it goes; beyond it the shell asks the user in a native
   * dialog (the page cannot answer it) and, if they agree, lets the document fetch that much more.
   */
  async approve(cost: CostEstimate): Promise<boolean> {
    await this.poll();
    this.declined = '';
    if (!this.overBudget(cost)) return true;
    try {
      this.take(await this.backend.raiseReadBudget(this.doc, cost.bytes));
      return true;
    } catch (e) {
      this.declined = errorText(e);
      return false;
    }
  }
}

/** Bytes for people: 512 B, 12.3 kB, 4.5 MB. */
export function formatBytes(b: number): string {
  if (b < 1000) return `${b} B`;
  if (b < 1e6) return `${(b / 1e3).toFixed(1)} kB`;
  if (b < 1e9) return `${(b / 1e6).toFixed(1)} MB`;
  return `${(b / 1e9).toFixed(2)} GB`;
}

/** `1 request`, `2 requests`, `1,200 rows`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? word : many}`;
}
