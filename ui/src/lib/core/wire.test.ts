import { describe, expect, it } from 'vitest';
import { decodeView, type WireView } from './wire';
// The bytes crates/rete-explore/src/wire.rs checks it sends.
import raw from './wire.fixture.json?raw';

const fixture: WireView = JSON.parse(raw);

const person = '<http://xmlns.com/foaf/0.1/Person>';

describe('decodeView', () => {
  it('turns the app’s columns back into the view it encoded (crates/rete-explore/src/wire.rs)', () => {
    expect(decodeView(fixture)).toEqual({
      kind: 'members', note: 'a note', truncated: true,
      nodes: [
        {
          key: 'c1:4', kind: 'community', label: 'Bauer', size: 120, class: person, x: 1.5, y: -2.25, r: 0.75,
          expandable: true, level: 1, id: 4, classes: [{ nt: person, label: 'Person', count: 118 }],
        },
        {
          key: 'e:17', kind: 'entity', label: 'Anita Bauer', size: 1, class: person, x: null, y: null, r: null,
          expandable: false, level: null, id: 17, classes: [],
        },
        {
          key: 'k:9', kind: 'class', label: 'Thing', size: 3, class: null, x: 0, y: 0, r: 2,
          expandable: true, level: null, id: 9, classes: [],
        },
      ],
      edges: [
        { source: 'e:17', target: 'c1:4', weight: 1, label: 'knows' },
        { source: 'c1:4', target: 'c0:2', weight: 35, label: 'knows, worksAt' },
        { source: 'k:9', target: 'e:17', weight: 2, label: 'knows' },
      ],
    });
  });

  it('decodes an empty view', () => {
    const empty: WireView = {
      kind: 'pyramid', note: '', truncated: false, strings: [],
      nodes: { key: [], kind: [], label: [], size: [], class: [], x: [], y: [], r: [], expandable: [], level: [], id: [], classes: [] },
      edges: { source: [], target: [], weight: [], label: [] },
    };
    expect(decodeView(empty)).toEqual({ kind: 'pyramid', note: '', truncated: false, nodes: [], edges: [] });
  });
});
