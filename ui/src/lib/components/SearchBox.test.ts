import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import SearchBox from './SearchBox.svelte';
import { Session } from '../core/session.svelte';
import { doc, node, oneFile } from '../../test/memory-backend';

describe('SearchBox component', () => {
  it('offers an index when the labels were scanned: progress, cancel, then the indexed file reopened and searched again', async () => {
    const b = oneFile([node('c1')]);
    b.searchIndexed = false;
    const indexed = doc(2, 'a-indexed.rete');
    b.indexResult = indexed;
    b.docs.set(indexed.source, indexed);
    b.views.set('overview:2', { kind: 'pyramid', note: '', truncated: false, nodes: [node('c1')], edges: [] });
    b.legends.set(2, { source: 'schema', note: '', classes: [], relations: [] });
    b.contexts.set(2, { classes: [], predicates: [], prefixes: [], examples: [] });
    const session = new Session(b);
    await session.start();
    render(SearchBox, { session });
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'ali' } });
    await vi.waitFor(() => expect(screen.getByTestId('search-scanned').textContent).toContain('no search index'));

    // Add, then cancel while it runs: nothing written, said so, offered again.
    await fireEvent.mouseDown(screen.getByTestId('search-add-index'));
    await vi.waitFor(() => expect(screen.getByTestId('search-indexing').dataset.phase).toBe('degrees'));
    // labels (0.1) done, degrees (0.45) half done.
    expect(screen.getByRole('progressbar', { name: 'Adding a search index' }).getAttribute('aria-valuenow')).toBe('33');
    expect(screen.queryByTestId('search-add-index')).toBeNull();
    await fireEvent.click(screen.getByTestId('search-index-cancel'));
    await vi.waitFor(() => expect(screen.getByTestId('search-index-message').textContent).toContain('cancelled'));
    expect(b.calls).toContain('indexCancel 5');
    expect(session.source.doc?.doc).toBe(1);

    // Add again to the end: the indexed file replaces the old one and the text is searched there.
    await fireEvent.mouseDown(screen.getByTestId('search-add-index'));
    await vi.waitFor(() => expect(b.indexRelease).not.toBeNull());
    b.searchIndexed = true;
    b.indexRelease?.();
    await vi.waitFor(() => expect(screen.getByTestId('search-index-message').textContent).toBe('Search index added: a-indexed.rete'));
    expect(session.source.doc?.doc).toBe(2);
    expect(b.calls).toContain('close 1');
    expect(b.calls).toContain('overview 2');
    expect(b.calls.filter((c) => c.startsWith('search ')).at(-1)).toMatch(/^search \d+ ali$/);
    expect(session.search.text).toBe('ali');
    expect(screen.queryByTestId('search-scanned')).toBeNull();
  });

  it('shows each hit\'s term under its label, as labels repeat across vocabularies', async () => {
    const b = oneFile([node('c1')]);
    const hit = (nt: string) => ({ rank: 1, id: 7, nt, kind: 'predicate' as const, label: 'birth date', lang: 'en', class: null, class_label: 'Property', path: [] });
    b.searchHits.set('birth', [hit('<http://dbpedia.org/ontology/birthDate>'), hit('<http://www.w3.org/2006/vcard/ns#bday>')]);
    const session = new Session(b);
    await session.start();
    render(SearchBox, { session });
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'birth da' } });
    await vi.waitFor(() => expect(screen.getAllByTestId('search-hit')).toHaveLength(2));
    const iris = screen.getAllByTestId('search-hit-iri');
    expect(iris.map((e) => e.textContent)).toEqual(['http://dbpedia.org/ontology/birthDate', 'http://www.w3.org/2006/vcard/ns#bday']);
    expect(iris[1].getAttribute('title')).toBe('http://www.w3.org/2006/vcard/ns#bday');
    // One on the map (an ontology's, described by triples of its own) says where it sits too.
    expect(screen.getAllByTestId('search-hit').map((e) => e.querySelector('.where')?.textContent)).toEqual(['predicate', 'predicate']);
    b.searchHits.set('bday', [{ ...hit('<http://www.w3.org/2006/vcard/ns#bday>'), path: ['c1:0', 'c0:4'] }]);
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'bday' } });
    await vi.waitFor(() => expect(screen.getAllByTestId('search-hit')).toHaveLength(1));
    expect(screen.getByTestId('search-hit').querySelector('.where')?.textContent).toBe('predicate · level 1 → 0');
  });

  it('keeps the row Up and Down highlight in view, the list and its rows updated in place', async () => {
    const b = oneFile([node('c1')]);
    const hit = (i: number) => ({ rank: i, id: i, nt: `<http://example.org/p${i}>`, kind: 'entity' as const, label: `Ada ${i}`, lang: null, class: null, class_label: null, path: [] });
    b.searchHits.set('ada', Array.from({ length: 12 }, (_, i) => hit(i)));
    const shown: string[] = [];
    // jsdom lays nothing out and has no scrollIntoView: recorded here.
    Element.prototype.scrollIntoView = function (this: Element) { shown.push(this.id); };
    try {
      const session = new Session(b);
      await session.start();
      render(SearchBox, { session });
      const input = screen.getByTestId('search-input');
      await fireEvent.input(input, { target: { value: 'ada' } });
      await vi.waitFor(() => expect(screen.getAllByTestId('search-hit')).toHaveLength(12));
      const first = screen.getAllByTestId('search-hit')[0];
      await fireEvent.keyDown(input, { key: 'ArrowUp' });
      expect(shown.at(-1)).toBe('search-hit-11');
      await fireEvent.keyDown(input, { key: 'ArrowDown' });
      expect(shown.at(-1)).toBe('search-hit-0');
      // Another answer reuses the rows (no list rebuilt on each keystroke).
      b.searchHits.set('bob', Array.from({ length: 12 }, (_, i) => hit(i + 20)));
      await fireEvent.input(input, { target: { value: 'bob' } });
      await vi.waitFor(() => expect(screen.getAllByTestId('search-hit')[0].textContent).toContain('Ada 20'));
      expect(screen.getAllByTestId('search-hit')[0]).toBe(first);
    } finally {
      delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
    }
  });

  it('offers no index for a file read over the network, and says why', async () => {
    const b = oneFile([node('c1')]);
    b.searchIndexed = false;
    b.docs.set('/a.rete', { ...doc(1, 'a.rete'), remote: true });
    const session = new Session(b);
    await session.start();
    render(SearchBox, { session });
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'ali' } });
    await vi.waitFor(() => expect(screen.getByTestId('search-scanned').textContent).toContain('read over the network'));
    expect(screen.queryByTestId('search-add-index')).toBeNull();
  });

  it('offers to show all matches on the map (button or Shift+Enter) and says what it found', async () => {
    const b = oneFile([node('c1')]);
    b.searchHits.set('ada', [{ rank: 1, id: 7, nt: '<http://ex.org/ada>', kind: 'entity' as const, label: 'Ada Turing', lang: null, class: null, class_label: null, path: ['c1:0', 'c0:3'] }]);
    b.spreads.set('ada', { text: 'ada', entities: 3, placed: 3, schema_terms: 0, complete: true, entity_keys: [], communities: [{ key: 'c1:0', count: 3 }, { key: 'c0:3', count: 3 }] });
    const session = new Session(b);
    await session.start();
    render(SearchBox, { session });
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'ada' } });
    await vi.waitFor(() => expect(screen.getByTestId('search-show-all')).toBeTruthy());
    await fireEvent.keyDown(screen.getByTestId('search-input'), { key: 'Enter', shiftKey: true });
    await vi.waitFor(() => expect(session.highlight.source).toBe('search'));
    expect(session.highlight.label).toBe('“ada”: 3 matches in 1 community');
    expect(screen.queryByTestId('search-hits')).toBeNull();
    // A click in the box (still focused: WebKit does not focus a clicked button) opens the list again.
    await fireEvent.click(screen.getByTestId('search-input'));
    await vi.waitFor(() => expect(screen.getByTestId('search-hits')).toBeTruthy());
    // Nothing on the map for another text: said beside the box.
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'adb ada' } });
    b.spreads.clear();
    await vi.waitFor(() => expect(screen.getByTestId('search-show-all')).toBeTruthy());
    await fireEvent.mouseDown(screen.getByTestId('search-show-all'));
    await vi.waitFor(() => expect(screen.getByTestId('search-spread-message').textContent).toBe('“adb ada”: 0 matches'));
    expect(session.highlight.active).toBe(false);
  });
});
