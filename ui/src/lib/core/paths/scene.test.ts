import { describe, expect, it } from 'vitest';
import { pathSegments } from './scene';
import type { PathsView, TermView } from '../types';

const t = (id: number, label: string): TermView => ({ id, nt: `<http://ex.org/${label}>`, label, kind: 'iri' });

describe('paths on the map', () => {
  const [ada, alan, grace, tim] = [t(1, 'ada'), t(2, 'alan'), t(3, 'grace'), t(4, 'tim')];
  const knows = { predicate: t(9, 'knows'), forward: true };
  const view: PathsView = {
    paths: [
      { hops: 2, nodes: [ada, alan, grace], steps: [{ links: [knows], more_links: 0 }, { links: [knows], more_links: 0 }] },
      { hops: 2, nodes: [ada, tim, grace], steps: [{ links: [knows], more_links: 0 }, { links: [{ ...knows, forward: false }], more_links: 0 }] },
    ],
    stop: 'exhausted', reason: '', elapsed_ms: 1,
  };
  const located = new Map([
    [ada.nt, ['c1:0', 'c0:1', 'e:1']], [alan.nt, ['c1:0', 'c0:1', 'e:2']], [grace.nt, ['c1:0', 'c0:2', 'e:3']], [tim.nt, ['c1:1', 'c0:7', 'e:4']],
  ]);

  it('joins the nodes showing each step, the entities themselves where they are on the map', () => {
    const map = new Set(['e:1', 'e:2', 'c0:1', 'c0:2', 'c1:1']);
    expect(pathSegments(view, located, (k) => map.has(k))).toEqual([
      { from: 'e:1', to: 'e:2', label: 'knows', forward: true },
      { from: 'e:2', to: 'c0:2', label: 'knows', forward: true },
      { from: 'e:1', to: 'c1:1', label: 'knows', forward: true },
      { from: 'c1:1', to: 'c0:2', label: 'knows', forward: false },
    ]);
  });

  it('leaves out steps inside one closed group and entities not on the map', () => {
    const map = new Set(['c1:0']);
    expect(pathSegments(view, located, (k) => map.has(k))).toEqual([]);
    expect(pathSegments(null, located, () => true)).toEqual([]);
  });
});
