import { describe, expect, it } from 'vitest';
import { Session } from './session.svelte';
import { MemoryBackend, doc, node } from '../../test/memory-backend';

describe('Session', () => {
  it('listens to the shell, then opens the handed-over file: map and legend before the query context', async () => {
    const b = new MemoryBackend();
    b.docs.set('/a.rete', doc(1, 'a.rete', ['<http://ex.org/P>']));
    b.views.set('overview:1', { kind: 'pyramid', note: '', truncated: false, nodes: [node('c1'), node('c2')], edges: [] });
    b.legends.set(1, { source: 'schema', note: '', classes: [], relations: [] });
    b.contexts.set(1, { classes: [], predicates: [], prefixes: [], examples: [] });
    b.pending = ['/a.rete'];
    const s = new Session(b);
    s.launch.mark('script');
    await s.start();
    expect(b.openHandlers).toHaveLength(1);
    expect(s.source.doc?.name).toBe('a.rete');
    expect(s.map.nodeCount).toBe(2);
    expect(s.schema.legend?.source).toBe('schema');
    expect(b.calls.slice(0, 2)).toEqual(['openPath /a.rete', 'overview 1']);
    // The first frame with the view on it reports the marks once.
    s.launch.drawn();
    expect(Object.keys(b.launched[0])).toEqual(['script', 'listening', 'opened', 'top-level', 'drawn']);
  });
});
