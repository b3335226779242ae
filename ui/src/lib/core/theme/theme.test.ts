import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PALETTES, ThemeState } from './theme.svelte';

function memory(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
}
function media(matches: boolean) {
  let listener: ((e: { matches: boolean }) => void) | null = null;
  return { matches, addEventListener: (_t: 'change', f: (e: { matches: boolean }) => void) => { listener = f; }, fire: (m: boolean) => listener?.({ matches: m }) };
}

describe('theme', () => {
  it('follows the system until the user chooses', () => {
    const root = document.createElement('html');
    const mq = media(true);
    const t = new ThemeState(memory(), mq, root);
    expect(t.theme).toBe('dark');
    expect(root.dataset.theme).toBe('dark');
    mq.fire(false);
    expect(t.theme).toBe('light');
    expect(root.dataset.theme).toBe('light');
    t.set('dark');
    mq.fire(false);
    expect(t.theme).toBe('dark');
    expect(t.palette).toBe(PALETTES.dark);
  });

  it('remembers the choice and ignores a damaged one', () => {
    const store = memory();
    const t = new ThemeState(store, media(false), null);
    t.cycle();
    expect(t.choice).toBe('light');
    t.cycle();
    expect(t.choice).toBe('dark');
    expect(new ThemeState(store, media(false), null).theme).toBe('dark');
    expect(new ThemeState(memory({ 'rete.theme': 'purple' }), media(true), null).choice).toBe('system');
  });

  it('keeps text readable: WCAG AA contrast on the map in both themes', () => {
    for (const p of Object.values(PALETTES)) {
      expect(contrast(p.label, p.background)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(p.focusText, p.background)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(p.path, p.background)).toBeGreaterThanOrEqual(4.5);
    }
  });
});

/** WCAG 2 contrast ratio of two #rrggbb colours. */
export function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

describe('page colours', () => {
  // Vitest's root is ui/ (vite.config.ts); CSS imports are empty under test, hence the file read.
  const css = readFileSync(join(__dirname, '../../../app.css'), 'utf8');
  // The tokens of app.css, per theme: [data-theme='dark'] overrides :root.
  const block = (sel: string) => Object.fromEntries([...css.slice(css.indexOf(sel)).split('}')[0].matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})\b/gi)].map((m) => [m[1], m[2]]));
  const light = block(':root {');
  const dark = { ...light, ...block(":root[data-theme='dark'] {") };
  // Text and what it is drawn on, as the components pair them.
  const pairs: [string, string][] = [
    ['text', 'bg'], ['text', 'surface'], ['text', 'surface-2'], ['text', 'hover'], ['text', 'selected'],
    ['text-2', 'surface'], ['text-2', 'surface-2'], ['muted', 'surface'], ['muted', 'bg'], ['muted', 'surface-2'],
    ['accent', 'surface'], ['accent-text', 'surface'], ['on-accent', 'accent'],
    ['err-text', 'err-bg'], ['err-strong', 'surface'], ['warn-text', 'warn-bg'], ['ok-text', 'ok-bg'], ['err-bg', 'err-text'],
    ['syn-keyword', 'surface'], ['syn-string', 'surface'], ['syn-comment', 'surface'], ['syn-variable', 'surface'], ['syn-iri', 'surface'], ['syn-number', 'surface'],
  ];
  for (const [name, theme] of [['light', light], ['dark', dark]] as const) {
    it(`reads at WCAG AA (4.5:1) in the ${name} theme`, () => {
      for (const [f, b] of pairs) expect([f, b, theme[f], theme[b]].every(Boolean), `${f} on ${b}`).toBe(true);
      const low = pairs.map(([f, b]) => [f, b, contrast(theme[f], theme[b])] as const).filter(([, , c]) => !(c >= 4.5));
      expect(low).toEqual([]);
    });
  }
});
