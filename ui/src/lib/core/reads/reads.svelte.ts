// Bytes and requests that reached the file or the server, polled from the shell while a document
// is open; `fetching` tells that the last poll saw new reads (the status bar shows progress).
import type { Backend } from '../backend';

export const POLL_MS = 400;

export class ReadsState {
  bytes = $state(0);
  requests = $state(0);
  remote = $state(false);
  fetching = $state(false);
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
    } catch {
      // The document was closed: nothing to count.
      this.stop();
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
