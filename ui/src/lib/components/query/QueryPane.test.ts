import { describe, expect, it, vi } from 'vitest';
// The pane imports the result graph (sigma), whose module reads WebGL constants jsdom lacks;
// no graph is drawn here.
vi.hoisted(() => { (globalThis as Record<string, unknown>).WebGL2RenderingContext ??= class {}; (globalThis as Record<string, unknown>).WebGLRenderingContext ??= class {}; });
import { fireEvent, render, screen } from '@testing-library/svelte';
import QueryPane from './QueryPane.svelte';
import { Session } from '../../core/session.svelte';
import { MemoryBackend, doc } from '../../../test/memory-backend';

// jsdom has no layout, hence no ResizeObserver (Svelte's bind:clientHeight uses it).
globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

function setup() {
  const b = new MemoryBackend();
  b.contexts.set(1, { prefixes: [], classes: [], predicates: [], examples: [] });
  b.reads = { bytes: 16_384, requests: 1, remote: true, budget: 1_000_000, fetched: 16_384 };
  b.costs.set('?big', { bytes: 5_000_000, requests: 9, blocks: 40, patterns: 1, absent: 0, partial: false, error: null });
  b.costs.set('?small', { bytes: 20_000, requests: 1, blocks: 1, patterns: 1, absent: 0, partial: false, error: null });
  for (const k of ['?big', '?small']) {
    b.answers.set(k, { status: 'ok', kind: 'select', columns: ['s'], total: 0, rows: [], boolean: null, graph: null, truncated: false, elapsed_ms: 1, error: null, read: { bytes: 0, requests: 0, remote: true, budget: null, fetched: 0 }, hint: null });
  }
  const session = new Session(b);
  const d = { ...doc(1, 'x.rete'), remote: true };
  return { b, session, d };
}

describe('QueryPane read budget', () => {
  it('shows the budget in the cost preview and asks before a query beyond it', async () => {
    const { b, session, d } = setup();
    session.reads.watch(1, true);
    await session.reads.poll();
    await session.sparql.load(d);
    render(QueryPane, { session });

    session.sparql.use('SELECT ?small WHERE { ?small ?p ?o }');
    await session.sparql.estimate();
    const preview = await screen.findByTestId('query-cost');
    expect(screen.getByTestId('query-budget').textContent).toContain('983.6 kB left of 1.0 MB');
    expect(preview.classList.contains('over')).toBe(false);

    session.sparql.use('SELECT ?big WHERE { ?big ?p ?o }');
    await session.sparql.estimate();
    await vi.waitFor(() => expect(screen.getByTestId('query-cost').classList.contains('over')).toBe(true));
    expect(screen.getByTestId('query-budget').textContent).toContain('running it will ask you first');

    // Run: the shell asks (a native dialog); declined, the query does not run, and the pane says so.
    b.budgetAgreed = false;
    expect(await session.sparql.run()).toBeNull();
    expect(b.calls).toContain('raiseReadBudget 1 5000000');
    expect(b.calls.some((c) => c.startsWith('run'))).toBe(false);
    await vi.waitFor(() => expect(screen.getByTestId('budget-declined').textContent).toBe('not run: the read budget was kept'));

    // Run again and agree: the shell raises the budget, then the query runs.
    b.budgetAgreed = true;
    b.calls.length = 0;
    expect((await session.sparql.run())?.status).toBe('ok');
    const raise = b.calls.indexOf('raiseReadBudget 1 5000000');
    expect(raise).toBeGreaterThanOrEqual(0);
    expect(b.calls.findIndex((c) => c.startsWith('run'))).toBeGreaterThan(raise);
    expect(screen.queryByTestId('budget-declined')).toBeNull();
    session.reads.stop();
  });
});
