import { describe, expect, it } from 'vitest';
import { CoherenceState } from './coherence.svelte';
import { HighlightState } from '../highlight/highlight.svelte';
import { MemoryBackend } from '../../../test/memory-backend';
import type { CoherenceGroups, CoherenceReport, Finding } from '../types';
import { compact, stepSource } from './coherence.svelte';

const M = 'http://example.org/medical#';
const unsat: Finding = {
  kind: 'unsatisfiable-class', severity: 'error', message: ':Relapsed is unsatisfiable', classes: [`${M}Relapsed`, `${M}Healthy`], entities: [],
  explanation: [{ text: ':Relapsed rdfs:subClassOf :Healthy', triple: null, graphs: [], default_graph: false }, { text: ':Healthy owl:disjointWith :Sick', triple: null, graphs: [], default_graph: false }],
};
const clash: Finding = {
  kind: 'disjoint-class-clash', severity: 'error', message: ':patient7 is both', classes: [`${M}Healthy`, `${M}Sick`], entities: [`<${M}patient7>`],
  explanation: [{ text: ':patient7 a :Healthy', triple: [`<${M}patient7>`, '<t>', `<${M}Healthy>`], graphs: [], default_graph: true }],
};
const report = (tier: number, findings: Finding[], groups?: Partial<CoherenceGroups>): CoherenceReport => ({
  tier, findings, bytes_read: 100 * (tier + 1), requests: tier + 1, elapsed_ms: 1, phases: [], schema_source: 'block', classes: 20, measured: true,
  prefixes: [['', M]], inputs: [], groups: { roots: 0, derived: 0, instance_findings: 0, causes: [], clashes: [], ...groups },
});

function setup() {
  const b = new MemoryBackend();
  b.coherence = [report(0, [unsat]), report(1, [unsat, clash]), report(2, [unsat, clash])];
  b.places.set(`<${M}patient7>`, ['c1:0', 'c0:4', 'e:77']);
  const hl = new HighlightState();
  const c = new CoherenceState(b, hl);
  b.progressHandlers.push((p) => c.onProgress(p));
  c.reset(1);
  return { b, c, hl };
}

describe('coherence report state', () => {
  it('runs the tiers in turn, showing each report as it arrives', async () => {
    const { c } = setup();
    const seen: number[] = [];
    const p = c.run();
    expect(c.running).toBe(true);
    // Progress events update the report before the run ends.
    await new Promise((r) => setTimeout(r, 0));
    seen.push(c.tiersDone);
    await p;
    expect(seen[0]).toBeGreaterThanOrEqual(1);
    expect(c.tiersDone).toBe(3);
    expect(c.status).toBe('ok');
    expect(c.findings.map((f) => f.kind)).toEqual(['unsatisfiable-class', 'disjoint-class-clash']);
    expect(c.counts()).toEqual({ error: 2, warning: 0, info: 0 });
  });

  it('shows the running spinner only once a run lasts', async () => {
    const { b, c } = setup();
    let finish: () => void = () => {};
    const gate = new Promise<void>((r) => { finish = r; });
    const run = b.coherenceRun.bind(b);
    b.coherenceRun = async (doc, n) => { await gate; return run(doc, n); };
    const p = c.run();
    expect(c.running).toBe(true);
    expect(c.working.shown).toBe(false);
    await new Promise((r) => setTimeout(r, 450));
    expect(c.working.shown).toBe(true);
    finish();
    await p;
    expect(c.working.shown).toBe(false);
  });

  it('highlights the classes and located entities of the selected finding', async () => {
    const { c, hl } = setup();
    await c.run();
    await c.select(0);
    expect(hl.source).toBe('finding');
    expect([...hl.classes]).toEqual([`<${M}Relapsed>`, `<${M}Healthy>`]);
    expect(hl.matches('c0:1', [`<${M}Healthy>`])).toBe(true);
    await c.select(1);
    expect(hl.matches('c0:4', [])).toBe(true);
    expect(hl.matches('e:77', [])).toBe(true);
    expect(hl.matches('e:78', [`<${M}Doctor>`])).toBe(false);
    // Only the individuals' places light up on the map, not every member of their classes.
    expect(hl.matches('c0:9', [`<${M}Healthy>`])).toBe(false);
    expect(hl.classes.has(`<${M}Sick>`)).toBe(true);
    await c.select(-1);
    expect(hl.active).toBe(false);
  });

  it('can be cancelled and exports through the shell', async () => {
    const { b, c } = setup();
    const p = c.run();
    await c.cancel();
    await p;
    expect(c.status).toBe('cancelled');
    await c.export('md');
    expect(b.exported).toEqual(['report.md']);
    expect(c.message).toBe('Saved /tmp/report.md');
  });

  it('lists root causes first with derived classes folded, then clashes, then the rest', async () => {
    const V = 'http://dbpedia.org/ontology/';
    const g = (text: string, graph: string) => ({ text, triple: null, graphs: [graph], default_graph: false });
    const root: Finding = {
      kind: 'unsatisfiable-class', severity: 'error', message: 'dbo:Person is unsatisfiable', classes: [`${V}Person`], entities: [],
      explanation: [g('schema:Person rdfs:subClassOf gr:BusinessEntity', '<http://example.org/align>')],
    };
    const derived = (n: string): Finding => ({ ...root, message: `dbo:${n} is unsatisfiable`, classes: [`${V}${n}`] });
    const member: Finding = { ...clash, kind: 'unsatisfiable-member', entities: [`<${M}patient7>`] };
    const b = new MemoryBackend();
    const findings = [derived('Athlete'), root, derived('Scientist'), member, clash, { ...clash }, { ...unsat, kind: 'subclass-cycle' }];
    const groups = {
      roots: 1, derived: 2, instance_findings: 3,
      causes: [{ roots: [1], classes: [`${V}Person`], derived: [0, 2], derived_classes: [`${V}Athlete`, `${V}Scientist`], instances: [3] }],
      clashes: [{ findings: [4, 5], classes: [`${M}Healthy`, `${M}Sick`] }],
    };
    b.coherence = [report(0, findings, groups)];
    b.places.set(`<${M}patient7>`, ['c1:0', 'e:77']);
    // The class terms are entities too when the dataset holds the vocabulary.
    b.places.set(`<${V}Athlete>`, ['c0:5']);
    const hl = new HighlightState();
    const c = new CoherenceState(b, hl);
    c.reset(1);
    await c.run();
    expect(c.rows.map((r) => r.type)).toEqual(['cause', 'clash', 'finding']);
    expect(c.groupSummary).toBe('1 root cause · 2 derived · 3 instance findings');
    // Folded until asked.
    expect(c.isOpen('cause:0')).toBe(false);
    c.toggle('cause:0');
    expect(c.isOpen('cause:0')).toBe(true);
    // Selecting the root shows its explanation and lights up its and its derived classes'
    // communities and its individuals.
    await c.selectCause(0);
    expect(c.selected).toBe(1);
    expect([...hl.expanded]).toEqual([`<${V}Person>`, `<${V}Athlete>`, `<${V}Scientist>`]);
    expect(hl.matches('c9:1', [`<${V}Scientist>`])).toBe(true);
    expect(hl.matches('e:77', [])).toBe(true);
    expect(hl.matches('c0:5', [])).toBe(true);
    expect(stepSource(c.findings[c.selected].explanation[0])).toBe('<http://example.org/align>');
    expect(stepSource(clash.explanation[0])).toBe('default graph');
    expect(compact([['dbo', V], ['', M]], `${V}Athlete`)).toBe('dbo:Athlete');
    expect(compact([], 'http://x/y')).toBe('<http://x/y>');
    await c.select(0);
    expect(c.cause).toBe(-1);
  });
});
