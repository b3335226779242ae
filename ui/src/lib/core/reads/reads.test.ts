import { describe, expect, it } from 'vitest';
import { formatBytes, ReadsState } from './reads.svelte';
import { MemoryBackend } from '../../../test/memory-backend';

describe('read counters', () => {
  it('polls the shell and tells when bytes are arriving', async () => {
    const b = new MemoryBackend();
    b.reads = { bytes: 4096, requests: 1, remote: true };
    const r = new ReadsState(b);
    r.watch(1, true);
    await r.poll();
    expect([r.bytes, r.requests, r.remote, r.fetching]).toEqual([4096, 1, true, false]);
    b.reads = { bytes: 90_000, requests: 3, remote: true };
    await r.poll();
    expect(r.fetching).toBe(true);
    await r.poll();
    expect(r.fetching).toBe(false);
    r.stop();
  });

  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(12_345)).toBe('12.3 kB');
    expect(formatBytes(4_500_000)).toBe('4.5 MB');
  });
});
