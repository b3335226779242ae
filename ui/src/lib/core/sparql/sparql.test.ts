import { describe, expect, it } from 'vitest';
import { SparqlState, PAGE, DEFAULT_TIME_LIMIT } from './sparql.svelte';
import { HighlightState } from '../highlight/highlight.svelte';
import { MemoryBackend, doc } from '../../../test/memory-backend';
import type { Cell } from '../types';

const iri = (id: number): Cell => ({ id, nt: `<http://ex.org/p${id}>`, label: `p${id}`, kind: 'iri' });
const lit = (s: string): Cell => ({ id: 0, nt: `"${s}"`, label: s, kind: 'literal' });

function setup(remote = false) {
  const b = new MemoryBackend();
  b.contexts.set(1, {
    prefixes: [['foaf', 'http://xmlns.com/foaf/0.1/']],
    classes: [{ iri: 'http://xmlns.com/foaf/0.1/Person', label: 'Person', count: 10 }],
    predicates: [{ iri: 'http://xmlns.com/foaf/0.1/name', label: 'name', count: 10 }],
    examples: [{ title: 'All triples', query: 'SELECT * { ?s ?p ?o }' }, { title: 'Instances of foaf:Person', query: 'SELECT ?s { ?s a foaf:Person }' }],
  });
  const rows = Array.from({ length: 1000 }, (_, i) => [iri(i + 1), lit(`n${i}`)]);
  b.allRows.set('foaf:name', rows);
  b.answers.set('foaf:name', {
    status: 'ok', kind: 'select', columns: ['p', 'n'], total: rows.length, rows: rows.slice(0, PAGE), boolean: null, graph: null,
    truncated: false, elapsed_ms: 3, error: null, read: { bytes: 10, requests: 1, remote, budget: null, fetched: 0 }, hint: null,
  });
  for (let i = 1; i <= 1000; i++) b.places.set(`<http://ex.org/p${i}>`, [`c1:${i % 3}`, `c0:${i % 30}`, `e:${i}`]);
  const hl = new HighlightState();
  const s = new SparqlState(b, hl, null);
  const d = { ...doc(1, 'x.rete'), remote };
  return { b, s, hl, d };
}

/** A Storage-like map (what localStorage gives the pane). */
function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => { m.set(k, v); } };
}

describe('sparql pane state', () => {
  it('queries all graphs by default in a file with named graphs, remembers the switch per file, and shows the hint of an empty answer', async () => {
    const b = new MemoryBackend();
    b.contexts.set(1, { prefixes: [], classes: [], predicates: [], examples: [] });
    b.contexts.set(2, { prefixes: [], classes: [], predicates: [], examples: [] });
    const empty = 'The default graph is empty; this file\'s data is in 5 named graphs — switch to all graphs, or use GRAPH ?g { … }.';
    b.answers.set('rdf:Property', {
      status: 'ok', kind: 'select', columns: ['s'], total: 0, rows: [], boolean: null, graph: null,
      truncated: false, elapsed_ms: 1, error: null, read: { bytes: 0, requests: 0, remote: false, budget: null, fetched: 0 }, hint: empty,
    });
    const storage = memoryStorage();
    const s = new SparqlState(b, new HighlightState(), storage);
    const named = { ...doc(1, 'vocabularies.nq'), graphs: 5 };
    const plain = doc(2, 'social.rete');
    await s.load(named);
    expect(s.namedGraphs).toBe(5);
    expect(s.allGraphs).toBe(true);
    s.use('SELECT ?s WHERE { ?s a rdf:Property }');
    await s.run();
    expect(b.allGraphs.at(-1)).toBe(true);
    expect(s.hint).toBe(empty);
    s.setAllGraphs(false);
    expect(s.hint).toBeNull();
    await s.run();
    expect(b.allGraphs.at(-1)).toBe(false);
    await s.estimate();
    expect(b.calls.at(-1)).toBe('cost');
    // Another file without named graphs: strict SPARQL, no switch; back to the first: as it was left.
    await s.load(plain);
    expect(s.namedGraphs).toBe(0);
    expect(s.allGraphs).toBe(false);
    await s.load(named);
    expect(s.allGraphs).toBe(false);
    s.setAllGraphs(true);
    await s.estimate();
    expect(b.calls.at(-1)).toBe('cost all graphs');
    expect(new SparqlState(b, new HighlightState(), storage).allGraphs).toBe(false);
    const again = new SparqlState(b, new HighlightState(), storage);
    await again.load(named);
    expect(again.allGraphs).toBe(true);
  });

  it('loads the vocabulary and starts from the instances example', async () => {
    const { s, d } = setup();
    await s.load(d);
    expect(s.text).toBe('SELECT ?s { ?s a foaf:Person }');
    expect(s.completions.some((c) => c.label === 'foaf:Person' && c.type === 'class')).toBe(true);
  });

  it('runs the query as typed (the shell adds prefixes), pages rows in and highlights where results live', async () => {
    const { b, s, hl, d } = setup();
    await s.load(d);
    s.use('SELECT ?p ?n WHERE { ?p foaf:name ?n }');
    const out = await s.run();
    expect(out?.total).toBe(1000);
    expect(b.calls.find((c) => c.startsWith('run'))).toContain('SELECT ?p ?n WHERE { ?p foaf:name ?n }');
    expect(b.calls.find((c) => c.startsWith('run'))).not.toContain('PREFIX');
    expect(s.history[0]).toBe('SELECT ?p ?n WHERE { ?p foaf:name ?n }');
    expect(s.row(5)?.[1]?.label).toBe('n5');
    expect(s.row(950)).toBeUndefined();
    await s.fetchPage(Math.floor(950 / PAGE));
    expect(s.row(950)?.[0]?.label).toBe('p951');
    await new Promise((r) => setTimeout(r, 0));
    expect(s.located).toBe(1000);
    expect(hl.source).toBe('results');
    expect(hl.matches('c1:2', [])).toBe(true);
    expect(hl.matches('e:7', [])).toBe(true);
    expect(hl.matches('e:5000', ['<x>'])).toBe(false);
  });

  it("replaces the last results' highlight in one change, and clears it when nothing is on the map", async () => {
    const { b, s, hl, d } = setup();
    const one = (id: number) => [iri(id), lit(`n${id}`)];
    const answer = (rows: Cell[][]) => ({
      status: 'ok' as const, kind: 'select' as const, columns: ['p', 'n'], total: rows.length, rows, boolean: null, graph: null,
      truncated: false, elapsed_ms: 1, error: null, read: { bytes: 10, requests: 1, remote: false, budget: null, fetched: 0 }, hint: null,
    });
    b.answers.set('# first', answer([one(7)]));
    b.answers.set('# second', answer([one(8)]));
    b.answers.set('# literals', answer([[lit('a'), lit('b')]]));
    await s.load(d);
    const settle = () => new Promise((r) => setTimeout(r, 0));
    s.use('SELECT * { ?p ?q ?n } # first');
    await s.run();
    await settle();
    expect(hl.matches('e:7', [])).toBe(true);
    // Each change of the highlight restyles the whole map: the next results' replaces it at once,
    // with no clearing in between.
    const seen: (string | null)[] = [];
    const v0 = hl.version;
    const clear = hl.clear.bind(hl);
    hl.clear = (source) => { seen.push('clear'); clear(source); };
    const set = hl.set.bind(hl);
    hl.set = (spec) => { seen.push('set'); set(spec); };
    s.use('SELECT * { ?p ?q ?n } # second');
    await s.run();
    expect(hl.matches('e:7', []), 'kept while the new results are located').toBe(true);
    await settle();
    expect(seen).toEqual(['set']);
    expect(hl.version).toBe(v0 + 1);
    expect(hl.matches('e:8', [])).toBe(true);
    expect(hl.matches('e:7', [])).toBe(false);
    // No entity in the results: the highlight goes.
    s.use('SELECT * { ?p ?q ?n } # literals');
    await s.run();
    await settle();
    expect(hl.source).toBeNull();
    // A failed query clears it too.
    s.use('SELECT * { ?p ?q ?n } # first');
    await s.run();
    await settle();
    expect(hl.source).toBe('results');
    s.use('SELECT ?x WHERE { ?x foaf:knows ');
    await s.run();
    expect(hl.source).toBeNull();
  });

  it('maps syntax errors onto the typed text', async () => {
    const { s, d } = setup();
    await s.load(d);
    s.use('SELECT ?x WHERE { ?x foaf:knows ');
    await s.run();
    // The memory backend reports the end of the sent query, which is the typed text.
    expect(s.error).toEqual({ message: 'expected [_]', line: 1, column: s.text.length });
    expect(s.outcome?.status).toBe('error');
  });

  it('cancels a running query and shows elapsed time meanwhile', async () => {
    const { b, s, d } = setup();
    b.slowQuery = 'slow';
    await s.load(d);
    s.use('SELECT * { ?a ?b ?c } # slow');
    const p = s.run();
    await new Promise((r) => setTimeout(r, 150));
    expect(s.running).toBe(true);
    expect(s.elapsed).toBeGreaterThan(0);
    await s.cancel();
    const out = await p;
    expect(out?.status).toBe('cancelled');
    expect(s.running).toBe(false);
    expect(b.calls).toContain('cancel 1');
  });

  it('asks for the read cost before running on a remote file', async () => {
    const { b, s, d } = setup(true);
    b.costs.set('foaf:name', { bytes: 123456, requests: 4, blocks: 9, patterns: 1, absent: 0, partial: false, error: null });
    await s.load(d);
    s.use('SELECT ?p ?n WHERE { ?p foaf:name ?n }');
    await s.run();
    const i = b.calls.indexOf('cost');
    expect(i).toBeGreaterThanOrEqual(0);
    expect(b.calls.findIndex((c) => c.startsWith('run'))).toBeGreaterThan(i);
    expect(s.cost?.bytes).toBe(123456);
    expect(await s.export('csv')).toBe('/tmp/results.csv');
    expect(b.exported).toEqual(['1.csv']);
  });

  it('sends the time limit with every run and says when it stopped a query', async () => {
    const { b, s, d } = setup();
    b.slowQuery = 'slow';
    await s.load(d);
    expect(s.timeLimit).toBe(DEFAULT_TIME_LIMIT);
    s.use('SELECT ?p ?n WHERE { ?p foaf:name ?n }');
    await s.run();
    expect(b.timeouts).toEqual([DEFAULT_TIME_LIMIT * 1000]);
    s.setTimeLimit(0.05);
    s.use('SELECT * { ?a ?b ?c } # slow');
    const out = await s.run();
    expect(b.timeouts[1]).toBe(50);
    expect(out?.status).toBe('timeout');
    expect(s.timedOut).toBe(0.05);
    expect(s.message).toContain('time limit of 0.05 s');
    expect(s.running).toBe(false);
    // The next run starts clean.
    s.use('SELECT ?p ?n WHERE { ?p foaf:name ?n }');
    await s.run();
    expect(s.timedOut).toBeNull();
    expect(s.message).toBe('');
  });

  it('remembers the time limit; 0 means no limit and bad values are ignored', async () => {
    const saved = new Map<string, string>();
    const storage = { getItem: (k: string) => saved.get(k) ?? null, setItem: (k: string, v: string) => void saved.set(k, v) };
    const { b, d } = setup();
    const s = new SparqlState(b, new HighlightState(), storage);
    s.setTimeLimit(0);
    s.setTimeLimit(-3);
    s.setTimeLimit(Number.NaN);
    expect(s.timeLimit).toBe(0);
    await s.load(d);
    s.use('SELECT ?p ?n WHERE { ?p foaf:name ?n }');
    await s.run();
    expect(b.timeouts).toEqual([0]);
    s.setTimeLimit(120);
    expect(new SparqlState(b, new HighlightState(), storage).timeLimit).toBe(120);
  });
});
