import { describe, expect, it } from 'vitest';
import { LabelLanguages, userLanguages } from './languages';
import { Session } from '../session.svelte';
import { MemoryBackend, node, oneFile } from '../../../test/memory-backend';

describe('label languages', () => {
  it('reads navigator.languages in order, else navigator.language, without blanks or repeats', () => {
    expect(userLanguages({ languages: ['fr-CH', 'fr', 'de', 'FR'], language: 'fr-CH' })).toEqual(['fr-CH', 'fr', 'de']);
    expect(userLanguages({ languages: [], language: 'ja-JP' })).toEqual(['ja-JP']);
    expect(userLanguages({ languages: [' ', '*', 'es'] })).toEqual(['es']);
    expect(userLanguages({})).toEqual([]);
    expect(userLanguages(undefined)).toEqual([]);
  });

  it('hands the languages to the shell', async () => {
    const b = new MemoryBackend();
    const l = new LabelLanguages(b, { languages: ['de-CH', 'en'] });
    await l.apply();
    expect(b.languages).toEqual(['de-CH', 'en']);
    expect(l.languages).toEqual(['de-CH', 'en']);
  });

  it('sends nothing without languages (the shell keeps the OS locale) and survives a refusal', async () => {
    const b = new MemoryBackend();
    await new LabelLanguages(b, { languages: [] }).apply();
    expect(b.languages).toBeNull();
    b.setLanguages = async () => { throw 'command set_languages not allowed'; };
    const l = new LabelLanguages(b, { languages: ['fr'] });
    await l.apply();
    expect(l.languages).toEqual([]);
  });

  it('are set before the session opens the first file', async () => {
    const b = oneFile([node('c1')], ['<http://ex.org/P>']);
    const s = new Session(b);
    await s.start();
    // jsdom's navigator: its languages reach the shell before openPath is called.
    expect(b.languages).toEqual([...navigator.languages]);
    expect(b.languages?.length).toBeGreaterThan(0);
    expect(b.languagesAt).toBe(0);
    expect(b.calls[0]).toBe('openPath /a.rete');
    expect(s.labelLanguages.languages).toEqual(b.languages);
  });
});
