// Building RDF files into .rete files (the shell's import-progress events): the build under way
// with its phase, triples so far and time estimate; Cancel; the last finished build (built or
// found in the cache); the build cache (clear it) and Save as .rete… of the open document.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { CacheStats, ImportView } from '../types';

/** The phases of a build, in order (rete-build's names). */
export const PHASES = ['parse', 'dictionary', 'sort', 'permutations', 'pyramid', 'schema', 'write'] as const;

/** Share of a build's time each phase takes (the 1.6 M-triple import benchmark, docs/BENCHMARK.md):
 * what the bar fills per phase and what the time estimate extrapolates from. */
const WEIGHTS: Record<string, number> = {
  parse: 0.48, dictionary: 0.06, sort: 0.13, permutations: 0.08, pyramid: 0.18, schema: 0.06, write: 0.01,
};

/** Progress within the current phase (0…1), or null when the phase's amount is not known. In the
 * parse phase the amount is the source's bytes, compared with the bytes the parser has read. */
export function phaseFraction(v: ImportView): number | null {
  if (!v.total || v.total <= 0) return null;
  const done = v.phase === 'parse' ? v.read_bytes : v.done;
  return Math.min(1, done / v.total);
}

/** The whole build's progress (0…1) from the finished phases and the current one, each phase
 * counting for its share in `weights` (a build's by default). */
export function overallFraction(v: ImportView, weights: Record<string, number> = WEIGHTS): number {
  const done = new Set(v.phases.map(([p]) => p));
  let f = 0;
  for (const p of Object.keys(weights)) if (done.has(p)) f += weights[p];
  const cur = weights[v.phase] ?? 0;
  if (cur && !done.has(v.phase)) f += cur * (phaseFraction(v) ?? 0);
  return Math.min(1, f);
}

/** Milliseconds left, extrapolated from the time so far; null until there is enough to go on. */
export function etaMs(v: ImportView): number | null {
  const f = overallFraction(v);
  if (f < 0.03 || v.elapsed_ms < 300) return null;
  return (v.elapsed_ms * (1 - f)) / f;
}

export function formatEta(ms: number | null): string {
  if (ms === null) return 'estimating…';
  const s = Math.round(ms / 1000);
  if (s < 1) return 'almost done';
  if (s < 60) return `about ${s} s left`;
  return `about ${Math.round(s / 60)} min left`;
}

export class ImportState {
  /** The build under way (the latest one if several). */
  current = $state<ImportView | null>(null);
  /** The last build that ended: `built`, `cached`, `cancelled` or `failed`. */
  last = $state<ImportView | null>(null);
  cancelling = $state(false);
  cache = $state<CacheStats | null>(null);
  message = $state('');

  constructor(private backend: Backend) {}

  listen() {
    return this.backend.onImportProgress((v) => this.onProgress(v));
  }

  onProgress(v: ImportView): void {
    if (v.status === 'running') {
      // A late event of a build that already ended does not bring its bar back.
      if (this.last?.job === v.job) return;
      this.current = v;
      return;
    }
    if (this.current?.job === v.job) {
      this.current = null;
      this.cancelling = false;
    }
    this.last = v;
  }

  get fraction(): number {
    return this.current ? overallFraction(this.current) : 0;
  }

  get eta(): string {
    return this.current ? formatEta(etaMs(this.current)) : '';
  }

  async cancel(): Promise<void> {
    if (!this.current) return;
    this.cancelling = true;
    await this.backend.importCancel(this.current.job);
  }

  async refreshCache(): Promise<void> {
    try {
      this.cache = await this.backend.cacheStats();
    } catch (e) {
      this.message = errorText(e);
    }
  }

  async clearCache(): Promise<string> {
    try {
      const freed = await this.backend.cacheClear();
      this.cache = { ...freed, files: 0, bytes: 0 };
      this.message = `Cleared the import cache: ${freed.files} file${freed.files === 1 ? '' : 's'}, ${(freed.bytes / (1 << 20)).toFixed(1)} MB`;
    } catch (e) {
      this.message = `Could not clear the import cache: ${errorText(e)}`;
    }
    return this.message;
  }

  /** Save as .rete… of the open document; returns the message for the status bar. */
  async saveAs(doc: number, name: string): Promise<string> {
    try {
      const path = await this.backend.saveRete(doc, name);
      this.message = path ? `Saved ${path}` : '';
    } catch (e) {
      this.message = `Could not save: ${errorText(e)}`;
    }
    return this.message;
  }
}
