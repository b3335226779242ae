import { describe, expect, it } from 'vitest';
import { LabelPlacer, fit } from './labels';

// 7 pixels per character, as a stand-in for the canvas.
const measure = (t: string) => t.length * 7;

describe('map label placement', () => {
  it('leaves out a label that would overlap one already placed', () => {
    const p = new LabelPlacer();
    p.reset(800, 600);
    expect(p.beside('Alice Smith', 100, 100, 5, 13, measure)).not.toBeNull();
    // Same row, 20 px to the right: its label would cross the first one.
    expect(p.beside('Bob Jones', 120, 102, 5, 13, measure)).toBeNull();
    // Far enough below, it is placed.
    expect(p.beside('Bob Jones', 120, 140, 5, 13, measure)).not.toBeNull();
  });

  it('keeps labels inside the view', () => {
    const p = new LabelPlacer();
    p.reset(400, 300);
    // Near the right edge the label goes to the left of its node.
    const l = p.beside('DBpedia ontology · 9,015 terms', 390, 150, 4, 13, measure)!;
    expect(l.rect.x).toBeGreaterThanOrEqual(0);
    expect(l.rect.x + l.rect.w).toBeLessThanOrEqual(400);
    expect(l.text).toBe('DBpedia ontology · 9,015 terms');
    // A big circle's label is slid inside and shortened to the circle.
    const c = p.centred('A very long community label that is wider than the circle', 20, 20, 60, 14, measure)!;
    expect(c.rect.x).toBeGreaterThanOrEqual(0);
    expect(c.rect.y).toBeGreaterThanOrEqual(0);
    expect(c.rect.w).toBeLessThanOrEqual(108);
    expect(c.text.endsWith('…')).toBe(true);
  });

  it('shortens with an ellipsis', () => {
    expect(fit('Marie Curie', 1000, measure)).toBe('Marie Curie');
    expect(fit('Marie Curie', 42, measure)).toBe('Marie…');
    expect(fit('Marie Curie', 3, measure)).toBe('');
  });
});
