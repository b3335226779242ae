import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ResultsTable from './ResultsTable.svelte';
import { Session } from '../../core/session.svelte';
import { MemoryBackend, doc } from '../../../test/memory-backend';
import { PAGE } from '../../core/sparql/sparql.svelte';
import type { Cell } from '../../core/types';

// jsdom has no layout, hence no ResizeObserver (Svelte's bind:clientHeight uses it).
globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

describe('ResultsTable component', () => {
  it('renders only the rows in view of a large result, and IRIs open their details', async () => {
    const b = new MemoryBackend();
    b.contexts.set(1, { prefixes: [], classes: [], predicates: [], examples: [] });
    const rows: Cell[][] = Array.from({ length: 100_000 }, (_, i) => [{ id: i + 1, nt: `<http://ex.org/e${i}>`, label: `e${i}`, kind: 'iri' }, { id: 0, nt: `"${i}"`, label: String(i), kind: 'literal' }]);
    b.allRows.set('?s ?v', rows);
    b.answers.set('?s ?v', { status: 'ok', kind: 'select', columns: ['s', 'v'], total: rows.length, rows: rows.slice(0, PAGE), boolean: null, graph: null, truncated: false, elapsed_ms: 1, error: null, read: { bytes: 0, requests: 0, remote: false, budget: null, fetched: 0 }, hint: null });
    b.entities.set(1, { term: { id: 1, nt: '<http://ex.org/e0>', label: 'e0', kind: 'iri' }, types: [], properties: [], out_links: [], in_links: [], out_total: 0, in_total: 0 });
    const session = new Session(b);
    await session.sparql.load(doc(1, 'x.rete'));
    session.sparql.use('SELECT ?s ?v WHERE { ?s ?p ?v }');
    await session.sparql.run();
    render(ResultsTable, { session });
    const table = screen.getByTestId('results-table');
    expect(table.getAttribute('data-total')).toBe('100000');
    const shown = screen.getAllByTestId('result-row');
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(60);
    expect(shown[0].textContent).toContain('e0');
    await fireEvent.click(screen.getAllByTestId('result-link')[0]);
    await new Promise((r) => setTimeout(r, 0));
    expect(session.selection.selected).toBe('e:1');
    expect(session.selection.details?.kind).toBe('entity');
  });
});
