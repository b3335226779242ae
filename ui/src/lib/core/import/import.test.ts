import { describe, expect, it } from 'vitest';
import { ImportState, etaMs, formatEta, overallFraction, phaseFraction } from './import.svelte';
import { errorText, isCancelled } from '../backend';
import { SourceState } from '../source/source.svelte';
import { MemoryBackend, doc } from '../../../test/memory-backend';
import type { ImportView } from '../types';

function view(over: Partial<ImportView> = {}): ImportView {
  return {
    job: 1, source: '/d/a.nt', name: 'a.nt', status: 'running', phase: 'parse', done: 0, total: 110_000,
    triples: 0, read_bytes: 0, source_bytes: 110_000, elapsed_ms: 0, phases: [], error: null, ...over,
  };
}

describe('build progress', () => {
  it('measures the parse phase in bytes read and the others in their own steps', () => {
    expect(phaseFraction(view({ done: 500, read_bytes: 55_000 }))).toBeCloseTo(0.5);
    // Size not known (standard input): the bar waits for the next phase.
    expect(phaseFraction(view({ total: null, read_bytes: 500 }))).toBeNull();
    expect(phaseFraction(view({ phase: 'sort', done: 3, total: 4 }))).toBe(0.75);
    expect(phaseFraction(view({ phase: 'pyramid', total: null }))).toBeNull();
  });

  it('fills the bar by phases and extrapolates the time left', () => {
    const half = view({ done: 500, read_bytes: 55_000 });
    expect(overallFraction(half)).toBeCloseTo(0.24);
    const later = view({ phase: 'pyramid', total: null, phases: [['parse', 800], ['dictionary', 100], ['sort', 100], ['permutations', 200]] });
    expect(overallFraction(later)).toBeCloseTo(0.75);
    expect(etaMs({ ...later, elapsed_ms: 1200 })).toBeCloseTo((1200 * 0.25) / 0.75);
    // Too early to say.
    expect(etaMs({ ...half, elapsed_ms: 100 })).toBeNull();
    expect(formatEta(null)).toBe('estimating…');
    expect(formatEta(12_400)).toBe('about 12 s left');
    expect(formatEta(150_000)).toBe('about 3 min left');
    expect(overallFraction(view({ phase: 'write', done: 1, total: 1, phases: ['parse', 'dictionary', 'sort', 'permutations', 'pyramid', 'schema'].map((p) => [p, 1] as [string, number]) }))).toBeCloseTo(1);
  });

  it('shows the build under way, ends it on its last event and cancels it', async () => {
    const b = new MemoryBackend();
    const s = new ImportState(b);
    await s.listen();
    b.emitImport(view({ done: 100, read_bytes: 11_000, elapsed_ms: 400 }));
    expect(s.current?.triples).toBe(0);
    b.emitImport(view({ done: 600, triples: 600, read_bytes: 66_000, elapsed_ms: 800 }));
    expect(s.current?.triples).toBe(600);
    expect(s.fraction).toBeGreaterThan(0.2);
    expect(s.eta).toMatch(/s left|almost/);
    await s.cancel();
    expect(s.cancelling).toBe(true);
    expect(b.calls).toContain('importCancel 1');
    b.emitImport(view({ status: 'cancelled' }));
    expect(s.current).toBeNull();
    expect(s.cancelling).toBe(false);
    expect(s.last?.status).toBe('cancelled');
    // A progress event that arrives after the end does not bring the bar back.
    b.emitImport(view({ done: 700 }));
    expect(s.current).toBeNull();
    // A cache hit never shows a bar.
    b.emitImport(view({ job: 2, status: 'cached' }));
    expect(s.current).toBeNull();
    expect(s.last?.status).toBe('cached');
  });

  it('a cancelled build is no error and keeps the open document', async () => {
    // The kind tells, never the wording (a file may well be named "import cancelled").
    expect(isCancelled({ kind: 'cancelled', message: '/d/a.nt: import cancelled' })).toBe(true);
    expect(isCancelled({ kind: 'file', message: '/d/import cancelled' })).toBe(false);
    expect(isCancelled('/d/a.nt: import cancelled')).toBe(false);
    expect(errorText({ kind: 'invalid', message: 'document 3 is not open' })).toBe('document 3 is not open');
    const b = new MemoryBackend();
    b.docs.set('/a.rete', doc(1, 'a.rete'));
    const src = new SourceState(b, () => {});
    await src.openPath('/a.rete');
    b.openPath = async (p: string) => { throw { kind: 'cancelled', message: `${p}: import cancelled` }; };
    expect(await src.openPath('/d/big.nt')).toBe(false);
    expect(src.error).toBe('');
    expect(src.doc?.doc).toBe(1);
    b.openPath = async (p: string) => { throw { kind: 'file', message: `${p}:3:12: expected '.' or ';'` }; };
    await src.openPath('/d/broken.ttl');
    expect(src.error).toBe("/d/broken.ttl:3:12: expected '.' or ';'");
    expect(src.doc?.doc).toBe(1);
  });

  it('clears the cache and saves the open document as .rete', async () => {
    const b = new MemoryBackend();
    b.cacheFiles = 3;
    const s = new ImportState(b);
    await s.refreshCache();
    expect(s.cache?.files).toBe(3);
    expect(await s.clearCache()).toBe('Cleared the import cache: 3 files, 0.0 MB');
    expect(s.cache?.files).toBe(0);
    b.savedTo = '/home/u/a.rete';
    expect(await s.saveAs(1, 'a.ttl')).toBe('Saved /home/u/a.rete');
    expect(b.calls).toContain('saveRete 1 a.ttl');
    b.savedTo = null;
    expect(await s.saveAs(1, 'a.ttl')).toBe('');
  });
});
