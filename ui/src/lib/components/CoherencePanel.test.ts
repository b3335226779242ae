import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import CoherencePanel from './CoherencePanel.svelte';
import { Session } from '../core/session.svelte';
import { MemoryBackend, doc } from '../../test/memory-backend';
import type { CoherenceReport, Finding } from '../core/types';

const V = 'http://dbpedia.org/ontology/';
const unsat = (n: string, graph = ''): Finding => ({
  kind: 'unsatisfiable-class', severity: 'error', message: `dbo:${n} is unsatisfiable`, classes: [`${V}${n}`], entities: [],
  explanation: [{ text: 'schema:Person rdfs:subClassOf gr:BusinessEntity', triple: ['<a>', '<b>', '<c>'], graphs: graph ? [graph] : [], default_graph: false }],
});

describe('CoherencePanel component', () => {
  it('shows the root cause first with its derived classes folded, and the source of each step', async () => {
    const b = new MemoryBackend();
    const report: CoherenceReport = {
      tier: 0, findings: [unsat('Athlete'), unsat('Person', '<http://example.org/alignments>'), unsat('Scientist')],
      bytes_read: 1, requests: 1, elapsed_ms: 1, phases: [], schema_source: 'block', classes: 3, measured: true,
      prefixes: [['dbo', V]], inputs: ['v.nq'],
      groups: { roots: 1, derived: 2, instance_findings: 0, causes: [{ roots: [1], classes: [`${V}Person`], derived: [0, 2], derived_classes: [`${V}Athlete`, `${V}Scientist`], instances: [] }], clashes: [] },
    };
    b.coherence = [report];
    const session = new Session(b);
    session.coherence.reset(doc(1, 'v.rete').doc);
    await session.coherence.run();
    render(CoherencePanel, { session });
    expect(screen.getByTestId('coherence-groups').textContent).toBe('1 root cause · 2 derived · 0 instance findings');
    const root = screen.getByTestId('root-cause');
    expect(root.textContent).toContain('dbo:Person is unsatisfiable');
    expect(screen.getByTestId('derived-count').textContent).toBe('2 derived');
    // Folded: the derived classes are not listed until asked.
    expect(screen.queryAllByTestId('derived-class')).toHaveLength(0);
    await fireEvent.click(screen.getByTestId('root-fold'));
    expect(screen.getAllByTestId('derived-class').map((e) => e.textContent)).toEqual(['dbo:Athlete', 'dbo:Scientist']);
    // The root's explanation with the named graph of its step.
    await fireEvent.click(root.querySelector('[data-root="true"]')!);
    expect(screen.getByTestId('step-source').textContent).toBe('<http://example.org/alignments>');
    expect(screen.getByTestId('cause-derived').textContent).toContain('2 classes are unsatisfiable because of it');
  });
});
