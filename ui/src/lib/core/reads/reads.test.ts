import { describe, expect, it, vi } from 'vitest';
import { formatBytes, ReadsState } from './reads.svelte';
import { MemoryBackend } from '../../../test/memory-backend';

describe('read counters', () => {
  it('polls the shell and tells when bytes are arriving', async () => {
    const b = new MemoryBackend();
    b.reads = { bytes: 4096, requests: 1, remote: true, budget: null, fetched: 0 };
    const r = new ReadsState(b);
    r.watch(1, true);
    await r.poll();
    expect([r.bytes, r.requests, r.remote, r.fetching]).toEqual([4096, 1, true, false]);
    b.reads = { bytes: 90_000, requests: 3, remote: true, budget: null, fetched: 0 };
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

describe('read budget', () => {
  const cost = (bytes: number) => ({ bytes, requests: 3, blocks: 2, patterns: 1, absent: 0, partial: false, error: null });

  it('lets a query within the budget run without asking', async () => {
    const b = new MemoryBackend();
    b.reads = { bytes: 4096, requests: 1, remote: true, budget: 100_000, fetched: 40_000 };
    const r = new ReadsState(b);
    r.watch(1, true);
    await r.poll();
    expect([r.budget, r.fetched, r.left]).toEqual([100_000, 40_000, 60_000]);
    expect(r.overBudget(cost(60_000))).toBe(false);
    expect(await r.approve(cost(60_000))).toBe(true);
    expect(b.calls.some((c) => c.startsWith('raiseReadBudget'))).toBe(false);
    r.stop();
  });

  it('has the shell ask before a query beyond the budget, and raises it only when the user agrees', async () => {
    const b = new MemoryBackend();
    b.reads = { bytes: 4096, requests: 1, remote: true, budget: 100_000, fetched: 40_000 };
    const r = new ReadsState(b);
    r.watch(1, true);
    await r.poll();
    expect(r.overBudget(cost(60_001))).toBe(true);

    // The shell asks natively; declined, nothing is raised and the reason is kept.
    b.budgetAgreed = false;
    expect(await r.approve(cost(70_000))).toBe(false);
    expect(r.declined).toBe('not run: the read budget was kept');
    expect(r.budget).toBe(100_000);

    b.budgetAgreed = true;
    expect(await r.approve(cost(70_000))).toBe(true);
    expect(r.declined).toBe('');
    expect(b.calls).toContain('raiseReadBudget 1 70000');
    expect(r.budget).toBe(110_000);
    expect(r.left).toBe(70_000);
    r.stop();
  });

  it('never asks for a local file (no budget)', async () => {
    const b = new MemoryBackend();
    b.reads = { bytes: 10, requests: 1, remote: false, budget: null, fetched: 0 };
    const r = new ReadsState(b);
    r.watch(1, false);
    expect(r.overBudget(cost(1e15))).toBe(false);
    expect(await r.approve(cost(1e15))).toBe(true);
    r.stop();
  });
});
