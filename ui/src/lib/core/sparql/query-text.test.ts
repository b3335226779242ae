import { describe, expect, it } from 'vitest';
import { compact, completionItems, declaredPrefixes, History, offsetOf, usedPrefixes, userPosition, withPrefixes, type Prefixes } from './query-text';

const P: Prefixes = [['foaf', 'http://xmlns.com/foaf/0.1/'], ['', 'http://example.org/medical#'], ['rdfs', 'http://www.w3.org/2000/01/rdf-schema#']];

describe('query text', () => {
  it('finds declared and used prefixes, ignoring IRIs, strings and comments', () => {
    expect([...declaredPrefixes('PREFIX foaf: <x> prefix : <y>\nSELECT')]).toEqual(['foaf', '']);
    const q = 'SELECT ?n WHERE { ?p foaf:name ?n ; a :Patient . FILTER(?n != "rdfs:label") } # rdfs:x\n<http://a/b>';
    expect(usedPrefixes(q, P).sort()).toEqual(['', 'foaf']);
  });

  it('declares missing prefixes on the first line and maps error columns back', () => {
    const text = 'SELECT * WHERE { ?s a :Patient ; foaf:name ?n }';
    const { query, shift } = withPrefixes(text, P);
    expect(query.startsWith('PREFIX foaf: <http://xmlns.com/foaf/0.1/> PREFIX : <http://example.org/medical#> ')).toBe(true);
    expect(query.endsWith(text)).toBe(true);
    expect(query.split('\n').length).toBe(1);
    expect(userPosition({ message: 'm', line: 1, column: shift + 10 }, shift).column).toBe(10);
    expect(userPosition({ message: 'm', line: 2, column: 7 }, shift).column).toBe(7);
    // Declared ones are left alone.
    expect(withPrefixes('PREFIX foaf: <z>\nSELECT ?x { ?x foaf:knows ?y }', P).shift).toBe(0);
  });

  it('turns line and column into an offset', () => {
    const t = 'ab\ncdef\ng';
    expect(offsetOf(t, 1, 1)).toBe(0);
    expect(offsetOf(t, 2, 3)).toBe(5);
    expect(offsetOf(t, 3, 9)).toBe(t.length);
    expect(offsetOf(t, 9, 1)).toBe(8);
  });

  it('compacts IRIs with the longest matching prefix', () => {
    expect(compact('http://xmlns.com/foaf/0.1/Person', P)).toBe('foaf:Person');
    expect(compact('http://example.org/medical#Patient', P)).toBe(':Patient');
    expect(compact('http://xmlns.com/foaf/0.1/a/b', P)).toBe('<http://xmlns.com/foaf/0.1/a/b>');
    expect(compact('http://other/x', P)).toBe('<http://other/x>');
  });

  it('offers classes and predicates of the file, most used first', () => {
    const items = completionItems({
      prefixes: P,
      classes: [{ iri: 'http://example.org/medical#Patient', label: 'Patient', count: 450 }, { iri: 'http://example.org/medical#Rare', label: 'Rare', count: 1 }],
      predicates: [{ iri: 'http://xmlns.com/foaf/0.1/name', label: 'name', count: 900 }],
      examples: [],
    });
    const patient = items.find((i) => i.label === ':Patient')!;
    expect(patient.type).toBe('class');
    expect(patient.detail).toContain('450 instances');
    expect(patient.boost).toBeGreaterThan(items.find((i) => i.label === ':Rare')!.boost);
    expect(items.find((i) => i.label === 'foaf:name')?.type).toBe('property');
    expect(items.some((i) => i.label === 'SELECT' && i.type === 'keyword')).toBe(true);
  });

  it('keeps a bounded history, most recent first, in storage', () => {
    const mem = new Map<string, string>();
    const storage = { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) };
    const h = new History(storage, 'h', 3);
    h.push('a'); h.push('b'); h.push('a'); h.push('  '); h.push('c'); h.push('d');
    expect(h.items).toEqual(['d', 'c', 'a']);
    expect(new History(storage, 'h', 3).items).toEqual(['d', 'c', 'a']);
    mem.set('h', 'not json');
    expect(new History(storage, 'h').items).toEqual([]);
  });
});
